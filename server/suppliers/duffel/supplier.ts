/**
 * Duffel (api.duffel.com) as a supplier (docs/decisions.md "The Duffel supplier", "Duffel as it really
 * answers"): a seller sells bags and seats of the flights it sells through Duffel, with its own Duffel token
 * (test or live, as it is a sandbox or a live seller).
 *
 * - In the funnel (a ticket's `duffel_offer_id`): bags from the offer's baggage services (per segment, per
 *   slice or for the whole trip), seats from its seat maps. The two are read apart: one that cannot be read
 *   leaves the other offered, and the search says which failed (`partial_failures`). Each basket item
 *   carries Duffel's service ids (`supplier.service_ids`) so that the seller, booking the offer in its own
 *   Duffel account, passes them into its order: the hand-off.
 * - After booking (a ticket's `duffel_order_id`, or the booking reference a fulfill gave): bags only, from
 *   the order's available services; most airlines sell none after booking (`not_offered_after_booking`).
 * - Checks re-read the same offer (or the order's services): same price, `valid`; another, `price_changed`;
 *   gone, `unavailable`.
 * - Fulfill: on a hold order not paid yet, nothing is done and the order waits (`waiting`) until Duffel shows
 *   it paid; a hold released or cancelled fails it (`supplier_order_not_paid`). An item the seller's Duffel
 *   order already holds (handed off, or bought by an earlier run of this job) succeeds without buying; a bag
 *   it does not hold is bought from the seller's Duffel balance at Duffel's own price, only if that is the
 *   price the traveller was charged for (else `price_changed`, with Duffel's price); a seat it does not hold
 *   fails with `seat_requires_booking`. Duffel takes no idempotency key, so every run reads the order first
 *   and counts what is there; a purchase whose answer was lost is `unknown`, and is only looked for after
 *   (`purchase_sent`): never sent twice.
 * - Duffel cannot cancel one service (only a whole order, the flight itself): every quote says
 *   `supplier_does_not_cancel`, and the adapter never calls Duffel's order cancellation.
 */
import type {
  FulfillOutcome,
  RecheckResult,
  Supplier,
  SupplierContext,
  SupplierItem,
  SupplierOffers,
  SupplierSeatOffers,
  SupplierTrip,
} from '../../../core/ports/supplier.ts'
import type { PartialFailure } from '../../../core/ports/supplier-answers.ts'
import type { ProductTypeName } from '../../../core/schemas/trip.ts'
import type { BasketItem } from '../../../core/schemas/basket.ts'
import type { OriginalMoney } from '../../../core/schemas/common.ts'
import { SupplierError } from '../../../core/ports/supplier-errors.ts'
import {
  createDuffelClient,
  observed,
  DuffelError,
  DuffelNoAnswer,
  supplierErrorOf,
  type DuffelClient,
  type DuffelClientOptions,
} from './client.ts'
import { Offer, Order, Orders, read, SeatMaps, ServicesForSale } from './answers.ts'
import { matchOffer, matchOrder, sourceOf, type DuffelRefs, type DuffelSource } from './match.ts'
import {
  bagKind,
  bagProducts,
  baggageOf,
  heldBags,
  isBagOf,
  journeysOfBag,
  segmentsOf,
  servicesFor,
  type HeldBag,
} from './bags.ts'
import { seatOffers } from './seats.ts'

export type DuffelSupplierOptions = DuffelClientOptions

/**
 * What a Duffel access token must be, each rule checked apart so a refusal names the one that failed: it
 * starts with `duffel_test_` or `duffel_live_` (the seller's mode), then at least TOKEN_MIN_REST characters,
 * each a letter, a digit, `_` or `-`. Nothing else is assumed of it (Duffel's own are longer).
 */
