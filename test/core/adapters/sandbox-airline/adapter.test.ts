/**
 * The sandbox airline (core/adapters/sandbox-airline/): its catalogue, offers, seat maps, rechecks and test
 * scenarios, and at the end the Supplier contract (test/helpers/supplier-contract.ts) run on it.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ageOn, createSandboxSupplier } from '../../../../core/adapters/sandbox-airline/adapter.ts'
import { AIRLINES, GENERIC_POLICY } from '../../../../core/adapters/sandbox-airline/airlines.ts'
import { AIRCRAFT } from '../../../../core/adapters/sandbox-airline/aircraft.ts'
import type { Order } from '../../../../core/ports/records.ts'
import type {
  RecheckResult,
  Supplier,
  SupplierItem,
  SupplierProduct,
  SupplierTrip,
} from '../../../../core/ports/supplier.ts'
import { seatOfferKey, seatProducts } from '../../../../core/domain/search.ts'
import { CALL } from '../../../helpers/core.ts'
import type { BasketItem } from '../../../../core/schemas/basket.ts'
import type { Journey, Passenger, ProductTypeName, Segment } from '../../../../core/schemas/trip.ts'
import { supplierContract } from '../../../helpers/supplier-contract.ts'
import { contractTrip } from '../../../helpers/supplier-trips.ts'

const ALL: ProductTypeName[] = ['bag', 'seat', 'priority_boarding', 'automatic_check_in', 'fare_family_upsell']

/**
 * A search seen seat by seat: the supplier answers seats by price band on a shared map; these tests read
 * every seat as a product (core/domain/search.ts seatProducts, as rechecks and the API do) and each map's seats
 * with their offer key.
 */
async function searchSeats(supplier: Supplier, t: SupplierTrip, types: ProductTypeName[]) {
  const offers = await supplier.search(CALL, t, types)
  return {
    offers,
    products: [...offers.products, ...offers.seats.flatMap(seatProducts)],
    seatmaps: offers.seats.map((s) => ({
      segment_id: s.segment_id,
      aircraft: s.map.aircraft,
      decks: s.map.decks.map((d) => ({
        ...d,
        rows: d.rows.map((r) => ({
          ...r,
          seats: r.seats.map((st) => ({
            ...st,
            row: r.row,
            available: st.band !== null,
            offer_key: st.band === null ? null : seatOfferKey(s.segment_id, r.row, st.column),
          })),
        })),
      })),
    })),
  }
}
type SeatMapView = Awaited<ReturnType<typeof searchSeats>>['seatmaps'][number]

interface SegmentSpec {
  id: string
  airline: string
  flight: string
  /** Block time in minutes; decides the aircraft together with the flight number. */
  minutes?: number
  fareFamily?: string | null
  date?: string
}

function segment(s: SegmentSpec): Segment {
  const dep = new Date(`${s.date ?? '2026-12-01'}T09:00:00Z`)
  const arr = new Date(dep.getTime() + (s.minutes ?? 90) * 60000)
  return {
    segment_id: s.id,
    departure_airport: 'FRA',
    departure_airport_name: 'Frankfurt',
    departure_city: 'FRA',
    departure_city_name: 'Frankfurt',
    arrival_airport: 'LHR',
    arrival_airport_name: 'Heathrow',
    arrival_city: 'LON',
    arrival_city_name: 'London',
    departure_time: dep.toISOString().replace('.000Z', 'Z'),
    arrival_time: arr.toISOString().replace('.000Z', 'Z'),
    marketing_airline: s.airline,
    operating_airline: s.airline,
    marketing_flight_number: s.flight,
    operating_flight_number: s.flight,
    number_of_stops: 0,
    metadata: {},
    fare_basis: null,
    fare_class: 'Y',
    fare_family: s.fareFamily ?? null,
  }
}

function passenger(id: string, type: Passenger['type'], extra: Partial<Passenger> = {}): Passenger {
  return {
    passenger_id: id,
    type,
    on_lap_of: null,
    first_names: null,
    surname: null,
    date_of_birth: null,
    gender: null,
    title: null,
    metadata: {},
    loyalty_programs: [],
    identity_documents: [],
    ...extra,
  }
}

const PASSENGERS: Passenger[] = [
  passenger('P1', 'adult'),
  passenger('P2', 'adult'),
  passenger('P3', 'child'),
  passenger('P4', 'infant', { on_lap_of: 'P1' }),
]

function trip(journeys: SegmentSpec[][], passengers: Passenger[] = PASSENGERS, sandbox = true): SupplierTrip {
  const js: Journey[] = journeys.map((segs, i) => ({ journey_id: `J${i + 1}`, segments: segs.map(segment) }))
  return {
    trip_id: 'T1',
    sandbox,
    journeys: js,
    passengers,
    tickets: [
      {
        ticket_id: 'TK1',
        status: 'in_basket',
        journey_ids: js.map((j) => j.journey_id),
        basket_item_ids: [],
        basket_item_id: 'B0',
        access_details: {
          record_locator: null,
          ticket_number: null,
          reference_name: null,
          reference_email: null,
          ticketing_channel: { record_locator: null, name: null },
        },
        metadata: {},
      },
    ],
  }
}

const oneWay = (airline: string, flight: string, extra: Partial<SegmentSpec> = {}) =>
  trip([[{ id: 'S1', airline, flight, ...extra }]])

const byKey = (products: SupplierProduct[]) => new Map(products.map((p) => [p.offer_key, p]))

function mustGet<K, V>(map: Map<K, V>, key: K): V {
  const v = map.get(key)
  assert.ok(v !== undefined, `missing ${String(key)}`)
  return v
}

/** A basket item as the core builds it: search details plus passenger, price of `quantity` units. */
function basketItem(
  id: string,
  type: BasketItem['product_type'],
  details: Record<string, unknown>,
  unit: { amount: number; currency: string; decimal_places: number },
  quantity = 1,
): BasketItem {
  const original = { ...unit, amount: unit.amount * quantity }
  const money = { ...original, in_original_currency: original }
  return {
    basket_item_id: id,
    display_name: id,
    product_id: `prod-${id}`,
    product_type: type,
    quantity,
    ticket_id: 'TK1',
    benefits: [],
    product_details: details,
    price: { base: money, total: money, markups: [], taxes: [], fees: [] },
    validity: { status: 'valid', valid_from: '2026-01-01T00:00:00Z', valid_to: '2026-01-01T00:30:00Z' },
  }
}

const order = (id: string, itemId: string): Order => {
  const m = {
    amount: 1000,
    currency: 'EUR',
    decimal_places: 2,
    in_original_currency: { amount: 1000, currency: 'EUR', decimal_places: 2 },
  }
  return {
    order_id: id,
    fulfillment_id: 'F1',
    basket_item_id: itemId,
    display_name: 'x',
    status: 'in_progress',
    price: { base: m, total: m, markups: [], taxes: [], fees: [] },
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
  }
}

