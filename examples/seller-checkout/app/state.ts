/**
 * Where the checkout stands: the trip, its access token, the basket as the page last saw it, the step the
 * traveller is on, and the timers that follow the orders. And what the page reads from the basket.
 */
import type { Amount, Basket, CallbackBasketItem, DemoTrip, Problem, Quote } from './types.ts'

export const STORAGE_KEY = 'skyshop.checkout'
/** Which view of a booked trip a reload comes back to: the confirmation, or 'manage'. */
export const VIEW_KEY = 'skyshop.view'

export type Phase = 'shopping' | 'paying' | 'review' | 'paid' | 'blocked' | 'manage'

/** Where cancelling one extra stands. */
export interface CancelUi {
  step: 'quoting' | 'quote' | 'refused' | 'confirming' | 'error'
  quote?: Quote
  /** The refund offer changed since the traveller asked (another tab asked again). */
  changed?: boolean
  error?: Problem
  /** What "try again" does after an error: ask for a new quote, or confirm the same one again. */
  retry?: 'quote' | 'confirm'
}

/** The basket as the SDK's callbacks give it, keyed by basket_item_id. */
export type CallbackBasket = Record<string, CallbackBasketItem>

export const state = {
  trip: null as DemoTrip | null,
  token: null as string | null,
  tokenAt: 0,
  /** The trip basket as onBasketChange last gave it (validity.state), or as the backend last read it. */
  basket: {} as CallbackBasket,
  phase: 'shopping' as Phase,
  ordersTimer: undefined as ReturnType<typeof setTimeout> | undefined,
  generation: 0,
  /** Managing the booked trip. */
  manage: {
    /** basket_item_id → where cancelling that extra stands. */
    cancels: new Map<string, CancelUi>(),
    /** While orders move (being booked or cancelled), the trip is read again every second. */
    timer: undefined as ReturnType<typeof setTimeout> | undefined,
    paying: false,
  },
}

/** The trip being shown: every step after the first load has one. */
export function loadedTrip(): DemoTrip {
  if (!state.trip) throw new Error('No trip is loaded yet.')
  return state.trip
}

export const statusOf = (item: CallbackBasketItem) => item.validity.state

/** The backend reads the API, which says `status`; the SDK's callbacks say `state`. Keep one shape. */
export const asCallbackBasket = (basket: Basket): CallbackBasket =>
  Object.fromEntries(
    Object.entries(basket).map(([id, item]) => {
      const { status, ...rest } = item.validity
      return [id, { ...item, validity: { state: status, ...rest } }]
    }),
  )

export const items = () => Object.values(state.basket)
export const ticketItems = () => items().filter((i) => i.product_type === 'ticket')
export const extraItems = () => items().filter((i) => i.product_type !== 'ticket')

/** The total of some items, as money (integer minor units); null for none. */
export function sumOf(list: CallbackBasketItem[]): Amount | null {
  const first = list[0]?.price.total
  if (!first) return null
  return {
    amount: list.reduce((n, i) => n + i.price.total.amount, 0),
    currency: first.currency,
    decimal_places: first.decimal_places,
  }
}

export const basketTotal = () => sumOf(items())

/** After booking: an extra added since, that no payment has ordered yet (the booked flight is bought). */
export const isNewExtra = (i: CallbackBasketItem) => i.product_type !== 'ticket' && !i.order_id

/** Part of the booking as it stands: the flight, and the extras ordered and neither cancelled nor failed. */
export const isBooked = (i: CallbackBasketItem) =>
  !isNewExtra(i) && !['cancelled', 'failed'].includes(i.order_status ?? '')

/** Items the traveller must decide on before paying (the ticket cannot be removed, so it blocks instead). */
export const needsAction = () => items().filter((i) => ['price_changed', 'unavailable'].includes(statusOf(i)))
