/** Fulfillment, after the seller has charged: the tickets are booked and each ancillary becomes an order. */
import type { FulfillRequest } from '../schemas/fulfillment.ts'
import { tripStateHash } from '../domain/trip.ts'
import { acceptFulfillment } from '../domain/fulfillment.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'
import { newJob } from './jobs/job.ts'
import type { IdempotencyClaim } from './idempotency.ts'

const answer = (fulfillment_id: string) => ({ status: 'queued' as const, fulfillment_id })

/**
 * Books the tickets (first fulfill) and queues an order per ancillary not yet ordered, each a job; orders
 * waiting for their tickets get a deadline instead. Answers `queued`.
 */
export async function fulfill(
  ctx: Context,
  p: Principal,
  tripId: string,
  req: FulfillRequest,
  claim?: IdempotencyClaim,
) {
  let fulfillment_id = ''
  await ctx.trips.mutate(p, tripId, async (t) => {
    const now = ctx.clock.now()
    // Unknown here (a supplier no longer offered): the numbers are asked for, and its orders fail on their own.
    const findsBookingByLocator =
      ctx.suppliers.get(t.supplier ?? 'sandbox')?.capabilities.findsBookingByLocator ?? false
    const r = acceptFulfillment(t, req, {
      now,
      currentHash: tripStateHash(t, now),
      newId: () => ctx.ids.uuid(),
      findsBookingByLocator,
    })
    fulfillment_id = r.fulfillment.fulfillment_id
    const jobs = r.queued.map((o) =>
      newJob(ctx, { kind: 'fulfill_order', payload: { trip_id: t.trip_id, order_id: o.order_id } }),
    )
    if (r.awaiting) {
      const deadline = new Date(now.getTime() + ctx.config.ticketingTimeoutHours * 3_600_000)
      jobs.push(newJob(ctx, { kind: 'ticketing_timeout', payload: { trip_id: t.trip_id, fulfillment_id } }, deadline))
    }
    return { trip: r.trip, events: r.events, jobs, effects: { idempotency: claim?.completion(answer(fulfillment_id)) } }
  })
  return answer(fulfillment_id)
}
