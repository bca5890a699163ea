/**
 * The sandbox as a host: which requests its handlers take (only the API, on any origin or on `baseUrl`),
 * the in-page `fetch`, the default trip, and what it deliberately does differently from the server
 * (origins). Request-by-request equality with the server is test/parity's job.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { getResponse } from 'msw'
import { createSandbox, SANDBOX_API_KEY } from '../../mock-server/sandbox.ts'
import { defaultTripRequest } from '../../mock-server/fixtures.ts'
import { operations } from '../../core/api/operations.ts'
import { testClock, testIds } from '../helpers/build.ts'

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
    const deadline = Date.now() + 5_000
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
