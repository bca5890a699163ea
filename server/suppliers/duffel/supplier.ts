/**
 * Duffel (api.duffel.com) as a supplier (docs/decisions.md "The Duffel supplier"): a seller sells bags and
 * seats of the flights it sells through Duffel, with its own Duffel token (test or live, as it is a sandbox
 * or a live seller).
 *
 * - In the funnel (a ticket's `duffel_offer_id`): bags from the offer's available services, seats from its
 *   seat maps. Each basket item carries Duffel's service ids (`supplier.service_ids`) so that the seller,
 *   booking the offer in its own Duffel account, passes them into its order: the hand-off.
 * - After booking (a ticket's `duffel_order_id`, or the booking reference a fulfill gave): bags only, from
 *   the order's available services. Duffel sells no seat after booking.
 * - Checks re-read the same offer (or the order's services): same price, `valid`; another, `price_changed`;
 *   gone, `unavailable`.
 * - Fulfill: an item the seller's Duffel order already holds (handed off, or bought by an earlier run of
 *   this job) succeeds without buying; a bag it does not hold is bought from the seller's Duffel balance at
 *   Duffel's own price, only if that is the price the traveller was charged for; a seat it does not hold
 *   fails with `seat_requires_booking`. Duffel takes no idempotency key, so every run reads the order first
 *   and counts what is there: a job run again after a crash never buys twice. A purchase whose answer was
 *   lost is `unknown` until the order, read again later, says.
 * - Duffel cannot cancel one service (only a whole order, the flight itself): every quote says
 *   `supplier_does_not_cancel`, and the adapter never calls Duffel's order cancellation.
 */
import type { Offer, OfferAvailableServiceBaggage, Order, OrderAvailableService, OrderService, SeatMap } from './types.ts'
import type { FulfillOutcome, RecheckResult, Supplier, SupplierContext, SupplierItem, SupplierOffers, SupplierTrip } from '../../../core/ports/supplier.ts'
import type { ProductTypeName } from '../../../core/schemas/trip.ts'
import type { BasketItem } from '../../../core/schemas/basket.ts'
import type { OriginalMoney } from '../../../core/schemas/common.ts'
import { SupplierError } from '../../../core/ports/supplier-errors.ts'
import { createDuffelClient, DuffelError, DuffelNoAnswer, supplierErrorOf, type DuffelClient, type DuffelClientOptions } from './client.ts'
import { matchOffer, matchOrder, sourceOf, type DuffelRefs } from './match.ts'
import { bagKind, bagProducts, journeySegments, minorUnits, servicesForJourney, type BaggageLike } from './bags.ts'
import { seatOffers } from './seats.ts'

export type DuffelSupplierOptions = DuffelClientOptions

const TOKEN = /^duffel_(test|live)_[A-Za-z0-9_-]{8,}$/

const baggage = (services: Offer['available_services']): OfferAvailableServiceBaggage[] =>
  services.filter((s): s is OfferAvailableServiceBaggage => s.type === 'baggage')

const tokenOf = (call: SupplierContext): string => {
  if (call.credentials === null) throw new SupplierError('supplier_not_configured', 'the seller has no Duffel token')
  return call.credentials
}

/** Minor units as Duffel writes an amount ("45.00"). */
const decimal = (m: OriginalMoney) => {
  const s = String(m.amount).padStart(m.decimal_places + 1, '0')
  return m.decimal_places ? `${s.slice(0, -m.decimal_places)}.${s.slice(-m.decimal_places)}` : s
}

