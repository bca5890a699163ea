/**
 * The sandbox keeps its store in `storage` (localStorage in a browser) under `storageKey`: saved at the end
 * of every request that may change something, synchronously, so a reload right after a change keeps it.
 * Here a Map stands in for localStorage, and "a reload" is a second sandbox on the same storage.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createSandbox } from '../../mock-server/sandbox.ts'
import type { Sandbox } from '../../mock-server/types.ts'

class MemoryStorage {
  readonly items = new Map<string, string>()
  writes = 0
  /** setItem throws past this many characters, like a full localStorage. */
  quota = Infinity
  getItem(key: string) {
    return this.items.get(key) ?? null
  }
  setItem(key: string, value: string) {
    if (value.length > this.quota) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError')
    this.writes++
    this.items.set(key, String(value))
  }
  removeItem(key: string) {
    this.items.delete(key)
  }
}

const KEY = 'svc-sandbox'
const BASE = 'http://sandbox.localhost'

async function call(sandbox: Sandbox, method: string, path: string, token: string, body?: unknown) {
  const res = await sandbox.fetch(`${BASE}/v2.2${path}`, {
    method,
    headers: {
      authorization: token.startsWith('svc_') ? `Basic ${btoa(`${token}:`)}` : `Bearer ${token}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as any }
}

async function tripWithBag(sandbox: Sandbox) {
  const trip = await sandbox.createTrip()
  const created = await call(sandbox, 'GET', `/trip/${trip.tripId}`, trip.tripAccessToken)
  const search = await call(
    sandbox,
    'GET',
    `/trip/${trip.tripId}/search/${created.body.search_id}`,
    trip.tripAccessToken,
  )
  const bag = Object.values<any>(search.body.results.products.bag).find(
    (p) => p.product_details.checked && p.price_and_availability.p1.available,
  )
  const added = await call(sandbox, 'PATCH', `/trip/${trip.tripId}/basket`, trip.tripAccessToken, [
    { product_id: bag.product_id, passenger_id: 'p1', quantity: 1 },
  ])
  assert.equal(added.status, 200)
  return { trip, basket: added.body }
}

test("a reload right after a change keeps the trip and its basket; the page's tokens still work", async () => {
  const storage = new MemoryStorage()
  const first = await createSandbox({ storage, storageKey: KEY, autoRunJobs: false })
  const { trip, basket } = await tripWithBag(first)
  // No timer, no await after the response: the save happened within the request.
  first.dispose()

  const second = await createSandbox({ storage, storageKey: KEY, autoRunJobs: false })
  try {
    const read = await call(second, 'GET', `/trip/${trip.tripId}/basket`, trip.tripAccessToken)
    assert.equal(read.status, 200, JSON.stringify(read.body))
    assert.deepEqual(read.body, basket, 'the same basket, the same trip_state_hash')
    // The refresh token too: the signing keys and the token family were kept.
    const refreshed = await second.fetch(`${BASE}/v2.2/refresh_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: trip.refreshToken }),
    })
    assert.equal(refreshed.status, 200)
    // One seller still, with the fixed key.
    assert.equal(second.store.snapshot().sellers.length, 1)
    assert.equal((await call(second, 'GET', `/trip/${trip.tripId}`, second.apiKey)).status, 200)
  } finally {
    second.dispose()
  }
})

test('jobs run by the sandbox are saved too: a check finished before the reload reads valid after it', async () => {
  const storage = new MemoryStorage()
  const first = await createSandbox({ storage, storageKey: KEY, autoRunJobs: false })
  const { trip } = await tripWithBag(first)
  assert.equal((await call(first, 'POST', `/trip/${trip.tripId}/basket/check`, first.apiKey)).status, 202)
  assert.ok((await first.runJobs()) >= 1)
  const second = await createSandbox({ storage, storageKey: KEY, autoRunJobs: false })
  const read = await call(second, 'GET', `/trip/${trip.tripId}/basket`, second.apiKey)
  assert.deepEqual(new Set(Object.values<any>(read.body.basket).map((i) => i.validity.status)), new Set(['valid']))
  assert.equal(await second.runJobs(), 0, 'the finished job is not run again')
})

test('reads are not saved; refused requests that change state are (a reused refresh token revokes its family)', async () => {
  const storage = new MemoryStorage()
  const first = await createSandbox({ storage, storageKey: KEY, autoRunJobs: false })
  const trip = await first.createTrip()
  const writes = storage.writes
  await call(first, 'GET', `/trip/${trip.tripId}/basket`, trip.tripAccessToken)
  assert.equal(storage.writes, writes, 'a GET writes nothing')
  const refresh = (s: Sandbox, token: string) =>
    s.fetch(`${BASE}/v2.2/refresh_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: token }),
    })
  const rotated = (await (await refresh(first, trip.refreshToken)).json()) as { refresh_token: string }
  assert.equal((await refresh(first, trip.refreshToken)).status, 401, 'reuse')
  const second = await createSandbox({ storage, storageKey: KEY, autoRunJobs: false })
  assert.equal((await refresh(second, rotated.refresh_token)).status, 401, 'the revocation survived the reload')
})

test('reset() forgets every trip and the persisted copy; a sandbox without a key persists nothing', async () => {
  const storage = new MemoryStorage()
  const sandbox = await createSandbox({ storage, storageKey: KEY, autoRunJobs: false })
  const trip = await sandbox.createTrip()
  await sandbox.reset()
  assert.equal(storage.getItem(KEY), null)
  assert.equal((await call(sandbox, 'GET', `/trip/${trip.tripId}`, sandbox.apiKey)).status, 404)
  assert.equal(sandbox.store.snapshot().trips.length, 0)
  // The fixed key still works after a reset, and in a fresh sandbox on the emptied storage.
  assert.equal((await sandbox.createTrip()).tripId.length, 36)
  const fresh = await createSandbox({ storage, storageKey: KEY, autoRunJobs: false })
  assert.equal(fresh.apiKey, 'svc_test_sandbox')

  const none = new MemoryStorage()
  const unsaved = await createSandbox({ storage: none, autoRunJobs: false })
  await unsaved.createTrip()
  assert.equal(none.items.size, 0)
})

test('unreadable saved state starts a fresh sandbox; a full storage keeps the newest trips', async () => {
  const storage = new MemoryStorage()
  storage.setItem(KEY, '{"version": 1, "snapshot": ')
  const sandbox = await createSandbox({ storage, storageKey: KEY, autoRunJobs: false })
  const old = await sandbox.createTrip()
  assert.ok(JSON.parse(storage.getItem(KEY)!).snapshot.trips.length === 1)

  // Room for the flights' seat maps (~40 KB, shared by every trip on them) and about three trips with
  // their searches (~10 KB each), not five.
  const perTrip =
    JSON.stringify(sandbox.store.snapshot().trips).length + JSON.stringify(sandbox.store.snapshot().searches).length
  storage.quota = storage.getItem(KEY)!.length + Math.round(2.5 * perTrip)
  const later = []
  for (let i = 0; i < 4; i++) later.push(await sandbox.createTrip())
  const saved = JSON.parse(storage.getItem(KEY)!).snapshot as { trips: Array<{ value: { trip_id: string } }> }
  const kept = saved.trips.map((t) => t.value.trip_id)
  assert.ok(kept.length >= 1 && kept.length <= 3, `kept ${kept.length}`)
  assert.ok(kept.includes(later.at(-1)!.tripId), 'the newest trip is kept')
  assert.ok(!kept.includes(old.tripId), 'the oldest went first')
  // In memory nothing was lost.
  assert.equal(sandbox.store.snapshot().trips.length, 5)
})
