/**
 * The validity lifecycle of basket items (spec "States and transitions"):
 *
 *   valid ──check──▶ checking ──supplier──▶ valid | price_changed | unavailable
 *   valid ──valid_to passes──▶ invalid (reported on read) ──check──▶ checking
 *   price_changed ──accept──▶ valid          price_changed ──check──▶ checking
 *   any ──passenger data it depends on changes (PATCH)──▶ checking
 *
 * `unavailable` is final for an item: the traveller removes it and chooses again.
 * What a check finds outlives the item (`checked_offers`): the product put back within that answer's window
 * comes back `price_changed` at the new price, or is refused as unavailable, until a new search.
 * Each function is pure and returns a new trip; the service stores it with the job that does the work.
 */
import type { CheckedOffer, TripRecord } from '../ports/records.ts'
import type { RecheckResult } from '../ports/supplier.ts'
import type { SupplierTax } from '../ports/supplier-answers.ts'
import type { BasketItem } from '../schemas/basket.ts'
import type { OriginalMoney } from '../schemas/common.ts'
import { ProblemError } from '../shared/errors.ts'
import { own, table } from '../shared/safe-maps.ts'
import { assertNotPurchased, effectiveStatus, isPurchased, passengerOf, validityWindow } from './trip.ts'
import { priceFor } from './search.ts'

export interface ValidityContext {
  now: Date
  holdWindow: number
}

const window = (ctx: ValidityContext, trip: Pick<TripRecord, 'offers_expire_at'>) =>
  validityWindow(ctx.now, ctx.holdWindow, trip.offers_expire_at)

export const samePrice = (a: BasketItem['price'], b: BasketItem['price']) => JSON.stringify(a) === JSON.stringify(b)

/** An offer's key in `checked_offers`: a product for one passenger (a product id is a UUID, so `/` ends it). */
export const checkedOfferKey = (productId: string, passengerId: string | undefined) =>
  `${productId}/${passengerId ?? ''}`

/** What a check found of this product for this passenger, while the window of that answer lasts. */
export function checkedOffer(
  trip: TripRecord,
  productId: string,
  passengerId: string,
  now: Date,
): CheckedOffer | undefined {
  const found = own(trip.checked_offers, checkedOfferKey(productId, passengerId))
  return found && Date.parse(found.valid_to) >= now.getTime() ? found : undefined
}

/** Items a check revalidates: all of them but those already `unavailable` or bought, or the given ones. */
export function checkableItems(trip: TripRecord, only?: string[]): string[] {
  return Object.values(trip.basket)
    .filter(
      (i) => i.validity.status !== 'unavailable' && !isPurchased(trip, i) && (!only || only.includes(i.basket_item_id)),
    )
    .map((i) => i.basket_item_id)
}

/** Puts items into `checking` under `checkId`; a later check of the same item supersedes this one. */
export function startCheck(trip: TripRecord, itemIds: string[], checkId: string, now: Date): TripRecord {
  const basket = { ...trip.basket }
  const pending_checks = { ...trip.pending_checks }
  for (const id of itemIds) {
    const item = basket[id]
    if (!item) continue
    const { reason: _r, ...validity } = item.validity
    basket[id] = { ...item, validity: { ...validity, status: 'checking' } }
    pending_checks[id] = checkId
  }
  return { ...trip, basket, pending_checks, updated_at: now.toISOString() }
}

export function itemsOfCheck(trip: TripRecord, checkId: string): BasketItem[] {
  return Object.entries(trip.pending_checks)
    .filter(([id, c]) => c === checkId && trip.basket[id])
    .map(([id]) => trip.basket[id]!)
}

/**
 * Applies the supplier's answers to the items still waiting for this check. An item without an answer
 * becomes `invalid`: its validity is unknown, and the seller's next check asks again.
 */
export function finishCheck(
  trip: TripRecord,
  checkId: string,
  results: RecheckResult[],
  ctx: ValidityContext,
): TripRecord {
  const basket = { ...trip.basket }
  const pending_checks = { ...trip.pending_checks }
  const byId = new Map(results.map((r) => [r.basket_item_id, r]))
  // Kept with the trip so that removing an item and adding it again (or a PUT) cannot undo the answer.
  // Answers past their window are dropped: the map holds one hold window's findings at most.
  const checked = table<CheckedOffer>()
  for (const [k, o] of Object.entries(trip.checked_offers ?? {}))
    if (Date.parse(o.valid_to) >= ctx.now.getTime()) checked[k] = o
  for (const item of itemsOfCheck(trip, checkId)) {
    const id = item.basket_item_id
    delete pending_checks[id]
    const r = byId.get(id)
    // A ticket is never put back through the basket, so what is found of it need not be kept.
    const key =
      item.product_type === 'ticket' ? null : checkedOfferKey(item.product_id, item.product_details.passenger_id)
    const { previous_price: agreed, reason: _r, ...base } = item.validity
    // `agreed` is set while a changed price awaits the traveller: a check must not accept it for them.
    const changedFrom = (price: BasketItem['price'], from: BasketItem['price']) => ({
      ...item,
      price,
      validity: { status: 'price_changed' as const, ...window(ctx, trip), previous_price: from },
    })
    if (!r) {
      basket[id] = {
        ...item,
        validity: { ...base, ...(agreed ? { previous_price: agreed } : {}), status: 'invalid', reason: 'check_failed' },
      }
    } else if (r.outcome === 'unavailable') {
      basket[id] = { ...item, validity: { ...base, status: 'unavailable', reason: r.reason } }
      if (key) checked[key] = { status: 'unavailable', reason: r.reason, valid_to: window(ctx, trip).valid_to }
    } else if (r.outcome === 'price_changed' && item.product_type !== 'ticket' && key) {
      const found = atNewPrice(trip, item, r, ctx)
      checked[key] = found.checked
      basket[id] = found.item
    } else {
      basket[id] = agreed
        ? changedFrom(item.price, agreed)
        : { ...item, validity: { status: 'valid', ...window(ctx, trip) } }
      // The item holds the price a check found before: the airline confirms it for a new window.
      const known = key ? own(checked, key) : undefined
      if (key && known?.status === 'price_changed') checked[key] = { ...known, ...window(ctx, trip) }
    }
  }
  const found = trip.checked_offers || Object.keys(checked).length ? { checked_offers: checked } : {}
  return { ...trip, basket, pending_checks, ...found, updated_at: ctx.now.toISOString() }
}

