/** The basket operations: read it, change it, have it revalidated, accept a new price. */
import type { TripRecord, Versioned } from '../ports/records.ts'
import type { BasketChangeRequest } from '../schemas/basket.ts'
import { basketView, tripStateHash } from '../domain/trip.ts'
import type { SearchView } from '../domain/search.ts'
import type { Rendered } from '../shared/rendered.ts'
import * as basket from '../domain/basket.ts'
import * as validity from '../domain/validity.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'
import { startCheck } from './jobs/basket-check.ts'

export async function getBasket(ctx: Context, p: Principal, tripId: string) {
  const { value } = await ctx.trips.load(p, tripId)
  return basketView(value, ctx.clock.now())
}

/**
 * The basket rendered, with its ETag: the trip's version and state hash, which together change whenever
 * the body does (a write bumps the version; an item passing valid_to changes the hash). So the rendered
 * body is kept under it, and a widget polling an unchanged basket costs one small query.
 */
export async function readBasket(ctx: Context, p: Principal, tripId: string): Promise<Rendered> {
  return renderBasket(ctx, await ctx.trips.load(p, tripId), ctx.clock.now())
}

/** The basket of a trip as read at `now`, rendered once per version and state hash and kept until the next (shared by GET and the event stream). */
export function renderBasket(ctx: Pick<Context, 'searches'>, trip: Versioned<TripRecord>, now: Date): Rendered {
  return ctx.searches.renderOnce(`${trip.value.trip_id}/basket`, versionEtag(trip, now), () =>
    JSON.stringify(basketView(trip.value, now)),
  )
}

/** What names a trip's state at `now` as an ETag: its version, and its state hash (an item past valid_to changes it). */
export function versionEtag({ value, version }: Versioned<TripRecord>, now: Date): string {
  return `W/"${version}.${tripStateHash(value, now).slice(0, 16)}"`
}

export function addToBasket(ctx: Context, p: Principal, tripId: string, lines: BasketChangeRequest) {
  return changeBasket(ctx, p, tripId, (t, s, c) => basket.addToBasket(t, s, lines, c))
}

export function replaceBasket(ctx: Context, p: Principal, tripId: string, lines: BasketChangeRequest) {
  return changeBasket(ctx, p, tripId, (t, s, c) => basket.replaceBasket(t, s, lines, c))
}

export function removeFromBasket(ctx: Context, p: Principal, tripId: string, itemId: string) {
  return changeBasket(ctx, p, tripId, (t, _s, c) => basket.removeFromBasket(t, itemId, c))
}

/** Starts revalidating the basket in the background: items not yet bought become `checking`; poll GET .../basket. */
export async function checkBasket(ctx: Context, p: Principal, tripId: string) {
  const trip = await ctx.trips.mutate(p, tripId, (t) => startCheck(ctx, t, validity.checkableItems(t)))
  return basketView(trip, ctx.clock.now())
}

export async function acceptItem(ctx: Context, p: Principal, tripId: string, itemId: string) {
  const trip = await ctx.trips.mutate(p, tripId, (t) => validity.acceptPrice(t, itemId, ctx.clock.now()))
  return basketView(trip, ctx.clock.now())
}

/**
 * The basket changed is answered rendered as a GET of that version would be, and kept: the event stream's
 * push of the change and the next GET send the same body instead of rendering it again.
 */
async function changeBasket(
  ctx: Context,
  p: Principal,
  tripId: string,
  change: (t: TripRecord, s: SearchView | undefined, c: basket.BasketContext) => TripRecord,
): Promise<Rendered> {
  const trip = await ctx.trips.mutateVersioned(p, tripId, async (t) => {
    const search = t.search_id ? await ctx.searches.view(t, t.search_id) : undefined
    return change(t, search, { now: ctx.clock.now(), holdWindow: ctx.config.holdWindow, newId: () => ctx.ids.uuid() })
  })
  return renderBasket(ctx, trip, ctx.clock.now())
}
