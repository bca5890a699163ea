/**
 * The live smoke test against Duffel's test mode (`npm run test:duffel-live`), for a seller's engineer with
 * a Duffel test token: DUFFEL_TEST_TOKEN=duffel_test_… npm run test:duffel-live. It runs what CI proves
 * against the fake Duffel (test/server/duffel.test.ts) against api.duffel.com itself, so that what only
 * Duffel can say (its shapes on real offers, its seat maps, its prices after booking) is checked:
 *
 *   1. searches Duffel for a flight in 60 days (Duffel's test airline) and takes an offer;
 *   2. creates a trip naming it (duffel_offer_id, Duffel's passenger ids) on this service, in-process, with
 *      a sandbox seller holding the token, and waits for the background search: bags and seat maps;
 *   3. puts a bag (and a seat, when offered) in the basket, checks it: valid;
 *   4. books the offer at Duffel with those items' service ids (the hand-off), paid from the test balance;
 *   5. fulfills the trip with the booking reference: the orders succeed, nothing more bought;
 *   6. a trip naming the Duffel order: its bags after booking, one bought from the balance at Duffel's price.
 *
 * Without DUFFEL_TEST_TOKEN it says it was skipped and exits 0 (it is not part of npm test: no machine of
 * CI reaches Duffel). It never prints the token. DUFFEL_API_URL overrides Duffel's URL.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { buildApp } from '../../server/app.ts'
import { createCore } from '../../core/core.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import { createDuffelSupplier } from '../../server/suppliers/duffel/supplier.ts'
import type { Offer, Order, SeatMap } from '../../server/suppliers/duffel/types.ts'

const token = process.env.DUFFEL_TEST_TOKEN
if (!token) {
  console.log('skipped: DUFFEL_TEST_TOKEN is not set. With a Duffel test token (duffel_test_…, from Duffel\'s dashboard, Developers → Access tokens):\n  DUFFEL_TEST_TOKEN=duffel_test_… npm run test:duffel-live')
  process.exit(0)
}
if (!token.startsWith('duffel_test_')) {
  console.error('DUFFEL_TEST_TOKEN must be a test token (duffel_test_…): this test books in Duffel\'s test mode only.')
  process.exit(2)
}
const duffelUrl = (process.env.DUFFEL_API_URL ?? 'https://api.duffel.com').replace(/\/$/, '')

const step = (text: string) => console.log(`\n▸ ${text}`)
const fail = (text: string): never => { console.error(`✗ ${text}`); process.exit(1) }

/** Duffel's API with the token (never printed). */
async function duffel<T>(method: 'GET' | 'POST', path: string, data?: unknown): Promise<T> {
  const res = await fetch(`${duffelUrl}${path}`, {
    method, signal: AbortSignal.timeout(60_000),
    headers: { authorization: `Bearer ${token}`, 'duffel-version': 'v2', accept: 'application/json', 'content-type': 'application/json' },
    ...(data === undefined ? {} : { body: JSON.stringify({ data }) }),
  })
  const body = await res.json() as { data?: T; errors?: Array<{ code: string; message: string }> }
  if (!res.ok || !body.data) fail(`Duffel ${method} ${path}: ${res.status} ${JSON.stringify(body.errors ?? body)}`)
  return body.data!
}

/** A local time at an airport (Duffel's, no offset) as ISO 8601 with that airport's offset, as this API takes it. */
function withOffset(local: string, timeZone: string): string {
  const asUtc = Date.parse(`${local}Z`)
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
    .formatToParts(new Date(asUtc)).map((p) => [p.type, p.value]))
  const offsetMin = Math.round((Date.parse(`${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}Z`) - asUtc) / 60_000)
  const sign = offsetMin < 0 ? '-' : '+'
  const abs = Math.abs(offsetMin)
  return `${local.slice(0, 19)}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}

// ---------------------------------------------------------------- 1. an offer at Duffel

step('1. Searching Duffel (test mode) for LHR → JFK in 60 days, one adult')
const date = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10)
const request = await duffel<{ offers: Offer[] }>('POST', '/air/offer_requests?return_offers=true', {
  slices: [{ origin: 'LHR', destination: 'JFK', departure_date: date }], passengers: [{ type: 'adult' }], cabin_class: 'economy',
})
const offer = request.offers.find((o) => o.owner.iata_code === 'ZZ') ?? request.offers[0] ?? fail('Duffel returned no offer')
console.log(`  offer ${offer.id} by ${offer.owner.name}, ${offer.total_amount} ${offer.total_currency}, expires ${offer.expires_at}`)

// ---------------------------------------------------------------- 2. the service, a seller, a trip

step('2. This service in-process: a sandbox seller with the Duffel token; a trip naming the offer')
const store = new MemoryStore()
const core = createCore({
  store, clock: { now: () => new Date() }, ids: { uuid: () => randomUUID(), secret: (n) => randomBytes(n).toString('base64url') },
  suppliers: [createSandboxSupplier(), createDuffelSupplier({ baseUrl: duffelUrl, timeoutMs: 30_000 })],
  config: { signingKeySecret: randomBytes(32).toString('base64') },
})
await core.ensureSigningKey()
const { apiKey } = await core.createSeller({ name: 'Live smoke', origins: [], sandbox: true, supplier: { name: 'duffel', credentials: token } })
const app = await buildApp({ core, store, logger: false, rateLimit: { max: 100_000, timeWindow: 60_000 } })
const auth = { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`, 'content-type': 'application/json' }
const api = async <T = any>(method: string, url: string, payload?: unknown): Promise<{ status: number; body: T }> => {
  const res = await app.inject({ method: method as 'GET', url, headers: auth, ...(payload === undefined ? {} : { payload: payload as object }) })
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) as T : undefined as T }
}
const settle = async (what: string, probe: () => Promise<boolean>) => {
  for (let i = 0; i < 120; i++) {
    await core.drainJobs()
    if (await probe()) return
    await new Promise((r) => setTimeout(r, 500))
  }
  fail(`${what} did not happen within a minute`)
}

