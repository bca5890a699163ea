/** One order booked with the airline: queued → in_progress → succeeded | failed. */
import { moveOrder } from '../../domain/fulfillment.ts'
import { supplierView } from '../../domain/search.ts'
import { passengerOf } from '../../domain/trip.ts'
import { reofferAfterPriceChange } from '../../domain/validity.ts'
import type { Context } from '../context.ts'
import type { Job } from './job.ts'
import type { Order, TripRecord } from '../../ports/records.ts'
import type { FulfillOutcome } from '../../ports/supplier.ts'
import type { BasketItem } from '../../schemas/basket.ts'
import { tripSupplier } from '../suppliers.ts'
import type { JobLease } from './lease.ts'

type Payload = Extract<Job, { kind: 'fulfill_order' }>['payload']

export async function run(ctx: Context, { trip_id, order_id }: Payload, lease: JobLease): Promise<Date | undefined> {
  const loaded = await ctx.trips.read(trip_id)
  const order = loaded?.value.orders[order_id]
  if (!loaded || !order || order.status === 'succeeded' || order.status === 'failed') return undefined
  const trip = await ctx.trips.mutate(null, trip_id, (t) => moveOrder(t, order_id, 'in_progress', ctx.clock.now()))
  const item = trip.basket[order.basket_item_id]
  const moved = trip.orders[order_id]
  // An order names an item of its own trip and the trip keeps its orders: missing, the record is corrupt.
  if (!item || !moved) throw new Error(`order ${order_id} of trip ${trip_id} has lost its basket item`)
  const { supplier, call } = await tripSupplier(ctx, trip)
  const booked = await supplier.fulfill(call, supplierView(trip), moved, {
    item,
    offer_key: trip.offer_keys[item.product_id],
    booked_before: bookedBefore(trip, moved, item),
    // A purchase whose answer was lost is only looked for from then on: never sent a second time.
    ...(moved.purchase_unknown_since ? { purchase_sent: true } : {}),
    // Right before a purchase: this run still owns the job, and the purchase is noted as sent first, so a
    // run after this one (this process dying, its lease lapsing) looks for it instead of buying again.
    beforePurchase: async () => {
      await lease.hold()
      const at = ctx.clock.now().toISOString()
      await ctx.trips.mutate(null, trip_id, (t) => {
        const o = t.orders[order_id]
        return o && !o.purchase_unknown_since
          ? { ...t, orders: { ...t.orders, [order_id]: { ...o, purchase_unknown_since: at } } }
          : t
      })
    },
  })
  return settle(ctx, trip_id, moved, booked)
}

/** Where the supplier's outcome leaves the order; when to look again if it is not final yet. */
async function settle(ctx: Context, tripId: string, order: Order, booked: FulfillOutcome): Promise<Date | undefined> {
  const now = ctx.clock.now()
  const orderId = order.order_id
  if (booked.ok === 'waiting') return new Date(now.getTime() + ctx.config.waitPollMs)
  if (booked.ok === 'unknown') {
    const since = order.purchase_unknown_since ?? now.toISOString()
    const refs = { ...order.supplier_refs, ...booked.refs }
    // Looked for long enough: the seller settles it with the supplier, who may or may not hold the purchase.
    if (now.getTime() - Date.parse(since) >= ctx.config.reconcileWindowMs) {
      await ctx.trips.mutate(null, tripId, (t) =>
        moveOrder(t, orderId, 'failed', now, { failure_reason: 'supplier_outcome_unknown', supplier_refs: refs }),
      )
      return undefined
    }
    if (!order.purchase_unknown_since || booked.refs) {
      await ctx.trips.mutate(null, tripId, (t) => {
        const o = t.orders[orderId]
        return o
          ? { ...t, orders: { ...t.orders, [orderId]: { ...o, purchase_unknown_since: since, supplier_refs: refs } } }
          : t
      })
    }
    return new Date(now.getTime() + ctx.config.reconcileMs)
  }
  if (booked.ok === true) {
    await ctx.trips.mutate(null, tripId, (t) =>
      moveOrder(t, orderId, 'succeeded', now, {
        supplier_reference: booked.reference,
        ...(booked.refs ? { supplier_refs: booked.refs } : {}),
      }),
    )
    return undefined
  }
  await ctx.trips.mutate(null, tripId, (t) => {
    const failure = { failure_reason: booked.reason, ...(booked.refs ? { supplier_refs: booked.refs } : {}) }
    if (!booked.price) return moveOrder(t, orderId, 'failed', now, failure)
    // The airline's price changed: the item is offered again at it, and the order says at what price.
    const reoffered = reofferAfterPriceChange(t, order.basket_item_id, booked.price, {
      now,
      holdWindow: ctx.config.holdWindow,
    })
    const failed = moveOrder(reoffered, orderId, 'failed', now, {
      ...failure,
      current_price: reoffered.basket[order.basket_item_id]!.price,
    })
    return failed.changed ? failed : t
  })
  return undefined
}

/**
 * Units of the same product for the same passenger that the trip's orders made before this one hold
 * (succeeded, or still on their way): what a supplier counts before this order's units (SupplierItem.booked_before).
 */
function bookedBefore(trip: TripRecord, order: Order, item: BasketItem): number {
  let n = 0
  for (const o of Object.values(trip.orders)) {
    if (o.order_id === order.order_id || o.status === 'failed' || o.status === 'cancelled' || o.status === 'cancelling')
      continue
    if (o.created_at > order.created_at || (o.created_at === order.created_at && o.order_id > order.order_id)) continue
    const other = trip.basket[o.basket_item_id]
    if (other?.product_id === item.product_id && passengerOf(other) === passengerOf(item)) n += other.quantity
  }
  return n
}

/** An order given up fails, so the seller sees it and can refund. */
export async function giveUp(ctx: Context, { trip_id, order_id }: Payload): Promise<void> {
  const now = ctx.clock.now()
  await ctx.trips.mutate(null, trip_id, (t) =>
    moveOrder(t, order_id, 'failed', now, {
      failure_reason: 'The airline could not be reached to confirm this order.',
    }),
  )
}
