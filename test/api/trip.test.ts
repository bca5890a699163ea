/**
 * Trips, search and basket through HTTP: every field the spec shows, the success and failure paths of each
 * endpoint, refused input that leaves the store untouched, and Idempotency-Key replay.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import {
  build,
  basic,
  bearer,
  body,
  assertProblem,
  assertFields,
  createTrip,
  tripPayload,
  type Built,
  type CreatedTrip,
} from '../helpers/build.ts'
import { readSearch, checkedBag, seats, changeBasket, readBasket, productsOf } from '../helpers/flows.ts'
import {
  TRIP_CREATE_RESPONSE,
  TRIP_REPRESENTATION,
  BASKET_VIEW,
  CONTACT_DETAILS,
  ADDRESS,
  assertJourneys,
  assertBasketItem,
  assertTickets,
  assertPassengers,
} from '../helpers/spec-fields.ts'
import type { LightMyRequestResponse } from 'fastify'

const CONTACT = {
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

describe('POST /v2.2/trip', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('201 with every field the spec shows, typed', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { authorization: basic(t.apiKey) },
      payload: tripPayload(t.clock.now()),
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.match(String(res.headers['content-type']), /^application\/json/)
    const trip = body(res)
    assertFields(trip, TRIP_CREATE_RESPONSE, 'trip')
    assert.match(trip.trip_state_hash, /^[0-9a-f]{64}$/)
    assert.equal(trip.trip_access_token.split('.').length, 3, 'the access token is a JWT')
    assert.deepEqual(trip.basket, {}, 'the create response shows an empty basket')
    assert.deepEqual(trip.orders, {})
    assert.deepEqual(trip.to_cancel, {})
    assert.equal(trip.country, 'GB')
    assert.equal(trip.currency, 'EUR')
    assert.equal(trip.language, 'en-GB')
    assertJourneys(trip.journeys, 'trip.journeys')
    assert.equal(trip.journeys.length, 2)
    const out = trip.journeys[0].segments[0]
    assert.equal(out.departure_airport, 'LHR')
    assert.equal(out.arrival_airport, 'JFK')
    assert.equal(out.operating_airline, 'BA', 'operating fields default to the marketing ones')
    assertPassengers(trip.passengers, 'trip.passengers')
    assert.deepEqual(
      trip.passengers.map((p: { type: string }) => p.type),
      ['adult', 'adult', 'infant'],
    )
    assert.equal(trip.passengers[2].on_lap_of, 'p1')
    assertTickets(trip.tickets, 'trip.tickets')
    assert.equal(trip.tickets[0].offered_price.total, 82500)
  })

  test('the ticket is in the basket from the first read', async () => {
    const trip = await createTrip(t)
    const basket = await readBasket(t, trip)
    const items = Object.values(basket.basket)
    assert.equal(items.length, 1)
    assert.equal(items[0].product_type, 'ticket')
    assert.equal(
      items[0].basket_item_id,
      trip.tickets && (trip.tickets as Array<{ basket_item_id: string }>)[0]!.basket_item_id,
    )
  })

  test("the ticket's basket item is named after the outbound destination", async () => {
    const trip = await createTrip(t)
    const ticket = Object.values((await readBasket(t, trip)).basket).find((i) => i.product_type === 'ticket')
    assert.match(ticket.display_name, /LHR → JFK/)
  })

  test('without a search request, search_id is null and no search runs', async () => {
    const { search: _s, ...noSearch } = tripPayload(t.clock.now())
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { authorization: basic(t.apiKey) },
      payload: noSearch,
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(body(res).search_id, null)
  })
})

describe('GET and PATCH /v2.2/trip/{trip_id}', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
    trip = await createTrip(t)
  })
  after(() => t.close())

  test('GET returns the full representation, with the ticket in the basket', async () => {
    for (const authorization of [basic(t.apiKey), bearer(trip.trip_access_token)]) {
      const res = await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}`, headers: { authorization } })
      assert.equal(res.statusCode, 200, res.body)
      const got = body(res)
      assertFields(got, TRIP_REPRESENTATION, 'trip')
      assertJourneys(got.journeys, 'trip.journeys')
      assertPassengers(got.passengers, 'trip.passengers')
      assertTickets(got.tickets, 'trip.tickets')
      for (const [k, item] of Object.entries(got.basket)) assertBasketItem(item, k)
      assert.equal(got.trip_id, trip.trip_id)
    }
  })

  test('GET of an unknown trip → 404', async () => {
    assertProblem(
      await t.app.inject({
        method: 'GET',
        url: '/v2.2/trip/00000000-0000-4000-8000-000000000000',
        headers: { authorization: basic(t.apiKey) },
      }),
      404,
      'not_found',
    )
  })

  test('PATCH updates passengers and contact details and returns the full representation', async () => {
    const payload = {
      passengers: [
        {
          passenger_id: 'p1',
          first_names: 'Ada',
          surname: 'Lovelace',
          date_of_birth: '1985-12-10',
          gender: 'female',
          title: 'Ms',
          loyalty_programs: [{ airline_id: 'BA', program_name: 'Executive Club', number: 'BA1234567' }],
        },
        { passenger_id: 'p3', first_names: 'Byron', surname: 'Lovelace', date_of_birth: '2026-06-01', on_lap_of: 'p1' },
      ],
      contact_details: CONTACT,
    }
    const before = await readBasket(t, trip)
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: bearer(trip.trip_access_token) },
      payload,
    })
    assert.equal(res.statusCode, 200, res.body)
    const got = body(res)
    assertFields(got, TRIP_REPRESENTATION, 'patched trip')
    assertPassengers(got.passengers, 'patched trip.passengers')
    assertFields(got.contact_details, CONTACT_DETAILS, 'contact_details')
    assertFields(got.contact_details.address, ADDRESS, 'contact_details.address')
    const ada = got.passengers.find((p: { passenger_id: string }) => p.passenger_id === 'p1')
    assert.equal(ada.first_names, 'Ada')
    assert.equal(ada.surname, 'Lovelace')
    assert.equal(ada.date_of_birth, '1985-12-10')
    assert.equal(ada.loyalty_programs[0].number, 'BA1234567')
    assert.notEqual(got.trip_state_hash, before.trip_state_hash, 'passenger data is part of the state hash')
    // Fields not in the patch are kept.
    const p2 = got.passengers.find((p: { passenger_id: string }) => p.passenger_id === 'p2')
    assert.equal(p2.type, 'adult')
  })

  test('PATCH refuses unknown passengers, future birth dates, bad types and an empty patch, changing nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{ passengers: [{ passenger_id: 'p9', surname: 'Nobody' }] }, '/passengers/0/passenger_id'],
      [{ passengers: [{ passenger_id: 'p1', date_of_birth: '2099-01-01' }] }, '/passengers/0/date_of_birth'],
      [{ passengers: [{ passenger_id: 'p1', date_of_birth: 19851210 }] }, '/passengers/0/date_of_birth'],
      [{ passengers: [{ passenger_id: 'p1', gender: 'robot' }] }, '/passengers/0/gender'],
      [{ contact_details: { ...CONTACT, email: 'not-an-email' } }, '/contact_details/email'],
      [{}, '/'],
    ]
    for (const [payload, path] of cases) {
      await expectRefused(
        t,
        () =>
          t.app.inject({
            method: 'PATCH',
            url: `/v2.2/trip/${trip.trip_id}`,
            headers: { authorization: basic(t.apiKey) },
            payload: payload as object,
          }),
        400,
        'validation_error',
        path,
      )
    }
  })
})

describe('search', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
    trip = await createTrip(t)
  })
  after(() => t.close())

  test('the create request starts a search whose products are per passenger', async () => {
    const search = await readSearch(t, trip)
    assert.equal(search.search_id, trip.search_id)
    assert.equal(search.status, 'success')
    const bag = checkedBag(search)
    assertFields(
      bag,
      {
        product_id: 'string',
        product_type: 'string',
        display_name: 'string',
        product_details: 'object',
        price_and_availability: 'object',
      },
      'bag product',
    )
    for (const pid of ['p1', 'p2', 'p3']) assert.ok(bag.price_and_availability[pid], `offer for ${pid}`)
    assert.ok(productsOf(search, 'seat').length > 0)
    assert.ok(Array.isArray(search.results.seatmaps) && search.results.seatmaps.length > 0)
  })

  test('POST .../search → 201 {search_id, status}; the new search becomes readable', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/search`,
      headers: { authorization: bearer(trip.trip_access_token) },
      payload: { seat: { search: true } },
    })
    assert.equal(res.statusCode, 201, res.body)
    const started = body(res)
    assertFields(started, { search_id: 'string', status: 'string' }, 'search started')
    const read = await t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${trip.trip_id}/search/${started.search_id}`,
      headers: { authorization: bearer(trip.trip_access_token) },
    })
    assert.equal(read.statusCode, 200, read.body)
  })

  test('a search selecting nothing, or unknown product types, → 400', async () => {
    for (const payload of [{}, { bag: { search: false } }, { luggage: { search: true } }, { bag: { search: 'yes' } }]) {
      await expectRefused(
        t,
        () =>
          t.app.inject({
            method: 'POST',
            url: `/v2.2/trip/${trip.trip_id}/search`,
            headers: { authorization: basic(t.apiKey) },
            payload,
          }),
        400,
        'validation_error',
      )
    }
  })

  test('?product_types= returns only those types, and seat maps only with seat', async () => {
    const get = (q: string) =>
      t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}${q}`,
        headers: { authorization: bearer(trip.trip_access_token) },
      })
    const all = body(await get(''))
    const bags = await get('?product_types=bag')
    assert.equal(bags.statusCode, 200, bags.body)
    assert.deepEqual(Object.keys(body(bags).results.products), ['bag'])
    assert.deepEqual(body(bags).results.products.bag, all.results.products.bag)
    assert.deepEqual(body(bags).results.seatmaps, [])
    const both = body(await get('?product_types=seat,bag'))
    assert.deepEqual(Object.keys(both.results.products).sort(), ['bag', 'seat'])
    assert.deepEqual(both.results.seatmaps, all.results.seatmaps)
    assert.ok(bags.body.length * 10 < JSON.stringify(all).length, `bags only: ${bags.body.length} bytes`)
    for (const q of [
      '?product_types=',
      '?product_types=luggage',
      '?product_types=bag,,seat',
      '?product_types=bag&unknown=1',
    ]) {
      await expectRefused(t, () => get(q), 400, 'validation_error')
    }
  })

  test("an unknown search, or another trip's search, → 404", async () => {
    const other = await createTrip(t)
    for (const id of ['00000000-0000-4000-8000-000000000000', other.search_id]) {
      assertProblem(
        await t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}/search/${id}`,
          headers: { authorization: basic(t.apiKey) },
        }),
        404,
        'not_found',
      )
    }
  })
})

describe('basket', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('PATCH adds a bag and a seat; the read shows every spec field; the hash changes', async () => {
    const trip = await createTrip(t)
    const search = await readSearch(t, trip)
    const before = await readBasket(t, trip)
    const bag = checkedBag(search)
    const seat = seats(search)[0]!
    const res = await changeBasket(
      t,
      trip,
      'PATCH',
      [
        { product_id: bag.product_id, passenger_id: 'p1', quantity: 2 },
        { product_id: seat.product_id, passenger_id: 'p2', quantity: 1 },
      ],
      bearer(trip.trip_access_token),
    )
    assert.equal(res.statusCode, 200, res.body)
    const view = body(res)
    assertFields(view, BASKET_VIEW, 'basket view')
    assert.notEqual(view.trip_state_hash, before.trip_state_hash)
    const read = await readBasket(t, trip)
    assert.deepEqual(read, view, 'the change response is the basket read')
    assertJourneys(read.journeys, 'basket.journeys')
    for (const [k, item] of Object.entries(read.basket)) assertBasketItem(item, k)
    const items = Object.values(read.basket)
    assert.deepEqual(items.map((i) => i.product_type).sort(), ['bag', 'seat', 'ticket'])
    const bagItem = items.find((i) => i.product_type === 'bag')
    assert.equal(bagItem.quantity, 2)
    assert.equal(bagItem.product_details.passenger_id, 'p1')
    assert.equal(bagItem.validity.status, 'valid')
    const seatItem = items.find((i) => i.product_type === 'seat')
    assert.equal(seatItem.product_details.passenger_id, 'p2')
    // The trip's ticket lists the items that belong to it.
    const tripRes = body(
      await t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}`,
        headers: { authorization: basic(t.apiKey) },
      }),
    )
    const ids = tripRes.tickets.flatMap((x: { basket_item_ids: string[] }) => x.basket_item_ids)
    for (const item of items) assert.ok(ids.includes(item.basket_item_id), `ticket lists ${item.product_type}`)
  })

  test('PUT replaces every ancillary; [] empties the basket but keeps the ticket', async () => {
    const trip = await createTrip(t)
    const search = await readSearch(t, trip)
    const bag = checkedBag(search)
    const [s1, s2] = seats(search)
    assert.equal(
      (
        await changeBasket(t, trip, 'PATCH', [
          { product_id: bag.product_id, passenger_id: 'p1', quantity: 1 },
          { product_id: s1!.product_id, passenger_id: 'p1', quantity: 1 },
        ])
      ).statusCode,
      200,
    )
    const res = await changeBasket(t, trip, 'PUT', [{ product_id: s2!.product_id, passenger_id: 'p1', quantity: 1 }])
    assert.equal(res.statusCode, 200, res.body)
    const types = Object.values<{ product_type: string; product_id: string }>(body(res).basket)
      .map((i) => `${i.product_type}:${i.product_type === 'seat' ? i.product_id : ''}`)
      .sort()
    assert.deepEqual(types, [`seat:${s2!.product_id}`, 'ticket:'])
    const empty = await changeBasket(t, trip, 'PUT', [])
    assert.equal(empty.statusCode, 200, empty.body)
    assert.deepEqual(
      Object.values<{ product_type: string }>(body(empty).basket).map((i) => i.product_type),
      ['ticket'],
    )
  })

  test('PUT of the basket it already holds changes nothing: same basket_item_ids, windows and trip_state_hash (a retry is safe)', async () => {
    const trip = await createTrip(t)
    const search = await readSearch(t, trip)
    const lines = [
      { product_id: checkedBag(search).product_id, passenger_id: 'p1', quantity: 1 },
      { product_id: seats(search)[0]!.product_id, passenger_id: 'p1', quantity: 1 },
    ]
    const first = await changeBasket(t, trip, 'PUT', lines)
    assert.equal(first.statusCode, 200, first.body)
    t.clock.advance(60_000)
    const snapshot = t.snapshot()
    const retry = await changeBasket(t, trip, 'PUT', lines)
    assert.equal(retry.statusCode, 200, retry.body)
    assert.deepEqual(body(retry), body(first))
    assert.deepEqual(t.snapshot(), snapshot, 'nothing written')
    // A PUT that changes one line leaves the other's item as it was.
    const seatItem = Object.values<{ product_type: string; basket_item_id: string }>(body(first).basket).find(
      (i) => i.product_type === 'seat',
    )!
    const one = await changeBasket(t, trip, 'PUT', [lines[1]])
    assert.equal(one.statusCode, 200, one.body)
    assert.deepEqual(body(one).basket[seatItem.basket_item_id], body(first).basket[seatItem.basket_item_id])
    assert.deepEqual(
      Object.values<{ product_type: string }>(body(one).basket)
        .map((i) => i.product_type)
        .sort(),
      ['seat', 'ticket'],
    )
    assert.notEqual(body(one).trip_state_hash, body(first).trip_state_hash)
  })

  test('DELETE removes one item; an unknown item → 404; the ticket itself → 409', async () => {
    const trip = await createTrip(t)
    const bag = checkedBag(await readSearch(t, trip))
    const added = body(
      await changeBasket(t, trip, 'PATCH', [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }]),
    )
    const bagItem = Object.values<{ basket_item_id: string; product_type: string }>(added.basket).find(
      (i) => i.product_type === 'bag',
    )!
    const ticketItem = Object.values<{ basket_item_id: string; product_type: string }>(added.basket).find(
      (i) => i.product_type === 'ticket',
    )!
    const del = (id: string) =>
      t.app.inject({
        method: 'DELETE',
        url: `/v2.2/trip/${trip.trip_id}/basket/${id}`,
        headers: { authorization: bearer(trip.trip_access_token) },
      })
    const res = await del(bagItem.basket_item_id)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(body(res).basket[bagItem.basket_item_id], undefined)
    assert.notEqual(body(res).trip_state_hash, added.trip_state_hash)
    await expectRefused(t, () => del(bagItem.basket_item_id), 404, 'not_found')
    await expectRefused(t, () => del(ticketItem.basket_item_id), 409, 'basket_rule_violation')
  })

  describe('refused changes leave the basket and the store unchanged', () => {
    let trip: CreatedTrip
    let search: Awaited<ReturnType<typeof readSearch>>
    before(async () => {
      trip = await createTrip(t)
      search = await readSearch(t, trip)
      const res = await changeBasket(t, trip, 'PATCH', [
        { product_id: seats(search)[0]!.product_id, passenger_id: 'p1', quantity: 1 },
      ])
      assert.equal(res.statusCode, 200, res.body)
    })
    const patch = (lines: unknown) => () => changeBasket(t, trip, 'PATCH', lines)
    const put = (lines: unknown) => () => changeBasket(t, trip, 'PUT', lines)

    test('wrong types and shapes → 400', async () => {
      const bag = checkedBag(search).product_id
      await expectRefused(t, patch({ product_id: bag, passenger_id: 'p1', quantity: 1 }), 400, 'validation_error', '/')
      await expectRefused(
        t,
        patch([{ product_id: bag, passenger_id: 'p1', quantity: '1' }]),
        400,
        'validation_error',
        '/0/quantity',
      )
      await expectRefused(t, patch([{ product_id: bag, passenger_id: 'p1' }]), 400, 'validation_error')
      await expectRefused(t, patch([]), 400, 'validation_error', '/')
      await expectRefused(
        t,
        patch([{ product_id: bag, passenger_id: 'p1', quantity: 1, price: 0 }]),
        400,
        'validation_error',
        '/0/price',
      )
    })

    test('negative, zero and excessive quantities → 400 (schema) or 409 (product limit)', async () => {
      const bag = checkedBag(search)
      await expectRefused(
        t,
        patch([{ product_id: bag.product_id, passenger_id: 'p1', quantity: -1 }]),
        400,
        'validation_error',
        '/0/quantity',
      )
      await expectRefused(
        t,
        patch([{ product_id: bag.product_id, passenger_id: 'p1', quantity: 0 }]),
        400,
        'validation_error',
        '/0/quantity',
      )
      await expectRefused(
        t,
        patch([{ product_id: bag.product_id, passenger_id: 'p1', quantity: 10 }]),
        400,
        'validation_error',
        '/0/quantity',
      )
      const limit = bag.price_and_availability.p1!.quantity_limit
      await expectRefused(
        t,
        patch([{ product_id: bag.product_id, passenger_id: 'p1', quantity: limit + 1 }]),
        409,
        'basket_rule_violation',
        '/0/quantity',
      )
    })

    test('unknown products and passengers → 400', async () => {
      await expectRefused(
        t,
        patch([{ product_id: '00000000-0000-4000-8000-000000000000', passenger_id: 'p1', quantity: 1 }]),
        400,
        'validation_error',
        '/0/product_id',
      )
      await expectRefused(
        t,
        patch([{ product_id: checkedBag(search).product_id, passenger_id: 'p7', quantity: 1 }]),
        400,
        'validation_error',
        '/0/passenger_id',
      )
    })

    test('a seat taken twice → 409, also within one request, and nothing of the request is kept', async () => {
      const [taken, free] = seats(search)
      await expectRefused(
        t,
        patch([{ product_id: taken!.product_id, passenger_id: 'p2', quantity: 1 }]),
        409,
        'basket_rule_violation',
      )
      // The first line alone would be fine; the second fails, so neither is applied.
      await expectRefused(
        t,
        patch([
          { product_id: checkedBag(search).product_id, passenger_id: 'p2', quantity: 1 },
          { product_id: taken!.product_id, passenger_id: 'p2', quantity: 1 },
        ]),
        409,
        'basket_rule_violation',
        '/1/product_id',
      )
      // One passenger, two seats on the same flight.
      await expectRefused(
        t,
        patch([{ product_id: free!.product_id, passenger_id: 'p1', quantity: 1 }]),
        409,
        'basket_rule_violation',
      )
      // PUT is all-or-nothing too: the existing seat survives a refused replacement.
      await expectRefused(
        t,
        put([
          { product_id: free!.product_id, passenger_id: 'p1', quantity: 1 },
          { product_id: free!.product_id, passenger_id: 'p2', quantity: 1 },
        ]),
        409,
        'basket_rule_violation',
      )
    })

    test('a seat for a lap infant → 409', async () => {
      const seat = productsOf(search, 'seat').find(
        (p) => p.product_details.segment_id === seats(search)[0]!.product_details.segment_id,
      )!
      await expectRefused(
        t,
        patch([{ product_id: seat.product_id, passenger_id: 'p3', quantity: 1 }]),
        409,
        'basket_rule_violation',
        '/0/passenger_id',
      )
    })
  })
})

describe('trip creation input that must be refused (400, nothing stored)', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())
  const DAY = 86_400_000
  const create = (payload: unknown) => () =>
    t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { authorization: basic(t.apiKey) },
      payload: payload as object,
    })
  const withSegment = (change: (s: Record<string, unknown>) => void) => {
    const p = tripPayload(t.clock.now())
    change(p.tickets[0]!.journeys[0]!.segments[0] as unknown as Record<string, unknown>)
    return p
  }
  const SEG = '/tickets/0/journeys/0/segments/0'

  test('wrong types', async () => {
    await expectRefused(
      t,
      create({ ...tripPayload(t.clock.now()), passengers: 'two adults' }),
      400,
      'validation_error',
      '/passengers',
    )
    await expectRefused(
      t,
      create(
        withSegment((s) => {
          s.marketing_flight_number = 117
        }),
      ),
      400,
      'validation_error',
      `${SEG}/marketing_flight_number`,
    )
    await expectRefused(
      t,
      create({ ...tripPayload(t.clock.now()), currency: 'euro' }),
      400,
      'validation_error',
      '/currency',
    )
  })

  test('unknown airports', async () => {
    await expectRefused(
      t,
      create(
        withSegment((s) => {
          s.arrival_airport = 'QQQ'
        }),
      ),
      400,
      'validation_error',
      `${SEG}/arrival_airport`,
    )
  })

  test('arrival before departure, and departure in the past', async () => {
    await expectRefused(
      t,
      create(
        withSegment((s) => {
          s.arrival_time = new Date(t.clock.now().getTime() + 29 * DAY).toISOString()
        }),
      ),
      400,
      'validation_error',
      `${SEG}/arrival_time`,
    )
    await expectRefused(
      t,
      create(
        withSegment((s) => {
          s.departure_time = new Date(t.clock.now().getTime() - DAY).toISOString()
        }),
      ),
      400,
      'validation_error',
      `${SEG}/departure_time`,
    )
    await expectRefused(
      t,
      create(
        withSegment((s) => {
          s.departure_time = '2026-13-45T25:00:00Z'
        }),
      ),
      400,
      'validation_error',
      `${SEG}/departure_time`,
    )
    await expectRefused(
      t,
      create(
        withSegment((s) => {
          s.departure_time = '2026-12-22 10:00'
        }),
      ),
      400,
      'validation_error',
      `${SEG}/departure_time`,
    )
    // A local time is the airport's: arrival before departure in local times is still refused.
    await expectRefused(
      t,
      create(
        withSegment((s) => {
          s.departure_time = '2026-12-22T10:00'
          s.arrival_time = '2026-12-22T04:00'
        }),
      ),
      400,
      'validation_error',
      `${SEG}/arrival_time`,
    )
  })

  test('passenger references', async () => {
    const p = tripPayload(t.clock.now())
    await expectRefused(
      t,
      create({
        ...p,
        passengers: [...p.passengers.slice(0, 2), { passenger_id: 'p3', passenger_type: 'infant', on_lap_of: 'p9' }],
      }),
      400,
      'validation_error',
      '/passengers/2/on_lap_of',
    )
    await expectRefused(
      t,
      create({
        ...p,
        passengers: [
          { passenger_id: 'p1', passenger_type: 'adult' },
          { passenger_id: 'p1', passenger_type: 'adult' },
        ],
      }),
      400,
      'validation_error',
      '/passengers/1/passenger_id',
    )
  })
})

describe('Idempotency-Key on POST /v2.2/trip', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('a retry with the same key and body replays the first answer; nothing new is stored', async () => {
    const payload = tripPayload(t.clock.now())
    const send = (key: string, p: unknown = payload, apiKey = t.apiKey) =>
      t.app.inject({
        method: 'POST',
        url: '/v2.2/trip',
        headers: { authorization: basic(apiKey), 'idempotency-key': key },
        payload: p as object,
      })
    const first = await send('order-42-attempt')
    assert.equal(first.statusCode, 201, first.body)
    const snapshot = t.snapshot()
    const again = await send('order-42-attempt')
    assert.equal(again.statusCode, 201)
    assert.equal(body(again).trip_id, body(first).trip_id)
    // The replay is the first answer with a new session: the record keeps no live token.
    const { trip_access_token: a1, refresh_token: r1, ...rest1 } = body(first)
    const { trip_access_token: a2, refresh_token: r2, ...rest2 } = body(again)
    assert.deepEqual(rest2, rest1)
    assert.notEqual(r2, r1)
    assert.ok(typeof a2 === 'string' && typeof a1 === 'string')
    assert.ok(
      !JSON.stringify(t.snapshot().idempotency).includes(String(r1)),
      'no refresh token kept in the idempotency record',
    )
    const read = await t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${body(again).trip_id}/basket`,
      headers: { authorization: `Bearer ${String(a2)}` },
    })
    assert.equal(read.statusCode, 200, 'the replayed access token works')
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.deepEqual(t.snapshot().trips, snapshot.trips)

    // Same key, different body → 422, and no trip is created.
    const conflict = await send('order-42-attempt', { ...payload, currency: 'GBP' })
    assertProblem(conflict, 422, 'idempotency_conflict')
    assert.deepEqual(t.snapshot().trips, snapshot.trips)

    // Keys are per seller: another seller's identical key is a new request.
    const other = await t.otherSeller()
    const theirs = await send('order-42-attempt', payload, other.apiKey)
    assert.equal(theirs.statusCode, 201)
    assert.notEqual(body(theirs).trip_id, body(first).trip_id)

    // Without a key, two posts are two trips.
    const a = await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { authorization: basic(t.apiKey) },
      payload,
    })
    const b = await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { authorization: basic(t.apiKey) },
      payload,
    })
    assert.notEqual(body(a).trip_id, body(b).trip_id)
  })

  test('a refused request does not burn the key: the corrected retry succeeds', async () => {
    const bad = { ...tripPayload(t.clock.now()), currency: 'euro' }
    const send = (p: unknown) =>
      t.app.inject({
        method: 'POST',
        url: '/v2.2/trip',
        headers: { authorization: basic(t.apiKey), 'idempotency-key': 'retry-after-fix' },
        payload: p as object,
      })
    assertProblem(await send(bad), 400, 'validation_error')
    assert.equal((await send(tripPayload(t.clock.now()))).statusCode, 201)
  })

  test('a malformed key → 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { authorization: basic(t.apiKey), 'idempotency-key': 'k'.repeat(256) },
      payload: tripPayload(t.clock.now()),
    })
    assertProblem(res, 400, 'validation_error')
  })
})

/**
 * Sends a request that must be refused and proves it changed nothing: the whole store (trips, baskets,
 * searches, tokens, idempotency keys) is identical before and after.
 */
async function expectRefused(
  t: Built,
  send: () => Promise<LightMyRequestResponse>,
  status: number,
  code: string,
  path?: string,
) {
  const before = t.snapshot()
  const res = await send()
  const p = assertProblem(res, status, code)
  if (status === 400 || status === 409) {
    assert.ok(Array.isArray(p.errors) && p.errors.length > 0, `errors[] present: ${res.body}`)
    for (const e of p.errors) assertFields(e, { path: 'string', message: 'string' }, 'errors[]')
  }
  if (path)
    assert.ok(
      p.errors?.some((e) => e.path === path),
      `expected an error at ${path}: ${JSON.stringify(p.errors)}`,
    )
  assert.deepEqual(t.snapshot(), before, `${code} changed the store`)
  return p
}
