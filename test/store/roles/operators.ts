/**
 * The store contract of OperatorKeyStore (the admin API's keys) and OperationsStore (the operator's
 * questions across sellers: trips, orders, jobs, and a dead job's retry).
 */
import assert from 'node:assert/strict'
import type { OperatorKeyRecord, TripRecord } from '../../../core/ports/records.ts'
import { feedOrder, iso, job, seller, trip, tripWithOrders, type ContractContext } from '../fixtures.ts'

const operatorKey = (key_id: string, over: Partial<OperatorKeyRecord> = {}): OperatorKeyRecord => ({
  key_id,
  key_hash: `hash-${key_id}`,
  name: `Support "${key_id}"`,
  prefix: `svc_op_${key_id}`,
  seller_id: null,
  read_only: false,
  created_at: iso(0),
  revoked_at: null,
  ...over,
})

/** A trip with one ticket whose record locator is `locator`. */
const ticketed = (trip_id: string, seller_id: string, locator: string | null): TripRecord =>
  trip(trip_id, seller_id, {
    tickets: [
      {
        ticket_id: 'tk1',
        status: 'booked',
        journey_ids: [],
        basket_item_ids: [],
        basket_item_id: 'bi-tk1',
        access_details: {
          record_locator: locator,
          ticket_number: null,
          reference_name: null,
          reference_email: null,
          ticketing_channel: { record_locator: locator, name: null },
        },
        metadata: {},
      },
    ],
  })

