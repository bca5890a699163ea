/**
 * Basket item validity over HTTP (spec "States and transitions", docs/decisions.md "Basket changes"): every
 * transition, driven by basket checks, expiry, the sandbox scenarios, price acceptance and passenger
 * updates; and what happens when the airline cannot be reached. Time is the injected clock; the background
 * checks run with `core.drainJobs()`.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, body, assertProblem, createTrip, type Built } from '../helpers/build.ts'
import {
  readSearch,
  checkedBag,
  seats,
  productsOf,
  readBasket,
  changeBasket,
  checkBasket,
  acceptItem,
  patchTrip,
  addItems,
  itemWhere,
  statuses,
  createTripOnFlight,
  fulfill,
  fulfillRequest,
} from '../helpers/flows.ts'
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import { defaultConfig } from '../../core/core.ts'
import type { Supplier } from '../../core/ports/supplier.ts'

const MIN = 60_000
const HOLD_MS = defaultConfig.holdWindow * 1000

const isBag = (passengerId: string) => (i: any) =>
  i.product_type === 'bag' && i.product_details.passenger_id === passengerId
const isSeat = (passengerId: string) => (i: any) =>
  i.product_type === 'seat' && i.product_details.passenger_id === passengerId
const isTicket = (i: any) => i.product_type === 'ticket'

/** A trip with a checked bag for p1 and one for p2, on the given outbound flight. */
async function tripWithBags(t: Built, flight = '117') {
  const trip = await createTripOnFlight(t, flight)
  const search = await readSearch(t, trip)
  await addItems(t, trip, [
    { product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' },
    { product_id: checkedBag(search, 'p2').product_id, passenger_id: 'p2' },
  ])
  return trip
}

describe('basket check: valid items', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('check → every item `checking` (202) → the check runs → `valid` with a renewed window', async () => {
    const trip = await tripWithBags(t)
    const before = await readBasket(t, trip)
    t.clock.advance(10 * MIN)

    const res = await checkBasket(t, trip)
    assert.equal(res.statusCode, 202, res.body)
    const checking = body(res)
    assert.deepEqual(
      new Set(Object.values(statuses(checking))),
      new Set(['checking']),
      'the ticket and both bags are checking',
    )
    assert.notEqual(checking.trip_state_hash, before.trip_state_hash, 'checking is a state the hash covers')
    assert.deepEqual(statuses(await readBasket(t, trip)), statuses(checking), 'a read shows the check in progress')

    assert.ok((await t.core.drainJobs()) >= 1)
    const after = await readBasket(t, trip)
    for (const item of Object.values(after.basket)) {
      assert.equal(item.validity.status, 'valid', item.display_name)
      assert.equal(item.validity.valid_from, t.clock.now().toISOString(), 'valid_from is when the check priced it')
      assert.equal(
        Date.parse(item.validity.valid_to) - Date.parse(item.validity.valid_from),
        HOLD_MS,
        'valid_to is valid_from + the hold window',
      )
      assert.ok(
        Date.parse(item.validity.valid_to) > Date.parse(before.basket[item.basket_item_id].validity.valid_to),
        'the window moved on',
      )
      assert.deepEqual(item.price, before.basket[item.basket_item_id].price, 'an unchanged offer keeps its price')
      assert.equal(item.validity.reason, undefined)
    }
  })

  test('expiry: past valid_to an item reads `invalid`; a check makes it `valid` again', async () => {
    const trip = await tripWithBags(t)
    const fresh = await readBasket(t, trip)
    const bag = itemWhere(fresh, isBag('p1'))
    t.clock.set(new Date(Date.parse(bag.validity.valid_to) + 1000))

    const expired = await readBasket(t, trip)
    assert.deepEqual(
      new Set(Object.values(statuses(expired))),
      new Set(['invalid']),
      'every item expired, the ticket too',
    )
    assert.notEqual(expired.trip_state_hash, fresh.trip_state_hash, 'expiry changes the state hash')

    assert.equal((await checkBasket(t, trip)).statusCode, 202)
    await t.core.drainJobs()
    const renewed = await readBasket(t, trip)
    assert.deepEqual(new Set(Object.values(statuses(renewed))), new Set(['valid']))
    assert.ok(Date.parse(itemWhere(renewed, isBag('p1')).validity.valid_to) > t.clock.now().getTime())
  })

  test('accepting an item whose price did not change → 409, nothing changes', async () => {
    const trip = await tripWithBags(t)
    const basket = await readBasket(t, trip)
    const snapshot = t.snapshot()
    const p = assertProblem(
      await acceptItem(t, trip, itemWhere(basket, isBag('p1')).basket_item_id),
      409,
      'basket_rule_violation',
    )
    assert.match(p.detail, /valid/)
    assert.deepEqual(t.snapshot(), snapshot)
    // While checking, there is no new price to accept either.
    await checkBasket(t, trip)
    assertProblem(
      await acceptItem(t, trip, itemWhere(basket, isBag('p1')).basket_item_id),
      409,
      'basket_rule_violation',
    )
    assertProblem(await acceptItem(t, trip, '00000000-0000-4000-8000-00000000ffff'), 404, 'not_found')
  })
})

