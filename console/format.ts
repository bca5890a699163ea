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

/** An ISO time to the second in UTC: a timeline's entries and a delivery's attempts are seconds apart. */
export const stamp = (iso: string | null | undefined): string =>
  iso ? `${iso.slice(0, 19).replace('T', ' ')} UTC` : '—'

/**
 * An amount in minor units that names its currency but not its decimal places (a timeline entry's): the
 * browser's own table of currencies has them (ISO 4217's, as the service's), so money() writes it as usual.
 */
export function minorMoney(m: { amount: number; currency: string } | undefined): string {
  if (!m) return '—'
  let places = 2
  try {
    places =
      new Intl.NumberFormat('en', { style: 'currency', currency: m.currency }).resolvedOptions()
        .maximumFractionDigits ?? 2
  } catch {
    // A code the browser does not know: two places, as most currencies have.
  }
  return money({ ...m, decimal_places: places })
}
