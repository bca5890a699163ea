/** Product searches of a trip. */
import { ProblemError } from '../errors.ts'
import { sha256Hex } from '../crypto.ts'
import type { ProductTypeName, SearchSelection } from '../schemas/trip.ts'
import { runSearch, selectedTypes, typesKey } from '../search.ts'
import { Rendered } from '../rendered.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'

export async function startSearch(ctx: Context, p: Principal, tripId: string, selection: SearchSelection) {
  const types = selectedTypes(selection)
  if (types.length === 0) throw new ProblemError('validation_error', 'Select at least one product type, e.g. {"bag": {"search": true}}.', [{ path: '/', message: 'no product type has search: true' }])
  const { value } = await ctx.trips.load(p, tripId)
  const found = await runSearch(value, types, { supplier: ctx.supplier, clock: ctx.clock, searchId: ctx.ids.uuid() })
  // A search that succeeded becomes the trip's, in the transaction that stores it; a failed one is only kept to be read.
  if (found.search.status === 'success') {
    // Its offers are the airline's newer word: what earlier checks found of the products no longer holds.
    await ctx.trips.mutate(p, tripId, ({ checked_offers: _c, ...t }) => ({ trip: { ...t, search_id: found.search.search_id }, effects: ctx.searches.effects(found) }))
  } else {
    await ctx.store.putSearch(found.search)
  }
  return { search_id: found.search.search_id, status: found.search.status }
}

/** The search as the API shows it; `types` narrows the products to those types, and leaves out seat maps unless `seat` is one. */
export async function getSearch(ctx: Context, p: Principal, tripId: string, searchId: string, types?: ProductTypeName[]) {
  const { value } = await ctx.trips.load(p, tripId)
  return (await ctx.searches.view(value, searchId)).render(types)
}

/**
 * The search body rendered once (a search never changes) and kept: repeated reads of a trip's offers cost
 * a lookup. The ETag names the content, so a client's copy is revalidated with a 304.
 */
export async function readSearch(ctx: Context, p: Principal, tripId: string, searchId: string, types?: ProductTypeName[]): Promise<Rendered> {
  const { value } = await ctx.trips.load(p, tripId)
  // Keyed by the trip too: a hit skips the view, whose check that the search is this trip's is what
  // keeps another trip's (or seller's) search from being read under this trip's path.
  const key = `${tripId}/${searchId}/${typesKey(types)}`
  let rendered = ctx.searches.rendered.get(key)
  if (!rendered) {
    const json = JSON.stringify((await ctx.searches.view(value, searchId)).render(types))
    rendered = new Rendered(json, `W/"${sha256Hex(json).slice(0, 32)}"`)
    ctx.searches.rendered.set(key, rendered)
  }
  return rendered
}
