/**
 * The trip cache writes from the copy it keeps without reading the trip first (the write is conditional on
 * its version). What writes nothing, a refusal or no change, must not be answered from a copy another
 * process has since changed: the cache asks the store, and makes the change again on the current trip.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createCore } from '../../../core/core.ts'
import { MemoryStore } from '../../../core/adapters/memory-store.ts'
import { createSandboxSupplier } from '../../../core/adapters/sandbox-airline/adapter.ts'
import { ProblemError } from '../../../core/shared/errors.ts'
import type { TripRecord } from '../../../core/ports/records.ts'
import type { Change } from '../../../core/application/trip-cache.ts'
import { job } from '../../store/fixtures.ts'
import { NOW, tripRecord } from '../../helpers/records.ts'
import { testIds } from '../../helpers/build.ts'

async function staleCache() {
  const store = new MemoryStore()
  const core = createCore({ store, suppliers: [createSandboxSupplier()], clock: { now: () => NOW }, ids: testIds() })
  const { seller } = await core.createSeller({ name: 'Shop', origins: [], sandbox: true })
  const trip = { ...tripRecord(), seller_id: seller.seller_id }
  await store.insertTrip(trip)
  const kept = await core.context.trips.read(trip.trip_id)
  // Another process changes the trip: this one's copy is now stale.
  const changed: TripRecord = {
    ...trip,
    contact_details: { ...trip.contact_details, email: 'changed@example.com' } as TripRecord['contact_details'],
  }
  assert.equal(await store.updateTrip(changed, kept!.version), kept!.version + 1)
  let writes = 0
  const updateTrip = store.updateTrip.bind(store)
  store.updateTrip = async (...args) => {
    writes++
    return updateTrip(...args)
  }
  const updateTrips = store.updateTrips.bind(store)
  store.updateTrips = async (all) => {
    writes += all.length
    return updateTrips(all)
  }
  return { core, trip, changed, writes: () => writes }
}

test('a change that writes nothing is answered from the current trip, not from a stale copy', async () => {
  const { core, trip, writes } = await staleCache()
  const seen: string[] = []
  const answer = await core.context.trips.mutate(null, trip.trip_id, (t) => {
    seen.push(String(t.contact_details?.email))
    return t
  })
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

/** A store whose getTripsIfChanged calls are recorded (the trip ids of each). */
async function countedReads() {
  const store = new MemoryStore()
  const core = createCore({ store, suppliers: [createSandboxSupplier()], clock: { now: () => NOW }, ids: testIds() })
  const { seller } = await core.createSeller({ name: 'Shop', origins: [], sandbox: true })
  const trips = ['ta', 'tb', 'tc'].map((id) => ({ ...tripRecord(), trip_id: id, seller_id: seller.seller_id }))
  for (const t of trips) await store.insertTrip(t)
  for (const t of trips) await core.context.trips.read(t.trip_id)
  const asked: string[][] = []
  const ask = store.getTripsIfChanged.bind(store)
  store.getTripsIfChanged = async (known) => {
    asked.push(known.map((k) => k.tripId))
    return ask(known)
  }
  // As a request loads its trip: the seller's own backend.
  const load = (tripId: string) =>
    core.context.trips.load({ kind: 'api_key', seller, key_hash: 'k' }, tripId).catch((e: unknown) => {
      if (e instanceof ProblemError && e.code === 'not_found') return undefined
      throw e
    })
  return { core, store, trips, asked, load }
}

test('the requests of one turn of the event loop, each from its own I/O callback, check their trips in one call', async () => {
  const { trips, asked, load } = await countedReads()
  // Each setImmediate callback stands for one socket's data: microtasks run between them, so a batch that
  // only waited for the microtask queue would leave with the first read alone.
  const reads = await Promise.all(
    trips.map((t) => new Promise((resolve) => setImmediate(() => resolve(load(t.trip_id))))),
  )
  assert.deepEqual(
    reads.map((r) => (r as { value: TripRecord }).value.trip_id),
    ['ta', 'tb', 'tc'],
  )
  assert.deepEqual(asked, [['ta', 'tb', 'tc']])
  // The same trip read twice in a turn is asked about once.
  await Promise.all([load('ta'), load('ta')])
  assert.deepEqual(asked.at(-1), ['ta'])
})

test("a request's batched check sees what another process wrote, and a trip gone from the store is gone", async () => {
  const { store, trips, asked, load } = await countedReads()
  const changed: TripRecord = { ...trips[0]!, language: 'fr' }
  assert.equal(await store.updateTrip(changed, 1), 2)
  // Another process deletes tb (retention): the store answers without it.
  const ask = store.getTripsIfChanged.bind(store)
  store.getTripsIfChanged = async (known) => {
    const found = await ask(known)
    found.delete('tb')
    return found
  }
  const [a, b, c] = await Promise.all(['ta', 'tb', 'tc'].map(load))
  assert.deepEqual(asked, [['ta', 'tb', 'tc']])
  assert.deepEqual([a?.version, a?.value.language], [2, 'fr'])
  assert.equal(b, undefined)
  assert.equal(c?.version, 1)
})

