/** Median and spread of repeated measurements: these machines are shared and noisy. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** `0.312× (0.30–0.33)`: the median ratio and the lowest and highest of the rounds. */
export function spread(xs: number[], digits = 3, unit = '×'): string {
  const f = (x: number) => x.toFixed(digits)
  return `${f(median(xs))}${unit} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`
