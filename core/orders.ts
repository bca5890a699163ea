/**
 * The orders feed (GET /v2.2/orders, design/api.md "After-sale"): what a seller reconciles its books with.
 *
 * Orders live in their trip's document; the store keeps beside it one row per order, as the feed shows it,
 * written in the same transaction as the trip (TripEffects.orders). Each write that creates or changes
 * orders gives them its seller's next change numbers, and the feed lists orders by that number.
 *
 * Why a number and not (updated_at, order_id), which the design names: updated_at is the clock of the
 * instance that wrote, read before its transaction commits. Two writers can commit in the other order
 * than their clocks say (or their clocks disagree), and a client that has paged past 10:00:05 would then
 * never see a change stamped 10:00:04 that committed after it read. The change number is taken from a
 * per-seller counter inside the write's transaction (the counter's row stays locked until commit), so
 * numbers follow commit order: a change never lands behind a cursor already handed out. Within a write,
 * and wherever the clocks agree, number order is (updated_at, order_id) order.
 */
import type { Order, OrderFeedItem, TripRecord } from './ports.ts'
import { own } from './records.ts'

/** An order as the feed shows it: with its trip and what kind of product it booked. */
export function feedItem(trip: TripRecord, order: Order): OrderFeedItem {
  const item = own(trip.basket, order.basket_item_id)
  // An order is made from a basket item, which stays (read-only) once ordered; without it there is no
  // product type to report, and leaving the order out of the feed would be the one thing it must not do.
  if (!item || item.product_type === 'ticket') throw new Error(`order ${order.order_id} names no ancillary of trip ${trip.trip_id}`)
  return {
    order_id: order.order_id, trip_id: trip.trip_id, basket_item_id: order.basket_item_id, display_name: order.display_name,
    product_type: item.product_type, price: order.price, status: order.status,
    ...(order.refund ? { refund: order.refund } : {}),
    updated_at: order.updated_at,
  }
}

/**
 * The orders of `after` that are new or differ from `before`, as the feed shows them, by updated_at then
 * order_id: the order in which the store numbers them. Rules return a new object for an order they move
 * and keep the others, so most are passed over by identity.
 */
export function changedOrders(before: TripRecord | undefined, after: TripRecord): OrderFeedItem[] {
  const changed: OrderFeedItem[] = []
  for (const [id, order] of Object.entries(after.orders)) {
    const was = before ? own(before.orders, id) : undefined
    if (was === order || (was !== undefined && JSON.stringify(was) === JSON.stringify(order))) continue
    changed.push(feedItem(after, order))
  }
  return changed.sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : a.order_id < b.order_id ? -1 : a.order_id > b.order_id ? 1 : 0))
}
