import { test } from 'node:test'
import assert from 'node:assert/strict'
import { coreFixture, tripRequest } from './fixtures.ts'
import { ProblemError } from '../../core/shared/errors.ts'
import { isPriceConsistent } from '../../core/domain/pricing.ts'
import type { Product } from '../../core/schemas/search.ts'

async function setup() {
  const f = await coreFixture()
  const trip = await f.api('createTrip', {
    body: tripRequest(f.clock.now(), { markups: { bag: { percentage: 10 }, seat: { fixed: 150 } } }),
  })
  const search = await f.api('getSearch', { params: { trip_id: trip.trip_id, search_id: trip.search_id! } })
  const bags = Object.values(search.results.products.bag ?? {}) as Product[]
  const seats = Object.values(search.results.products.seat ?? {}) as Product[]
  const checked = bags.find((b) => b.product_details.checked === true && b.price_and_availability.p1?.available)!
  const seat = seats.find((s) => s.price_and_availability.p1?.available)!
  return { ...f, trip, search, checked, seat, seats }
}

const rejects = async (p: Promise<unknown>, code: string) => {
  await assert.rejects(
    p,
    (e: unknown) => (e instanceof ProblemError && e.code === code) || assert.fail(`expected ${code}, got ${String(e)}`),
  )
}

test('adding a bag prices it in the trip currency with the seller mark-up, and changes the hash', async () => {
  const s = await setup()
  assert.ok(s.checked, 'the sandbox offers a checked bag')
  const view = await s.api('addToBasket', {
    params: { trip_id: s.trip.trip_id },
    body: [{ product_id: s.checked.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  const item = Object.values(view.basket).find((i) => i.product_type === 'bag')!
  assert.equal(item.price.total.currency, 'EUR')
  assert.equal(item.product_details.passenger_id, 'p1')
  assert.equal(item.validity.status, 'valid')
  assert.ok(isPriceConsistent(item.price))
  const markup = item.price.markups.find((m) => m.markup_type === 'bag')!
  assert.equal(markup.amount, Math.round(item.price.base.amount * 0.1))
  assert.notEqual(view.trip_state_hash, s.trip.trip_state_hash)
  const ticket = (await s.api('getTrip', { params: { trip_id: s.trip.trip_id } })).tickets[0]!
  assert.ok(ticket.basket_item_ids.includes(item.basket_item_id))
})

test('adding the same bag again raises the quantity up to the limit, then refuses', async () => {
  const s = await setup()
  const limit = s.checked.price_and_availability.p1!.quantity_limit
  let view
  for (let i = 0; i < limit; i++)
    view = await s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [{ product_id: s.checked.product_id, passenger_id: 'p1', quantity: 1 }],
    })
  const bags = Object.values(view!.basket).filter((i) => i.product_type === 'bag')
  assert.equal(bags.length, 1)
  assert.equal(bags[0]!.quantity, limit)
  const before = await s.store.getTrip(s.trip.trip_id)
  await rejects(
    s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [{ product_id: s.checked.product_id, passenger_id: 'p1', quantity: 1 }],
    }),
    'basket_rule_violation',
  )
  assert.deepEqual(await s.store.getTrip(s.trip.trip_id), before, 'a refused change leaves the store as it was')
})

test('seats: one passenger per seat, one seat per passenger per segment, none for a lap infant', async () => {
  const s = await setup()
  await s.api('addToBasket', {
    params: { trip_id: s.trip.trip_id },
    body: [{ product_id: s.seat.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  await rejects(
    s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [{ product_id: s.seat.product_id, passenger_id: 'p2', quantity: 1 }],
    }),
    'basket_rule_violation',
  )
  const other = s.seats.find(
    (x) =>
      x.product_details.segment_id === s.seat.product_details.segment_id &&
      x.product_id !== s.seat.product_id &&
      x.price_and_availability.p1?.available,
  )!
  await rejects(
    s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [{ product_id: other.product_id, passenger_id: 'p1', quantity: 1 }],
    }),
    'basket_rule_violation',
  )
  await rejects(
    s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [{ product_id: other.product_id, passenger_id: 'p3', quantity: 1 }],
    }),
    'basket_rule_violation',
  )
  const seatItem = Object.values((await s.api('getBasket', { params: { trip_id: s.trip.trip_id } })).basket).find(
    (i) => i.product_type === 'seat',
  )!
  assert.equal(seatItem.price.markups.find((m) => m.markup_type === 'seat')!.amount, 150)
})

test('one request with a bad line changes nothing, even when earlier lines were fine', async () => {
  const s = await setup()
  const before = await s.store.getTrip(s.trip.trip_id)
  await rejects(
    s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [
        { product_id: s.checked.product_id, passenger_id: 'p1', quantity: 1 },
        { product_id: s.checked.product_id, passenger_id: 'nobody', quantity: 1 },
      ],
    }),
    'validation_error',
  )
  await rejects(
    s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [{ product_id: s.checked.product_id, passenger_id: 'p1', quantity: -1 }],
    }),
    'validation_error',
  )
  await rejects(
    s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [{ product_id: 'nope', passenger_id: 'p1', quantity: 1 }],
    }),
    'validation_error',
  )
  assert.deepEqual(await s.store.getTrip(s.trip.trip_id), before)
})

