/** The store contract of the store as a whole: ping, migrate again, a database an older release left at migration 1. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  apiKey,
  at,
  idem,
  iso,
  job,
  sealed,
  search,
  seatMap,
  seller,
  subscription,
  trip,
  type ContractContext,
} from '../fixtures.ts'

export function lifecycleContract({ it, make, opts }: ContractContext): void {
  it('ping answers and a second migrate() is harmless', async (s) => {
    await s.ping()
    await s.createSeller(seller('s1'))
    await s.migrate()
    await s.ping()
    assert.deepEqual(await s.getSeller('s1'), seller('s1'))
  })

  test('a database an older release left at migration 1 keeps its data when migrated to the latest', async () => {
    const s = await make()
    try {
      await s.migrate(1)
      const { supplier: _supplier, ...oldSeller } = seller('s1')
      const { expires_at: _expires, ...oldKey1 } = apiKey('ab')
      if (opts.insertV1Seller) await opts.insertV1Seller(s, oldSeller, oldKey1)
      else {
        await s.createSeller(seller('s1'))
        await s.addApiKey(apiKey('ab'))
      }
      // Its search was in the earlier full form, which migration 3 drops: the trip then has none.
      const old = trip('t1', 's1', { search_id: 'x-old' })
      await (opts.insertV1Trip ? opts.insertV1Trip(s, old) : s.insertTrip({ ...old, search_id: null }))
      await (opts.insertV1Job ? opts.insertV1Job(s, job('j1')) : s.enqueueJob(job('j1')))
      const oldKey = { scope: 's1:POST /v2.2/trip', key: 'k1', request_hash: 'h1', created_at: iso(0) }
      const migratedKey = { ...oldKey, response: null, owner: '', lease_until: '1970-01-01T00:00:00.000Z' }
      await (opts.insertV1Idempotency
        ? opts.insertV1Idempotency(s, oldKey)
        : s.reserveIdempotency(idem('k1', migratedKey)))

      await s.migrate()
      // Sellers from before suppliers sell the sandbox airline's offers, with no credentials; their keys never expire.
      assert.deepEqual(await s.listSellers(), [seller('s1')])
      assert.deepEqual(await s.findApiKey(apiKey('ab').key_hash), apiKey('ab'))
      assert.deepEqual(await s.getTrip('t1'), { value: trip('t1'), version: 1 })
      assert.deepEqual(await s.getJob('j1'), job('j1'))
      // A reservation from before leases has none left: the release that made it has stopped.
      assert.deepEqual(await s.reserveIdempotency(idem('k1', { request_hash: 'h2' })), migratedKey)
      assert.equal(await s.reserveIdempotency(idem('k1', { request_hash: 'h2' }), at(0)), null)
      // What migration 2 added works, and refers to what migration 1 held.
      await s.addSubscription(subscription('w1'))
      assert.deepEqual(await s.listSubscriptions('s1'), [subscription('w1')])
      await assert.rejects(s.addSubscription(subscription('w2', 'ghost')))
      // What migration 3 added works for the old trip.
      assert.equal(
        await s.updateTrip(trip('t1', 's1', { search_id: 'x1' }), 1, {
          search: search('x1'),
          seatMaps: [seatMap('map-1')],
        }),
        2,
      )
      assert.deepEqual(await s.getSearch('x1'), search('x1'))

      // What migration 8 added works for the old seller and its key.
      await s.updateSeller('s1', { supplier: { name: 'duffel', credentials: sealed('c2VhbGVk') } })
      await s.expireApiKeys('s1', [apiKey('ab').key_hash], iso(60))
      assert.deepEqual(
        await s.getSeller('s1'),
        seller('s1', { supplier: { name: 'duffel', credentials: sealed('c2VhbGVk') } }),
      )
      assert.deepEqual(await s.listApiKeys('s1'), [apiKey('ab', 's1', { expires_at: iso(60) })])

      await s.migrate()
      assert.deepEqual(await s.listSubscriptions('s1'), [subscription('w1')])
    } finally {
      await s.close()
    }
  })
}
