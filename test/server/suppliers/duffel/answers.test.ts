/**
 * The Duffel adapter at its boundary (server/suppliers/duffel/answers.ts): answers in every shape Duffel
 * records and some it should never send, from a stub that answers exactly what each case needs. A search
 * always ends: `success` with what could be read (the rest in `partial_failures`), or a `SupplierError` with
 * a reason; never a TypeError, never a price from an answer that broke a rule.
 */
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { streamHugeAnswer, type HugeAnswer } from '../../../helpers/huge-answer.ts'
import { until } from '../../../helpers/wait.ts'
import { createDuffelSupplier } from '../../../../server/suppliers/duffel/supplier.ts'
import { retryAfterMs } from '../../../../server/suppliers/duffel/client.ts'
import { atAirport } from '../../../../core/domain/airports.ts'
import { isSupplierError, type SupplierFailure } from '../../../../core/ports/supplier-errors.ts'
import type { SupplierTrip } from '../../../../core/ports/supplier.ts'
import { contractTrip } from '../../../helpers/supplier-trips.ts'
import { stubDuffel, type StubAnswer, type StubDuffel } from '../../../helpers/duffel.ts'

const TOKEN = 'duffel_test_boundary_0000000000'
const call = { seller_id: 's', sandbox: true, credentials: TOKEN }
const trip: SupplierTrip = contractTrip({ metadata: { duffel_offer_id: 'off_stub1' } })
const [adult1, adult2, infant] = ['pas_a1', 'pas_a2', 'pas_i1']

/** An offer for the contract trip's flights, in Duffel's recorded shape, its services `services`. */
function offer(services: unknown[] = [baggage()], over: Record<string, unknown> = {}) {
  return {
    data: {
      id: 'off_stub1',
      expires_at: new Date(Date.now() + 600_000).toISOString(),
      total_amount: '800.00',
      total_currency: 'GBP',
      passengers: [
        { id: adult1, type: 'adult', age: null },
        { id: adult2, type: 'adult', age: null },
        { id: infant, type: null, age: 1 },
      ],
      slices: trip.journeys.map((j, si) => ({
        fare_brand_name: null,
        segments: j.segments.map((s, gi) => ({
          id: `seg_${si}${gi}`,
          origin: { iata_code: s.departure_airport },
          destination: { iata_code: s.arrival_airport },
          marketing_carrier: { iata_code: s.marketing_airline },
          marketing_carrier_flight_number: `0${s.marketing_flight_number}`,
          departing_at: atAirport(s.departure_time, s.departure_airport)!.slice(0, 19),
          arriving_at: '2030-01-01T00:00:00',
          aircraft: null,
        })),
      })),
      available_services: services,
      ...over,
    },
  }
}
function baggage(over: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) {
  return {
    id: 'ase_bag1',
    type: 'baggage',
    passenger_ids: [adult1],
    segment_ids: ['seg_00', 'seg_10'],
    total_amount: '39.99',
    total_currency: 'GBP',
    maximum_quantity: 2,
    metadata: {
      type: 'checked',
      maximum_weight_kg: 23,
      maximum_length_cm: null,
      maximum_height_cm: null,
      maximum_depth_cm: null,
      ...metadata,
    },
    ...over,
  }
}
/** A seat map element as Duffel records every one: every key, nulls where it has none. */
const el = (type: string, over: Record<string, unknown> = {}) => ({
  id: `ele_${Math.random().toString(36).slice(2, 10)}`,
  type,
  designator: null,
  name: null,
  disclosures: null,
  available_services: [],
  seat_characteristics: null,
  ...over,
})
const seat = (designator: string, amount = '20.0', over: Record<string, unknown> = {}) =>
  el('seat', {
    designator,
    disclosures: [],
    available_services: [
      { id: `ase_${designator}`, passenger_id: adult1, total_amount: amount, total_currency: 'GBP' },
    ],
    ...over,
  })
function seatMaps(elements: unknown[][] = [[seat('10A'), el('restricted_seat_general'), seat('10C')]]) {
  return {
    data: ['seg_00', 'seg_10'].map((segment_id) => ({
      id: `sea_${segment_id}`,
      segment_id,
      slice_id: 'sli_1',
      cabins: [
        {
          deck: 0,
          cabin_class: 'economy',
          aisles: 1,
          wings: null,
          rows: elements.map((row, i) => ({ id: `row_${i}`, sections: [{ id: `sec_${i}`, elements: row }] })),
        },
      ],
    })),
  }
}

