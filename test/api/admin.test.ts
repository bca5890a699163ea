/**
 * The operator's admin API (docs/operations.md) over app.inject, on SQLite and (with DATABASE_URL_PG)
 * PostgreSQL: every endpoint, every security rule (an operator key never on /v2.2, a seller key never on
 * /admin, a key of one seller finds the others' objects not found, a read-only key is refused writes,
 * nothing shows a key but a rotation's new one, a supplier token, or a card field), and bad input naming
 * each bad field.
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, bearer, body, assertProblem, type Built } from '../helpers/build.ts'
import { readSearch, checkedBag, addItems, fulfill, fulfillRequest, createTripOnFlight } from '../helpers/flows.ts'
import { sqlStores } from '../helpers/sql-stores.ts'
import { job } from '../store/contract.ts'

// DATABASE_URL_PG: the runner starts PostgreSQL for this file (test/run-node.ts).
const stores = sqlStores('svc_admin')

const get = (t: Built, url: string, key?: string) =>
  t.app.inject({ method: 'GET', url, headers: key ? { authorization: bearer(key) } : {} })
const post = (t: Built, url: string, key: string, payload?: unknown) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { authorization: bearer(key) },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  })
const ok = <T = any>(res: Awaited<ReturnType<typeof get>>): T => {
  assert.equal(res.statusCode, 200, res.body)
  assert.match(String(res.headers['content-type']), /^application\/json/)
  assert.equal(res.headers['cache-control'], 'no-store')
  return body<T>(res)
}

/** A fulfilled trip of the seller whose key this is: one checked bag ordered. */
async function book(built: Built, apiKey = built.apiKey) {
  // The flows act with `t.apiKey`: the same app, as this seller.
  const t = { ...built, apiKey }
  const trip = await createTripOnFlight(t, '117')
  const search = await readSearch(t, trip)
  const basket = await addItems(t, trip, [{ product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' }])
  const res = await fulfill(t, trip, fulfillRequest(trip, basket.trip_state_hash))
  assert.equal(res.statusCode, 202, res.body)
  return trip
}

for (const [name, open] of stores) {
  describe(`admin API on ${name}`, () => {
    const setup = async () => {
      const t = await build({ store: await open() })
      const other = await t.core.createSeller({ name: 'Other', origins: [], sandbox: true })
      const full = (await t.core.createOperatorKey({ name: 'ops' })).key
      const reader = (await t.core.createOperatorKey({ name: 'support', readOnly: true })).key
      const mine = (await t.core.createOperatorKey({ name: 'shop desk', sellerId: t.seller.seller_id })).key
      return { t, other, full, reader, mine }
    }

    test('sellers: list, show, and the seller CLI writes; nothing shows a key or a supplier token', async () => {
      const { t, other, full, reader, mine } = await setup()
      try {
        const list = ok(await get(t, '/admin/v1/sellers', full))
        assert.deepEqual(
          list.data.map((s: any) => s.seller_id).sort(),
          [t.seller.seller_id, other.seller.seller_id].sort(),
        )
        assert.equal(list.next_after, null)
        const first = ok(await get(t, '/admin/v1/sellers?limit=1', full))
        assert.equal(first.data.length, 1)
        const second = ok(await get(t, `/admin/v1/sellers?limit=1&after=${first.next_after}`, full))
        assert.notEqual(second.data[0].seller_id, first.data[0].seller_id, 'the next page goes on')
        assert.deepEqual(ok(await get(t, '/admin/v1/sellers', reader)).data.length, 2)
        assert.deepEqual(
          ok(await get(t, '/admin/v1/sellers', mine)).data.map((s: any) => s.seller_id),
          [t.seller.seller_id],
          'a key of one seller lists that one',
        )

        const shown = ok(await get(t, `/admin/v1/sellers/${t.seller.seller_id}`, full))
        assert.equal(shown.supplier.name, 'sandbox')
        assert.equal(shown.supplier.credentials_set, false)
        assert.deepEqual(shown.origins, ['https://shop.example'])
        assert.deepEqual(
          shown.keys.map((k: any) => k.state),
          ['active'],
        )
        assert.equal(shown.keys[0].prefix, t.apiKey.slice(0, 12))

        // rotate: the new key once, in this answer; the old one in its grace period.
        const rotated = ok(
          await post(t, `/admin/v1/sellers/${t.seller.seller_id}/rotate-key`, full, { grace_hours: 1 }),
        )
        assert.match(rotated.api_key, /^svc_test_/)
        const after = ok(await get(t, `/admin/v1/sellers/${t.seller.seller_id}`, full))
        assert.deepEqual(after.keys.map((k: any) => k.state).sort(), ['active', 'grace'])
        assert.ok(!JSON.stringify(after).includes(rotated.api_key), 'a key is shown once')
        // revoke the old one by prefix: revoked, and it stops working on /v2.2 (10 s at most: the sellers' cache).
        const revoked = ok(
          await post(t, `/admin/v1/sellers/${t.seller.seller_id}/revoke-key`, full, { prefix: t.apiKey.slice(0, 12) }),
        )
        assert.equal(revoked.revoked[0].prefix, t.apiKey.slice(0, 12))
        t.clock.advance(10_000)
        assertProblem(
          await t.app.inject({ method: 'POST', url: '/v2.2/authorize', headers: { authorization: basic(t.apiKey) } }),
          401,
          'unauthorized',
        )
        assert.deepEqual(
          ok(await get(t, `/admin/v1/sellers/${t.seller.seller_id}`, full))
            .keys.map((k: any) => k.state)
            .sort(),
          ['active', 'revoked'],
        )
        // disable and enable, as the CLI does (the same service): the seller's key is refused meanwhile.
        const disabled = ok(await post(t, `/admin/v1/sellers/${t.seller.seller_id}/disable`, full))
        assert.equal(disabled.changed, true)
        assert.equal(disabled.seller.disabled, true)
        assertProblem(
          await t.app.inject({
            method: 'POST',
            url: '/v2.2/authorize',
            headers: { authorization: basic(rotated.api_key) },
          }),
          403,
          'seller_disabled',
        )
        assert.equal(ok(await post(t, `/admin/v1/sellers/${t.seller.seller_id}/disable`, full)).changed, false)
        assert.equal(ok(await post(t, `/admin/v1/sellers/${t.seller.seller_id}/enable`, full)).seller.disabled, false)
        assert.equal(
          (
            await t.app.inject({
              method: 'POST',
              url: '/v2.2/authorize',
              headers: { authorization: basic(rotated.api_key) },
            })
          ).statusCode,
          200,
        )
        assertProblem(await get(t, '/admin/v1/sellers/nobody', full), 404, 'not_found')
      } finally {
        await t.close()
      }
    })

    test('trips and orders: by seller, by record locator, one trip as stored with its orders; no card field', async () => {
      const { t, other, full, mine } = await setup()
      try {
        const trip = await book(t)
        const theirs = await book(t, other.apiKey)
        const all = ok(await get(t, '/admin/v1/trips', full))
        assert.deepEqual(all.data.map((x: any) => x.trip_id).sort(), [trip.trip_id, theirs.trip_id].sort())
        const mineOnly = ok(await get(t, `/admin/v1/trips?seller_id=${t.seller.seller_id}`, full))
        assert.deepEqual(
          mineOnly.data.map((x: any) => x.trip_id),
          [trip.trip_id],
        )
        const locator = mineOnly.data[0].record_locators[0] as string
        assert.match(locator, /^[A-Z0-9]+$/)
        const byLocator = ok(await get(t, `/admin/v1/trips?record_locator=${locator}`, full))
        assert.deepEqual(byLocator.data.map((x: any) => x.trip_id).sort(), [trip.trip_id, theirs.trip_id].sort())
        assert.deepEqual(
          ok(await get(t, `/admin/v1/trips?record_locator=${locator}`, mine)).data.map((x: any) => x.trip_id),
          [trip.trip_id],
          'a key of one seller finds its trips only',
        )
        const paged = ok(await get(t, '/admin/v1/trips?limit=1', full))
        assert.equal(paged.data.length, 1)
        assert.equal(paged.next_after, paged.data[0].trip_id)

        const shown = ok(await get(t, `/admin/v1/trips/${trip.trip_id}`, full))
        assert.equal(shown.trip.trip_id, trip.trip_id)
        assert.equal(typeof shown.version, 'number')
        assert.equal(shown.orders.length, 1)
        assert.equal(shown.orders[0].status, 'queued')
        const text = JSON.stringify(shown)
        for (const secret of [
          'card_number',
          'cvv',
          'cvc',
          'expiry',
          t.apiKey,
          trip.trip_access_token,
          trip.refresh_token,
        ])
          assert.ok(!text.includes(secret), `no ${secret.slice(0, 12)} in a trip`)

        // Orders: every seller's, by status, by seller; a failed one by its reason.
        await t.core.drainJobs()
        const orders = ok(await get(t, '/admin/v1/orders', full))
        assert.equal(orders.data.length, 2)
        assert.ok(orders.data.every((o: any) => typeof o.seller_id === 'string' && typeof o.order_id === 'string'))
        const status = orders.data[0].status as string
        assert.equal(ok(await get(t, `/admin/v1/orders?status=${status}`, full)).data.length, 2)
        assert.equal(ok(await get(t, '/admin/v1/orders?status=cancelled', full)).data.length, 0)
        assert.equal(ok(await get(t, '/admin/v1/orders?failure_reason=supplier_refused', full)).data.length, 0)
        assert.deepEqual(
          ok(await get(t, `/admin/v1/orders?seller_id=${other.seller.seller_id}`, full)).data.map(
            (o: any) => o.trip_id,
          ),
          [theirs.trip_id],
        )
        assert.deepEqual(
          ok(await get(t, '/admin/v1/orders', mine)).data.map((o: any) => o.trip_id),
          [trip.trip_id],
        )

        // A key of one seller: the other seller's objects are not found, never forbidden.
        assertProblem(await get(t, `/admin/v1/trips/${theirs.trip_id}`, mine), 404, 'not_found')
        assertProblem(await get(t, `/admin/v1/sellers/${other.seller.seller_id}`, mine), 404, 'not_found')
        assertProblem(await get(t, `/admin/v1/trips?seller_id=${other.seller.seller_id}`, mine), 404, 'not_found')
        assertProblem(await get(t, `/admin/v1/orders?seller_id=${other.seller.seller_id}`, mine), 404, 'not_found')
        assertProblem(await post(t, `/admin/v1/sellers/${other.seller.seller_id}/disable`, mine), 404, 'not_found')
        assertProblem(await get(t, '/admin/v1/trips/no-such-trip', full), 404, 'not_found')
      } finally {
        await t.close()
      }
    })

    test('jobs: counts by kind and state, dead jobs with their last error, a retry', async () => {
      const { t, full, reader, mine } = await setup()
      try {
        await t.store.enqueueJob(
          job('dead-1', { kind: 'webhook', status: 'dead', attempts: 8, max_attempts: 8, last_error: 'HTTP 503' }),
        )
        const counts = ok(await get(t, '/admin/v1/jobs', full)).counts
        assert.deepEqual(
          counts.find((c: any) => c.kind === 'webhook' && c.status === 'dead'),
          { kind: 'webhook', status: 'dead', count: 1 },
        )
        const dead = ok(await get(t, '/admin/v1/jobs/dead', reader))
        assert.deepEqual(
          dead.data.map((j: any) => [j.job_id, j.last_error]),
          [['dead-1', 'HTTP 503']],
        )
        assert.equal(dead.data[0].payload, undefined, 'no payload')
        assertProblem(await post(t, '/admin/v1/jobs/dead-1/retry', reader), 403, 'forbidden')
        assertProblem(await get(t, '/admin/v1/jobs', mine), 403, 'forbidden')
        const retried = ok(await post(t, '/admin/v1/jobs/dead-1/retry', full))
        assert.equal(retried.status, 'pending')
        assert.equal(retried.max_attempts, 9)
        assert.deepEqual(ok(await get(t, '/admin/v1/jobs/dead', full)).data, [])
        assertProblem(await post(t, '/admin/v1/jobs/dead-1/retry', full), 404, 'not_found')
      } finally {
        await t.close()
      }
    })

    test('keys: none, a seller key, a revoked key are 401; an operator key is 401 on /v2.2; read-only is 403', async () => {
      const { t, full, reader } = await setup()
      try {
        assertProblem(await get(t, '/admin/v1/sellers'), 401, 'unauthorized')
        assertProblem(
          await t.app.inject({
            method: 'GET',
            url: '/admin/v1/sellers',
            headers: { authorization: basic(t.apiKey) },
          }),
          401,
          'unauthorized',
        )
        assertProblem(await get(t, '/admin/v1/sellers', t.apiKey), 401, 'unauthorized')
        assertProblem(await get(t, '/admin/v1/sellers', 'svc_op_guessed-key-0000000000000000'), 401, 'unauthorized')
        assertProblem(
          await t.app.inject({ method: 'POST', url: '/v2.2/authorize', headers: { authorization: bearer(full) } }),
          401,
          'unauthorized',
        )
        assertProblem(
          await t.app.inject({ method: 'POST', url: '/v2.2/authorize', headers: { authorization: basic(full) } }),
          401,
          'unauthorized',
        )
        for (const write of ['rotate-key', 'revoke-key', 'disable', 'enable'])
          assertProblem(await post(t, `/admin/v1/sellers/${t.seller.seller_id}/${write}`, reader), 403, 'forbidden')
        const listed = await t.core.listOperatorKeys()
        await t.core.revokeOperatorKey(listed.find((k) => k.name === 'ops')!.key_id)
        assertProblem(await get(t, '/admin/v1/sellers', full), 401, 'unauthorized')
        const problem = assertProblem(await get(t, '/admin/v1/sellers', full), 401, 'unauthorized')
        assert.ok(!JSON.stringify(problem).includes(full))
      } finally {
        await t.close()
      }
    })

    test('bad input: one validation_error naming every bad field', async () => {
      const { t, full } = await setup()
      try {
        const q = assertProblem(
          await get(t, '/admin/v1/orders?status=lost&limit=0&after=%20&colour=red', full),
          400,
          'validation_error',
        )
        assert.deepEqual(q.errors!.map((e) => e.path).sort(), ['/after', '/colour', '/limit', '/status'])
        const trips = assertProblem(
          await get(t, '/admin/v1/trips?record_locator=AB-12&limit=201', full),
          400,
          'validation_error',
        )
        assert.deepEqual(trips.errors!.map((e) => e.path).sort(), ['/limit', '/record_locator'])
        const b = assertProblem(
          await post(t, `/admin/v1/sellers/${t.seller.seller_id}/revoke-key`, full, {
            prefix: '',
            end_trip_tokens: 'yes',
            extra: 1,
          }),
          400,
          'validation_error',
        )
        assert.deepEqual(b.errors!.map((e) => e.path).sort(), ['/end_trip_tokens', '/extra', '/prefix'])
        const r = assertProblem(
          await post(t, `/admin/v1/sellers/${t.seller.seller_id}/rotate-key`, full, { grace_hours: -1 }),
          400,
          'validation_error',
        )
        assert.deepEqual(
          r.errors!.map((e) => e.path),
          ['/grace_hours'],
        )
      } finally {
        await t.close()
      }
    })

    test('its own OpenAPI document, apart from the public one', async () => {
      const { t } = await setup()
      try {
        const res = await get(t, '/admin/v1/openapi.json')
        assert.equal(res.statusCode, 200)
        const doc = body(res)
        assert.equal(doc.openapi, '3.1.0')
        for (const path of [
          '/admin/v1/sellers',
          '/admin/v1/sellers/{seller_id}',
          '/admin/v1/sellers/{seller_id}/rotate-key',
          '/admin/v1/sellers/{seller_id}/revoke-key',
          '/admin/v1/sellers/{seller_id}/disable',
          '/admin/v1/sellers/{seller_id}/enable',
          '/admin/v1/trips',
          '/admin/v1/trips/{trip_id}',
          '/admin/v1/orders',
          '/admin/v1/jobs',
          '/admin/v1/jobs/dead',
          '/admin/v1/jobs/{job_id}/retry',
        ])
          assert.ok(doc.paths[path], path)
        const publicDoc = body((await get(t, '/v2.2/openapi.json')) as any)
        assert.ok(!Object.keys(publicDoc.paths).some((p) => p.startsWith('/admin')), 'not in the public document')
      } finally {
        await t.close()
      }
    })
  })
}
