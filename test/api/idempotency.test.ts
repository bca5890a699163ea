/**
 * Idempotency-Key while the first request is still running, and after its process died: the same request
 * is told to retry (409 `idempotency_in_progress` with Retry-After), another body is refused for good (422),
 * a holder that is alive keeps its key by renewing its lease, and a key whose holder stopped renewing is
 * taken over once the lease lapsed, so the retry runs and the trip is fulfilled exactly once.
 * (test/api/crash-retry.test.ts does the same with a server SIGKILLed mid-fulfill on SQLite and PostgreSQL.)
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { build, body, assertProblem, createTrip, type Built } from '../helpers/build.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { readSearch, checkedBag, addItems, fulfill, fulfillRequest, readTrip } from '../helpers/flows.ts'
import type { Store } from '../../core/ports/store.ts'
import { canonicalJson, sha256Hex } from '../../core/shared/crypto.ts'

const LEASE_MS = 400

/** A trip with a bag, ready to fulfill, and its fulfill request. */
async function ready(t: Built) {
  const trip = await createTrip(t)
  const basket = await addItems(t, trip, [
    { product_id: checkedBag(await readSearch(t, trip)).product_id, passenger_id: 'p1' },
  ])
  return { trip, payload: fulfillRequest(trip, basket.trip_state_hash) }
}

describe('Idempotency-Key of a request still running, or of a process that died', () => {
  let t: Built
  /** While set, a trip write waits for it: the request holding its key is still running. */
  let gate: Promise<void> | null = null
  /** While set, a holder's own completion never reaches the store, as when its process dies right after its commit. */
  let dies = false
  before(async () => {
    const memory = new MemoryStore()
    const store = new Proxy(memory, {
      get(target, name, receiver) {
        if (name === 'updateTrip')
          return async (...args: Parameters<Store['updateTrip']>) => {
            await gate
            return target.updateTrip(...args)
          }
        if (name === 'completeIdempotency' && dies) return async () => false
        const v = Reflect.get(target, name, receiver) as unknown
        return typeof v === 'function' ? v.bind(target) : v
      },
    })
    t = await build({ store, config: { idempotencyLeaseMs: LEASE_MS } })
  })
  after(() => t.close())

  test('a key left by a dead holder: 409 with Retry-After until its lease lapses, then the retry runs, once', async () => {
    const { trip, payload } = await ready(t)
    const scope = `${t.seller.seller_id}:fulfill`
    const hash = sha256Hex(canonicalJson(payload))
    // What a process killed mid-fulfill leaves: a reservation without an answer, leased for 10 s more.
    const now = t.clock.now()
    assert.equal(
      await t.store.reserveIdempotency({
        scope,
        key: 'charge-1',
        request_hash: hash,
        response: null,
        created_at: now.toISOString(),
        owner: 'dead-instance/r1',
        lease_until: new Date(now.getTime() + 10_000).toISOString(),
      }),
      null,
    )

    const snapshot = t.snapshot()
    const busy = await fulfill(t, trip, payload, { 'idempotency-key': 'charge-1' })
    const p = assertProblem(busy, 409, 'idempotency_in_progress')
    assert.equal(busy.headers['retry-after'], '10')
    assert.match(p.detail, /retry the same request after 10 s/)
    assertProblem(
      await fulfill(
        t,
        trip,
        { ...payload, payment_details: { payment_type: 'card' } },
        { 'idempotency-key': 'charge-1' },
      ),
      422,
      'idempotency_conflict',
    )
    t.clock.advance(9_500)
    assert.equal(
      (await fulfill(t, trip, payload, { 'idempotency-key': 'charge-1' })).headers['retry-after'],
      '1',
      'never less than a second',
    )
    assert.deepEqual(t.snapshot(), snapshot, 'refused, nothing changed')

    // The lease lapsed: the retry takes the key over and fulfills; every retry after it replays that answer.
    t.clock.advance(501)
    const run = await fulfill(t, trip, payload, { 'idempotency-key': 'charge-1' })
    assert.equal(run.statusCode, 202, run.body)
    const replay = await fulfill(t, trip, payload, { 'idempotency-key': 'charge-1' })
    assert.equal(replay.statusCode, 202)
    assert.equal(replay.headers['idempotent-replayed'], 'true')
    assert.deepEqual(body(replay), body(run))
    const orders = Object.values((await readTrip(t, trip)).orders) as Array<{ fulfillment_id: string }>
    assert.deepEqual(
      orders.map((o) => o.fulfillment_id),
      [body(run).fulfillment_id],
      'one order, of the retry that ran',
    )
  })

  test('a holder that is alive renews its lease: the same request waits (409) however long it runs, then replays its answer', async () => {
    const { trip, payload } = await ready(t)
    let open!: () => void
    gate = new Promise((resolve) => {
      open = resolve
    })
    try {
      const first = fulfill(t, trip, payload, { 'idempotency-key': 'charge-2' })
      // Far past the first lease, by the clock; the holder's renewals (every third of the lease) keep it.
      await new Promise((r) => setTimeout(r, LEASE_MS / 2))
      t.clock.advance(5 * LEASE_MS)
      await new Promise((r) => setTimeout(r, LEASE_MS))
      const busy = await fulfill(t, trip, payload, { 'idempotency-key': 'charge-2' })
      assertProblem(busy, 409, 'idempotency_in_progress')
      assert.equal(busy.headers['retry-after'], '1')
      open()
      const answered = await first
      assert.equal(answered.statusCode, 202, answered.body)
      const replay = await fulfill(t, trip, payload, { 'idempotency-key': 'charge-2' })
      assert.equal(replay.headers['idempotent-replayed'], 'true')
      assert.deepEqual(body(replay), body(answered))
      assert.equal(Object.keys((await readTrip(t, trip)).orders).length, 1)
    } finally {
      gate = null
    }
  })

  test('the answer is stored with the trip write: a holder that dies right after its commit leaves a replay, not a second run', async () => {
    const { trip, payload } = await ready(t)
    dies = true
    let first
    try {
      first = await fulfill(t, trip, payload, { 'idempotency-key': 'charge-3' })
    } finally {
      dies = false
    }
    assert.equal(first.statusCode, 202, first.body)
    t.clock.advance(10 * LEASE_MS)
    const retry = await fulfill(t, trip, payload, { 'idempotency-key': 'charge-3' })
    assert.equal(retry.statusCode, 202, retry.body)
    assert.equal(retry.headers['idempotent-replayed'], 'true')
    assert.deepEqual(body(retry), body(first))
  })
})
