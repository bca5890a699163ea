/**
 * Cancellation of purchased extras (docs/decisions.md "After-sale"), the after-sale half of fulfillment.ts:
 * the airline quotes a refund for ordered items (`to_cancel`), the seller confirms the quote before it
 * expires, and a durable job per order cancels it with the airline.
 *
 * An order that `succeeded` moves to `cancelling` when the quote is confirmed, then to `cancelled` with
 * its `refund`, or back to `succeeded` with `cancellation_failure_reason` when the airline refuses. A
 * cancellation completes when none of its orders is `cancelling` any more. Every move is returned with
 * the events it raises, so the caller stores both in one transaction.
 */
import type { CancellationQuote, CancellationRecord, Order, TripRecord } from '../ports/records.ts'
import type { SupplierCancellationQuote } from '../ports/supplier.ts'
import type { Money } from '../schemas/common.ts'
import type { ToCancelItem } from '../schemas/fulfillment.ts'
import { ProblemError, type FieldError } from '../shared/errors.ts'
import type { RaisedEvent } from './fulfillment.ts'
import { own, table } from '../shared/safe-maps.ts'
import { orderView } from './trip.ts'

/** The order that booked a basket item: its latest, since an item is ordered once (and again only after a failure). */
export function orderOfItem(trip: TripRecord, basketItemId: string): Order | undefined {
  let found: Order | undefined
  for (const o of Object.values(trip.orders)) {
    if (o.basket_item_id === basketItemId && (!found || o.created_at >= found.created_at)) found = o
  }
  return found
}

/**
 * The orders of the items a seller asks to cancel: each must be an item of the trip (else 404, so ids of
 * other trips leak nothing) whose order `succeeded` (else 409 `not_cancellable`, naming each).
 */
export function ordersToCancel(trip: TripRecord, basketItemIds: string[]): Order[] {
  const missing: FieldError[] = []
  const refused: FieldError[] = []
  const orders: Order[] = []
  basketItemIds.forEach((id, i) => {
    const path = `/basket_item_ids/${i}`
    const item = own(trip.basket, id)
    if (!item) {
      missing.push({ path, message: 'is not an item of this trip' })
      return
    }
    const order = orderOfItem(trip, id)
    if (!order) refused.push({ path, message: `${item.display_name} has not been ordered` })
    else if (order.status !== 'succeeded')
      refused.push({
        path,
        message: `${item.display_name} is ${order.status}: only an order that succeeded can be cancelled`,
      })
    else orders.push(order)
  })
  if (missing.length)
    throw new ProblemError(
      'not_found',
      `Basket item ${basketItemIds.find((id) => !own(trip.basket, id))} does not exist on this trip.`,
      missing,
    )
  if (refused.length)
    throw new ProblemError(
      'not_cancellable',
      `${refused.length === 1 ? 'An item' : `${refused.length} items`} cannot be cancelled: ${refused[0]!.message}.`,
      refused,
    )
  return orders
}

/** The trip with the airline's quote for these orders as its `to_cancel`, replacing any earlier quote. */
export function withQuote(
  trip: TripRecord,
  orders: Order[],
  quotes: SupplierCancellationQuote[],
  expiresAt: Date,
): TripRecord {
  const items = table<ToCancelItem>()
  for (const order of orders) {
    const q = quotes.find((x) => x.order_id === order.order_id)
    // An order the airline did not answer for is not cancellable: the seller sees that, rather than a refund guessed.
    items[order.basket_item_id] = {
      basket_item_id: order.basket_item_id,
      order_id: order.order_id,
      display_name: order.display_name,
      cancellable: q?.cancellable === true && q.refund !== null,
      refund: q?.cancellable ? q.refund : null,
      ...(!q ? { reason: 'no_answer' } : q.cancellable ? {} : { reason: q.reason ?? 'not_cancellable' }),
    }
  }
  return { ...trip, to_cancel: { quote_expires_at: expiresAt.toISOString(), items } }
}

/** The trip's quote as the API shows it (an empty map and null when there is none). */
export function quoteView(trip: TripRecord): {
  to_cancel: Record<string, ToCancelItem>
  quote_expires_at: string | null
} {
  const q: CancellationQuote | null | undefined = trip.to_cancel
  return { to_cancel: q ? { ...q.items } : {}, quote_expires_at: q ? q.quote_expires_at : null }
}

/**
 * Confirms the trip's quote: refused when there is none, it expired, an item is not cancellable, or an
 * order moved since (409). Each order becomes `cancelling`, the quote is used up (a second confirm finds
 * none: one cancellation however many confirms race), and the caller queues one job per order.
 */