export function createDuffelSupplier(opts: DuffelSupplierOptions): Supplier {
  const duffel = createDuffelClient(opts)
  return {
    name: 'duffel',
    capabilities: { simulated: false, products: ['bag', 'seat'], remote: true, afterBooking: ['bag'], seatsAtBookingOnly: true, cancels: false },

    credentialsProblem(credentials, sandbox) {
      const want = sandbox ? 'duffel_test_' : 'duffel_live_'
      if (credentials === null) return `Duffel needs the seller's own Duffel access token (${want}…).`
      const mode = TOKEN.exec(credentials)?.[1]
      if (!mode) return `A Duffel access token starts with duffel_test_ or duffel_live_; this is not one.`
      if ((mode === 'test') !== sandbox) {
        return sandbox ? 'A sandbox seller takes a Duffel test token (duffel_test_…), never a live one.' : 'A live seller takes a Duffel live token (duffel_live_…): a test token sells nothing real.'
      }
      return null
    },

    async search(call, trip, types) {
      try {
        return await search(duffel, tokenOf(call), trip, types)
      } catch (e) {
        throw supplierErrorOf(e)
      }
    },

    async recheck(call, trip, items) {
      let current: SupplierOffers
      try {
        const wanted: ProductTypeName[] = items.some(({ item }) => item.product_type === 'seat') ? ['bag', 'seat'] : ['bag']
        current = await search(duffel, tokenOf(call), trip, wanted)
      } catch (e) {
        const error = supplierErrorOf(e)
        // What the trip names is gone at Duffel (the offer expired or was booked): so is every item of it.
        if (error.reason === 'not_found') return { results: items.map(({ item }) => unavailable(item, 'no_longer_offered')) }
        throw error
      }
      return { results: items.map((i) => recheckItem(trip, current, i)) }
    },

    async fulfill(call, trip, _order, { item, booked_before }) {
      try {
        return await fulfill(duffel, tokenOf(call), trip, item, booked_before ?? 0)
      } catch (e) {
        const error = supplierErrorOf(e)
        // What may pass is retried by the job (with backoff); what will not fails the order, saying why.
        if (error.retryable) throw error
        return { ok: false, reason: error.reason }
      }
    },

    async quoteCancellation(_call, _trip, orders) {
      return orders.map(({ order }) => ({ order_id: order.order_id, cancellable: false, refund: null, reason: 'supplier_does_not_cancel' }))
    },

    async cancel() {
      return { ok: false, reason: 'supplier_does_not_cancel' }
    },
  }
}

// ---------------------------------------------------------------- search

async function search(duffel: DuffelClient, token: string, trip: SupplierTrip, types: ProductTypeName[]): Promise<SupplierOffers> {
  const source = sourceOf(trip)
  if (source.kind === 'offer') {
    const offer = await duffel.get<Offer>(token, `/air/offers/${encodeURIComponent(source.id)}?return_available_services=true`)
    const refs = matchOffer(trip, offer)
    const products = types.includes('bag') ? bagProducts(trip, refs, baggage(offer.available_services ?? [])) : []
    const seats = []
    if (types.includes('seat')) {
      const maps = await duffel.get<SeatMap[]>(token, `/air/seat_maps?offer_id=${encodeURIComponent(source.id)}`)
      const aircraft = new Map(offer.slices.flatMap((s) => s.segments).map((s) => [s.id, s.aircraft?.name ?? '']))
      for (const map of maps) {
        const found = seatOffers(trip, refs, map, aircraft.get(map.segment_id) ?? '')
        if (found) seats.push(found)
      }
    }
    return { products, seats, expires_at: offer.expires_at, refs }
  }
  const order = await orderOf(duffel, token, source)
  if (order.cancelled_at) throw new SupplierError('not_found', `Duffel order ${order.id} was cancelled`)
  const refs: DuffelRefs = { ...matchOrder(trip, order), foreign: foreignServices(trip, order) }
  const services = types.includes('bag') ? await duffel.get<OrderAvailableService[]>(token, `/air/orders/${encodeURIComponent(order.id)}/available_services`) : []
  return { products: bagProducts(trip, refs, services), seats: [], refs }
}

/**
 * The services of the Duffel order that are not this trip's to count: a trip made for an order booked
 * before it (`duffel_order_id`) finds the order holding bags of the booking, or of another trip on it, which
 * its own orders did not buy. They are the ones the order held when the trip first read it, and stay so
 * across the trip's later searches. A trip that booked the order itself (in the funnel, from an offer) has
 * none: what the order holds, it handed off.
 */
