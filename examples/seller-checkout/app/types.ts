/**
 * What the shop's backend (../backend.ts) sends the page: the API's trip as it reads it, without tokens and
 * with the shop's own payment records beside it, and the outcomes of its pay and cancel steps. The API's
 * shapes (journeys, passengers, tickets, basket items) are the SDK's own types: the page never imports
 * the backend, which is server code.
 */
import type { Basket, CallbackBasketItem, Journey, Passenger, Ticket } from '../../../sdk/types.ts'

export type { Basket, CallbackBasketItem, Journey, Passenger, Ticket }

/** The scenarios the demo panel offers (the backend maps each to a flight the sandbox airline acts on). */
export type Scenario =
  'normal' | 'price_change' | 'unavailable' | 'slow_check' | 'fulfillment_fails' | 'cancellation_refused'

/** An amount the page shows: integer minor units of a currency. */
export interface Amount {
  amount: number
  currency: string
  decimal_places: number
}

export type OrderStatus = NonNullable<CallbackBasketItem['order_status']>

/** An extra the airline was asked to book (the trip's `orders`, keyed by order id). */
export interface Order {
  order_id: string
  basket_item_id: string
  display_name: string
  price: { total: Amount }
  status: OrderStatus
  failure_reason?: string
  supplier_reference?: string
  /** After a confirmed cancellation: what the airline refunds, or why it refused (back to `succeeded`). */
  refund?: Amount
  cancellation_failure_reason?: string
  created_at: string
}

/** The shop's record of a card payment (no card is charged: it is a demo). */
export interface ShopPayment extends Amount {
  reference: string
  status: 'captured' | 'refunded'
  record_locator?: string
}

/** The trip as the backend hands it to the page. */
export interface DemoTrip {
  trip_id: string
  journeys: Journey[]
  passengers: Passenger[]
  tickets: Ticket[]
  basket: Basket
  orders: Record<string, Order>
  contact_details: { email?: string; phone_number?: string | null }
  scenario: Scenario
  payment: ShopPayment | null
  extra_payments?: ShopPayment[]
}

/** The traveller form as the backend takes it. */
export interface TravellerForm {
  passengers: Array<{ passenger_id: string; first_names: string; surname: string; date_of_birth: string }>
  contact: { email: string; phone: string }
}

/** The items and total the page showed, which the backend charges only if they are still what it finds. */
export interface Expected {
  items: string[]
  total: number
  currency: string
}

/** A pay step's answer: paid, or the basket as the airline left it for the traveller to decide on. */
export type PayResult =
  | { outcome: 'paid'; trip: DemoTrip }
  | { outcome: 'action_needed' | 'total_changed' | 'still_checking'; basket: Basket }

/** One extra of the airline's cancellation quote: what cancelling it refunds, or why it cannot be cancelled. */
export interface QuoteItem {
  basket_item_id: string
  order_id: string
  display_name: string
  cancellable: boolean
  refund: Amount | null
  reason?: string
}

export interface Quote {
  to_cancel: Record<string, QuoteItem>
  quote_expires_at: string | null
}

/** What the page showed before the traveller confirmed a cancellation. */
export interface ShownQuote {
  basket_item_ids: string[]
  refund: number
  quote_expires_at: string | null
}

export type CancelResult =
  { outcome: 'quote_changed'; quote: Quote } | { outcome: 'confirmed'; cancellation_id: string; trip: DemoTrip }

/** A refusal, as problem+json (the API's own, passed through by the backend, or the shop's). */
export interface Problem {
  status?: number
  code?: string
  title?: string
  detail?: string
  request_id?: string
  errors?: Array<{ path: string; message: string }>
}
