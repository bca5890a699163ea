/**
 * The real product's two public sample apps, replayed against this service (docs/decisions.md "Drop-in,
 * second round"): what each one's backend and frontend send, in the order they send it, with the one thing
 * no service could take as it is: the samples' itineraries (one flies in 2020, the other's return arrives
 * before it departs), moved to dates ahead that arrive after they depart. Names, numbers and ids are our own;
 * the shapes are theirs.
 *
 * - "Dynamic upsell" (an Express backend and a page): creates the trip with loyalty programmes given one
 *   per passenger, a ticket whose `status` is named `state`, and times at a fixed offset; the page shows the
 *   seat upsell; its backend then fulfills with an empty body.
 * - "SDK examples" (an Express backend and a Next.js page): creates the trip with a seat search; the page
 *   shows the seat upsell with that search; its backend fulfills with the record locator only, no ticket
 *   number, no trip_state_hash, and a card.
 *
 * Each ends in `succeeded` orders once the request says what the 400 asked for. The steps print as
 * diagnostics (`node --test --test-reporter=spec test/api/samples.test.ts`) for whoever checks a release.
 */
import { test, before, after, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, bearer, body, assertProblem, type Built } from '../helpers/build.ts'

let t: Built
before(async () => {
  t = await build()
})
after(() => t.close())

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, authorization: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: { authorization },
    ...(payload === undefined ? {} : { payload: payload as object }),
  })

/** A date `days` ahead of the test clock, as YYYY-MM-DD. */
const ahead = (days: number) => new Date(t.clock.now().getTime() + days * 86_400_000).toISOString().slice(0, 10)

/** What the SDK does for the seat upsell: search seats with the trip access token, read them, put the first free one for the first passenger in the basket. */
async function seatUpsell(tc: TestContext, trip: { trip_id: string; trip_access_token: string }, searchId?: string) {
  const token = bearer(trip.trip_access_token)
  const id =
    searchId ??
    body(await api('POST', `/v2.2/trip/${trip.trip_id}/search`, token, { seat: { search: true } })).search_id
  const search = body(await api('GET', `/v2.2/trip/${trip.trip_id}/search/${id}`, token))
  assert.equal(search.status, 'success')
  const seat = Object.values(search.results.products.seat as Record<string, any>).find(
    (p) => p.price_and_availability.p1?.available,
  )
  assert.ok(seat, 'a seat is offered')
  const added = await api('PATCH', `/v2.2/trip/${trip.trip_id}/basket`, token, [
    { product_id: seat.product_id, passenger_id: 'p1', quantity: 1 },
  ])
  assert.equal(added.statusCode, 200, added.body)
  const basket = body(await api('GET', `/v2.2/trip/${trip.trip_id}/basket`, token))
  tc.diagnostic(
    `widget: seat ${seat.product_details.designator ?? seat.display_name} for p1, basket ${Object.keys(basket.basket).length} item(s), trip_state_hash ${basket.trip_state_hash.slice(0, 12)}…`,
  )
  return basket
}

/** The orders once the jobs have run, as the samples' "poll the trip" reads them. */
async function ordersAfterJobs(tc: TestContext, tripId: string) {
  await t.core.drainJobs()
  const trip = body(await api('GET', `/v2.2/trip/${tripId}`, basic(t.apiKey)))
  const orders = Object.values(trip.orders as Record<string, any>).map((o) => `${o.display_name}: ${o.status}`)
  tc.diagnostic(`orders: ${orders.join('; ')}`)
  return Object.values(trip.orders as Record<string, any>).map((o) => o.status)
}

