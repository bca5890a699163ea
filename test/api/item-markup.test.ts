/**
 * The seller's own mark-up on one basket item (docs/decisions.md "After-sale": a PATCH line's `markup`; its
 * semantics in docs/api.md "A mark-up of your own on one item"): listed in `price.markups` as
 * `markup_type: "item"` after the product type's, per unit, in the trip currency; kept on the item through
 * checks, price changes, acceptance and passenger updates; part of what a PUT compares and of the state hash.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { build, basic, body, assertProblem, createTrip, type Built, type CreatedTrip } from '../helpers/build.ts'
import {
  readSearch,
  checkedBag,
  readBasket,
  changeBasket,
  checkBasket,
  acceptItem,
  patchTrip,
  itemWhere,
  createTripOnFlight,
} from '../helpers/flows.ts'
import { assertBasketItem } from '../helpers/spec-fields.ts'
import { isPriceConsistent } from '../../core/domain/pricing.ts'
import type { Price } from '../../core/schemas/common.ts'

const MIN = 60_000
const eur = (amount: number) => ({ amount, currency: 'EUR', decimal_places: 2 })
const isBag = (passengerId: string) => (i: any) =>
  i.product_type === 'bag' && i.product_details.passenger_id === passengerId
const sum = (xs: Array<{ amount: number }>) => xs.reduce((s, x) => s + x.amount, 0)
const itemEntry = (price: Price) => price.markups.filter((m) => m.markup_type === 'item')

/** The bag line of p1 (a checked bag of the trip's search), with `quantity` and `markup` when given. */
async function bagLine(t: Built, trip: CreatedTrip, over: Record<string, unknown> = {}) {
  return {
    product_id: checkedBag(await readSearch(t, trip), 'p1').product_id,
    passenger_id: 'p1',
    quantity: 1,
    ...over,
  }
}

async function patchOk(t: Built, trip: CreatedTrip, lines: unknown[], method: 'PATCH' | 'PUT' = 'PATCH') {
  const res = await changeBasket(t, trip, method, lines)
  assert.equal(res.statusCode, 200, res.body)
  return body<{ trip_state_hash: string; basket: Record<string, any> }>(res)
}

/** A price equals `plain` with one `item` entry of `amount` after its own mark-ups, and the total moved by it. */
function assertMarkedUp(price: Price, plain: Price, amount: number, where = 'price') {
  assert.deepEqual(price.base, plain.base, `${where}: the base is the airline's`)
  assert.deepEqual(price.taxes, plain.taxes, `${where}: so are the taxes`)
  assert.deepEqual(
    price.markups,
    [...plain.markups, { ...eur(amount), in_original_currency: eur(amount), markup_type: 'item' }],
    `${where}: the item's entry after the type's`,
  )
  assert.equal(price.total.amount, plain.total.amount + amount, `${where}: the total moves by the mark-up`)
  assert.ok(isPriceConsistent(price), `${where}: total = base + markups + taxes`)
}

