import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { storeContract, seller, trip, job } from './contract.ts'

storeContract('memory', async () => new MemoryStore(), {
  // A sandbox snapshot saved before the orders feed: restoring it builds the feed from the trips' orders.
  insertPreFeedTrip: async (s, t) => {
    const m = s as MemoryStore
    const { orders: _o, orderFeeds: _f, ...before } = m.snapshot()
    m.restore({ ...before, trips: [...before.trips, { value: t, version: 1 }] })
  },
  // A snapshot saved before suppliers and key expiry: restoring it fills them in (as migration 8 does).
  insertV1Seller: async (s, x, k) => {
    const m = s as MemoryStore
    const before = m.snapshot()
    m.restore({ ...before, sellers: [...before.sellers, x], apiKeys: [...before.apiKeys, ...(k ? [k] : [])] })
  },
})

test('a memory store restored from a JSON snapshot carries on where the first left off', async () => {
  const first = new MemoryStore()
  await first.createSeller(seller('s1'))
  await first.insertTrip(trip('t1'), { jobs: [job('j1')] })
  await first.updateTrip(trip('t1', 's1', { language: 'fr' }), 1)
  await first.claimJob(['fulfillment'], new Date('2030-01-01T00:00:00Z'), 60_000)

  const second = new MemoryStore(JSON.parse(JSON.stringify(first.snapshot())))
  assert.deepEqual(second.snapshot(), first.snapshot())
  assert.deepEqual(await second.getTrip('t1'), { value: trip('t1', 's1', { language: 'fr' }), version: 2 })
  assert.equal(await second.updateTrip(trip('t1'), 1), null)
  assert.equal(await second.updateTrip(trip('t1'), 2), 3)
  assert.equal(await second.claimJob(['fulfillment'], new Date('2030-01-01T00:00:59Z'), 60_000), undefined)
  assert.equal((await second.claimJob(['fulfillment'], new Date('2030-01-01T00:01:00Z'), 60_000))?.attempts, 2)
  assert.equal((await first.getTrip('t1'))?.version, 2, 'the stores share nothing')
})

test('a snapshot is a copy, and restore replaces everything', async () => {
  const s = new MemoryStore()
  await s.createSeller(seller('s1'))
  const snap = s.snapshot()
  snap.sellers[0]!.name = 'changed'
  assert.equal((await s.getSeller('s1'))?.name, seller('s1').name)

  await s.createSeller(seller('s2'))
  s.restore(snap)
  assert.deepEqual(await s.listSellers(), [{ ...seller('s1'), name: 'changed' }])
  snap.sellers[0]!.name = 'changed again'
  assert.equal((await s.getSeller('s1'))?.name, 'changed')
})
