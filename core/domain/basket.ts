/**
 * Basket rules (docs/decisions.md "Basket changes"): products must come from the trip's search and fit its
 * passengers and journeys; quantities stay within each product's limit per passenger; a passenger holds at
 * most one seat per segment and a seat holds one passenger; lap infants get no seat. Every function here is
 * pure: it returns a new trip or throws, so a refused change leaves nothing behind.
 */
import type { CheckedOffer, TripRecord } from '../ports/records.ts'
import type { AncillaryItem, BasketChangeLine, BasketItem, ItemMarkup } from '../schemas/basket.ts'
import type { Price } from '../schemas/common.ts'
import type { PriceAndAvailability, Product } from '../schemas/search.ts'
import type { ProductTypeName } from '../schemas/trip.ts'
import { ProblemError, invalid } from '../shared/errors.ts'
import { checkItemMarkup } from './pricing.ts'
import { own } from '../shared/safe-maps.ts'
import { priceFor, unitOfferOf, type SearchView } from './search.ts'
import { assertNotPurchased, journeyOfSegment, passengerOf, ticketOfJourney, validityWindow } from './trip.ts'
import { checkedOffer, checkedOfferKey, samePrice } from './validity.ts'

export interface BasketContext {
  now: Date
  holdWindow: number
  newId(): string
}

const rule = (detail: string, path: string) =>
  new ProblemError('basket_rule_violation', detail, [{ path, message: detail }])

function journeyIdOf(trip: TripRecord, details: Record<string, unknown>): string | undefined {
  if (typeof details.journey_id === 'string') return details.journey_id
  if (typeof details.segment_id === 'string') return journeyOfSegment(trip, details.segment_id)?.journey_id
  return undefined
}

function sameSeat(a: BasketItem, segmentId: unknown, row: unknown, column: unknown) {
  return (
    a.product_type === 'seat' &&
    a.product_details.segment_id === segmentId &&
    a.product_details.row === row &&
    a.product_details.column === column
  )
}

/** What a basket check found of an offer that is still on sale: its new price, for that answer's window. */
type CheckedPrice = Extract<CheckedOffer, { status: 'price_changed' }>

/** Adds one line to a working copy of the trip (mutates `trip`; callers pass a copy). */
function addLine(trip: TripRecord, search: SearchView, line: BasketChangeLine, at: string, ctx: BasketContext) {
  const { product, offer, type } = offerToPassenger(trip, search, line, at)
  const checked = checkedAnswerFor(trip, product, line, at, ctx.now)
  const ticket = ticketOfProduct(trip, product, at)
  const { existing, quantity } = holdingAfter(trip, product, type, offer, line, at)
  // The seller's mark-up for the item: this line's, else the one the item already has.
  const markup = line.markup ? { ...line.markup } : existing?.markup
  const { price, validity } = pricedFor(trip, type, offer, checked, quantity, markup, ctx)
  if (existing) {
    trip.basket[existing.basket_item_id] = { ...existing, quantity, price, ...(markup ? { markup } : {}), validity }
    return
  }
  const basket_item_id = ctx.newId()
  trip.basket[basket_item_id] = {
    basket_item_id,
    display_name: product.display_name,
    product_id: product.product_id,
    product_type: type,
    quantity,
    ticket_id: ticket.ticket_id,
    benefits: [],
    price,
    ...(markup ? { markup } : {}),
    product_details: { ...product.product_details, passenger_id: line.passenger_id },
    validity,
    ...supplierOf(trip, search, product.product_id, line.passenger_id),
  }
  trip.tickets = trip.tickets.map((t) =>
    t.ticket_id === ticket.ticket_id ? { ...t, basket_item_ids: [...t.basket_item_ids, basket_item_id] } : t,
  )
  trip.offer_keys = { ...trip.offer_keys, [product.product_id]: search.offerKey(product.product_id)! }
}

