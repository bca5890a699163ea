/** core/domain/fulfillment.ts called directly: a fulfill checked against a trip record, the orders it makes, and how orders move. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { acceptFulfillment, isFulfilled, moveOrder } from '../../../core/domain/fulfillment.ts'
import type { TripRecord } from '../../../core/ports/records.ts'
import type { FulfillRequest } from '../../../core/schemas/fulfillment.ts'
import {
  HOLD_MS,
  ISO,
  NOW,
  countingIds,
  later,
  refuses,
  ticketItem,
  tripRecord,
  withItem,
  withOrder,
} from '../../helpers/records.ts'

const HASH = 'hash-1'
const ctx = (now = NOW, findsBookingByLocator = false) => ({
  now,
  currentHash: HASH,
  newId: countingIds('ffffffff').newId,
  findsBookingByLocator,
})
const id = (n: number) => `ffffffff-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

/** The trip with a bag (p1) and a seat (p2) in its basket, both valid. */
const withBasket = () =>
  withItem(withItem(tripRecord(), { basket_item_id: 'bag-1' }), {
    basket_item_id: 'seat-1',
    display_name: 'Seat 1A',
    product_type: 'seat',
    product_details: { segment_id: 's', row: 1, column: 'A', passenger_id: 'p2' },
  })

function firstRequest(trip: TripRecord, over: Partial<FulfillRequest> = {}): FulfillRequest {
  return {
    trip_state_hash: HASH,
    contact_details: { contact_details_type: 'passenger', email: 'ada@example.com' },
    passengers: trip.passengers.map((p) => ({
      passenger_id: p.passenger_id,
      first_names: 'Ada',
      surname: `Lovelace ${p.passenger_id}`,
      date_of_birth: p.type === 'infant' ? '2026-01-01' : '1990-01-01',
      passenger_type: p.type,
    })),
    tickets: trip.tickets.map((t) => ({
      ticket_id: t.ticket_id,
      access_details: { record_locator: 'ABC123', ticket_number: '1251234567890' },
      status: 'booked' as const,
    })),
    payment_details: { payment_type: 'service_settlement' },
    ...over,
  }
}

test('acceptFulfillment: the first fulfill books the tickets and makes a queued order per ancillary', () => {
  const trip = withBasket()
  const before = structuredClone(trip)
  const r = acceptFulfillment(trip, firstRequest(trip), ctx())
  const fid = id(1)
  assert.deepEqual(r.fulfillment, {
    fulfillment_id: fid,
    status: 'queued',
    order_ids: [id(2), id(3)],
    payment_type: 'service_settlement',
    created_at: ISO,
    completed_at: null,
  })
  assert.deepEqual(r.trip.orders[id(2)], {
    order_id: id(2),
    fulfillment_id: fid,
    basket_item_id: 'bag-1',
    display_name: 'Checked bag 23 kg',
    price: trip.basket['bag-1']!.price,
    status: 'queued',
    created_at: ISO,
    updated_at: ISO,
  })
  assert.equal(r.trip.orders[id(3)]!.basket_item_id, 'seat-1')
  assert.equal(r.trip.basket['bag-1']!.order_id, id(2))
  assert.equal(r.trip.basket['seat-1']!.order_id, id(3))
  assert.equal(ticketItem(r.trip).order_id, undefined, 'the ticket is booked, not ordered')
  assert.deepEqual(
    r.queued.map((o) => o.order_id),
    [id(2), id(3)],
  )
  assert.equal(r.awaiting, false)
  assert.deepEqual(r.events, [])
  const ticket = r.trip.tickets[0]!
  assert.equal(ticket.status, 'booked')
  assert.deepEqual(ticket.access_details, {
    record_locator: 'ABC123',
    ticket_number: '1251234567890',
    reference_name: 'Lovelace p1',
    reference_email: 'ada@example.com',
    ticketing_channel: { record_locator: 'ABC123', name: null },
  })
  assert.deepEqual(
    r.trip.passengers.map((p) => [p.first_names, p.surname, p.date_of_birth]),
    [
      ['Ada', 'Lovelace p1', '1990-01-01'],
      ['Ada', 'Lovelace p2', '1990-01-01'],
      ['Ada', 'Lovelace p3', '2026-01-01'],
    ],
  )
  assert.deepEqual(r.trip.contact_details, { contact_details_type: 'passenger', email: 'ada@example.com' })
  assert.equal(isFulfilled(r.trip), true)
  assert.equal(isFulfilled(trip), false)
  assert.deepEqual(trip, before, 'the trip passed in is left as it was')
})