export function confirmCancellation(trip: TripRecord, now: Date, cancellationId: string) {
  const q = trip.to_cancel
  if (!q)
    throw new ProblemError(
      'not_cancellable',
      'There is no cancellation quote to confirm: ask for one with POST .../to_cancel.',
    )
  if (Date.parse(q.quote_expires_at) <= now.getTime()) {
    throw new ProblemError(
      'quote_expired',
      `The cancellation quote expired at ${q.quote_expires_at}: ask for a new one with POST .../to_cancel.`,
    )
  }
  const refused: FieldError[] = []
  for (const item of Object.values(q.items)) {
    const order = trip.orders[item.order_id]
    if (!item.cancellable)
      refused.push({
        path: `/to_cancel/${item.basket_item_id}`,
        message: `${item.display_name} is not cancellable (${item.reason ?? 'not_cancellable'})`,
      })
    else if (order?.status !== 'succeeded')
      refused.push({
        path: `/to_cancel/${item.basket_item_id}`,
        message: `${item.display_name} is ${order?.status ?? 'gone'}`,
      })
  }
  if (refused.length)
    throw new ProblemError(
      'not_cancellable',
      `The quote cannot be confirmed: ${refused[0]!.message}. Ask for a quote of the cancellable items only.`,
      refused,
    )

  const iso = now.toISOString()
  const orderIds = Object.values(q.items).map((i) => i.order_id)
  const cancellation: CancellationRecord = {
    cancellation_id: cancellationId,
    status: 'queued',
    order_ids: orderIds,
    created_at: iso,
    completed_at: null,
  }
  const events: RaisedEvent[] = []
  const orders = { ...trip.orders }
  for (const id of orderIds) {
    const before = orders[id]!
    const moved: Order = { ...before, status: 'cancelling', cancellation_id: cancellationId, updated_at: iso }
    delete moved.cancellation_failure_reason
    orders[id] = moved
    events.push({
      event_name: 'order_status_changed',
      fulfillment_id: moved.fulfillment_id,
      cancellation_id: cancellationId,
      data: { order: orderView(moved), previous_status: before.status },
    })
  }
  const next: TripRecord = {
    ...trip,
    updated_at: iso,
    orders,
    to_cancel: null,
    cancellations: { ...trip.cancellations, [cancellationId]: cancellation },
  }
  return { trip: next, cancellation, events }
}

/**
 * The airline's answer for one order of a cancellation: `cancelled` with the refund, or back to `succeeded`
 * with the reason. An order no longer `cancelling` (the answer came twice) changes nothing.
 */
export function finishCancel(
  trip: TripRecord,
  orderId: string,
  outcome: { ok: true; refund: Money } | { ok: false; reason: string },
  now: Date,
) {
  const order = trip.orders[orderId]
  if (!order || order.status !== 'cancelling' || !order.cancellation_id) return { trip, events: [] as RaisedEvent[] }
  const iso = now.toISOString()
  const moved: Order = outcome.ok
    ? { ...order, status: 'cancelled', refund: outcome.refund, updated_at: iso }
    : { ...order, status: 'succeeded', cancellation_failure_reason: outcome.reason, updated_at: iso }
  let next: TripRecord = { ...trip, orders: { ...trip.orders, [orderId]: moved }, updated_at: iso }
  const cancellationId = order.cancellation_id
  const events: RaisedEvent[] = [
    {
      event_name: 'order_status_changed',
      fulfillment_id: order.fulfillment_id,
      cancellation_id: cancellationId,
      data: { order: orderView(moved), previous_status: 'cancelling' },
    },
  ]
  const c = next.cancellations?.[cancellationId]
  if (c && c.status !== 'completed' && c.order_ids.every((id) => next.orders[id]?.status !== 'cancelling')) {
    const done: CancellationRecord = { ...c, status: 'completed', completed_at: iso }
    next = { ...next, cancellations: { ...next.cancellations, [cancellationId]: done } }
    events.push(completedEvent(next, done))
  }
  return { trip: next, events }
}

function completedEvent(trip: TripRecord, c: CancellationRecord): RaisedEvent {
  const orders = c.order_ids.map((id) => trip.orders[id]!)
  const cancelled = orders.filter((o) => o.status === 'cancelled')
  const refunds = cancelled.map((o) => o.refund!)
  return {
    event_name: 'cancellation_completed',
    cancellation_id: c.cancellation_id,
    data: {
      status:
        cancelled.length === orders.length ? 'cancelled' : cancelled.length === 0 ? 'failed' : 'partially_cancelled',
      // One currency per trip: the refunds add up (their original currencies may differ, so only the trip's).
      refund_total: refunds.length
        ? {
            amount: refunds.reduce((n, r) => n + r.amount, 0),
            currency: refunds[0]!.currency,
            decimal_places: refunds[0]!.decimal_places,
          }
        : null,
      orders: orders.map((o) => ({
        order_id: o.order_id,
        basket_item_id: o.basket_item_id,
        status: o.status,
        ...(o.refund ? { refund: o.refund } : {}),
        ...(o.cancellation_failure_reason ? { cancellation_failure_reason: o.cancellation_failure_reason } : {}),
      })),
    },
  }
}
