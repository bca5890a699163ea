/**
 * The time helpers every store shares (memory here, SQLite and PostgreSQL in server/store/): a store
 * hands times back in canonical `toISOString()` form, whatever offset they were given in. Canonical ISO
 * text also sorts chronologically, which the memory and SQLite stores' comparisons rely on.
 */
export const iso = (time: string): string => new Date(time).toISOString()
export const isoOrNull = (time: string | null): string | null => (time === null ? null : iso(time))
/** A lease in canonical form, or null when it is no time at all (then it matches no job). */
export const leaseIso = (lease: string): string | null => {
  const t = new Date(lease)
  return Number.isNaN(t.getTime()) ? null : t.toISOString()
}
