/**
 * Locales: texts by table, numbers, prices, weights, sizes and dates by Intl.
 *
 * Only the en-US table is in the bundle, and of it only the texts of the views in svc.min.js: a view that
 * comes later (the seat map, the option cards) registers its English texts as it loads (`addEnglish`).
 * The other tables (locales/<tag>.ts) are built to `/javascript/v2.2/locales/<tag>.json`, which the SDK
 * fetches for the trip's locale and registers with `addLocale`, and to `svc-ancillaries/locales/<tag>.js` (the package) for
 * bundlers (`addLocale('de-DE', de)`).
 */
import type { Plural, Strings } from './en-US.ts'
import { coreTexts } from './en-US/core.ts'

export type { Plural, Strings }

/** Every text of a Locale as a string (a counted text as its `other` form: use `format` with `count`). */
export type Texts = { [K in keyof Strings]: string }

/**
 * The tables we translate, en-US first: the SDK fetches the best of these for the chosen locale (the
 * first of a language is its fallback: en-NZ → en-US, ar-AE → ar-SA, zh-TW → zh-HK by script). A bare
 * language stands for itself in its most likely region (CLDR likely subtags: da → da-DK, ar → ar-EG,
 * zh → zh-CN), which keeps the list short in svc.min.js; test/components/i18n/index.test.ts checks the thirty tags.
 */
export const LOCALES: readonly string[] = /* @__PURE__ */ tags(
  'en en-GB en-AU en-CA ar-SA ar da de el es et fi fr id it ja ko lt lv nb nl pl pt-PT ro sv th tr vi zh zh-HK',
)

/**
 * The list in full. A pure call, so a page that never asks which tables exist (one element from the
 * package, with its locale given) leaves it out of its bundle: only the SDK reads the list.
 */
function tags(list: string): string[] {
  return list.split(' ').map((t) => (t[2] ? t : `${t}-${new Intl.Locale(t).maximize().region}`))
}

/** The English texts registered so far: the en-US table, and what every other table falls back on. */
const english = { ...coreTexts } as Strings
const TABLES: Record<string, Strings> = { 'en-US': english }
/** Languages written right to left (of those we might be given: Arabic, Hebrew, Persian, Urdu). */
const RTL = /^(ar|he|fa|ur)\b/

export interface Locale {
  tag: string
  dir: 'ltr' | 'rtl'
  t: Texts
  /**
   * The text of `key` with its `{placeholders}` filled: numbers in the locale's digits, strings as given
   * (in a right-to-left locale between U+2068 FSI and U+2069 PDI, so a Latin name or code stays whole).
   * A counted text (a `Plural`) takes the form for `values.count`, which must then be a number.
   */
  format(key: keyof Strings, values?: Record<string, string | number>): string
  price(amount: number, decimalPlaces: number, currency: string): string
  /** A number in the locale's digits and separators. */
  number(n: number): string
  weight(kg: number): string
  length(cm: number): string
  date(iso: string): string
  time(iso: string): string
}

/**
 * Registers a translation under its canonical tag (a RangeError for a tag that is none): the SDK does it
 * with the JSON it fetched, bundlers with the module they import. Keys it lacks read in English (the
 * English registered by then or later), so an older table never leaves a hole.
 */
export function addLocale(tag: string, strings: Strings) {
  TABLES[Intl.getCanonicalLocales(tag)[0]!] = Object.setPrototypeOf({ ...strings }, english) as Strings
  cache.clear()
}

/** Registers the English texts of a view that arrives after the rest (the files of ./en-US/); Locales made before see them. */
export function addEnglish(texts: Partial<Strings>) {
  Object.assign(english, texts)
}

/** `tag` in canonical form (de-de → de-DE), or undefined when it is no BCP 47 tag. */
export function canonicalTag(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0]
  } catch {
    return undefined
  }
}

/** A seller's texts by key (`Svc.init({ strings })`): a text, or plural forms for a counted one. */
export type CustomStrings = { [K in keyof Strings]?: string | Plural }

let custom: CustomStrings = {}

/**
 * Puts the seller's `strings` over every locale's table (they replace the last call's; none: `{}`), for
 * the locale the widgets show: a text given as a plain string is used for every count. Keys must be en-US
 * keys: `Svc.init` refuses others (here they are inert).
 */
export function setStrings(strings: CustomStrings = {}) {
  custom = strings
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
  return new Intl.NumberFormat(tag, {
    style: 'currency',
    currency,
    minimumFractionDigits: decimalPlaces,
    maximumFractionDigits: decimalPlaces,
  }).format(amount / 10 ** decimalPlaces)
}

const cache = new Map<string, Locale>()

export function localeFor(requested: string | undefined): Locale {
  const tag = canonicalTag(requested ?? 'en-US') ?? 'en-US'
  let l = cache.get(tag)
  if (l) return l
  // Texts (and their plural rules) from the best table, numbers and dates in the tag itself.
  const from = bestTag(tag, Object.keys(TABLES)) ?? 'en-US'
  // The seller's texts over the table, read through to it (and from it to the English registered later).
  const table = Object.setPrototypeOf({ ...custom }, TABLES[from]!) as Strings
  const rtl = RTL.test(tag)
  const plural = new Intl.PluralRules(from)
  const nf = new Intl.NumberFormat(tag)
  const unit = (unit: string) =>
    new Intl.NumberFormat(tag, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 })
  const kg = unit('kilogram')
  const cm = unit('centimeter')
  const date = new Intl.DateTimeFormat(tag, { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' })
  const time = new Intl.DateTimeFormat(tag, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' })
  l = {
    tag,
    dir: rtl ? 'rtl' : 'ltr',
    // Read through, so texts registered later (addEnglish) are there too; a counted text reads as its `other` form.
    t: new Proxy(table, {
      get: (tb, k) => {
        const v = tb[k as keyof Strings]
        return (v as Plural | undefined)?.other ?? v
      },
    }) as unknown as Texts,
    // In right-to-left text a string put in (a name, an airport code, a flight number, a route made by an
    // earlier format) is isolated, FSI … PDI, so its own direction never reorders the words around it.
    format: (key, values = {}) => {
      const v: string | Plural = table[key]
      return (typeof v === 'string' ? v : (v[plural.select(Number(values['count']))] ?? v.other)).replace(
        /\{(\w+)\}/g,
        (m, k: string) =>
          k in values
            ? typeof values[k] === 'number'
              ? nf.format(values[k])
              : rtl
                ? `\u2068${values[k]}\u2069`
                : values[k]!
            : m,
      )
    },
    price: (amount, dp, currency) => formatPrice(amount, dp, currency, tag),
    number: (n) => nf.format(n),
    weight: (v) => kg.format(v),
    length: (v) => cm.format(v),
    // Flight times are local to the airport: show the wall-clock time the ticket shows, from the offset form.
    // The date and clock are read from the text (`2027-08-07T23:30:00-07:00` is Sat, Aug 7, 23:30), never
    // from the instant, so neither the browser's time zone nor UTC moves them. This relies on the API
    // sending each segment time in its airport's offset: a time sent as `…Z` (2027-08-08T06:30:00Z for that
    // PDX departure) shows the UTC clock, Sun, Aug 8, 06:30, and the widget cannot know the airport to
    // convert it (test/components/i18n/index.browser.test.ts).
    date: (iso) => date.format(new Date(iso.slice(0, 10) + 'T12:00:00Z')),
    time: (iso) => time.format(new Date(iso.slice(0, 16) + 'Z')),
  }
  cache.set(tag, l)
  return l
}