/** The line's product of the search and its offer to the line's passenger; refused when either is unknown or it is not on offer to them. */
function offerToPassenger(
  trip: TripRecord,
  search: SearchView,
  line: BasketChangeLine,
  at: string,
): { product: Product; offer: PriceAndAvailability; type: ProductTypeName } {
  const product = search.product(line.product_id)
  if (!product) throw invalid(`${at}/product_id`, "is not a product of this trip's search")
  const passenger = trip.passengers.find((p) => p.passenger_id === line.passenger_id)
  if (!passenger) throw invalid(`${at}/passenger_id`, 'is not a passenger of this trip')
  const offer = own(product.price_and_availability, line.passenger_id)
  const type = product.product_type
  if (!offer || !offer.available) {
    if (offer?.reason === 'lap_infant' || (type === 'seat' && passenger.on_lap_of)) {
      throw rule(`A lap infant cannot have a ${type === 'seat' ? 'seat' : product.display_name}.`, `${at}/passenger_id`)
    }
    throw new ProblemError(
      'product_unavailable',
      `${product.display_name} is not available to passenger ${line.passenger_id}.`,
      [{ path: `${at}/product_id`, message: offer?.reason ?? 'not available to this passenger' }],
    )
  }
  return { product, offer, type }
}

/**
 * The search's offer holds unless a basket check has since found otherwise: putting the product back must
 * not undo that. What the check found (a new price), or a refusal when it found the product gone.
 */
function checkedAnswerFor(
  trip: TripRecord,
  product: Product,
  line: BasketChangeLine,
  at: string,
  now: Date,
): CheckedPrice | undefined {
  const checked = checkedOffer(trip, line.product_id, line.passenger_id, now)
  if (checked?.status === 'unavailable') {
    throw new ProblemError(
      'product_unavailable',
      `${product.display_name} is no longer available to passenger ${line.passenger_id} (a basket check found: ${checked.reason}); choose another product, or search again.`,
      [{ path: `${at}/product_id`, message: checked.reason }],
    )
  }
  return checked
}

/** The trip's ticket whose journey the product is for; refused when the product is of no journey of the trip. */
function ticketOfProduct(trip: TripRecord, product: Product, at: string) {
  const journeyId = journeyIdOf(trip, product.product_details)
  const ticket = journeyId ? ticketOfJourney(trip, journeyId) : undefined
  if (!ticket) throw invalid(`${at}/product_id`, "does not belong to this trip's journeys")
  return ticket
}

/**
 * What the basket would hold of the product for the passenger with the line: the item it adds to (if
 * any) and that item's quantity. Refused beyond the product's limit, or for a second seat or a seat taken.
 */
function holdingAfter(
  trip: TripRecord,
  product: Product,
  type: ProductTypeName,
  offer: PriceAndAvailability,
  line: BasketChangeLine,
  at: string,
) {
  const items = Object.values(trip.basket).filter((i) => holds(trip, i))
  const mine = items.filter((i) => i.product_id === line.product_id && passengerOf(i) === line.passenger_id)
  // An ordered item stays as it was bought: more of the product is a new item, ordered by the next fulfill.
  const existing = mine.find((i) => i.order_id === undefined)
  const quantity = (existing?.quantity ?? 0) + line.quantity
  const held = mine.reduce((n, i) => n + i.quantity, 0) + line.quantity
  if (held > offer.quantity_limit) {
    throw rule(
      `${product.display_name}: at most ${offer.quantity_limit} per passenger on this ${type === 'seat' ? 'flight' : 'journey'}; the basket would hold ${held}.`,
      `${at}/quantity`,
    )
  }
  if (type === 'seat') assertSeatFree(items, product, line, at)
  return { existing, quantity }
}

/** A passenger holds one seat per segment, and a seat one passenger. */
function assertSeatFree(items: BasketItem[], product: Product, line: BasketChangeLine, at: string) {
  const d = product.product_details
  if (
    items.some(
      (i) =>
        i.product_type === 'seat' &&
        i.product_details.segment_id === d.segment_id &&
        i.product_details.passenger_id === line.passenger_id,
    )
  ) {
    throw rule(
      `Passenger ${line.passenger_id} already has a seat on this flight; remove it first.`,
      `${at}/passenger_id`,
    )
  }
  if (items.some((i) => sameSeat(i, d.segment_id, d.row, d.column))) {
    throw rule(`Seat ${String(d.row)}${String(d.column)} is already taken in this basket.`, `${at}/product_id`)
  }
}

