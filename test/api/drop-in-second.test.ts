/**
 * Drop-in, second round (docs/decisions.md "Drop-in, second round"): segment times answered at their
 * airports, one 400 naming every bad field of schema and rules together, each code named for what it is,
 * passenger ages by type, a loyalty programme without its name, a ticket offer as a sample names its status,
 * and a fulfill with a record locator and no ticket number.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, bearer, body, assertProblem, tripPayload, type Built } from '../helpers/build.ts'
import { addItems, checkedBag, readSearch, readTrip, CONTACT, FULFILL_PASSENGERS } from '../helpers/flows.ts'

let t: Built
before(async () => {
  t = await build()
})
after(() => t.close())

const create = (payload: unknown) =>
  t.app.inject({
    method: 'POST',
    url: '/v2.2/trip',
    headers: { authorization: basic(t.apiKey) },
    payload: payload as object,
  })
const fulfill = (tripId: string, payload: unknown) =>
  t.app.inject({
    method: 'POST',
    url: `/v2.2/trip/${tripId}/fulfill`,
    headers: { authorization: basic(t.apiKey) },
    payload: payload as object,
  })

/** A one-way PDX → JFK trip in August 2027 (Portland is UTC−07:00 then, New York UTC−04:00). */
function portland(departure: string, arrival: string) {
  const p = tripPayload(t.clock.now())
  const seg = {
    ...p.tickets[0]!.journeys[0]!.segments[0]!,
    departure_airport: 'PDX',
    arrival_airport: 'JFK',
    departure_time: departure,
    arrival_time: arrival,
  }
  return { ...p, tickets: [{ ...p.tickets[0]!, journeys: [{ segments: [seg] }] }] }
}

describe('segment times are answered at their airports', () => {
  test("a time sent in UTC comes back as the same instant at the airport's offset, so its date is the local one", async () => {
    const res = await create(portland('2027-08-08T06:30:00Z', '2027-08-08T14:05:00.000Z'))
    assert.equal(res.statusCode, 201, res.body)
    const [seg] = body(res).journeys[0].segments
    // 23:30 on Saturday 7 August in Portland, not Sunday the 8th (what the first ten characters of the UTC form say).
    assert.equal(seg.departure_time, '2027-08-07T23:30:00-07:00')
    assert.equal(seg.arrival_time, '2027-08-08T10:05:00-04:00')
    assert.equal(Date.parse(seg.departure_time), Date.parse('2027-08-08T06:30:00Z'), 'the same instant')
    const read = await readTrip(t, body(res))
    assert.equal(read.journeys[0].segments[0].departure_time, '2027-08-07T23:30:00-07:00')
  })

  test("a time at another offset, or local without one, is answered at the airport's own", async () => {
    const res = await create(portland('2027-08-08T08:30:00+02:00', '2027-08-08T07:10'))
    assert.equal(res.statusCode, 201, res.body)
    const [seg] = body(res).journeys[0].segments
    assert.deepEqual([seg.departure_time, seg.arrival_time], ['2027-08-07T23:30:00-07:00', '2027-08-08T07:10:00-04:00'])
  })
})

