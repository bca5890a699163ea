/** The basket check: items wait in `checking` while the supplier revalidates them in the background. */
import type { TripRecord } from '../../ports/records.ts'
import * as validity from '../../domain/validity.ts'
import { supplierView } from '../../domain/search.ts'
import type { Context } from '../context.ts'
import type { Change } from '../trip-cache.ts'
import { newJob, type Job } from './job.ts'
import { tripSupplier } from '../suppliers.ts'

type Payload = Extract<Job, { kind: 'basket_check' }>['payload']

/** Items into `checking`, with the job that asks the supplier. */
export function startCheck(ctx: Context, trip: TripRecord, itemIds: string[]): Change {
  if (itemIds.length === 0) return trip
  const now = ctx.clock.now()
  const check_id = ctx.ids.uuid()
  return {
    trip: validity.startCheck(trip, itemIds, check_id, now),
    jobs: [
      newJob(ctx, {
        kind: 'basket_check',
        payload: { trip_id: trip.trip_id, check_id, started_at: now.toISOString() },
      }),
    ],
  }
}

export async function run(ctx: Context, { trip_id, check_id, started_at }: Payload): Promise<Date | undefined> {
  const now = ctx.clock.now()
  const trip = (await ctx.trips.read(trip_id))?.value
  const items = trip ? validity.itemsOfCheck(trip, check_id) : []
  if (!trip || items.length === 0) return undefined
  const { supplier, call } = await tripSupplier(ctx, trip)
  const answer = await supplier.recheck(
    call,
    supplierView(trip),
    items.map((item) => ({ item, offer_key: trip.offer_keys[item.product_id] })),
  )
  // The supplier's answer takes delayMs from the start of the check; until then the items stay `checking`.
  const readyAt = answer.delayMs ? Date.parse(started_at) + answer.delayMs : 0
  if (readyAt > now.getTime()) return new Date(readyAt)
  await ctx.trips.mutate(null, trip_id, (t) =>
    validity.finishCheck(t, check_id, answer.results, { now: ctx.clock.now(), holdWindow: ctx.config.holdWindow }),
  )
  return undefined
}

/** A check given up leaves its items `invalid`. */
export async function giveUp(ctx: Context, { trip_id, check_id }: Payload): Promise<void> {
  const now = ctx.clock.now()
  await ctx.trips.mutate(null, trip_id, (t) => validity.abandonCheck(t, check_id, now))
}