test('the "dynamic upsell" sample: trip, seat upsell, fulfill', async (tc) => {
  const day = ahead(60)
  const loyalty = { airline_id: 'AA', number: '555000111', program_name: 'Premium', tier_name: 'Gold' }
  const created = await api('POST', '/v2.2/trip', basic(t.apiKey), {
    country: 'US',
    currency: 'USD',
    language: 'en-US',
    passengers: [
      {
        first_names: 'Grace',
        surname: 'Hopper',
        passenger_type: 'adult',
        date_of_birth: '1990-01-01',
        loyalty_program: loyalty,
      },
      // The sample's second "adult" is seven: airlines decide how young an adult fare may be, so it is taken.
      {
        passenger_type: 'adult',
        date_of_birth: '2019-01-01',
        first_names: 'Alan',
        surname: 'Kay',
        loyalty_program: { ...loyalty, number: '555000222' },
      },
    ],
    tickets: [
      {
        journeys: [
          {
            segments: [
              {
                arrival_airport: 'SEA',
                arrival_time: `${day}T23:07:00-02:00`,
                departure_airport: 'MIA',
                departure_time: `${day}T19:35:00-02:00`,
                fare_basis: 'NVAHZSM3',
                fare_class: 'M',
                fare_family: '',
                marketing_airline: 'AA',
                operating_airline: 'AA',
                marketing_flight_number: '305',
                operating_flight_number: '305',
              },
            ],
          },
        ],
        metadata: { 'your-id': 'your-key' },
        offered_price: { base_price: 7000, currency: 'USD', decimal_places: 2, markup: 0, total: 7000 },
        state: 'offered',
      },
    ],
  })
  assert.equal(created.statusCode, 201, created.body)
  const trip = body(created)
  const [seg] = trip.journeys[0].segments
  tc.diagnostic(`POST /v2.2/trip → 201; MIA ${seg.departure_time} → SEA ${seg.arrival_time} (at their airports)`)

  const basket = await seatUpsell(tc, trip)

  // Its backend fulfills with an empty body: the 400 says what a fulfill needs, and where each part comes from.
  const empty = assertProblem(
    await api('POST', `/v2.2/trip/${trip.trip_id}/fulfill`, basic(t.apiKey), {}),
    400,
    'validation_error',
  )
  tc.diagnostic(`POST fulfill {} → 400: ${empty.errors!.map((e) => `${e.path} ${e.message}`).join(' | ')}`)
  assert.deepEqual(empty.errors!.map((e) => e.path).sort(), ['/payment_details', '/trip_state_hash'])
  assert.match(
    empty.errors!.find((e) => e.path === '/trip_state_hash')!.message,
    /GET \/v2\.2\/trip\/\{trip_id\}\/basket/,
  )

  const ok = await api('POST', `/v2.2/trip/${trip.trip_id}/fulfill`, basic(t.apiKey), {
    trip_state_hash: basket.trip_state_hash,
    contact_details: { contact_details_type: 'passenger', passenger_id: 'p1', email: 'grace@example.com' },
    tickets: [{ ticket_id: trip.tickets[0].ticket_id, access_details: { record_locator: 'QX7K2M' }, status: 'booked' }],
    payment_details: { payment_type: 'service_settlement' },
  })
  tc.diagnostic(`POST fulfill (the hash, contact, record locator) → ${ok.statusCode}`)
  assert.equal(ok.statusCode, 202, ok.body)
  assert.deepEqual(await ordersAfterJobs(tc, trip.trip_id), ['succeeded'])
})

