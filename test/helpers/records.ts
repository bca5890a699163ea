/**
 * Builds what the pure rules of core/domain take, with no store, no core and no HTTP: a trip record (made by
 * the rule that makes them, `buildTrip`, from the sandbox's default request), a small search over it, and
 * ordered items, all at a fixed instant with counting ids, so every value a test asserts is known.
 */
import assert from 'node:assert/strict'
import type { Ids } from '../../core/ports/clock.ts'
import type { Order, SearchRecord, TripRecord } from '../../core/ports/records.ts'
import type { SupplierPassengerOffer, SupplierSeatMap } from '../../core/ports/supplier-answers.ts'
import type { BasketItem } from '../../core/schemas/basket.ts'
import type { OrderStatus, TripCreateRequest } from '../../core/schemas/trip.ts'
import { buildTrip } from '../../core/domain/trip.ts'
import { SearchView, productIdOf, seatOfferKey } from '../../core/domain/search.ts'
import { ProblemError } from '../../core/shared/errors.ts'
import { defaultTripRequest } from '../../mock-server/fixtures.ts'

/** The instant every rule is called at, unless a test moves it (`later`). */
export const NOW = new Date('2026-11-22T10:00:00.000Z')
export const ISO = NOW.toISOString()
/** The hold window the rules are given, in seconds (the service's default). */
export const HOLD = 30 * 60
export const HOLD_MS = HOLD * 1000

export const later = (ms: number) => new Date(NOW.getTime() + ms)

/** Counting ids (`…-000000000001`, …); `prefix` keeps two counters of one test apart. */
export function countingIds(prefix = '00000000'): Ids & { newId(): string } {
  let n = 0
  const uuid = () => `${prefix}-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`
  return { uuid, newId: uuid, secret: () => `s${++n}` }
}

/**
 * A trip as `buildTrip` makes it at NOW: two adults (p1, p2) and p3, an infant on p1's lap; LHR → JFK and back
 * (journeys[0] and [1], one segment each); one ticket, whose item is in the basket. Trip currency EUR.
 */
export function tripRecord(over: Partial<TripCreateRequest> = {}): TripRecord {
  return buildTrip(
    { ...defaultTripRequest(NOW), ...over },
    {
      sellerId: 'seller-1',
      sandbox: true,
      clock: { now: () => NOW },
      ids: countingIds(),
      holdWindow: HOLD,
    },
  )
}

export const outbound = (trip: TripRecord) => trip.journeys[0]!
export const outboundSegment = (trip: TripRecord) => trip.journeys[0]!.segments[0]!
export const ticketItem = (trip: TripRecord) => Object.values(trip.basket).find((i) => i.product_type === 'ticket')!

/** A unit offer in EUR cents: the search's prices are in the trip's currency, so the basket shows them as they are. */
export const eur = (amount: number) => ({ amount, currency: 'EUR', decimal_places: 2 })
const offer = (amount: number, limit: number): SupplierPassengerOffer => ({
  available: true,
  base: eur(amount),
  taxes: [],
  quantity_limit: limit,
})

/**
 * The search's offers, by index: 0 the checked bag (30.00, two per passenger), 1 refused to a lap infant,
 * 2 a seat (15.00, one), 3 no longer offered, 4 priority boarding (5.00, one).
 */
const OFFERS: SupplierPassengerOffer[] = [
  offer(3000, 2),
  { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'lap_infant' },
  offer(1500, 1),
  { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'sold_out' },
  offer(500, 1),
]

export const BAG_KEY = 'bag:checked:23'
export const SOLD_OUT_KEY = 'bag:sold-out'
export const PRIORITY_KEY = 'priority:outbound'
export const MAP_KEY = 'map:320'

/**
 * A finished search of the trip: a checked bag and priority boarding on the outbound journey, a bag no one
 * may have, and the outbound flight's seats 1A and 1B (1C is taken); p3, the lap infant, is offered neither
 * bag nor seat (`lap_infant`).
 */
