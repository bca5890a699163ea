/**
 * Locales: texts by table, numbers, prices, weights, sizes and dates by Intl.
 *
 * Only the en-US table is in the bundle. The others (locales/<tag>.ts) are built to
 * `/javascript/v2.2/locales/<tag>.json`, which the SDK fetches for the trip's locale and registers with
 * `addLocale`, and to `dist/esm/locales/<tag>.js` for bundlers (`addLocale('de-DE', de)`).
 */
import { enUS, type Plural, type Strings } from './en-US.ts'

export type { Plural, Strings }

/** Every text of a Locale as a string (a counted text as its `other` form: use `format` with `count`). */
export type Texts = { [K in keyof Strings]: string }

/**
 * The tables we translate, en-US first: the SDK fetches the best of these for the chosen locale (the
 * first of a language is its fallback: en-NZ → en-US, ar-AE → ar-SA, zh-TW → zh-HK by script). A bare
 * language stands for itself in its most likely region (CLDR likely subtags: da → da-DK, ar → ar-EG,
 * zh → zh-CN), which keeps the list short in svc.min.js; test/sdk/locales.test.ts checks the thirty tags.
 */
export const LOCALES: readonly string[] = 'en en-GB en-AU en-CA ar-SA ar da de el es et fi fr id it ja ko lt lv nb nl pl pt-PT ro sv th tr vi zh zh-HK'
  .split(' ').map((t) => (t[2] ? t : `${t}-${new Intl.Locale(t).maximize().region}`))

const TABLES: Record<string, Strings> = { 'en-US': enUS }
const RTL = new Set(['ar', 'he', 'fa', 'ur'])

export interface Locale {
  tag: string
  dir: 'ltr' | 'rtl'
  t: Texts
  /**
   * The text of `key` with its `{placeholders}` filled: numbers in the locale's digits, strings as given.
   * A counted text (a `Plural`) takes the form for `values.count`, which must then be a number.
   */
  format(key: keyof Strings, values?: Record<string, string | number>): string
  price(amount: number, decimalPlaces: number, currency: string): string
  weight(kg: number): string
  length(cm: number): string
  date(iso: string): string
  time(iso: string): string
}

/**
 * Registers a translation under its canonical tag (a RangeError for a tag that is none): the SDK does it
 * with the JSON it fetched, bundlers with the module they import. Keys it lacks read in English, so an
 * older table never leaves a hole.
 */
export function addLocale(tag: string, strings: Strings) {
  TABLES[Intl.getCanonicalLocales(tag)[0]!] = { ...enUS, ...strings }
  cache.clear()
}

/** A table is registered under this tag. */
export const hasLocale = (tag: string): boolean => tag in TABLES

/**
 * The best of `tags` for `tag`: the tag itself, else the first of the same language and script
 * (de-AT → de-DE, pt-BR → pt-PT, but zh-TW, written in Traditional characters, not → zh-CN).
 */
export function bestTag(tag: string, tags: readonly string[]): string | undefined {
  const key = (t: string) => {
    const l = new Intl.Locale(t).maximize()
    return l.language + l.script
  }
  return tags.includes(tag) ? tag : tags.find((t) => key(t) === key(tag))
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
  // Texts (and their plural rules) from the best table, numbers and dates in the tag itself.
  const from = bestTag(tag, Object.keys(TABLES)) ?? 'en-US'
  const table = TABLES[from]!
  const plural = new Intl.PluralRules(from)
  const nf = new Intl.NumberFormat(tag)
  const unit = (unit: string) => new Intl.NumberFormat(tag, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 })
  const kg = unit('kilogram')
  const cm = unit('centimeter')
  const date = new Intl.DateTimeFormat(tag, { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' })
  const time = new Intl.DateTimeFormat(tag, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' })
  l = {
    tag,
    dir: RTL.has(tag.split('-')[0]!) ? 'rtl' : 'ltr',
    t: Object.fromEntries(Object.entries(table).map(([k, v]) => [k, (v as Plural).other ?? v])) as Texts,
    format: (key, values = {}) => {
      const v: string | Plural = table[key]
      return (typeof v === 'string' ? v : v[plural.select(Number(values['count']))] ?? v.other)
        .replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? (typeof values[k] === 'number' ? nf.format(values[k]) : values[k]!) : m))
    },
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