function seatsOf(map: SeatMapView) {
  return map.decks.flatMap((d) =>
    d.rows.flatMap((r) => r.seats.map((s) => ({ ...s, exit: r.exit, wing: r.wing, deck: d.deck }))),
  )
}

// ---------------------------------------------------------------- data

test('the catalogue has at least six airlines and its data is self-consistent', () => {
  const policies = [...Object.values(AIRLINES), GENERIC_POLICY]
  assert.ok(Object.keys(AIRLINES).length >= 6)
  for (const p of policies) {
    const codes = p.bags.map((b) => b.code)
    assert.equal(new Set(codes).size, codes.length, `${p.airline}: bag codes repeat`)
    // A basket item is matched back to its bag by these three, so they must identify one option.
    const shapes = p.bags.map(
      (b) => `${b.checked}:${b.weight_kg}:${b.dimensions.length + b.dimensions.width + b.dimensions.height}`,
    )
    assert.equal(new Set(shapes).size, shapes.length, `${p.airline}: two bags share checked/weight/size`)
    for (const code of p.lap_infant.bags) assert.ok(codes.includes(code), `${p.airline}: lap infant bag ${code}`)
    for (const f of p.fare_families)
      if (f.checked_bags) assert.ok(codes.includes(f.checked_bags.bag), `${p.airline}: ${f.code}`)
    for (const r of p.fleet) assert.ok(AIRCRAFT[r.aircraft], `${p.airline}: aircraft ${r.aircraft}`)
    assert.ok(
      p.fleet.at(-1)?.flight_numbers === undefined && p.fleet.at(-1)?.max_minutes === undefined,
      `${p.airline}: no catch-all fleet rule`,
    )
    const prices = p.fare_families.map((f) => f.price)
    assert.deepEqual(
      prices,
      [...prices].sort((a, b) => a - b),
      `${p.airline}: fare families out of order`,
    )
  }
})

// ---------------------------------------------------------------- search

test('search is deterministic: the same trip gets the same offers, from any instance', async () => {
  const t = trip([
    [{ id: 'S1', airline: 'LH', flight: '400', minutes: 520, fareFamily: 'Light' }],
    [{ id: 'S2', airline: 'EK', flight: '12', minutes: 420 }],
  ])
  const a = await searchSeats(createSandboxSupplier(), t, ALL)
  const b = await searchSeats(createSandboxSupplier(), structuredClone(t), ALL)
  assert.deepEqual(a, b)
  assert.ok(a.products.length > 0 && a.seatmaps.length === 2)
})

test('every catalogue airline offers bags in its own currency with integer prices', async () => {
  const supplier = createSandboxSupplier()
  for (const [code, policy] of Object.entries(AIRLINES)) {
    const { products } = await searchSeats(supplier, oneWay(code, '100'), ['bag'])
    const bought = products.filter((p) => !p.included)
    assert.ok(bought.length >= 1, `${code}: no purchasable bag`)
    assert.ok(
      products.some((p) => p.included && p.offer_key === 'bag:J1:included_cabin'),
      `${code}: no cabin allowance`,
    )
    for (const p of bought) {
      const adult = mustGet(new Map(Object.entries(p.per_passenger)), 'P2')
      if (!adult.available) continue
      assert.ok(adult.base)
      assert.equal(adult.base.currency, policy.currency, code)
      assert.equal(adult.base.decimal_places, policy.decimal_places, code)
      assert.ok(Number.isInteger(adult.base.amount) && adult.base.amount > 0, `${code}: ${adult.base.amount}`)
      for (const t of adult.taxes) assert.ok(Number.isInteger(t.amount), `${code}: tax ${t.amount}`)
      assert.equal(p.product_details.journey_id, 'J1')
      assert.equal(p.product_details.passenger_id, undefined)
      const d = p.product_details as { size: number; dimensions: { length: number; width: number; height: number } }
      assert.equal(d.size, d.dimensions.length + d.dimensions.width + d.dimensions.height)
    }
  }
  const ku = await searchSeats(supplier, oneWay('KU', '100'), ['bag'])
  assert.deepEqual(mustGet(byKey(ku.products), 'bag:J1:checked23').per_passenger.P2?.base, {
    amount: 15000,
    currency: 'KWD',
    decimal_places: 3,
  })
  const ek = await searchSeats(supplier, oneWay('EK', '500'), ['bag'])
  assert.deepEqual(mustGet(byKey(ek.products), 'bag:J1:checked23').per_passenger.P2?.taxes, [
    { tax_type: 'VAT', amount: 2000 },
  ])
})

test('an unknown airline gets the generic policy', async () => {
  const { products, seatmaps } = await searchSeats(createSandboxSupplier(), oneWay('ZZ', '123'), ALL)
  const bag = mustGet(byKey(products), 'bag:J1:checked23')
  assert.equal(bag.per_passenger.P2?.base?.currency, GENERIC_POLICY.currency)
  assert.equal(bag.per_passenger.P2?.base?.amount, GENERIC_POLICY.bags[0]?.price)
  assert.equal(seatmaps[0]?.aircraft, 'A320')
  for (const type of ALL.filter((t) => t !== 'fare_family_upsell'))
    assert.ok(
      products.some((p) => p.product_type === type),
      type,
    )
})

test('bag offers cover every passenger; lap infants get only what the policy allows', async () => {
  const supplier = createSandboxSupplier()
  const lh = byKey((await searchSeats(supplier, oneWay('LH', '100'), ['bag'])).products)
  const cabin = mustGet(lh, 'bag:J1:included_cabin')
  assert.equal(cabin.included, true)
  assert.deepEqual(cabin.per_passenger.P2, {
    available: false,
    base: null,
    taxes: [],
    quantity_limit: 0,
    reason: 'included',
  })
  assert.equal(cabin.per_passenger.P4?.reason, 'lap_infant')
  const checked23 = mustGet(lh, 'bag:J1:checked23')
  assert.deepEqual(Object.keys(checked23.per_passenger).sort(), ['P1', 'P2', 'P3', 'P4'])
  assert.equal(checked23.per_passenger.P1?.quantity_limit, 3)
  assert.equal(checked23.per_passenger.P4?.available, true)
  assert.equal(checked23.per_passenger.P4?.quantity_limit, 1)
  assert.equal(mustGet(lh, 'bag:J1:checked32').per_passenger.P4?.reason, 'lap_infant')

  // American sells a lap infant nothing.
  const aa = (await searchSeats(supplier, oneWay('AA', '100'), ['bag'])).products
  for (const p of aa) assert.equal(p.per_passenger.P4?.available, false)
  for (const p of aa.filter((x) => !x.included)) assert.equal(p.per_passenger.P4?.reason, 'lap_infant')

  // Emirates has an infant-only bag, shown only when there is a lap infant.
  const ek = byKey((await searchSeats(supplier, oneWay('EK', '500'), ['bag'])).products)
  const infantBag = mustGet(ek, 'bag:J1:infant10')
  assert.equal(infantBag.per_passenger.P4?.available, true)
  assert.equal(infantBag.per_passenger.P1?.reason, 'infant_only')
  assert.equal(mustGet(ek, 'bag:J1:checked23').per_passenger.P4?.reason, 'lap_infant')
  const noInfant = trip([[{ id: 'S1', airline: 'EK', flight: '500' }]], PASSENGERS.slice(0, 3))
  assert.ok(!(await searchSeats(supplier, noInfant, ['bag'])).products.some((p) => p.offer_key === 'bag:J1:infant10'))
})