let stub: StubDuffel
const answers: Record<string, StubAnswer> = {}
before(async () => {
  stub = await stubDuffel(
    Object.fromEntries(['GET /air/offers/off_stub1', 'GET /air/seat_maps'].map((r) => [r, () => answers[r]!])),
  )
})
after(() => stub.close())
const supplier = () => createDuffelSupplier({ baseUrl: stub.url, timeoutMs: 2000 })
const answer = (o: unknown, maps: unknown = seatMaps()) => {
  answers['GET /air/offers/off_stub1'] = { body: o }
  answers['GET /air/seat_maps'] = { body: maps }
}
const failsWith = (reason: SupplierFailure, retryable: boolean) => (e: unknown) =>
  isSupplierError(e) && e.reason === reason && e.retryable === retryable

describe('Duffel answers as Duffel records them', () => {
  test('a seat map with restricted seats (null designator and disclosures), every element type, one unknown, null services and "20.0" prices: read, the restricted ones never on sale', async () => {
    answer(
      offer(),
      seatMaps([
        [el('galley'), el('lavatory'), el('closet'), el('future_element_type')],
        [el('exit_row'), el('exit_row')],
        [
          seat('11A', '20.0'),
          el('restricted_seat_general'),
          seat('11C', '16.5', { disclosures: null }),
          el('bassinet'),
          el('empty'),
        ],
        [
          seat('12A', '0.00'),
          el('seat', { designator: '12B', disclosures: ['No recline'], available_services: null }),
          el('stairs'),
          seat('12C', '20.0', { seat_characteristics: ['W'] }),
        ],
      ]),
    )
    const found = await supplier().search(call, trip, ['bag', 'seat'])
    assert.equal(found.partial_failures, undefined)
    const rows = found.seats[0]!.map.decks[0]!.rows
    assert.deepEqual(
      rows.map((r) => [r.row, r.exit, r.seats.map((s) => s.column)]),
      [
        [11, true, ['A', 'C']],
        [12, false, ['A', 'B', 'C']],
      ],
    )
    const band = (row: number, column: string) =>
      rows.find((r) => r.row === row)!.seats.find((s) => s.column === column)!.band
    const price = (row: number, column: string) => found.seats[0]!.bands[band(row, column)!]!.p1!.base!.amount
    assert.equal(price(11, 'A'), 2000, '"20.0" is 20.00')
    assert.equal(price(11, 'C'), 1650)
    assert.equal(price(12, 'A'), 0, 'a free seat is a price')
    assert.equal(band(12, 'B'), null, 'no services (null): taken')
    assert.deepEqual(rows[1]!.seats[1]!.disclosures, ['No recline'])
  })

  test('cancel-for-any-reason and seat services beside the baggage, one of them malformed: only baggage is read, and read whole', async () => {
    answer(
      offer([
        baggage(),
        { id: 'cfa_1', type: 'cancel_for_any_reason', total_amount: 'lots' },
        { type: 'seat', id: 'ase_s', metadata: null },
        { type: 'something_new' },
      ]),
    )
    const found = await supplier().search(call, trip, ['bag'])
    assert.deepEqual(
      found.products.map((p) => p.display_name),
      ['Checked bag 23 kg'],
    )
  })

  test('a bag for the whole trip is one product over both journeys, priced once', async () => {
    answer(offer([baggage()]))
    const [bag] = (await supplier().search(call, trip, ['bag'])).products
    assert.deepEqual(
      bag!.product_details.journey_ids,
      trip.journeys.map((j) => j.journey_id),
    )
    assert.equal(bag!.per_passenger.p1!.base!.amount, 3999)
    assert.deepEqual(bag!.per_passenger.p1!.refs, ['ase_bag1'])
  })

  test('a zero-decimal currency: "4500" JPY is 4500, no places', async () => {
    answer(offer([baggage({ total_amount: '4500', total_currency: 'JPY' })]))
    const [bag] = (await supplier().search(call, trip, ['bag'])).products
    assert.deepEqual(bag!.per_passenger.p1!.base, { amount: 4500, currency: 'JPY', decimal_places: 0 })
  })
})

