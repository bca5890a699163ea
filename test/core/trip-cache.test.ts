/**
 * The trip cache writes from the copy it keeps without reading the trip first (the write is conditional on
 * its version). What writes nothing, a refusal or no change, must not be answered from a copy another
 * process has since changed: the cache asks the store, and makes the change again on the current trip.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createCore } from '../../core/core.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import { ProblemError } from '../../core/shared/errors.ts'
import type { TripRecord } from '../../core/ports/records.ts'
import { NOW, tripRecord } from './rules/build.ts'
import { testIds } from '../helpers/build.ts'

async function staleCache() {
  const store = new MemoryStore()
  const core = createCore({ store, suppliers: [createSandboxSupplier()], clock: { now: () => NOW }, ids: testIds() })
  const { seller } = await core.createSeller({ name: 'Shop', origins: [], sandbox: true })
  const trip = { ...tripRecord(), seller_id: seller.seller_id }
  await store.insertTrip(trip)
  const kept = await core.context.trips.read(trip.trip_id)
  // Another process changes the trip: this one's copy is now stale.
  const changed: TripRecord = { ...trip, contact_details: { ...trip.contact_details, email: 'changed@example.com' } as TripRecord['contact_details'] }
  assert.equal(await store.updateTrip(changed, kept!.version), kept!.version + 1)
  let writes = 0
  const updateTrip = store.updateTrip.bind(store)
  store.updateTrip = async (...args) => { writes++; return updateTrip(...args) }
  return { core, trip, changed, writes: () => writes }
}

test('a change that writes nothing is answered from the current trip, not from a stale copy', async () => {
  const { core, trip, writes } = await staleCache()
  const seen: string[] = []
  const answer = await core.context.trips.mutate(null, trip.trip_id, (t) => { seen.push(String(t.contact_details?.email)); return t })
  assert.equal(answer.contact_details?.email, 'changed@example.com')
  assert.deepEqual(seen, [String(trip.contact_details?.email), 'changed@example.com'])
  assert.equal(writes(), 0)
})

test('a refusal from a stale copy is made again on the current trip', async () => {
  const { core, trip } = await staleCache()
  const answer = await core.context.trips.mutate(null, trip.trip_id, (t) => {
    if (t.contact_details?.email !== 'changed@example.com') throw new ProblemError('not_found', 'not on this copy')
    return t
  })
  assert.equal(answer.contact_details?.email, 'changed@example.com')
})

test('a write from a stale copy fails on its version and is made again on the current trip, once', async () => {
  const { core, trip, writes } = await staleCache()
  const seen: string[] = []
  const answer = await core.context.trips.mutate(null, trip.trip_id, (t) => {
    seen.push(String(t.contact_details?.email))
    return { ...t, updated_at: NOW.toISOString(), passengers: t.passengers }
  })
  assert.deepEqual(seen, [String(trip.contact_details?.email), 'changed@example.com'])
  assert.equal(answer.contact_details?.email, 'changed@example.com')
  assert.equal(writes(), 2)
})