/**
 * The item's price and validity: the search's price for a new hold window, or, at a price a check found,
 * the item as the check left it: changed from the search's, for the traveller to accept, until that price's window ends.
 */
function pricedFor(
  trip: TripRecord,
  type: ProductTypeName,
  offer: PriceAndAvailability,
  checked: CheckedPrice | undefined,
  quantity: number,
  markup: ItemMarkup | undefined,
  ctx: BasketContext,
) {
  const quoted = priceFor(trip, type, unitOfferOf(offer.price!), quantity, markup)!
  const price = checked ? priceFor(trip, type, checked, quantity, markup)! : quoted
  const validity: BasketItem['validity'] =
    checked && !samePrice(price, quoted)
      ? { status: 'price_changed', valid_from: checked.valid_from, valid_to: checked.valid_to, previous_price: quoted }
      : { status: 'valid', ...validityWindow(ctx.now, ctx.holdWindow, trip.offers_expire_at) }
  return { price, validity }
}

/** An item priced from a supplier that gave its own ids for the offer carries them (BasketItem.supplier), for the seller's hand-off. */
function supplierOf(
  trip: TripRecord,
  search: SearchView,
  productId: string,
  passengerId: string,
): Pick<BasketItem, 'supplier'> {
  const service_ids = search.supplierRefs(productId, passengerId)
  return service_ids?.length ? { supplier: { name: trip.supplier ?? 'sandbox', service_ids: [...service_ids] } } : {}
}

function copy(trip: TripRecord, now: Date): TripRecord {
  return { ...trip, basket: { ...trip.basket }, tickets: [...trip.tickets], updated_at: now.toISOString() }
}

/**
 * Whether an item takes its product's place (the quantity limit, a seat): every item but an ordered one
 * whose order failed or was cancelled, which stays in the basket as the record of that order.
 */
function holds(trip: TripRecord, item: BasketItem): boolean {
  const order = item.order_id === undefined ? undefined : trip.orders[item.order_id]
  return order === undefined || (order.status !== 'failed' && order.status !== 'cancelled')
}

/** Each line's mark-up is in the trip's currency; checked before anything changes, naming `/N/markup/...`. */
function checkMarkups(trip: TripRecord, lines: BasketChangeLine[]) {
  lines.forEach((l, i) => {
    if (l.markup) checkItemMarkup(l.markup, trip.currency, `/${i}/markup`)
  })
}

/**
 * The item at another mark-up of the seller's, re-priced from its own supplier price (the one a check
 * found, if any): its id, validity and window stay, since the airline's price did not change. A price still
 * awaiting the traveller (`previous_price`) is re-priced alike, so the two still differ by the airline's change only.
 */
function withMarkup(trip: TripRecord, item: AncillaryItem, markup: ItemMarkup | undefined): BasketItem {
  const at = (price: Price) =>
    priceFor(trip, item.product_type, unitOfferOf(price, item.quantity), item.quantity, markup)!
  const { markup: _old, ...rest } = item
  const { previous_price, ...validity } = item.validity
  return {
    ...rest,
    price: at(item.price),
    ...(markup ? { markup: { ...markup } } : {}),
    validity: previous_price ? { ...validity, previous_price: at(previous_price) } : validity,
  }
}

export function addToBasket(
  trip: TripRecord,
  search: SearchView | undefined,
  lines: BasketChangeLine[],
  ctx: BasketContext,
): TripRecord {
  checkMarkups(trip, lines)
  if (!search) throw invalid('/0/product_id', 'the trip has no search yet; run POST /v2.2/trip/{trip_id}/search first')
  const next = copy(trip, ctx.now)
  lines.forEach((line, i) => addLine(next, search, line, `/${i}`, ctx))
  return next
}

/**
 * A PUT lists the whole basket. A line the basket already holds as asked (same product, passenger, quantity
 * and mark-up) keeps its item: its basket_item_id, validity and window. So a retried PUT changes nothing (no
 * write, the same state hash), and sending the basket again neither renews an expired window nor undoes a
 * check. Only the mark-up differing, the item keeps all that too and is re-priced with the new one (a line
 * without one removes it). What an earlier fulfill bought stays as it is: its lines must still list it (a
 * PUT that leaves an ordered item out is refused), and what they ask beyond it is the item to order next.
 */
