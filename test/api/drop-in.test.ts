/**
 * What integrations copied from another ancillary product send (docs/decisions.md "Drop-in for existing
 * integrations"): passengers without ids, one loyalty_program object, their own journey ids, segment times
 * as tickets show them (local, no offset); a fulfill without passengers the trip already has; card details
 * refused with what to send instead; and every bad field of a request named at once.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, body, assertProblem, tripPayload, type Built } from '../helpers/build.ts'
import { addItems, checkedBag, readSearch, CONTACT } from '../helpers/flows.ts'

let t: Built
before(async () => {
  t = await build({ captureLogs: true })
})
after(() => t.close())

const create = (payload: unknown) =>
  t.app.inject({
    method: 'POST',
    url: '/v2.2/trip',
    headers: { authorization: basic(t.apiKey) },
    payload: payload as object,
  })

describe("a create request as other products' samples send it", () => {
  test('passengers without ids get p1, p2… in request order, never one given to another; one loyalty_program is a list of one', async () => {
    const p = tripPayload(t.clock.now())
    const res = await create({
      ...p,
      passengers: [
        {
          passenger_type: 'adult',
          first_names: 'Ada',
          loyalty_program: { airline_id: 'BA', program_name: 'Executive Club', number: 'BA123456' },
        },
        { passenger_id: 'p1', passenger_type: 'adult' },
        { passenger_type: 'child', date_of_birth: '2018-05-01' },
      ],
    })
    assert.equal(res.statusCode, 201, res.body)
    const trip = body(res)
    assert.deepEqual(
      trip.passengers.map((x: any) => [x.passenger_id, x.type]),
      [
        ['p2', 'adult'],
        ['p1', 'adult'],
        ['p3', 'child'],
      ],
    )
    assert.deepEqual(trip.passengers[0].loyalty_programs, [
      { airline_id: 'BA', program_name: 'Executive Club', number: 'BA123456' },
    ])
  })

  test("a journey's own journey_id is ignored; times without an offset are the airport's local time, and come back with its offset", async () => {
    const p = tripPayload(t.clock.now())
    const [out, back] = p.tickets[0]!.journeys
    const day = (iso: string) => iso.slice(0, 10)
    out!.segments[0]!.departure_time = `${day(out!.segments[0]!.departure_time)}T18:25`
    out!.segments[0]!.arrival_time = `${day(out!.segments[0]!.departure_time)}T21:30:00`
    back!.segments[0]!.departure_time = `${day(back!.segments[0]!.departure_time)}T08:00`
    back!.segments[0]!.arrival_time = `${day(back!.segments[0]!.departure_time)}T20:10`
    const res = await create({
      ...p,
      tickets: [
        {
          ...p.tickets[0],
          journeys: [
            { journey_id: 'OUT-1', ...out },
            { journey_id: 'RET-1', ...back },
          ],
        },
      ],
    })
    assert.equal(res.statusCode, 201, res.body)
    const trip = body(res)
    assert.ok(trip.journeys.every((j: any) => !['OUT-1', 'RET-1'].includes(j.journey_id)))
    // December: London is UTC+00:00, New York UTC−05:00.
    const [a, b] = trip.journeys.map((j: any) => j.segments[0])
    assert.deepEqual(
      [a.departure_time, a.arrival_time, b.departure_time, b.arrival_time].map((x: string) => x.slice(11)),
      ['18:25:00+00:00', '21:30:00-05:00', '08:00:00-05:00', '20:10:00+00:00'],
    )
  })

  test('every bad field is named at once (TypeBox stops at 8 by default)', async () => {
    const p: any = tripPayload(t.clock.now())
    p.language = 'en'
    p.currency = 'eur'
    p.country = 'gbr'
    p.passengers = [
      { passenger_type: 'alien' },
      { passenger_type: 'adult', first_names: 'R2D2' },
      { passenger_type: 'adult', date_of_birth: '1990-02-30' },
    ]
    const seg = p.tickets[0].journeys[0].segments[0]
    seg.departure_airport = 'lhr'
    seg.marketing_airline = 'British'
    seg.marketing_flight_number = 'BA117'
    seg.departure_time = 'tomorrow'
    p.tickets[0].offered_price.currency = 'pound'
    p.search = { bags: { search: true } }
    const problem = assertProblem(await create(p), 400, 'validation_error')
    const paths = problem.errors!.map((e) => e.path)
    for (const path of [
      '/language',
      '/currency',
      '/country',
      '/passengers/0/passenger_type',
      '/passengers/1/first_names',
      '/passengers/2/date_of_birth',
      '/tickets/0/journeys/0/segments/0/departure_airport',
      '/tickets/0/journeys/0/segments/0/marketing_airline',
      '/tickets/0/journeys/0/segments/0/marketing_flight_number',
      '/tickets/0/journeys/0/segments/0/departure_time',
      '/tickets/0/offered_price/currency',
      '/search/bags',
    ]) {
      assert.ok(paths.includes(path), `${path} is named: ${JSON.stringify(paths)}`)
    }
    assert.ok(
      problem.errors!.every((e) => !e.message.includes('must match pattern')),
      'in words, not patterns',
    )
  })
})

describe("fulfill as other products' samples send it", () => {
  const ready = async (passengers: unknown[]) => {
    const res = await create({ ...tripPayload(t.clock.now()), passengers })
    assert.equal(res.statusCode, 201, res.body)
    const trip = body(res)
    const basket = await addItems(t, trip, [
      { product_id: checkedBag(await readSearch(t, trip)).product_id, passenger_id: trip.passengers[0].passenger_id },
    ])
    const tickets = trip.tickets.map((tk: any) => ({
      ticket_id: tk.ticket_id,
      access_details: { record_locator: 'ABC123', ticket_number: '1250000000001' },
      status: 'booked',
    }))
    return { trip, basket, tickets }
  }
  const fulfill = (tripId: string, payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${tripId}/fulfill`,
      headers: { authorization: basic(t.apiKey) },
      payload: payload as object,
    })

  test("without passengers when the trip has every passenger's names and date of birth; with them otherwise", async () => {
    const named = await ready([
      { passenger_type: 'adult', first_names: 'Ada', surname: 'Lovelace', date_of_birth: '1985-12-10' },
      { passenger_type: 'adult', first_names: 'Charles', surname: 'Babbage', date_of_birth: '1981-12-26' },
    ])
    const ok = await fulfill(named.trip.trip_id, {
      trip_state_hash: named.basket.trip_state_hash,
      contact_details: CONTACT,
      tickets: named.tickets,
      payment_details: { payment_type: 'service_settlement' },
    })
    assert.equal(ok.statusCode, 202, ok.body)

    const anonymous = await ready([{ passenger_type: 'adult', first_names: 'Ada' }, { passenger_type: 'adult' }])
    const snapshot = t.snapshot()
    const p = assertProblem(
      await fulfill(anonymous.trip.trip_id, {
        trip_state_hash: anonymous.basket.trip_state_hash,
        contact_details: CONTACT,
        tickets: anonymous.tickets,
        payment_details: { payment_type: 'service_settlement' },
      }),
      400,
      'validation_error',
    )
    assert.deepEqual(p.errors, [
      {
        path: '/passengers',
        message:
          'are required here, since the trip does not have them all yet (p1 has no surname, date_of_birth; p2 has no first_names, surname, date_of_birth); or give them first by PATCH /v2.2/trip/{trip_id}',
      },
    ])
    assert.deepEqual(t.snapshot(), snapshot)
  })

  test('card details are refused, saying what to send instead, and kept nowhere', async () => {
    const { trip, basket, tickets } = await ready([
      { passenger_type: 'adult', first_names: 'Ada', surname: 'Lovelace', date_of_birth: '1985-12-10' },
    ])
    const card = {
      payment_type: 'card',
      card_number: '4111111111111111',
      cvv: '737',
      expiry_month: '03',
      expiry_year: '2030',
      holder_name: 'ADA LOVELACE',
    }
    const snapshot = t.snapshot()
    const res = await fulfill(trip.trip_id, {
      trip_state_hash: basket.trip_state_hash,
      contact_details: CONTACT,
      tickets,
      payment_details: card,
    })
    const p = assertProblem(res, 400, 'validation_error')
    assert.deepEqual(p.errors!.map((e) => e.path).sort(), [
      '/payment_details/card_number',
      '/payment_details/cvv',
      '/payment_details/expiry_month',
      '/payment_details/expiry_year',
      '/payment_details/holder_name',
    ])
    assert.match(p.errors![0]!.message, /card payment is not taken here .* send only payment_details.payment_type/)
    assert.ok(!res.body.includes('4111111111111111') && !res.body.includes('"737"'), 'the answer does not echo them')
    assert.deepEqual(t.snapshot(), snapshot, 'nothing stored')
    assert.ok(!t.logs.some((l) => l.includes('4111111111111111')), 'nothing logged')
  })
})