describe('one 400 names every bad field, schema and rules together', () => {
  test('ten mistakes, five the schema finds and five only the rules can, are named at once, and nothing changes', async () => {
    const p: any = tripPayload(t.clock.now())
    // The schema's: a language tag, a passenger type, a name, an airline, a product type.
    p.language = 'english'
    p.passengers[1] = { ...p.passengers[1], passenger_type: 'alien' }
    p.passengers[0] = { ...p.passengers[0], first_names: 'R2D2' }
    p.search = { bags: { search: true } }
    const out = p.tickets[0].journeys[0].segments[0]
    const back = p.tickets[0].journeys[1].segments[0]
    back.marketing_airline = 'British'
    // The rules': a currency not priced in, a date of birth ahead, an unknown airport, two arrivals before their departures.
    p.currency = 'XYZ'
    p.passengers[2] = { ...p.passengers[2], date_of_birth: '2099-01-01' }
    out.departure_airport = 'QQQ'
    out.arrival_time = out.departure_time.replace(/T\d\d/, 'T00').replace(/(\+|-)\d\d:\d\d$|Z$/, 'Z')
    p.tickets[0].journeys.push({
      segments: [
        {
          ...back,
          marketing_airline: 'BA',
          departure_time: '2027-01-10T10:00:00Z',
          arrival_time: '2027-01-10T09:00:00Z',
        },
      ],
    })
    const snapshot = t.snapshot()
    const problem = assertProblem(await create(p), 400, 'validation_error')
    const paths = problem.errors!.map((e) => e.path)
    assert.deepEqual(paths.sort(), [
      '/currency',
      '/language',
      '/passengers/0/first_names',
      '/passengers/1/passenger_type',
      '/passengers/2/date_of_birth',
      '/search/bags',
      '/tickets/0/journeys/0/segments/0/arrival_time',
      '/tickets/0/journeys/0/segments/0/departure_airport',
      '/tickets/0/journeys/1/segments/0/marketing_airline',
      '/tickets/0/journeys/2/segments/0/arrival_time',
    ])
    assert.match(problem.detail!, /\(and 9 more\)/)
    assert.deepEqual(t.snapshot(), snapshot, 'nothing stored')
  })

  test('an unsupported currency is a field error like any other, listing the currencies priced in', async () => {
    const problem = assertProblem(
      await create({ ...tripPayload(t.clock.now()), currency: 'XYZ' }),
      400,
      'validation_error',
    )
    assert.equal(problem.errors!.length, 1)
    assert.equal(problem.errors![0]!.path, '/currency')
    assert.match(
      problem.errors![0]!.message,
      /^XYZ is not a currency this service prices in: one of .*\bEUR\b.*\bUSD\b/,
    )
  })

  test('a code is named for what it holds: a currency is not told it may be an airport', async () => {
    const p: any = tripPayload(t.clock.now())
    p.currency = 'eur'
    p.tickets[0].journeys[0].segments[0].departure_airport = 'lhr'
    const problem = assertProblem(await create(p), 400, 'validation_error')
    const said = Object.fromEntries(problem.errors!.map((e) => [e.path, e.message]))
    assert.equal(said['/currency'], 'must be an ISO 4217 currency code: three capital letters (EUR)')
    assert.equal(
      said['/tickets/0/journeys/0/segments/0/departure_airport'],
      'must be an IATA airport code: three capital letters (LHR)',
    )
  })
})

describe('passenger ages by type, at the first departure', () => {
  // tripPayload departs in December 2026 (the test clock is 2026-11-22).
  const family = (child: string, infant: string) => [
    { passenger_id: 'p1', passenger_type: 'adult' },
    { passenger_id: 'p2', passenger_type: 'child', date_of_birth: child },
    { passenger_id: 'p3', passenger_type: 'infant', date_of_birth: infant, on_lap_of: 'p1' },
  ]

  test('a child born in 1990 and an infant aged 7 are refused, each naming the passenger', async () => {
    const problem = assertProblem(
      await create({ ...tripPayload(t.clock.now()), passengers: family('1990-05-01', '2019-03-01') }),
      400,
      'validation_error',
    )
    const said = Object.fromEntries(problem.errors!.map((e) => [e.path, e.message]))
    assert.match(said['/passengers/1/date_of_birth']!, /passenger p2 12 or older .*a child must be under 12/)
    assert.match(said['/passengers/2/date_of_birth']!, /passenger p3 2 or older .*an infant must be under 2/)
  })

  test('a child of 11 and an infant of 1 are taken; the day a child turns 12 before departure is refused', async () => {
    const ok = await create({ ...tripPayload(t.clock.now()), passengers: family('2015-06-01', '2025-12-01') })
    assert.equal(ok.statusCode, 201, ok.body)
    const departs = tripPayload(t.clock.now()).tickets[0]!.journeys[0]!.segments[0]!.departure_time.slice(0, 10)
    const twelve = `${Number(departs.slice(0, 4)) - 12}${departs.slice(4)}`
    assertProblem(
      await create({ ...tripPayload(t.clock.now()), passengers: family(twelve, '2025-12-01') }),
      400,
      'validation_error',
    )
  })

  test('PATCH and fulfill apply the same rule to the type the trip was created with', async () => {
    const res = await create({ ...tripPayload(t.clock.now()), passengers: family('2016-02-01', '2025-12-01') })
    const trip = body(res)
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: bearer(trip.trip_access_token) },
      payload: { passengers: [{ passenger_id: 'p2', date_of_birth: '1990-05-01' }] },
    })
    const patched = assertProblem(patch, 400, 'validation_error')
    assert.match(patched.errors![0]!.message, /passenger p2 12 or older/)
    const basket = await addItems(t, trip, [
      { product_id: checkedBag(await readSearch(t, trip)).product_id, passenger_id: 'p1' },
    ])
    const passengers = [
      { ...FULFILL_PASSENGERS[0]! },
      { passenger_id: 'p2', first_names: 'Ada', surname: 'King', date_of_birth: '1990-05-01', passenger_type: 'child' },
      {
        passenger_id: 'p3',
        first_names: 'Byron',
        surname: 'King',
        date_of_birth: '2025-12-01',
        passenger_type: 'infant',
      },
    ]
    const tickets = trip.tickets.map((tk: any) => ({
      ticket_id: tk.ticket_id,
      access_details: { record_locator: 'ABC123' },
      status: 'booked',
    }))
    const refused = assertProblem(
      await fulfill(trip.trip_id, {
        trip_state_hash: basket.trip_state_hash,
        contact_details: CONTACT,
        passengers,
        tickets,
        payment_details: { payment_type: 'service_settlement' },
      }),
      400,
      'validation_error',
    )
    assert.deepEqual(
      refused.errors!.map((e) => e.path),
      ['/passengers/1/date_of_birth'],
    )
  })
})

