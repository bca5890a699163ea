/** One order booked with the airline: queued → in_progress → succeeded | failed. */
import { moveOrder } from '../../domain/fulfillment.ts'
import { supplierView } from '../../domain/search.ts'
import { passengerOf } from '../../domain/trip.ts'
import type { Context } from '../context.ts'
import type { Job } from './job.ts'
import type { Order, TripRecord } from '../../ports/records.ts'
import type { BasketItem } from '../../schemas/basket.ts'
import { tripSupplier } from '../suppliers.ts'

type Payload = Extract<Job, { kind: 'fulfill_order' }>['payload']

export async function run(ctx: Context, { trip_id, order_id }: Payload): Promise<Date | undefined> {
  const loaded = await ctx.trips.read(trip_id)
  const order = loaded?.value.orders[order_id]
  if (!loaded || !order || order.status === 'succeeded' || order.status === 'failed') return undefined
  const trip = await ctx.trips.mutate(null, trip_id, (t) => moveOrder(t, order_id, 'in_progress', ctx.clock.now()))
  const item = trip.basket[order.basket_item_id]
  const moved = trip.orders[order_id]
  // An order names an item of its own trip and the trip keeps its orders: missing, the record is corrupt.
  if (!item || !moved) throw new Error(`order ${order_id} of trip ${trip_id} has lost its basket item`)
  const { supplier, call } = await tripSupplier(ctx, trip)
  const booked = await supplier.fulfill(call, supplierView(trip), moved, { item, offer_key: trip.offer_keys[item.product_id], booked_before: bookedBefore(trip, moved, item) })
  // Not known yet: the order stays in_progress and the job comes back to find out (the adapter looks at what
  // the supplier recorded before it books anything, so it never books twice).
  if (booked.ok === 'unknown') return new Date(ctx.clock.now().getTime() + ctx.config.reconcileMs)
  await ctx.trips.mutate(null, trip_id, (t) => booked.ok === true
    ? moveOrder(t, order_id, 'succeeded', ctx.clock.now(), { supplier_reference: booked.reference, ...(booked.refs ? { supplier_refs: booked.refs } : {}) })
    : moveOrder(t, order_id, 'failed', ctx.clock.now(), { failure_reason: booked.reason }))
  return undefined
}

/**
 * Units of the same product for the same passenger that the trip's orders made before this one hold
 * (succeeded, or still on their way): what a supplier counts before this order's units (SupplierItem.booked_before).
 */
function bookedBefore(trip: TripRecord, order: Order, item: BasketItem): number {
  let n = 0
  for (const o of Object.values(trip.orders)) {
    if (o.order_id === order.order_id || o.status === 'failed' || o.status === 'cancelled' || o.status === 'cancelling') continue
    if (o.created_at > order.created_at || (o.created_at === order.created_at && o.order_id > order.order_id)) continue
    const other = trip.basket[o.basket_item_id]
    if (other?.product_id === item.product_id && passengerOf(other) === passengerOf(item)) n += other.quantity
  }
  return n
}

/** An order given up fails, so the seller sees it and can refund. */
export async function giveUp(ctx: Context, { trip_id, order_id }: Payload): Promise<void> {
  const now = ctx.clock.now()
  await ctx.trips.mutate(null, trip_id, (t) => moveOrder(t, order_id, 'failed', now, { failure_reason: 'The airline could not be reached to confirm this order.' }))
}