const TOKEN_PREFIX = /^duffel_(test|live)_/
const TOKEN_REST = /^[A-Za-z0-9_-]*$/
const TOKEN_MIN_REST = 8
/** The shortest token the rules allow: its prefix (12 characters) and TOKEN_MIN_REST more. */
const TOKEN_MIN_LENGTH = 'duffel_test_'.length + TOKEN_MIN_REST

/** What is wrong with `token` for a seller of this mode, in words that name the rule; null when it fits. Never repeats the token. */
export function duffelTokenProblem(token: string | null, sandbox: boolean): string | null {
  const want = sandbox ? 'duffel_test_' : 'duffel_live_'
  if (token === null) return `Duffel needs the seller's own Duffel access token (${want}…).`
  const mode = TOKEN_PREFIX.exec(token)?.[1]
  if (!mode) return `A Duffel access token starts with duffel_test_ or duffel_live_; this one does not.`
  if ((mode === 'test') !== sandbox) {
    return sandbox
      ? 'A sandbox seller takes a Duffel test token (duffel_test_…), never a live one.'
      : 'A live seller takes a Duffel live token (duffel_live_…): a test token sells nothing real.'
  }
  const rest = token.slice(want.length)
  if (!TOKEN_REST.test(rest)) {
    const at = [...rest].findIndex((c) => !TOKEN_REST.test(c)) + want.length + 1
    return `After ${want} a Duffel access token has only letters, digits, _ and -; this one has another character (the ${ordinal(at)} of the token, e.g. a space or a quote pasted with it).`
  }
  if (token.length < TOKEN_MIN_LENGTH) {
    return `Too short: a Duffel access token is at least ${TOKEN_MIN_LENGTH} characters (${want} and at least ${TOKEN_MIN_REST} more); this one has ${token.length}.`
  }
  return null
}

const ordinal = (n: number) =>
  `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th')}`

const tokenOf = (call: SupplierContext): string => {
  if (call.credentials === null) throw new SupplierError('supplier_not_configured', 'the seller has no Duffel token')
  return call.credentials
}

/** An id of Duffel's as it may go into a path (docs/decisions.md "Duffel as it really answers"). */
const ID = /^(off|ord|ser|aso|ase)_[A-Za-z0-9]{1,64}$/
function pathId(id: string, what: string): string {
  if (!ID.test(id))
    throw new SupplierError('not_found', `${what} ${JSON.stringify(id.slice(0, 70))} is not a Duffel id`)
  return id
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
    capabilities: {
      simulated: false,
      products: ['bag', 'seat'],
      remote: true,
      afterBooking: ['bag'],
      seatsAtBookingOnly: true,
      cancels: false,
      findsBookingByLocator: true,
    },

    credentialsProblem: duffelTokenProblem,

    async search(call, trip, types) {
      try {
        return await search(observed(duffel, call.observe), tokenOf(call), trip, types)
      } catch (e) {
        throw supplierErrorOf(e)
      }
    },

    async recheck(call, trip, items) {
      let current: SupplierOffers
      try {
        const wanted: ProductTypeName[] = items.some(({ item }) => item.product_type === 'seat')
          ? ['bag', 'seat']
          : ['bag']
        current = await search(observed(duffel, call.observe), tokenOf(call), trip, wanted)
      } catch (e) {
        const error = supplierErrorOf(e)
        // What the trip names is gone at Duffel (the offer expired or was booked): so is every item of it.
        if (error.reason === 'not_found')
          return { results: items.map(({ item }) => unavailable(item, 'no_longer_offered')) }
        throw error
      }
      // An item of a part that could not be read now gets no answer: it becomes `invalid`, to be checked again.
      const failed = new Set((current.partial_failures ?? []).map((f) => f.product_type))
      return {
        results: items
          .filter(({ item }) => item.product_type === 'ticket' || !failed.has(item.product_type))
          .map((i) => recheckItem(current, i)),
      }
    },

    async fulfill(call, trip, _order, item) {
      try {
        return await fulfill(observed(duffel, call.observe), tokenOf(call), trip, item)
      } catch (e) {
        // The core stopped the purchase (its run no longer owns the order): its error is its own.
        if (e instanceof BeforePurchaseFailed) throw e.error
        const error = supplierErrorOf(e)
        // What may pass is retried by the job (with backoff); what will not fails the order, saying why.
        if (error.retryable) throw error
        return { ok: false, reason: error.reason }
      }
    },

    async quoteCancellation(_call, _trip, orders) {
      return orders.map(({ order }) => ({
        order_id: order.order_id,
        cancellable: false,
        refund: null,
        reason: 'supplier_does_not_cancel',
      }))
    },

    async cancel() {
      return { ok: false, reason: 'supplier_does_not_cancel' }
    },
  }
}