test('acceptFulfillment: a trip with only its ticket completes at once, with its event', () => {
  const trip = tripRecord()
  const r = acceptFulfillment(trip, firstRequest(trip), ctx())
  assert.deepEqual(r.fulfillment, {
    fulfillment_id: id(1),
    status: 'completed',
    order_ids: [],
    payment_type: 'service_settlement',
    created_at: ISO,
    completed_at: ISO,
  })
  assert.deepEqual(r.events, [
    { event_name: 'fulfillment_completed', fulfillment_id: id(1), data: { status: 'succeeded', orders: [] } },
  ])
  assert.deepEqual(r.queued, [])
})

test('acceptFulfillment: a stale trip_state_hash is a conflict', () => {
  const trip = withBasket()
  const e = refuses(
    () => acceptFulfillment(trip, firstRequest(trip, { trip_state_hash: 'old' }), ctx()),
    'trip_state_conflict',
  )
  assert.deepEqual(e.errors, [{ path: '/trip_state_hash', message: 'does not match the current trip state' }])
})

test('acceptFulfillment: every item not yet bought must be valid, expired ones too', () => {
  const trip = withItem(withBasket(), {
    basket_item_id: 'gone',
    display_name: 'Sports bag',
    validity: { status: 'unavailable', valid_from: ISO, valid_to: ISO },
  })
  const e = refuses(() => acceptFulfillment(trip, firstRequest(trip), ctx()), 'basket_not_valid')
  assert.deepEqual(e.errors, [{ path: '/basket/gone', message: 'Sports bag is unavailable' }])
  const late = withBasket()
  const expired = refuses(
    () => acceptFulfillment(late, firstRequest(late), ctx(later(HOLD_MS + 1))),
    'basket_not_valid',
  )
  assert.equal(expired.errors?.length, 3, 'the ticket and both items are past their window')
  assert.match(expired.message, /3 is not/)
})

test("acceptFulfillment: the first fulfill needs contact details, tickets and every passenger's names", () => {
  const trip = withBasket()
  const e = refuses(
    () => acceptFulfillment(trip, { trip_state_hash: HASH, payment_details: { payment_type: 'x' } }, ctx()),
    'validation_error',
  )
  assert.deepEqual(
    e.errors?.map((x) => x.path),
    ['/contact_details', '/tickets', '/passengers'],
  )
  assert.match(e.errors![2]!.message, /p1 has no first_names, surname, date_of_birth/)
})

test('acceptFulfillment: passengers and tickets are checked against the trip, by path', () => {
  const trip = withBasket()
  const req = firstRequest(trip)
  const wrong = refuses(
    () =>
      acceptFulfillment(
        trip,
        {
          ...req,
          passengers: [
            { ...req.passengers![0]!, passenger_type: 'child' },
            { ...req.passengers![1]!, passenger_id: 'p9' },
            { ...req.passengers![2]!, date_of_birth: '2030-01-01' },
          ],
          contact_details: { contact_details_type: 'passenger', email: 'a@b.example', passenger_id: 'p7' },
        },
        ctx(),
      ),
    'validation_error',
  )
  assert.deepEqual(wrong.errors, [
    { path: '/passengers/0/passenger_type', message: 'must be adult, as the trip was created' },
    { path: '/passengers/1/passenger_id', message: 'is not a passenger of this trip' },
    { path: '/passengers/2/date_of_birth', message: 'is in the future (passenger p3)' },
    { path: '/passengers', message: 'passenger p2 is missing' },
    { path: '/contact_details/passenger_id', message: 'is not a passenger of this trip' },
  ])
  const tickets = refuses(
    () =>
      acceptFulfillment(
        trip,
        {
          ...req,
          tickets: [
            { ticket_id: 'nope', access_details: { record_locator: 'ABC123', ticket_number: '1' }, status: 'booked' },
          ],
        },
        ctx(),
      ),
    'validation_error',
  )
  assert.deepEqual(
    tickets.errors?.map((x) => x.path),
    ['/tickets/0/ticket_id', '/tickets'],
  )
  const unnumbered = refuses(
    () =>
      acceptFulfillment(
        trip,
        { ...req, tickets: req.tickets!.map((t) => ({ ...t, access_details: { record_locator: 'ABC123' } })) },
        ctx(),
      ),
    'validation_error',
  )
  assert.deepEqual(
    unnumbered.errors?.map((x) => x.path),
    ['/tickets/0/access_details/ticket_number'],
  )
})