/**
 * An item at the airline's price now (`offer`, per unit), with the seller's own mark-up for the item (which
 * outlives the airline's price changes): back at the price the traveller agreed to it is `valid`; at any
 * other it is `price_changed` from that one, for them to accept. And what to keep of the answer in
 * `checked_offers`, so that putting the product back cannot undo it.
 */
export function atNewPrice(
  trip: TripRecord,
  item: BasketItem,
  offer: { base: OriginalMoney; taxes: SupplierTax[] },
  ctx: ValidityContext,
): { item: BasketItem; checked: CheckedOffer } {
  const type = item.product_type
  // Tickets are priced by the seller, never re-priced by an airline's answer.
  if (type === 'ticket') throw new Error(`basket item ${item.basket_item_id} is the ticket`)
  const agreed = item.validity.previous_price
  const price = priceFor(trip, type, offer, item.quantity, item.markup)!
  const before = agreed ?? item.price
  const w = window(ctx, trip)
  return {
    item: samePrice(price, before)
      ? { ...item, price, validity: { status: 'valid', ...w } }
      : { ...item, price, validity: { status: 'price_changed', ...w, previous_price: before } },
    checked: { status: 'price_changed', base: offer.base, taxes: offer.taxes, ...w },
  }
}

/**
 * An order failed because the airline's price changed when it was to be bought (docs/decisions.md "Duffel as
 * it really answers"): its item goes back into the basket, not ordered, at the airline's price now, as a
 * basket check would leave it. The traveller accepts the new price and the seller fulfills again; the failed
 * order stays, with that price, for the seller's books.
 */
export function reofferAfterPriceChange(
  trip: TripRecord,
  itemId: string,
  offer: { base: OriginalMoney; taxes: SupplierTax[] },
  ctx: ValidityContext,
): TripRecord {
  const ordered = own(trip.basket, itemId)
  if (!ordered || ordered.product_type === 'ticket') return trip
  const { order_id: _o, ...item } = ordered
  const found = atNewPrice(trip, item, offer, ctx)
  const checked = table<CheckedOffer>()
  Object.assign(checked, trip.checked_offers)
  checked[checkedOfferKey(item.product_id, item.product_details.passenger_id)] = found.checked
  return {
    ...trip,
    basket: { ...trip.basket, [itemId]: found.item },
    checked_offers: checked,
    updated_at: ctx.now.toISOString(),
  }
}

/** The check could not be done (the supplier kept failing): its items become `invalid`, to be checked again. */
export function abandonCheck(trip: TripRecord, checkId: string, now: Date): TripRecord {
  return finishCheck(trip, checkId, [], { now, holdWindow: 0 })
}

/** The traveller takes the new price of a `price_changed` item; it becomes `valid` for the rest of the quote's window. */
export function acceptPrice(trip: TripRecord, itemId: string, now: Date): TripRecord {
  const item = own(trip.basket, itemId)
  if (!item) throw new ProblemError('not_found', `Basket item ${itemId} is not in this trip's basket.`)
  assertNotPurchased(trip, item)
  const status = effectiveStatus(trip, item, now)
  if (status === 'invalid')
    throw new ProblemError(
      'basket_rule_violation',
      'The new price has expired; start a basket check to get a current one.',
    )
  if (status !== 'price_changed')
    throw new ProblemError(
      'basket_rule_violation',
      `Only an item whose price changed can be accepted; this one is ${status}.`,
    )
  const { previous_price: _p, ...validity } = item.validity
  return {
    ...trip,
    basket: { ...trip.basket, [itemId]: { ...item, validity: { ...validity, status: 'valid' } } },
    updated_at: now.toISOString(),
  }
}

/** Items whose offer depends on these passengers' data (their own bags, seats and services). */
export function itemsOfPassengers(trip: TripRecord, passengerIds: string[]): string[] {
  return checkableItems(trip).filter((id) => {
    const pid = passengerOf(trip.basket[id]!)
    return pid !== undefined && passengerIds.includes(pid)
  })
}
