/** One order booked with the airline: queued → in_progress → succeeded | failed. */
import { moveOrder } from '../../fulfillment.ts'
import { supplierView } from '../../search.ts'
import type { Context } from '../context.ts'
import type { Job } from './job.ts'

type Payload = Extract<Job, { kind: 'fulfill_order' }>['payload']

export async function run(ctx: Context, { trip_id, order_id }: Payload): Promise<undefined> {
  const loaded = await ctx.trips.read(trip_id)
  const order = loaded?.value.orders[order_id]
  if (!loaded || !order || order.status === 'succeeded' || order.status === 'failed') return undefined
  const trip = await ctx.trips.mutate(null, trip_id, (t) => moveOrder(t, order_id, 'in_progress', ctx.clock.now()))
  const item = trip.basket[order.basket_item_id]
  const moved = trip.orders[order_id]
  // An order names an item of its own trip and the trip keeps its orders: missing, the record is corrupt.
  if (!item || !moved) throw new Error(`order ${order_id} of trip ${trip_id} has lost its basket item`)
  const booked = await ctx.supplier.fulfill(supplierView(trip), moved, { item, offer_key: trip.offer_keys[item.product_id] })
  await ctx.trips.mutate(null, trip_id, (t) => booked.ok
    ? moveOrder(t, order_id, 'succeeded', ctx.clock.now(), { supplier_reference: booked.reference })
    : moveOrder(t, order_id, 'failed', ctx.clock.now(), { failure_reason: booked.reason }))
  return undefined
}

/** An order given up fails, so the seller sees it and can refund. */
export async function giveUp(ctx: Context, { trip_id, order_id }: Payload): Promise<void> {
  const now = ctx.clock.now()
  await ctx.trips.mutate(null, trip_id, (t) => moveOrder(t, order_id, 'failed', now, { failure_reason: 'The airline could not be reached to confirm this order.' }))
}
