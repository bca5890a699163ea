/** How the pages write money and times: as text, from what the admin API answers. */
export function money(m: { amount: number; currency: string; decimal_places: number } | undefined): string {
  if (!m) return '—'
  return `${(m.amount / 10 ** m.decimal_places).toFixed(m.decimal_places)} ${m.currency}`
}

/** An ISO time, shortened to the minute in UTC (operators across zones compare the same clock). */
export const when = (iso: string | null | undefined): string =>
  iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—'

/** An ISO time's hour and minute in UTC, as a chart labels its bars. */
export const clock = (iso: string): string => iso.slice(11, 16)