describe('a basket line with a mark-up', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('is listed in price.markups as markup_type "item", per unit, and the total adds up', async () => {
    const trip = await createTrip(t)
    const plain = itemWhere(await patchOk(t, trip, [await bagLine(t, trip, { quantity: 2 })]), isBag('p1'))
    assert.deepEqual(plain.price.markups, [], 'no rule, no mark-up')
    assert.equal(plain.markup, undefined, 'an item without one shows none')

    const trip2 = await createTrip(t)
    const basket = await patchOk(t, trip2, [await bagLine(t, trip2, { quantity: 2, markup: eur(350) })])
    const bag = itemWhere(basket, isBag('p1'))
    assertBasketItem(bag, bag.basket_item_id)
    assert.deepEqual(bag.markup, eur(350), 'the item shows the mark-up it was given')
    assertMarkedUp(bag.price, plain.price, 700)
    assert.equal(bag.price.total.amount, bag.price.base.amount + sum(bag.price.markups) + sum(bag.price.taxes))
    assert.deepEqual(await readBasket(t, trip2), basket, 'a read shows what the change answered')
  })

  test("the product type's rule and the item's mark-up are both listed, the type's first", async () => {
    const markups = { bag: { percentage: 10, fixed: 50 } }
    const plainTrip = await createTrip(t, { markups })
    const plain = itemWhere(await patchOk(t, plainTrip, [await bagLine(t, plainTrip)]), isBag('p1'))
    assert.deepEqual(
      plain.price.markups.map((m: { markup_type: string }) => m.markup_type),
      ['bag'],
    )

    const trip = await createTrip(t, { markups })
    const bag = itemWhere(await patchOk(t, trip, [await bagLine(t, trip, { markup: eur(0) })]), isBag('p1'))
    assert.deepEqual(
      bag.price.markups.map((m: { markup_type: string }) => m.markup_type),
      ['bag', 'item'],
      'a mark-up of 0 is listed too',
    )
    assertMarkedUp(bag.price, plain.price, 0)
  })

  test('a later line with a mark-up sets it, one without keeps it (quantities merge)', async () => {
    const trip = await createTrip(t)
    const first = itemWhere(await patchOk(t, trip, [await bagLine(t, trip, { markup: eur(100) })]), isBag('p1'))
    const kept = itemWhere(await patchOk(t, trip, [await bagLine(t, trip)]), isBag('p1'))
    assert.equal(kept.basket_item_id, first.basket_item_id)
    assert.equal(kept.quantity, 2)
    assert.deepEqual(kept.markup, eur(100))
    assert.deepEqual(
      itemEntry(kept.price).map((m) => m.amount),
      [200],
      'the kept mark-up, per unit',
    )
    const set = itemWhere(await patchOk(t, trip, [await bagLine(t, trip, { markup: eur(300) })]), isBag('p1'))
    assert.equal(set.quantity, 3)
    assert.deepEqual(set.markup, eur(300))
    assert.deepEqual(
      itemEntry(set.price).map((m) => m.amount),
      [900],
    )
    assert.ok(isPriceConsistent(set.price))
  })

  test('a mark-up in another currency, with other decimal places or below zero → 400 validation_error naming it; nothing changes', async () => {
    const trip = await createTrip(t)
    const line = await bagLine(t, trip)
    const held = await patchOk(t, trip, [{ ...line, markup: eur(100) }])
    const snapshot = t.snapshot()
    const refused = async (lines: unknown[], path: string, method: 'PATCH' | 'PUT' = 'PATCH') => {
      const p = assertProblem(await changeBasket(t, trip, method, lines), 400, 'validation_error')
      assert.deepEqual(
        p.errors?.map((e) => e.path),
        [path],
        JSON.stringify(p),
      )
      assert.deepEqual(t.snapshot(), snapshot, `${method} ${path}: nothing written`)
      assert.equal((await readBasket(t, trip)).trip_state_hash, held.trip_state_hash)
    }
    await refused([{ ...line, markup: { amount: 100, currency: 'USD', decimal_places: 2 } }], '/0/markup/currency')
    await refused(
      [{ ...line, markup: { amount: 100, currency: 'EUR', decimal_places: 0 } }],
      '/0/markup/decimal_places',
    )
    await refused([{ ...line, markup: eur(-1) }], '/0/markup/amount')
    await refused([{ ...line, markup: eur(1.5) }], '/0/markup/amount')
    await refused([{ ...line, markup: { amount: 100, currency: 'EUR' } }], '/0/markup/decimal_places')
    await refused([{ ...line, markup: { ...eur(100), note: 'x' } }], '/0/markup/note')
    // All or nothing: a good first line does not go in when the second is refused, by PATCH or PUT.
    const second = { ...line, passenger_id: 'p2', product_id: checkedBag(await readSearch(t, trip), 'p2').product_id }
    await refused(
      [
        { ...line, markup: eur(5) },
        { ...second, markup: { amount: 5, currency: 'GBP', decimal_places: 2 } },
      ],
      '/1/markup/currency',
    )
    await refused(
      [
        { ...line, markup: eur(5) },
        { ...second, markup: { amount: 5, currency: 'EUR', decimal_places: 3 } },
      ],
      '/1/markup/decimal_places',
      'PUT',
    )
  })
})

