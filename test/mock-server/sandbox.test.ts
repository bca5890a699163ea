/**
 * The sandbox as a host: which requests its handlers take (only the API, on any origin or on `baseUrl`),
 * the in-page `fetch`, the default trip, and what it deliberately does differently from the server
 * (origins). Request-by-request equality with the server is test/parity's job.
 *
 * Then its persistence: the store kept in `storage` under `storageKey`, and kept across a reload.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { getResponse } from 'msw'
import { createSandbox, SANDBOX_API_KEY } from '../../mock-server/sandbox.ts'
import { defaultTripRequest } from '../../mock-server/fixtures.ts'
import { operations } from '../../core/api/operations.ts'
import { testClock, testIds } from '../helpers/build.ts'
import type { Sandbox } from '../../mock-server/types.ts'
import { patience } from '../helpers/patience.ts'

const auth = { authorization: `Basic ${btoa(`${SANDBOX_API_KEY}:`)}` }

test('one handler per operation (and HEAD for each GET), then the catch-all for /v2.2/', async () => {
  const sandbox = await createSandbox({ autoRunJobs: false })
  const gets = operations.filter((op) => op.method === 'GET').length
  assert.equal(sandbox.handlers.length, operations.length + gets + 1)
})

test('without baseUrl: any origin, API paths only; other requests are left alone', async () => {
  const sandbox = await createSandbox({ autoRunJobs: false })
  for (const origin of ['https://api.svc.example', 'http://localhost:3000', 'http://127.0.0.1:8080']) {
    const res = await getResponse(sandbox.handlers, new Request(`${origin}/v2.2/.well-known/jwks.json`))
    assert.equal(res?.status, 200, origin)
  }
  for (const url of [
    'https://shop.example/',
    'https://shop.example/javascript/v2.2/svc.min.js',
    'https://shop.example/api/v2.2/trip',
    'https://shop.example/v2.2',
  ]) {
    assert.equal(await getResponse(sandbox.handlers, new Request(url)), undefined, url)
  }
  const unknown = await getResponse(sandbox.handlers, new Request('https://shop.example/v2.2/nothing'))
  assert.equal(unknown?.status, 404)
})

test('with baseUrl: that origin only', async () => {
  const sandbox = await createSandbox({ baseUrl: 'https://api.svc.example/', autoRunJobs: false })
  assert.equal(
    (await getResponse(sandbox.handlers, new Request('https://api.svc.example/v2.2/.well-known/jwks.json')))?.status,
    200,
  )
  assert.equal(
    await getResponse(sandbox.handlers, new Request('https://other.example/v2.2/.well-known/jwks.json')),
    undefined,
  )
  assert.equal(await getResponse(sandbox.handlers, new Request('https://other.example/v2.2/nothing')), undefined)
  const t = await sandbox.createTrip()
  assert.equal(t.tripId.length, 36, 'createTrip goes through the base URL')
})

test('sandbox.fetch answers the API in the page and hands anything else to the real fetch', async () => {
  const real = globalThis.fetch
  const seen: string[] = []
  globalThis.fetch = (async (input: RequestInfo | URL) => {
    seen.push(input instanceof Request ? input.url : String(input))
    return new Response('from the network')
  }) as typeof fetch
  try {
    const sandbox = await createSandbox({ autoRunJobs: false })
    const api = await sandbox.fetch('http://anywhere.example/v2.2/callback_subscription', { headers: auth })
    assert.equal(api.status, 200)
    assert.deepEqual(await api.json(), { subscriptions: [] })
    const other = await sandbox.fetch('http://anywhere.example/locales/fr.json')
    assert.equal(await other.text(), 'from the network')
    assert.deepEqual(seen, ['http://anywhere.example/locales/fr.json'])
  } finally {
    globalThis.fetch = real
  }
})

test('origins are not checked (the server refuses an API key sent with an Origin; the sandbox has no CORS to enforce)', async () => {
  const sandbox = await createSandbox({ autoRunJobs: false })
  const res = await sandbox.fetch('http://sandbox.localhost/v2.2/trip', {
    method: 'POST',
    headers: { ...auth, origin: 'https://any.example', 'content-type': 'application/json' },
    body: JSON.stringify(defaultTripRequest(new Date())),
  })
  assert.equal(res.status, 201)
})

test('jobs: on the timer by default; by hand with autoRunJobs false; the injected clock drives 9004', async () => {
  const clock = testClock()
  const sandbox = await createSandbox({ clock, ids: testIds('counting'), autoRunJobs: false })
  const trip = await sandbox.createTrip({ flight: '9004' })
  const check = await sandbox.fetch(`http://x.test/v2.2/trip/${trip.tripId}/basket/check`, {
    method: 'POST',
    headers: auth,
  })
  assert.equal(check.status, 202)
  const statuses = async () => {
    const b = (await (
      await sandbox.fetch(`http://x.test/v2.2/trip/${trip.tripId}/basket`, { headers: auth })
    ).json()) as { basket: Record<string, { validity: { status: string } }> }
    return [...new Set(Object.values(b.basket).map((i) => i.validity.status))]
  }
  await sandbox.runJobs()
  assert.deepEqual(await statuses(), ['checking'])
  clock.advance(5_000)
  await sandbox.runJobs()
  assert.deepEqual(await statuses(), ['valid'])

  const timed = await createSandbox()
  try {
    const t = await timed.createTrip()
    await timed.fetch(`http://x.test/v2.2/trip/${t.tripId}/basket/check`, { method: 'POST', headers: auth })
    const deadline = Date.now() + patience(5_000)
    for (;;) {
      const b = (await (await timed.fetch(`http://x.test/v2.2/trip/${t.tripId}/basket`, { headers: auth })).json()) as {
        basket: Record<string, { validity: { status: string } }>
      }
      if (Object.values(b.basket).every((i) => i.validity.status === 'valid')) break
      assert.ok(Date.now() < deadline, 'the timer ran the check')
      await new Promise((r) => setTimeout(r, 50))
    }
  } finally {
    timed.dispose()
  }
})

// The sandbox keeps its store in `storage` (localStorage in a browser) under `storageKey`: saved at the end
// of every request that may change something, synchronously, so a reload right after a change keeps it.
// Here a Map stands in for localStorage, and "a reload" is a second sandbox on the same storage.
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