function foreignServices(trip: SupplierTrip, order: Order): string[] {
  const before = trip.supplier_refs as DuffelRefs | undefined
  if (before?.source.kind === 'offer') return []
  if (before?.source.kind === 'order' && before.source.id === order.id) return before.foreign ?? []
  return order.services.map((s) => s.id)
}

/** The Duffel order a trip names, or the one its booking reference finds (exactly one). */
async function orderOf(duffel: DuffelClient, token: string, source: ReturnType<typeof sourceOf>): Promise<Order> {
  if (source.kind === 'order') return duffel.get<Order>(token, `/air/orders/${encodeURIComponent(source.id)}`)
  if (source.kind === 'offer') throw new SupplierError('not_found', 'the trip names a Duffel offer, and no booked order yet')
  const found = await duffel.get<Order[]>(token, `/air/orders?booking_reference=${encodeURIComponent(source.reference)}`)
  if (found.length !== 1) throw new SupplierError('not_found', `${found.length} Duffel orders have booking reference ${source.reference}`)
  return found[0]!
}

// ---------------------------------------------------------------- checks

const unavailable = (item: BasketItem, reason: string): RecheckResult => ({ basket_item_id: item.basket_item_id, outcome: 'unavailable', reason })

/** The unit price the item was priced at, in Duffel's currency (what the traveller was charged, before mark-ups). */
const chargedUnit = (item: BasketItem): OriginalMoney => {
  const o = item.price.base.in_original_currency
  return { ...o, amount: o.amount / item.quantity }
}

const samePrice = (a: OriginalMoney, b: OriginalMoney) => a.amount === b.amount && a.currency === b.currency && a.decimal_places === b.decimal_places

function recheckItem(trip: SupplierTrip, current: SupplierOffers, { item, offer_key }: SupplierItem): RecheckResult {
  if (item.product_type === 'ticket') return { basket_item_id: item.basket_item_id, outcome: 'valid' }
  const passenger = String(item.product_details.passenger_id)
  let offer
  if (item.product_type === 'seat') {
    const d = item.product_details
    const seats = current.seats.find((s) => s.segment_id === d.segment_id)
    const seat = seats?.map.decks.flatMap((deck) => deck.rows).find((r) => r.row === d.row)?.seats.find((s) => s.column === d.column)
    offer = seat?.band ? seats!.bands[seat.band]?.[passenger] : undefined
  } else {
    offer = current.products.find((p) => p.offer_key === offer_key)?.per_passenger[passenger]
  }
  if (!offer?.available || !offer.base) return unavailable(item, offer?.reason ?? 'no_longer_offered')
  if (item.quantity > offer.quantity_limit) return unavailable(item, 'quantity_limit')
  return samePrice(offer.base, chargedUnit(item))
    ? { basket_item_id: item.basket_item_id, outcome: 'valid' }
    : { basket_item_id: item.basket_item_id, outcome: 'price_changed', base: offer.base, taxes: [] }
}

// ---------------------------------------------------------------- fulfillment

