/**
 * core/domain/basket.ts called directly: what each basket change makes of a trip record, and each refusal.
 *
 * The same rules through the core, as the API calls them (test/helpers/core.ts): prices with the seller's
 * mark-up, limits, seats, a bad line changing nothing, PUT and DELETE, expiry and concurrent changes.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { addToBasket, removeFromBasket, replaceBasket, type BasketContext } from '../../../core/domain/basket.ts'
import type { TripRecord } from '../../../core/ports/records.ts'
import {
  BAG_KEY,
  HOLD,
  HOLD_MS,
  ISO,
  NOW,
  countingIds,
  eur,
  later,
  outbound,
  outboundSegment,
  priceOf,
  productIds,
  refuses,
  searchOf,
  ticketItem,
  tripRecord,
  withItem,
  withOrder,
} from '../../helpers/records.ts'
import { coreFixture, tripRequest } from '../../helpers/core.ts'
import { ProblemError } from '../../../core/shared/errors.ts'
import { isPriceConsistent } from '../../../core/domain/pricing.ts'
import type { Product } from '../../../core/schemas/search.ts'

const ctx = (now = NOW): BasketContext => ({ now, holdWindow: HOLD, newId: countingIds('bbbbbbbb').newId })
const ITEM_1 = 'bbbbbbbb-0000-4000-8000-000000000001'
const ITEM_2 = 'bbbbbbbb-0000-4000-8000-000000000002'

const setup = () => {
  const trip = tripRecord()
  return { trip, search: searchOf(trip), ids: productIds(trip) }
}
const ancillaries = (trip: TripRecord) => Object.values(trip.basket).filter((i) => i.product_type !== 'ticket')

test('addToBasket: a bag becomes an item of the outbound ticket, priced from the search, valid for the hold window', () => {
  const { trip, search, ids } = setup()
  const before = structuredClone(trip)
  const next = addToBasket(trip, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx())
  assert.deepEqual(next.basket[ITEM_1], {
    basket_item_id: ITEM_1,
    display_name: 'Checked bag 23 kg',
    product_id: ids.bag,
    product_type: 'bag',
    quantity: 1,
    ticket_id: trip.tickets[0]!.ticket_id,
    benefits: [],
    price: priceOf(3000),
    product_details: {
      checked: true,
      journey_id: outbound(trip).journey_id,
      weight: 23,
      weight_unit: 'kg',
      passenger_id: 'p1',
    },
    validity: { status: 'valid', valid_from: ISO, valid_to: later(HOLD_MS).toISOString() },
  })
  assert.deepEqual(next.tickets[0]!.basket_item_ids, [ticketItem(trip).basket_item_id, ITEM_1])
  assert.equal(next.offer_keys[ids.bag], BAG_KEY)
  assert.equal(next.updated_at, ISO)
  assert.deepEqual(trip, before, 'the trip passed in is left as it was')
})

test('addToBasket: the same product for the same passenger raises the quantity of its item, up to the limit', () => {
  const { trip, search, ids } = setup()
  const line = { product_id: ids.bag, passenger_id: 'p1', quantity: 1 }
  const twice = addToBasket(addToBasket(trip, search, [line], ctx()), search, [line], ctx())
  assert.equal(ancillaries(twice).length, 1)
  assert.equal(twice.basket[ITEM_1]!.quantity, 2)
  assert.equal(twice.basket[ITEM_1]!.price.total.amount, 6000)
  const e = refuses(() => addToBasket(twice, search, [line], ctx()), 'basket_rule_violation')
  assert.match(e.message, /at most 2 per passenger on this journey; the basket would hold 3/)
  assert.deepEqual(e.errors, [{ path: '/0/quantity', message: e.message }])
  refuses(() => addToBasket(trip, search, [{ ...line, quantity: 3 }], ctx()), 'basket_rule_violation')
})

test('addToBasket: another passenger gets an item of their own', () => {
  const { trip, search, ids } = setup()
  const next = addToBasket(
    trip,
    search,
    [
      { product_id: ids.bag, passenger_id: 'p1', quantity: 2 },
      { product_id: ids.bag, passenger_id: 'p2', quantity: 1 },
    ],
    ctx(),
  )
  assert.deepEqual(
    ancillaries(next).map((i) => [i.product_details.passenger_id, i.quantity]),
    [
      ['p1', 2],
      ['p2', 1],
    ],
  )
})

test('addToBasket: refuses what is not on offer to the trip, naming the line', () => {
  const { trip, search, ids } = setup()
  const line = { product_id: ids.bag, passenger_id: 'p1', quantity: 1 }
  assert.deepEqual(
    refuses(() => addToBasket(trip, undefined, [line], ctx()), 'validation_error').errors?.[0]?.path,
    '/0/product_id',
  )
  assert.deepEqual(
    refuses(
      () => addToBasket(trip, search, [line, { ...line, product_id: '99999999-0000-4000-8000-000000000000' }], ctx()),
      'validation_error',
    ).errors?.[0]?.path,
    '/1/product_id',
  )
  assert.deepEqual(
    refuses(() => addToBasket(trip, search, [{ ...line, passenger_id: 'p9' }], ctx()), 'validation_error').errors?.[0]
      ?.path,
    '/0/passenger_id',
  )
  const sold = refuses(
    () => addToBasket(trip, search, [{ ...line, product_id: ids.soldOut }], ctx()),
    'product_unavailable',
  )
  assert.deepEqual(sold.errors, [{ path: '/0/product_id', message: 'sold_out' }])
})

test('addToBasket: a product of a journey the trip does not have is refused', () => {
  const { trip, search, ids } = setup()
  const elsewhere = {
    ...trip,
    tickets: trip.tickets.map((t) => ({
      ...t,
      journey_ids: t.journey_ids.filter((j) => j !== outbound(trip).journey_id),
    })),
  }
  refuses(
    () => addToBasket(elsewhere, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx()),
    'validation_error',
  )
})

test('addToBasket: a lap infant gets neither a bag refused to it nor a seat', () => {
  const { trip, search, ids } = setup()
  const bag = refuses(
    () => addToBasket(trip, search, [{ product_id: ids.bag, passenger_id: 'p3', quantity: 1 }], ctx()),
    'basket_rule_violation',
  )
  assert.equal(bag.message, 'A lap infant cannot have a Checked bag 23 kg.')
  const seat = refuses(
    () => addToBasket(trip, search, [{ product_id: ids.seat1A, passenger_id: 'p3', quantity: 1 }], ctx()),
    'basket_rule_violation',
  )
  assert.equal(seat.message, 'A lap infant cannot have a seat.')
  assert.deepEqual(seat.errors?.[0]?.path, '/0/passenger_id')
})

test('addToBasket: a seat holds one passenger, and a passenger holds one seat per flight', () => {
  const { trip, search, ids } = setup()
  const seated = addToBasket(trip, search, [{ product_id: ids.seat1A, passenger_id: 'p1', quantity: 1 }], ctx())
  const seat = seated.basket[ITEM_1]!
  assert.equal(seat.display_name, 'Seat 1A')
  assert.deepEqual(seat.product_details, {
    segment_id: outboundSegment(trip).segment_id,
    row: 1,
    column: 'A',
    characteristics: ['window'],
    passenger_id: 'p1',
  })
  assert.equal(seat.price.total.amount, 1500)
  const taken = refuses(
    () => addToBasket(seated, search, [{ product_id: ids.seat1A, passenger_id: 'p2', quantity: 1 }], ctx()),
    'basket_rule_violation',
  )
  assert.equal(taken.message, 'Seat 1A is already taken in this basket.')
  const second = refuses(
    () => addToBasket(seated, search, [{ product_id: ids.seat1B, passenger_id: 'p1', quantity: 1 }], ctx()),
    'basket_rule_violation',
  )
  assert.equal(second.message, 'Passenger p1 already has a seat on this flight; remove it first.')
  assert.equal(
    addToBasket(seated, search, [{ product_id: ids.seat1B, passenger_id: 'p2', quantity: 1 }], ctx()).basket[ITEM_1]!
      .product_details.column,
    'B',
  )
})

test('addToBasket: a refused line leaves nothing of the lines before it', () => {
  const { trip, search, ids } = setup()
  const before = structuredClone(trip)
  refuses(
    () =>
      addToBasket(
        trip,
        search,
        [
          { product_id: ids.bag, passenger_id: 'p1', quantity: 1 },
          { product_id: ids.bag, passenger_id: 'p3', quantity: 1 },
        ],
        ctx(),
      ),
    'basket_rule_violation',
  )
  assert.deepEqual(trip, before)
})

test("addToBasket: the window ends when the supplier's offers stop being bookable, if that comes first", () => {
  const { trip, ids } = setup()
  const expires = later(10 * 60_000).toISOString()
  const next = addToBasket(
    { ...trip, offers_expire_at: expires },
    searchOf(trip),
    [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }],
    ctx(),
  )
  assert.deepEqual(next.basket[ITEM_1]!.validity, { status: 'valid', valid_from: ISO, valid_to: expires })
})

test('addToBasket: what a basket check found of the offer holds: a new price to accept, or unavailable', () => {
  const { trip, search, ids } = setup()
  const valid_to = later(5 * 60_000).toISOString()
  const changed: TripRecord = {
    ...trip,
    checked_offers: {
      [`${ids.bag}/p1`]: { status: 'price_changed', base: eur(3500), taxes: [], valid_from: ISO, valid_to },
    },
  }
  const item = addToBasket(changed, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx()).basket[
    ITEM_1
  ]!
  assert.deepEqual(item.price, priceOf(3500))
  assert.deepEqual(item.validity, { status: 'price_changed', valid_from: ISO, valid_to, previous_price: priceOf(3000) })
  // Past that answer's window, the search's offer is back.
  assert.deepEqual(
    addToBasket(changed, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx(later(6 * 60_000)))
      .basket[ITEM_1]!.price,
    priceOf(3000),
  )
  const gone: TripRecord = {
    ...trip,
    checked_offers: { [`${ids.bag}/p1`]: { status: 'unavailable', reason: 'no_longer_offered', valid_to } },
  }
  const e = refuses(
    () => addToBasket(gone, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx()),
    'product_unavailable',
  )
  assert.deepEqual(e.errors, [{ path: '/0/product_id', message: 'no_longer_offered' }])
})

test('addToBasket: an item mark-up is priced in, and must be in the trip currency', () => {
  const { trip, search, ids } = setup()
  const markup = { amount: 200, currency: 'EUR', decimal_places: 2 }
  const item = addToBasket(trip, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1, markup }], ctx())
    .basket[ITEM_1]!
  assert.deepEqual(item.markup, markup)
  assert.equal(item.price.total.amount, 3200)
  assert.deepEqual(
    item.price.markups.map((m) => [m.markup_type, m.amount]),
    [['item', 200]],
  )
  const e = refuses(
    () =>
      addToBasket(
        trip,
        search,
        [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1, markup: { ...markup, currency: 'USD' } }],
        ctx(),
      ),
    'validation_error',
  )
  assert.equal(e.errors?.[0]?.path, '/0/markup/currency')
})

test('addToBasket: more of an ordered product is a new item; the ordered one stays as bought', () => {
  const { trip, search, ids } = setup()
  const ordered = withOrder(
    addToBasket(trip, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx()),
    ITEM_1,
    'o-1',
    'succeeded',
  )
  const next = addToBasket(ordered, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], {
    ...ctx(),
    newId: () => 'new-item',
  })
  assert.deepEqual(next.basket[ITEM_1], ordered.basket[ITEM_1])
  assert.equal(next.basket['new-item']!.quantity, 1)
  // The ordered unit counts against the limit of two.
  refuses(
    () => addToBasket(next, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx()),
    'basket_rule_violation',
  )
  // A failed order's item no longer holds its place.
  const failed = withOrder(
    addToBasket(trip, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 2 }], ctx()),
    ITEM_1,
    'o-1',
    'failed',
  )
  assert.equal(
    addToBasket(failed, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 2 }], {
      ...ctx(),
      newId: () => 'again',
    }).basket['again']!.quantity,
    2,
  )
})

test('replaceBasket: the basket as it is changes nothing (the same trip comes back)', () => {
  const { trip, search, ids } = setup()
  const held = addToBasket(trip, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 2 }], ctx())
  assert.equal(
    replaceBasket(
      held,
      search,
      [
        { product_id: ids.bag, passenger_id: 'p1', quantity: 1 },
        { product_id: ids.bag, passenger_id: 'p1', quantity: 1 },
      ],
      ctx(later(60_000)),
    ),
    held,
  )
})

test('replaceBasket: lists the whole basket: what it leaves out goes, what it changes is a new item, the ticket stays', () => {
  const { trip, search, ids } = setup()
  const held = addToBasket(
    trip,
    search,
    [
      { product_id: ids.bag, passenger_id: 'p1', quantity: 1 },
      { product_id: ids.seat1A, passenger_id: 'p1', quantity: 1 },
    ],
    ctx(),
  )
  const next = replaceBasket(held, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 2 }], {
    ...ctx(),
    newId: () => 'replaced',
  })
  assert.deepEqual(Object.keys(next.basket).sort(), [ticketItem(trip).basket_item_id, 'replaced'].sort())
  assert.equal(next.basket['replaced']!.quantity, 2)
  assert.deepEqual(next.tickets[0]!.basket_item_ids, [ticketItem(trip).basket_item_id, 'replaced'])
  const empty = replaceBasket(held, undefined, [], ctx())
  assert.deepEqual(Object.keys(empty.basket), [ticketItem(trip).basket_item_id])
})

test('replaceBasket: a mark-up alone re-prices the item, keeping its id and window', () => {
  const { trip, search, ids } = setup()
  const held = addToBasket(trip, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx())
  const markup = { amount: 100, currency: 'EUR', decimal_places: 2 }
  const next = replaceBasket(
    held,
    search,
    [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1, markup }],
    ctx(later(60_000)),
  )
  assert.deepEqual(next.basket[ITEM_1]!.validity, held.basket[ITEM_1]!.validity)
  assert.equal(next.basket[ITEM_1]!.price.total.amount, 3100)
  assert.deepEqual(next.basket[ITEM_1]!.markup, markup)
  assert.equal(
    replaceBasket(next, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx()).basket[ITEM_1]!.price
      .total.amount,
    3000,
  )
})

test('replaceBasket: an ordered item must be listed; more than it is the next item to order', () => {
  const { trip, search, ids } = setup()
  const ordered = withOrder(
    addToBasket(trip, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx()),
    ITEM_1,
    'o-1',
    'succeeded',
  )
  const e = refuses(() => replaceBasket(ordered, search, [], ctx()), 'item_ordered')
  assert.deepEqual(e.errors, [{ path: '', message: 'must list Checked bag 23 kg for p1: 1 ordered' }])
  assert.equal(
    replaceBasket(ordered, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx()),
    ordered,
  )
  const more = replaceBasket(ordered, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 2 }], {
    ...ctx(),
    newId: () => 'more',
  })
  assert.equal(more.basket['more']!.quantity, 1)
  assert.deepEqual(more.basket[ITEM_1], ordered.basket[ITEM_1])
})

test('replaceBasket: new lines need a search', () => {
  const { trip, ids } = setup()
  assert.equal(
    refuses(
      () => replaceBasket(trip, undefined, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx()),
      'validation_error',
    ).errors?.[0]?.path,
    '/0/product_id',
  )
})

test('removeFromBasket: the item goes from the basket and its ticket', () => {
  const { trip, search, ids } = setup()
  const held = addToBasket(trip, search, [{ product_id: ids.bag, passenger_id: 'p1', quantity: 1 }], ctx())
  const next = removeFromBasket(held, ITEM_1, ctx(later(1000)))
  assert.equal(next.basket[ITEM_1], undefined)
  assert.deepEqual(next.tickets[0]!.basket_item_ids, [ticketItem(trip).basket_item_id])
  assert.equal(next.updated_at, later(1000).toISOString())
  assert.ok(held.basket[ITEM_1], 'the trip passed in keeps it')
})

test('removeFromBasket: refuses an unknown item, the ticket and an ordered item', () => {
  const { trip } = setup()
  refuses(() => removeFromBasket(trip, ITEM_2, ctx()), 'not_found')
  refuses(() => removeFromBasket(trip, '__proto__', ctx()), 'not_found')
  refuses(() => removeFromBasket(trip, ticketItem(trip).basket_item_id, ctx()), 'basket_rule_violation')
  const ordered = withOrder(withItem(trip, { basket_item_id: 'bag-1' }), 'bag-1', 'o-1', 'succeeded')
  refuses(() => removeFromBasket(ordered, 'bag-1', ctx()), 'item_ordered')
})

// Through the core (test/helpers/core.ts), as the API calls it.
async function coreSetup() {
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
  const s = await coreSetup()
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
  const s = await coreSetup()
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
  const s = await coreSetup()
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
  const s = await coreSetup()
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
  const s = await coreSetup()
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
  const s = await coreSetup()
  await s.api('addToBasket', {
    params: { trip_id: s.trip.trip_id },
    body: [{ product_id: s.checked.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  s.clock.advance(s.core.config.holdWindow * 1000 + 1000)
  const view = await s.api('getBasket', { params: { trip_id: s.trip.trip_id } })
  assert.ok(Object.values(view.basket).every((i) => i.validity.status === 'invalid'))
})

test('concurrent basket changes to one trip never lose an update', async () => {
  const s = await coreSetup()
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
  const s = await coreSetup()
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
