/**
 * The fake Duffel answers in Duffel's recorded shapes: offers covering the variety Duffel's recordings show
 * (bags per segment, per slice and for the whole trip; cancel-for-any-reason; seats sold as services;
 * passengers searched by age; a zero-decimal currency; an airline that states little; a map without
 * wings), read over HTTP as the adapter reads them, must produce every path, JSON type and `type` name of
 * the signatures of Duffel's recordings (recorded/, made by shapes.ts), and of any raw recording a
 * record-mode run left in the folder recordings/ beside this file.
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeDuffel, type FakeDuffel, type SegmentInput } from './server.ts'
import { compare, signature, ROUTES, type RecordedSignature, type Route } from './shapes.ts'

const here = import.meta.dirname
let fake: FakeDuffel
/** What the fake answered, per route, read as the adapter reads it. */
const answers: Record<Route, unknown[]> = { offer: [], seat_maps: [], offer_request: [] }

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
const call = async (path: string, body?: unknown) => {
  const res = await fetch(`${fake.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    body: body === undefined ? undefined : JSON.stringify({ data: body }),
    headers: { authorization: `Bearer ${fake.token}`, 'duffel-version': 'v2', 'content-type': 'application/json' },
  })
  assert.ok(res.ok, `${path}: ${res.status}`)
  return res.json() as Promise<unknown>
}

before(async () => {
  fake = await startFakeDuffel()
  const offers = [
    // British Airways: bags per slice, a child and a lap infant searched by age, seats sold on the offer too,
    // a long-haul wide-body and a short hop.
    fake.addOffer({
      passengers: [{ type: 'adult' }, { age: 7 }, { age: 1 }],
      seatServices: true,
      slices: [
        { segments: [seg('LHR', 'JFK', 'BA', '117', 30, '11:20', '14:10')] },
        {
          segments: [
            seg('JFK', 'BOS', 'BA', '4411', 40, '08:00', '09:20'),
            seg('BOS', 'LHR', 'BA', '238', 40, '20:15', '07:45', 41),
          ],
        },
      ],
    }),
    // easyJet: states little, sells bags for the whole trip, its maps without wings.
    fake.addOffer({
      passengers: [{ type: 'adult' }, { type: 'adult' }],
      wings: false,
      slices: [
        { segments: [seg('LGW', 'AMS', 'U2', '8883', 20, '07:05', '09:20')] },
        { segments: [seg('AMS', 'LGW', 'U2', '8884', 27, '10:05', '10:25')] },
      ],
    }),
    // Bags per segment, with neither weight nor size, in a zero-decimal currency.
    fake.addOffer({
      passengers: [{ type: 'adult' }],
      currency: 'JPY',
      bags: [{ type: 'checked', total_amount: '5200', maximum_quantity: 2, maximum_weight_kg: null, scope: 'segment' }],
      slices: [
        {
          segments: [
            seg('FRA', 'MAD', 'LH', '1114', 12, '09:40', '12:25'),
            seg('MAD', 'BCN', 'IB', '3012', 12, '14:00', '15:15'),
          ],
        },
      ],
    }),
    // Duffel Airways: refundable, its CFAR on the return only.
    fake.addOffer({
      passengers: [{ type: 'adult' }],
      slices: [
        { segments: [seg('LHR', 'CDG', 'ZZ', '801', 9, '08:00', '10:15')] },
        { segments: [seg('CDG', 'LHR', 'ZZ', '802', 16, '18:00', '18:20')] },
      ],
    }),
  ]
  for (const { offer } of offers) {
    answers.offer.push(await call(`/air/offers/${offer.id}?return_available_services=true`))
    answers.seat_maps.push(await call(`/air/seat_maps?offer_id=${offer.id}`))
  }
  // An offer read without its services: Duffel's `available_services: null`.
  answers.offer.push(await call(`/air/offers/${offers[0]!.offer.id}`))
  // A return search from a city (no cabin named), and a short-haul one between airports of no city (easyJet too).
  answers.offer_request.push(
    await call('/air/offer_requests?return_offers=true', {
      slices: [
        { origin: 'LON', destination: 'JFK', departure_date: day(30) },
        { origin: 'JFK', destination: 'LON', departure_date: day(37) },
      ],
      passengers: [{ type: 'adult' }, { age: 9 }],
    }),
  )
  answers.offer_request.push(
    await call('/air/offer_requests?return_offers=true', {
      slices: [{ origin: 'MAN', destination: 'DUB', departure_date: day(14) }],
      passengers: [{ type: 'adult' }],
      cabin_class: 'economy',
    }),
  )
  // Duffel's test route with stops (DXB → AMS): segments that stop on the way, read as an offer too.
  const stopping = (await call('/air/offer_requests?return_offers=true', {
    slices: [{ origin: 'DXB', destination: 'AMS', departure_date: day(21) }],
    passengers: [{ type: 'adult' }],
    cabin_class: 'economy',
  })) as { data: { offers: Array<{ id: string }> } }
  answers.offer_request.push(stopping)
  answers.offer.push(await call(`/air/offers/${stopping.data.offers[0]!.id}?return_available_services=true`))
})
after(async () => {
  await fake.close()
})

const committed = (route: Route) =>
  JSON.parse(readFileSync(join(here, 'recorded', `${route}.json`), 'utf8')) as RecordedSignature

/**
 * The raw answers a record-mode run against Duffel's test mode left in recordings/<route>/ (`npm run
 * test:duffel-live -- --record DIR`, copied here): each `{ route, status, body }`. Refusals are left out:
 * errors are pinned by fake.test.ts.
 */
function rawRecordings(route: Route): Array<{ file: string; body: unknown }> {
  const folder = join(here, 'recordings', route)
  if (!existsSync(folder)) return []
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .flatMap((file) => {
      const recording = JSON.parse(readFileSync(join(folder, file), 'utf8')) as {
        route: string
        status: number
        body: unknown
      }
      assert.equal(recording.route, route, file)
      return recording.status >= 200 && recording.status < 300 ? [{ file, body: recording.body }] : []
    })
}

for (const route of ROUTES) {
  test(`${route}: the fake produces every path, type and type name of Duffel's recorded answers, and of any raw recording in recordings/`, () => {
    const recorded = committed(route)
    assert.match(recorded.source, /duffel-components src\/fixtures\/.+, commit 223357b/)
    assert.equal(recorded.route, route)
    const fake = signature(route, answers[route])
    assert.deepEqual(compare(recorded, fake), [])
    for (const { file, body } of rawRecordings(route))
      assert.deepEqual(compare(signature(route, [body]), fake), [], `${route}/${file}`)
  })
}