describe('answers no supplier should send: the part they belong to fails, never the whole, never a price', () => {
  for (const [name, o, maps, failed] of [
    ["a seat map not in Duffel's shape", offer(), { data: [{ segment_id: 'seg_00', cabins: 'none' }] }, 'seat'],
    ['a seat at a negative price', offer(), seatMaps([[seat('10A', '-5.00')]]), 'seat'],
    ['a seat priced finer than its currency', offer(), seatMaps([[seat('10A', '20.005')]]), 'seat'],
    [
      'a seat in a currency the service does not price in',
      offer(),
      seatMaps([
        [
          el('seat', {
            designator: '10A',
            disclosures: [],
            available_services: [{ id: 'ase_x', passenger_id: adult1, total_amount: '1.00', total_currency: 'XXX' }],
          }),
        ],
      ]),
      'seat',
    ],
    ['a bag whose weight is text', offer([baggage({}, { maximum_weight_kg: '<img src=x>' })]), seatMaps(), 'bag'],
    ['a bag at an absurd price', offer([baggage({ total_amount: '99999999.00' })]), seatMaps(), 'bag'],
    ['a bag at a negative price', offer([baggage({ total_amount: '-45.00' })]), seatMaps(), 'bag'],
  ] as const) {
    test(`${name}: ${failed === 'seat' ? 'bags' : 'seats'} still offered, ${failed} in partial_failures as supplier_invalid_answer`, async () => {
      answer(o, maps)
      const found = await supplier().search(call, trip, ['bag', 'seat'])
      assert.deepEqual(found.partial_failures, [{ product_type: failed, failure_reason: 'supplier_invalid_answer' }])
      if (failed === 'seat') assert.ok(found.products.length > 0 && found.seats.length === 0)
      else assert.ok(found.products.length === 0 && found.seats.length > 0)
    })
  }

  test('both parts unreadable, or the offer itself: the search fails supplier_invalid_answer, not retried', async () => {
    answer(offer([baggage({ total_amount: '-1' })]), { data: 'nope' })
    await assert.rejects(supplier().search(call, trip, ['bag', 'seat']), failsWith('supplier_invalid_answer', false))
    answer({ data: { id: 'off_stub1', passengers: 'two' } })
    await assert.rejects(supplier().search(call, trip, ['bag']), failsWith('supplier_invalid_answer', false))
    answer({ nothing: true })
    await assert.rejects(supplier().search(call, trip, ['bag']), failsWith('supplier_invalid_answer', false))
  })

  test('the seat maps failing at Duffel alone leave the bags (supplier_unavailable for the seats)', async () => {
    answers['GET /air/offers/off_stub1'] = { body: offer() }
    answers['GET /air/seat_maps'] = { status: 502, text: '<html><body><h1>502 Bad Gateway</h1></body></html>' }
    const found = await supplier().search(call, trip, ['bag', 'seat'])
    assert.deepEqual(found.partial_failures, [{ product_type: 'seat', failure_reason: 'supplier_unavailable' }])
    assert.equal(found.products.length, 1)
  })

  test("an expired offer is not_found; an id that is not Duffel's goes into no path", async () => {
    answer(offer([baggage()], { expires_at: new Date(Date.now() - 1000).toISOString() }))
    await assert.rejects(supplier().search(call, trip, ['bag']), failsWith('not_found', false))
    const before = stub.requests.length
    for (const id of ['..', '../orders', 'off_1/../../x', 'off_', `off_${'a'.repeat(65)}`]) {
      await assert.rejects(
        supplier().search(call, contractTrip({ metadata: { duffel_offer_id: id } }), ['bag']),
        failsWith('not_found', false),
        id,
      )
    }
    assert.equal(stub.requests.length, before, 'nothing asked of Duffel')
  })
})