// ---------------------------------------------------------------- search

/** A part of a search read on its own: what it found, or why it could not be read. */
async function part<T>(
  type: ProductTypeName,
  run: () => Promise<T> | T,
): Promise<{ ok: T } | { failed: PartialFailure; error: SupplierError }> {
  try {
    return { ok: await run() }
  } catch (e) {
    const error = supplierErrorOf(e)
    return { failed: { product_type: type, failure_reason: error.reason }, error }
  }
}

/**
 * The offers of the trip's Duffel offer or order, each product type read on its own. What the trip names
 * failing (the offer, the order, the matching) fails the search; a type that fails leaves the others
 * offered and is listed in `partial_failures`; when every type asked for failed, the first failure is thrown.
 */
async function search(
  duffel: DuffelClient,
  token: string,
  trip: SupplierTrip,
  types: ProductTypeName[],
): Promise<SupplierOffers> {
  const source = sourceOf(trip)
  if (source.kind === 'offer') {
    const offer = read(
      Offer,
      await duffel.get(token, `/air/offers/${pathId(source.id, 'duffel_offer_id')}?return_available_services=true`),
      'offer',
    )
    if (!(Date.parse(offer.expires_at) > Date.now()))
      throw new SupplierError('not_found', `Duffel offer ${source.id} expired at ${offer.expires_at.slice(0, 30)}`)
    const refs = matchOffer(trip, offer)
    const bags = types.includes('bag')
      ? await part('bag', () => bagProducts(trip, refs, baggageOf(offer.available_services ?? [])))
      : { ok: [] }
    const seats = types.includes('seat')
      ? await part('seat', () => seatMapsOf(duffel, token, source.id, trip, refs, offer))
      : { ok: [] }
    return settle([bags, seats], (products, seatOffers) => ({
      products,
      seats: seatOffers,
      expires_at: offer.expires_at,
      refs,
    }))
  }
  const order = await orderOf(duffel, token, source)
  if (order.cancelled_at) throw new SupplierError('not_found', `Duffel order ${order.id} was cancelled`)
  const refs: DuffelRefs = { ...matchOrder(trip, order), foreign: foreignServices(trip, order) }
  const bags = types.includes('bag')
    ? await part('bag', async () => {
        const services = read(
          ServicesForSale,
          await duffel.get(token, `/air/orders/${pathId(order.id, 'Duffel order')}/available_services`),
          "order's available services",
        )
        return bagProducts(trip, refs, baggageOf(services))
      })
    : { ok: [] }
  // Most airlines sell no bag after booking (Duffel's guide): said as such, not as a failure to read.
  const none = 'ok' in bags && bags.ok.length === 0 && types.includes('bag')
  const products = 'ok' in bags ? bags.ok : []
  const failures =
    'failed' in bags
      ? [bags.failed]
      : none
        ? [{ product_type: 'bag' as const, failure_reason: 'not_offered_after_booking' }]
        : []
  if ('failed' in bags && types.every((t) => t === 'bag')) throw bags.error
  return { products, seats: [], refs, ...(failures.length ? { partial_failures: failures } : {}) }
}