test('fare families describe included checked bags', async () => {
  const supplier = createSandboxSupplier()
  const light = byKey((await searchSeats(supplier, oneWay('LH', '100', { fareFamily: 'Light' }), ['bag'])).products)
  assert.ok(!light.has('bag:J1:included_checked'))
  const classic = byKey(
    (await searchSeats(supplier, oneWay('LH', '100', { fareFamily: 'Economy Classic' }), ['bag'])).products,
  )
  assert.equal(mustGet(classic, 'bag:J1:included_checked').product_details.weight, 23)
  const nh = byKey((await searchSeats(supplier, oneWay('NH', '100', { fareFamily: 'value' }), ['bag'])).products)
  assert.equal(mustGet(nh, 'bag:J1:included_checked').product_details.pieces, 2)
})

const member = (airline_id: string, tier_name: string | null, extra: Partial<Passenger> = {}) => ({
  loyalty_programs: [{ airline_id, program_name: 'Programme', number: '123', tier_name }],
  ...extra,
})

test('loyalty: a qualifying tier buys the standard checked bag at 0, untaxed; nothing else changes', async () => {
  const supplier = createSandboxSupplier()
  const passengers = [
    passenger('P1', 'adult', member('NH', 'diamond')), // a partner's programme, case ignored
    passenger('P2', 'adult', member('NH', 'Bronze')), // a tier that earns nothing
    passenger('P3', 'adult', member('FR', 'Gold')), // a programme the airline does not honour
    passenger('P4', 'infant', member('LH', 'Senator', { on_lap_of: 'P1' })),
    passenger('P5', 'adult', member('LH', null)),
  ]
  const lh = byKey(
    (await searchSeats(supplier, trip([[{ id: 'S1', airline: 'LH', flight: '100' }]], passengers), ['bag'])).products,
  )
  const standard = mustGet(lh, 'bag:J1:checked23')
  assert.equal(standard.included, undefined)
  assert.deepEqual(standard.per_passenger.P1, {
    available: true,
    base: { amount: 0, currency: 'EUR', decimal_places: 2 },
    taxes: [],
    quantity_limit: 3,
  })
  for (const id of ['P2', 'P3', 'P5']) assert.equal(standard.per_passenger[id]?.base?.amount, 6000, id)
  // A lap infant's bag is the infant's own allowance, whatever the programme.
  assert.equal(standard.per_passenger.P4?.base?.amount, 6000)
  assert.equal(mustGet(lh, 'bag:J1:checked32').per_passenger.P1?.base?.amount, 15000)
  // The benefit is a price, not a second description of an included bag.
  assert.ok(![...lh.keys()].some((k) => k.includes('loyalty')))

  // Where the airline taxes bags, the free one carries no tax.
  const nh = byKey(
    (
      await searchSeats(
        supplier,
        trip([[{ id: 'S1', airline: 'NH', flight: '100' }]], [passenger('P1', 'adult', member('LH', 'HON Circle'))]),
        ['bag'],
      )
    ).products,
  )
  assert.deepEqual(mustGet(nh, 'bag:J1:checked23').per_passenger.P1, {
    available: true,
    base: { amount: 0, currency: 'JPY', decimal_places: 0 },
    taxes: [],
    quantity_limit: 3,
  })
  assert.deepEqual(mustGet(nh, 'bag:J1:checked32').per_passenger.P1?.taxes, [{ tax_type: 'JCT', amount: 3000 }])

  // The standard bag is the cheapest checked one anyone may buy, wherever the data lists it.
  const lhData = AIRLINES.LH!
  const reordered = { ...AIRLINES, LH: { ...lhData, bags: [...lhData.bags].reverse() } }
  const custom = byKey(
    (
      await searchSeats(
        createSandboxSupplier({ airlines: reordered }),
        trip([[{ id: 'S1', airline: 'LH', flight: '100' }]], [passenger('P1', 'adult', member('LH', 'Senator'))]),
        ['bag'],
      )
    ).products,
  )
  assert.equal(mustGet(custom, 'bag:J1:checked23').per_passenger.P1?.base?.amount, 0)
  assert.equal(mustGet(custom, 'bag:J1:checked32').per_passenger.P1?.base?.amount, 15000)
})

test('ageOn counts whole years to the date, with 29 February birthdays on 1 March', () => {
  assert.equal(ageOn('2010-12-01', '2026-12-01'), 16)
  assert.equal(ageOn('2010-12-02', '2026-12-01'), 15)
  assert.equal(ageOn('2010-12-01', '2026-12-01T23:30:00-05:00'), 16)
  assert.equal(ageOn('2008-02-29', '2024-02-28'), 15)
  assert.equal(ageOn('2008-02-29', '2024-02-29'), 16)
  assert.equal(ageOn('2010-02-29', '2026-02-28'), 15)
  assert.equal(ageOn('2010-02-29', '2026-03-01'), 16)
  assert.equal(ageOn(null, '2026-12-01'), null)
  assert.equal(ageOn('01/12/2010', '2026-12-01'), null)
})

test('exit rows: a passenger known to be under 16 on the day of departure gets none', async () => {
  const t = trip(
    [
      [
        { id: 'S1', airline: 'LH', flight: '500', minutes: 600, date: '2026-11-30' },
        { id: 'S2', airline: 'LH', flight: '501', minutes: 600, date: '2026-12-01' },
      ],
    ],
    [
      passenger('P1', 'adult', { date_of_birth: '2010-12-01' }), // 16 on the second flight's day only
      passenger('P2', 'adult', { date_of_birth: '1980-05-05' }),
      passenger('P3', 'adult'), // age unknown: the type decides
      passenger('P4', 'child', { date_of_birth: '2020-01-01' }),
    ],
  )
  const { products } = await searchSeats(createSandboxSupplier(), t, ['seat'])
  const exits = (sid: string) =>
    products.filter(
      (p) =>
        p.product_details.segment_id === sid && (p.product_details.characteristics as string[]).includes('exit_row'),
    )
  assert.ok(exits('S1').length > 0 && exits('S2').length > 0)
  for (const p of exits('S1')) {
    assert.deepEqual(p.per_passenger.P1, {
      available: false,
      base: null,
      taxes: [],
      quantity_limit: 0,
      reason: 'exit_row_age',
    })
    assert.equal(p.per_passenger.P2?.available, true)
    assert.equal(p.per_passenger.P3?.available, true)
    assert.equal(p.per_passenger.P4?.reason, 'exit_row')
  }
  for (const p of exits('S2')) assert.equal(p.per_passenger.P1?.available, true)
  const aisle = products.find(
    (p) =>
      p.product_details.segment_id === 'S1' && !(p.product_details.characteristics as string[]).includes('exit_row'),
  )!
  assert.equal(aisle.per_passenger.P1?.available, true)
})