export function replaceBasket(
  trip: TripRecord,
  search: SearchView | undefined,
  lines: BasketChangeLine[],
  ctx: BasketContext,
): TripRecord {
  checkMarkups(trip, lines)
  // Lines of one product for one passenger add up, as they would in a PATCH, and the last mark-up among them is the item's.
  const wanted = new Map<
    string,
    { line: BasketChangeLine; at: number; quantity: number; markup: ItemMarkup | undefined }
  >()
  lines.forEach((l, at) => {
    const key = checkedOfferKey(l.product_id, l.passenger_id)
    const w = wanted.get(key)
    wanted.set(key, {
      line: w?.line ?? l,
      at: w?.at ?? at,
      quantity: (w?.quantity ?? 0) + l.quantity,
      markup: l.markup ?? w?.markup,
    })
  })
  const ordered = new Map<string, number>()
  for (const item of Object.values(trip.basket)) {
    if (item.order_id === undefined || !holds(trip, item)) continue
    const key = checkedOfferKey(item.product_id, passengerOf(item))
    const have = (ordered.get(key) ?? 0) + item.quantity
    ordered.set(key, have)
    if ((wanted.get(key)?.quantity ?? 0) < have) {
      throw new ProblemError(
        'item_ordered',
        `The basket would leave out ${item.display_name} (basket item ${item.basket_item_id}), which was ordered (order ${item.order_id}). A PUT lists the whole basket, ordered items included; to undo one, cancel it: POST /v2.2/trip/${trip.trip_id}/to_cancel.`,
        [
          {
            path: wanted.has(key) ? `/${wanted.get(key)!.at}/quantity` : '',
            message: `must list ${item.display_name} for ${String(passengerOf(item))}: ${have} ordered`,
          },
        ],
      )
    }
  }
  // What the lines ask beyond what was ordered: the item not yet ordered.
  const toOrder = (key: string) => (wanted.get(key)?.quantity ?? 0) - (ordered.get(key) ?? 0)
  const next = copy(trip, ctx.now)
  const kept = new Set<string>()
  let changed = 0
  for (const item of Object.values(trip.basket)) {
    if (item.product_type === 'ticket' || item.order_id !== undefined) continue
    const key = checkedOfferKey(item.product_id, item.product_details.passenger_id)
    if (toOrder(key) !== item.quantity) {
      removeItem(next, item.basket_item_id)
      changed++
      continue
    }
    kept.add(key)
    const markup = wanted.get(key)!.markup
    if (markup?.amount !== item.markup?.amount) {
      next.basket[item.basket_item_id] = withMarkup(trip, item, markup)
      changed++
    }
  }
  const added = [...wanted].filter(([key]) => !kept.has(key) && toOrder(key) > 0)
  if (added.length === 0) return changed === 0 ? trip : next
  if (!search)
    throw invalid(
      `/${added[0]![1].at}/product_id`,
      'the trip has no search yet; run POST /v2.2/trip/{trip_id}/search first',
    )
  for (const [key, { line, at, markup }] of added) {
    addLine(
      next,
      search,
      {
        product_id: line.product_id,
        passenger_id: line.passenger_id,
        quantity: toOrder(key),
        ...(markup ? { markup } : {}),
      },
      `/${at}`,
      ctx,
    )
  }
  return next
}

function removeItem(trip: TripRecord, itemId: string) {
  delete trip.basket[itemId]
  trip.tickets = trip.tickets.map((t) =>
    t.basket_item_ids.includes(itemId) ? { ...t, basket_item_ids: t.basket_item_ids.filter((x) => x !== itemId) } : t,
  )
}

export function removeFromBasket(trip: TripRecord, itemId: string, ctx: BasketContext): TripRecord {
  const item = own(trip.basket, itemId)
  if (!item) throw new ProblemError('not_found', `Basket item ${itemId} is not in this trip's basket.`)
  if (item.product_type === 'ticket')
    throw rule('The ticket itself cannot be removed from the basket.', '/basket_item_id')
  assertNotPurchased(trip, item)
  const next = copy(trip, ctx.now)
  removeItem(next, itemId)
  return next
}
