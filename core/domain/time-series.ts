/**
 * Time series for the operator's charts (the admin API's supplier health and orders by hour): a window cut
 * into equal buckets, each item in the one its time falls in. Buckets start at the window's start, not on
 * the clock's minutes or hours, so the buckets hold exactly what the window's totals count.
 */

/** A window of `count` buckets of `widthMs` each, from `since`. */
export interface Window {
  since: string
  widthMs: number
  count: number
}

/** The window of `count` buckets of `widthMs` that ends at `now`. */
export const windowEndingAt = (now: Date, widthMs: number, count: number): Window => ({
  since: new Date(now.getTime() - widthMs * count).toISOString(),
  widthMs,
  count,
})

/**
 * Items grouped by bucket, oldest bucket first, each bucket with its start. An item at the window's end or
 * later (written at this very moment, or by an instance whose clock is a little ahead) is in the last
 * bucket, as it is in a total of everything since the window's start; one before the start, or whose time
 * is unreadable, is in none.
 */
export function bucketed<T>(
  w: Window,
  items: Iterable<T>,
  timeOf: (item: T) => string,
): Array<{ start: string; items: T[] }> {
  const from = Date.parse(w.since)
  const buckets = Array.from({ length: w.count }, (_, i) => ({
    start: new Date(from + i * w.widthMs).toISOString(),
    items: [] as T[],
  }))
  for (const item of items) {
    const i = Math.min(w.count - 1, Math.floor((Date.parse(timeOf(item)) - from) / w.widthMs))
    if (i >= 0 && i < w.count) buckets[i]!.items.push(item)
  }
  return buckets
}

/** The nearest-rank percentile `p` (0–100) of sorted values; null of none. */
export const percentile = (sorted: readonly number[], p: number): number | null =>
  sorted.length === 0
    ? null
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