test('seat maps of the A320, 787-9 and A380 have their aisles, exits, wings and decks', async () => {
  const supplier = createSandboxSupplier()
  const t = trip([
    [{ id: 'S1', airline: 'LH', flight: '100', minutes: 90 }],
    [{ id: 'S2', airline: 'LH', flight: '500', minutes: 600 }],
    [{ id: 'S3', airline: 'EK', flight: '1', minutes: 440 }],
    [{ id: 'S4', airline: 'KU', flight: '101', minutes: 400 }],
  ])
  const { seatmaps } = await searchSeats(supplier, t, ['seat'])
  const [a320, b787, a380, b777] = seatmaps
  assert.ok(a320 && b787 && a380 && b777)
  assert.deepEqual(
    seatmaps.map((m) => [m.segment_id, m.aircraft]),
    [
      ['S1', 'A320'],
      ['S2', 'B787-9'],
      ['S3', 'A380'],
      ['S4', 'B777-300ER'],
    ],
  )

  assert.equal(a320.decks.length, 1)
  const deck = a320.decks[0]!
  assert.deepEqual(deck.columns, ['A', 'B', 'C', 'D', 'E', 'F'])
  assert.deepEqual(deck.aisles_after, ['C'])
  assert.equal(deck.rows.length, 30)
  assert.ok(!deck.rows.some((r) => r.row === 13))
  assert.deepEqual(
    deck.rows.filter((r) => r.exit).map((r) => r.row),
    [12, 14],
  )
  assert.ok(deck.rows.filter((r) => r.wing).length >= 4)
  const row11 = deck.rows.find((r) => r.row === 11)!
  assert.ok(row11.seats.every((s) => s.characteristics.includes('restricted_recline')))
  assert.deepEqual(
    row11.seats.map((s) => s.characteristics[0]),
    ['window', 'middle', 'aisle', 'aisle', 'middle', 'window'],
  )
  assert.ok(deck.rows.find((r) => r.row === 1)!.seats.every((s) => s.characteristics.includes('extra_legroom')))

  assert.equal(b787.decks.length, 1)
  assert.deepEqual(b787.decks[0]!.aisles_after, ['C', 'F'])
  assert.equal(b787.decks[0]!.columns.length, 9)
  assert.ok(b787.decks[0]!.rows.some((r) => r.exit))
  assert.ok(seatsOf(b787).some((s) => s.characteristics.includes('bassinet')))

  assert.deepEqual(
    a380.decks.map((d) => d.name),
    ['Main deck', 'Upper deck'],
  )
  assert.equal(a380.decks[0]!.columns.length, 10)
  assert.equal(a380.decks[1]!.columns.length, 8)
  for (const d of a380.decks) {
    assert.equal(d.aisles_after.length, 2)
    assert.ok(d.rows.some((r) => r.exit) && d.rows.some((r) => r.wing), d.name)
  }
  const rows = a380.decks.flatMap((d) => d.rows.map((r) => r.row))
  assert.equal(new Set(rows).size, rows.length, 'row numbers repeat across decks')
  // The tapered last main-deck row still has window seats.
  const last = a380.decks[0]!.rows.at(-1)!
  assert.equal(last.seats.length, 8)
  assert.equal(last.seats[0]?.column, 'B')
  assert.equal(last.seats[0]?.characteristics[0], 'window')
})

test('taken seats have no offer; free seats have exactly one, with the zone price', async () => {
  const supplier = createSandboxSupplier()
  const t = trip([
    [
      { id: 'S1', airline: 'LH', flight: '100' },
      { id: 'S2', airline: 'BA', flight: '11', minutes: 700 },
    ],
  ])
  const { products, seatmaps } = await searchSeats(supplier, t, ['seat'])
  const offers = byKey(products)
  for (const map of seatmaps) {
    const seats = seatsOf(map)
    const taken = seats.filter((s) => !s.available)
    assert.ok(
      taken.length / seats.length >= 0.25 && taken.length / seats.length <= 0.55,
      `${map.segment_id}: ${taken.length}/${seats.length} taken`,
    )
    for (const s of seats) {
      assert.equal(s.available, s.offer_key !== null)
      if (s.offer_key === null) {
        assert.ok(!offers.has(`seat:${map.segment_id}:${s.row}${s.column}`))
        continue
      }
      assert.equal(s.offer_key, `seat:${map.segment_id}:${s.row}${s.column}`)
      const p = mustGet(offers, s.offer_key)
      assert.deepEqual(p.product_details, {
        segment_id: map.segment_id,
        row: s.row,
        column: s.column,
        characteristics: s.characteristics,
      })
    }
  }
  assert.equal(products.length, seatmaps.flatMap(seatsOf).filter((s) => s.available).length)
  // An A320 standard seat on Lufthansa is the table price; the 787's doubled.
  const standard = products.find(
    (p) =>
      p.product_details.segment_id === 'S1' &&
      !(p.product_details.characteristics as string[]).some((c) => c === 'front' || c === 'extra_legroom'),
  )
  assert.equal(standard?.per_passenger.P2?.base?.amount, AIRLINES.LH?.seat_prices.standard)
  // Same flight, another trip: the same seats are taken.
  const again = await searchSeats(
    supplier,
    trip([[{ id: 'S1', airline: 'LH', flight: '100' }]], [passenger('X', 'adult')]),
    ['seat'],
  )
  assert.deepEqual(
    again.seatmaps[0]?.decks[0]?.rows.map((r) => r.seats.map((s) => s.available)),
    seatmaps[0]?.decks[0]?.rows.map((r) => r.seats.map((s) => s.available)),
  )
})

test('seats: lap infants get none; exit rows are for adults without an infant only', async () => {
  const { products } = await searchSeats(
    createSandboxSupplier(),
    trip([[{ id: 'S1', airline: 'LH', flight: '500', minutes: 600 }]]),
    ['seat'],
  )
  const exits = products.filter((p) => (p.product_details.characteristics as string[]).includes('exit_row'))
  assert.ok(exits.length > 0)
  for (const p of products) assert.equal(p.per_passenger.P4?.reason, 'lap_infant')
  for (const p of exits) {
    assert.ok((p.product_details.characteristics as string[]).includes('no_infant'))
    assert.equal(p.per_passenger.P2?.available, true)
    assert.equal(p.per_passenger.P3?.reason, 'exit_row', 'child')
    assert.equal(p.per_passenger.P1?.reason, 'exit_row', 'adult holding the lap infant')
  }
  const other = products.find((p) => !(p.product_details.characteristics as string[]).includes('exit_row'))!
  assert.equal(other.per_passenger.P3?.available, true)
  assert.equal(other.per_passenger.P1?.quantity_limit, 1)
})