const tripRequest = (metadata: Record<string, string>) => ({
  language: 'en-GB', currency: offer.total_currency, country: 'GB',
  search: { bag: { search: true }, seat: { search: true } },
  tickets: [{
    status: 'offered',
    offered_price: { currency: offer.total_currency, decimal_places: 2, base_price: Math.round(Number(offer.total_amount) * 100), markup: 0, total: Math.round(Number(offer.total_amount) * 100) },
    journeys: offer.slices.map((s) => ({
      segments: s.segments.map((g) => ({
        departure_airport: g.origin.iata_code, arrival_airport: g.destination.iata_code,
        departure_time: withOffset(g.departing_at, g.origin.time_zone), arrival_time: withOffset(g.arriving_at, g.destination.time_zone),
        marketing_airline: g.marketing_carrier.iata_code, marketing_flight_number: g.marketing_carrier_flight_number.replace(/^0+/, ''),
        fare_class: null,
      })),
    })),
    metadata,
  }],
  passengers: offer.passengers.map((p) => ({ passenger_id: p.id, passenger_type: 'adult' })),
})

const created = await api('POST', '/v2.2/trip', tripRequest({ duffel_offer_id: offer.id }))
if (created.status !== 201) fail(`POST /v2.2/trip: ${created.status} ${JSON.stringify(created.body)}`)
const trip = created.body
let search: any
await settle('the background search', async () => {
  search = (await api('GET', `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`)).body
  return search.status !== 'in_progress'
})
if (search.status !== 'success') fail(`the search failed: ${search.failure_reason}`)
const bags = Object.values(search.results.products.bag ?? {}) as any[]
const seats = Object.values(search.results.products.seat ?? {}) as any[]
console.log(`  search ${search.status}: ${bags.length} bag product(s) (${bags.map((b) => b.display_name).join(', ')}), ${seats.length} seat(s) on ${search.results.seatmaps.length} map(s)`)

// ---------------------------------------------------------------- 3. basket and check

step('3. A bag and a seat in the basket, checked')
const pid = offer.passengers[0]!.id
const bag = bags.find((b) => b.price_and_availability[pid]?.available) ?? fail('no bag on offer for the passenger')
const seat = seats.find((s) => s.price_and_availability[pid]?.available)
const lines = [bag, ...(seat ? [seat] : [])].map((p) => ({ product_id: p.product_id, passenger_id: pid, quantity: 1 }))
const added = await api('PATCH', `/v2.2/trip/${trip.trip_id}/basket`, lines)
if (added.status !== 200) fail(`PATCH basket: ${added.status} ${JSON.stringify(added.body)}`)
await api('POST', `/v2.2/trip/${trip.trip_id}/basket/check`)
let basket: any
await settle('the basket check', async () => {
  basket = (await api('GET', `/v2.2/trip/${trip.trip_id}/basket`)).body
  return Object.values(basket.basket).every((i: any) => i.validity.status !== 'checking')
})
const items = Object.values(basket.basket).filter((i: any) => i.product_type !== 'ticket') as any[]
for (const i of items) console.log(`  ${i.display_name}: ${i.validity.status}, Duffel services ${i.supplier?.service_ids?.join(', ')}`)
if (items.some((i) => i.validity.status !== 'valid')) fail('an item did not check valid')

// ---------------------------------------------------------------- 4. the seller's own booking at Duffel (the hand-off)