export function operatorsContract({ it }: ContractContext): void {
  it('operator keys round-trip by hash, list oldest first, and are revoked once', async (s) => {
    await s.createSeller(seller('s1'))
    const limited = operatorKey('k2', { seller_id: 's1', read_only: true, created_at: '2030-01-01T01:00:00+01:00' })
    await s.addOperatorKey(operatorKey('k1', { created_at: iso(10) }))
    await s.addOperatorKey(limited)
    const canonical = { ...limited, created_at: iso(0) }
    assert.deepEqual(await s.findOperatorKey('hash-k2'), canonical, 'times canonical, seller and read-only kept')
    assert.equal(await s.findOperatorKey('hash-none'), undefined)
    assert.deepEqual(
      (await s.listOperatorKeys()).map((k) => k.key_id),
      ['k2', 'k1'],
    )
    assert.equal(await s.revokeOperatorKey('k1', iso(60)), true)
    assert.equal(await s.revokeOperatorKey('k1', iso(120)), false, 'a revocation is kept, not moved')
    assert.equal(await s.revokeOperatorKey('ghost', iso(60)), false)
    assert.equal((await s.findOperatorKey('hash-k1'))?.revoked_at, iso(60))
    assert.equal((await s.findOperatorKey('hash-k2'))?.revoked_at, null, 'another key is untouched')
    // Records are copies.
    ;(await s.findOperatorKey('hash-k2'))!.name = 'changed'
    assert.equal((await s.findOperatorKey('hash-k2'))?.name, limited.name)
    await assert.rejects(s.addOperatorKey(operatorKey('k1')), 'a key id is given once')
    await assert.rejects(s.addOperatorKey(operatorKey('k3', { key_hash: 'hash-k1' })), 'a hash is given once')
    await assert.rejects(s.addOperatorKey(operatorKey('k4', { seller_id: 'ghost' })), 'its seller exists')
  })

  it('trips are found by seller and by record locator, a page at a time by trip id', async (s) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    await s.insertTrip(ticketed('t3', 's1', 'ABC123'))
    await s.insertTrip(ticketed('t1', 's1', 'ABC123'))
    await s.insertTrip(ticketed('t2', 's2', 'ABC123'))
    await s.insertTrip(ticketed('t4', 's1', 'ZZZ999'))
    await s.insertTrip(trip('t5', 's2'))
    const ids = (trips: TripRecord[]) => trips.map((t) => t.trip_id)
    assert.deepEqual(ids(await s.findTrips({ limit: 10 })), ['t1', 't2', 't3', 't4', 't5'])
    assert.deepEqual(ids(await s.findTrips({ recordLocator: 'ABC123', limit: 10 })), ['t1', 't2', 't3'])
    assert.deepEqual(ids(await s.findTrips({ recordLocator: 'ABC123', limit: 2 })), ['t1', 't2'])
    assert.deepEqual(ids(await s.findTrips({ recordLocator: 'ABC123', after: 't2', limit: 2 })), ['t3'])
    assert.deepEqual(ids(await s.findTrips({ recordLocator: 'ABC123', sellerId: 's1', limit: 10 })), ['t1', 't3'])
    assert.deepEqual(ids(await s.findTrips({ sellerId: 's2', limit: 10 })), ['t2', 't5'])
    assert.deepEqual(ids(await s.findTrips({ recordLocator: 'abc123', limit: 10 })), [], 'exactly as written')
    assert.deepEqual(ids(await s.findTrips({ sellerId: 'ghost', limit: 10 })), [])
    assert.deepEqual(await s.findTrips({ recordLocator: 'ZZZ999', limit: 10 }), [ticketed('t4', 's1', 'ZZZ999')])
  })

  it('orders are found across sellers by status and failure reason, a page at a time by order id', async (s) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    const a = feedOrder('t1', 'o1', { status: 'failed', failure_reason: 'supplier_refused' })
    const b = feedOrder('t1', 'o3', { status: 'succeeded' })
    const c = feedOrder('t2', 'o2', { status: 'failed', failure_reason: 'ticketing_timeout' })
    const d = feedOrder('t2', 'o4', { status: 'failed', failure_reason: 'supplier_refused' })
    await s.insertTrip(tripWithOrders('t1', 's1', [a, b]), { orders: [a, b] })
    await s.insertTrip(tripWithOrders('t2', 's2', [c, d]), { orders: [c, d] })
    const ids = async (q: Parameters<typeof s.findOrders>[0]) =>
      (await s.findOrders(q)).map((o) => `${o.seller_id}/${o.order.order_id}`)
    assert.deepEqual(await ids({ limit: 10 }), ['s1/o1', 's2/o2', 's1/o3', 's2/o4'])
    assert.deepEqual(await ids({ status: 'failed', limit: 10 }), ['s1/o1', 's2/o2', 's2/o4'])
    assert.deepEqual(await ids({ status: 'failed', limit: 2 }), ['s1/o1', 's2/o2'])
    assert.deepEqual(await ids({ status: 'failed', after: 'o2', limit: 2 }), ['s2/o4'])
    assert.deepEqual(await ids({ failureReason: 'supplier_refused', limit: 10 }), ['s1/o1', 's2/o4'])
    assert.deepEqual(await ids({ sellerId: 's2', status: 'failed', failureReason: 'supplier_refused', limit: 10 }), [
      's2/o4',
    ])
    assert.deepEqual(await ids({ sellerId: 's1', limit: 10 }), ['s1/o1', 's1/o3'])
    assert.deepEqual(await ids({ status: 'cancelled', limit: 10 }), [])
    assert.deepEqual(await s.findOrders({ sellerId: 's1', status: 'failed', limit: 1 }), [
      { seller_id: 's1', order: a },
    ])
  })

  it("orders' last changes since a time, latest first, of one seller or every one, at most a limit", async (s) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    const a = feedOrder('t1', 'o1', { status: 'failed', updated_at: iso(100) })
    const b = feedOrder('t1', 'o2', { status: 'succeeded', updated_at: iso(300) })
    const c = feedOrder('t2', 'o3', { status: 'queued', updated_at: iso(200) })
    const old = feedOrder('t2', 'o4', { status: 'succeeded', updated_at: iso(10) })
    await s.insertTrip(tripWithOrders('t1', 's1', [a, b]), { orders: [a, b] })
    await s.insertTrip(tripWithOrders('t2', 's2', [c, old]), { orders: [c, old] })
    assert.deepEqual(await s.listOrderChanges({ since: iso(100), limit: 10 }), [
      { status: 'succeeded', updated_at: iso(300) },
      { status: 'queued', updated_at: iso(200) },
      { status: 'failed', updated_at: iso(100) },
    ])
    assert.deepEqual(await s.listOrderChanges({ sellerId: 's1', since: iso(0), limit: 10 }), [
      { status: 'succeeded', updated_at: iso(300) },
      { status: 'failed', updated_at: iso(100) },
    ])
    assert.deepEqual(await s.listOrderChanges({ since: iso(0), limit: 2 }), [
      { status: 'succeeded', updated_at: iso(300) },
      { status: 'queued', updated_at: iso(200) },
    ])
    // An order that changes again is listed once, at its latest change and status; a time in another zone is the same instant.
    const b2 = { ...b, status: 'cancelled' as const, updated_at: iso(400) }
    await s.updateTrip(tripWithOrders('t1', 's1', [a, b2]), 1, { orders: [b2] })
    assert.deepEqual(await s.listOrderChanges({ sellerId: 's1', since: '2030-01-01T01:04:10+01:00', limit: 10 }), [
      { status: 'cancelled', updated_at: iso(400) },
    ])
    assert.deepEqual(await s.listOrderChanges({ sellerId: 'ghost', since: iso(0), limit: 10 }), [])
  })

  it('jobs are counted by kind and state; dead ones list by id and are given one more attempt', async (s) => {
    await s.enqueueJob(job('j1', { kind: 'webhook' }))
    await s.enqueueJob(job('j2', { kind: 'webhook', status: 'dead', attempts: 5, last_error: 'HTTP 500' }))
    await s.enqueueJob(job('j3', { kind: 'fulfill_order', status: 'dead', attempts: 3, last_error: 'refused' }))
    await s.enqueueJob(job('j4', { kind: 'fulfill_order', status: 'done', attempts: 1 }))
    await s.enqueueJob(job('j5', { kind: 'webhook' }))
    assert.deepEqual(await s.countJobs(), [
      { kind: 'fulfill_order', status: 'dead', count: 1 },
      { kind: 'fulfill_order', status: 'done', count: 1 },
      { kind: 'webhook', status: 'dead', count: 1 },
      { kind: 'webhook', status: 'pending', count: 2 },
    ])
    assert.deepEqual(
      (await s.listDeadJobs({ limit: 10 })).map((j) => [j.job_id, j.last_error]),
      [
        ['j2', 'HTTP 500'],
        ['j3', 'refused'],
      ],
    )
    assert.deepEqual(
      (await s.listDeadJobs({ after: 'j2', limit: 10 })).map((j) => j.job_id),
      ['j3'],
    )
    assert.deepEqual(
      (await s.listDeadJobs({ limit: 1 })).map((j) => j.job_id),
      ['j2'],
    )
    assert.equal(await s.retryDeadJob('j2', '2030-01-01T01:00:00+01:00'), true)
    assert.deepEqual(await s.getJob('j2'), {
      ...job('j2', { kind: 'webhook', attempts: 5, last_error: 'HTTP 500' }),
      status: 'pending',
      run_at: iso(0),
      max_attempts: 6,
    })
    assert.equal(await s.retryDeadJob('j2', iso(0)), false, 'no longer dead')
    assert.equal(await s.retryDeadJob('j4', iso(0)), false, 'a done job stays done')
    assert.equal(await s.retryDeadJob('ghost', iso(0)), false)
    assert.equal((await s.getJob('j4'))?.status, 'done')
    // The retried job is due: a claim takes it, and one more failure leaves it dead again.
    const claimed = await s.claimJob(['webhook'], new Date(iso(0)), 30_000)
    assert.equal(claimed?.job_id, 'j1')
    const next = await s.claimJob(['webhook'], new Date(iso(0)), 30_000)
    assert.equal(next?.job_id, 'j2')
    assert.equal(next?.attempts, 6)
    assert.deepEqual(
      (await s.listDeadJobs({ limit: 10 })).map((j) => j.job_id),
      ['j3'],
    )
  })
}
