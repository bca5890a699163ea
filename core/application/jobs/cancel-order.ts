/** One order cancelled with the airline: cancelling → cancelled (with its refund) | back to succeeded. */
import { finishCancel } from '../../domain/cancellation.ts'
import { supplierView } from '../../domain/search.ts'
import type { Context } from '../context.ts'
import type { Job } from './job.ts'
import { tripSupplier } from '../suppliers.ts'

type Payload = Extract<Job, { kind: 'cancel_order' }>['payload']

/**
 * Asks the airline, then records its answer. A worker that dies between the two leaves the job to run
 * again: the airline's cancel is idempotent per order (the port's contract), so the order still ends
 * once, with the first answer.
 */
export async function run(ctx: Context, { trip_id, order_id }: Payload): Promise<undefined> {
  const trip = (await ctx.trips.read(trip_id))?.value
  const order = trip?.orders[order_id]
  if (!trip || !order || order.status !== 'cancelling') return undefined
  const item = trip.basket[order.basket_item_id]
  if (!item) throw new Error(`order ${order_id} of trip ${trip_id} has lost its basket item`)
  const { supplier, call } = await tripSupplier(ctx, trip)
  const outcome = await supplier.cancel(call, supplierView(trip), { order, item }, ctx.clock.now())
  await ctx.trips.mutate(null, trip_id, (t) => finishCancel(t, order_id, outcome, ctx.clock.now()))
  return undefined
}

/** A cancellation the airline never answered: the order stays booked, and says why. */
export async function giveUp(ctx: Context, { trip_id, order_id }: Payload): Promise<void> {
  await ctx.trips.mutate(null, trip_id, (t) =>
    finishCancel(
      t,
      order_id,
      { ok: false, reason: 'The airline could not be reached to cancel this order.' },
      ctx.clock.now(),
    ),
  )
}