/** The offer's seat maps, one per segment of the trip it matched. */
async function seatMapsOf(
  duffel: DuffelClient,
  token: string,
  offerId: string,
  trip: SupplierTrip,
  refs: DuffelRefs,
  offer: Offer,
): Promise<SupplierSeatOffers[]> {
  const maps = read(
    SeatMaps,
    await duffel.get(token, `/air/seat_maps?offer_id=${encodeURIComponent(offerId)}`),
    'seat maps',
  )
  const aircraft = new Map(offer.slices.flatMap((s) => s.segments).map((s) => [s.id, s.aircraft?.name ?? '']))
  return maps.flatMap((map) => seatOffers(trip, refs, map, (segment) => aircraft.get(segment) ?? '') ?? [])
}

/** The answer from the parts: what could be read, and what could not; a failure of every part is thrown. */
function settle<B, S>(
  parts: [
    { ok: B } | { failed: PartialFailure; error: SupplierError },
    { ok: S } | { failed: PartialFailure; error: SupplierError },
  ],
  make: (b: B | [], s: S | []) => SupplierOffers,
): SupplierOffers {
  const [bags, seats] = parts
  const failed = parts.flatMap((p) => ('failed' in p ? [p] : []))
  if (failed.length === parts.length) throw failed[0]!.error
  const offers = make('ok' in bags ? bags.ok : [], 'ok' in seats ? seats.ok : [])
  return failed.length ? { ...offers, partial_failures: failed.map((f) => f.failed) } : offers
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
  return (order.services ?? []).map((s) => s.id)
}

/** The Duffel order a trip names, or the one its booking reference finds (exactly one). */
async function orderOf(duffel: DuffelClient, token: string, source: DuffelSource): Promise<Order> {
  if (source.kind === 'order')
    return read(Order, await duffel.get(token, `/air/orders/${pathId(source.id, 'duffel_order_id')}`), 'order')
  if (source.kind === 'offer')
    throw new SupplierError('not_found', 'the trip names a Duffel offer, and no booked order yet')
  if (!/^[A-Za-z0-9]{5,13}$/.test(source.reference))
    throw new SupplierError('not_found', "the booking reference is not one of Duffel's (5 to 13 letters or digits)")
  const found = read(
    Orders,
    await duffel.get(token, `/air/orders?booking_reference=${encodeURIComponent(source.reference)}`),
    'orders',
  )
  if (found.length !== 1)
    throw new SupplierError('not_found', `${found.length} Duffel orders have booking reference ${source.reference}`)
  pathId(found[0]!.id, 'Duffel order')
  return found[0]!
}

// ---------------------------------------------------------------- checks

const unavailable = (item: BasketItem, reason: string): RecheckResult => ({
  basket_item_id: item.basket_item_id,
  outcome: 'unavailable',
  reason,
})

/** The unit price the item was priced at, in Duffel's currency (what the traveller was charged, before mark-ups). */
const chargedUnit = (item: BasketItem): OriginalMoney => {
  const o = item.price.base.in_original_currency
  return { ...o, amount: o.amount / item.quantity }
}

const samePrice = (a: OriginalMoney, b: OriginalMoney) =>
  a.amount === b.amount && a.currency === b.currency && a.decimal_places === b.decimal_places

