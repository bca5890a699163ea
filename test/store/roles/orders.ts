/** The store contract of OrderFeedStore: the orders feed, written by trip writes. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { TripRecord } from '../../../core/ports/records.ts'
import type { Store } from '../../../core/ports/store.ts'
import {
  at,
  feedOrder,
  iso,
  job,
  money,
  seller,
  trip,
  tripWithOrders,
  type MigratableStore,
  type ContractContext,
} from '../fixtures.ts'

export function ordersContract({ it, make, opts }: ContractContext): void {
  /** Sellers s1 and s2; s1's trips t1 (orders a, b) and t2 (c), s2's trip u1 (x): numbered 1, 2, 3 and 1. */
  const withOrders = async (s: Store) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    const a = feedOrder('t1', 'a', { updated_at: iso(10) })
    const b = feedOrder('t1', 'b', { updated_at: iso(10), product_type: 'seat', display_name: 'Seat 12A' })
    const c = feedOrder('t2', 'c', { updated_at: iso(5) })
    const x = feedOrder('u1', 'x', { updated_at: iso(1) })
    await s.insertTrip(tripWithOrders('t1', 's1', [a, b]), { orders: [a, b] })
    await s.insertTrip(trip('t2'))
    assert.equal(await s.updateTrip(tripWithOrders('t2', 's1', [c]), 1, { orders: [c] }), 2)
    await s.insertTrip(tripWithOrders('u1', 's2', [x]), { orders: [x] })
    return { a, b, c, x }
  }
  const all = { after: 0, limit: 100 }

  it('orders feed: a trip write numbers the orders it moves per seller, and the feed lists them by number', async (s) => {
    const { a, b, c, x } = await withOrders(s)
    // By number, i.e. by commit: c was written after a and b though its updated_at is earlier.
    assert.deepEqual(await s.listOrders('s1', all), [
      { seq: 1, order: a },
      { seq: 2, order: b },
      { seq: 3, order: c },
    ])
    assert.deepEqual(await s.listOrders('s2', all), [{ seq: 1, order: x }], 'each seller has numbers of its own')
    assert.deepEqual(await s.listOrders('ghost', all), [])

    // An order that moves takes the next number: it leaves its old place and comes after the others.
    const a2 = { ...a, status: 'succeeded' as const, updated_at: iso(20) }
    const b2 = { ...b, status: 'cancelled' as const, refund: money(2000), updated_at: iso(20) }
    assert.equal(await s.updateTrip(tripWithOrders('t1', 's1', [a2, b2]), 1, { orders: [a2, b2] }), 2)
    assert.deepEqual(await s.listOrders('s1', all), [
      { seq: 3, order: c },
      { seq: 4, order: a2 },
      { seq: 5, order: b2 },
    ])
    assert.deepEqual(await s.listOrders('s1', { after: 3, limit: 100 }), [
      { seq: 4, order: a2 },
      { seq: 5, order: b2 },
    ])
    assert.deepEqual(await s.listOrders('s1', { after: 3, limit: 1 }), [{ seq: 4, order: a2 }])
    assert.deepEqual(await s.listOrders('s1', { after: 5, limit: 100 }), [])
    assert.deepEqual(await s.listOrders('s1', { after: 99, limit: 100 }), [])
    // A write with no orders numbers nothing; the other seller's numbers never moved.
    assert.equal(await s.updateTrip(tripWithOrders('t2', 's1', [c]), 2), 3)
    assert.deepEqual(
      (await s.listOrders('s1', all)).map((e) => e.seq),
      [3, 4, 5],
    )
    assert.deepEqual(await s.listOrders('s2', all), [{ seq: 1, order: x }])
  })

  it('orders feed: filtered by status and by updated_at, from any number', async (s) => {
    const { a, b, c } = await withOrders(s)
    const a2 = { ...a, status: 'succeeded' as const, updated_at: iso(30) }
    await s.updateTrip(tripWithOrders('t1', 's1', [a2, b]), 1, { orders: [a2] })
    // s1: b (2, queued, 10 s), c (3, queued, 5 s), a2 (4, succeeded, 30 s).
    assert.deepEqual(await s.listOrders('s1', { ...all, status: 'queued' }), [
      { seq: 2, order: b },
      { seq: 3, order: c },
    ])
    assert.deepEqual(await s.listOrders('s1', { ...all, status: 'queued', after: 2 }), [{ seq: 3, order: c }])
    assert.deepEqual(await s.listOrders('s1', { ...all, status: 'cancelled' }), [])
    assert.deepEqual(
      await s.listOrders('s1', { ...all, updatedSince: iso(10) }),
      [
        { seq: 2, order: b },
        { seq: 4, order: a2 },
      ],
      'at or after',
    )
    assert.deepEqual(await s.listOrders('s1', { after: 2, limit: 100, updatedSince: iso(10) }), [{ seq: 4, order: a2 }])
    assert.deepEqual(await s.listOrders('s1', { ...all, updatedSince: iso(10.001) }), [{ seq: 4, order: a2 }])
    // An instant with an offset is that instant: 00:00:10+00:00 written as 01:00:10+01:00.
    assert.deepEqual(await s.listOrders('s1', { ...all, updatedSince: '2030-01-01T01:00:10+01:00' }), [
      { seq: 2, order: b },
      { seq: 4, order: a2 },
    ])
    assert.deepEqual(await s.listOrders('s1', { ...all, status: 'queued', updatedSince: iso(6) }), [
      { seq: 2, order: b },
    ])
    assert.deepEqual(await s.listOrders('s1', { ...all, updatedSince: iso(31) }), [])
    assert.deepEqual(await s.listOrders('s1', { ...all, limit: 2, updatedSince: iso(0) }), [
      { seq: 2, order: b },
      { seq: 3, order: c },
    ])
  })

  it('orders feed: times come back canonical, records are copies, and each order is written for its own trip', async (s) => {
    await s.createSeller(seller('s1'))
    const o = feedOrder('t1', 'o1', { updated_at: '2030-01-01T01:00:07+01:00', refund: money(100) })
    await s.insertTrip(tripWithOrders('t1', 's1', [o]), { orders: [o] })
    const stored = { ...feedOrder('t1', 'o1', { refund: money(100) }), updated_at: iso(7) }
    const [got] = await s.listOrders('s1', all)
    assert.deepEqual(got, { seq: 1, order: stored })
    got!.order.price.total.amount = 1
    o.display_name = 'changed'
    assert.deepEqual(await s.listOrders('s1', all), [{ seq: 1, order: stored }])

    // An order of another trip fails the whole write: no trip, no number taken.
    await assert.rejects(s.insertTrip(trip('t2'), { orders: [feedOrder('t1', 'o2')] }))
    assert.equal(await s.getTrip('t2'), undefined)
    const o3 = feedOrder('t1', 'o3')
    assert.equal(await s.updateTrip(tripWithOrders('t1', 's1', [o, o3]), 1, { orders: [o3] }), 2)
    assert.deepEqual(
      (await s.listOrders('s1', all)).map((e) => [e.seq, e.order.order_id]),
      [
        [1, 'o1'],
        [2, 'o3'],
      ],
      'numbers have no gap',
    )
  })

  it('orders feed: a write that loses its race or fails stores no order and takes no number', async (s) => {
    const { a, b, c } = await withOrders(s)
    const a2 = { ...a, status: 'in_progress' as const, updated_at: iso(40) }
    assert.equal(await s.updateTrip(tripWithOrders('t1', 's1', [a2, b]), 7, { orders: [a2] }), null)
    // A job id that is taken fails the write after the orders would have been numbered.
    await s.enqueueJob(job('j1'))
    await assert.rejects(s.updateTrip(tripWithOrders('t1', 's1', [a2, b]), 1, { orders: [a2], jobs: [job('j1')] }))
    assert.deepEqual(await s.listOrders('s1', all), [
      { seq: 1, order: a },
      { seq: 2, order: b },
      { seq: 3, order: c },
    ])
    assert.equal(await s.updateTrip(tripWithOrders('t1', 's1', [a2, b]), 1, { orders: [a2] }), 2)
    assert.deepEqual(await s.listOrders('s1', { after: 3, limit: 100 }), [{ seq: 4, order: a2 }])
  })

  it("orders feed: concurrent writes of one seller's orders each get numbers of their own", async (s) => {
    await s.createSeller(seller('s1'))
    const trips = Array.from({ length: 8 }, (_, i) => `t${i}`)
    for (const id of trips) await s.insertTrip(trip(id))
    const results = await Promise.all(
      trips.map((id) => {
        const orders = [feedOrder(id, `${id}-a`), feedOrder(id, `${id}-b`)]
        return s.updateTrip(tripWithOrders(id, 's1', orders), 1, { orders })
      }),
    )
    assert.deepEqual(
      results,
      trips.map(() => 2),
    )
    const feed = await s.listOrders('s1', all)
    assert.deepEqual(
      feed.map((e) => e.seq),
      Array.from({ length: 16 }, (_, i) => i + 1),
    )
    // The two orders of one write are numbered together, in the order given.
    for (const id of trips) {
      const [first, second] = feed.filter((e) => e.order.trip_id === id)
      assert.equal(first!.order.order_id, `${id}-a`)
      assert.equal(second!.seq, first!.seq + 1)
    }
  })

  it('orders feed: orders stay as long as their trip', async (s) => {
    await s.createSeller(seller('s1'))
    const kept = feedOrder('tF', 'kept')
    await s.insertTrip(tripWithOrders('tF', 's1', [kept]), { orders: [kept] })
    // An open trip with orders cannot come from the core (fulfilling closes it); if one did, its orders go with it.
    const open = feedOrder('tO', 'gone')
    await s.insertTrip({ ...tripWithOrders('tO', 's1', [open]), fulfillments: {} }, { orders: [open] })
    const later = at(86_400 * 365)
    await s.purge({
      tripsBefore: later,
      searchesBefore: later,
      seatMapsBefore: later,
      tokensBefore: later,
      idempotencyBefore: later,
      jobsBefore: later,
      signingKeysBefore: later,
      deliveriesBefore: later,
    })
    assert.equal(await s.getTrip('tO'), undefined)
    assert.deepEqual(await s.listOrders('s1', all), [{ seq: 1, order: kept }])
  })

  test('orders feed: the orders of trips stored before it existed are in it, numbered by updated_at then order_id', async () => {
    const s = await make()
    try {
      await s.migrate(5)
      for (const id of ['s1', 's2']) {
        const { supplier: _supplier, ...before } = seller(id)
        await (opts.insertV1Seller ? opts.insertV1Seller(s, before) : s.createSeller(seller(id)))
      }
      const a = feedOrder('t1', 'a', { updated_at: iso(20), status: 'succeeded' })
      const b = feedOrder('t1', 'b', {
        updated_at: iso(10),
        status: 'cancelled',
        refund: money(2000),
        product_type: 'seat',
      })
      const c = feedOrder('t2', 'c', { updated_at: iso(10), status: 'failed' })
      const x = feedOrder('u1', 'x', { updated_at: iso(30), product_type: 'priority_boarding' })
      const insert = opts.insertPreFeedTrip ?? ((store: MigratableStore, t: TripRecord) => store.insertTrip(t))
      await insert(s, tripWithOrders('t1', 's1', [a, b]))
      await insert(s, tripWithOrders('t2', 's1', [c]))
      await insert(s, tripWithOrders('u1', 's2', [x]))
      await insert(s, trip('t3'))
      await s.migrate()
      assert.deepEqual(await s.listOrders('s1', all), [
        { seq: 1, order: b },
        { seq: 2, order: c },
        { seq: 3, order: a },
      ])
      assert.deepEqual(await s.listOrders('s2', all), [{ seq: 1, order: x }])
      // New changes are numbered after them.
      const d = feedOrder('t3', 'd', { updated_at: iso(5) })
      assert.equal(await s.updateTrip(tripWithOrders('t3', 's1', [d]), 1, { orders: [d] }), 2)
      assert.deepEqual(await s.listOrders('s1', { after: 3, limit: 10 }), [{ seq: 4, order: d }])
    } finally {
      await s.close()
    }
  })
}