describe('the mark-up outlives checks, price changes and passenger updates', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('9001: the check prices the new airline price with it, previous_price keeps it, and accepting keeps it', async () => {
    const trip = await createTripOnFlight(t, '9001')
    const before = itemWhere(await patchOk(t, trip, [await bagLine(t, trip, { markup: eur(250) })]), isBag('p1'))
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const changed = itemWhere(await readBasket(t, trip), isBag('p1'))
    assert.equal(changed.validity.status, 'price_changed')
    assert.ok(changed.price.base.amount > before.price.base.amount, 'the airline asks more')
    assert.deepEqual(
      itemEntry(changed.price).map((m) => m.amount),
      [250],
      'the new price carries the mark-up',
    )
    assert.ok(isPriceConsistent(changed.price))
    assert.deepEqual(
      changed.validity.previous_price,
      before.price,
      'the previous price is the one shown, mark-up and all',
    )
    assert.deepEqual(changed.markup, eur(250))

    const accepted = itemWhere(body(await acceptItem(t, trip, changed.basket_item_id)), isBag('p1'))
    assert.equal(accepted.validity.status, 'valid')
    assert.deepEqual(accepted.price, changed.price, 'accepted at the new price with the mark-up')
    assert.deepEqual(accepted.markup, eur(250))

    // The agreed price holds at the next check: the airline's part did not change again.
    t.clock.advance(MIN)
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const again = itemWhere(await readBasket(t, trip), isBag('p1'))
    assert.equal(again.validity.status, 'valid')
    assert.deepEqual(again.price, accepted.price)
  })

  test('9001: removed and added again with the mark-up, it comes back price_changed at the new price plus the mark-up', async () => {
    const trip = await createTripOnFlight(t, '9001')
    const line = await bagLine(t, trip, { markup: eur(400) })
    await patchOk(t, trip, [line])
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const changed = itemWhere(await readBasket(t, trip), isBag('p1'))
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/v2.2/trip/${trip.trip_id}/basket/${changed.basket_item_id}`,
      headers: { authorization: basic(t.apiKey) },
    })
    assert.equal(del.statusCode, 200, del.body)
    const back = itemWhere(await patchOk(t, trip, [line]), isBag('p1'))
    assert.equal(back.validity.status, 'price_changed')
    assert.deepEqual(back.price, changed.price)
    assert.deepEqual(back.validity.previous_price, changed.validity.previous_price)
  })

  test("a passenger update's check (a loyalty tier makes the bag free) re-prices the airline's part only", async () => {
    const trip = await createTrip(t)
    const before = itemWhere(await patchOk(t, trip, [await bagLine(t, trip, { markup: eur(600) })]), isBag('p1'))
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
    await t.core.drainJobs()
    const after = (await readBasket(t, trip)).basket[before.basket_item_id]
    assert.ok(after, 'the item keeps its id across the new search')
    assert.equal(after.validity.status, 'price_changed')
    assert.equal(after.price.base.amount, 0, 'the tier makes the bag free')
    assert.deepEqual(
      itemEntry(after.price).map((m) => m.amount),
      [600],
      'the seller still marks it up',
    )
    assert.equal(after.price.total.amount, 600)
    assert.deepEqual(after.validity.previous_price, before.price)
    assert.deepEqual(after.markup, eur(600))
  })
})

describe('PUT and the mark-up', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('the same lines with the same mark-up change nothing: same items, no write, the same state hash', async () => {
    const trip = await createTrip(t)
    const lines = [await bagLine(t, trip, { markup: eur(120) })]
    const first = await patchOk(t, trip, lines, 'PUT')
    t.clock.advance(MIN)
    const snapshot = t.snapshot()
    const retry = await patchOk(t, trip, lines, 'PUT')
    assert.deepEqual(retry, first)
    assert.deepEqual(t.snapshot(), snapshot, 'nothing written')
  })

  test('another mark-up re-prices the item in place: same basket_item_id and window, a new total and state hash', async () => {
    const trip = await createTrip(t)
    const line = await bagLine(t, trip, { quantity: 2 })
    const plain = await patchOk(t, trip, [line], 'PUT')
    const plainBag = itemWhere(plain, isBag('p1'))
    t.clock.advance(MIN)

    const marked = await patchOk(t, trip, [{ ...line, markup: eur(150) }], 'PUT')
    const bag = itemWhere(marked, isBag('p1'))
    assert.equal(bag.basket_item_id, plainBag.basket_item_id, 'the item keeps its id')
    assert.deepEqual(bag.validity, plainBag.validity, 'and its validity and window: the airline was not asked again')
    assertMarkedUp(bag.price, plainBag.price, 300)
    assert.notEqual(marked.trip_state_hash, plain.trip_state_hash)

    const other = itemWhere(await patchOk(t, trip, [{ ...line, markup: eur(90) }], 'PUT'), isBag('p1'))
    assert.equal(other.basket_item_id, plainBag.basket_item_id)
    assertMarkedUp(other.price, plainBag.price, 180)

    // A line without one takes the mark-up off; a mark-up of 0 changes no total but is a change the hash shows.
    const removed = await patchOk(t, trip, [line], 'PUT')
    assert.deepEqual(itemWhere(removed, isBag('p1')), plainBag)
    assert.equal(removed.trip_state_hash, plain.trip_state_hash, 'back as it was')
    const zero = await patchOk(t, trip, [{ ...line, markup: eur(0) }], 'PUT')
    assert.equal(itemWhere(zero, isBag('p1')).price.total.amount, plainBag.price.total.amount)
    assert.notEqual(zero.trip_state_hash, plain.trip_state_hash)
  })

  test("on a price_changed item, a new mark-up re-prices both prices: it stays price_changed by the airline's change alone", async () => {
    const trip = await createTripOnFlight(t, '9001')
    const line = await bagLine(t, trip, { markup: eur(100) })
    await patchOk(t, trip, [line])
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const changed = itemWhere(await readBasket(t, trip), isBag('p1'))
    assert.equal(changed.validity.status, 'price_changed')

    const bag = itemWhere(await patchOk(t, trip, [{ ...line, markup: eur(700) }], 'PUT'), isBag('p1'))
    assert.equal(bag.basket_item_id, changed.basket_item_id)
    assert.equal(bag.validity.status, 'price_changed')
    assert.equal(bag.validity.valid_to, changed.validity.valid_to)
    assert.equal(bag.price.total.amount, changed.price.total.amount + 600)
    assert.equal(bag.validity.previous_price.total.amount, changed.validity.previous_price.total.amount + 600)
    assert.ok(isPriceConsistent(bag.validity.previous_price))
  })
})

describe('property: total = base + Σmarkups + Σtaxes for any mark-up and quantity', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('PATCH then PUT with random mark-ups, quantities and type rules', async () => {
    const trips = new Map<string, CreatedTrip>()
    const tripWith = async (rule: string) => {
      let trip = trips.get(rule)
      if (!trip) {
        const markups =
          rule === 'none'
            ? {}
            : rule === 'percentage'
              ? { bag: { percentage: 12.5 } }
              : { default: { percentage: 3, fixed: 25 } }
        trip = await createTrip(t, { markups })
        trips.set(rule, trip)
      }
      return trip
    }
    const limit = checkedBag(await readSearch(t, await tripWith('none')), 'p1').price_and_availability.p1!
      .quantity_limit
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('none', 'percentage', 'both'),
        fc.integer({ min: 1, max: limit }),
        fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 2 ** 40 })),
        fc.integer({ min: 0, max: 2 ** 40 }),
        async (rule, quantity, amount, later) => {
          const trip = await tripWith(rule)
          const line = await bagLine(t, trip, { quantity, markup: eur(amount) })
          await patchOk(t, trip, [], 'PUT')
          const added = itemWhere(await patchOk(t, trip, [line]), isBag('p1'))
          const replaced = itemWhere(await patchOk(t, trip, [{ ...line, markup: eur(later) }], 'PUT'), isBag('p1'))
          for (const [bag, perUnit] of [
            [added, amount],
            [replaced, later],
          ] as const) {
            const p = bag.price as Price
            assert.ok(isPriceConsistent(p), JSON.stringify(p))
            assert.equal(BigInt(p.total.amount), BigInt(p.base.amount) + BigInt(sum(p.markups)) + BigInt(sum(p.taxes)))
            assert.deepEqual(
              itemEntry(p).map((m) => m.amount),
              [perUnit * quantity],
            )
            assert.equal(p.markups.at(-1)!.markup_type, 'item', "the item's entry comes last")
          }
          assert.equal(replaced.price.total.amount - added.price.total.amount, (later - amount) * quantity)
        },
      ),
      { seed: 20261122, numRuns: 40 },
    )
  })
})
