/**
 * Suppliers: where a trip's offers come from (the sandbox airline in core/adapters/sandbox-airline/, Duffel in
 * server/suppliers/duffel/).
 */
import type { BasketItem } from '../schemas/basket.ts'
import type { Journey, Passenger, ProductTypeName, Ticket } from '../schemas/trip.ts'
import type { Money, OriginalMoney } from '../schemas/common.ts'
import type { Order, SupplierCallDetail } from './records.ts'
import type {
  OrderSupplierRefs,
  PartialFailure,
  SupplierRefs,
  SupplierTax,
  SupplierPassengerOffer,
  SupplierSeatMap,
} from './supplier-answers.ts'

/**
 * What a supplier sees of a trip: no prices, no seller data; and what it handed back when the trip's search
 * was made (`supplier_refs`: its own ids, e.g. the offer a search priced from), opaque to the core.
 */
export interface SupplierTrip {
  trip_id: string
  sandbox: boolean
  journeys: Journey[]
  passengers: Passenger[]
  tickets: Ticket[]
  supplier_refs?: SupplierRefs
}

/**
 * Who a supplier call is for: every call gets the seller's context, so one adapter serves every seller with
 * the seller's own account (test or live, as the seller is sandbox or not).
 */
export interface SupplierContext {
  seller_id: string
  /** A sandbox seller: the supplier's test mode (the sandbox airline's test scenarios). */
  sandbox: boolean
  /** The seller's credentials for this supplier, unsealed for this call; null when it needs none. */
  credentials: string | null
  /**
   * Told of each request an adapter sends its supplier (the core records it on the trip's timeline and
   * logs it): method, path without its query, status, time taken, the supplier's request id, and `ok` or
   * the failure's reason. Never a token or a body. An adapter that calls nothing remote leaves it unused.
   */
  observe?: (call: SupplierRequest) => void
}

/**
 * One request an adapter sent its supplier (SupplierContext.observe): what the trip's timeline keeps of a call
 * (records.ts SupplierCallDetail), less the port operation, which the core knows and the adapter need not.
 */
export type SupplierRequest = Omit<SupplierCallDetail, 'operation'>

/**
 * What a supplier can do, declared by the adapter (the contract suite, test/helpers/supplier-contract.ts, holds each
 * adapter to its declaration). The core and the docs say what a seller meets where a supplier cannot.
 */
export interface SupplierCapabilities {
  /** Its offers are simulated (the sandbox airline): it serves sandbox sellers only, never a live one. */
  simulated: boolean
  /** The product types it may offer at all. */
  products: ProductTypeName[]
  /**
   * Its search runs in the background (a remote API): `POST /v2.2/trip` answers at once with an
   * `in_progress` search that a job completes. False: the search answers within the request (the sandbox airline).
   */
  remote: boolean
  /** Product types that can still be bought once the trip is booked (fulfilled). */
  afterBooking: ProductTypeName[]
  /**
   * Seats are sold only with the airline booking itself: a seat ordered here succeeds when the seller's
   * booking already holds it (handed off), and otherwise fails with `seat_requires_booking`.
   */
  seatsAtBookingOnly: boolean
  /** It can cancel one ordered item (with a refund quote); false: every quote says `supplier_does_not_cancel`. */
  cancels: boolean
  /** It finds the airline booking by its record locator: a fulfill may leave out the ticket numbers. */
  findsBookingByLocator: boolean
}

export interface SupplierProduct {
  /** Stable key of the offer within the trip, e.g. `bag:J1:checked23`; the core maps it to a product_id. */
  offer_key: string
  product_type: ProductTypeName
  display_name: string
  product_details: Record<string, unknown>
  included?: boolean
  per_passenger: Record<string, SupplierPassengerOffer>
}

/** One segment's seats on offer: the shared map, and what a seat of each price band costs each passenger. */
export interface SupplierSeatOffers {
  segment_id: string
  map: SupplierSeatMap
  /** band → passenger_id → the offer. Seats in one band cost every passenger the same (a passenger left out is not offered them). */
  bands: Record<string, Record<string, SupplierPassengerOffer>>
}

/**
 * A search's answer. Seats come by price band (a map holds hundreds of seats and a handful of prices); each
 * seat is a product whose offer key is `seat:<segment_id>:<row><column>` (core/domain/search.ts `seatOfferKey`).
 */
export interface SupplierOffers {
  /** Every product on offer but seats. */
  products: SupplierProduct[]
  seats: SupplierSeatOffers[]
  /** When the supplier's offers stop being bookable: an item priced from them is valid until then at most. */
  expires_at?: string
  /** What the supplier needs again to recheck and fulfill (its offer or order id, how it matched passengers and segments), kept with the trip. */
  refs?: SupplierRefs
  /**
   * Product types asked for that could not be read while others were (a seat map Duffel failed to give,
   * an answer that broke a rule): the search succeeds with the rest and says which failed and why. When
   * nothing could be read the supplier throws instead (docs/decisions.md "Duffel as it really answers").
   */
  partial_failures?: PartialFailure[]
}