test('acceptFulfillment: a supplier that finds bookings by record locator takes tickets without numbers, as issued', () => {
  const trip = withBasket()
  const req = firstRequest(trip)
  const located = acceptFulfillment(
    trip,
    { ...req, tickets: req.tickets!.map((t) => ({ ...t, access_details: { record_locator: 'ABC123' } })) },
    ctx(NOW, true),
  )
  assert.equal(located.awaiting, false)
  assert.deepEqual(
    Object.values(located.trip.orders).map((o) => o.status),
    ['queued', 'queued'],
  )
  assert.equal(located.trip.tickets[0]!.access_details.ticket_number, null)
  assert.equal(located.trip.tickets[0]!.access_details.record_locator, 'ABC123')
  assert.equal(located.trip.tickets_issued, true)
  // A later fulfill of a new item needs no tickets: they are issued, though their numbers were never given.
  const more = withItem(located.trip, {
    basket_item_id: 'bag-2',
    product_details: { checked: true, journey_id: 'j', passenger_id: 'p2' },
  })
  const next = acceptFulfillment(
    more,
    { trip_state_hash: HASH, payment_details: { payment_type: 'x' } },
    { ...ctx(later(1000), true), newId: () => 'f-2' },
  )
  assert.deepEqual(
    next.queued.map((o) => o.basket_item_id),
    ['bag-2'],
  )
  // ... and is_ticketed: false cannot be said of them any more.
  const unsay = refuses(
    () =>
      acceptFulfillment(
        more,
        { trip_state_hash: HASH, is_ticketed: false, payment_details: { payment_type: 'x' } },
        ctx(later(1000), true),
      ),
    'validation_error',
  )
  assert.deepEqual(
    unsay.errors?.map((x) => x.path),
    ['/is_ticketed'],
  )
})

test('acceptFulfillment: with is_ticketed false the orders wait for the tickets, and a fulfill with numbers releases them', () => {
  const trip = withBasket()
  const req = firstRequest(trip, { is_ticketed: false })
  const held = acceptFulfillment(
    trip,
    { ...req, tickets: req.tickets!.map((t) => ({ ...t, access_details: { record_locator: 'ABC123' } })) },
    ctx(),
  )
  assert.equal(held.awaiting, true)
  assert.deepEqual(held.queued, [])
  assert.deepEqual(
    Object.values(held.trip.orders).map((o) => o.status),
    ['awaiting_ticketing', 'awaiting_ticketing'],
  )
  assert.equal(held.trip.tickets[0]!.access_details.ticket_number, null)

  // A later fulfill with no tickets while they are not issued is refused.
  const more = withItem(held.trip, {
    basket_item_id: 'bag-2',
    product_details: { checked: true, journey_id: 'j', passenger_id: 'p2' },
  })
  const noTickets = refuses(
    () => acceptFulfillment(more, { trip_state_hash: HASH, payment_details: { payment_type: 'x' } }, ctx()),
    'validation_error',
  )
  assert.deepEqual(
    noTickets.errors?.map((x) => x.path),
    ['/tickets'],
  )

  const issue = {
    trip_state_hash: HASH,
    tickets: firstRequest(trip).tickets!,
    payment_details: { payment_type: 'service_settlement' },
  }
  const r = acceptFulfillment(held.trip, issue, { ...ctx(later(1000)), newId: () => 'f-2' })
  assert.equal(r.trip.tickets[0]!.access_details.ticket_number, '1251234567890')
  assert.deepEqual(
    Object.values(r.trip.orders).map((o) => [o.status, o.updated_at]),
    [
      ['queued', later(1000).toISOString()],
      ['queued', later(1000).toISOString()],
    ],
  )
  assert.deepEqual(
    r.queued.map((o) => o.basket_item_id),
    ['bag-1', 'seat-1'],
  )
  assert.deepEqual(
    r.events.map((e) => [
      e.event_name,
      e.fulfillment_id,
      (e.data.order as { status: string } | undefined)?.status,
      e.data.previous_status,
    ]),
    [
      ['order_status_changed', id(1), 'queued', 'awaiting_ticketing'],
      ['order_status_changed', id(1), 'queued', 'awaiting_ticketing'],
      // The fulfillment that issued them ordered nothing itself: it completes at once.
      ['fulfillment_completed', 'f-2', undefined, undefined],
    ],
  )
  assert.equal(r.fulfillment.status, 'completed')
  assert.equal(r.trip.fulfillments[id(1)]!.status, 'queued', 'the first fulfillment waits for its orders still')
})