describe("Duffel's errors as it sends them", () => {
  const cases: Array<[string, StubAnswer, SupplierFailure, boolean]> = [
    ['an HTML 502 page', { status: 502, text: '<html>Bad gateway</html>' }, 'supplier_unavailable', true],
    [
      '504 gateway_timeout_error',
      {
        status: 504,
        body: {
          errors: [{ type: 'api_error', code: 'gateway_timeout_error', title: 'Gateway timeout', message: 'm' }],
          meta: { request_id: 'r1' },
        },
      },
      'supplier_unavailable',
      true,
    ],
    [
      '502 airline_unknown',
      {
        status: 502,
        body: {
          errors: [{ type: 'airline_error', code: 'airline_unknown', title: 'Airline error', message: 'm' }],
          meta: { request_id: 'r2' },
        },
      },
      'supplier_unavailable',
      true,
    ],
    [
      '422 airline_error',
      {
        status: 422,
        body: {
          errors: [{ type: 'airline_error', code: 'airline_error', title: 'Airline error', message: 'm' }],
          meta: { request_id: 'r3' },
        },
      },
      'supplier_unavailable',
      true,
    ],
    [
      '400 missing_version_header',
      {
        status: 400,
        body: {
          errors: [
            {
              type: 'invalid_request_error',
              code: 'missing_version_header',
              title: 'Missing version header',
              message: 'm',
            },
          ],
          meta: { request_id: 'r4' },
        },
      },
      'supplier_refused',
      false,
    ],
    [
      '401 access_token_not_found',
      {
        status: 401,
        body: {
          errors: [
            {
              type: 'authentication_error',
              code: 'access_token_not_found',
              title: 'Access token not found',
              message: 'm',
            },
          ],
          meta: { request_id: 'r5' },
        },
      },
      'supplier_refused',
      false,
    ],
    [
      '422 offer_no_longer_available',
      {
        status: 422,
        body: {
          errors: [
            {
              type: 'invalid_state_error',
              code: 'offer_no_longer_available',
              title: 'Offer no longer available',
              message: 'm',
            },
          ],
          meta: { request_id: 'r6' },
        },
      },
      'not_found',
      false,
    ],
    [
      'a 307 redirect',
      { status: 307, headers: { location: 'http://elsewhere.invalid/air/offers/off_stub1' } },
      'supplier_refused',
      false,
    ],
  ]
  for (const [name, a, reason, retryable] of cases) {
    test(`${name} → ${reason}${retryable ? ', retried' : ''}`, async () => {
      answers['GET /air/offers/off_stub1'] = a
      await assert.rejects(supplier().search(call, trip, ['bag']), failsWith(reason, retryable))
    })
  }

  test('a 429 says when to come back: Retry-After (seconds or a date), else ratelimit-reset (a date)', async () => {
    const now = Date.parse('2026-11-28T10:00:00Z')
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '7' }), now), 7000)
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'Sat, 28 Nov 2026 10:00:30 GMT' }), now), 30_000)
    assert.equal(retryAfterMs(new Headers({ 'ratelimit-reset': 'Sat, 28 Nov 2026 10:01:00 GMT' }), now), 60_000)
    assert.equal(
      retryAfterMs(new Headers({ 'retry-after': '2', 'ratelimit-reset': 'Sat, 28 Nov 2026 10:01:00 GMT' }), now),
      2000,
      'Retry-After first',
    )
    assert.equal(retryAfterMs(new Headers({}), now), undefined)
    answers['GET /air/offers/off_stub1'] = {
      status: 429,
      headers: { 'ratelimit-reset': new Date(Date.now() + 20_000).toUTCString() },
      body: {
        errors: [{ type: 'rate_limit_error', code: 'rate_limit_exceeded', title: 'Rate limit exceeded', message: 'm' }],
        meta: { request_id: 'r7' },
      },
    }
    await assert.rejects(
      supplier().search(call, trip, ['bag']),
      (e: unknown) =>
        isSupplierError(e) &&
        e.reason === 'supplier_unavailable' &&
        e.retryAfterMs! > 15_000 &&
        e.retryAfterMs! <= 20_000,
    )
  })
})

