/** Steps of the seller's integration flow over HTTP, shared by the server suites. */
import assert from 'node:assert/strict'
import { basic, body, createTrip, tripPayload, type Built, type CreatedTrip } from './build.ts'

export interface SearchProduct {
  product_id: string
  product_type: string
  display_name: string
  product_details: Record<string, unknown>
  price_and_availability: Record<string, { available: boolean; quantity_limit: number; reason?: string }>
}

export async function readSearch(t: Built, trip: CreatedTrip, auth = basic(t.apiKey)) {
  assert.ok(trip.search_id, 'the trip was created with a search')
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`,
    headers: { authorization: auth },
  })
  assert.equal(res.statusCode, 200, res.body)
  return body<{
    search_id: string
    status: string
    results: { products: Record<string, Record<string, SearchProduct>>; seatmaps: unknown[] }
  }>(res)
}

export const productsOf = (search: Awaited<ReturnType<typeof readSearch>>, type: string): SearchProduct[] =>
  Object.values(search.results.products[type] ?? {})

/** A paid checked bag on the first journey that passenger `p1` may buy. */
export function checkedBag(search: Awaited<ReturnType<typeof readSearch>>, passengerId = 'p1'): SearchProduct {
  const bag = productsOf(search, 'bag').find(
    (p) => p.product_details.checked === true && p.price_and_availability[passengerId]?.available,
  )
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

export async function changeBasket(
  t: Built,
  trip: CreatedTrip,
  method: 'PATCH' | 'PUT',
  lines: unknown,
  auth = basic(t.apiKey),
) {
  return t.app.inject({
    method,
    url: `/v2.2/trip/${trip.trip_id}/basket`,
    headers: { authorization: auth },
    payload: lines as object,
  })
}

export async function readBasket(t: Built, trip: CreatedTrip, auth = basic(t.apiKey)) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2.2/trip/${trip.trip_id}/basket`,
    headers: { authorization: auth },
  })
  assert.equal(res.statusCode, 200, res.body)
  return body<{ trip_state_hash: string; basket: Record<string, any>; journeys: any[] }>(res)
}

// ---------------------------------------------------------------- validity and fulfillment

export const CONTACT = {
  contact_details_type: 'passenger',
  passenger_id: 'p1',
  email: 'ada@example.com',
  phone_number: '+44 20 7946 0000',
  address: {
    city: 'London',
    country: 'GB',
    postal_code: 'N1 9GU',
    street_address_1: "1 King's Boulevard",
    street_address_2: null,
  },
}

/** The passengers of `tripPayload` (two adults and a lap infant) as a fulfill request names them. */
export const FULFILL_PASSENGERS = [
  { passenger_id: 'p1', first_names: 'Ada', surname: 'Lovelace', date_of_birth: '1985-12-10', passenger_type: 'adult' },
  {
    passenger_id: 'p2',
    first_names: 'Charles',
    surname: 'Babbage',
    date_of_birth: '1981-12-26',
    passenger_type: 'adult',
  },
  {
    passenger_id: 'p3',
    first_names: 'Byron',
    surname: 'Lovelace',
    date_of_birth: '2026-06-01',
    passenger_type: 'infant',
  },
]

/** A fulfill request body for a trip of `tripPayload`: every passenger and ticket, booked. */
export function fulfillRequest(trip: CreatedTrip, tripStateHash: string, over: Record<string, unknown> = {}) {
  const tickets = (trip.tickets as Array<{ ticket_id: string }>).map((tk, i) => ({
    ticket_id: tk.ticket_id,
    access_details: { record_locator: `ABC12${i}`, ticket_number: `125000000000${i}` },
    status: 'booked',
  }))
  return {
    trip_state_hash: tripStateHash,
    contact_details: CONTACT,
    passengers: FULFILL_PASSENGERS,
    tickets,
    payment_details: { payment_type: 'service_settlement' },
    ...over,
  }
}

export async function fulfill(t: Built, trip: CreatedTrip, payload: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: `/v2.2/trip/${trip.trip_id}/fulfill`,
    headers: { authorization: basic(t.apiKey), ...headers },
    payload: payload as object,
  })
}

export async function checkBasket(t: Built, trip: CreatedTrip, auth = basic(t.apiKey)) {
  return t.app.inject({
    method: 'POST',
    url: `/v2.2/trip/${trip.trip_id}/basket/check`,
    headers: { authorization: auth },
  })
}

export async function acceptItem(t: Built, trip: CreatedTrip, itemId: string, auth = basic(t.apiKey)) {
  return t.app.inject({
    method: 'POST',
    url: `/v2.2/trip/${trip.trip_id}/basket/${itemId}/accept`,
    headers: { authorization: auth },
  })
}

export async function patchTrip(t: Built, trip: CreatedTrip, payload: unknown, auth = basic(t.apiKey)) {
  return t.app.inject({
    method: 'PATCH',
    url: `/v2.2/trip/${trip.trip_id}`,
    headers: { authorization: auth },
    payload: payload as object,
  })
}

export async function readTrip(t: Built, trip: CreatedTrip, auth = basic(t.apiKey)) {
  const res = await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}`, headers: { authorization: auth } })
  assert.equal(res.statusCode, 200, res.body)
  return body<Record<string, any>>(res)
}

/** Adds lines to the basket and returns the basket read shape. */
export async function addItems(
  t: Built,
  trip: CreatedTrip,
  lines: Array<{ product_id: string; passenger_id: string; quantity?: number }>,
) {
  const res = await changeBasket(
    t,
    trip,
    'PATCH',
    lines.map((l) => ({ quantity: 1, ...l })),
  )
  assert.equal(res.statusCode, 200, res.body)
  return body<{ trip_state_hash: string; basket: Record<string, any> }>(res)
}

/** The one basket item matching `where`. */
export function itemWhere(basket: { basket: Record<string, any> }, where: (item: any) => boolean) {
  const found = Object.values(basket.basket).filter(where)
  assert.equal(
    found.length,
    1,
    `one matching item in ${JSON.stringify(Object.values(basket.basket).map((i) => [i.product_type, i.product_details.passenger_id, i.validity.status]))}`,
  )
  return found[0]
}

export const statuses = (basket: { basket: Record<string, any> }) =>
  Object.fromEntries(Object.values(basket.basket).map((i) => [i.basket_item_id, i.validity.status as string]))

/** What a client does: poll the basket, running due jobs between polls, until no item is `checking`. */
export async function pollUntilChecked(t: Built, trip: CreatedTrip, maxPolls = 10) {
  for (let i = 0; i < maxPolls; i++) {
    const basket = await readBasket(t, trip)
    if (!Object.values(basket.basket).some((item) => item.validity.status === 'checking')) return basket
    await t.core.drainJobs()
  }
  assert.fail(`items still checking after ${maxPolls} polls`)
}

/** Creates a trip of `tripPayload` whose outbound flight carries `flightNumber` (the sandbox scenarios 9001–9004). */
export async function createTripOnFlight(t: Built, flightNumber: string, apiKey = t.apiKey): Promise<CreatedTrip> {
  const payload = tripPayload(t.clock.now())
  const segment = payload.tickets[0]!.journeys[0]!.segments[0]!
  segment.marketing_flight_number = flightNumber
  return createTrip(t, { tickets: payload.tickets }, apiKey)
}