test('offer keys are unique within a trip, across every product type', async () => {
  const t = trip([
    [
      { id: 'S1', airline: 'LH', flight: '100', fareFamily: 'light' },
      { id: 'S2', airline: 'LH', flight: '400', minutes: 500, fareFamily: 'light' },
    ],
    [
      { id: 'S3', airline: 'LH', flight: '401', minutes: 500, fareFamily: 'light' },
      { id: 'S4', airline: 'LH', flight: '101', fareFamily: 'light' },
    ],
  ])
  const { products } = await searchSeats(createSandboxSupplier(), t, ALL)
  const keys = products.map((p) => p.offer_key)
  assert.equal(new Set(keys).size, keys.length)
  for (const type of ALL)
    assert.ok(
      products.some((p) => p.product_type === type),
      type,
    )
  assert.ok(keys.includes('priority_boarding:J2') && keys.includes('automatic_check_in:J1'))
})

test('priority boarding and automatic check-in are per journey and per passenger', async () => {
  const supplier = createSandboxSupplier()
  const { products } = await searchSeats(supplier, oneWay('FR', '100', { fareFamily: 'Basic' }), [
    'priority_boarding',
    'automatic_check_in',
  ])
  const pb = mustGet(byKey(products), 'priority_boarding:J1')
  assert.deepEqual(pb.product_details, { journey_id: 'J1' })
  assert.deepEqual(pb.per_passenger.P2?.base, { amount: 800, currency: 'EUR', decimal_places: 2 })
  assert.equal(pb.per_passenger.P4?.reason, 'lap_infant')
  assert.equal(mustGet(byKey(products), 'automatic_check_in:J1').per_passenger.P3?.available, true)
  // Ryanair's Regular fare includes priority.
  const regular = byKey(
    (await searchSeats(supplier, oneWay('FR', '100', { fareFamily: 'Regular' }), ['priority_boarding'])).products,
  )
  assert.equal(mustGet(regular, 'priority_boarding:J1').included, true)
  assert.equal(mustGet(regular, 'priority_boarding:J1').per_passenger.P2?.reason, 'included')
})

test('fare-family upsell offers the families above the booked one, none at the top or when unknown', async () => {
  const supplier = createSandboxSupplier()
  const light = (await searchSeats(supplier, oneWay('LH', '100', { fareFamily: 'Light' }), ['fare_family_upsell']))
    .products
  assert.deepEqual(
    light.map((p) => p.offer_key),
    ['fare_family_upsell:J1:classic', 'fare_family_upsell:J1:flex'],
  )
  assert.deepEqual(light[0]?.product_details, {
    journey_id: 'J1',
    fare_family: 'Economy Classic',
    from_fare_family: 'Economy Light',
    benefits: AIRLINES.LH?.fare_families[1]?.benefits,
  })
  assert.equal(light[1]?.per_passenger.P2?.base?.amount, 9500)
  assert.equal(light[0]?.per_passenger.P4?.reason, 'lap_infant')
  const classic = (await searchSeats(supplier, oneWay('LH', '100', { fareFamily: 'classic' }), ['fare_family_upsell']))
    .products
  assert.deepEqual(
    classic.map((p) => [p.offer_key, p.per_passenger.P1?.base?.amount]),
    [['fare_family_upsell:J1:flex', 6000]],
  )
  for (const family of ['Economy Flex', 'Mystery', null]) {
    const { products } = await searchSeats(supplier, oneWay('LH', '100', { fareFamily: family }), [
      'fare_family_upsell',
    ])
    assert.deepEqual(products, [], String(family))
  }
})

// ---------------------------------------------------------------- recheck and fulfill

const ticketItem: SupplierItem = {
  item: basketItem(
    'B0',
    'ticket',
    { journeys: [{ journey_id: 'J1', segments: [{ segment_id: 'S1' }] }] },
    { amount: 10000, currency: 'EUR', decimal_places: 2 },
  ),
  offer_key: undefined,
}

/** An item the core built from a search: the passenger's unit price × quantity, and the search's offer key. */
function itemFrom(product: SupplierProduct, passengerId: string, id: string, quantity = 1): SupplierItem {
  const unit = product.per_passenger[passengerId]?.base
  assert.ok(unit, `${product.offer_key} is not on sale to ${passengerId}`)
  return {
    item: basketItem(
      id,
      product.product_type,
      { ...product.product_details, passenger_id: passengerId },
      unit,
      quantity,
    ),
    offer_key: product.offer_key,
  }
}

async function bagItemOn(t: SupplierTrip, id = 'B1', quantity = 1, passengerId = 'P2', key = 'bag:J1:checked23') {
  const { products } = await searchSeats(createSandboxSupplier(), t, ['bag'])
  return itemFrom(mustGet(byKey(products), key), passengerId, id, quantity)
}

async function seatItemOn(t: SupplierTrip, passengerId = 'P2', segmentId = 'S1', id = 'B2', exit = false) {
  const { products } = await searchSeats(createSandboxSupplier(), t, ['seat'])
  const seat = products.find(
    (p) =>
      p.product_details.segment_id === segmentId &&
      p.per_passenger[passengerId]?.available &&
      (p.product_details.characteristics as string[]).includes('exit_row') === exit,
  )
  assert.ok(seat, `no seat for ${passengerId} on ${segmentId}`)
  return itemFrom(seat, passengerId, id)
}

/** The item as the caller sends it without an offer key: the sandbox rebuilds the key from the details. */
const unkeyed = ({ item }: SupplierItem): SupplierItem => ({ item, offer_key: undefined })

/** What the core does on accept: the item now holds `quantity` × the new unit price. */
function accept(si: SupplierItem, result: RecheckResult | undefined): SupplierItem {
  assert.ok(result?.outcome === 'price_changed', `expected price_changed, got ${JSON.stringify(result)}`)
  const { item } = si
  return {
    ...si,
    item: basketItem(item.basket_item_id, item.product_type, item.product_details, result.base, item.quantity),
  }
}

/** The trip with one passenger changed, as after a PATCH of that passenger. */
const patched = (t: SupplierTrip, id: string, change: Partial<Passenger>): SupplierTrip => ({
  ...t,
  passengers: t.passengers.map((p) => (p.passenger_id === id ? { ...p, ...change } : p)),
})

test('recheck without a scenario: everything stays valid, with or without offer keys', async () => {
  const t = oneWay('LH', '100')
  const items = [ticketItem, await bagItemOn(t), await seatItemOn(t), await bagItemOn(t, 'B3', 3)]
  const expected = { results: items.map((i) => ({ basket_item_id: i.item.basket_item_id, outcome: 'valid' })) }
  assert.deepEqual(await createSandboxSupplier().recheck(CALL, t, items), expected)
  assert.deepEqual(await createSandboxSupplier().recheck(CALL, t, items.map(unkeyed)), expected)
})

