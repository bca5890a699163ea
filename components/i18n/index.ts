/** Locales: texts by table, numbers, prices, weights, sizes and dates by Intl. */
import { enUS, type Strings } from './en-US.ts'

export type { Strings }

const TABLES: Record<string, Strings> = { 'en-US': enUS }
const RTL = new Set(['ar', 'he', 'fa', 'ur'])

export interface Locale {
  tag: string
  dir: 'ltr' | 'rtl'
  t: Strings
  format(key: keyof Strings, values?: Record<string, string | number>): string
  price(amount: number, decimalPlaces: number, currency: string): string
  weight(kg: number): string
  length(cm: number): string
  date(iso: string): string
  time(iso: string): string
}

/** Registers a translation (each locale module calls this; the SDK bundles them all). */
export function addLocale(tag: string, strings: Strings) { TABLES[tag] = strings }

/** The best table for a tag: exact, then same language, then en-US. */
function tableFor(tag: string): Strings {
  if (TABLES[tag]) return TABLES[tag]
  const lang = tag.split('-')[0]
  const same = Object.keys(TABLES).find((k) => k.split('-')[0] === lang)
  return same ? TABLES[same]! : enUS
}

export function formatPrice(amount: number, decimalPlaces: number, currency: string, tag = 'en-US'): string {
  return new Intl.NumberFormat(tag, { style: 'currency', currency, minimumFractionDigits: decimalPlaces, maximumFractionDigits: decimalPlaces })
    .format(amount / 10 ** decimalPlaces)
}

const cache = new Map<string, Locale>()

export function localeFor(requested: string | undefined): Locale {
  let tag = requested ?? 'en-US'
  try { tag = Intl.getCanonicalLocales(tag)[0] ?? 'en-US' } catch { tag = 'en-US' }
  let l = cache.get(tag)
  if (l) return l
  const t = tableFor(tag)
  const unit = (unit: string) => new Intl.NumberFormat(tag, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 })
  const kg = unit('kilogram')
  const cm = unit('centimeter')
  const date = new Intl.DateTimeFormat(tag, { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' })
  const time = new Intl.DateTimeFormat(tag, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' })
  l = {
    tag,
    dir: RTL.has(tag.split('-')[0]!) ? 'rtl' : 'ltr',
    t,
    format: (key, values = {}) => t[key].replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m)),
    price: (amount, dp, currency) => formatPrice(amount, dp, currency, tag),
    weight: (v) => kg.format(v),
    length: (v) => cm.format(v),
    // Flight times are local to the airport: show the wall-clock time the ticket shows, from the offset form.
    date: (iso) => date.format(new Date(iso.slice(0, 10) + 'T12:00:00Z')),
    time: (iso) => time.format(new Date(iso.slice(0, 16) + 'Z')),
  }
  cache.set(tag, l)
  return l
}
