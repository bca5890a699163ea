/**
 * The public types of the browser SDK (`window.Svc`). Everything a seller's frontend touches is typed here
 * and documented with when it happens; nothing is `any`.
 */
import type { Basket, BasketItem } from '../core/schemas/basket.ts'
import type { Journey, Passenger, Ticket } from '../core/schemas/trip.ts'
import type { Search } from '../core/schemas/search.ts'
import type { SvcError } from './errors.ts'

export type { Basket, BasketItem, Journey, Passenger, Ticket, Search }

/** Product names of `allowProducts` / `excludeProducts`. */
export type ProductName = 'bags' | 'seats' | 'priority_boarding' | 'automatic_check_in' | 'fare_family_upsell'
export const PRODUCT_NAMES: readonly ProductName[] = ['bags', 'seats', 'priority_boarding', 'automatic_check_in', 'fare_family_upsell']

/** Validity as the browser callbacks name it (`state`, where the API says `status`). */
export type ValidityState = 'valid' | 'checking' | 'price_changed' | 'unavailable' | 'invalid'

/** A basket item as `onBasketChange` hands it over: the API item with `validity.state`. */
export type CallbackBasketItem = Omit<BasketItem, 'validity'> & {
  validity: { state: ValidityState; valid_from: string; valid_to: string; previous_price?: BasketItem['price']; reason?: string }
}

export interface BasketChange {
  /** The whole basket, keyed by basket_item_id; replace your local selection with it. */
  basket: Record<string, CallbackBasketItem>
}

export interface WidgetEvent {
  /** The `showUpsell` container the widget lives in. */
  container: string
  display: Display
}

export interface WidgetFailure extends WidgetEvent { error: SvcError }

export interface EventCallbacks {
  /** Whenever an item is added or removed, or an item expires or changes validity. */
  onBasketChange(change: BasketChange): void
  /** The bag selection has loaded its offers and is visible. */
  onBagLoad?(event: WidgetEvent): void
  /** The traveller closed the bag selection dialog (modal display, or the card's dialog). */
  onBagModalClosed?(event: WidgetEvent): void
  /** The bag selection could not load or could not change the basket. */
  onBagFail?(event: WidgetFailure): void
  /** The seat map has loaded and is visible. */
  onSeatLoad?(event: WidgetEvent): void
  /** The traveller closed the seat selection dialog. */
  onSeatModalClosed?(event: WidgetEvent): void
  /** The seat map could not load or could not change the basket. */
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

export type Display = 'card' | 'embedded' | 'modal'

/** Keys of `theme`, each mapped to a `--svc-*` CSS custom property. */
export interface Theme {
  textPrimary?: string
  textSecondary?: string
  background?: string
  surface?: string
  primary?: string
  primaryText?: string
  border?: string
  radius?: string
  font?: string
  spacing?: string
  focusRing?: string
  success?: string
  warning?: string
  danger?: string
  /** Overrides applied when the page prefers a dark colour scheme. */
  dark?: Omit<Theme, 'dark' | 'radius' | 'font' | 'spacing'>
}

export interface ShowUpsellOptions {
  /** Id of the element the widget is shown in. */
  container: string
  display: Display
  allowProducts?: ProductName[]
  excludeProducts?: ProductName[]
  theme?: Theme
}

export interface TripView {
  trip_id: string
  search_id: string | null
  currency: string
  language: string
  journeys: Journey[]
  passengers: Passenger[]
  tickets: Ticket[]
}
