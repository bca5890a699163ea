/**
 * The public types of the browser SDK (`window.Svc`). Everything a seller's frontend touches is typed here
 * and documented with when it happens; nothing is `any`. The shapes the widgets share (trip, basket,
 * product names, display, theme) live in the client layer (client/types.ts) and are re-exported here.
 */
import type { BasketChange, Display, ProductName, Theme } from '../client/types.ts'
import type { SvcError } from '../client/errors.ts'
import type { CustomStrings } from '../components/i18n/index.ts'

export type * from '../client/types.ts'
export { PRODUCT_NAMES } from '../client/types.ts'

export interface WidgetEvent {
  /** The `showUpsell` container the widget lives in, as it was given: an element's id, or the element. */
  container: string | HTMLElement
  display: Display
}

export interface WidgetFailure extends WidgetEvent {
  error: SvcError
}

export interface EventCallbacks {
  /** Whenever an item is added or removed, or an item expires or changes validity. */
  onBasketChange(change: BasketChange): void
  /** The bag selection has loaded its offers and is visible. */
  onBagLoad?(event: WidgetEvent): void
  /** The traveller closed the bag selection dialog (modal display, or the card's dialog). */
  onBagModalClosed?(event: WidgetEvent): void
  /** The bag selection could not load (the airline's search failed: code `offers_unavailable`) or could not change the basket. */
  onBagFail?(event: WidgetFailure): void
  /** The seat map has loaded and is visible. */
  onSeatLoad?(event: WidgetEvent): void
  /** The traveller closed the seat selection dialog. */
  onSeatModalClosed?(event: WidgetEvent): void
  /** The seat map could not load (the airline's search failed: code `offers_unavailable`) or could not change the basket. */
  onSeatFail?(event: WidgetFailure): void
  /** Some basket item needs action before the charge: `price_changed`, `unavailable` or `invalid`. */
  onInvalidBasket?(change: BasketChange): void
}

/** `Svc.init` options: a trip of the API, or the offline sandbox (`sandbox: true`). */
export type InitOptions = TripInitOptions | SandboxInitOptions

export interface TripInitOptions extends Partial<EventCallbacks> {
  tripId: string
  tripAccessToken: string
  onBasketChange?: (change: BasketChange) => void
  /** The same callbacks, in the newer grouped form; a callback given both ways is called once, from here. */
  eventCallbacks?: Partial<EventCallbacks>
  /** API origin; by default the origin the SDK script was loaded from. */
  baseUrl?: string
  /** Locale of texts, prices and dates; by default the trip's language. */
  locale?: string
  /**
   * Your wording for any text, by its key (components/i18n/en-US.ts): `{ bags_title: 'Luggage' }`, put over
   * the locale the widgets show (give them in that language). A counted text takes a string or its plural
   * forms (`{ one: '{count} case', other: '{count} cases' }`); keep the `{placeholders}`. An unknown key is
   * an `invalid_options` SvcError that lists it.
   */
  strings?: CustomStrings
  /** Refresh token, so the SDK renews the access token itself before it expires. */
  refreshToken?: string
  /** Or a function that returns a fresh access token (e.g. from your backend). */
  getAccessToken?: () => Promise<string>
  sandbox?: false
}

/**
 * The offline sandbox instead of the API: svc-sandbox.min.js, loaded from beside svc.min.js, answers
 * every call in the page. Without `tripId` the sandbox opens the trip `Svc.sandbox.createTrip` made last
 * (kept across reloads), or makes one; without `tripAccessToken` it signs the tokens itself.
 */
export interface SandboxInitOptions extends Omit<TripInitOptions, 'tripId' | 'tripAccessToken' | 'sandbox'> {
  sandbox: true
  tripId?: string
  tripAccessToken?: string
}

export interface ShowUpsellOptions {
  /** The element the widget is shown in, or its id. */
  container: string | HTMLElement
  display: Display
  allowProducts?: ProductName[]
  excludeProducts?: ProductName[]
  theme?: Theme
}
