/** Creating, reading and updating a trip. */
import type { TripEffects, TripRecord } from '../ports/records.ts'
import { ProblemError } from '../shared/errors.ts'
import type { TripCreateRequest, TripPatchRequest } from '../schemas/trip.ts'
import { buildTrip, applyTripPatch, tripRepresentation, tripStateHash, withStateHash } from '../domain/trip.ts'
import { Serialized } from '../shared/rendered.ts'
import { adoptSearch, offerInputs, selectedTypes } from '../domain/search.ts'
import * as validity from '../domain/validity.ts'
import { isFulfilled } from '../domain/fulfillment.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'
import { accessTokenFor, newSession } from './sessions.ts'
import { startCheck } from './jobs/basket-check.ts'
import type { IdempotencyClaim } from './idempotency.ts'
import { sellerSupplier, tripSupplier } from './suppliers.ts'
import { searchFor } from './searches.ts'
import { versionEtag } from './baskets.ts'
import { tripEvents } from '../domain/trip-events.ts'

export async function createTrip(ctx: Context, p: Principal, req: TripCreateRequest, claim?: IdempotencyClaim) {
  const now = ctx.clock.now()
  const trip = buildTrip(req, {
    sellerId: p.seller.seller_id,
    sandbox: p.seller.sandbox,
    clock: ctx.clock,
    ids: ctx.ids,
    holdWindow: ctx.config.holdWindow,
  })
  trip.supplier = p.seller.supplier.name
  const types = selectedTypes(req.search)
  // The seller's supplier searches now (the sandbox airline), or a job asks it (a remote API): either way
  // the trip is answered without waiting for an airline's network.
  const searched = types.length ? await searchFor(ctx, await sellerSupplier(ctx, p.seller), trip, types) : null
  const session = newSession(ctx, trip, ctx.ids.uuid())
  // One transaction: the trip, its search (and the seat maps not stored yet) or the job that runs it, the session's refresh token.
  const stored = withStateHash(searched ? adoptSearch(trip, searched.found.search) : trip, now)
  // The contract shows an empty basket in the create response; the ticket items are there from the first read.
  const created = tripRepresentation(stored, now, { ...(await session.tokens()), emptyBasket: true })
  const effects: TripEffects = {
    ...ctx.searches.effects(searched?.found ?? null),
    ...(searched?.jobs.length ? { jobs: searched.jobs } : {}),
    refreshToken: session.record,
    idempotency: claim?.completion(created),
    // Its timeline starts here: created, its search started (and answered, from an in-process supplier), and the calls that search made.
    events: [
      ...ctx.supplierCalls.take(trip.trip_id),
      ...tripEvents(null, stored, now.toISOString(), searched?.found.search),
    ],
  }
  await ctx.store.insertTrip(stored, effects)
  ctx.searches.stored(effects)
  ctx.trips.keep({ value: stored, version: 1 })
  return created
}

/**
 * The trip as GET reads it. All but its access token (the caller's own, or one signed for an API key) is
 * rendered once per version and state hash, as the basket is (baskets.ts `renderBasket`), so an unchanged
 * trip is not turned into 5 KB of JSON again on every read; the token goes in where the representation
 * puts it, after the state hash.
 */
export async function readTrip(ctx: Context, p: Principal, tripId: string): Promise<Serialized> {
  const loaded = await ctx.trips.load(p, tripId)
  const now = ctx.clock.now()
  const hash = tripStateHash(loaded.value, now)
  const rest = ctx.searches.renderOnce(`${tripId}/trip`, versionEtag(loaded, now), () => {
    const { trip_id: _id, trip_state_hash: _hash, ...fields } = tripRepresentation(loaded.value, now)
    return JSON.stringify(fields)
  })
  const head = {
    trip_id: loaded.value.trip_id,
    trip_state_hash: hash,
    trip_access_token: await accessTokenFor(ctx, p, loaded.value),
  }
  // rest.json is an object with fields (journeys, passengers… are always there): its "{" gives way to head's.
  return new Serialized(`${JSON.stringify(head).slice(0, -1)},${rest.json.slice(1)}`)
}

/**
 * Passenger data changes; the items that depend on the changed passengers are checked again. A change of
 * what the airline answers a search by (age, type, lap, loyalty) also runs a new search of the same types,
 * which becomes the trip's (docs/decisions.md "Live basket updates"): offers follow the passengers, and the widget
 * learns of it from the trip's event stream. Basket items of the old search keep their ids and prices
 * until their check says otherwise.
 */
export async function patchTrip(ctx: Context, p: Principal, tripId: string, patch: TripPatchRequest) {
  const trip = await ctx.trips.mutate(p, tripId, async (t) => {
    if (isFulfilled(t))
      throw new ProblemError(
        'trip_state_conflict',
        'The trip has been fulfilled; passengers can no longer change here.',
      )
    const now = ctx.clock.now()
    const { trip: patched, changedPassengers } = applyTripPatch(t, patch, now)
    const checked = startCheck(
      ctx,
      { ...patched, updated_at: now.toISOString() },
      validity.itemsOfPassengers(patched, changedPassengers),
    )
    const search = await researched(ctx, t, patched)
    if (!search) return checked
    const { trip: next, jobs = [] } = 'trip' in checked ? checked : { trip: checked }
    // As a search the seller starts (searches.ts): the new offers become the trip's now, or when its job has them.
    const { found } = search
    if (found.search.status === 'success')
      return { trip: adoptSearch(next, found.search), jobs, effects: ctx.searches.effects(found) }
    return { trip: next, jobs: [...jobs, ...search.jobs], effects: { search: found.search } }
  })
  return tripRepresentation(trip, ctx.clock.now(), { trip_access_token: await accessTokenFor(ctx, p, trip) })
}

/**
 * A new search for the patched trip when what offers depend on changed and it has a search; null otherwise,
 * or when it failed. A remote supplier's search is left to its job (`jobs`), which replaces the offers when
 * it has them.
 */
async function researched(ctx: Context, before: TripRecord, patched: TripRecord) {
  if (!before.search_id || offerInputs(before) === offerInputs(patched)) return null
  const types = (await ctx.searches.view(before, before.search_id).catch(() => null))?.record.offers.types
  if (!types?.length) return null
  const { found, jobs } = await searchFor(ctx, await tripSupplier(ctx, patched), patched, types)
  // A supplier outage keeps the trip on its current offers; the checks started above still run.
  return found.search.status === 'failed' ? null : { found, jobs }
}
