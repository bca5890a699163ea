/**
 * A seller's backend test on the offline sandbox (docs/sandbox.md "Backend tests"): msw/node's setupServer with
 * `sandboxHandlers` answers the API for plain `fetch`, on any origin, with the fixed sandbox key; checks
 * and orders run on the sandbox's own timer, so the test polls exactly as a backend does in production.
 * The snippet in docs/sandbox.md is run too, so the documentation cannot rot.
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { setupServer } from 'msw/node'
import { sandboxHandlers, sandbox, defaultTripRequest } from '../../mock-server/index.ts'
import { verifySignature } from '../../core/shared/webhook-signature.ts'
import { CONTACT, FULFILL_PASSENGERS } from '../helpers/flows.ts'
import { patience } from '../helpers/patience.ts'

const msw = setupServer(...sandboxHandlers)
before(() => msw.listen({ onUnhandledRequest: 'error' }))
after(() => msw.close())

const API = 'https://api.svc.example/v2.2'

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: { authorization: `Basic ${btoa(`${sandbox.apiKey}:`)}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, headers: res.headers, body: res.status === 204 ? null : ((await res.json()) as any) }
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > end) throw new Error(`timed out; last value: ${JSON.stringify(value).slice(0, 500)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

test("the sandbox seller's key is fixed and documented", () => {
  assert.equal(sandbox.apiKey, 'svc_test_sandbox')
  assert.match(readFileSync(join(import.meta.dirname, '../../docs/sandbox.md'), 'utf8'), /svc_test_sandbox/)
})

test('a backend sells a bag on the sandbox: create, add, check, fulfill, poll until the order succeeds; webhooks recorded', async () => {
  const hooks = await call('POST', '/callback_subscription', {
    delivery_method: 'http',
    target: 'http://localhost:9999/hooks',
    event_name: 'order_status_changed',
  })
  assert.equal(hooks.status, 201)

  const created = await call('POST', '/trip', defaultTripRequest(new Date()))
  assert.equal(created.status, 201, JSON.stringify(created.body))
  assert.equal(created.headers.get('content-type'), 'application/json; charset=utf-8')
  assert.match(created.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
  const trip = created.body
  const search = await call('GET', `/trip/${trip.trip_id}/search/${trip.search_id}`)
  assert.equal(search.status, 200)
  const bag = Object.values<any>(search.body.results.products.bag).find(
    (p) => p.product_details.checked && p.price_and_availability.p1.available,
  )
  assert.ok(bag, 'a checked bag on offer')
  const added = await call('PATCH', `/trip/${trip.trip_id}/basket`, [
    { product_id: bag.product_id, passenger_id: 'p1', quantity: 1 },
  ])
  assert.equal(added.status, 200, JSON.stringify(added.body))

  assert.equal((await call('POST', `/trip/${trip.trip_id}/basket/check`)).status, 202)
  // No drainJobs here: the sandbox's timer runs the check, as the worker does behind the real API.
  const basket = await until(
    () => call('GET', `/trip/${trip.trip_id}/basket`).then((r) => r.body),
    (b) => Object.values<any>(b.basket).every((item) => item.validity.status !== 'checking'),
  )
  assert.deepEqual(new Set(Object.values<any>(basket.basket).map((i) => i.validity.status)), new Set(['valid']))

  const fulfilled = await call('POST', `/trip/${trip.trip_id}/fulfill`, {
    trip_state_hash: basket.trip_state_hash,
    passengers: FULFILL_PASSENGERS,
    contact_details: CONTACT,
    tickets: trip.tickets.map((t: { ticket_id: string }, i: number) => ({
      ticket_id: t.ticket_id,
      status: 'booked',
      access_details: { record_locator: 'ABC123', ticket_number: `125000000000${i}` },
    })),
    payment_details: { payment_type: 'service_settlement' },
  })
  assert.equal(fulfilled.status, 202, JSON.stringify(fulfilled.body))
  const done = await until(
    () => call('GET', `/trip/${trip.trip_id}`).then((r) => r.body),
    (t) => Object.values<any>(t.orders).every((o) => o.status === 'succeeded' || o.status === 'failed'),
  )
  assert.deepEqual(
    Object.values<any>(done.orders).map((o) => o.status),
    ['succeeded'],
  )

  // The webhooks the real service would POST, recorded with the same signed body and headers.
  const statusOf = (d: { event: { data: unknown } }) => (d.event.data as { order: { status: string } }).order.status
  // Deliveries are at least once and unordered (two jobs due in the same millisecond run in either
  // order), so the moves are compared as a set; receivers order by the event's order status and time.
  const moves = ['in_progress', 'succeeded']
  const mine = await until(
    async () => sandbox.deliveries.filter((d) => d.event.trip_id === trip.trip_id),
    (d) => moves.every((m) => d.some((x) => statusOf(x) === m)),
  )
  assert.deepEqual(mine.map(statusOf).sort(), moves)
  for (const d of mine) {
    assert.equal(d.target, 'http://localhost:9999/hooks')
    assert.ok(
      await verifySignature(hooks.body.secret, d.headers['svc-signature']!, d.body, new Date()),
      'the signature verifies with the subscription secret',
    )
  }
})

test('sandbox.createTrip: the default itinerary and the scenario flight numbers', async () => {
  const t = await sandbox.createTrip({ flight: '9003' })
  const res = await fetch(`${API}/trip/${t.tripId}`, { headers: { authorization: `Bearer ${t.tripAccessToken}` } })
  assert.equal(res.status, 200)
  const trip = (await res.json()) as {
    journeys: Array<{ segments: Array<{ marketing_flight_number: string }> }>
    passengers: unknown[]
  }
  assert.deepEqual(
    trip.journeys.flatMap((j) => j.segments.map((s) => s.marketing_flight_number)),
    ['9003', '9003'],
  )
  assert.equal(trip.passengers.length, 3)
})

test("the docs/sandbox.md snippet runs as a seller's test file", () => {
  const doc = readFileSync(join(import.meta.dirname, '../../docs/sandbox.md'), 'utf8')
  const block = /<!-- sandbox-backend-snippet[^>]*-->\s*```js\n([\s\S]*?)```/.exec(doc)?.[1]
  assert.ok(block, 'docs/sandbox.md has the backend snippet')
  assert.ok(block.includes("from 'svc-ancillaries/mock-server'"))
  // The package's own name resolves to the built file; here the source stands in for it.
  const file = join(import.meta.dirname, `.readme-snippet-${process.pid}.tmp.mjs`)
  writeFileSync(file, block.replace("'svc-ancillaries/mock-server'", "'../../mock-server/index.ts'"))
  try {
    // Without NODE_TEST_CONTEXT, or the inner run would report to this runner instead of its own stdout.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', file], {
      encoding: 'utf8',
      timeout: patience(60_000),
      env,
    })
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`)
    assert.match(r.stdout, /# pass 1/)
  } finally {
    rmSync(file, { force: true })
  }
})
