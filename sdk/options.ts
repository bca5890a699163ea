/**
 * Checks of what a seller passes to `Svc.init`, `Svc.showUpsell` and `Svc.formatPrice`, with no DOM, so the
 * rules are testable in Node and every problem is named at once (a seller fixes them in one round, not five).
 */
import {
  PRODUCT_NAMES,
  type BasketChange,
  type Display,
  type EventCallbacks,
  type InitOptions,
  type ProductName,
  type Theme,
} from './types.ts'
import { SvcError } from '../client/errors.ts'
import { canonicalTag, type CustomStrings, type Plural } from '../components/i18n/index.ts'
import { THEME_KEYS } from '../components/theme-props.ts'

/** Every callback the SDK knows; any other name (a newer SDK's, a typo) is ignored. */
export const CALLBACK_NAMES = [
  'onBasketChange',
  'onInvalidBasket',
  'onBagLoad',
  'onBagModalClosed',
  'onBagFail',
  'onSeatLoad',
  'onSeatModalClosed',
  'onSeatFail',
] as const satisfies ReadonlyArray<keyof EventCallbacks>

export type CallbackName = (typeof CALLBACK_NAMES)[number]
export type ResolvedCallbacks = Partial<EventCallbacks> & { onBasketChange: (change: BasketChange) => void }

export const DISPLAYS: readonly Display[] = ['card', 'embedded', 'modal']

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== ''

function invalid(fn: string, problems: string[]): SvcError {
  return new SvcError('invalid_options', `${fn}: ${problems.join('; ')}.`)
}

/** A locale tag in canonical form, or undefined when `Intl` does not accept it. */
export const canonicalLocale = canonicalTag

export interface CheckedInit {
  /** In sandbox mode empty when not given: the sandbox then names the trip (sdk/sandbox.ts). */
  tripId: string
  tripAccessToken: string
  sandbox: boolean
  callbacks: ResolvedCallbacks
  baseUrl: string
  locale: string | null
  /** The seller's texts by en-US key, over the locale's (components/i18n setStrings). */
  strings: CustomStrings | undefined
  refreshToken: string | undefined
  getAccessToken: (() => Promise<string>) | undefined
}

/**
 * Validates `Svc.init` options. `defaultBaseUrl` is where the SDK script came from (null when unknown, as
 * in the ESM build). Callbacks under `eventCallbacks` win over top-level ones of the same name.
 */
export function checkInitOptions(options: unknown, defaultBaseUrl: string | null): CheckedInit {
  if (!isObject(options)) throw invalid('Svc.init', ['options must be an object'])
  const o = options as Partial<InitOptions> & Record<string, unknown>
  const problems: string[] = []
  // The sandbox makes a trip, and signs tokens for it, when the page names none.
  const sandbox = o.sandbox === true
  const optional = (v: unknown) => sandbox && v === undefined
  if (!nonEmptyString(o.tripId) && !optional(o.tripId))
    problems.push('tripId is required (the trip_id your backend received)')
  if (!nonEmptyString(o.tripAccessToken) && !optional(o.tripAccessToken))
    problems.push('tripAccessToken is required (the trip_access_token your backend received)')

  const grouped = o.eventCallbacks
  if (grouped !== undefined && !isObject(grouped)) problems.push('eventCallbacks must be an object of callbacks')
  const callbacks: Partial<Record<CallbackName, unknown>> = {}
  for (const source of [o, isObject(grouped) ? grouped : {}] as Array<Record<string, unknown>>) {
    for (const name of CALLBACK_NAMES) {
      const fn = source[name]
      if (fn === undefined) continue
      if (typeof fn !== 'function') {
        problems.push(`${source === o ? '' : 'eventCallbacks.'}${name} must be a function`)
        continue
      }
      callbacks[name] = fn
    }
  }
  if (!callbacks.onBasketChange && !problems.some((p) => p.includes('onBasketChange'))) {
    problems.push('onBasketChange is required (a function that receives {basket}), top-level or under eventCallbacks')
  }

  let baseUrl = defaultBaseUrl
  if (o.baseUrl !== undefined) {
    const parsed = typeof o.baseUrl === 'string' ? safeUrl(o.baseUrl) : null
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
      problems.push('baseUrl must be an absolute http(s) URL')
    else baseUrl = parsed.href.replace(/\/$/, '')
  } else if (!baseUrl && !sandbox) {
    problems.push('baseUrl is required (the SDK cannot tell which address it was loaded from)')
  }

  let locale: string | null = null
  if (o.locale !== undefined) {
    locale = (typeof o.locale === 'string' && canonicalTag(o.locale)) || null
    if (!locale) problems.push('locale must be a BCP 47 tag such as en-GB')
  }
  // Texts by en-US key: a string, or plural forms ({ one, other }) for a counted text.
  if (o.strings !== undefined) {
    const strings = isObject(o.strings) ? o.strings : {}
    if (strings !== o.strings) problems.push('strings must be an object of texts')
    for (const [k, v] of Object.entries(strings))
      if (typeof v !== 'string' && typeof (v as Plural | null)?.other !== 'string')
        problems.push(`strings.${k} must be a string`)
  }
  if (o.refreshToken !== undefined && !nonEmptyString(o.refreshToken)) problems.push('refreshToken must be a string')
  if (o.getAccessToken !== undefined && typeof o.getAccessToken !== 'function')
    problems.push('getAccessToken must be a function returning a Promise of a token')
  if (o.sandbox !== undefined && typeof o.sandbox !== 'boolean') problems.push('sandbox must be true or false')

  if (problems.length > 0) throw invalid('Svc.init', problems)

  return {
    tripId: o.tripId ?? '',
    tripAccessToken: o.tripAccessToken ?? '',
    sandbox,
    callbacks: callbacks as ResolvedCallbacks,
    // In sandbox mode the sandbox replaces it (the page's origin, or a name that never reaches a network).
    baseUrl: baseUrl ?? '',
    locale,
    strings: o.strings as CustomStrings | undefined,
    refreshToken: o.refreshToken,
    getAccessToken: o.getAccessToken,
  }
}

