/** Fulfillment, after the seller has charged: the tickets are booked and each ancillary becomes an order. */
import type { FulfillRequest } from '../schemas/fulfillment.ts'
import { tripStateHash } from '../trip.ts'
import { acceptFulfillment } from '../fulfillment.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'
import { newJob } from './jobs/job.ts'

/** Books the tickets, queues an order per ancillary (each a job), answers `queued`. */
export async function fulfill(ctx: Context, p: Principal, tripId: string, req: FulfillRequest) {
  let fulfillment_id = ''
  await ctx.trips.mutate(p, tripId, async (t) => {
    const now = ctx.clock.now()
    const r = acceptFulfillment(t, req, { now, currentHash: tripStateHash(t, now), newId: () => ctx.ids.uuid() })
    fulfillment_id = r.fulfillment.fulfillment_id
    return { trip: r.trip, events: r.events, jobs: r.orders.map((o) => newJob(ctx, { kind: 'fulfill_order', payload: { trip_id: t.trip_id, order_id: o.order_id } })) }
  })
  return { status: 'queued' as const, fulfillment_id }
}