async function fulfill(duffel: DuffelClient, token: string, trip: SupplierTrip, item: BasketItem, bookedBefore: number): Promise<FulfillOutcome> {
  const booked = await orderOf(duffel, token, sourceOf(trip))
  if (booked.cancelled_at) return { ok: false, reason: 'order_cancelled' }
  const refs = matchOrder(trip, booked)
  // What the order held that is not this trip's (foreignServices) is neither handed off nor bought by it.
  const known = trip.supplier_refs as DuffelRefs | undefined
  const foreign = new Set(known?.source.kind === 'order' && known.source.id === booked.id ? known.foreign ?? [] : [])
  const passenger = refs.passengers[String(item.product_details.passenger_id)]
  if (!passenger) return { ok: false, reason: 'not_matched' }
  // How many units of this product for this passenger the trip has ordered up to this order: the Duffel
  // order must hold that many for this one to be there too (earlier orders of the same bag come first).
  const need = bookedBefore + item.quantity
  const done = (services: OrderService[]): FulfillOutcome => ({
    ok: true, reference: booked.booking_reference, refs: { order_id: booked.id, service_ids: services.map((s) => s.id) },
  })

  if (item.product_type === 'seat') {
    const segment = refs.segments[String(item.product_details.segment_id)]!
    const designator = `${String(item.product_details.row)}${String(item.product_details.column)}`
    const held = booked.services.filter((s) => s.type === 'seat' && !foreign.has(s.id) && s.passenger_ids.includes(passenger) && s.segment_ids.includes(segment) &&
      (s.metadata as { designator?: string } | undefined)?.designator === designator)
    const onSegment = booked.slices.flatMap((s) => s.segments).find((s) => s.id === segment)?.passengers.some((p) => p.passenger_id === passenger && p.seat?.designator === designator)
    return held.length > 0 || onSegment ? done(held) : { ok: false, reason: 'seat_requires_booking' }
  }
  if (item.product_type !== 'bag') return { ok: false, reason: 'not_offered' }

  const journeyId = String(item.product_details.journey_id)
  const segments = journeySegments(trip, refs, journeyId)
  const kind = bagKindOfItem(item)
  const held = (booked.services as Array<OrderService & BaggageLike>).filter((s) => s.type === 'baggage' && !foreign.has(s.id))
  const have = unitsHeld(held, passenger, segments, kind)
  if (have >= need) return done(servicesForJourney(held, passenger, segments, kind) ?? [])

  const available = await duffel.get<OrderAvailableService[]>(token, `/air/orders/${encodeURIComponent(booked.id)}/available_services`)
  const chosen = servicesForJourney(available, passenger, segments, kind)
  if (!chosen) return { ok: false, reason: 'no_longer_offered' }
  const prices = chosen.map((s) => minorUnits(s.total_amount, s.total_currency))
  const unit = { ...prices[0]!, amount: prices.reduce((n, p) => n + p.amount, 0) }
  // Bought at Duffel's own price, never the marked-up one, and only at the price the traveller was charged.
  if (prices.some((p) => p.currency !== unit.currency) || !samePrice(unit, chargedUnit(item))) return { ok: false, reason: 'price_changed' }
  const missing = need - have
  let after: Order
  try {
    after = await duffel.post<Order>(token, `/air/orders/${encodeURIComponent(booked.id)}/services`, {
      payment: { type: 'balance', amount: decimal({ ...unit, amount: unit.amount * missing }), currency: unit.currency },
      add_services: chosen.map((s) => ({ id: s.id, quantity: missing })),
    })
  } catch (e) {
    // Sent, and no answer (or Duffel failed on its side): bought or not, the next run reads the order first.
    if (e instanceof DuffelNoAnswer || (e instanceof DuffelError && (e.status >= 500 || e.status === 429))) {
      return { ok: 'unknown', reason: e.message }
    }
    throw e
  }
  const bought = (after.services as Array<OrderService & BaggageLike>).filter((s) => s.type === 'baggage')
  return done(servicesForJourney(bought, passenger, segments, kind) ?? [])
}

/** The kind of bag an item is, from its offer key (`bag:<journey>:<kind>`), else from its details. */
function bagKindOfItem(item: BasketItem): string {
  const d = item.product_details
  return bagKind({ type: d.checked === false ? 'carry_on' : 'checked', maximum_weight_kg: typeof d.weight === 'number' ? d.weight : null })
}

/** Units of a bag the order holds for the passenger across the journey: the fewest of any of its segments. */
function unitsHeld(services: Array<OrderService & BaggageLike>, passenger: string, segments: string[], kind: string): number {
  const mine = services.filter((s) => s.passenger_ids.includes(passenger) && bagKind(s.metadata) === kind)
  return Math.min(...segments.map((seg) => mine.filter((s) => s.segment_ids.includes(seg)).reduce((n, s) => n + s.quantity, 0)))
}