/** Result of re-checking one basket item with the airline. A new price is per unit, like a search offer's. */
export type RecheckResult =
  | { basket_item_id: string; outcome: 'valid' }
  | { basket_item_id: string; outcome: 'price_changed'; base: OriginalMoney; taxes: SupplierTax[] }
  | { basket_item_id: string; outcome: 'unavailable'; reason: string }

/** A basket item as the supplier sees it: with the offer key of the search that produced it. */
export interface SupplierItem {
  item: BasketItem
  offer_key: string | undefined
  /**
   * At fulfill: the units of the same product for the same passenger that the trip's earlier orders hold
   * (booked, or being booked). An adapter that finds what an order bought by what it is, not by an id,
   * counts them first: this order's units come after them.
   */
  booked_before?: number
  /**
   * At fulfill: a purchase for this order was sent before and its answer was lost. The adapter must not
   * send another: it says what the supplier holds (`ok: true` when the order's units are there), else
   * `unknown` again; the core gives up after SUPPLIER_RECONCILE_MINUTES (docs/decisions.md).
   */
  purchase_sent?: boolean
  /**
   * At fulfill, to be awaited right before a purchase is sent: it throws when the run no longer owns the
   * order's job (another worker does), and notes the purchase as sent, so that whatever happens next the
   * order is never bought a second time. An adapter that books calls it once, before the call that books.
   */
  beforePurchase?: () => Promise<void>
}

/**
 * How booking one order went.
 * - `unknown`: a purchase was sent and its answer lost (a time-out, a 5xx); the job asks again later with
 *   `purchase_sent`, and the adapter only looks (never buys again).
 * - `waiting`: nothing can be done yet (the booking is a hold order not paid yet): the order stays
 *   `in_progress` and the job looks again later.
 * - a failure may carry the supplier's current unit price (`price_changed`): the item is offered again at it.
 */
export type FulfillOutcome =
  | { ok: true; reference: string; refs?: OrderSupplierRefs }
  | { ok: false; reason: string; refs?: OrderSupplierRefs; price?: { base: OriginalMoney; taxes: SupplierTax[] } }
  | { ok: 'unknown'; reason: string; refs?: OrderSupplierRefs }
  | { ok: 'waiting'; reason: string }

/**
 * A supplier of offers: the sandbox airline, Duffel, an airline's NDC API. Every call names the seller it is
 * for. A failure to reach the supplier or a refusal of the whole call is a thrown `SupplierError` (core/ports/supplier-errors.ts).
 */
export interface Supplier {
  /** The name sellers are configured with (`npm run seller -- create --supplier NAME`). */
  readonly name: string
  readonly capabilities: SupplierCapabilities
  /**
   * What is wrong with configuring a seller with these credentials (sandbox or live seller), in words for
   * the operator; null when they fit. Checked when they are set, before they are sealed: a test token for a
   * live seller, or a live token for a sandbox seller, is refused there.
   */
  credentialsProblem(credentials: string | null, sandbox: boolean): string | null
  search(ctx: SupplierContext, trip: SupplierTrip, types: ProductTypeName[]): Promise<SupplierOffers>
  /**
   * Re-validates basket items against current availability, prices and passenger data. `delayMs` asks the
   * caller to come back later (the answer is not ready); the items then stay `checking`.
   */
  recheck(
    ctx: SupplierContext,
    trip: SupplierTrip,
    items: SupplierItem[],
  ): Promise<{ results: RecheckResult[]; delayMs?: number }>
  /**
   * Books one order with the airline. Safe to repeat for the same order_id: a repeated call returns the
   * first outcome, never a second booking (the job runs again after a crash).
   */
  fulfill(ctx: SupplierContext, trip: SupplierTrip, order: Order, item: SupplierItem): Promise<FulfillOutcome>
  /**
   * What cancelling each ordered item would refund now, by the airline's rules (product, time to departure),
   * in the trip currency. A quote, not a promise: `cancel` may still refuse.
   */
  quoteCancellation(
    ctx: SupplierContext,
    trip: SupplierTrip,
    orders: SupplierOrder[],
    now: Date,
  ): Promise<SupplierCancellationQuote[]>
  /** Cancels one order with the airline. Idempotent per order_id: a repeated call returns the first outcome. */
  cancel(
    ctx: SupplierContext,
    trip: SupplierTrip,
    order: SupplierOrder,
    now: Date,
  ): Promise<{ ok: true; refund: Money } | { ok: false; reason: string }>
}

/** The suppliers a host offers its sellers, by name (the server: the sandbox airline and Duffel; the offline sandbox: the sandbox airline). */
export type Suppliers = ReadonlyMap<string, Supplier>

/** An order with the basket item it books. */
export interface SupplierOrder {
  order: Order
  item: BasketItem
}
export interface SupplierCancellationQuote {
  order_id: string
  cancellable: boolean
  refund: Money | null
  reason?: string
}
