/** Orders that waited for their tickets too long (TICKETING_TIMEOUT_HOURS) fail, so the seller refunds them. */
import { moveOrder, type RaisedEvent } from '../../domain/fulfillment.ts'
import type { Context } from '../context.ts'
import type { Job } from './job.ts'

type Payload = Extract<Job, { kind: 'ticketing_timeout' }>['payload']

/** Due at the fulfillment's deadline: its orders still `awaiting_ticketing` fail; those since issued are left alone. */
export async function run(ctx: Context, { trip_id, fulfillment_id }: Payload): Promise<undefined> {
  await ctx.trips.mutate(null, trip_id, (t) => {
    const ids = t.fulfillments[fulfillment_id]?.order_ids ?? []
    const now = ctx.clock.now()
    let trip = t
    const events: RaisedEvent[] = []
    for (const id of ids) {
      if (trip.orders[id]?.status !== 'awaiting_ticketing') continue
      const moved = moveOrder(trip, id, 'failed', now, { failure_reason: 'ticketing_timeout' })
      trip = moved.trip
      events.push(...moved.events)
    }
    return events.length ? { trip, events } : t
  })
  return undefined
}

/** Nothing to give up: the run only moves orders within the trip, and a failed store call is retried. */
export async function giveUp(ctx: Context, payload: Payload): Promise<void> {
  await run(ctx, payload)
}
