import type { JobRecord, TripRecord } from '../../ports/records.ts'
import type { RaisedEvent } from '../../domain/fulfillment.ts'
import type { WebhookEvent } from '../../schemas/fulfillment.ts'
import type { Ports } from '../dependencies.ts'
import { newJob } from './job.ts'

/** One webhook job per subscription of the trip's seller to each event. */
export async function eventJobs(ports: Ports, trip: TripRecord, events: RaisedEvent[]): Promise<JobRecord[]> {
  if (events.length === 0) return []
  const subs = await ports.store.listSubscriptions(trip.seller_id)
  const now = ports.clock.now().toISOString()
  return events.flatMap((e) => {
    const event: WebhookEvent = {
      event_id: ports.ids.uuid(),
      event_name: e.event_name,
      created_at: now,
      trip_id: trip.trip_id,
      ...(e.fulfillment_id ? { fulfillment_id: e.fulfillment_id } : {}),
      ...(e.cancellation_id ? { cancellation_id: e.cancellation_id } : {}),
      data: e.data,
    }
    return subs
      .filter((s) => s.event_name === e.event_name)
      .map((s) =>
        newJob(ports, {
          kind: 'webhook',
          payload: { seller_id: s.seller_id, subscription_id: s.subscription_id, event },
        }),
      )
  })
}