test('recheck notices a passenger who has since become a lap infant', async () => {
  const t = oneWay('LH', '100')
  const seat = await seatItemOn(t, 'P2')
  const changed = patched(t, 'P2', { type: 'infant', on_lap_of: 'P1' })
  const r = await createSandboxSupplier().recheck(CALL, changed, [seat])
  assert.deepEqual(r.results, [{ basket_item_id: 'B2', outcome: 'unavailable', reason: 'lap_infant' }])
  // Three bags were fine for a seated passenger; a lap infant may have one.
  const bags = await bagItemOn(t, 'B1', 3)
  assert.deepEqual((await createSandboxSupplier().recheck(CALL, changed, [bags])).results, [
    { basket_item_id: 'B1', outcome: 'unavailable', reason: 'quantity_limit' },
  ])
})

test('recheck finds the offer by its key, and falls back to the details only without one', async () => {
  const supplier = createSandboxSupplier()
  const t = oneWay('LH', '100')
  const heavy = await bagItemOn(t, 'B1', 1, 'P2', 'bag:J1:checked32')
  // Details that describe another bag: the key wins, so the heavy bag's price is the one compared.
  const misleading: SupplierItem = {
    ...heavy,
    item: { ...heavy.item, product_details: { ...heavy.item.product_details, weight: 23 } },
  }
  assert.deepEqual((await supplier.recheck(CALL, t, [misleading])).results, [
    { basket_item_id: 'B1', outcome: 'valid' },
  ])
  assert.deepEqual((await supplier.recheck(CALL, t, [unkeyed(misleading)])).results, [
    {
      basket_item_id: 'B1',
      outcome: 'price_changed',
      base: { amount: 6000, currency: 'EUR', decimal_places: 2 },
      taxes: [],
    },
  ])
  // Details the sandbox cannot read at all: with the key it still judges the item.
  const seat = await seatItemOn(t)
  const bare: SupplierItem = { ...seat, item: { ...seat.item, product_details: { passenger_id: 'P2' } } }
  assert.deepEqual((await supplier.recheck(CALL, t, [bare])).results, [{ basket_item_id: 'B2', outcome: 'valid' }])
  assert.deepEqual((await supplier.recheck(CALL, t, [{ ...bare, offer_key: 'seat:S1:99Z' }])).results, [
    { basket_item_id: 'B2', outcome: 'unavailable', reason: 'no_longer_offered' },
  ])
  assert.deepEqual(
    (await supplier.recheck(CALL, t, [unkeyed(bare)])).results,
    [{ basket_item_id: 'B2', outcome: 'valid' }],
    "not the sandbox's to judge",
  )
  // An allowance is a description: an item naming it is refused.
  assert.deepEqual((await supplier.recheck(CALL, t, [{ ...heavy, offer_key: 'bag:J1:included_cabin' }])).results, [
    { basket_item_id: 'B1', outcome: 'unavailable', reason: 'included' },
  ])
})

test('a held price that is not the current unit price × quantity is price_changed, then valid once held', async () => {
  const supplier = createSandboxSupplier()
  const t = oneWay('EK', '500')
  const current = await bagItemOn(t, 'B1', 2)
  assert.deepEqual((await supplier.recheck(CALL, t, [current])).results, [{ basket_item_id: 'B1', outcome: 'valid' }])
  // Bought when the airline asked 350.00 a bag; it now asks 400.00 (+ 5% VAT).
  const old: SupplierItem = {
    ...current,
    item: basketItem(
      'B1',
      'bag',
      current.item.product_details,
      { amount: 35000, currency: 'AED', decimal_places: 2 },
      2,
    ),
  }
  const first = (await supplier.recheck(CALL, t, [old])).results[0]
  assert.deepEqual(first, {
    basket_item_id: 'B1',
    outcome: 'price_changed',
    base: { amount: 40000, currency: 'AED', decimal_places: 2 },
    taxes: [{ tax_type: 'VAT', amount: 2000 }],
  })
  assert.deepEqual((await supplier.recheck(CALL, t, [old])).results[0], first, 'the same answer until accepted')
  const held = accept(old, first)
  assert.equal(held.item.price.base.in_original_currency.amount, 80000)
  assert.deepEqual((await supplier.recheck(CALL, t, [held])).results, [{ basket_item_id: 'B1', outcome: 'valid' }])
  // Cheaper is a change too, and so is one unit's price held for two, or another currency.
  const cheaper = {
    ...current,
    item: basketItem(
      'B1',
      'bag',
      current.item.product_details,
      { amount: 45000, currency: 'AED', decimal_places: 2 },
      2,
    ),
  }
  assert.equal((await supplier.recheck(CALL, t, [cheaper])).results[0]?.outcome, 'price_changed')
  const oneUnit = { ...current, item: { ...current.item, price: (await bagItemOn(t, 'B1', 1)).item.price } }
  assert.equal((await supplier.recheck(CALL, t, [oneUnit])).results[0]?.outcome, 'price_changed')
  const euros = {
    ...current,
    item: basketItem(
      'B1',
      'bag',
      current.item.product_details,
      { amount: 40000, currency: 'EUR', decimal_places: 2 },
      2,
    ),
  }
  assert.equal((await supplier.recheck(CALL, t, [euros])).results[0]?.outcome, 'price_changed')
  // Seats and journey products follow the same rule.
  const seat = await seatItemOn(t)
  const dearSeat = {
    ...seat,
    item: basketItem('B2', 'seat', seat.item.product_details, { amount: 1, currency: 'AED', decimal_places: 2 }),
  }
  const seatResult = (await supplier.recheck(CALL, t, [dearSeat])).results[0]
  assert.deepEqual(seatResult, {
    basket_item_id: 'B2',
    outcome: 'price_changed',
    base: seat.item.price.base.in_original_currency,
    taxes: [{ tax_type: 'VAT', amount: Math.round(seat.item.price.base.in_original_currency.amount * 0.05) }],
  })
  assert.deepEqual((await supplier.recheck(CALL, t, [accept(dearSeat, seatResult)])).results[0]?.outcome, 'valid')
})

test('loyalty added after purchase: the standard bag re-checks to 0, then stays valid', async () => {
  const supplier = createSandboxSupplier()
  const t = oneWay('NH', '100')
  const bags = await bagItemOn(t, 'B1', 2)
  const heavy = await bagItemOn(t, 'B2', 1, 'P2', 'bag:J1:checked32')
  assert.equal(bags.item.price.base.in_original_currency.amount, 40000)
  const loyal = patched(t, 'P2', member('NH', 'Platinum'))
  const { results } = await supplier.recheck(CALL, loyal, [bags, heavy])
  assert.deepEqual(results, [
    {
      basket_item_id: 'B1',
      outcome: 'price_changed',
      base: { amount: 0, currency: 'JPY', decimal_places: 0 },
      taxes: [],
    },
    { basket_item_id: 'B2', outcome: 'valid' },
  ])
  const free = accept(bags, results[0])
  assert.equal(free.item.price.base.in_original_currency.amount, 0)
  assert.deepEqual((await supplier.recheck(CALL, loyal, [free])).results, [{ basket_item_id: 'B1', outcome: 'valid' }])
  // Losing the tier brings the price back.
  assert.deepEqual((await supplier.recheck(CALL, t, [free])).results[0], {
    basket_item_id: 'B1',
    outcome: 'price_changed',
    base: { amount: 20000, currency: 'JPY', decimal_places: 0 },
    taxes: [{ tax_type: 'JCT', amount: 2000 }],
  })
  // A tier the airline does not honour changes nothing.
  assert.deepEqual((await supplier.recheck(CALL, patched(t, 'P2', member('NH', 'Bronze')), [bags])).results, [
    { basket_item_id: 'B1', outcome: 'valid' },
  ])
})

