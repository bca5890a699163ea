/** The store contract of IdempotencyStore: Idempotency-Key reservations, leases and answers. */
import assert from 'node:assert/strict'
import type { IdempotencyRecord } from '../../../core/ports/records.ts'
import { at, completion, idem, iso, seller, trip, type ContractContext } from '../fixtures.ts'

export function idempotencyContract({ it }: ContractContext): void {
  it('idempotency: reserve once, read the record back, complete, release', async (s) => {
    assert.equal(await s.reserveIdempotency(idem('k1')), null)
    assert.deepEqual(
      await s.reserveIdempotency(idem('k1', { request_hash: 'h2', created_at: iso(5), owner: 'i2/r2' })),
      idem('k1'),
    )
    const response = { status: 201, body: { trip_id: 't1', nested: { ok: true } } }
    assert.equal(await s.completeIdempotency(completion('k1', response, 'i2/r2')), false, 'only the holder answers')
    assert.equal(await s.completeIdempotency(completion('k1', response)), true)
    assert.equal(
      await s.completeIdempotency(completion('k1', { status: 500, body: null })),
      false,
      'an answer is kept, never replaced',
    )
    assert.deepEqual(await s.reserveIdempotency(idem('k1')), idem('k1', { response }))

    // Keys are per scope.
    assert.equal(await s.reserveIdempotency(idem('k1', { scope: 's2:POST /v2.2/trip' })), null)

    // An answered key is kept however it is released; a key without an answer is freed by its holder only.
    await s.releaseIdempotency('s1:POST /v2.2/trip', 'k1', 'i1/r1')
    assert.deepEqual(await s.reserveIdempotency(idem('k1')), idem('k1', { response }))
    assert.equal(await s.reserveIdempotency(idem('k2')), null)
    await s.releaseIdempotency('s1:POST /v2.2/trip', 'k2', 'i2/r2')
    assert.deepEqual(await s.reserveIdempotency(idem('k2', { request_hash: 'h3' })), idem('k2'))
    await s.releaseIdempotency('s1:POST /v2.2/trip', 'k2', 'i1/r1')
    assert.equal(await s.reserveIdempotency(idem('k2', { request_hash: 'h3' })), null)
    assert.deepEqual(await s.reserveIdempotency(idem('k2')), idem('k2', { request_hash: 'h3' }))
    assert.deepEqual(
      await s.reserveIdempotency(idem('k1', { scope: 's2:POST /v2.2/trip' })),
      idem('k1', { scope: 's2:POST /v2.2/trip' }),
    )
  })

  it('concurrent reservations of one key: exactly one wins', async (s) => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => s.reserveIdempotency(idem('k1', { request_hash: `h${i}` }))),
    )
    assert.equal(results.filter((r) => r === null).length, 1)
    const winner = `h${results.indexOf(null)}`
    for (const r of results) if (r !== null) assert.equal(r.request_hash, winner)
  })

  it('idempotency lease: renewed by its holder only, taken over once it lapsed without an answer', async (s) => {
    const scope = 's1:POST /v2.2/trip'
    assert.equal(await s.reserveIdempotency(idem('k1')), null)
    // Held: the lease (until 10 s) has not ended before now (ended strictly before is lapsed).
    const other = (over: Partial<IdempotencyRecord> = {}) =>
      idem('k1', { request_hash: 'h2', created_at: iso(10), owner: 'i2/r2', lease_until: iso(20), ...over })
    assert.deepEqual(await s.reserveIdempotency(other(), at(10)), idem('k1'))
    assert.deepEqual(await s.reserveIdempotency(other(), at(0)), idem('k1'))
    // Without now a reservation is never taken over, however old its lease.
    assert.deepEqual(await s.reserveIdempotency(other({ created_at: iso(86_400) })), idem('k1'))

    // Its holder renews it (another request cannot); then it is held longer.
    assert.equal(await s.renewIdempotency(scope, 'k1', 'i2/r2', at(100)), false)
    assert.equal(await s.renewIdempotency(scope, 'k1', 'i1/r1', at(30)), true)
    assert.deepEqual(await s.reserveIdempotency(other(), at(20)), idem('k1', { lease_until: iso(30) }))

    // Lapsed: the next request takes it, and the one that lost it can neither renew, answer nor free it.
    assert.equal(await s.reserveIdempotency(other({ created_at: iso(31) }), at(30.001)), null)
    const taken = other({ created_at: iso(31) })
    assert.equal(await s.renewIdempotency(scope, 'k1', 'i1/r1', at(100)), false)
    assert.equal(await s.completeIdempotency(completion('k1', { status: 201, body: { trip_id: 'lost' } })), false)
    await s.releaseIdempotency(scope, 'k1', 'i1/r1')
    assert.deepEqual(
      await s.reserveIdempotency(idem('k1', { request_hash: 'h3', created_at: iso(32) }), at(19)),
      taken,
      'the new holder holds it under its own lease',
    )

    // A completed record is kept for good, however old its lease.
    const response = { status: 201, body: { trip_id: 't1' } }
    assert.equal(await s.completeIdempotency(completion('k1', response, 'i2/r2')), true)
    assert.deepEqual(
      await s.reserveIdempotency(idem('k1', { request_hash: 'h4', created_at: iso(86_400) }), at(86_000)),
      { ...taken, response },
    )
    assert.equal(
      await s.renewIdempotency(scope, 'k1', 'i2/r2', at(100_000)),
      false,
      'an answered key has no lease to renew',
    )

    // A free key is simply reserved, and other scopes are untouched.
    assert.equal(await s.reserveIdempotency(idem('k2', { created_at: iso(100) }), at(200)), null)
    assert.deepEqual(await s.reserveIdempotency(idem('k2')), idem('k2', { created_at: iso(100) }))
    assert.equal(await s.reserveIdempotency(idem('k1', { scope: 's2:POST /v2.2/trip' }), at(9_999)), null)
    assert.deepEqual(await s.reserveIdempotency(idem('k1')), { ...taken, response })
  })

  it('concurrent takeovers of a lapsed reservation: exactly one wins', async (s) => {
    assert.equal(await s.reserveIdempotency(idem('k1')), null)
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        s.reserveIdempotency(
          idem('k1', { request_hash: `h${i}`, owner: `i${i}/r`, created_at: iso(60), lease_until: iso(70) }),
          at(60),
        ),
      ),
    )
    assert.equal(results.filter((r) => r === null).length, 1, `results ${JSON.stringify(results)}`)
    const i = results.indexOf(null)
    const winner = idem('k1', { request_hash: `h${i}`, owner: `i${i}/r`, created_at: iso(60), lease_until: iso(70) })
    for (const r of results) if (r !== null) assert.deepEqual(r, winner)
    assert.deepEqual(await s.reserveIdempotency(idem('k1')), winner)
  })

  it('a trip write stores the answer of the request that holds its key, in its transaction', async (s) => {
    await s.createSeller(seller('s1'))
    const response = (trip_id: string) => ({ status: 201, body: { trip_id } })
    assert.equal(await s.reserveIdempotency(idem('k1')), null)
    await s.insertTrip(trip('t1'), { idempotency: completion('k1', response('t1')) })
    assert.deepEqual((await s.reserveIdempotency(idem('k1')))?.response, response('t1'))

    // An update, and one whose version conflicts: that one stores nothing.
    assert.equal(await s.reserveIdempotency(idem('k2')), null)
    assert.equal(await s.updateTrip(trip('t1'), 7, { idempotency: completion('k2', response('conflict')) }), null)
    assert.equal((await s.reserveIdempotency(idem('k2')))?.response, null)
    assert.equal(await s.updateTrip(trip('t1'), 1, { idempotency: completion('k2', response('t1')) }), 2)
    assert.deepEqual((await s.reserveIdempotency(idem('k2')))?.response, response('t1'))

    // A key taken over meanwhile keeps its new holder's answer: the write still commits, the answer does not.
    assert.equal(await s.reserveIdempotency(idem('k3')), null)
    assert.equal(await s.reserveIdempotency(idem('k3', { owner: 'i2/r2', lease_until: iso(40) }), at(30)), null)
    assert.equal(await s.updateTrip(trip('t1'), 2, { idempotency: completion('k3', response('lost')) }), 3)
    assert.equal((await s.reserveIdempotency(idem('k3')))?.response, null)
  })
}
