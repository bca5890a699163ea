/** Steps of the seller's integration flow over HTTP, shared by the server suites. */
import assert from 'node:assert/strict'
import { basic, body, type Built, type CreatedTrip } from './build.ts'

export interface SearchProduct {
  product_id: string
  product_type: string
  display_name: string
  product_details: Record<string, unknown>
  price_and_availability: Record<string, { available: boolean; quantity_limit: number; reason?: string }>
}

export async function readSearch(t: Built, trip: CreatedTrip, auth = basic(t.apiKey)) {
  assert.ok(trip.search_id, 'the trip was created with a search')
  const res = await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`, headers: { authorization: auth } })
  assert.equal(res.statusCode, 200, res.body)
  return body<{ search_id: string; status: string; results: { products: Record<string, Record<string, SearchProduct>>; seatmaps: unknown[] } }>(res)
}

export const productsOf = (search: Awaited<ReturnType<typeof readSearch>>, type: string): SearchProduct[] =>
  Object.values(search.results.products[type] ?? {})

/** A paid checked bag on the first journey that passenger `p1` may buy. */
export function checkedBag(search: Awaited<ReturnType<typeof readSearch>>, passengerId = 'p1'): SearchProduct {
  const bag = productsOf(search, 'bag').find((p) => p.product_details.checked === true && p.price_and_availability[passengerId]?.available)
  assert.ok(bag, 'the sandbox offers a checked bag')
  return bag
}

/** Seats on the first segment that adults may take. */
export function seats(search: Awaited<ReturnType<typeof readSearch>>, passengerId = 'p1'): SearchProduct[] {
  const all = productsOf(search, 'seat').filter((p) => p.price_and_availability[passengerId]?.available)
  const segment = all[0]?.product_details.segment_id
  const list = all.filter((p) => p.product_details.segment_id === segment)
  assert.ok(list.length >= 2, 'the sandbox offers seats')
  return list
}

export async function changeBasket(t: Built, trip: CreatedTrip, method: 'PATCH' | 'PUT', lines: unknown, auth = basic(t.apiKey)) {
  return t.app.inject({ method, url: `/v2.2/trip/${trip.trip_id}/basket`, headers: { authorization: auth }, payload: lines as object })
}

export async function readBasket(t: Built, trip: CreatedTrip, auth = basic(t.apiKey)) {
  const res = await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/basket`, headers: { authorization: auth } })
  assert.equal(res.statusCode, 200, res.body)
  return body<{ trip_state_hash: string; basket: Record<string, any>; journeys: any[] }>(res)
}