test('exit-row age: a seat re-checks unavailable once a date of birth shows the passenger under 16', async () => {
  const supplier = createSandboxSupplier()
  const t = trip([[{ id: 'S1', airline: 'LH', flight: '500', minutes: 600 }]])
  const exit = await seatItemOn(t, 'P2', 'S1', 'B2', true)
  const other = await seatItemOn(t, 'P2', 'S1', 'B3', false)
  assert.deepEqual(
    (await supplier.recheck(CALL, t, [exit, other])).results.map((r) => r.outcome),
    ['valid', 'valid'],
  )
  const young = patched(t, 'P2', { date_of_birth: '2010-12-02' }) // 15 on 2026-12-01
  assert.deepEqual((await supplier.recheck(CALL, young, [exit, other])).results, [
    { basket_item_id: 'B2', outcome: 'unavailable', reason: 'exit_row_age' },
    { basket_item_id: 'B3', outcome: 'valid' },
  ])
  assert.deepEqual((await supplier.recheck(CALL, young, [unkeyed(exit)])).results[0], {
    basket_item_id: 'B2',
    outcome: 'unavailable',
    reason: 'exit_row_age',
  })
  const sixteen = patched(t, 'P2', { date_of_birth: '2010-12-01' })
  assert.deepEqual((await supplier.recheck(CALL, sixteen, [exit])).results, [
    { basket_item_id: 'B2', outcome: 'valid' },
  ])
})

test("infant age: an infant's bag re-checks unavailable when the passenger is no longer a lap infant or is 2 at departure", async () => {
  const supplier = createSandboxSupplier()
  const t = oneWay('KU', '100') // departs 2026-12-01; P4 is on P1's lap
  const infantBag = await bagItemOn(t, 'B1', 1, 'P4', 'bag:J1:infant10')
  assert.deepEqual((await supplier.recheck(CALL, t, [infantBag])).results, [{ basket_item_id: 'B1', outcome: 'valid' }])
  const infantAge = [{ basket_item_id: 'B1', outcome: 'unavailable', reason: 'infant_age' }]

  // Now seated: the trip has no lap infant left, and the item is still refused for that reason.
  const seated = patched(t, 'P4', { on_lap_of: null })
  assert.deepEqual((await supplier.recheck(CALL, seated, [infantBag])).results, infantAge)
  assert.deepEqual((await supplier.recheck(CALL, seated, [unkeyed(infantBag)])).results, infantAge)
  assert.ok(
    !(await searchSeats(supplier, seated, ['bag'])).products.some((p) => p.offer_key === 'bag:J1:infant10'),
    'search still hides it',
  )

  assert.deepEqual(
    (await supplier.recheck(CALL, patched(t, 'P4', { date_of_birth: '2024-12-01' }), [infantBag])).results,
    infantAge,
  )
  assert.deepEqual(
    (await supplier.recheck(CALL, patched(t, 'P4', { date_of_birth: '2024-12-02' }), [infantBag])).results,
    [{ basket_item_id: 'B1', outcome: 'valid' }],
  )

  // Any bag bought as a lap infant's allowance, and search agrees.
  const lh = oneWay('LH', '100')
  const lapBag = await bagItemOn(lh, 'B2', 1, 'P4')
  const two = patched(lh, 'P4', { date_of_birth: '2024-06-01' })
  assert.deepEqual((await supplier.recheck(CALL, two, [lapBag])).results, [
    { basket_item_id: 'B2', outcome: 'unavailable', reason: 'infant_age' },
  ])
  const offers = (await searchSeats(supplier, two, ['bag'])).products.filter((p) => !p.included)
  for (const p of offers) assert.equal(p.per_passenger.P4?.reason, 'infant_age', p.offer_key)
})

test("9001: a bag's price rises 20% on the next check; once accepted it is valid", async () => {
  const supplier = createSandboxSupplier()
  const t = trip([[{ id: 'S1', airline: 'EK', flight: '9001' }]])
  const bag = await bagItemOn(t)
  const seat = await seatItemOn(t)
  const first = await supplier.recheck(CALL, t, [bag, seat, ticketItem])
  assert.deepEqual(first.results[0], {
    basket_item_id: 'B1',
    outcome: 'price_changed',
    base: { amount: 48000, currency: 'AED', decimal_places: 2 },
    taxes: [{ tax_type: 'VAT', amount: 2400 }],
  })
  assert.equal(first.results[1]?.outcome, 'valid')
  assert.equal(first.results[2]?.outcome, 'valid')
  assert.equal(first.delayMs, undefined)
  assert.deepEqual(
    await supplier.recheck(CALL, t, [bag]),
    first.results[0] && { results: [first.results[0]] },
    'same answer until accepted',
  )
  assert.deepEqual((await supplier.recheck(CALL, t, [unkeyed(bag)])).results[0], first.results[0])
})

test('9001 converges: after the core accepts, every later check is valid, whatever the quantity', async () => {
  const supplier = createSandboxSupplier()
  const t = trip([[{ id: 'S1', airline: 'EK', flight: '9001' }]])
  for (const quantity of [1, 2, 3]) {
    let item = await bagItemOn(t, 'B1', quantity)
    let rounds = 0
    for (;;) {
      const r = (await supplier.recheck(CALL, t, [item])).results[0]
      if (r?.outcome === 'valid') break
      assert.ok(++rounds <= 1, `quantity ${quantity}: still ${JSON.stringify(r)} after accepting`)
      item = accept(item, r)
    }
    assert.equal(rounds, 1)
    assert.equal(item.item.price.base.in_original_currency.amount, 48000 * quantity)
    for (let i = 0; i < 3; i++)
      assert.deepEqual((await supplier.recheck(CALL, t, [item])).results, [{ basket_item_id: 'B1', outcome: 'valid' }])
    assert.deepEqual((await supplier.recheck(CALL, t, [unkeyed(item)])).results, [
      { basket_item_id: 'B1', outcome: 'valid' },
    ])
  }
  // A free bag has nothing to raise.
  const loyal = trip([[{ id: 'S1', airline: 'EK', flight: '9001' }]], [passenger('P1', 'adult', member('EK', 'Gold'))])
  const free = await bagItemOn(loyal, 'B1', 1, 'P1')
  assert.deepEqual((await supplier.recheck(CALL, loyal, [free])).results, [{ basket_item_id: 'B1', outcome: 'valid' }])
})