test('the "SDK examples" sample: trip with a seat search, seat upsell, fulfill with the record locator only', async (tc) => {
  const out = ahead(45)
  const back = ahead(49)
  const next = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
  const segment = {
    fare_basis: 'WA7NR',
    fare_class: 'W',
    fare_family: 'book_it',
    marketing_airline: 'CQ',
    operating_airline: 'CQ',
  }
  const created = await api('POST', '/v2.2/trip', basic(t.apiKey), {
    country: 'US',
    currency: 'USD',
    language: 'en-US',
    passengers: [
      { first_names: 'Katherine', surname: 'Johnson', passenger_type: 'adult', date_of_birth: '1980-08-26' },
      { passenger_type: 'adult', date_of_birth: '1982-03-14', first_names: 'Dorothy', surname: 'Vaughan' },
    ],
    search: { seat: { search: true } },
    tickets: [
      {
        journeys: [
          {
            segments: [
              {
                ...segment,
                arrival_airport: 'ATL',
                arrival_time: `${next(out)}T06:58:00-05:00`,
                departure_airport: 'LAX',
                departure_time: `${out}T23:50:00-08:00`,
                marketing_flight_number: '1200',
                operating_flight_number: '1200',
              },
            ],
          },
          // The sample's return leaves ATL at 23:50 (written at LAX's offset) and lands the same morning: it lands the next one here.
          {
            segments: [
              {
                ...segment,
                arrival_airport: 'LAX',
                arrival_time: `${next(back)}T06:58:00-05:00`,
                departure_airport: 'ATL',
                departure_time: `${back}T23:50:00-08:00`,
                marketing_flight_number: '800',
                operating_flight_number: '800',
              },
            ],
          },
        ],
        metadata: { 'your-id': 'your-key' },
        offered_price: { base_price: 7000, currency: 'USD', decimal_places: 2, markup: 0, total: 7000 },
        status: 'offered',
      },
    ],
  })
  assert.equal(created.statusCode, 201, created.body)
  const trip = body(created)
  tc.diagnostic(
    `POST /v2.2/trip → 201 with search ${trip.search_id}; ${trip.journeys.map((j: any) => `${j.segments[0].departure_airport} ${j.segments[0].departure_time}`).join(', ')}`,
  )

  // The page initialises the SDK with searchIds: {seat: search_id} and shows the seat upsell.
  const basket = await seatUpsell(tc, trip, trip.search_id)

  // Its backend's fulfill: the contact with an address, the record locator only, a card, and no trip_state_hash.
  const address = {
    city: 'Seattle',
    state: 'WA',
    country: 'US',
    postal_code: '98105',
    street_address_1: '12 Example St.',
  }
  const contact = {
    contact_details_type: 'passenger',
    passenger_id: trip.passengers[0].passenger_id,
    email: 'katherine@example.com',
    phone_number: '2065550100',
    address,
  }
  const tickets = [
    { ticket_id: trip.tickets[0].ticket_id, access_details: { record_locator: '123456' }, status: 'booked' },
  ]
  const card = {
    payment_type: 'card',
    card_number: 4111111111111111,
    cvv: 123,
    expiry_month: '05',
    expiry_year: '2040',
    card_holder_name: 'K Johnson',
    network: 'visa',
    billing_address: address,
  }
  const snapshot = t.snapshot()
  const sent = await api('POST', `/v2.2/trip/${trip.trip_id}/fulfill`, basic(t.apiKey), {
    contact_details: contact,
    tickets,
    payment_details: card,
  })
  const refused = assertProblem(sent, 400, 'validation_error')
  tc.diagnostic(`POST fulfill as sent → 400: ${refused.errors!.map((e) => e.path).join(', ')}`)
  assert.deepEqual(refused.errors!.map((e) => e.path).sort(), [
    '/payment_details/billing_address',
    '/payment_details/card_holder_name',
    '/payment_details/card_number',
    '/payment_details/cvv',
    '/payment_details/expiry_month',
    '/payment_details/expiry_year',
    '/payment_details/network',
    '/trip_state_hash',
  ])
  assert.ok(!sent.body.includes('4111111111111111'), 'the card is not echoed')
  assert.deepEqual(t.snapshot(), snapshot, 'nothing changed')

  // As the 400 says: the basket's trip_state_hash, and no card. Still no ticket number.
  const ok = await api('POST', `/v2.2/trip/${trip.trip_id}/fulfill`, basic(t.apiKey), {
    trip_state_hash: basket.trip_state_hash,
    contact_details: contact,
    tickets,
    payment_details: { payment_type: 'card' },
  })
  tc.diagnostic(`POST fulfill with trip_state_hash, without the card → ${ok.statusCode}`)
  assert.equal(ok.statusCode, 202, ok.body)
  assert.deepEqual(await ordersAfterJobs(tc, trip.trip_id), ['succeeded'])
})
