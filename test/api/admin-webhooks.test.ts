/**
 * The admin API's webhooks (docs/operations.md) on SQLite and (with DATABASE_URL_PG) PostgreSQL: a receiver
 * that fails until the delivery is given up, each attempt visible with its status and the first 1 KB of the
 * answer, a resend that succeeds; a test event that arrives signed; and the security rules.
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { build, basic, bearer, body, assertProblem, type Built } from '../helpers/build.ts'
import { readSearch, checkedBag, addItems, fulfill, fulfillRequest, createTripOnFlight } from '../helpers/flows.ts'
import { verifyWebhook } from '../helpers/webhooks.ts'
import { sqlStores } from '../helpers/sql-stores.ts'
import { defaultConfig } from '../../core/core.ts'

// DATABASE_URL_PG: the runner starts PostgreSQL for this file (test/run-node.ts).
const stores = sqlStores('svc_admin_webhooks')

/** A receiver answering the statuses queued (then 200), each with a long body: only its first KB is kept. */
async function receiver() {
  const got: Array<{ headers: IncomingHttpHeaders; raw: string }> = []
  const queue: number[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      got.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') })
      const status = queue.shift() ?? 200
      res.writeHead(status, { 'content-type': 'text/plain' }).end(`${status} `.padEnd(3000, 'x'))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    got,
    answer: (...statuses: number[]) => queue.push(...statuses),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const get = (t: Built, url: string, key: string) =>
  t.app.inject({ method: 'GET', url, headers: { authorization: bearer(key) } })
const post = (t: Built, url: string, key: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url, headers: { authorization: bearer(key) }, ...(payload ? { payload } : {}) })
const ok = <T = any>(res: Awaited<ReturnType<typeof get>>): T => {
  assert.equal(res.statusCode, 200, res.body)
  return body<T>(res)
}

for (const [name, open] of stores) {
  describe(`admin webhooks on ${name}`, () => {
    const setup = async () => {
      const t = await build({
        store: await open(),
        config: {
          backoffBaseMs: 1000,
          backoffCapMs: 60_000,
          maxAttempts: { ...defaultConfig.maxAttempts, webhook: 2 },
        },
      })
      const r = await receiver()
      const other = await t.core.createSeller({ name: 'Other', origins: [], sandbox: true })
      const full = (await t.core.createOperatorKey({ name: 'ops' })).key
      const reader = (await t.core.createOperatorKey({ name: 'support', readOnly: true })).key
      const theirs = (await t.core.createOperatorKey({ name: 'their desk', sellerId: other.seller.seller_id })).key
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2.2/callback_subscription',
        headers: { authorization: basic(t.apiKey) },
        payload: { delivery_method: 'http', target: r.url, event_name: 'fulfillment_completed' },
      })
      assert.equal(res.statusCode, 201, res.body)
      const sub = body<{ subscription_id: string; secret: string }>(res)
      return { t, r, other, full, reader, theirs, sub }
    }

    test('a failing receiver: attempts with status and 1 KB, given up, counted, found by trip; a resend succeeds', async () => {
      const { t, r, full, reader, theirs, sub, other: theirsSeller } = await setup()
      try {
        const sellerId = t.seller.seller_id
        r.answer(500, 500)
        const trip = await createTripOnFlight(t, '117')
        const search = await readSearch(t, trip)
        const basket = await addItems(t, trip, [
          { product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' },
        ])
        assert.equal((await fulfill(t, trip, fulfillRequest(trip, basket.trip_state_hash))).statusCode, 202)
        await t.core.drainJobs()
        t.clock.advance(1000)
        await t.core.drainJobs()
        assert.equal(r.got.length, 2)

        const list = ok(await get(t, `/admin/v1/webhooks/deliveries?seller_id=${sellerId}`, full))
        assert.equal(list.data.length, 1)
        const d = list.data[0]
        assert.equal(d.state, 'given_up')
        assert.equal(d.trip_id, trip.trip_id)
        assert.equal(d.event_name, 'fulfillment_completed')
        assert.equal(d.subscription_id, sub.subscription_id)
        assert.equal(d.attempt_count, 2)
        assert.equal(d.last_attempt.status, 500)
        assert.equal(list.next_after, null)
        assert.deepEqual(ok(await get(t, '/admin/v1/webhooks/deliveries?state=succeeded', full)).data, [])
        // By trip: the trip's seller's deliveries of that trip; a trip not seen is not found.
        const byTrip = ok(await get(t, `/admin/v1/webhooks/deliveries?trip_id=${trip.trip_id}`, full))
        assert.deepEqual(
          byTrip.data.map((x: any) => x.delivery_id),
          [d.delivery_id],
        )
        const other = await createTripOnFlight(t, '117')
        assert.deepEqual(ok(await get(t, `/admin/v1/webhooks/deliveries?trip_id=${other.trip_id}`, full)).data, [])
        assert.deepEqual(
          ok(
            await get(
              t,
              `/admin/v1/webhooks/deliveries?trip_id=${trip.trip_id}&seller_id=${theirsSeller.seller.seller_id}`,
              full,
            ),
          ).data,
          [],
          'a trip of another seller than the one named has none',
        )
        assertProblem(await get(t, '/admin/v1/webhooks/deliveries?trip_id=nope', full), 404, 'not_found')
        assertProblem(await get(t, `/admin/v1/webhooks/deliveries?trip_id=${trip.trip_id}`, theirs), 404, 'not_found')
        const bad = assertProblem(
          await get(t, `/admin/v1/webhooks/deliveries?trip_id=${'t'.repeat(129)}&state=late`, full),
          400,
          'validation_error',
        )
        assert.deepEqual(bad.errors!.map((e) => e.path).sort(), ['/state', '/trip_id'])

        const shown = ok(await get(t, `/admin/v1/webhooks/deliveries/${d.delivery_id}`, full))
        assert.deepEqual(
          shown.attempts.map((a: any) => [a.attempt, a.status, a.error]),
          [
            [1, 500, null],
            [2, 500, null],
          ],
        )
        for (const a of shown.attempts) {
          assert.equal(a.response_body, '500 '.padEnd(1024, 'x'), 'the first 1 KB of the answer')
          assert.equal(typeof a.duration_ms, 'number')
        }
        assert.equal(shown.event.trip_id, trip.trip_id)
        assert.ok(!JSON.stringify(shown).includes(sub.secret), 'never the secret')

        const hooks = ok(await get(t, `/admin/v1/sellers/${sellerId}/webhooks`, full))
        assert.deepEqual(
          hooks.subscriptions.map((s: any) => [s.subscription_id, s.deliveries]),
          [[sub.subscription_id, { pending: 0, succeeded: 0, failed: 0, given_up: 1 }]],
        )
        assert.ok(!JSON.stringify(hooks).includes(sub.secret))

        // Security: another seller's key finds nothing of it; read-only keys write nothing.
        assertProblem(await get(t, `/admin/v1/webhooks/deliveries/${d.delivery_id}`, theirs), 404, 'not_found')
        assertProblem(await get(t, `/admin/v1/sellers/${sellerId}/webhooks`, theirs), 404, 'not_found')
        assertProblem(await get(t, `/admin/v1/webhooks/deliveries?seller_id=${sellerId}`, theirs), 404, 'not_found')
        assert.deepEqual(ok(await get(t, '/admin/v1/webhooks/deliveries', theirs)).data, [], 'its own seller only')
        assertProblem(await post(t, `/admin/v1/webhooks/deliveries/${d.delivery_id}/resend`, theirs), 404, 'not_found')
        assertProblem(await post(t, `/admin/v1/webhooks/deliveries/${d.delivery_id}/resend`, reader), 403, 'forbidden')
        assertProblem(await post(t, `/admin/v1/sellers/${sellerId}/webhooks/test`, reader), 403, 'forbidden')
        assertProblem(await get(t, '/admin/v1/webhooks/deliveries/nope', full), 404, 'not_found')

        // The resend: a new delivery of the same event, linked to the given-up one, signed with a fresh time.
        t.clock.advance(60_000)
        const resent = ok(await post(t, `/admin/v1/webhooks/deliveries/${d.delivery_id}/resend`, full))
        assert.equal(resent.resend_of, d.delivery_id)
        assert.equal(resent.state, 'pending')
        assert.notEqual(resent.delivery_id, d.delivery_id)
        await t.core.drainJobs()
        assert.equal(r.got.length, 3)
        const last = r.got[2]!
        assert.equal(JSON.parse(last.raw).event_id, shown.event_id, 'the same event')
        assert.ok(verifyWebhook(sub.secret, String(last.headers['svc-signature']), last.raw, t.clock.now().getTime()))
        assert.match(
          String(last.headers['svc-signature']),
          new RegExp(`^t=${Math.floor(t.clock.now().getTime() / 1000)},`),
        )
        const again = ok(await get(t, `/admin/v1/webhooks/deliveries/${resent.delivery_id}`, full))
        assert.equal(again.state, 'succeeded')
        assert.deepEqual(
          again.attempts.map((a: any) => [a.attempt, a.status]),
          [[1, 200]],
        )
        assert.equal((await get(t, `/admin/v1/webhooks/deliveries/${d.delivery_id}`, full)).json().state, 'given_up')
        assert.deepEqual(ok(await get(t, `/admin/v1/sellers/${sellerId}/webhooks`, full)).subscriptions[0].deliveries, {
          pending: 0,
          succeeded: 1,
          failed: 0,
          given_up: 1,
        })
      } finally {
        await r.close()
        await t.close()
      }
    })

    test('a test event reaches the receiver signed; security rules', async () => {
      const { t, r, full, reader, theirs, sub, other } = await setup()
      try {
        const sellerId = t.seller.seller_id
        const sent = ok(await post(t, `/admin/v1/sellers/${sellerId}/webhooks/test`, full, {}))
        assert.equal(sent.deliveries.length, 1)
        assert.equal(sent.deliveries[0].event_name, 'test_ping')
        await t.core.drainJobs()
        assert.equal(r.got.length, 1)
        const got = r.got[0]!
        const event = JSON.parse(got.raw)
        assert.equal(event.event_name, 'test_ping')
        assert.equal(got.headers['svc-event-name'], 'test_ping')
        assert.ok(verifyWebhook(sub.secret, String(got.headers['svc-signature']), got.raw, t.clock.now().getTime()))
        const d = ok(await get(t, `/admin/v1/webhooks/deliveries/${sent.deliveries[0].delivery_id}`, full))
        assert.equal(d.state, 'succeeded')
        assert.equal(d.trip_id, null)

        assertProblem(await post(t, `/admin/v1/sellers/${sellerId}/webhooks/test`, theirs), 404, 'not_found')
        assertProblem(await post(t, `/admin/v1/sellers/${sellerId}/webhooks/test`, reader), 403, 'forbidden')
        assertProblem(
          await post(t, `/admin/v1/sellers/${other.seller.seller_id}/webhooks/test`, full),
          404,
          'not_found',
        )
        assertProblem(
          await post(t, `/admin/v1/sellers/${sellerId}/webhooks/test`, full, { subscription_id: 'nope' }),
          404,
          'not_found',
        )
        // A seller's own key (and no key) is not an operator's.
        for (const headers of [{ authorization: basic(t.apiKey) }, { authorization: bearer(t.apiKey) }, {}]) {
          const res = await t.app.inject({ method: 'GET', url: `/admin/v1/sellers/${sellerId}/webhooks`, headers })
          assertProblem(res, 401, 'unauthorized')
        }
      } finally {
        await r.close()
        await t.close()
      }
    })
  })
}