test('9001 with priceChangeProducts: the named products change price (a seat, with its taxes), the others do not', async () => {
  const supplier = createSandboxSupplier({ priceChangeProducts: ['seat'] })
  const t = trip([[{ id: 'S1', airline: 'EK', flight: '9001' }]])
  const seat = await seatItemOn(t)
  const offered = seat.item.price.base.in_original_currency.amount
  const [seatResult, bagResult] = (await supplier.recheck(CALL, t, [seat, await bagItemOn(t)])).results
  assert.ok(seatResult?.outcome === 'price_changed', JSON.stringify(seatResult))
  const raised = Math.round(offered * 1.2)
  assert.deepEqual(seatResult.base, { amount: raised, currency: 'AED', decimal_places: 2 })
  assert.deepEqual(seatResult.taxes, [{ tax_type: 'VAT', amount: Math.round(raised * 0.05) }])
  assert.equal(bagResult?.outcome, 'valid', 'bags keep their price when not named')
  assert.deepEqual((await supplier.recheck(CALL, t, [accept(seat, seatResult)])).results, [
    { basket_item_id: 'B2', outcome: 'valid' },
  ])
})

test('9002: every item, the ticket included, becomes unavailable', async () => {
  const t = trip([
    [
      { id: 'S1', airline: 'LH', flight: '100' },
      { id: 'S2', airline: 'LH', flight: '9002' },
    ],
  ])
  const items = [ticketItem, await bagItemOn(t), await seatItemOn(t, 'P2', 'S2'), await seatItemOn(t, 'P2', 'S1', 'B3')]
  const { results } = await createSandboxSupplier().recheck(CALL, t, items)
  // Journey items and the seat on flight 9002 go; a seat on the journey's other flight is not that flight's.
  assert.deepEqual(
    results.map((r) => r.outcome),
    ['unavailable', 'unavailable', 'unavailable', 'valid'],
  )
  for (const r of results.slice(0, 3)) assert.ok(r.outcome === 'unavailable' && r.reason.length > 0)
})

test('9003: fulfillment fails; otherwise it succeeds with a reference derived from the order id', async () => {
  const supplier = createSandboxSupplier()
  const failing = trip([[{ id: 'S1', airline: 'LH', flight: '9003' }]])
  const bag = await bagItemOn(failing)
  const r = await supplier.fulfill(CALL, failing, order('O1', 'B1'), bag)
  assert.equal(r.ok, false)
  assert.ok(!r.ok && r.reason.length > 0)
  assert.deepEqual(await supplier.fulfill(CALL, failing, order('O1', 'B1'), bag), r)
  // The check itself is not affected.
  assert.equal((await supplier.recheck(CALL, failing, [bag])).results[0]?.outcome, 'valid')

  const ok = oneWay('LH', '100')
  const first = await supplier.fulfill(CALL, ok, order('O1', 'B1'), bag)
  assert.ok(first.ok === true)
  assert.match(first.reference, /^SBX[A-Z2-9]{10}$/)
  assert.deepEqual(await createSandboxSupplier().fulfill(CALL, ok, order('O1', 'B1'), bag), first)
  // The order id alone decides: not the item, its key or the trip.
  const seat = await seatItemOn(ok)
  assert.deepEqual(await supplier.fulfill(CALL, oneWay('BA', '200'), order('O1', 'B2'), unkeyed(seat)), first)
  const other = await supplier.fulfill(CALL, ok, order('O2', 'B1'), bag)
  assert.ok(other.ok === true && other.reference !== first.reference)
})

test('9004: the check asks to stay checking for 5 s', async () => {
  const t = trip([[{ id: 'S1', airline: 'LH', flight: '9004' }]])
  const bag = await bagItemOn(t)
  const r = await createSandboxSupplier().recheck(CALL, t, [bag, ticketItem])
  assert.equal(r.delayMs, 5000)
  assert.deepEqual(
    r.results.map((x) => x.outcome),
    ['valid', 'valid'],
  )
  assert.equal((await createSandboxSupplier({ checkDelayMs: 50 }).recheck(CALL, t, [bag])).delayMs, 50)
})

test('scenarios act only on the items of the flight that carries the number', async () => {
  const t = trip([[{ id: 'S1', airline: 'LH', flight: '9002' }], [{ id: 'S2', airline: 'LH', flight: '100' }]])
  const item = await bagItemOn(t, 'B9', 1, 'P2', 'bag:J2:checked23')
  assert.deepEqual((await createSandboxSupplier().recheck(CALL, t, [item])).results, [
    { basket_item_id: 'B9', outcome: 'valid' },
  ])
})

test('scenarios 9001–9004 are off for trips not flagged sandbox, unless asked for always', async () => {
  for (const flight of ['9001', '9002', '9003', '9004']) {
    const t = trip([[{ id: 'S1', airline: 'LH', flight }]], PASSENGERS, false)
    const items = [ticketItem, await bagItemOn(t), await seatItemOn(t)]
    const normal = createSandboxSupplier()
    const checked = await normal.recheck(CALL, t, items)
    assert.deepEqual(
      checked,
      { results: items.map((i) => ({ basket_item_id: i.item.basket_item_id, outcome: 'valid' })) },
      flight,
    )
    assert.ok((await normal.fulfill(CALL, t, order('O1', 'B1'), items[1]!)).ok, flight)

    const always = createSandboxSupplier({ scenarios: 'always' })
    const forced = await always.recheck(CALL, t, items)
    const fulfilled = await always.fulfill(CALL, t, order('O1', 'B1'), items[1]!)
    switch (flight) {
      case '9001':
        assert.equal(forced.results[1]?.outcome, 'price_changed')
        break
      case '9002':
        assert.equal(forced.results[1]?.outcome, 'unavailable')
        break
      case '9003':
        assert.equal(fulfilled.ok, false)
        break
      case '9004':
        assert.equal(forced.delayMs, 5000)
        break
    }
  }
})

// The sandbox airline against the Supplier contract (test/helpers/supplier-contract.ts). It books per order id
// (the same order always gets the same booking), so what it "sold" is the orders it booked; its price
// change is its test scenario 9001 (a check sees bags 20 % dearer on such a flight).
supplierContract('sandbox airline', async () => {
  const sandbox = createSandboxSupplier()
  const booked = new Set<string>()
  const supplier: Supplier = {
    ...sandbox,
    async fulfill(call, trip, order, item) {
      const r = await sandbox.fulfill(call, trip, order, item)
      if (r.ok === true) booked.add(order.order_id)
      return r
    },
  }
  return {
    supplier,
    call: { seller_id: 'seller-1', sandbox: true, credentials: null },
    credentials: { sandbox: null, live: null, notForSandbox: 'a-token', notForLive: null },
    trip: async () => contractTrip(),
    unknownTrip: () => contractTrip({ flight: '4321' }),
    async book(trip: SupplierTrip) {
      return {
        ...trip,
        tickets: trip.tickets.map((t) => ({
          ...t,
          status: 'booked' as const,
          access_details: { ...t.access_details, record_locator: 'SBX123' },
        })),
      }
    },
    sold: async () => booked.size,
    async changePrice(trip: SupplierTrip) {
      for (const j of trip.journeys) for (const s of j.segments) s.marketing_flight_number = '9001'
    },
  }
})
