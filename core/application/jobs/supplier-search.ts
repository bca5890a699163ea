/**
 * A remote supplier's search (docs/decisions.md "Searching a remote supplier"): the trip was answered with the
 * search `in_progress`; this job asks the supplier and completes it, `success` with its offers or `failed`
 * with a `failure_reason`. A time-out or an outage is retried with backoff (a few tries, then the search
 * fails with that reason); a refusal fails it at once. Its end is a write of the trip, so the trip's event
 * streams send `event: search` and the widgets show the offers (or fire onBagFail/onSeatFail).
 */
import { adoptSearch, failedSearch, runSearch } from '../../domain/search.ts'
import type { SearchRecord } from '../../ports/records.ts'
import type { SupplierSeatMap } from '../../ports/supplier-answers.ts'
import { isSupplierError } from '../../ports/supplier-errors.ts'
import type { Context } from '../context.ts'
import { tripSupplier } from '../suppliers.ts'
import type { Job } from './job.ts'

type Payload = Extract<Job, { kind: 'supplier_search' }>['payload']

export async function run(ctx: Context, payload: Payload): Promise<undefined> {
  const pending = await pendingOf(ctx, payload)
  if (!pending) return undefined
  const { trip, search } = pending
  let found: { search: SearchRecord; seatMaps: SupplierSeatMap[] }
  try {
    found = await runSearch(
      trip,
      search.offers.types,
      { ...(await tripSupplier(ctx, trip)), clock: ctx.clock, searchId: search.search_id },
      { retry: true },
    )
  } catch (e) {
    // What may pass is tried again by the runner; what will not (no credentials) fails the search now.
    if (isSupplierError(e) && !e.retryable)
      found = {
        search: failedSearch(trip, search.offers.types, { clock: ctx.clock, searchId: search.search_id }, e),
        seatMaps: [],
      }
    else throw e
  }
  await complete(ctx, payload, found)
  return undefined
}

/** The runner gave up (the supplier timed out or was down every time): the search fails with the last reason. */
export async function giveUp(ctx: Context, payload: Payload, error: unknown): Promise<void> {
  const pending = await pendingOf(ctx, payload)
  if (!pending) return
  await complete(ctx, payload, {
    search: failedSearch(
      pending.trip,
      pending.search.offers.types,
      { clock: ctx.clock, searchId: payload.search_id },
      error,
    ),
    seatMaps: [],
  })
}

/** The trip and its search while the search is still `in_progress`; undefined once either is gone or done (a job run again). */
async function pendingOf(ctx: Context, { trip_id, search_id }: Payload) {
  const [trip, search] = await Promise.all([ctx.trips.read(trip_id), ctx.store.getSearch(search_id)])
  if (!trip || !search || search.status !== 'in_progress') return undefined
  return { trip: trip.value, search }
}

/**
 * Stores the answer over the pending search, with the trip: the trip's current search ends (a new trip's
 * first one), or a new search that succeeded becomes the trip's; a new one that failed is only kept to be read.
 */
async function complete(
  ctx: Context,
  { trip_id, search_id }: Payload,
  found: { search: SearchRecord; seatMaps: SupplierSeatMap[] },
) {
  const effects = ctx.searches.effects(found)
  await ctx.trips.mutate(null, trip_id, (t) => {
    const adopt = t.search_id === search_id || found.search.status === 'success'
    const { running_search_id: running, ...rest } = t
    // It runs no more: the next request starts a search of its own.
    const ended = running === search_id ? rest : t
    return { trip: adopt ? adoptSearch(ended, found.search) : { ...ended }, effects }
  })
}