test('the committed signatures hold structure only: no value but the `type` names', () => {
  for (const route of ROUTES) {
    const recorded = committed(route)
    assert.deepEqual(Object.keys(recorded).sort(), ['paths', 'route', 'source', 'values'])
    for (const path of Object.keys(recorded.values)) assert.match(path, /(^|\.)type$/, `${route}: ${path}`)
  }
})

test('signature: every path with its JSON types (a `data` unwrapped, a list as its items), the `type` names apart', () => {
  const sig = signature('seat_maps', [
    {
      data: [
        { id: 'a', cabins: [{ wings: null, rows: [] }] },
        {
          id: 'b',
          cabins: [
            {
              wings: { first_row_index: 1 },
              rows: [{ sections: [{ elements: [{ type: 'seat', designator: '1A' }] }] }],
            },
          ],
        },
      ],
    },
  ])
  assert.deepEqual(sig, {
    route: 'seat_maps',
    paths: {
      cabins: ['array'],
      'cabins[]': ['object'],
      'cabins[].rows': ['array'],
      'cabins[].rows[]': ['object'],
      'cabins[].rows[].sections': ['array'],
      'cabins[].rows[].sections[]': ['object'],
      'cabins[].rows[].sections[].elements': ['array'],
      'cabins[].rows[].sections[].elements[]': ['object'],
      'cabins[].rows[].sections[].elements[].designator': ['string'],
      'cabins[].rows[].sections[].elements[].type': ['string'],
      'cabins[].wings': ['null', 'object'],
      'cabins[].wings.first_row_index': ['number'],
      id: ['string'],
    },
    values: { 'cabins[].rows[].sections[].elements[].type': ['seat'] },
  })
})

test('compare: a recorded path, type or type name the fake never makes is a problem; making more is not', () => {
  const map = (...elements: object[]) => ({ cabins: [{ rows: [{ sections: [{ elements }] }] }] })
  const recorded = signature('seat_maps', [
    map(
      { type: 'seat', designator: '1A', disclosures: [] },
      { type: 'restricted_seat_general', designator: null, disclosures: null },
    ),
  ])
  // A fake whose designators are never null, with no restricted seat, and no disclosures at all.
  const fake = signature('seat_maps', [
    map({ type: 'seat', designator: '1A', name: null }, { type: 'seat', designator: '1B' }),
  ])
  assert.deepEqual(compare(recorded, fake), [
    'seat_maps: cabins[].rows[].sections[].elements[].designator is null in the recordings, never in the fake (string)',
    'seat_maps: the fake never produces cabins[].rows[].sections[].elements[].disclosures (recorded as array | null)',
    'seat_maps: cabins[].rows[].sections[].elements[].type "restricted_seat_general" is recorded, never made by the fake',
  ])
  const faithful = signature('seat_maps', [
    map(
      { type: 'restricted_seat_general', designator: null, disclosures: null, name: null },
      { type: 'seat', designator: '2C', disclosures: ['x'] },
    ),
  ])
  assert.deepEqual(compare(recorded, faithful), [])
})

test("compare leaves out the recorder's note and free-form airline data, and nothing else", () => {
  const recorded = signature('offer', [
    {
      _description: 'a note',
      slices: [{ segments: [{ passengers: [{ cabin: { amenities: { wifi: null }, name: 'economy' } }] }] }],
      available_services: [{ type: 'cancel_for_any_reason', metadata: { merchant_copy: 'x' } }],
    },
  ])
  const fake = signature('offer', [
    {
      slices: [{ segments: [{ passengers: [{ cabin: { name: 'economy' } }] }] }],
      available_services: [{ type: 'cancel_for_any_reason', metadata: {} }],
    },
  ])
  assert.deepEqual(compare(recorded, fake), [
    'offer: the fake never produces available_services[].metadata.merchant_copy (recorded as string)',
  ])
})
