/**
 * The browser client's shared types: the API's shapes as the page sees them (trip, basket, offers), the
 * product names, and the callback basket. The SDK (`sdk/types.ts` re-exports all of this as its public
 * types) and the widgets (components/) both build on them; nothing here imports either.
 */
import type { Basket, BasketItem } from '../core/schemas/basket.ts'
import type { Journey, Passenger, Ticket } from '../core/schemas/trip.ts'
import type { Search } from '../core/schemas/search.ts'
import { PRODUCT_NAMES, type ProductName } from '../core/schemas/product-types.ts'

export type { Basket, BasketItem, Journey, Passenger, Ticket, Search }

/** Product names of `allowProducts` / `excludeProducts`, in the registry's order (core/schemas/product-types.ts). */
export type { ProductName }
export { PRODUCT_NAMES }

/** Validity as the browser callbacks name it (`state`, where the API says `status`). */
export type ValidityState = 'valid' | 'checking' | 'price_changed' | 'unavailable' | 'invalid'

/** A basket item as `onBasketChange` hands it over: the API item with `validity.state`. */
export type CallbackBasketItem = Omit<BasketItem, 'validity'> & {
  validity: {
    state: ValidityState
    valid_from: string
    valid_to: string
    previous_price?: BasketItem['price']
    reason?: string
  }
}

export interface BasketChange {
  /** The whole basket, keyed by basket_item_id; replace your local selection with it. */
  basket: Record<string, CallbackBasketItem>
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

export interface TripView {
  trip_id: string
  search_id: string | null
  currency: string
  language: string
  journeys: Journey[]
  passengers: Passenger[]
  tickets: Ticket[]
}

/** The basket as GET …/basket answers it: what the widgets render and the state hash to send back. */
export interface BasketView {
  trip_state_hash: string
  basket: Basket
  journeys: Journey[]
}

/** One event of the trip's stream (GET .../events), its data parsed. */
export type TripEvent =
  | { event: 'basket'; id: string | undefined; data: BasketView }
  | { event: 'search'; id: string | undefined; data: { search_id: string } }