describe('sizes no supplier should send', () => {
  test('a seat map of 100,000 seats is not read: seats fail alone (supplier_invalid_answer), bags are offered', async () => {
    const row = Array.from({ length: 10 }, (_, i) => seat(`1${'ABCDEFGHJK'[i]}`))
    answer(offer(), {
      data: [
        {
          id: 'sea_1',
          segment_id: 'seg_00',
          slice_id: 'sli_1',
          cabins: [
            {
              deck: 0,
              cabin_class: 'economy',
              aisles: 2,
              wings: null,
              rows: Array.from({ length: 200 }, (_, i) => ({
                id: `r${i}`,
                sections: Array.from({ length: 10 }, () => ({ id: 's', elements: row })),
              })),
            },
          ],
        },
      ],
    })
    const found = await supplier().search(call, trip, ['bag', 'seat'])
    assert.deepEqual(found.partial_failures, [{ product_type: 'seat', failure_reason: 'supplier_invalid_answer' }])
    assert.equal(found.products.length, 1)
  })

  test('an offer of more than 500 services: its bags are not read', async () => {
    answer(offer(Array.from({ length: 501 }, (_, i) => baggage({ id: `ase_${i}` }))))
    const found = await supplier().search(call, trip, ['bag', 'seat'])
    assert.deepEqual(found.partial_failures, [{ product_type: 'bag', failure_reason: 'supplier_invalid_answer' }])
  })

  test("a seat's notices and the aircraft's name are kept to 200 characters", async () => {
    const long = 'x'.repeat(5_000)
    const o = offer()
    ;(o.data.slices[0]!.segments[0] as { aircraft: unknown }).aircraft = { name: long }
    answer(o, seatMaps([[seat('10A', '20.0', { disclosures: [long, 'short'] })]]))
    const found = await supplier().search(call, trip, ['seat'])
    const map = found.seats.find((s) => s.segment_id === trip.journeys[0]!.segments[0]!.segment_id)!.map
    assert.equal(map.aircraft.length, 200)
    assert.deepEqual(
      map.decks[0]!.rows[0]!.seats[0]!.disclosures!.map((d) => d.length),
      [200, 5],
    )
  })
})

describe('an answer bigger than SUPPLIER_MAX_RESPONSE_BYTES', () => {
  test('is read up to the limit as it streams, then dropped: the search fails supplier_invalid_answer, not retried', async () => {
    let answer: HugeAnswer | undefined
    const big = createServer((_req, res) => {
      answer = streamHugeAnswer(res)
    })
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve))
    try {
      const s = createDuffelSupplier({
        baseUrl: `http://127.0.0.1:${(big.address() as AddressInfo).port}`,
        timeoutMs: 10_000,
        maxResponseBytes: 1024 * 1024,
      })
      await assert.rejects(s.search(call, trip, ['bag']), failsWith('supplier_invalid_answer', false))
      await until('the connection closed', 30_000, () => answer?.closed || undefined)
      assert.ok(
        answer!.sent < 16 * 1024 * 1024,
        `stopped reading early: ${answer!.sent} bytes were sent of a 1 GB answer`,
      )
    } finally {
      big.closeAllConnections()
      big.close()
    }
  })

  test('a Content-Length over the limit is not read at all', async () => {
    answers['GET /air/offers/off_stub1'] = { body: offer(), headers: { 'content-length': String(6 * 1024 * 1024) } }
    const s = createDuffelSupplier({ baseUrl: stub.url, timeoutMs: 2000, maxResponseBytes: 5 * 1024 * 1024 })
    await assert.rejects(s.search(call, trip, ['bag']), failsWith('supplier_invalid_answer', false))
  })
})

describe('what Duffel says, in errors that reach logs and the database', () => {
  test('is its status, code and request id, and 200 characters of its words with anything token-shaped taken out', async () => {
    answers['GET /air/offers/off_stub1'] = {
      status: 400,
      body: {
        errors: [
          {
            type: 'invalid_request_error',
            code: 'bad',
            title: 'Bad',
            message: `We got "Authorization: Bearer ${TOKEN}" and ${'blah '.repeat(500)}`,
          },
        ],
        meta: { request_id: 'req_123' },
      },
    }
    const error = await supplier()
      .search(call, trip, ['bag'])
      .catch((e: Error) => e)
    assert.ok(isSupplierError(error))
    assert.ok(!error.message.includes(TOKEN) && !error.message.includes('duffel_test_'), error.message)
    assert.match(error.message, /400 bad/)
    assert.match(error.message, /req_123/)
    assert.ok(error.message.length < 400, `${error.message.length} characters`)
  })
})
