/** Product searches of a trip. */
import { ProblemError } from '../shared/errors.ts'
import { sha256Hex } from '../shared/crypto.ts'
import { searchOutcome } from '../domain/trip-events.ts'
import type { ProductTypeName, SearchSelection } from '../schemas/trip.ts'
import {
  adoptSearch,
  pendingSearch,
  runSearch,
  selectedTypes,
  typesKey,
  withTravellerSearch,
} from '../domain/search.ts'
import type { JobRecord, SearchRecord, TripRecord } from '../ports/records.ts'
import type { SupplierSeatMap } from '../ports/supplier-answers.ts'
import { newJob } from './jobs/job.ts'
import { requestSupplier, type SupplierCall } from './suppliers.ts'
import { Rendered } from '../shared/rendered.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'

/**
 * A search of `types` for the trip by its supplier: run now when the supplier answers within a request (the
 * sandbox airline), or left to a `supplier_search` job when it is a remote API (docs/decisions.md "Searching a
 * remote supplier"): then `found` is the search `in_progress`, and the job completes it.
 */
export async function searchFor(
  ctx: Context,
  { supplier, call }: SupplierCall,
  trip: TripRecord,
  types: ProductTypeName[],
): Promise<{ found: { search: SearchRecord; seatMaps: SupplierSeatMap[] }; jobs: JobRecord[] }> {
  const deps = { clock: ctx.clock, searchId: ctx.ids.uuid() }
  if (!supplier.capabilities.remote)
    return { found: await runSearch(trip, types, { supplier, call, ...deps }), jobs: [] }
  const search = pendingSearch(trip, types, deps)
  // Its lane is the seller's: the search lane shares its workers fairly between sellers.
  return {
    found: { search, seatMaps: [] },
    jobs: [
      newJob(
        ctx,
        { kind: 'supplier_search', payload: { trip_id: trip.trip_id, search_id: search.search_id } },
        undefined,
        trip.seller_id,
      ),
    ],
  }
}

/** Thrown inside a trip write when another request started a search of the trip since this one read it. */
class StartedMeanwhile extends Error {}

export async function startSearch(ctx: Context, p: Principal, tripId: string, selection: SearchSelection) {
  const types = selectedTypes(selection)
  if (types.length === 0)
    throw new ProblemError('validation_error', 'Select at least one product type, e.g. {"bag": {"search": true}}.', [
      { path: '/', message: 'no product type has search: true' },
    ])
  // Requests that arrive together (a browser's parallel calls) each read the trip before any has written: the
  // write checks again, and the one that finds a search started meanwhile starts over, to join it.
  for (let attempt = 0; ; attempt++) {
    try {
      return await startOnce(ctx, p, tripId, types)
    } catch (e) {
      if (!(e instanceof StartedMeanwhile) || attempt >= 2)
        throw e instanceof StartedMeanwhile
          ? new ProblemError('trip_state_conflict', 'The trip is being changed by other requests; retry the request.')
          : e
    }
  }
}

async function startOnce(ctx: Context, p: Principal, tripId: string, types: ProductTypeName[]) {
  const { value } = await ctx.trips.load(p, tripId)
  // One search at a time per trip: asked again while one still runs (the trip's first, or a newer one), the caller joins it.
  const runningId = value.running_search_id ?? (value.search_status === 'in_progress' ? value.search_id : null)
  const running = runningId ? await ctx.store.getSearch(runningId) : undefined
  if (running?.status === 'in_progress' && types.every((t) => running.offers.types.includes(t)))
    return { search_id: running.search_id, status: running.status }
  // A traveller's browser (a trip access token) starts at most so many a minute; the seller's backend is not held to it.
  const counted = (t: TripRecord) => (p.kind === 'access_token' ? withTravellerSearch(t, ctx.clock.now()) : t)
  counted(value)
  // A trip whose supplier cannot serve its seller (a live seller on the sandbox airline) is told so (409), as at creation.
  const { found, jobs } = await searchFor(ctx, await requestSupplier(ctx, p.seller, value), value, types)
  if (found.search.status === 'success') {
    // A search that succeeded becomes the trip's, in the transaction that stores it: its offers are the airline's newer word.
    await ctx.trips.mutate(p, tripId, (t) => ({
      trip: adoptSearch(counted(t), found.search),
      effects: ctx.searches.effects(found),
    }))
  } else if (jobs.length) {
    // Stored with its job; it becomes the trip's when the job has the supplier's answer. Until then it is the one a new request joins.
    await ctx.trips.mutate(p, tripId, (t) => {
      if (t.running_search_id && t.running_search_id !== value.running_search_id) throw new StartedMeanwhile()
      return {
        trip: { ...counted(t), running_search_id: found.search.search_id },
        jobs,
        effects: { search: found.search },
      }
    })
  } else {
    // A failed one is only kept to be read.
    if (p.kind === 'access_token') await ctx.trips.mutate(p, tripId, counted)
    // Its end is on the trip's timeline, with the calls it made, though the trip does not change.
    const ended = { trip_id: tripId, seller_id: p.seller.seller_id, at: ctx.clock.now().toISOString() }
    await ctx.store.putSearch(found.search, undefined, [
      ...ctx.supplierCalls.take(tripId),
      { ...ended, kind: 'search_ended', detail: searchOutcome(found.search) },
    ])
  }
  return { search_id: found.search.search_id, status: found.search.status }
}

/** The search as the API shows it; `types` narrows the products to those types, and leaves out seat maps unless `seat` is one. */
export async function getSearch(
  ctx: Context,
  p: Principal,
  tripId: string,
  searchId: string,
  types?: ProductTypeName[],
) {
  const { value } = await ctx.trips.load(p, tripId)
  return (await ctx.searches.view(value, searchId)).render(types)
}

/**
 * The search body rendered once (an answered search never changes) and kept: repeated reads of a trip's
 * offers cost a lookup. The ETag names the content, so a client's copy is revalidated with a 304.
 */
export async function readSearch(
  ctx: Context,
  p: Principal,
  tripId: string,
  searchId: string,
  types?: ProductTypeName[],
): Promise<Rendered> {
  const { value } = await ctx.trips.load(p, tripId)
  // Keyed by the trip too: a hit skips the view, whose check that the search is this trip's is what
  // keeps another trip's (or seller's) search from being read under this trip's path.
  const key = `${tripId}/${searchId}/${typesKey(types)}`
  let rendered = ctx.searches.rendered.get(key)
  if (!rendered) {
    const view = await ctx.searches.view(value, searchId)
    const json = JSON.stringify(view.render(types))
    rendered = new Rendered(json, `W/"${sha256Hex(json).slice(0, 32)}"`)
    // A search still running (a remote supplier's) changes when its job ends: only an answered one is kept.
    if (view.record.status !== 'in_progress') ctx.searches.rendered.set(key, rendered)
  }
  return rendered
}
