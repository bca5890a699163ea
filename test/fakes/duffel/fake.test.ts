/**
 * The fake Duffel API itself (test/fakes/duffel/server.ts), over real HTTP with fetch: the Duffel supplier's
 * tests trust it to answer like Duffel, so its routes, envelope, checks, account and mode separation,
 * purchases, hold orders and scenario switches are pinned here (its shapes against Duffel's recordings in
 * shapes.test.ts).
 */
import { test, describe, before, after, beforeEach } from 'node:test'
import assert from 'node:assert/strict'
import {
  startFakeDuffel,
  seatsOf,
  type AddOfferInput,
  type FakeDuffel,
  type SegmentInput,
  type WireOffer,
} from './server.ts'

let fake: FakeDuffel
before(async () => {
  fake = await startFakeDuffel()
})
after(async () => {
  await fake.close()
})
beforeEach(() => {
  fake.reset()
  fake.setNow(null)
})

interface Call {
  method?: string
  token?: string | null
  version?: string | null
  authorization?: string
  body?: unknown
  raw?: string
  signal?: AbortSignal
}
async function call(
  path: string,
  init: Call = {},
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const headers: Record<string, string> = { accept: 'application/json' }
  const token = init.token === undefined ? fake.token : init.token
  if (init.authorization !== undefined) headers.authorization = init.authorization
  else if (token !== null) headers.authorization = `Bearer ${token}`
  if (init.version !== null) headers['duffel-version'] = init.version ?? 'v2'
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body))
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${fake.url}${path}`, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    signal: init.signal,
  })
  const text = await res.text()
  // An HTML page from the load balancer (htmlError) is no JSON: `json` is then undefined, `text` the page.
  return {
    status: res.status,
    headers: res.headers,
    json: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined,
    text,
  }
}

/** Duffel's error envelope, whole: one error with its five fields (and the field at fault, if any), the request id in meta and the header. */
function assertError(
  r: { status: number; headers: Headers; json: any },
  status: number,
  code: string,
  type?: string,
): void {
  assert.equal(r.status, status, JSON.stringify(r.json))
  assert.deepEqual(Object.keys(r.json).sort(), ['errors', 'meta'])
  assert.equal(r.json.errors.length, 1)
  const [e] = r.json.errors
  assert.deepEqual(
    Object.keys(e)
      .filter((k) => k !== 'source')
      .sort(),
    ['code', 'documentation_url', 'message', 'title', 'type'],
  )
  if ('source' in e) assert.deepEqual(Object.keys(e.source).sort(), ['field', 'pointer'])
  if (type) assert.equal(e.type, type)
  assert.equal(e.code, code)
  for (const k of ['type', 'title', 'message', 'documentation_url'])
    assert.ok(typeof e[k] === 'string' && e[k].length > 0, k)
  assert.equal(r.json.meta.status, status)
  assert.match(r.json.meta.request_id, /^\w{10,}$/)
  assert.equal(r.headers.get('x-request-id'), r.json.meta.request_id)
}

let accounts = 0
/** A new test-mode account: balances and visibility of one test do not leak into another. */
function freshToken(opts: { balance?: string; live?: boolean } = {}): string {
  const token = `duffel_${opts.live ? 'live' : 'test'}_suite${++accounts}`
  fake.addToken(token, opts.balance ? { balance: opts.balance } : {})
  return token
}

const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10)
const seg = (
  origin: string,
  destination: string,
  carrier: string,
  flight: string,
  d: number,
  dep: string,
  arr: string,
  arrDay = d,
): SegmentInput => ({
  origin,
  destination,
  departing_at: `${day(d)}T${dep}`,
  arriving_at: `${day(arrDay)}T${arr}`,
  marketing_carrier: carrier,
  flight_number: flight,
})
/** Adult, child and lap infant; out LHR→JFK direct, back JFK→BOS→LHR (two segments in one slice). */
function family(extra: Partial<AddOfferInput> = {}) {
  return fake.addOffer({
    passengers: [{ type: 'adult' }, { type: 'child' }, { type: 'infant_without_seat' }],
    slices: [
      { segments: [seg('LHR', 'JFK', 'BA', '117', 30, '11:20', '14:10')] },
      {
        segments: [
          seg('JFK', 'BOS', 'BA', '4411', 40, '08:00', '09:20'),
          seg('BOS', 'LHR', 'BA', '238', 40, '20:15', '07:45', 41),
        ],
      },
    ],
    ...extra,
  })
}
const post = (
  orderId: string,
  payment: { type?: string; amount: string; currency?: string },
  add: Array<{ id: string; quantity: number }>,
  token?: string,
) =>
  call(`/air/orders/${orderId}/services`, {
    token,
    body: { data: { payment: { type: 'balance', currency: 'GBP', ...payment }, add_services: add } },
  })

describe('authentication, version and the envelope', () => {
  test("a request without a known bearer token is a 401 of Duffel's envelope", async () => {
    const { offer } = family()
    assertError(
      await call(`/air/offers/${offer.id}`, { token: null }),
      401,
      'missing_authorization_header',
      'authentication_error',
    )
    assertError(
      await call(`/air/offers/${offer.id}`, { authorization: `Basic ${fake.token}` }),
      401,
      'invalid_authorization_header',
      'authentication_error',
    )
    assertError(
      await call(`/air/offers/${offer.id}`, { token: 'duffel_test_nobody_knows_me' }),
      401,
      'access_token_not_found',
      'authentication_error',
    )
  })

  test('Duffel-Version must be sent, and be v2', async () => {
    const { offer } = family()
    assertError(
      await call(`/air/offers/${offer.id}`, { version: null }),
      400,
      'missing_version_header',
      'invalid_request_error',
    )
    assertError(
      await call(`/air/offers/${offer.id}`, { version: 'v1' }),
      400,
      'unsupported_version',
      'invalid_request_error',
    )
    assert.equal((await call(`/air/offers/${offer.id}`)).status, 200)
  })

  test("any other route is Duffel's 404", async () => {
    assertError(await call('/air/airlines'), 404, 'not_found')
    assertError(await call('/air/offers/off_x', { method: 'DELETE' }), 404, 'not_found')
    assertError(await call('/air/orders/ord_x/cancel', { body: {} }), 404, 'not_found')
  })

  test('every request is logged, refused ones too', async () => {
    fake.clearRequests()
    await call('/air/seat_maps?offer_id=off_nope', { token: null })
    await post('ord_nope', { amount: '1.00' }, [{ id: 'aso_x', quantity: 1 }])
    assert.deepEqual(
      fake.requests.map((r) => [r.method, r.path, r.query, r.token, r.status]),
      [
        ['GET', '/air/seat_maps', { offer_id: 'off_nope' }, null, 401],
        ['POST', '/air/orders/ord_nope/services', {}, fake.token, 404],
      ],
    )
    assert.deepEqual(fake.requests[1]!.body, {
      data: {
        payment: { type: 'balance', currency: 'GBP', amount: '1.00' },
        add_services: [{ id: 'aso_x', quantity: 1 }],
      },
    })
  })
})

describe('GET /air/offers/{id}', () => {
  const baggage = (services: any[]) => services.filter((s) => s.type === 'baggage')

  test('the offer with its baggage services per passenger and slice', async () => {
    const { offer } = family()
    const r = await call(`/air/offers/${offer.id}?return_available_services=true`)
    assert.equal(r.status, 200)
    const data = r.json.data
    assert.equal(data.id, offer.id)
    assert.equal(data.live_mode, false)
    assert.deepEqual(
      data.passengers.map((p: any) => [p.type, p.age, p.given_name, p.family_name]),
      [
        ['adult', null, null, null],
        ['child', null, null, null],
        ['infant_without_seat', null, null, null],
      ],
    )
    assert.equal(data.slices[1].segments.length, 2)
    assert.equal(data.slices[0].segments[0].marketing_carrier.iata_code, 'BA')
    assert.equal(data.slices[0].segments[0].marketing_carrier_flight_number, '117')
    assert.equal(data.slices[0].segments[0].departing_at, `${day(30)}T11:20:00`)
    assert.match(data.slices[0].segments[0].duration, /^PT07H50M$/)
    const [adult, child, infant] = data.passengers.map((p: any) => p.id)
    // Two kinds of bag for each passenger with a seat, for each slice; a bag covers its slice's segments.
    const bags = baggage(data.available_services)
    assert.equal(bags.length, 8)
    for (const s of bags) {
      assert.match(s.id, /^ase_/)
      assert.match(s.total_amount, /^\d+\.\d{2}$/)
      assert.equal(s.total_currency, 'GBP')
      assert.equal(s.passenger_ids.length, 1)
      assert.notEqual(s.passenger_ids[0], infant)
      const slice = data.slices.find((sl: any) => sl.segments.some((g: any) => g.id === s.segment_ids[0]))
      assert.deepEqual(
        s.segment_ids,
        slice.segments.map((g: any) => g.id),
      )
    }
    const checked = bags.find((s: any) => s.passenger_ids[0] === child && s.metadata.type === 'checked')
    assert.deepEqual(checked.metadata, {
      type: 'checked',
      maximum_weight_kg: 23,
      maximum_length_cm: null,
      maximum_height_cm: null,
      maximum_depth_cm: null,
    })
    assert.equal(checked.total_amount, '45.00')
    assert.equal(checked.maximum_quantity, 2)
    const cabin = bags.find((s: any) => s.passenger_ids[0] === adult && s.metadata.type === 'carry_on')
    assert.equal(cabin.metadata.maximum_weight_kg, 10)
    assert.equal(cabin.metadata.maximum_length_cm, 56)
    // Beside the bags, one cancel-for-any-reason; no seats unless the offer sells them so.
    assert.deepEqual(
      data.available_services.map((s: any) => s.type).filter((t: string) => t !== 'baggage'),
      ['cancel_for_any_reason'],
    )
  })

  test('available services only when asked for: null otherwise', async () => {
    const { offer } = family()
    assert.equal((await call(`/air/offers/${offer.id}`)).json.data.available_services, null)
    assert.equal(
      (await call(`/air/offers/${offer.id}?return_available_services=false`)).json.data.available_services,
      null,
    )
  })

  test('bags per segment with neither weight nor size; and an offer with no bags', async () => {
    const { offer } = fake.addOffer({
      passengers: [{ type: 'adult' }],
      bags: [{ type: 'checked', total_amount: '26.00', maximum_weight_kg: null, scope: 'segment' }],
      slices: [
        {
          segments: [
            seg('FRA', 'AMS', 'LH', '992', 20, '07:05', '08:20'),
            seg('AMS', 'BCN', 'KL', '1675', 20, '11:00', '13:15'),
          ],
        },
      ],
    })
    const bags = baggage(
      (await call(`/air/offers/${offer.id}?return_available_services=true`)).json.data.available_services,
    )
    assert.deepEqual(
      bags.map((s: any) => s.segment_ids),
      offer.slices[0]!.segments.map((g) => [g.id]),
    )
    assert.deepEqual(bags[0].metadata, {
      type: 'checked',
      maximum_weight_kg: null,
      maximum_length_cm: null,
      maximum_height_cm: null,
      maximum_depth_cm: null,
    })
    const none = family({ bags: 'none' })
    assert.deepEqual(
      baggage((await call(`/air/offers/${none.offer.id}?return_available_services=true`)).json.data.available_services),
      [],
    )
  })

  test('easyJet sells a bag for the whole trip: one service per passenger covering every segment of both slices', async () => {
    const { offer } = fake.addOffer({
      passengers: [{ type: 'adult' }, { type: 'child' }],
      slices: [
        {
          segments: [
            seg('EDI', 'LGW', 'U2', '802', 20, '07:05', '08:35'),
            seg('LGW', 'AMS', 'U2', '8883', 20, '10:00', '12:15'),
          ],
        },
        { segments: [seg('AMS', 'LGW', 'U2', '8884', 27, '13:05', '13:25')] },
      ],
    })
    const everySegment = offer.slices.flatMap((s) => s.segments.map((g) => g.id))
    const bags = baggage(
      (await call(`/air/offers/${offer.id}?return_available_services=true`)).json.data.available_services,
    )
    assert.equal(bags.length, 4, 'a checked and a cabin bag for each of two passengers')
    for (const s of bags) assert.deepEqual(s.segment_ids, everySegment)
    const checked = bags.find((s: any) => s.metadata.type === 'checked')
    assert.deepEqual(
      [
        checked.total_amount,
        checked.maximum_quantity,
        checked.metadata.maximum_weight_kg,
        checked.metadata.maximum_length_cm,
      ],
      ['39.99', 3, null, null],
    )
  })

  test('cancel for any reason: one service for every passenger, on the return for Duffel Airways, on every segment otherwise', async () => {
    const { offer } = family()
    const cfar = (
      await call(`/air/offers/${offer.id}?return_available_services=true`)
    ).json.data.available_services.filter((s: any) => s.type === 'cancel_for_any_reason')
    assert.equal(cfar.length, 1)
    const [c] = cfar
    assert.match(c.id, /^cfa_/)
    assert.deepEqual(
      c.passenger_ids,
      offer.passengers.map((p) => p.id),
    )
    assert.deepEqual(
      c.segment_ids,
      offer.slices.flatMap((s) => s.segments.map((g) => g.id)),
    )
    assert.equal(c.maximum_quantity, 1)
    assert.deepEqual(Object.keys(c.metadata).sort(), ['merchant_copy', 'refund_amount', 'terms_and_conditions_url'])
    assert.equal(c.metadata.refund_amount, (Number(offer.total_amount) * 0.7).toFixed(2))
    assert.equal(c.total_amount, (Number(offer.total_amount) * 0.12).toFixed(2))
    const zz = fake.addOffer({
      passengers: [{ type: 'adult' }],
      slices: [
        { segments: [seg('LHR', 'CDG', 'ZZ', '801', 9, '08:00', '10:15')] },
        { segments: [seg('CDG', 'LHR', 'ZZ', '802', 16, '18:00', '18:20')] },
      ],
    }).offer
    assert.deepEqual(zz.available_services.find((s) => s.type === 'cancel_for_any_reason')!.segment_ids, [
      zz.slices[1]!.segments[0]!.id,
    ])
    assert.ok(!family({ cfar: false }).offer.available_services.some((s) => s.type === 'cancel_for_any_reason'))
  })

  test('seat services: with seatServices, every seat map service also on the offer, one per seat and passenger', async () => {
    const { offer, seatMaps } = family({ seatServices: true })
    const services = (await call(`/air/offers/${offer.id}?return_available_services=true`)).json.data.available_services
    const seats = services.filter((s: any) => s.type === 'seat')
    const onMaps = seatsOf(seatMaps).flatMap(({ segment_id, seat }) =>
      seat.available_services.map((s) => ({ id: s.id, segment_id, seat, s })),
    )
    assert.equal(seats.length, onMaps.length)
    for (const { id, segment_id, seat, s } of onMaps) {
      assert.deepEqual(
        seats.find((x: any) => x.id === id),
        {
          id,
          type: 'seat',
          passenger_ids: [s.passenger_id],
          segment_ids: [segment_id],
          maximum_quantity: 1,
          total_amount: s.total_amount,
          total_currency: 'GBP',
          metadata: { designator: seat.designator, disclosures: seat.disclosures, name: seat.name },
        },
      )
    }
    assert.ok(!family().offer.available_services.some((s) => s.type === 'seat'), 'not by default')
  })

  test('passengers by age: type null and the age, sold as the age makes them (a lap infant under 2 gets no bag nor seat)', async () => {
    const { offer, seatMaps } = family({ passengers: [{ type: 'adult' }, { age: 7 }, { age: 1 }] })
    const data = (await call(`/air/offers/${offer.id}?return_available_services=true`)).json.data
    assert.deepEqual(
      data.passengers.map((p: any) => [p.type, p.age]),
      [
        ['adult', null],
        [null, 7],
        [null, 1],
      ],
    )
    const [, child, infant] = offer.passengers.map((p) => p.id)
    assert.ok(baggage(data.available_services).some((s: any) => s.passenger_ids[0] === child))
    assert.ok(!baggage(data.available_services).some((s: any) => s.passenger_ids[0] === infant))
    assert.ok(!seatsOf(seatMaps).some((x) => x.seat.available_services.some((s) => s.passenger_id === infant)))
    // Priced by the age: an adult, a child and a lap infant, both ways.
    assert.equal(offer.total_amount, ((312 + 96.4 + 248 + 96.4 + 42 + 21.1) * 2).toFixed(2))
  })

  test('a zero-decimal currency: every amount in yen, without decimals', async () => {
    const { offer, seatMaps } = family({ currency: 'JPY' })
    const data = (await call(`/air/offers/${offer.id}?return_available_services=true`)).json.data
    for (const amount of [
      data.total_amount,
      data.base_amount,
      data.tax_amount,
      ...data.available_services.map((s: any) => s.total_amount),
      data.conditions.change_before_departure.penalty_amount,
    ]) {
      assert.match(amount, /^\d+$/)
    }
    assert.equal(baggage(data.available_services).find((s: any) => s.metadata.type === 'checked').total_amount, '4500')
    assert.equal(
      seatsOf(seatMaps).find((x) => x.seat.designator === '15A')!.seat.available_services[0]!.total_amount,
      '1600',
    )
    assert.ok(data.available_services.every((s: any) => s.total_currency === 'JPY'))
  })

  test('an airline that states little (easyJet by default): no aircraft, distance, terminals, fare basis, logos, brand nor conditions; paid at once', async () => {
    const { offer } = fake.addOffer({
      passengers: [{ type: 'adult' }],
      slices: [{ segments: [seg('LGW', 'AMS', 'U2', '8883', 20, '07:05', '09:20')] }],
    })
    const data = (await call(`/air/offers/${offer.id}?return_available_services=true`)).json.data
    const [slice] = data.slices
    const [g] = slice.segments
    assert.deepEqual(
      [
        g.aircraft,
        g.distance,
        g.origin_terminal,
        g.destination_terminal,
        g.operating_carrier_flight_number,
        g.passengers[0].fare_basis_code,
      ],
      [null, null, null, null, null, null],
    )
    assert.deepEqual(
      [data.owner.logo_symbol_url, data.owner.logo_lockup_url, g.marketing_carrier.logo_symbol_url],
      [null, null, null],
    )
    assert.deepEqual(
      [
        slice.fare_brand_name,
        slice.ngs_shelf,
        slice.conditions.change_before_departure,
        slice.conditions.advance_seat_selection,
      ],
      [null, null, null, null],
    )
    assert.deepEqual(data.conditions, { change_before_departure: null, refund_before_departure: null })
    assert.equal(data.partial, null)
    assert.deepEqual(data.payment_requirements, {
      requires_instant_payment: true,
      payment_required_by: null,
      price_guarantee_expires_at: null,
    })
    // Its seat maps are drawn all the same: a narrow-body, for want of an aircraft.
    assert.equal((await call(`/air/seat_maps?offer_id=${offer.id}`)).json.data[0].cabins[0].aisles, 1)
    // Any other airline states them; places carry Duffel's full shape.
    const ba = (await call(`/air/offers/${family().offer.id}`)).json.data
    const first = ba.slices[0].segments[0]
    assert.deepEqual(
      [
        first.aircraft.iata_code,
        first.origin_terminal,
        first.operating_carrier_flight_number,
        ba.partial,
        ba.payment_requirements.requires_instant_payment,
      ],
      ['77W', '5', '117', false, false],
    )
    assert.deepEqual(first.origin.city, {
      id: 'cit_lon_gb',
      type: 'city',
      iata_code: 'LON',
      iata_city_code: 'LON',
      iata_country_code: 'GB',
      name: 'London',
      city_name: null,
      icao_code: null,
      latitude: null,
      longitude: null,
      time_zone: null,
    })
    assert.equal(first.origin.airports, null)
    assert.equal(first.destination.city.iata_code, 'NYC')
    assert.equal(ba.slices[1].segments[0].destination.city, null, 'Boston: no metropolitan area')
  })

  test('an unknown offer is a 404; an expired one a 422 offer_no_longer_available', async () => {
    assertError(await call('/air/offers/off_0000doesnotexist'), 404, 'not_found')
    const { offer } = family({ expires_at: new Date(Date.now() + 60_000).toISOString() })
    fake.setNow(Date.parse(offer.expires_at) + 1)
    assertError(
      await call(`/air/offers/${offer.id}?return_available_services=true`),
      422,
      'offer_no_longer_available',
      'invalid_state_error',
    )
    assertError(await call(`/air/seat_maps?offer_id=${offer.id}`), 422, 'offer_no_longer_available')
    fake.setNow(Date.parse(offer.expires_at) - 1)
    assert.equal((await call(`/air/offers/${offer.id}`)).status, 200)
  })
})

describe('GET /air/seat_maps', () => {
  const elements = (map: any) =>
    map.cabins.flatMap((c: any) => c.rows.flatMap((row: any) => row.sections.flatMap((s: any) => s.elements)))

  test('a map per segment, drawn as Duffel draws cabins', async () => {
    const { offer } = family()
    const r = await call(`/air/seat_maps?offer_id=${offer.id}`)
    assert.equal(r.status, 200)
    const maps = r.json.data
    const segments = offer.slices.flatMap((s) => s.segments.map((g) => [s.id, g.id]))
    assert.deepEqual(
      maps.map((m: any) => [m.slice_id, m.segment_id]),
      segments,
    )
    for (const map of maps) {
      assert.match(map.id, /^sea_/)
      const [cabin] = map.cabins
      assert.equal(cabin.deck, 0)
      assert.equal(cabin.cabin_class, 'economy')
      assert.equal(cabin.rows[0].sections.length, cabin.aisles + 1)
      assert.ok(
        cabin.wings.first_row_index < cabin.wings.last_row_index && cabin.wings.last_row_index < cabin.rows.length,
      )
      // Rows, sections and elements have ids; every element has every key.
      for (const row of cabin.rows) {
        assert.match(row.id, /^row_/)
        for (const section of row.sections) assert.match(section.id, /^sec_/)
      }
      for (const e of elements(map)) {
        assert.deepEqual(Object.keys(e).sort(), [
          'available_services',
          'designator',
          'disclosures',
          'id',
          'name',
          'seat_characteristics',
          'type',
        ])
        assert.match(e.id, /^ele_/)
        if (e.type !== 'seat')
          assert.deepEqual([e.designator, e.name, e.disclosures, e.available_services], [null, null, null, []], e.type)
      }
      const types = new Set(elements(map).map((e: any) => e.type))
      for (const t of ['seat', 'exit_row', 'empty', 'lavatory', 'galley', 'bassinet', 'restricted_seat_general'])
        assert.ok(types.has(t), t)
      // Several seats no one may choose: no designator, nothing for sale.
      assert.ok(elements(map).filter((e: any) => e.type === 'restricted_seat_general').length >= 4)
      // Exits are rows of their own: exit_row elements only (a wide-body's middle section is empty, no door there).
      const exits = cabin.rows.filter((row: any) =>
        row.sections.some((s: any) => s.elements.some((e: any) => e.type === 'exit_row')),
      )
      assert.ok(exits.length > 0)
      for (const row of exits)
        assert.ok(row.sections.every((s: any) => s.elements.every((e: any) => e.type === 'exit_row')))
    }
    // The long-haul flight is a wide-body (two aisles), the short hop a narrow-body (one).
    assert.deepEqual(
      maps.map((m: any) => m.cabins[0].aisles),
      [2, 1, 2],
    )
  })

  test('seats are sold per passenger: exit rows to adults only, none to a lap infant, none when taken', async () => {
    const { offer } = family()
    const [adult, child, infant] = offer.passengers.map((p) => p.id)
    const maps = (await call(`/air/seat_maps?offer_id=${offer.id}`)).json.data
    const seats = seatsOf(maps)
      .filter((x) => x.segment_id === maps[1].segment_id)
      .map((x) => x.seat)
    assert.ok(seats.length >= 40, `${seats.length} seats`)
    for (const s of seats) assert.match(s.designator, /^\d{1,2}[A-K]$/)
    const byDesignator = new Map(seats.map((s) => [s.designator, s]))
    const exit = byDesignator.get('14A')!
    assert.ok(exit.disclosures.length > 0)
    assert.equal(exit.name, 'Exit row seat')
    assert.deepEqual(
      exit.available_services.map((s) => s.passenger_id),
      [adult],
    )
    const standard = byDesignator.get('15A')!
    assert.equal(standard.name, null)
    assert.deepEqual(
      standard.available_services.map((s) => s.passenger_id),
      [adult, child],
    )
    // Written as the airline wrote it: one decimal, not the currency's two.
    assert.deepEqual(
      standard.available_services.map((s) => [s.total_amount, s.total_currency]),
      [
        ['16.0', 'GBP'],
        ['16.0', 'GBP'],
      ],
    )
    assert.match(standard.available_services[0]!.id, /^ase_/)
    assert.deepEqual(byDesignator.get('12B')!.available_services, [])
    assert.deepEqual(
      byDesignator.get('19E')!.available_services.map((s) => s.total_amount),
      ['0.0', '0.0'],
      'the last row is free',
    )
    assert.ok(!byDesignator.has('18C'), '18C is a restricted seat: no designator')
    assert.ok(seats.every((s) => s.available_services.every((x) => x.passenger_id !== infant)))
  })

  test('no seat maps for an offer without seats; a map without wings; offer_id is required', async () => {
    const { offer } = family({ seats: false })
    assert.deepEqual((await call(`/air/seat_maps?offer_id=${offer.id}`)).json.data, [])
    const wingless = family({ wings: false }).offer
    assert.ok(
      (await call(`/air/seat_maps?offer_id=${wingless.id}`)).json.data.every((m: any) => m.cabins[0].wings === null),
    )
    assertError(await call('/air/seat_maps'), 422, 'validation_required')
  })
})

describe('orders', () => {
  test('GET /air/orders/{id}: the booking with its booked services', async () => {
    const { offer, seatMaps } = family()
    const [adult, child] = offer.passengers.map((p) => p.id)
    const bag = offer.available_services.find(
      (s) => s.passenger_ids[0] === adult && s.type === 'baggage' && s.metadata.type === 'checked',
    )!
    const seat = seatsOf(seatMaps).find(
      (x) => x.seat.designator === '15A' && x.segment_id === offer.slices[0]!.segments[0]!.id,
    )!.seat
    const seatService = seat.available_services.find((s) => s.passenger_id === child)!
    const { order } = fake.bookOrder(offer.id, {
      booking_reference: 'FKQ7PD',
      services: [{ id: bag.id, quantity: 2 }, seatService.id],
    })
    const r = await call(`/air/orders/${order.id}`)
    assert.equal(r.status, 200)
    const data = r.json.data
    assert.match(data.id, /^ord_/)
    assert.equal(data.booking_reference, 'FKQ7PD')
    assert.equal(data.live_mode, false)
    assert.equal(data.cancelled_at, null)
    assert.deepEqual(
      data.passengers.map((p: any) => p.id),
      offer.passengers.map((p) => p.id),
    )
    assert.equal(data.passengers[0].infant_passenger_id, offer.passengers[2]!.id)
    // An order's segments are ids of their own; its services name them.
    const orderSegments = data.slices.flatMap((s: any) => s.segments.map((g: any) => g.id))
    assert.equal(orderSegments.length, 3)
    assert.ok(
      orderSegments.every(
        (id: string) => id.startsWith('seg_') && !offer.slices.some((s) => s.segments.some((g) => g.id === id)),
      ),
    )
    assert.deepEqual(
      data.slices[0].segments[0].passengers.map((p: any) => p.passenger_id),
      offer.passengers.map((p) => p.id),
    )
    const [booked, seated] = data.services
    assert.match(booked.id, /^ser_/)
    assert.deepEqual(
      { ...booked, id: 'x' },
      {
        id: 'x',
        type: 'baggage',
        passenger_ids: [adult],
        segment_ids: [orderSegments[0]],
        quantity: 2,
        total_amount: '90.00',
        total_currency: 'GBP',
        metadata: {
          type: 'checked',
          maximum_weight_kg: 23,
          maximum_length_cm: null,
          maximum_height_cm: null,
          maximum_depth_cm: null,
        },
      },
    )
    assert.deepEqual(
      { ...seated, id: 'x' },
      {
        id: 'x',
        type: 'seat',
        passenger_ids: [child],
        segment_ids: [orderSegments[0]],
        quantity: 1,
        total_amount: '16.00',
        total_currency: 'GBP',
        metadata: { designator: '15A', disclosures: [], name: null },
      },
    )
    assert.equal(data.slices[0].segments[0].passengers[1].seat.designator, '15A')
    assert.equal(data.total_amount, (Number(offer.total_amount) + 106).toFixed(2))
    // Paid at once, with a ticket for each passenger; every passenger with a type, names and a birth date.
    assert.equal(data.type, 'instant')
    assert.deepEqual([data.payment_status.awaiting_payment, data.payment_status.paid_at], [false, data.created_at])
    assert.deepEqual(
      data.documents.map((d: any) => [d.type, d.passenger_ids]),
      offer.passengers.map((p) => ['electronic_ticket', [p.id]]),
    )
    assert.deepEqual(
      data.passengers.map((p: any) => p.type),
      ['adult', 'child', 'infant_without_seat'],
    )
    for (const p of data.passengers) for (const k of ['given_name', 'family_name', 'born_on']) assert.match(p[k], /\S/)
    assertError(await call('/air/orders/ord_0000doesnotexist'), 404, 'not_found')
  })

  test("passengers without a type (Duffel's orders may carry none); by age, the type their age makes them", async () => {
    const { order } = fake.bookOrder(family().offer.id, { passengerTypes: false })
    const data = (await call(`/air/orders/${order.id}`)).json.data
    for (const p of data.passengers) {
      assert.ok(!('type' in p))
      for (const k of ['given_name', 'family_name', 'born_on']) assert.match(p[k], /\S/)
    }
    const byAge = fake.bookOrder(family({ passengers: [{ type: 'adult' }, { age: 7 }, { age: 1 }] }).offer.id).order
    assert.deepEqual(
      byAge.passengers.map((p) => p.type),
      ['adult', 'child', 'infant_without_seat'],
    )
  })

  test("GET /air/orders?booking_reference= lists the account's orders with pagination meta", async () => {
    const token = freshToken()
    const a = fake.bookOrder(family({ token }).offer.id, { booking_reference: 'QX4T9M' }).order
    const b = fake.bookOrder(family({ token }).offer.id, { booking_reference: 'QX4T9M' }).order
    fake.bookOrder(family({ token }).offer.id, { booking_reference: 'ZZ9ZZ9' })
    const all = await call('/air/orders?booking_reference=QX4T9M', { token })
    assert.deepEqual(
      all.json.data.map((o: any) => o.id),
      [a.id, b.id],
    )
    assert.deepEqual(all.json.meta, { limit: 50, before: null, after: null })
    const page1 = await call('/air/orders?booking_reference=QX4T9M&limit=1', { token })
    assert.deepEqual(
      [page1.json.data.map((o: any) => o.id), page1.json.meta],
      [[a.id], { limit: 1, before: null, after: a.id }],
    )
    const page2 = await call(`/air/orders?booking_reference=QX4T9M&limit=1&after=${a.id}`, { token })
    assert.deepEqual(
      [page2.json.data.map((o: any) => o.id), page2.json.meta],
      [[b.id], { limit: 1, before: b.id, after: null }],
    )
    assert.deepEqual((await call('/air/orders?booking_reference=NOSUCH', { token })).json.data, [])
    assert.deepEqual(
      (await call('/air/orders?booking_reference=QX4T9M')).json.data,
      [],
      'another account sees none of them',
    )
    assertError(await call('/air/orders?limit=500', { token }), 422, 'validation_format')
  })

  test('GET /air/orders/{id}/available_services: the bags the order still sells', async () => {
    const { offer } = family({ seatServices: true })
    const bag = offer.available_services.find((s) => s.type === 'baggage' && s.metadata.type === 'checked')!
    const { order } = fake.bookOrder(offer.id, { services: [bag.id], postBookingBags: true })
    const r = await call(`/air/orders/${order.id}/available_services`)
    assert.equal(r.status, 200)
    assert.equal(r.json.data.length, 8)
    const orderSegments = new Set(order.slices.flatMap((s) => s.segments.map((g) => g.id)))
    for (const s of r.json.data) {
      assert.match(s.id, /^aso_/)
      // Only bags are sold after booking: no seat, no cancel-for-any-reason.
      assert.equal(s.type, 'baggage')
      assert.ok(s.segment_ids.every((id: string) => orderSegments.has(id)))
    }
    // The bag booked with the order counts against its maximum.
    const same = r.json.data.find(
      (s: any) =>
        s.passenger_ids[0] === bag.passenger_ids[0] &&
        s.metadata.type === 'checked' &&
        s.segment_ids[0] === order.slices[0]!.segments[0]!.id,
    )
    assert.equal(same.maximum_quantity, 1)
    assert.equal(same.total_amount, '45.00')
  })

  test("bags after booking are rare: a Duffel Airways order sells them, another airline's only when told", async () => {
    const ba = fake.bookOrder(family().offer.id).order
    assert.deepEqual((await call(`/air/orders/${ba.id}/available_services`)).json.data, [])
    const zzOffer = family({ slices: [{ segments: [seg('LHR', 'CDG', 'ZZ', '801', 9, '08:00', '10:15')] }] }).offer
    const zz = fake.bookOrder(zzOffer.id)
    assert.equal(zz.availableServices.length, 4)
    assert.deepEqual(
      (await call(`/air/orders/${zz.order.id}/available_services`)).json.data.map((s: any) => s.id),
      zz.availableServices.map((s) => s.id),
    )
    assert.equal(fake.bookOrder(family().offer.id, { postBookingBags: true }).availableServices.length, 8)
    const none = fake.bookOrder(
      family({ slices: [{ segments: [seg('LHR', 'CDG', 'ZZ', '801', 9, '08:00', '10:15')] }] }).offer.id,
      { postBookingBags: false },
    )
    assert.deepEqual((await call(`/air/orders/${none.order.id}/available_services`)).json.data, [])
    // Nothing to buy: a service id of another order is not available on this one.
    const other = zz.availableServices[0]!
    assertError(
      await post(ba.id, { amount: other.total_amount }, [{ id: other.id, quantity: 1 }]),
      422,
      'ancillary_service_not_available',
    )
  })

  test('a cancelled order says so, sells nothing and takes no purchase', async () => {
    const { order, availableServices } = fake.bookOrder(family().offer.id, { postBookingBags: true })
    fake.cancelOrder(order.id)
    const r = await call(`/air/orders/${order.id}`)
    assert.match(r.json.data.cancelled_at, /^\d{4}-\d{2}-\d{2}T/)
    assert.deepEqual((await call(`/air/orders/${order.id}/available_services`)).json.data, [])
    const s = availableServices[0]!
    assertError(await post(order.id, { amount: s.total_amount }, [{ id: s.id, quantity: 1 }]), 422, 'order_cancelled')
  })
})

describe('test and live mode, accounts', () => {
  test("a test token never sees live data nor another account's, and the other way round", async () => {
    const live = freshToken({ live: true })
    const other = freshToken()
    const liveOffer = family({ token: live }).offer
    const liveOrder = fake.bookOrder(liveOffer.id, { booking_reference: 'LV5E7R' }).order
    const testOffer = family().offer
    assert.equal(liveOffer.live_mode, true)
    assert.equal((await call(`/air/offers/${liveOffer.id}`, { token: live })).json.data.live_mode, true)
    assert.equal((await call(`/air/orders/${liveOrder.id}`, { token: live })).json.data.live_mode, true)
    assertError(await call(`/air/offers/${liveOffer.id}`), 404, 'not_found')
    assertError(await call(`/air/seat_maps?offer_id=${liveOffer.id}`), 404, 'not_found')
    assertError(await call(`/air/orders/${liveOrder.id}`), 404, 'not_found')
    assertError(await call(`/air/orders/${liveOrder.id}/available_services`), 404, 'not_found')
    assert.deepEqual((await call('/air/orders?booking_reference=LV5E7R')).json.data, [])
    assertError(await call(`/air/offers/${testOffer.id}`, { token: live }), 404, 'not_found')
    assertError(await call(`/air/offers/${testOffer.id}`, { token: other }), 404, 'not_found')
  })
})

describe('POST /air/orders/{id}/services', () => {
  function booked(balance?: string) {
    const token = freshToken(balance ? { balance } : {})
    const { order, availableServices } = fake.bookOrder(family({ token }).offer.id, { postBookingBags: true })
    const checked = availableServices.find((s) => s.metadata.type === 'checked')!
    const carry = availableServices.find((s) => s.metadata.type === 'carry_on')!
    return { token, order, checked, carry }
  }

  test('adds the services, answers the order, debits the balance', async () => {
    const { token, order, checked, carry } = booked()
    const r = await post(
      order.id,
      { amount: '105.00' },
      [
        { id: checked.id, quantity: 2 },
        { id: carry.id, quantity: 1 },
      ],
      token,
    )
    assert.equal(r.status, 201)
    const services = r.json.data.services
    assert.equal(services.length, 2)
    assert.deepEqual(
      services.map((s: any) => [s.type, s.quantity, s.total_amount, s.passenger_ids, s.segment_ids, s.metadata.type]),
      [
        ['baggage', 2, '90.00', checked.passenger_ids, checked.segment_ids, 'checked'],
        ['baggage', 1, '15.00', carry.passenger_ids, carry.segment_ids, 'carry_on'],
      ],
    )
    assert.ok(services.every((s: any) => /^ser_/.test(s.id)))
    assert.equal(r.json.data.total_amount, (Number(order.total_amount) + 105).toFixed(2))
    assert.deepEqual(fake.balance(token), { amount: '9895.00', currency: 'GBP' })
    assert.deepEqual((await call(`/air/orders/${order.id}`, { token })).json.data.services, services)
    // Used up: both reached their maximum and are no longer sold.
    const left = (await call(`/air/orders/${order.id}/available_services`, { token })).json.data.map((s: any) => s.id)
    assert.ok(!left.includes(checked.id) && !left.includes(carry.id))
    assertError(
      await post(order.id, { amount: '45.00' }, [{ id: checked.id, quantity: 1 }], token),
      422,
      'ancillary_service_not_available',
      'invalid_state_error',
    )
  })

  test('refusals change nothing', async () => {
    const { token, order, checked } = booked('50.00')
    const cases: Array<[Parameters<typeof post>[1], Parameters<typeof post>[2], number, string]> = [
      [{ amount: '45.00' }, [{ id: 'aso_0000unknown', quantity: 1 }], 422, 'ancillary_service_not_available'],
      [{ amount: '135.00' }, [{ id: checked.id, quantity: 3 }], 422, 'maximum_quantity_exceeded'],
      [{ amount: '44.99' }, [{ id: checked.id, quantity: 1 }], 422, 'payment_amount_does_not_match_order_amount'],
      [{ amount: '45.00', currency: 'EUR' }, [{ id: checked.id, quantity: 1 }], 422, 'invalid_payment_currency'],
      [{ amount: '45.00', type: 'arc_bsp_cash' }, [{ id: checked.id, quantity: 1 }], 422, 'unsupported_payment_type'],
      [{ amount: '90.00' }, [{ id: checked.id, quantity: 2 }], 422, 'insufficient_balance'],
      [{ amount: '45.00' }, [{ id: checked.id, quantity: 0 }], 422, 'validation_format'],
      [
        { amount: '45.00' },
        [
          { id: checked.id, quantity: 1 },
          { id: checked.id, quantity: 1 },
        ],
        422,
        'validation_format',
      ],
      [{ amount: '45.001' }, [{ id: checked.id, quantity: 1 }], 422, 'validation_format'],
      [{ amount: '0.00' }, [], 422, 'validation_required'],
    ]
    for (const [payment, add, status, code] of cases)
      assertError(await post(order.id, payment, add, token), status, code)
    assertError(
      await call(`/air/orders/${order.id}/services`, { token, body: { payment: { type: 'balance' } } }),
      422,
      'validation_required',
    )
    assertError(await call(`/air/orders/${order.id}/services`, { token, raw: '{"data":' }), 400, 'invalid_json')
    assertError(
      await post('ord_0000doesnotexist', { amount: '45.00' }, [{ id: checked.id, quantity: 1 }], token),
      404,
      'not_found',
    )
    assert.deepEqual(fake.balance(token), { amount: '50.00', currency: 'GBP' })
    assert.deepEqual(fake.order(order.id).order.services, [])
    // And the one that fits the balance goes through.
    assert.equal((await post(order.id, { amount: '45.00' }, [{ id: checked.id, quantity: 1 }], token)).status, 201)
    assert.deepEqual(fake.balance(token), { amount: '5.00', currency: 'GBP' })
  })

  test('the field at fault is named: the service, the amount', async () => {
    const { token, order, checked } = booked()
    const unknown = await post(
      order.id,
      { amount: '45.00' },
      [
        { id: checked.id, quantity: 1 },
        { id: 'aso_0000unknown', quantity: 1 },
      ],
      token,
    )
    assert.deepEqual(unknown.json.errors[0].source, { field: 'id', pointer: '/add_services/1/id' })
    const short = await post(order.id, { amount: '44.99' }, [{ id: checked.id, quantity: 1 }], token)
    assertError(short, 422, 'payment_amount_does_not_match_order_amount', 'validation_error')
    assert.deepEqual(short.json.errors[0].source, { field: 'amount', pointer: '/payment/amount' })
  })

  test('an account whose balance cannot pay: insufficient_balance, nothing added', async () => {
    const { token, order, checked } = booked('0.00')
    assertError(
      await post(order.id, { amount: '45.00' }, [{ id: checked.id, quantity: 1 }], token),
      422,
      'insufficient_balance',
      'invalid_state_error',
    )
    assert.deepEqual(fake.order(order.id).order.services, [])
  })
})

const search = (data: unknown, opts: { token?: string; query?: string } = {}) =>
  call(`/air/offer_requests${opts.query ?? '?return_offers=true'}`, { token: opts.token, body: { data } })
/** A local time at an airport ("2026-05-01T08:45:00") as its instant. */
const instant = (local: string, timeZone: string) => {
  const naive = Date.parse(`${local}Z`)
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    })
      .formatToParts(new Date(naive))
      .map((x) => [x.type, x.value]),
  )
  const offset = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute)) - naive
  return naive - offset
}

describe('POST /air/offer_requests', () => {
  test('a return search: one offer by Duffel Airways, one by British Airways, for the requested slices, dates and passengers', async () => {
    const token = freshToken()
    const r = await search(
      {
        slices: [
          { origin: 'LHR', destination: 'JFK', departure_date: day(30) },
          { origin: 'JFK', destination: 'LHR', departure_date: day(37) },
        ],
        passengers: [{ type: 'adult' }, { age: 7 }, { age: 1 }],
        cabin_class: 'economy',
      },
      { token },
    )
    assert.equal(r.status, 201, JSON.stringify(r.json))
    const data = r.json.data
    assert.match(data.id, /^orq_/)
    assert.equal(data.live_mode, false)
    assert.equal(data.cabin_class, 'economy')
    assert.deepEqual(
      data.slices.map((s: any) => [
        s.origin.iata_code,
        s.origin_type,
        s.destination.iata_code,
        s.destination_type,
        s.departure_date,
      ]),
      [
        ['LHR', 'airport', 'JFK', 'airport', day(30)],
        ['JFK', 'airport', 'LHR', 'airport', day(37)],
      ],
    )
    // Searched by age, a passenger has no type: Duffel answers the age (and the adult's age is null).
    assert.deepEqual(
      data.passengers.map((p: any) => [p.type, p.age, p.given_name, p.fare_type]),
      [
        ['adult', null, null, null],
        [null, 7, null, null],
        [null, 1, null, null],
      ],
    )
    assert.equal(typeof data.client_key, 'string')
    const ids = data.passengers.map((p: any) => p.id)
    assert.ok(ids.every((id: string) => /^pas_/.test(id)))
    assert.deepEqual(
      data.offers.map((o: any) => [o.owner.iata_code, o.owner.name]),
      [
        ['ZZ', 'Duffel Airways'],
        ['BA', 'British Airways'],
      ],
    )
    for (const offer of data.offers as WireOffer[]) {
      assert.match(offer.id, /^off_/)
      assert.equal(offer.available_services, null, 'a search lists offers without their services, as Duffel')
      assert.deepEqual(
        offer.passengers.map((p) => [p.id, p.type, p.age]),
        data.passengers.map((p: any) => [p.id, p.type, p.age]),
        "an offer's passengers are the request's",
      )
      assert.equal(Date.parse(offer.expires_at) - Date.parse(data.created_at), 30 * 60_000)
      assert.equal(offer.total_amount, ((312 + 96.4 + 248 + 96.4 + 42 + 21.1) * 2).toFixed(2))
      assert.deepEqual(
        offer.slices.map((s) => s.segments.length),
        [1, 1],
      )
      for (const [i, [from, to, date]] of (
        [
          ['LHR', 'JFK', day(30)],
          ['JFK', 'LHR', day(37)],
        ] as const
      ).entries()) {
        const g = offer.slices[i]!.segments[0]!
        assert.deepEqual(
          [g.origin.iata_code, g.destination.iata_code, g.marketing_carrier.iata_code],
          [from, to, offer.owner.iata_code],
        )
        assert.match(g.marketing_carrier_flight_number, /^[1-9]\d{2}$/)
        assert.equal(g.departing_at.slice(0, 10), date)
        assert.equal(g.origin.time_zone, from === 'LHR' ? 'Europe/London' : 'America/New_York')
        assert.equal(g.destination.time_zone, to === 'LHR' ? 'Europe/London' : 'America/New_York')
        // Local daytime at both ends; the duration is the time between the two instants (time zones apart).
        for (const t of [g.departing_at, g.arriving_at])
          assert.ok(t.slice(11, 16) >= '06:00' && t.slice(11, 16) <= '23:30', t)
        const minutes =
          (instant(g.arriving_at, g.destination.time_zone) - instant(g.departing_at, g.origin.time_zone)) / 60_000
        assert.ok(minutes > 6 * 60 && minutes < 9 * 60, `${minutes} minutes`)
        assert.equal(
          g.duration,
          `PT${String(Math.floor(minutes / 60)).padStart(2, '0')}H${String(minutes % 60).padStart(2, '0')}M`,
        )
        assert.equal(g.passengers[0]!.cabin_class, 'economy')
      }
      // The offer is the account's, with its bags and seat maps, as addOffer makes them.
      const full = (await call(`/air/offers/${offer.id}?return_available_services=true`, { token })).json.data
      assert.equal(full.available_services.filter((s: any) => s.type === 'baggage').length, 8)
      assert.deepEqual(full.slices, offer.slices)
      assert.equal((await call(`/air/seat_maps?offer_id=${offer.id}`, { token })).json.data.length, 2)
      assertError(await call(`/air/offers/${offer.id}`), 404, 'not_found')
      assert.equal(fake.offer(offer.id).offer.id, offer.id)
    }
    assert.notEqual(
      data.offers[0].slices[0].segments[0].departing_at,
      data.offers[1].slices[0].segments[0].departing_at,
    )
  })

  test('a city code flies from its airport; a live token searches in live mode; return_offers=false lists no offers', async () => {
    const live = freshToken({ live: true })
    const r = await search(
      {
        slices: [{ origin: 'LON', destination: 'NYC', departure_date: day(20) }],
        passengers: [{ type: 'adult' }],
        cabin_class: 'business',
      },
      { token: live },
    )
    assert.equal(r.status, 201, JSON.stringify(r.json))
    const [slice] = r.json.data.slices
    assert.deepEqual(
      [slice.origin.type, slice.origin.iata_code, slice.origin.name, slice.origin_type],
      ['city', 'LON', 'London', 'city'],
    )
    assert.deepEqual(
      slice.origin.airports.map((a: any) => a.iata_code),
      ['LHR', 'LGW', 'STN'],
    )
    assert.equal(r.json.data.live_mode, true)
    for (const offer of r.json.data.offers) {
      assert.equal(offer.live_mode, true)
      const g = offer.slices[0].segments[0]
      assert.deepEqual(
        [g.origin.iata_code, g.destination.iata_code, g.passengers[0].cabin_class],
        ['LHR', 'JFK', 'business'],
      )
    }
    const bare = await search(
      { slices: [{ origin: 'MAN', destination: 'DUB', departure_date: day(3) }], passengers: [{ type: 'adult' }] },
      { query: '?return_offers=false' },
    )
    assert.equal(bare.status, 201)
    assert.ok(!('offers' in bare.json.data))
    assert.equal(bare.json.data.cabin_class, null, 'no cabin named: null, as Duffel')
    // A short-haul search finds easyJet too, an airline that states little; the request's places in Duffel's shape.
    const short = await search({
      slices: [{ origin: 'MAN', destination: 'DUB', departure_date: day(3) }],
      passengers: [{ type: 'adult' }],
    })
    assert.deepEqual(
      short.json.data.offers.map((o: any) => o.owner.iata_code),
      ['ZZ', 'BA', 'U2'],
    )
    assert.equal(short.json.data.offers[2].slices[0].segments[0].aircraft, null)
    assert.deepEqual([short.json.data.slices[0].origin.airports, short.json.data.slices[0].origin.city], [null, null])
    assert.deepEqual([slice.origin.city, slice.origin.city_name, slice.origin.time_zone], [null, null, null])
    assert.deepEqual(Object.keys(slice.origin.airports[0]).sort(), [
      'city_name',
      'iata_city_code',
      'iata_code',
      'iata_country_code',
      'icao_code',
      'id',
      'latitude',
      'longitude',
      'name',
      'time_zone',
      'type',
    ])
  })

  test("refusals: Duffel's 422 validation envelope", async () => {
    const slice = { origin: 'LHR', destination: 'JFK', departure_date: day(30) }
    const adult = { type: 'adult' }
    const cases: Array<[unknown, string, string?]> = [
      [undefined, 'validation_required'],
      [{ passengers: [adult] }, 'validation_required'],
      [{ slices: [slice], passengers: [] }, 'validation_required'],
      [{ slices: [{ origin: 'LHR', destination: 'JFK' }], passengers: [adult] }, 'validation_required'],
      [{ slices: [{ ...slice, origin: 'XYZ' }], passengers: [adult] }, 'validation_format'],
      [{ slices: [{ ...slice, destination: 'jfk' }], passengers: [adult] }, 'validation_format'],
      [{ slices: [{ ...slice, destination: 'LHR' }], passengers: [adult] }, 'validation_format'],
      [{ slices: [{ ...slice, origin: 'LON', destination: 'LHR' }], passengers: [adult] }, 'validation_format'],
      [{ slices: [{ ...slice, departure_date: '2031-02-30' }], passengers: [adult] }, 'validation_format'],
      [{ slices: [{ ...slice, departure_date: day(-1) }], passengers: [adult] }, 'validation_format'],
      [{ slices: [slice], passengers: [{ type: 'child' }] }, 'validation_format'],
      [{ slices: [slice], passengers: [{}] }, 'validation_required'],
      [{ slices: [slice], passengers: [{ age: -1 }] }, 'validation_format'],
      [{ slices: [slice], passengers: [{ fare_type: 'student' }] }, 'validation_format'],
      [{ slices: [slice], passengers: [adult, { age: 0 }, { age: 1 }] }, 'validation_format'],
      [{ slices: [slice], passengers: [adult], cabin_class: 'steerage' }, 'validation_format'],
      [{ slices: [slice], passengers: [adult] }, 'validation_format', '?return_offers=maybe'],
    ]
    for (const [data, code, query] of cases) {
      const r = data === undefined ? await call('/air/offer_requests', { body: {} }) : await search(data, { query })
      assertError(r, 422, code)
      assert.equal(r.json.errors[0].type, 'validation_error')
    }
  })
})

describe("Duffel's test-mode routes (POST /air/offer_requests, as duffel.com/docs/api/overview/test-your-integration lists them)", () => {
  const oneWay = (origin: string, destination: string, extra: Record<string, unknown> = {}) => ({
    slices: [{ origin, destination, departure_date: day(30) }],
    passengers: [{ type: 'adult' }],
    ...extra,
  })
  /** The seller's traveller for each of the offer's passengers (adults, or a child by age). */
  const travellers = (offer: WireOffer) =>
    offer.passengers.map((p, i) => ({
      id: p.id,
      title: 'ms',
      gender: 'f',
      given_name: `Ada${'ABC'[i]}`,
      family_name: 'Lovelace',
      born_on: p.age === null ? '1985-12-10' : day(-p.age * 366 - 30),
      email: `ada${i}@example.com`,
      phone_number: '+442079460000',
    }))
  const book = (offer: WireOffer, type: 'instant' | 'hold', token: string) =>
    call('/air/orders', {
      token,
      body: {
        data: {
          type,
          selected_offers: [offer.id],
          passengers: travellers(offer),
          ...(type === 'instant'
            ? { payments: [{ type: 'balance', currency: offer.total_currency, amount: offer.total_amount }] }
            : {}),
        },
      },
    })

  test('PVD → RAI, No Flights: the search succeeds with no offers; a live-mode search of it is any search', async () => {
    const token = freshToken()
    const r = await search(oneWay('PVD', 'RAI'), { token })
    assert.equal(r.status, 201, JSON.stringify(r.json))
    assert.deepEqual(r.json.data.offers, [])
    assert.match(r.json.data.id, /^orq_/)
    const [slice] = r.json.data.slices
    assert.deepEqual(
      [
        slice.origin.iata_code,
        slice.origin.name,
        slice.origin.icao_code,
        slice.origin.time_zone,
        slice.origin.city_name,
        slice.origin.city,
      ],
      ['PVD', 'Rhode Island T. F. Green International Airport', 'KPVD', 'America/New_York', 'Providence', null],
    )
    assert.deepEqual(
      [
        slice.destination.iata_code,
        slice.destination.icao_code,
        slice.destination.iata_country_code,
        slice.destination.time_zone,
      ],
      ['RAI', 'GVNP', 'CV', 'Atlantic/Cape_Verde'],
    )
    // Only the first slice names the route: a return from Praia changes nothing.
    const both = await search(
      {
        ...oneWay('PVD', 'RAI'),
        slices: [
          { origin: 'PVD', destination: 'RAI', departure_date: day(30) },
          { origin: 'RAI', destination: 'PVD', departure_date: day(40) },
        ],
      },
      { token },
    )
    assert.deepEqual(both.json.data.offers, [])
    const bare = await search(oneWay('PVD', 'RAI'), { token, query: '?return_offers=false' })
    assert.equal(bare.status, 201)
    assert.ok(!('offers' in bare.json.data))
    // The test routes are test mode's: a live token's search of PVD → RAI finds flights as any other.
    const live = await search(oneWay('PVD', 'RAI'), { token: freshToken({ live: true }) })
    assert.deepEqual(
      live.json.data.offers.map((o: any) => o.owner.iata_code),
      ['ZZ', 'BA'],
    )
  })

  test("JFK → EWR, Hold Orders: every offer Duffel Airways', payable later, and booked as a hold then paid", async () => {
    const token = freshToken()
    const r = await search(
      {
        ...oneWay('JFK', 'EWR'),
        slices: [
          { origin: 'JFK', destination: 'EWR', departure_date: day(30) },
          { origin: 'EWR', destination: 'JFK', departure_date: day(33) },
        ],
      },
      { token },
    )
    assert.equal(r.status, 201, JSON.stringify(r.json))
    const offers = r.json.data.offers as WireOffer[]
    assert.ok(offers.length > 0)
    assert.equal(r.json.data.slices[0].destination.name, 'Newark Liberty International Airport')
    assert.equal(r.json.data.slices[0].destination.city.iata_code, 'NYC')
    for (const offer of offers) {
      assert.equal(offer.owner.iata_code, 'ZZ')
      const { requires_instant_payment, payment_required_by, price_guarantee_expires_at } = offer.payment_requirements
      assert.equal(requires_instant_payment, false)
      assert.ok(Date.parse(payment_required_by!) > Date.now(), 'payment_required_by is set, in the future')
      assert.ok(
        Date.parse(price_guarantee_expires_at!) > Date.now(),
        'price_guarantee_expires_at is set, in the future',
      )
      assert.deepEqual(
        offer.slices.map((s) => s.segments.map((g) => `${g.origin.iata_code}-${g.destination.iata_code}`)),
        [['JFK-EWR'], ['EWR-JFK']],
      )
    }
    const held = await book(offers[0]!, 'hold', token)
    assert.equal(held.status, 201, JSON.stringify(held.json))
    assert.deepEqual(
      [
        held.json.data.type,
        held.json.data.payment_status.awaiting_payment,
        held.json.data.payment_status.payment_required_by,
      ],
      ['hold', true, offers[0]!.payment_requirements.payment_required_by],
    )
    assert.equal(fake.balance(token).amount, '10000.00')
    const paid = await call('/air/payments', {
      token,
      body: {
        data: {
          order_id: held.json.data.id,
          payment: { type: 'balance', currency: 'GBP', amount: held.json.data.total_amount },
        },
      },
    })
    assert.equal(paid.status, 201, JSON.stringify(paid.json))
    assert.equal(
      (await call(`/air/orders/${held.json.data.id}`, { token })).json.data.payment_status.awaiting_payment,
      false,
    )
  })

  test("LHR → DXB, Connecting Flights: every offer's slice in two segments, connecting at Frankfurt; its return too", async () => {
    const token = freshToken()
    const r = await search(
      {
        ...oneWay('LHR', 'DXB'),
        slices: [
          { origin: 'LHR', destination: 'DXB', departure_date: day(30) },
          { origin: 'DXB', destination: 'LHR', departure_date: day(37) },
        ],
      },
      { token },
    )
    assert.equal(r.status, 201, JSON.stringify(r.json))
    const offers = r.json.data.offers as WireOffer[]
    assert.ok(offers.length > 0)
    for (const offer of offers) {
      assert.equal(offer.owner.iata_code, 'ZZ')
      assert.deepEqual(
        offer.slices.map((s) => s.segments.map((g) => `${g.origin.iata_code}-${g.destination.iata_code}`)),
        [
          ['LHR-FRA', 'FRA-DXB'],
          ['DXB-FRA', 'FRA-LHR'],
        ],
      )
      for (const slice of offer.slices) {
        assert.ok(slice.segments.length > 1)
        const [a, b] = slice.segments as [
          WireOffer['slices'][number]['segments'][number],
          WireOffer['slices'][number]['segments'][number],
        ]
        assert.equal(a.destination.id, b.origin.id)
        assert.equal(a.destination.time_zone, 'Europe/Berlin')
        const landed = instant(a.arriving_at, a.destination.time_zone)
        const leaves = instant(b.departing_at, b.origin.time_zone)
        assert.equal(leaves - landed, 90 * 60_000, 'an hour and a half to connect')
        assert.notEqual(a.marketing_carrier_flight_number, b.marketing_carrier_flight_number)
        assert.deepEqual([a.stops, b.stops], [[], []])
        const minutes =
          (instant(b.arriving_at, b.destination.time_zone) - instant(a.departing_at, a.origin.time_zone)) / 60_000
        assert.equal(
          slice.duration,
          `PT${String(Math.floor(minutes / 60)).padStart(2, '0')}H${String(minutes % 60).padStart(2, '0')}M`,
          'the slice lasts from the first take-off to the last landing',
        )
        assert.deepEqual(
          [slice.origin.iata_code, slice.destination.iata_code],
          [a.origin.iata_code, b.destination.iata_code],
        )
      }
      // One seat map per segment, and bags per slice (covering both of its segments), as addOffer builds them.
      assert.equal((await call(`/air/seat_maps?offer_id=${offer.id}`, { token })).json.data.length, 4)
      const bags = (
        await call(`/air/offers/${offer.id}?return_available_services=true`, { token })
      ).json.data.available_services.filter((s: any) => s.type === 'baggage')
      assert.ok(bags.length > 0 && bags.every((s: any) => s.segment_ids.length === 2))
    }
  })

  test('BTS → MRU, No Segment Passenger Baggages: no bags for any passenger on any segment, none for sale before booking or after', async () => {
    const token = freshToken()
    const r = await search({ ...oneWay('BTS', 'MRU'), passengers: [{ type: 'adult' }, { age: 9 }] }, { token })
    assert.equal(r.status, 201, JSON.stringify(r.json))
    const offers = r.json.data.offers as WireOffer[]
    assert.ok(offers.length > 0)
    assert.deepEqual(
      [
        r.json.data.slices[0].origin.name,
        r.json.data.slices[0].origin.time_zone,
        r.json.data.slices[0].destination.name,
        r.json.data.slices[0].destination.time_zone,
      ],
      [
        'Bratislava M. R. Štefánik Airport',
        'Europe/Bratislava',
        'Sir Seewoosagur Ramgoolam International Airport',
        'Indian/Mauritius',
      ],
    )
    for (const offer of offers) {
      assert.equal(offer.owner.iata_code, 'ZZ')
      const passengers = offer.slices.flatMap((s) => s.segments.flatMap((g) => g.passengers))
      assert.equal(passengers.length, 2)
      for (const p of passengers) assert.deepEqual(p.baggages, [])
      const full = (await call(`/air/offers/${offer.id}?return_available_services=true`, { token })).json.data
      assert.deepEqual(
        full.available_services.filter((s: any) => s.type === 'baggage'),
        [],
      )
      assert.deepEqual(full.slices, offer.slices)
    }
    // Booked, the order has no bags either, and (though Duffel Airways sells bags after booking) none to add.
    const booked = await book(offers[0]!, 'instant', token)
    assert.equal(booked.status, 201, JSON.stringify(booked.json))
    for (const p of booked.json.data.slices.flatMap((s: any) => s.segments.flatMap((g: any) => g.passengers)))
      assert.deepEqual(p.baggages, [])
    assert.deepEqual((await call(`/air/orders/${booked.json.data.id}/available_services`, { token })).json.data, [])
  })

  test('STN → LHR, Timeout: the search is never answered (a malformed one still is); a live-mode search of it is answered', async () => {
    const token = freshToken()
    fake.clearRequests()
    const controller = new AbortController()
    const pending = search(oneWay('STN', 'LHR'), { token })
    const held = call('/air/offer_requests', { token, body: { data: oneWay('STN', 'LHR') }, signal: controller.signal })
    void pending.catch(() => undefined)
    // Held, as the timeout switch holds: the time-out starts once the fake holds the request.
    for (let waited = 0; fake.requests.length < 2; waited += 5) {
      assert.ok(waited < 5000, 'the requests reached the fake')
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const timeout = AbortSignal.timeout(150)
    timeout.addEventListener('abort', () => controller.abort(timeout.reason))
    await assert.rejects(held, (e: Error) => e.name === 'TimeoutError')
    assert.deepEqual(
      fake.requests.map((r) => [r.path, r.status]),
      [
        ['/air/offer_requests', null],
        ['/air/offer_requests', null],
      ],
    )
    // Its body is checked first, as for any search; and other searches are answered meanwhile.
    assertError(await search({ ...oneWay('STN', 'LHR'), passengers: [] }, { token }), 422, 'validation_required')
    assert.equal((await search(oneWay('LHR', 'STN'), { token })).status, 201)
    const live = await search(oneWay('STN', 'LHR'), { token: freshToken({ live: true }) })
    assert.equal(live.status, 201)
    assert.equal(live.json.data.slices[0].origin.name, 'London Stansted Airport')
    assert.equal(live.json.data.slices[0].origin.city.iata_code, 'LON')
    assert.deepEqual(
      live.json.data.offers.map((o: any) => o.owner.iata_code),
      ['ZZ', 'BA', 'U2'],
    )
    // `pending` stays unanswered until the fake closes (after all tests).
  })

  test("DXB → AMS, Has Stops: each segment makes one stop, in Duffel's shape; an order of the offer keeps it", async () => {
    const token = freshToken()
    const r = await search(
      {
        ...oneWay('DXB', 'AMS'),
        slices: [
          { origin: 'DXB', destination: 'AMS', departure_date: day(30) },
          { origin: 'AMS', destination: 'DXB', departure_date: day(37) },
        ],
      },
      { token },
    )
    assert.equal(r.status, 201, JSON.stringify(r.json))
    const offers = r.json.data.offers as WireOffer[]
    assert.ok(offers.length > 0)
    for (const offer of offers) {
      assert.equal(offer.owner.iata_code, 'ZZ')
      for (const slice of offer.slices) {
        for (const g of slice.segments) {
          assert.equal(g.stops.length, 1)
          const [stop] = g.stops
          assert.deepEqual(Object.keys(stop!).sort(), ['airport', 'arriving_at', 'departing_at', 'duration', 'id'])
          assert.match(stop!.id, /^sto_/)
          assert.deepEqual(
            [
              stop!.airport.iata_code,
              stop!.airport.type,
              stop!.airport.icao_code,
              stop!.airport.time_zone,
              stop!.airport.name,
            ],
            ['IST', 'airport', 'LTFM', 'Europe/Istanbul', 'Istanbul Airport'],
          )
          assert.match(
            stop!.arriving_at,
            /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/,
            'local at the stop, as Duffel writes it',
          )
          const [departs, lands, stopLands, stopLeaves] = [
            instant(g.departing_at, g.origin.time_zone),
            instant(g.arriving_at, g.destination.time_zone),
            instant(stop!.arriving_at, 'Europe/Istanbul'),
            instant(stop!.departing_at, 'Europe/Istanbul'),
          ]
          assert.ok(
            departs < stopLands && stopLands < stopLeaves && stopLeaves < lands,
            'the stop is between take-off and landing',
          )
          assert.equal(stop!.duration, 'PT01H00M')
          assert.equal(stopLeaves - stopLands, 60 * 60_000)
        }
      }
    }
    const booked = await book(offers[0]!, 'instant', token)
    assert.equal(booked.status, 201, JSON.stringify(booked.json))
    const orderSegments = booked.json.data.slices.flatMap((s: any) => s.segments)
    assert.deepEqual(
      orderSegments.map((g: any) => g.stops),
      offers[0]!.slices.flatMap((s) => s.segments.map((g) => g.stops)),
    )
    // The builder checks a stop lies within its segment.
    assert.throws(
      () =>
        fake.addOffer({
          passengers: [{ type: 'adult' }],
          slices: [
            {
              segments: [
                {
                  ...seg('DXB', 'AMS', 'ZZ', '464', 30, '08:45', '14:10'),
                  stops: [{ airport: 'IST', arriving_at: `${day(30)}T13:00`, departing_at: `${day(30)}T12:00` }],
                },
              ],
            },
          ],
        }),
      /stop 0/,
    )
  })

  test('any other route is searched as before (EWR → JFK, the reverse of Hold Orders): every carrier, direct, no stops, paid at once by easyJet', async () => {
    const r = await search(oneWay('EWR', 'JFK'))
    assert.deepEqual(
      r.json.data.offers.map((o: any) => o.owner.iata_code),
      ['ZZ', 'BA', 'U2'],
    )
    for (const offer of r.json.data.offers as WireOffer[])
      assert.deepEqual(
        offer.slices[0]!.segments.map((g) => g.stops),
        [[]],
      )
    assert.deepEqual(
      r.json.data.offers.map((o: any) => o.payment_requirements.requires_instant_payment),
      [false, false, true],
    )
  })
})

describe('POST /air/orders', () => {
  const born = (type: string | null) => (type === 'adult' ? '1985-12-10' : type === 'child' ? day(-8 * 365) : day(-200))
  /** The seller's travellers, one per passenger of the offer (the first adult holds the infant, when there is one). */
  function travellers(offer: WireOffer) {
    const infant = offer.passengers.find((p) => p.type === 'infant_without_seat' || (p.age !== null && p.age < 2))?.id
    return offer.passengers.map((p, i) => ({
      id: p.id,
      title: 'ms',
      gender: 'f',
      given_name: `Ada${'ABC'[i]}`,
      family_name: 'Lovelace',
      born_on: born(p.type),
      email: `ada${i}@example.com`,
      phone_number: '+442079460000',
      ...(i === 0 && infant ? { infant_passenger_id: infant } : {}),
    }))
  }
  const plus = (amount: string, extra: number) => (Number(amount) + extra).toFixed(2)
  function orderOf(
    offer: WireOffer,
    opts: {
      amount?: string
      services?: Array<{ id: string; quantity: number }>
      passengers?: unknown[]
      payments?: unknown[]
      [k: string]: unknown
    } = {},
  ) {
    const { amount, services, passengers, payments, ...rest } = opts
    return {
      type: 'instant',
      selected_offers: [offer.id],
      services: services ?? [],
      payments: payments ?? [{ type: 'balance', currency: offer.total_currency, amount: amount ?? offer.total_amount }],
      passengers: passengers ?? travellers(offer),
      ...rest,
    }
  }
  const order = (data: unknown, token?: string) => call('/air/orders', { token, body: { data } })
  /** A checked bag of the adult's first slice, and a seat for the child on the first segment. */
  function picks(offer: WireOffer, seatMaps: ReturnType<FakeDuffel['addOffer']>['seatMaps']) {
    const [adult, child] = offer.passengers.map((p) => p.id)
    const bag = offer.available_services.find(
      (s) =>
        s.passenger_ids[0] === adult &&
        s.type === 'baggage' &&
        s.metadata.type === 'checked' &&
        s.segment_ids[0] === offer.slices[0]!.segments[0]!.id,
    )!
    const seat = seatsOf(seatMaps).find(
      (x) => x.seat.designator === '15A' && x.segment_id === offer.slices[0]!.segments[0]!.id,
    )!.seat
    return {
      bag,
      seat: seat.available_services.find((s) => s.passenger_id === child)!,
      adultSeat: seat.available_services.find((s) => s.passenger_id === adult)!,
    }
  }

  test("books the offer with its services, the seller's travellers, paid from the balance; the offer is then booked", async () => {
    const token = freshToken()
    const { offer, seatMaps } = family({ token })
    const { bag, seat } = picks(offer, seatMaps)
    const amount = plus(offer.total_amount, 90 + 16)
    const r = await order(
      orderOf(offer, {
        amount,
        services: [
          { id: bag.id, quantity: 2 },
          { id: seat.id, quantity: 1 },
        ],
        metadata: { seller_ref: 'T-1' },
      }),
      token,
    )
    assert.equal(r.status, 201, JSON.stringify(r.json))
    const data = r.json.data
    assert.match(data.id, /^ord_/)
    assert.match(data.booking_reference, /^[A-Z0-9]{6}$/)
    assert.equal(data.live_mode, false)
    assert.equal(data.owner.iata_code, 'BA')
    assert.deepEqual(data.payment_status.awaiting_payment, false)
    assert.deepEqual(
      data.passengers.map((p: any) => [
        p.id,
        p.type,
        p.given_name,
        p.family_name,
        p.title,
        p.gender,
        p.born_on,
        p.email,
        p.phone_number,
      ]),
      travellers(offer).map((t, i) => [
        t.id,
        offer.passengers[i]!.type,
        t.given_name,
        'Lovelace',
        'ms',
        'f',
        t.born_on,
        t.email,
        '+442079460000',
      ]),
    )
    assert.equal(data.passengers[0].infant_passenger_id, offer.passengers[2]!.id)
    const orderSegments = data.slices.flatMap((s: any) => s.segments.map((g: any) => g.id))
    assert.deepEqual(
      data.services.map((s: any) => [s.type, s.quantity, s.total_amount, s.passenger_ids, s.segment_ids]),
      [
        ['baggage', 2, '90.00', bag.passenger_ids, [orderSegments[0]]],
        ['seat', 1, '16.00', [seat.passenger_id], [orderSegments[0]]],
      ],
    )
    assert.equal(data.services[1].metadata.designator, '15A')
    assert.equal(data.total_amount, amount)
    assert.deepEqual(data.metadata, { seller_ref: 'T-1' })
    assert.deepEqual(fake.balance(token), { amount: plus('10000.00', -Number(amount)), currency: 'GBP' })
    assert.equal(data.type, 'instant')
    // The order is there as the adapter reads it: by id, by booking reference; British Airways sells no bags after booking.
    assert.deepEqual((await call(`/air/orders/${data.id}`, { token })).json.data, data)
    assert.deepEqual(
      (await call(`/air/orders?booking_reference=${data.booking_reference}`, { token })).json.data.map(
        (o: any) => o.id,
      ),
      [data.id],
    )
    assert.deepEqual((await call(`/air/orders/${data.id}/available_services`, { token })).json.data, [])
    // Booked: a second order of the offer is refused, and nothing is paid for it.
    assertError(await order(orderOf(offer), token), 422, 'offer_no_longer_available')
    assert.deepEqual(fake.balance(token).amount, plus('10000.00', -Number(amount)))
    assert.equal((await call(`/air/offers/${offer.id}`, { token })).status, 200, 'the offer itself still reads')
  })

  test("an order without services pays the offer's total; services are paid at their current price", async () => {
    const token = freshToken()
    const plain = family({ token }).offer
    const r = await order(orderOf(plain), token)
    assert.equal(r.status, 201, JSON.stringify(r.json))
    assert.deepEqual(r.json.data.services, [])
    assert.equal(r.json.data.total_amount, plain.total_amount)
    assert.equal(fake.balance(token).amount, plus('10000.00', -Number(plain.total_amount)))

    const { offer, seatMaps } = family({ token })
    const { bag, seat } = picks(offer, seatMaps)
    fake.priceChange(bag.id, '50.00')
    fake.priceChange(seat.id, '18.50')
    const services = [
      { id: bag.id, quantity: 1 },
      { id: seat.id, quantity: 1 },
    ]
    assertError(
      await order(orderOf(offer, { amount: plus(offer.total_amount, 45 + 16), services }), token),
      422,
      'price_changed',
    )
    const paid = await order(orderOf(offer, { amount: plus(offer.total_amount, 50 + 18.5), services }), token)
    assert.equal(paid.status, 201, JSON.stringify(paid.json))
    assert.deepEqual(
      paid.json.data.services.map((s: any) => s.total_amount),
      ['50.00', '18.50'],
    )
  })

  test('refusals change nothing: nothing booked, nothing paid', async () => {
    const token = freshToken({ balance: '1700.00' })
    const { offer, seatMaps } = family({ token })
    const { bag, seat, adultSeat } = picks(offer, seatMaps)
    const otherSeat = seatsOf(seatMaps).find(
      (x) => x.seat.designator === '16C' && x.segment_id === offer.slices[0]!.segments[0]!.id,
    )!.seat.available_services[0]!
    const gone = offer.available_services.find((s) => s.type === 'baggage' && s.metadata.type === 'carry_on')!
    fake.gone(gone.id)
    const cfar = offer.available_services.find((s) => s.type === 'cancel_for_any_reason')!
    const people = travellers(offer)
    const [first, second, third] = people
    const withBag = (quantity: number) => ({
      amount: plus(offer.total_amount, 45 * quantity),
      services: [{ id: bag.id, quantity }],
    })
    const cases: Array<[string, unknown, number, string]> = [
      ['no data', undefined, 422, 'validation_required'],
      ['no type', { ...orderOf(offer), type: undefined }, 422, 'validation_required'],
      ['pay later', { ...orderOf(offer), type: 'pay_later' }, 422, 'validation_format'],
      ['a hold paid now', { ...orderOf(offer), type: 'hold' }, 422, 'validation_format'],
      [
        'a hold with a bag',
        { ...orderOf(offer, withBag(1)), type: 'hold', payments: undefined },
        422,
        'validation_format',
      ],
      ['no offer', { ...orderOf(offer), selected_offers: [] }, 422, 'validation_required'],
      ['two offers', { ...orderOf(offer), selected_offers: [offer.id, offer.id] }, 422, 'validation_format'],
      ['metadata not of strings', orderOf(offer, { metadata: { n: 1 } }), 422, 'validation_format'],
      ['unknown offer', { ...orderOf(offer), selected_offers: ['off_0000doesnotexist'] }, 404, 'not_found'],
      ['no passengers', orderOf(offer, { passengers: [] }), 422, 'validation_required'],
      [
        'no email',
        orderOf(offer, { passengers: [{ ...first, email: undefined }, second, third] }),
        422,
        'validation_required',
      ],
      [
        'a title',
        orderOf(offer, { passengers: [{ ...first, title: 'sir' }, second, third] }),
        422,
        'validation_format',
      ],
      [
        'a gender',
        orderOf(offer, { passengers: [{ ...first, gender: 'x' }, second, third] }),
        422,
        'validation_format',
      ],
      [
        'born later',
        orderOf(offer, { passengers: [{ ...first, born_on: day(3) }, second, third] }),
        422,
        'validation_format',
      ],
      [
        'a phone',
        orderOf(offer, { passengers: [{ ...first, phone_number: '020 7946 0000' }, second, third] }),
        422,
        'validation_format',
      ],
      [
        'an email',
        orderOf(offer, { passengers: [{ ...first, email: 'ada' }, second, third] }),
        422,
        'validation_format',
      ],
      ['a passenger missing', orderOf(offer, { passengers: [first, second] }), 422, 'passengers_mismatch'],
      ['a passenger twice', orderOf(offer, { passengers: [first, first, third] }), 422, 'passengers_mismatch'],
      [
        'someone else',
        orderOf(offer, { passengers: [first, second, { ...third, id: 'pas_0000stranger' }] }),
        422,
        'passengers_mismatch',
      ],
      [
        'a child holding the infant',
        orderOf(offer, {
          passengers: [
            { ...first, infant_passenger_id: undefined },
            { ...second, infant_passenger_id: third!.id },
            third,
          ],
        }),
        422,
        'validation_format',
      ],
      [
        'an unknown service',
        orderOf(offer, { services: [{ id: 'ase_0000unknown', quantity: 1 }] }),
        422,
        'unavailable_service',
      ],
      [
        'a gone service',
        orderOf(offer, { amount: plus(offer.total_amount, 15), services: [{ id: gone.id, quantity: 1 }] }),
        422,
        'unavailable_service',
      ],
      [
        'a cancel-for-any-reason',
        orderOf(offer, {
          amount: plus(offer.total_amount, Number(cfar.total_amount)),
          services: [{ id: cfar.id, quantity: 1 }],
        }),
        422,
        'unavailable_service',
      ],
      ['three bags', orderOf(offer, withBag(3)), 422, 'maximum_quantity_exceeded'],
      [
        'a seat twice',
        orderOf(offer, { amount: plus(offer.total_amount, 32), services: [{ id: seat.id, quantity: 2 }] }),
        422,
        'maximum_quantity_exceeded',
      ],
      ['no bag', orderOf(offer, withBag(0)), 422, 'validation_format'],
      [
        'one service twice',
        orderOf(offer, {
          amount: plus(offer.total_amount, 90),
          services: [
            { id: bag.id, quantity: 1 },
            { id: bag.id, quantity: 1 },
          ],
        }),
        422,
        'validation_format',
      ],
      [
        'one seat for two',
        orderOf(offer, {
          amount: plus(offer.total_amount, 32),
          services: [
            { id: seat.id, quantity: 1 },
            { id: adultSeat.id, quantity: 1 },
          ],
        }),
        422,
        'validation_format',
      ],
      [
        'two seats for one',
        orderOf(offer, {
          amount: plus(offer.total_amount, 16 + 16),
          services: [
            { id: adultSeat.id, quantity: 1 },
            { id: otherSeat.id, quantity: 1 },
          ],
        }),
        422,
        'validation_format',
      ],
      ['no payment', orderOf(offer, { payments: [] }), 422, 'validation_required'],
      [
        'two payments',
        orderOf(offer, {
          payments: [
            { type: 'balance', currency: 'GBP', amount: '1.00' },
            { type: 'balance', currency: 'GBP', amount: '1.00' },
          ],
        }),
        422,
        'validation_format',
      ],
      ['no amount', orderOf(offer, { payments: [{ type: 'balance', currency: 'GBP' }] }), 422, 'validation_required'],
      [
        'by card',
        orderOf(offer, { payments: [{ type: 'card', currency: 'GBP', amount: offer.total_amount }] }),
        422,
        'unsupported_payment_type',
      ],
      [
        'in euros',
        orderOf(offer, { payments: [{ type: 'balance', currency: 'EUR', amount: offer.total_amount }] }),
        422,
        'invalid_payment_currency',
      ],
      ['a malformed amount', orderOf(offer, { amount: `${offer.total_amount}5` }), 422, 'validation_format'],
      ['a cent short', orderOf(offer, { amount: plus(offer.total_amount, -0.01) }), 422, 'price_changed'],
      [
        'a malformed hold',
        { ...orderOf(offer), type: 'hold', payments: undefined, selected_offers: [offer.id, offer.id] },
        422,
        'validation_format',
      ],
      ['the bag unpaid', orderOf(offer, { services: [{ id: bag.id, quantity: 1 }] }), 422, 'price_changed'],
      ['beyond the balance', orderOf(offer, withBag(2)), 422, 'insufficient_balance'],
    ]
    assert.ok(
      Number(offer.total_amount) <= 1700 && Number(offer.total_amount) + 90 > 1700,
      'the balance pays the offer, not with two bags',
    )
    for (const [what, data, status, code] of cases) {
      const r = data === undefined ? await call('/air/orders', { token, body: {} }) : await order(data, token)
      assert.equal(r.json.errors?.[0]?.code, code, `${what}: ${JSON.stringify(r.json)}`)
      assertError(r, status, code)
    }
    assertError(await order(orderOf(offer)), 404, 'not_found')
    assertError(await call('/air/orders', { token, raw: '{"data":' }), 400, 'invalid_json')
    assert.deepEqual(fake.balance(token), { amount: '1700.00', currency: 'GBP' })
    // Nothing was booked: the one that fits the balance goes through.
    const ok = await order(orderOf(offer, withBag(1)), token)
    assert.equal(ok.status, 201, JSON.stringify(ok.json))
    assert.equal(fake.balance(token).amount, plus('1700.00', -(Number(offer.total_amount) + 45)))
  })

  test('an expired offer, or one booked by bookOrder, is no longer available; a lost answer still booked and paid', async () => {
    const token = freshToken()
    const expiring = family({ token, expires_at: new Date(Date.now() + 60_000).toISOString() }).offer
    fake.setNow(Date.parse(expiring.expires_at) + 1)
    assertError(await order(orderOf(expiring), token), 422, 'offer_no_longer_available')
    fake.setNow(null)
    const booked = family({ token }).offer
    fake.bookOrder(booked.id)
    assertError(await order(orderOf(booked), token), 422, 'offer_no_longer_available')
    assert.equal(fake.balance(token).amount, '10000.00')

    const offer = family({ token }).offer
    fake.lostResponseAfterPurchase({ match: 'POST /air/orders' })
    await assert.rejects(order(orderOf(offer), token), TypeError)
    assert.equal(fake.balance(token).amount, plus('10000.00', -Number(offer.total_amount)))
    // A retry is refused (the offer is booked): the seller finds its order by listing them.
    assertError(await order(orderOf(offer), token), 422, 'offer_no_longer_available')
    const all = (await call('/air/orders', { token })).json.data
    assert.ok(all.some((o: any) => o.passengers[0].given_name === 'AdaA' && o.total_amount === offer.total_amount))
  })

  test("seats the offer lists as services are booked as seats; a seat's price in the order in the currency's places", async () => {
    const token = freshToken()
    const { offer } = family({ token, seatServices: true })
    const seat = offer.available_services.find((s) => s.type === 'seat' && s.metadata.designator === '16C')!
    const r = await order(
      orderOf(offer, { amount: plus(offer.total_amount, 16), services: [{ id: seat.id, quantity: 1 }] }),
      token,
    )
    assert.equal(r.status, 201, JSON.stringify(r.json))
    assert.deepEqual(
      r.json.data.services.map((s: any) => [s.type, s.total_amount, s.metadata.designator]),
      [['seat', '16.00', '16C']],
    )
  })

  test('a hold: booked unpaid, nothing debited, paid by POST /air/payments from the balance', async () => {
    const token = freshToken()
    const { offer } = family({ token })
    const r = await order({ ...orderOf(offer), type: 'hold', payments: undefined }, token)
    assert.equal(r.status, 201, JSON.stringify(r.json))
    const held = r.json.data
    assert.equal(held.type, 'hold')
    assert.deepEqual(held.payment_status, {
      awaiting_payment: true,
      payment_required_by: offer.payment_requirements.payment_required_by,
      price_guarantee_expires_at: offer.payment_requirements.price_guarantee_expires_at,
      paid_at: null,
    })
    assert.deepEqual(held.documents, [], 'no tickets before payment')
    assert.equal(fake.balance(token).amount, '10000.00')
    assertError(await order(orderOf(offer), token), 422, 'offer_no_longer_available')

    const pay = (data: unknown) => call('/air/payments', { token, body: { data } })
    const payment = { type: 'balance', currency: 'GBP', amount: held.total_amount }
    const refusals: Array<[string, unknown, number, string]> = [
      ['no order', { payment }, 422, 'validation_required'],
      ['no amount', { order_id: held.id, payment: { type: 'balance', currency: 'GBP' } }, 422, 'validation_required'],
      ['an unknown order', { order_id: 'ord_0000doesnotexist', payment }, 404, 'not_found'],
      ['by card', { order_id: held.id, payment: { ...payment, type: 'card' } }, 422, 'unsupported_payment_type'],
      ['in euros', { order_id: held.id, payment: { ...payment, currency: 'EUR' } }, 422, 'invalid_payment_currency'],
      [
        'a cent short',
        { order_id: held.id, payment: { ...payment, amount: plus(held.total_amount, -0.01) } },
        422,
        'price_changed',
      ],
    ]
    for (const [what, data, status, code] of refusals) {
      const res = await pay(data)
      assert.equal(res.json.errors?.[0]?.code, code, `${what}: ${JSON.stringify(res.json)}`)
      assertError(res, status, code)
    }
    assert.equal(fake.balance(token).amount, '10000.00')
    const paid = await pay({ order_id: held.id, payment })
    assert.equal(paid.status, 201, JSON.stringify(paid.json))
    assert.match(paid.json.data.id, /^pay_/)
    assert.deepEqual(
      [paid.json.data.type, paid.json.data.amount, paid.json.data.currency, paid.json.data.live_mode],
      ['balance', held.total_amount, 'GBP', false],
    )
    assert.equal(fake.balance(token).amount, plus('10000.00', -Number(held.total_amount)))
    const after = (await call(`/air/orders/${held.id}`, { token })).json.data
    assert.deepEqual(
      [after.type, after.payment_status.awaiting_payment, after.payment_status.paid_at],
      ['hold', false, paid.json.data.created_at],
    )
    assert.equal(after.documents.length, offer.passengers.length)
    assertError(await pay({ order_id: held.id, payment }), 422, 'already_paid', 'invalid_state_error')
    const instant = (await order(orderOf(family({ token }).offer), token)).json.data
    assertError(
      await pay({ order_id: instant.id, payment: { ...payment, amount: instant.total_amount } }),
      422,
      'order_type_not_eligible_for_payment',
      'validation_error',
    )
  })

  test('a hold of an offer that requires instant payment is refused; a poor account cannot pay a hold', async () => {
    const token = freshToken()
    const instantOnly = family({ token, requiresInstantPayment: true }).offer
    assertError(
      await order({ ...orderOf(instantOnly), type: 'hold', payments: undefined }, token),
      422,
      'validation_format',
    )
    assert.throws(() => fake.bookOrder(instantOnly.id, { hold: true }), /requires instant payment/)
    const poor = freshToken({ balance: '0.00' })
    const held = (await order({ ...orderOf(family({ token: poor }).offer), type: 'hold', payments: undefined }, poor))
      .json.data
    assertError(
      await call('/air/payments', {
        token: poor,
        body: { data: { order_id: held.id, payment: { type: 'balance', currency: 'GBP', amount: held.total_amount } } },
      }),
      422,
      'insufficient_balance',
    )
    assert.equal(
      (await call(`/air/orders/${held.id}`, { token: poor })).json.data.payment_status.awaiting_payment,
      true,
    )
  })
})

describe('hold orders', () => {
  test('bookOrder({ hold: true }): unpaid, takes no services until paid; payOrder pays it (debiting nothing)', async () => {
    const token = freshToken()
    const { order, availableServices } = fake.bookOrder(family({ token }).offer.id, {
      hold: true,
      postBookingBags: true,
    })
    assert.deepEqual(
      [order.type, order.payment_status.awaiting_payment, order.payment_status.paid_at],
      ['hold', true, null],
    )
    const bag = availableServices.find((s) => s.metadata.type === 'checked')!
    assertError(
      await post(order.id, { amount: '45.00' }, [{ id: bag.id, quantity: 1 }], token),
      422,
      'order_awaiting_payment',
      'invalid_state_error',
    )
    assert.throws(() => fake.bookOrder(family({ token }).offer.id, { hold: true, services: [bag.id] }), /no services/)
    const paid = fake.payOrder(order.id)
    assert.deepEqual([paid.payment_status.awaiting_payment, typeof paid.payment_status.paid_at], [false, 'string'])
    assert.equal(fake.balance(token).amount, '10000.00')
    assert.equal((await post(order.id, { amount: '45.00' }, [{ id: bag.id, quantity: 1 }], token)).status, 201)
    assert.throws(() => fake.payOrder(order.id), /not an unpaid hold/)
  })

  test('releaseHold: the order is cancelled, sells nothing and takes no payment', async () => {
    const { order, availableServices } = fake.bookOrder(family().offer.id, { hold: true, postBookingBags: true })
    const released = fake.releaseHold(order.id)
    assert.match(released.cancelled_at!, /^\d{4}-\d{2}-\d{2}T/)
    assert.deepEqual((await call(`/air/orders/${order.id}/available_services`)).json.data, [])
    assertError(
      await post(order.id, { amount: '45.00' }, [{ id: availableServices[0]!.id, quantity: 1 }]),
      422,
      'order_cancelled',
    )
    const payment = { type: 'balance', currency: 'GBP', amount: order.total_amount }
    assertError(
      await call('/air/payments', { body: { data: { order_id: order.id, payment } } }),
      422,
      'order_cancelled',
    )
    assert.throws(() => fake.releaseHold(order.id), /not an unpaid hold/)
    assert.throws(() => fake.releaseHold(fake.bookOrder(family().offer.id).order.id), /not an unpaid hold/)
  })

  test("a hold past its payment_required_by on the fake's clock reads as released at that time", async () => {
    const { offer } = family()
    const { order } = fake.bookOrder(offer.id, { hold: true })
    const by = order.payment_status.payment_required_by!
    assert.equal(by, offer.payment_requirements.payment_required_by)
    fake.setNow(Date.parse(by) - 1)
    assert.equal((await call(`/air/orders/${order.id}`)).json.data.cancelled_at, null)
    fake.setNow(Date.parse(by) + 60_000)
    assert.equal((await call(`/air/orders/${order.id}`)).json.data.cancelled_at, by)
    assert.equal((await call(`/air/orders?booking_reference=${order.booking_reference}`)).json.data[0].cancelled_at, by)
    assert.equal(fake.order(order.id).order.cancelled_at, by)
    assertError(
      await call('/air/payments', {
        body: {
          data: { order_id: order.id, payment: { type: 'balance', currency: 'GBP', amount: order.total_amount } },
        },
      }),
      422,
      'order_cancelled',
    )
    // A hold paid in time is never released.
    fake.setNow(null)
    const kept = fake.bookOrder(family().offer.id, { hold: true }).order
    fake.payOrder(kept.id)
    fake.setNow(Date.parse(kept.payment_status.payment_required_by!) + 60_000)
    assert.equal((await call(`/air/orders/${kept.id}`)).json.data.cancelled_at, null)
  })
})

describe('scenario switches', () => {
  test("priceChange: an offer's bag, a seat, an order's bag (which must then be paid at the new price)", async () => {
    const { offer, seatMaps } = family()
    const [bag, other] = offer.available_services
    const seat = seatsOf(seatMaps).find((x) => x.seat.designator === '16C')!.seat.available_services[0]!
    fake.priceChange(bag!.id, '52.50')
    fake.priceChange(seat.id, '19.00')
    const services = (await call(`/air/offers/${offer.id}?return_available_services=true`)).json.data.available_services
    assert.equal(services.find((s: any) => s.id === bag!.id).total_amount, '52.50')
    assert.equal(services.find((s: any) => s.id === other!.id).total_amount, other!.total_amount)
    const maps = (await call(`/air/seat_maps?offer_id=${offer.id}`)).json.data
    assert.equal(
      seatsOf(maps)
        .flatMap((x) => x.seat.available_services)
        .find((s) => s.id === seat.id)!.total_amount,
      '19.00',
    )
    fake.reset()
    assert.equal(
      (await call(`/air/offers/${offer.id}?return_available_services=true`)).json.data.available_services[0]
        .total_amount,
      bag!.total_amount,
    )

    const token = freshToken()
    const { order, availableServices } = fake.bookOrder(family({ token }).offer.id, { postBookingBags: true })
    const aso = availableServices.find((s) => s.metadata.type === 'checked')!
    fake.priceChange(aso.id, '49.00')
    assert.equal(
      (await call(`/air/orders/${order.id}/available_services`, { token })).json.data.find((s: any) => s.id === aso.id)
        .total_amount,
      '49.00',
    )
    assertError(
      await post(order.id, { amount: '45.00' }, [{ id: aso.id, quantity: 1 }], token),
      422,
      'payment_amount_does_not_match_order_amount',
    )
    const r = await post(order.id, { amount: '98.00' }, [{ id: aso.id, quantity: 2 }], token)
    assert.equal(r.status, 201)
    assert.equal(r.json.data.services[0].total_amount, '98.00')
    assert.deepEqual(fake.balance(token).amount, '9902.00')
  })

  test('a switch applies to the requests it matches, as many times as told', async () => {
    const { offer } = family()
    const bag = offer.available_services[0]!
    fake.priceChange(bag.id, '60.00', { times: 1, match: 'GET /air/offers/*' })
    await call(`/air/seat_maps?offer_id=${offer.id}`) // does not match: does not count
    const read = async () =>
      (await call(`/air/offers/${offer.id}?return_available_services=true`)).json.data.available_services[0]
        .total_amount
    assert.equal(await read(), '60.00')
    assert.equal(await read(), bag.total_amount)
    assert.throws(() => fake.priceChange('ase_0000typo', '1.00'), /no available service/)
  })

  test('gone: the service disappears and cannot be bought', async () => {
    const token = freshToken()
    const { offer, seatMaps } = family({ token })
    const seat = seatsOf(seatMaps).find((x) => x.seat.designator === '15B')!.seat.available_services[0]!
    fake.gone(offer.available_services[0]!.id)
    fake.gone(seat.id)
    const services = (await call(`/air/offers/${offer.id}?return_available_services=true`, { token })).json.data
      .available_services
    assert.equal(services.length, offer.available_services.length - 1)
    const maps = (await call(`/air/seat_maps?offer_id=${offer.id}`, { token })).json.data
    assert.ok(!seatsOf(maps).some((x) => x.seat.available_services.some((s) => s.id === seat.id)))
    const { order, availableServices } = fake.bookOrder(offer.id, { postBookingBags: true })
    const aso = availableServices[0]!
    fake.gone(aso.id)
    assert.ok(
      !(await call(`/air/orders/${order.id}/available_services`, { token })).json.data.some(
        (s: any) => s.id === aso.id,
      ),
    )
    assertError(
      await post(order.id, { amount: aso.total_amount }, [{ id: aso.id, quantity: 1 }], token),
      422,
      'ancillary_service_not_available',
    )
    assert.equal(fake.balance(token).amount, '10000.00')
  })

  test("rateLimited: 429 rate_limit_exceeded with Duffel's ratelimit headers (Retry-After only when asked), then answers again", async () => {
    const { offer } = family()
    fake.setNow('2026-11-28T10:00:00Z')
    fake.rateLimited({ times: 2, retryAfterSeconds: 5 })
    for (let i = 0; i < 2; i++) {
      const r = await call(`/air/offers/${offer.id}`)
      assertError(r, 429, 'rate_limit_exceeded', 'rate_limit_error')
      assert.equal(r.headers.get('retry-after'), null)
      assert.equal(r.headers.get('ratelimit-remaining'), '0')
      assert.match(r.headers.get('ratelimit-limit')!, /^\d+$/)
      assert.equal(r.headers.get('ratelimit-reset'), 'Sat, 28 Nov 2026 10:00:05 GMT')
    }
    fake.setNow(null)
    assert.equal((await call(`/air/offers/${offer.id}`)).status, 200)
    fake.rateLimited({ retryAfterSeconds: 7, withRetryAfter: true })
    const r = await call(`/air/offers/${offer.id}`)
    assertError(r, 429, 'rate_limit_exceeded')
    assert.equal(r.headers.get('retry-after'), '7')
  })

  test('serverError: 500, 502 and 504 envelopes, on the requests matched only', async () => {
    const { offer } = family()
    fake.serverError()
    assertError(await call(`/air/offers/${offer.id}`), 500, 'internal_server_error')
    assert.equal((await call(`/air/offers/${offer.id}`)).status, 200)
    fake.serverError({ status: 502, match: 'POST /air/orders/*/services' })
    assert.equal((await call(`/air/offers/${offer.id}`)).status, 200)
    const r = await post('ord_0000whatever', { amount: '1.00' }, [{ id: 'aso_x', quantity: 1 }])
    assertError(r, 502, 'bad_gateway', 'api_error')
    fake.serverError({ status: 504 })
    assertError(await call(`/air/offers/${offer.id}`), 504, 'gateway_timeout_error', 'api_error')
  })

  test('airlineError: 502 airline_error, of code airline_error or airline_unknown', async () => {
    const { offer } = family()
    fake.airlineError()
    assertError(await call(`/air/offers/${offer.id}`), 502, 'airline_error', 'airline_error')
    fake.airlineError({ code: 'airline_unknown', match: 'GET /air/seat_maps' })
    assert.equal((await call(`/air/offers/${offer.id}`)).status, 200)
    assertError(await call(`/air/seat_maps?offer_id=${offer.id}`), 502, 'airline_unknown', 'airline_error')
  })

  test("htmlError: the load balancer's HTML page, no JSON and no request id; then Duffel answers again", async () => {
    const { offer } = family()
    fake.htmlError({ status: 503, times: 2 })
    for (let i = 0; i < 2; i++) {
      const r = await call(`/air/offers/${offer.id}`)
      assert.equal(r.status, 503)
      assert.equal(r.headers.get('content-type'), 'text/html')
      assert.equal(r.headers.get('x-request-id'), null)
      assert.equal(r.json, undefined)
      assert.match(r.text, /^<html>[\s\S]*503 Service Temporarily Unavailable[\s\S]*<\/html>\s*$/)
    }
    assert.equal(fake.requests.at(-1)!.status, 503)
    fake.htmlError()
    assert.equal((await call(`/air/offers/${offer.id}`)).status, 502)
    assert.equal((await call(`/air/offers/${offer.id}`)).status, 200)
  })

  test('slow: matching requests are taken only after the delay, a purchase landing then; others are not held', async () => {
    const { offer } = family()
    fake.slow({ ms: 300, match: 'GET /air/seat_maps' })
    const started = Date.now()
    const [maps, other] = await Promise.all([
      call(`/air/seat_maps?offer_id=${offer.id}`),
      call(`/air/offers/${offer.id}`),
    ])
    assert.equal(maps.status, 200)
    assert.ok(Date.now() - started >= 300, 'the seat maps waited')
    assert.equal(other.status, 200)
    fake.reset()
  })

  test("timeout: the request is never answered and the client's time-out fires", async () => {
    const { offer } = family()
    fake.timeout({ match: 'GET /air/seat_maps' })
    fake.clearRequests()
    // The time-out starts once the fake holds the request, not at the fetch: a busy CI machine that takes
    // long to deliver it must not turn "never answered" into "never arrived".
    const controller = new AbortController()
    const pending = call(`/air/seat_maps?offer_id=${offer.id}`, { signal: controller.signal })
    for (let waited = 0; fake.requests.length === 0; waited += 5) {
      assert.ok(waited < 5000, 'the request reached the fake')
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const timeout = AbortSignal.timeout(150)
    timeout.addEventListener('abort', () => controller.abort(timeout.reason))
    await assert.rejects(pending, (e: Error) => e.name === 'TimeoutError')
    assert.deepEqual(
      fake.requests.map((r) => [r.path, r.status]),
      [['/air/seat_maps', null]],
    )
    assert.equal((await call(`/air/seat_maps?offer_id=${offer.id}`)).status, 200)
  })

  test('lostResponseAfterPurchase: the purchase is made and paid, the answer is lost', async () => {
    const token = freshToken()
    const { order, availableServices } = fake.bookOrder(family({ token }).offer.id, { postBookingBags: true })
    const bag = availableServices.find((s) => s.metadata.type === 'checked')!
    fake.lostResponseAfterPurchase()
    await assert.rejects(post(order.id, { amount: '45.00' }, [{ id: bag.id, quantity: 1 }], token), TypeError)
    assert.equal(fake.requests.at(-1)!.status, null)
    const held = (await call(`/air/orders/${order.id}`, { token })).json.data.services
    assert.deepEqual(
      held.map((s: any) => [s.type, s.quantity, s.total_amount, s.passenger_ids, s.segment_ids]),
      [['baggage', 1, '45.00', bag.passenger_ids, bag.segment_ids]],
    )
    assert.equal(fake.balance(token).amount, '9955.00')
    // Only the next purchase was lost: the one after is answered.
    assert.equal((await post(order.id, { amount: '45.00' }, [{ id: bag.id, quantity: 1 }], token)).status, 201)
  })
})