describe('sandbox scenarios on the outbound flight number', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('9001: a bag becomes `price_changed` with the new price and the previous one; accept → `valid`, and it stays valid', async () => {
    const trip = await tripWithBags(t, '9001')
    const bagBefore = itemWhere(await readBasket(t, trip), isBag('p1'))
    await checkBasket(t, trip)
    await t.core.drainJobs()

    const changed = await readBasket(t, trip)
    const bag = itemWhere(changed, isBag('p1'))
    assert.equal(bag.validity.status, 'price_changed')
    assert.ok(
      bag.price.total.amount > bagBefore.price.total.amount,
      `the price rose: ${bagBefore.price.total.amount} → ${bag.price.total.amount}`,
    )
    assert.deepEqual(bag.validity.previous_price, bagBefore.price, 'the old price is kept beside the new one')
    assert.equal(itemWhere(changed, isTicket).validity.status, 'valid', 'only bags change price in 9001')

    const acc = await acceptItem(t, trip, bag.basket_item_id)
    assert.equal(acc.statusCode, 200, acc.body)
    const accepted = itemWhere(body(acc), isBag('p1'))
    assert.equal(accepted.validity.status, 'valid')
    assert.deepEqual(accepted.price, bag.price, 'accepted at the new price')
    assert.equal(accepted.validity.previous_price, undefined)
    assert.notEqual(body(acc).trip_state_hash, changed.trip_state_hash)

    // A later check finds the item already holding the airline's current price.
    t.clock.advance(MIN)
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const later = itemWhere(await readBasket(t, trip), isBag('p1'))
    assert.equal(later.validity.status, 'valid')
    assert.deepEqual(later.price, bag.price)
  })

  test('9001: rejecting the new price is removing the item (DELETE)', async () => {
    const trip = await tripWithBags(t, '9001')
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const bag = itemWhere(await readBasket(t, trip), isBag('p2'))
    assert.equal(bag.validity.status, 'price_changed')
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/v2.2/trip/${trip.trip_id}/basket/${bag.basket_item_id}`,
      headers: { authorization: basic(t.apiKey) },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(body(res).basket[bag.basket_item_id], undefined)
    assert.equal(
      itemWhere(body(res), isBag('p1')).validity.status,
      'price_changed',
      'the other bag still waits for a decision',
    )
  })

  test('9002: every item becomes `unavailable` with a reason', async () => {
    const trip = await tripWithBags(t, '9002')
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const basket = await readBasket(t, trip)
    for (const item of Object.values(basket.basket)) {
      assert.equal(item.validity.status, 'unavailable', item.display_name)
      assert.equal(item.validity.reason, 'sandbox_unavailable')
    }
    // Unavailable is final: a further check leaves such items alone.
    const again = await checkBasket(t, trip)
    assert.deepEqual(new Set(Object.values(statuses(body(again)))), new Set(['unavailable']))
  })

  test('9004: items stay `checking` for 5 s: still checking after running due jobs at +4 s, `valid` at +5 s', async () => {
    const trip = await tripWithBags(t, '9004')
    await checkBasket(t, trip)
    await t.core.drainJobs()
    assert.deepEqual(
      new Set(Object.values(statuses(await readBasket(t, trip)))),
      new Set(['checking']),
      'right after the check',
    )
    t.clock.advance(4000)
    await t.core.drainJobs()
    assert.deepEqual(new Set(Object.values(statuses(await readBasket(t, trip)))), new Set(['checking']), 'at +4 s')
    t.clock.advance(1000)
    await t.core.drainJobs()
    assert.deepEqual(new Set(Object.values(statuses(await readBasket(t, trip)))), new Set(['valid']), 'at +5 s')
  })
})

describe("a check's outcome is not undone by changing the basket", () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  const del = (trip: { trip_id: string }, id: string) =>
    t.app.inject({
      method: 'DELETE',
      url: `/v2.2/trip/${trip.trip_id}/basket/${id}`,
      headers: { authorization: basic(t.apiKey) },
    })

  test('9001: a bag removed and added again, or put back by PUT, is `price_changed` at the new price; the basket cannot be charged', async () => {
    const trip = await tripWithBags(t, '9001')
    const search = await readSearch(t, trip)
    const before = itemWhere(await readBasket(t, trip), isBag('p1'))
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const changed = itemWhere(await readBasket(t, trip), isBag('p1'))
    assert.equal(changed.validity.status, 'price_changed')

    assert.equal((await del(trip, changed.basket_item_id)).statusCode, 200)
    const line = { product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' }
    const readded = itemWhere(await addItems(t, trip, [line]), isBag('p1'))
    assert.equal(readded.validity.status, 'price_changed', 'DELETE then PATCH')
    assert.deepEqual(
      readded.price,
      changed.price,
      `at the new price ${changed.price.total.amount}, not ${before.price.total.amount}`,
    )
    assert.deepEqual(readded.validity.previous_price, before.price)

    const lines = [
      { ...line, quantity: 1 },
      { product_id: checkedBag(search, 'p2').product_id, passenger_id: 'p2', quantity: 1 },
    ]
    assert.equal((await changeBasket(t, trip, 'PUT', [])).statusCode, 200)
    const put = await changeBasket(t, trip, 'PUT', lines)
    assert.equal(put.statusCode, 200, put.body)
    for (const p of ['p1', 'p2']) {
      const bag = itemWhere(body(put), isBag(p))
      assert.equal(bag.validity.status, 'price_changed', `PUT, ${p}`)
      assert.deepEqual(bag.price, changed.price)
    }
    assertProblem(await fulfill(t, trip, fulfillRequest(trip, body(put).trip_state_hash)), 409, 'basket_not_valid')
  })

  test('9002: a bag a check found `unavailable` cannot be put back (409 product_unavailable), and the refusal changes nothing', async () => {
    const trip = await tripWithBags(t, '9002')
    const search = await readSearch(t, trip)
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const gone = itemWhere(await readBasket(t, trip), isBag('p1'))
    assert.equal(gone.validity.status, 'unavailable')
    assert.equal((await del(trip, gone.basket_item_id)).statusCode, 200)

    const snapshot = t.snapshot()
    const line = { product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1', quantity: 1 }
    const p = assertProblem(await changeBasket(t, trip, 'PATCH', [line]), 409, 'product_unavailable')
    assert.match(p.detail, /sandbox_unavailable/)
    assert.deepEqual(
      p.errors?.map((e) => e.path),
      ['/0/product_id'],
    )
    const other = { product_id: checkedBag(search, 'p2').product_id, passenger_id: 'p2', quantity: 1 }
    assertProblem(await changeBasket(t, trip, 'PUT', [other, line]), 409, 'product_unavailable')
    assert.deepEqual(t.snapshot(), snapshot)
  })
})

describe('passenger updates revalidate the items that depend on them', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test("a qualifying loyalty tier (BA Executive Club Silver) → the passenger's bag is checked again and gets cheaper; p2's items are untouched", async () => {
    const trip = await tripWithBags(t)
    const search = await readSearch(t, trip)
    await addItems(t, trip, [{ product_id: seats(search, 'p2')[0]!.product_id, passenger_id: 'p2' }])
    const before = await readBasket(t, trip)
    const p1Bag = itemWhere(before, isBag('p1'))
    t.clock.advance(MIN)

    const res = await patchTrip(t, trip, {
      passengers: [
        {
          passenger_id: 'p1',
          loyalty_programs: [
            { airline_id: 'BA', program_name: 'Executive Club', number: '12345678', tier_name: 'Silver' },
          ],
        },
      ],
    })
    assert.equal(res.statusCode, 200, res.body)
    const patched = body(res)
    assert.equal(patched.basket[p1Bag.basket_item_id].validity.status, 'checking', "p1's bag is being checked")
    for (const item of Object.values(before.basket).filter((i) => i.basket_item_id !== p1Bag.basket_item_id)) {
      assert.deepEqual(
        patched.basket[item.basket_item_id],
        item,
        `${item.product_type} of ${item.product_details.passenger_id ?? 'the trip'} is untouched`,
      )
    }

    await t.core.drainJobs()
    const after = await readBasket(t, trip)
    const bag = after.basket[p1Bag.basket_item_id]
    assert.equal(bag.validity.status, 'price_changed')
    assert.ok(
      bag.price.total.amount < p1Bag.price.total.amount,
      `cheaper: ${p1Bag.price.total.amount} → ${bag.price.total.amount}`,
    )
    assert.equal(bag.price.base.in_original_currency.amount, 0, 'the tier makes the standard checked bag free')
    assert.deepEqual(bag.validity.previous_price, p1Bag.price)
    for (const item of Object.values(before.basket).filter((i) => i.basket_item_id !== p1Bag.basket_item_id)) {
      assert.deepEqual(after.basket[item.basket_item_id], item, 'still untouched after the check')
    }
  })

  test('a tier that does not qualify (Blue) checks the bag again and leaves it `valid` at its price', async () => {
    const trip = await tripWithBags(t)
    const bag = itemWhere(await readBasket(t, trip), isBag('p1'))
    await patchTrip(t, trip, {
      passengers: [
        {
          passenger_id: 'p1',
          loyalty_programs: [{ airline_id: 'BA', program_name: 'Executive Club', number: '1', tier_name: 'Blue' }],
        },
      ],
    })
    await t.core.drainJobs()
    const after = (await readBasket(t, trip)).basket[bag.basket_item_id]
    assert.equal(after.validity.status, 'valid')
    assert.deepEqual(after.price, bag.price)
  })

  test('a date of birth that makes the passenger in an exit-row seat younger than 16 → that seat `unavailable`', async () => {
    const trip = await createTrip(t)
    const search = await readSearch(t, trip)
    const exit = productsOf(search, 'seat').find(
      (p) =>
        (p.product_details.characteristics as string[]).includes('exit_row') && p.price_and_availability.p2?.available,
    )
    assert.ok(exit, 'the sandbox sells an exit-row seat to p2')
    const ordinary = seats(search, 'p1').find(
      (p) => !(p.product_details.characteristics as string[]).includes('exit_row'),
    )!
    await addItems(t, trip, [
      { product_id: exit.product_id, passenger_id: 'p2' },
      { product_id: ordinary.product_id, passenger_id: 'p1' },
      { product_id: checkedBag(search, 'p2').product_id, passenger_id: 'p2' },
    ])
    const before = await readBasket(t, trip)

    // Departure is 30 days after the clock's start (2026-11-22): born 2012, p2 is 14.
    const res = await patchTrip(t, trip, { passengers: [{ passenger_id: 'p2', date_of_birth: '2012-03-04' }] })
    assert.equal(res.statusCode, 200, res.body)
    await t.core.drainJobs()
    const after = await readBasket(t, trip)
    const seat = itemWhere(after, isSeat('p2'))
    assert.equal(seat.validity.status, 'unavailable')
    assert.equal(seat.validity.reason, 'exit_row_age')
    assert.equal(itemWhere(after, isBag('p2')).validity.status, 'valid', "p2's bag does not depend on age")
    assert.deepEqual(itemWhere(after, isSeat('p1')), itemWhere(before, isSeat('p1')), "p1's seat is untouched")
    assert.deepEqual(itemWhere(after, isTicket), itemWhere(before, isTicket), 'the ticket is untouched')
  })

  test('a PATCH that changes nothing about a passenger checks nothing', async () => {
    const trip = await tripWithBags(t)
    await patchTrip(t, trip, { passengers: [{ passenger_id: 'p1', first_names: 'Ada' }] })
    await t.core.drainJobs()
    const before = await readBasket(t, trip)
    const res = await patchTrip(t, trip, { passengers: [{ passenger_id: 'p1', first_names: 'Ada' }] })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(statuses(body(res)), statuses(before))
    assert.deepEqual(new Set(Object.values(statuses(before))), new Set(['valid']))
  })
})

describe('an airline that cannot be reached', () => {
  let t: Built
  let calls: number[] = []
  let failing = true
  const maxAttempts = 3
  before(async () => {
    const sandbox = createSandboxSupplier()
    const supplier: Supplier = {
      ...sandbox,
      recheck: async (call, trip, items) => {
        calls.push(t.clock.now().getTime())
        if (failing) throw new Error('airline timed out')
        return sandbox.recheck(call, trip, items)
      },
    }
    t = await build({
      supplier,
      config: {
        maxAttempts: { ...defaultConfig.maxAttempts, basket_check: maxAttempts },
        backoffBaseMs: 1000,
        backoffCapMs: 60_000,
      },
    })
  })
  after(() => t.close())

  test('a failing check is retried with backoff (1 s, 2 s), then after maxAttempts its items are `invalid` with a reason; a later check recovers them', async () => {
    const trip = await tripWithBags(t)
    calls = []
    const start = t.clock.now().getTime()
    await checkBasket(t, trip)

    await t.core.drainJobs()
    assert.deepEqual(calls, [start], 'first attempt at once')
    assert.deepEqual(
      new Set(Object.values(statuses(await readBasket(t, trip)))),
      new Set(['checking']),
      'still checking while retrying',
    )

    t.clock.advance(999)
    assert.equal(await t.core.drainJobs(), 0, 'no retry before the 1 s backoff')
    t.clock.advance(1)
    await t.core.drainJobs()
    assert.deepEqual(calls, [start, start + 1000], 'second attempt after 1 s')

    t.clock.advance(1999)
    assert.equal(await t.core.drainJobs(), 0, 'no retry before the 2 s backoff')
    t.clock.advance(1)
    await t.core.drainJobs()
    assert.deepEqual(calls, [start, start + 1000, start + 3000], 'third and last attempt after 2 s more')

    const basket = await readBasket(t, trip)
    for (const item of Object.values(basket.basket)) {
      assert.equal(item.validity.status, 'invalid', item.display_name)
      assert.equal(item.validity.reason, 'check_failed')
    }
    const job = (await t.store.listJobs(['basket_check'])).at(-1)!
    assert.equal(job.status, 'dead')
    assert.equal(job.attempts, maxAttempts)
    assert.equal(job.last_error, 'airline timed out')
    t.clock.advance(HOLD_MS)
    assert.equal(await t.core.drainJobs(), 0, 'a dead job is not run again')

    failing = false
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const recovered = await readBasket(t, trip)
    assert.deepEqual(new Set(Object.values(statuses(recovered))), new Set(['valid']))
    assert.equal(itemWhere(recovered, isBag('p1')).validity.reason, undefined)
  })
})

describe('a check superseded by a newer one', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('two checks in a row: the items end `valid` once, whichever job runs first', async () => {
    const trip = await tripWithBags(t)
    await checkBasket(t, trip)
    t.clock.advance(1000)
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const basket = await readBasket(t, trip)
    assert.deepEqual(new Set(Object.values(statuses(basket))), new Set(['valid']))
    for (const item of Object.values(basket.basket)) assert.equal(item.validity.valid_from, t.clock.now().toISOString())
  })

  test('a basket change during a check: the new item is `valid`, the checked ones end `valid`', async () => {
    const trip = await tripWithBags(t)
    const search = await readSearch(t, trip)
    await checkBasket(t, trip)
    const res = await changeBasket(t, trip, 'PATCH', [
      { product_id: seats(search, 'p1')[0]!.product_id, passenger_id: 'p1', quantity: 1 },
    ])
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(itemWhere(body(res), isSeat('p1')).validity.status, 'valid', 'a fresh item is priced now')
    await t.core.drainJobs()
    assert.deepEqual(new Set(Object.values(statuses(await readBasket(t, trip)))), new Set(['valid']))
  })
})