test('PUT replaces the ancillaries and keeps the ticket; DELETE removes one item, never the ticket', async () => {
  const s = await setup()
  await s.api('addToBasket', {
    params: { trip_id: s.trip.trip_id },
    body: [{ product_id: s.checked.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  const replaced = await s.api('replaceBasket', {
    params: { trip_id: s.trip.trip_id },
    body: [{ product_id: s.seat.product_id, passenger_id: 'p2', quantity: 1 }],
  })
  const types = Object.values(replaced.basket)
    .map((i) => i.product_type)
    .sort()
  assert.deepEqual(types, ['seat', 'ticket'])
  const seatId = Object.values(replaced.basket).find((i) => i.product_type === 'seat')!.basket_item_id
  const ticketId = Object.values(replaced.basket).find((i) => i.product_type === 'ticket')!.basket_item_id
  const after = await s.api('removeFromBasket', { params: { trip_id: s.trip.trip_id, basket_item_id: seatId } })
  assert.deepEqual(Object.keys(after.basket), [ticketId])
  await rejects(
    s.api('removeFromBasket', { params: { trip_id: s.trip.trip_id, basket_item_id: ticketId } }),
    'basket_rule_violation',
  )
  await rejects(s.api('removeFromBasket', { params: { trip_id: s.trip.trip_id, basket_item_id: seatId } }), 'not_found')
})

test('past valid_to an item reads as invalid', async () => {
  const s = await setup()
  await s.api('addToBasket', {
    params: { trip_id: s.trip.trip_id },
    body: [{ product_id: s.checked.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  s.clock.advance(s.core.config.holdWindow * 1000 + 1000)
  const view = await s.api('getBasket', { params: { trip_id: s.trip.trip_id } })
  assert.ok(Object.values(view.basket).every((i) => i.validity.status === 'invalid'))
})

test('concurrent basket changes to one trip never lose an update', async () => {
  const s = await setup()
  const seats = s.seats.filter((x) => x.price_and_availability.p1?.available)
  const bySegment = new Map<string, Product>()
  for (const x of seats)
    if (!bySegment.has(String(x.product_details.segment_id))) bySegment.set(String(x.product_details.segment_id), x)
  const [a, b] = [...bySegment.values()]
  await Promise.all([
    s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [{ product_id: s.checked.product_id, passenger_id: 'p1', quantity: 1 }],
    }),
    s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [{ product_id: a!.product_id, passenger_id: 'p1', quantity: 1 }],
    }),
    s.api('addToBasket', {
      params: { trip_id: s.trip.trip_id },
      body: [{ product_id: b!.product_id, passenger_id: 'p2', quantity: 1 }],
    }),
  ])
  const view = await s.api('getBasket', { params: { trip_id: s.trip.trip_id } })
  assert.equal(Object.keys(view.basket).length, 4, 'ticket + bag + two seats')
})

test('PUT keeps the lines the basket already holds as asked (same ids, validity and window); the same PUT again writes nothing', async () => {
  const s = await setup()
  const bag = { product_id: s.checked.product_id, passenger_id: 'p1', quantity: 1 }
  const seat = { product_id: s.seat.product_id, passenger_id: 'p2', quantity: 1 }
  const first = await s.api('replaceBasket', { params: { trip_id: s.trip.trip_id }, body: [bag, seat] })
  const stored = await s.store.getTrip(s.trip.trip_id)
  s.clock.advance(60_000)

  const again = await s.api('replaceBasket', { params: { trip_id: s.trip.trip_id }, body: [seat, bag] })
  assert.deepEqual(again, first, 'same items, ids, validity windows and trip_state_hash')
  assert.deepEqual(await s.store.getTrip(s.trip.trip_id), stored, 'no write: same version, same updated_at')

  // Only the line that changed is replaced; the others keep their item.
  const seatItem = Object.values(first.basket).find((i) => i.product_type === 'seat')!
  const bagItem = Object.values(first.basket).find((i) => i.product_type === 'bag')!
  const changed = await s.api('replaceBasket', {
    params: { trip_id: s.trip.trip_id },
    body: [{ ...bag, quantity: 2 }, seat],
  })
  assert.deepEqual(changed.basket[seatItem.basket_item_id], seatItem, 'the seat is untouched')
  assert.equal(changed.basket[bagItem.basket_item_id], undefined, 'the bag of another quantity is a new line')
  const newBag = Object.values(changed.basket).find((i) => i.product_type === 'bag')!
  assert.equal(newBag.quantity, 2)
  assert.equal(newBag.validity.valid_from, s.clock.now().toISOString())
  assert.notEqual(changed.trip_state_hash, first.trip_state_hash)
  const trip = await s.api('getTrip', { params: { trip_id: s.trip.trip_id } })
  assert.deepEqual(
    [...trip.tickets[0]!.basket_item_ids].sort(),
    Object.keys(changed.basket).sort(),
    'the ticket lists exactly the items',
  )

  // Two lines of one product count as one line of their sum, as a PATCH adds them.
  const split = await s.api('replaceBasket', { params: { trip_id: s.trip.trip_id }, body: [bag, seat, bag] })
  assert.deepEqual(split, changed)
})