step('4. Booking the offer at Duffel with the items\' services (the hand-off), from the test balance')
const services = items.flatMap((i) => i.supplier.service_ids.map((id: string) => ({ id, quantity: 1 })))
const priced = await duffel<Offer>('GET', `/air/offers/${offer.id}?return_available_services=true`)
const seatMaps = seat ? await duffel<SeatMap[]>('GET', `/air/seat_maps?offer_id=${offer.id}`) : []
const priceOf = (id: string): number => {
  const s = priced.available_services.find((x) => x.id === id) ??
    seatMaps.flatMap((m) => m.cabins.flatMap((c) => c.rows.flatMap((r) => r.sections.flatMap((x) => x.elements.flatMap((e) => 'available_services' in e ? e.available_services : []))))).find((x) => x.id === id)
  return Math.round(Number(s?.total_amount ?? fail(`service ${id} is gone`)) * 100)
}
const amount = Math.round(Number(priced.total_amount) * 100) + services.reduce((n, s) => n + priceOf(s.id), 0)
const order = await duffel<Order>('POST', '/air/orders', {
  type: 'instant', selected_offers: [offer.id], services,
  payments: [{ type: 'balance', currency: priced.total_currency, amount: (amount / 100).toFixed(2) }],
  passengers: priced.passengers.map((p) => ({ id: p.id, title: 'ms', gender: 'f', given_name: 'Ada', family_name: 'Lovelace', born_on: '1985-12-10', email: 'ada@example.com', phone_number: '+442079460000' })),
})
console.log(`  Duffel order ${order.id}, booking reference ${order.booking_reference}, ${order.services.length} service(s)`)

// ---------------------------------------------------------------- 5. fulfill: handed off, nothing bought

step('5. Fulfilling the trip with the booking reference')
const fulfillBody = (forTrip: { tickets: Array<{ ticket_id: string }> }, hash: string) => ({
  trip_state_hash: hash, payment_details: { payment_type: 'service_settlement' },
  contact_details: { contact_details_type: 'passenger', passenger_id: pid, email: 'ada@example.com' },
  passengers: [{ passenger_id: pid, first_names: 'Ada', surname: 'Lovelace', date_of_birth: '1985-12-10', passenger_type: 'adult' }],
  tickets: forTrip.tickets.map((t) => ({ ticket_id: t.ticket_id, access_details: { record_locator: order.booking_reference, ticket_number: '1250000000001' }, status: 'booked' })),
})
const fulfilled = await api('POST', `/v2.2/trip/${trip.trip_id}/fulfill`, fulfillBody(trip, basket.trip_state_hash))
if (fulfilled.status !== 202) fail(`fulfill: ${fulfilled.status} ${JSON.stringify(fulfilled.body)}`)
let orders: any[] = []
await settle('the orders', async () => {
  orders = Object.values((await api('GET', `/v2.2/trip/${trip.trip_id}`)).body.orders)
  return orders.every((o) => o.status === 'succeeded' || o.status === 'failed')
})
for (const o of orders) console.log(`  ${o.display_name}: ${o.status}${o.failure_reason ? ` (${o.failure_reason})` : ''}`)
if (orders.some((o) => o.status !== 'succeeded')) fail('a handed-off item did not succeed')
const after = await duffel<Order>('GET', `/air/orders/${order.id}`)
if (after.services.length !== order.services.length) fail('something was bought for a handed-off item')

// ---------------------------------------------------------------- 6. after booking: a bag bought from the balance

step('6. A trip naming the Duffel order: a bag after booking, bought at Duffel\'s price')
const later = await api('POST', '/v2.2/trip', { ...tripRequest({ duffel_order_id: order.id }), search: { bag: { search: true } } })
if (later.status !== 201) fail(`POST /v2.2/trip: ${later.status} ${JSON.stringify(later.body)}`)
await settle('the search after booking', async () => (await api('GET', `/v2.2/trip/${later.body.trip_id}/search/${later.body.search_id}`)).body.status !== 'in_progress')
const afterSearch = (await api('GET', `/v2.2/trip/${later.body.trip_id}/search/${later.body.search_id}`)).body
const postBag = (Object.values(afterSearch.results.products.bag ?? {}) as any[]).find((b) => b.price_and_availability[pid]?.available)
if (!postBag) {
  console.log(`  the order sells no bag after booking (search ${afterSearch.status}${afterSearch.failure_reason ? `, ${afterSearch.failure_reason}` : ''}): step 6 says nothing more`)
} else {
  const b2 = await api('PATCH', `/v2.2/trip/${later.body.trip_id}/basket`, [{ product_id: postBag.product_id, passenger_id: pid, quantity: 1 }])
  const f2 = await api('POST', `/v2.2/trip/${later.body.trip_id}/fulfill`, fulfillBody(later.body, b2.body.trip_state_hash))
  if (f2.status !== 202) fail(`fulfill after booking: ${f2.status} ${JSON.stringify(f2.body)}`)
  let o2: any[] = []
  await settle('the order after booking', async () => {
    o2 = Object.values((await api('GET', `/v2.2/trip/${later.body.trip_id}`)).body.orders)
    return o2.every((o) => o.status === 'succeeded' || o.status === 'failed')
  })
  console.log(`  ${o2[0].display_name}: ${o2[0].status}${o2[0].failure_reason ? ` (${o2[0].failure_reason})` : ''}`)
  const bought = await duffel<Order>('GET', `/air/orders/${order.id}`)
  console.log(`  the Duffel order now holds ${bought.services.length} service(s)`)
  if (o2[0].status !== 'succeeded' || bought.services.length !== after.services.length + 1) fail('the bag after booking was not bought exactly once')
}

await app.close()
console.log('\n✓ Duffel test mode: search, check, hand-off and a bag after booking all behaved as the fake says.')