test("a write this process commits while a request's check is out is what the request reads", async () => {
  const { core, store, load } = await countedReads()
  // The store answers the check late (a round trip), after this process's write of the same turn committed.
  const ask = store.getTripsIfChanged.bind(store)
  store.getTripsIfChanged = async (known) => {
    const found = await ask(known)
    await new Promise((r) => setTimeout(r, 20))
    return found
  }
  const reading = load('ta')
  const writing = core.context.trips.mutate(null, 'ta', (t) => ({ ...t, language: 'de' }))
  assert.equal((await writing).language, 'de')
  // The check vouched for version 1, which this process has since replaced: the request reads what is stored.
  const read = await reading
  assert.deepEqual([read?.version, read?.value.language], [2, 'de'])
  assert.equal((await core.context.trips.read('ta'))?.value.language, 'de')
})

test('the plain writes of one turn go to the store in one call, once every request of the turn has been read', async () => {
  const { core, store } = await countedReads()
  const seen: string[] = []
  const updateTrips = store.updateTrips.bind(store)
  store.updateTrips = async (writes) => {
    seen.push(`write ${writes.map((w) => w.trip.trip_id).join(' ')}`)
    return updateTrips(writes)
  }
  const update = store.updateTrip.bind(store)
  store.updateTrip = async (t, v, e) => {
    seen.push(`alone ${t.trip_id}${e?.jobs ? ' with a job' : ''}`)
    return update(t, v, e)
  }
  // Each setImmediate callback stands for one socket's request: all are read before any writes. tc's
  // change queues a job, so it goes alone (in its own transaction, committed synchronously).
  const changes: Record<string, (t: TripRecord) => Change> = {
    ta: (t) => ({ ...t, language: 'x-ta' }),
    tb: (t) => ({ ...t, language: 'x-tb' }),
    tc: (t) => ({ trip: { ...t, language: 'x-tc' }, jobs: [job('j-tc')] }),
  }
  const written = await Promise.all(
    ['ta', 'tb', 'tc'].map(
      (id) =>
        new Promise<TripRecord>((resolve, reject) =>
          setImmediate(() => {
            seen.push(`request ${id}`)
            core.context.trips.mutate(null, id, changes[id]!).then(resolve, reject)
          }),
        ),
    ),
  )
  assert.deepEqual(seen, ['request ta', 'request tb', 'request tc', 'alone tc with a job', 'write ta tb'])
  assert.deepEqual(
    written.map((t) => t.language),
    ['x-ta', 'x-tb', 'x-tc'],
  )
  assert.deepEqual(
    await Promise.all(['ta', 'tb', 'tc'].map(async (id) => (await store.getTrip(id))?.version)),
    [2, 2, 2],
  )
  assert.ok(await store.getJob('j-tc'))
})

test("a trip's second write in one turn goes alone: one of the two wins, the other is made again on what it left", async () => {
  const { core, store } = await countedReads()
  const calls: string[] = []
  const updateTrips = store.updateTrips.bind(store)
  store.updateTrips = async (writes) => {
    calls.push(`together ${writes.length}`)
    return updateTrips(writes)
  }
  const update = store.updateTrip.bind(store)
  store.updateTrip = async (t, v, e) => {
    calls.push(`alone at ${v}`)
    return update(t, v, e)
  }
  const written = await Promise.all(
    ['fr', 'de'].map((language) =>
      core.context.trips.mutate(null, 'ta', (t) => ({
        ...t,
        passengers: t.passengers,
        language: `${t.language}+${language}`,
      })),
    ),
  )
  // Both were made from version 1 in the same turn: the one that lost was made again on version 2.
  assert.deepEqual(calls.slice(0, 2).sort(), ['alone at 1', 'together 1'])
  assert.equal(calls.length, 3)
  const stored = await store.getTrip('ta')
  assert.equal(stored?.version, 3)
  assert.ok(
    written.some((t) => t.language === stored?.value.language),
    `${written.map((t) => t.language)} vs ${stored?.value.language}`,
  )
  assert.match(stored!.value.language!, /\+(fr|de)\+(fr|de)$/)
})

test("when the turn's call fails, each write is tried alone: one the store refuses fails its own request only", async () => {
  const { core, store } = await countedReads()
  store.updateTrips = async () => {
    throw new Error('batch refused')
  }
  const update = store.updateTrip.bind(store)
  // Not async: throws before it returns a promise, as a store's driver may.
  store.updateTrip = ((t: TripRecord, v: number) => {
    if (t.trip_id === 'ta') throw new Error('driver refused')
    return update(t, v)
  }) as typeof store.updateTrip
  const settled = await Promise.allSettled(
    ['ta', 'tb'].map((id) => core.context.trips.mutate(null, id, (t) => ({ ...t, language: 'fr' }))),
  )
  assert.deepEqual(
    settled.map((r) => r.status),
    ['rejected', 'fulfilled'],
  )
  assert.equal((settled[0] as PromiseRejectedResult).reason.message, 'driver refused')
  assert.equal((await store.getTrip('tb'))?.version, 2)
})

test('a lone write that fails is not tried again, and a call that throws at once escapes nowhere', async () => {
  const { core, store } = await countedReads()
  let calls = 0
  store.updateTrips = (() => {
    calls++
    throw new Error('driver refused')
  }) as unknown as typeof store.updateTrips
  await assert.rejects(
    core.context.trips.mutate(null, 'ta', (t) => ({ ...t, language: 'fr' })),
    /driver refused/,
  )
  assert.equal(calls, 1)
  assert.equal((await store.getTrip('ta'))?.version, 1)
})