export function searchOf(trip: TripRecord, opts: { expires_at?: string } = {}): SearchView {
  const journey_id = outbound(trip).journey_id
  const segment_id = outboundSegment(trip).segment_id
  const record: SearchRecord = {
    search_id: 'search-1',
    trip_id: trip.trip_id,
    status: 'success',
    created_at: ISO,
    offers: {
      types: ['bag', 'seat', 'priority_boarding'],
      passengers: ['p1', 'p2', 'p3'],
      offers: OFFERS,
      products: [
        {
          key: BAG_KEY,
          type: 'bag',
          name: 'Checked bag 23 kg',
          details: { checked: true, journey_id, weight: 23, weight_unit: 'kg' },
          offers: [0, 0, 1],
        },
        {
          key: SOLD_OUT_KEY,
          type: 'bag',
          name: 'Sports bag',
          details: { checked: true, journey_id },
          offers: [3, 3, 3],
        },
        {
          key: PRIORITY_KEY,
          type: 'priority_boarding',
          name: 'Priority boarding',
          details: { journey_id },
          offers: [4, 4, 1],
        },
      ],
      seats: [{ segment_id, map: MAP_KEY, bands: { A: [2, 2, 1] } }],
      ...(opts.expires_at ? { expires_at: opts.expires_at } : {}),
    },
  }
  const map: SupplierSeatMap = {
    key: MAP_KEY,
    aircraft: 'A320',
    decks: [
      {
        deck: 0,
        name: 'Main',
        columns: ['A', 'B', 'C'],
        aisles_after: [],
        rows: [
          {
            row: 1,
            exit: false,
            wing: false,
            seats: [
              { column: 'A', characteristics: ['window'], band: 'A' },
              { column: 'B', characteristics: ['middle'], band: 'A' },
              { column: 'C', characteristics: ['aisle'], band: null },
            ],
          },
        ],
      },
    ],
  }
  return new SearchView(record, trip, new Map([[MAP_KEY, map]]))
}

/** The product ids `searchOf` offers for this trip. */
export function productIds(trip: TripRecord) {
  const segment = outboundSegment(trip).segment_id
  return {
    bag: productIdOf(trip.trip_id, BAG_KEY),
    soldOut: productIdOf(trip.trip_id, SOLD_OUT_KEY),
    priority: productIdOf(trip.trip_id, PRIORITY_KEY),
    seat1A: productIdOf(trip.trip_id, seatOfferKey(segment, 1, 'A')),
    seat1B: productIdOf(trip.trip_id, seatOfferKey(segment, 1, 'B')),
  }
}

/**
 * An ancillary item of the trip, valid for the hold window from NOW, with its ticket naming it (as a
 * basket change leaves it): a bag for p1 by default, priced 30.00.
 */
export function withItem(trip: TripRecord, item: Partial<BasketItem> & { basket_item_id: string }): TripRecord {
  const ticket = trip.tickets[0]!
  const full = {
    display_name: 'Checked bag 23 kg',
    product_id: productIdOf(trip.trip_id, BAG_KEY),
    product_type: 'bag',
    quantity: 1,
    ticket_id: ticket.ticket_id,
    benefits: [],
    price: priceOf(3000),
    product_details: { checked: true, journey_id: outbound(trip).journey_id, passenger_id: 'p1' },
    validity: { status: 'valid', valid_from: ISO, valid_to: later(HOLD_MS).toISOString() },
    ...item,
  } as BasketItem
  return {
    ...trip,
    basket: { ...trip.basket, [full.basket_item_id]: full },
    tickets: trip.tickets.map((t) =>
      t.ticket_id === ticket.ticket_id ? { ...t, basket_item_ids: [...t.basket_item_ids, full.basket_item_id] } : t,
    ),
  }
}

/** A price of `amount` EUR cents with no tax nor mark-up, as an item of the trip holds it. */
export function priceOf(amount: number): BasketItem['price'] {
  const m = { ...eur(amount), in_original_currency: eur(amount) }
  return { base: m, total: m, markups: [], taxes: [], fees: [] }
}

/** The trip with an order of `status` for its item `basketItemId` (the item then names the order). */
export function withOrder(
  trip: TripRecord,
  basketItemId: string,
  orderId: string,
  status: OrderStatus,
  fulfillmentId = 'f-1',
): TripRecord {
  const item = trip.basket[basketItemId]!
  const order: Order = {
    order_id: orderId,
    fulfillment_id: fulfillmentId,
    basket_item_id: basketItemId,
    display_name: item.display_name,
    price: item.price,
    status,
    created_at: ISO,
    updated_at: ISO,
  }
  const f = trip.fulfillments[fulfillmentId]
  return {
    ...trip,
    basket: { ...trip.basket, [basketItemId]: { ...item, order_id: orderId } },
    orders: { ...trip.orders, [orderId]: order },
    fulfillments: {
      ...trip.fulfillments,
      [fulfillmentId]: f
        ? { ...f, order_ids: [...f.order_ids, orderId] }
        : {
            fulfillment_id: fulfillmentId,
            status: 'queued',
            order_ids: [orderId],
            payment_type: 'service_settlement',
            created_at: ISO,
            completed_at: null,
          },
    },
  }
}

/** Asserts that `run` throws the service's error `code`, and returns it for more checks. */
export function refuses(run: () => unknown, code: string): ProblemError {
  let caught: unknown
  try {
    run()
  } catch (e) {
    caught = e
  }
  assert.ok(caught instanceof ProblemError, `expected a ProblemError ${code}, got ${String(caught)}`)
  assert.equal(caught.code, code, caught.message)
  return caught
}