function recheckItem(current: SupplierOffers, { item, offer_key }: SupplierItem): RecheckResult {
  if (item.product_type === 'ticket') return { basket_item_id: item.basket_item_id, outcome: 'valid' }
  const passenger = String(item.product_details.passenger_id)
  let offer
  if (item.product_type === 'seat') {
    const d = item.product_details
    const seats = current.seats.find((s) => s.segment_id === d.segment_id)
    const seat = seats?.map.decks
      .flatMap((deck) => deck.rows)
      .find((r) => r.row === d.row)
      ?.seats.find((s) => s.column === d.column)
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

/** Whether a hold order's time to pay has passed (Duffel then releases it). */
const released = (order: Order) => {
  const by = order.payment_status?.payment_required_by
  return by != null && Date.parse(by) <= Date.now()
}

/** What the core's `beforePurchase` threw, carried past the adapter's own error handling unchanged. */
class BeforePurchaseFailed {
  constructor(readonly error: unknown) {}
}

async function fulfill(
  duffel: DuffelClient,
  token: string,
  trip: SupplierTrip,
  { item, booked_before, purchase_sent, beforePurchase }: SupplierItem,
): Promise<FulfillOutcome> {
  const booked = await orderOf(duffel, token, sourceOf(trip))
  const unpaid = booked.payment_status?.awaiting_payment === true
  if (booked.cancelled_at)
    return {
      ok: false,
      reason: booked.type === 'hold' || unpaid ? 'supplier_order_not_paid' : 'order_cancelled',
      refs: { order_id: booked.id },
    }
  // A hold order (docs/decisions.md): nothing is bought toward it, nor anything it holds counted as sold, until it is paid.
  if (unpaid)
    return released(booked)
      ? { ok: false, reason: 'supplier_order_not_paid', refs: { order_id: booked.id } }
      : { ok: 'waiting', reason: 'awaiting_payment' }
  const refs = matchOrder(trip, booked)
  // What the order held that is not this trip's (foreignServices) is neither handed off nor bought by it.
  const known = trip.supplier_refs as DuffelRefs | undefined
  const foreign = new Set(known?.source.kind === 'order' && known.source.id === booked.id ? (known.foreign ?? []) : [])
  const services = (booked.services ?? []).filter((s) => !foreign.has(s.id))
  const passenger = refs.passengers[String(item.product_details.passenger_id)]
  if (!passenger) return { ok: false, reason: 'not_matched' }
  const done = (found: Array<{ id: string }>): FulfillOutcome => ({
    ok: true,
    reference: booked.booking_reference,
    refs: { order_id: booked.id, service_ids: found.map((s) => s.id) },
  })

  if (item.product_type === 'seat') {
    const segment = refs.segments[String(item.product_details.segment_id)]!
    const designator = `${String(item.product_details.row)}${String(item.product_details.column)}`
    const held = services.filter(
      (s) =>
        s.type === 'seat' &&
        s.passenger_ids.includes(passenger) &&
        s.segment_ids.includes(segment) &&
        (s.metadata as { designator?: unknown } | null | undefined)?.designator === designator,
    )
    const onSegment = booked.slices
      .flatMap((s) => s.segments)
      .find((s) => s.id === segment)
      ?.passengers?.some((p) => p.passenger_id === passenger && p.seat?.designator === designator)
    return held.length > 0 || onSegment ? done(held) : { ok: false, reason: 'seat_requires_booking' }
  }
  if (item.product_type !== 'bag') return { ok: false, reason: 'not_offered' }

  // How many units of this bag for this passenger the trip has ordered up to this order: the Duffel order
  // must hold that many for this one to be there too (earlier orders of the same bag come first).
  const need = (booked_before ?? 0) + item.quantity
  const journeys = journeysOfBag(item.product_details)
  const kind = bagKindOfItem(item)
  const held = heldBags(services)
  const have = unitsHeld(trip, refs, held, passenger, journeys, kind)
  if (have >= need) return done(servicesFor(trip, refs, held, passenger, journeys, kind) ?? [])
  // A purchase was sent before and its answer lost: it did not land (yet). Never sent again.
  if (purchase_sent)
    return {
      ok: 'unknown',
      reason: 'the purchase sent earlier is not in the Duffel order',
      refs: { order_id: booked.id },
    }

  const available = baggageOf(
    read(
      ServicesForSale,
      await duffel.get(token, `/air/orders/${pathId(booked.id, 'Duffel order')}/available_services`),
      "order's available services",
    ),
  )
  const chosen = servicesFor(trip, refs, available, passenger, journeys, kind)
  if (!chosen) return { ok: false, reason: 'no_longer_offered', refs: { order_id: booked.id } }
  const unit = { ...chosen[0]!.price, amount: chosen.reduce((n, s) => n + s.price.amount, 0) }
  // Bought at Duffel's own price, never the marked-up one, and only at the price the traveller was charged.
  if (chosen.some((s) => s.price.currency !== unit.currency))
    return { ok: false, reason: 'no_longer_offered', refs: { order_id: booked.id } }
  if (!samePrice(unit, chargedUnit(item)))
    return { ok: false, reason: 'price_changed', refs: { order_id: booked.id }, price: { base: unit, taxes: [] } }
  const missing = need - have
  try {
    await beforePurchase?.()
  } catch (e) {
    throw new BeforePurchaseFailed(e)
  }
  let after: Order
  try {
    after = read(
      Order,
      await duffel.post(token, `/air/orders/${pathId(booked.id, 'Duffel order')}/services`, {
        payment: {
          type: 'balance',
          amount: decimal({ ...unit, amount: unit.amount * missing }),
          currency: unit.currency,
        },
        add_services: chosen.map((s) => ({ id: pathId(s.id, 'Duffel service'), quantity: missing })),
      }),
      'order after the purchase',
    )
  } catch (e) {
    return purchaseFailed(e, booked.id)
  }
  // What this purchase added: the services the order holds now that it did not before (Duffel's `ser_…`).
  const before = new Set((booked.services ?? []).map((s) => s.id))
  const bought = heldBags((after.services ?? []).filter((s) => !before.has(s.id)))
  return done(servicesFor(trip, refs, bought, passenger, journeys, kind) ?? bought)
}

/**
 * What a purchase's failure means (docs/decisions.md "Duffel as it really answers", Errors): sent and not
 * answered, or failed on Duffel's side (a time-out, a 5xx, a 429 after sending), is `unknown`, as Duffel asks
 * not to retry; a refusal fails the order with the reason the seller can act on.
 */
function purchaseFailed(e: unknown, orderId: string): FulfillOutcome {
  if (e instanceof DuffelNoAnswer) return { ok: 'unknown', reason: e.message, refs: { order_id: orderId } }
  if (e instanceof DuffelError) {
    const refs = { order_id: orderId, ...(e.requestId ? { request_id: e.requestId } : {}) }
    if (e.status >= 500 || e.status === 429 || e.code === 'airline_error' || e.code === 'airline_unknown')
      return { ok: 'unknown', reason: e.message, refs }
    if (e.code === 'ancillary_service_not_available') return { ok: false, reason: 'no_longer_offered', refs }
    if (e.code === 'payment_amount_does_not_match_order_amount' || e.code === 'price_changed')
      return { ok: false, reason: 'price_changed', refs }
    if (e.code === 'insufficient_balance') return { ok: false, reason: 'supplier_balance', refs }
    return { ok: false, reason: supplierErrorOf(e).reason, refs }
  }
  // The purchase was answered, and the answer could not be read: whether it landed is for the order to say.
  return { ok: 'unknown', reason: supplierErrorOf(e).message, refs: { order_id: orderId } }
}

/** The kind of bag an item is, from its details. */
function bagKindOfItem(item: BasketItem): string {
  const d = item.product_details
  return bagKind({
    type: d.checked === false ? 'carry_on' : 'checked',
    maximum_weight_kg: typeof d.weight === 'number' ? d.weight : null,
  })
}

/** Units of a bag the order holds for the passenger over the journeys: the fewest of any of their segments. */
function unitsHeld(
  trip: SupplierTrip,
  refs: DuffelRefs,
  held: HeldBag[],
  passenger: string,
  journeys: string[],
  kind: string,
): number {
  const mine = held.filter((s) => isBagOf(trip, refs, s, passenger, journeys, kind))
  return Math.min(
    ...segmentsOf(trip, refs, journeys).map((seg) =>
      mine.filter((s) => s.segment_ids.includes(seg)).reduce((n, s) => n + s.quantity, 0),
    ),
  )
}