describe('what samples send that the spec leaves open', () => {
  test('a loyalty programme without program_name; a ticket offer with state instead of status, or with neither', async () => {
    const p: any = tripPayload(t.clock.now())
    p.passengers[0] = {
      ...p.passengers[0],
      loyalty_program: { airline_id: 'BA', number: 'BA123456', tier_name: 'Gold' },
    }
    const { status: _status, ...ticket } = p.tickets[0]
    const res = await create({ ...p, tickets: [{ ...ticket, state: 'offered' }] })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(body(res).passengers[0].loyalty_programs, [
      { airline_id: 'BA', number: 'BA123456', tier_name: 'Gold' },
    ])
    assert.ok(!('state' in body(res).tickets[0]), "the trip's ticket has its own status")
    assert.equal((await create({ ...p, tickets: [ticket] })).statusCode, 201)
    assertProblem(await create({ ...p, tickets: [{ ...ticket, state: 'booked' }] }), 400, 'validation_error')
  })

  test('a fulfill with the record locator only (no ticket number, no card) orders and succeeds on the sandbox airline', async () => {
    const trip = body(
      await create({
        ...tripPayload(t.clock.now()),
        passengers: FULFILL_PASSENGERS.map(({ passenger_type, ...rest }) => ({ ...rest, passenger_type })),
      }),
    )
    const basket = await addItems(t, trip, [
      { product_id: checkedBag(await readSearch(t, trip)).product_id, passenger_id: 'p1' },
    ])
    const tickets = trip.tickets.map((tk: any) => ({
      ticket_id: tk.ticket_id,
      access_details: { record_locator: 'ABC123' },
      status: 'booked',
    }))
    const res = await fulfill(trip.trip_id, {
      trip_state_hash: basket.trip_state_hash,
      contact_details: CONTACT,
      tickets,
      payment_details: { payment_type: 'card' },
    })
    assert.equal(res.statusCode, 202, res.body)
    await t.core.drainJobs()
    const read = await readTrip(t, trip)
    assert.deepEqual(
      Object.values(read.orders).map((o: any) => o.status),
      ['succeeded'],
    )
    assert.deepEqual(
      read.tickets.map((tk: any) => [tk.status, tk.access_details.record_locator, tk.access_details.ticket_number]),
      [['booked', 'ABC123', null]],
    )
  })

  test('a fulfill without trip_state_hash is told where it comes from', async () => {
    const trip = body(await create(tripPayload(t.clock.now())))
    const problem = assertProblem(
      await fulfill(trip.trip_id, { payment_details: { payment_type: 'card' } }),
      400,
      'validation_error',
    )
    const said = problem.errors!.find((e) => e.path === '/trip_state_hash')
    assert.match(said!.message, /^is required: the trip_state_hash of GET \/v2\.2\/trip\/\{trip_id\}\/basket/)
  })
})