test('acceptFulfillment: a later fulfill orders only what was added since; with nothing added it is a conflict', () => {
  const trip = withBasket()
  const first = acceptFulfillment(trip, firstRequest(trip), ctx())
  refuses(
    () => acceptFulfillment(first.trip, { trip_state_hash: HASH, payment_details: { payment_type: 'x' } }, ctx()),
    'trip_state_conflict',
  )
  const more = withItem(first.trip, {
    basket_item_id: 'bag-2',
    product_details: { checked: true, journey_id: 'j', passenger_id: 'p2' },
  })
  const second = acceptFulfillment(
    more,
    { trip_state_hash: HASH, payment_details: { payment_type: 'x' } },
    { ...ctx(), newId: countingIds('eeeeeeee').newId },
  )
  assert.deepEqual(
    second.fulfillment.order_ids.map((o) => second.trip.orders[o]!.basket_item_id),
    ['bag-2'],
  )
  assert.equal(Object.keys(second.trip.fulfillments).length, 2)
  const refused = refuses(
    () =>
      acceptFulfillment(
        more,
        { trip_state_hash: HASH, is_ticketed: false, payment_details: { payment_type: 'x' } },
        ctx(),
      ),
    'validation_error',
  )
  assert.deepEqual(refused.errors, [
    { path: '/is_ticketed', message: 'cannot be false: the tickets of this trip are issued already' },
  ])
})

test('acceptFulfillment: passengers may be left out when the trip has all their names already', () => {
  const named = tripRecord({
    passengers: [
      {
        passenger_id: 'p1',
        passenger_type: 'adult',
        first_names: 'Ada',
        surname: 'Lovelace',
        date_of_birth: '1990-01-01',
      },
    ],
  })
  const { passengers: _p, ...req } = firstRequest(named)
  const r = acceptFulfillment(named, req, ctx())
  assert.equal(
    r.trip.tickets[0]!.access_details.reference_name,
    null,
    'no lead passenger given: the reference name stays as it was',
  )
  assert.equal(r.trip.passengers[0]!.surname, 'Lovelace')
})

test('moveOrder: moves an order with its event; completes the fulfillment once every order ended', () => {
  const trip = withOrder(withOrder(withBasket(), 'bag-1', 'o-1', 'queued'), 'seat-1', 'o-2', 'queued')
  const now = later(5000)
  const one = moveOrder(trip, 'o-1', 'succeeded', now, { supplier_reference: 'REF1' })
  assert.equal(one.changed, true)
  assert.deepEqual(one.trip.orders['o-1'], {
    ...trip.orders['o-1']!,
    status: 'succeeded',
    supplier_reference: 'REF1',
    updated_at: now.toISOString(),
  })
  assert.deepEqual(one.events, [
    {
      event_name: 'order_status_changed',
      fulfillment_id: 'f-1',
      data: { order: one.trip.orders['o-1'], previous_status: 'queued' },
    },
  ])
  assert.equal(one.trip.fulfillments['f-1']!.status, 'queued')
  const two = moveOrder(one.trip, 'o-2', 'failed', now, { failure_reason: 'sold_out' })
  assert.deepEqual(two.trip.fulfillments['f-1'], {
    ...trip.fulfillments['f-1']!,
    status: 'completed',
    completed_at: now.toISOString(),
  })
  assert.deepEqual(two.events[1], {
    event_name: 'fulfillment_completed',
    fulfillment_id: 'f-1',
    data: {
      status: 'partially_failed',
      orders: [
        { order_id: 'o-1', basket_item_id: 'bag-1', status: 'succeeded' },
        { order_id: 'o-2', basket_item_id: 'seat-1', status: 'failed', failure_reason: 'sold_out' },
      ],
    },
  })
})

test("moveOrder: the event shows the supplier's ids, not the service's bookkeeping of a lost answer", () => {
  const base = withOrder(withBasket(), 'bag-1', 'o-1', 'in_progress')
  const trip = {
    ...base,
    orders: { ...base.orders, 'o-1': { ...base.orders['o-1']!, purchase_unknown_since: NOW.toISOString() } },
  }
  const r = moveOrder(trip, 'o-1', 'succeeded', NOW, { supplier_refs: { order_id: 'ord_1', service_ids: ['ser_1'] } })
  assert.deepEqual(r.trip.orders['o-1']!.supplier_refs, { order_id: 'ord_1', service_ids: ['ser_1'] })
  assert.deepEqual((r.events[0]!.data.order as { supplier_refs?: unknown }).supplier_refs, {
    order_id: 'ord_1',
    service_ids: ['ser_1'],
  })
  assert.equal('purchase_unknown_since' in (r.events[0]!.data.order as object), false)
  assert.deepEqual(r.events.at(-1)!.data.status, 'succeeded')
})

test('moveOrder: to the same status, out of a final one, or of an unknown order changes nothing', () => {
  const trip = withOrder(withOrder(withBasket(), 'bag-1', 'o-1', 'queued'), 'seat-1', 'o-2', 'failed')
  for (const [order, status] of [
    ['o-1', 'queued'],
    ['o-2', 'queued'],
    ['o-9', 'succeeded'],
  ] as const) {
    const r = moveOrder(trip, order, status, NOW)
    assert.equal(r.trip, trip)
    assert.equal(r.changed, false)
    assert.deepEqual(r.events, [])
  }
})