function safeUrl(s: string): URL | null {
  try {
    return new URL(s)
  } catch {
    return null
  }
}

export interface CheckedShow {
  container: string | HTMLElement
  display: Display
  /** Allowed minus excluded, in the canonical order, without duplicates. */
  products: ProductName[]
  theme: Theme
  /** Theme keys that were ignored (a typo, or a newer SDK's key). */
  unknownThemeKeys: string[]
}

export function checkShowOptions(options: unknown): CheckedShow {
  if (!isObject(options)) throw invalid('Svc.showUpsell', ['options must be an object'])
  const o = options
  const problems: string[] = []
  if (!nonEmptyString(o.container) && !isElement(o.container))
    problems.push('container is required: the element to show the widget in, or its id')
  if (!DISPLAYS.includes(o.display as Display)) problems.push(`display must be one of ${DISPLAYS.join(', ')}`)
  const names = (key: 'allowProducts' | 'excludeProducts'): ProductName[] => {
    const v = o[key]
    if (v === undefined) return key === 'allowProducts' ? [...PRODUCT_NAMES] : []
    if (!Array.isArray(v)) {
      problems.push(`${key} must be an array of product names (${PRODUCT_NAMES.join(', ')})`)
      return []
    }
    const unknown = v.filter((n) => !PRODUCT_NAMES.includes(n as ProductName))
    if (unknown.length > 0)
      problems.push(
        `${key} has unknown product names ${unknown.map((n) => JSON.stringify(n)).join(', ')} (known: ${PRODUCT_NAMES.join(', ')})`,
      )
    return v.filter((n): n is ProductName => PRODUCT_NAMES.includes(n as ProductName))
  }
  const allowed = names('allowProducts')
  const excluded = names('excludeProducts')
  const products = PRODUCT_NAMES.filter((p) => allowed.includes(p) && !excluded.includes(p))
  if (problems.length === 0 && products.length === 0)
    problems.push('allowProducts minus excludeProducts leaves no product to show')

  const theme: Theme = {}
  const unknownThemeKeys: string[] = []
  if (o.theme !== undefined) {
    if (!isObject(o.theme)) problems.push('theme must be an object of CSS values')
    else checkTheme(o.theme, theme, unknownThemeKeys, problems, 'theme')
  }
  if (problems.length > 0) throw invalid('Svc.showUpsell', problems)
  return {
    container: o.container as string | HTMLElement,
    display: o.display as Display,
    products,
    theme,
    unknownThemeKeys,
  }
}

/** An element of the page (or of any document: an iframe's elements are not this window's HTMLElement). */
const isElement = (v: unknown): v is HTMLElement => typeof v === 'object' && v !== null && (v as Node).nodeType === 1

function checkTheme(input: Record<string, unknown>, out: Theme, unknown: string[], problems: string[], path: string) {
  for (const [k, v] of Object.entries(input)) {
    if (k === 'dark' && path === 'theme') {
      if (!isObject(v)) problems.push('theme.dark must be an object of CSS values')
      else {
        const dark: Theme = {}
        checkTheme(v, dark, unknown, problems, 'theme.dark')
        out.dark = dark
      }
      continue
    }
    // The dark variant carries colours only (types.ts: `dark` omits radius, font and spacing).
    const known =
      path === 'theme' ? THEME_KEYS : THEME_KEYS.filter((t) => t !== 'radius' && t !== 'font' && t !== 'spacing')
    if (!(known as readonly string[]).includes(k)) {
      unknown.push(`${path}.${k}`)
      continue
    }
    if (typeof v !== 'string') problems.push(`${path}.${k} must be a string (a CSS value)`)
    else out[k as Exclude<keyof Theme, 'dark'>] = v
  }
}

/** Validates the arguments of `Svc.formatPrice`. */
export function checkPriceArgs(amount: unknown, decimalPlaces: unknown, currency: unknown) {
  const problems: string[] = []
  if (typeof amount !== 'number' || !Number.isFinite(amount)) problems.push('amount must be a number (minor units)')
  if (!Number.isInteger(decimalPlaces) || (decimalPlaces as number) < 0 || (decimalPlaces as number) > 20)
    problems.push('decimal_places must be an integer from 0 to 20')
  if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency))
    problems.push('currency must be a three-letter code')
  if (problems.length > 0) throw invalid('Svc.formatPrice', problems)
}

/** Items the seller must act on before charging. */
export const needsAction = (change: BasketChange) =>
  Object.values(change.basket).some(
    (i) => i.validity.state === 'price_changed' || i.validity.state === 'unavailable' || i.validity.state === 'invalid',
  )
