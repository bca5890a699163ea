/**
 * The admin API's time series for the console's charts, on SQLite and (with DATABASE_URL_PG) PostgreSQL:
 * supplier health's 5-minute buckets hold the same calls as its totals, orders by hour counts each order
 * once in the hour of its last change by its status now, of one seller or every one; a key of one seller
 * sees its own only and finds another seller not found; bad input names every bad field; the OpenAPI
 * document lists the new endpoint.
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { build, bearer, body, assertProblem, type Built } from '../helpers/build.ts'
import { sqlStores } from '../helpers/sql-stores.ts'
import type { OrderFeedItem, TripEventInput } from '../../core/ports/records.ts'
import { feedOrder, trip, tripWithOrders } from '../store/fixtures.ts'

// DATABASE_URL_PG: the runner starts PostgreSQL for this file (test/run-node.ts).
const stores = sqlStores('svc_admin_charts')

const NOW = '2030-06-01T12:00:00.000Z'
const minutesAgo = (m: number) => new Date(Date.parse(NOW) - m * 60_000).toISOString()

const get = (t: Built, url: string, key: string) =>
  t.app.inject({ method: 'GET', url, headers: { authorization: bearer(key) } })
const ok = (res: Awaited<ReturnType<typeof get>>) => {
  assert.equal(res.statusCode, 200, res.body)
  assert.equal(res.headers['cache-control'], 'no-store')
  return body<any>(res)
}

const call = (
  trip_id: string,
  seller_id: string,
  minutes: number,
  duration_ms: number,
  outcome = 'ok',
): TripEventInput => ({
  trip_id,
  seller_id,
  at: minutesAgo(minutes),
  kind: 'supplier_call',
  detail: { method: 'searchProducts', path: 'sandbox', status: null, duration_ms, outcome, operation: 'search' },
})

for (const [name, open] of stores) {
  describe(`admin API charts on ${name}`, () => {
    const setup = async () => {
      const t = await build({ store: await open() })
      t.clock.set(NOW)
      const other = await t.core.createSeller({ name: 'Other', origins: [], sandbox: true })
      const full = (await t.core.createOperatorKey({ name: 'ops' })).key
      const mine = (await t.core.createOperatorKey({ name: 'shop desk', sellerId: t.seller.seller_id })).key
      return { t, otherId: other.seller.seller_id, full, mine }
    }

    test('supplier health: the last hour in twelve 5-minute buckets, the same calls as its totals', async () => {
      const { t, otherId, full, mine } = await setup()
      try {
        const seller = t.seller.seller_id
        await t.store.insertTrip(trip('trip_chart', seller))
        await t.store.insertTrip(trip('trip_other', otherId))
        await t.store.appendTripEvents([
          call('trip_chart', seller, 70, 999), // before the hour: nowhere
          call('trip_chart', seller, 50, 100),
          call('trip_chart', seller, 49, 300, 'supplier_timeout'),
          call('trip_chart', seller, 48, 200),
          call('trip_chart', seller, 2, 40, 'supplier_unavailable'),
          call('trip_chart', seller, 0, 60), // this very moment: the last bucket
          call('trip_other', otherId, 10, 5000),
        ])
        const h = ok(await get(t, `/admin/v1/sellers/${seller}/supplier-health`, full))
        assert.equal(h.since, minutesAgo(60))
        assert.equal(h.calls, 5)
        assert.equal(h.errors, 2)
        assert.deepEqual(h.errors_by_reason, { supplier_timeout: 1, supplier_unavailable: 1 })
        assert.equal(h.bucket_minutes, 5)
        assert.equal(h.buckets.length, 12)
        assert.deepEqual(
          h.buckets.map((b: any) => b.start),
          Array.from({ length: 12 }, (_, i) => minutesAgo(60 - 5 * i)),
        )
        const empty = { calls: 0, errors: 0, p50_ms: null, p95_ms: null }
        assert.deepEqual(
          h.buckets.map(({ start: _s, ...figures }: any) => figures),
          [
            empty,
            empty,
            { calls: 3, errors: 1, p50_ms: 200, p95_ms: 300 },
            ...Array.from({ length: 8 }, () => empty),
            { calls: 2, errors: 1, p50_ms: 40, p95_ms: 60 },
          ],
        )
        assert.equal(
          h.buckets.reduce((n: number, b: any) => n + b.calls, 0),
          h.calls,
          'the buckets add up to the total',
        )
        // A key of this seller sees it; of another seller, not found.
        assert.equal(ok(await get(t, `/admin/v1/sellers/${seller}/supplier-health`, mine)).calls, 5)
        assert.equal((await get(t, `/admin/v1/sellers/${otherId}/supplier-health`, mine)).statusCode, 404)
      } finally {
        await t.close()
      }
    })

    test('orders by hour: each order once, in the hour of its last change, by its status now', async () => {
      const { t, otherId, full, mine } = await setup()
      try {
        const seller = t.seller.seller_id
        const order = (id: string, status: OrderFeedItem['status'], minutes: number) =>
          feedOrder(`trip_${id}`, id, { status, updated_at: minutesAgo(minutes) })
        const put = async (sellerId: string, o: OrderFeedItem) =>
          t.store.insertTrip(tripWithOrders(o.trip_id, sellerId, [o]), { orders: [o] })
        await put(seller, order('o_old', 'succeeded', 25 * 60)) // before the day: nowhere
        await put(seller, order('o_fail', 'failed', 23 * 60 + 30))
        await put(seller, order('o_ok', 'succeeded', 23 * 60 + 10))
        await put(seller, order('o_q', 'queued', 30))
        await put(otherId, order('o_theirs', 'cancelled', 90))

        const all = ok(await get(t, '/admin/v1/orders/by-hour', full))
        assert.equal(all.seller_id, null)
        assert.equal(all.since, minutesAgo(24 * 60))
        assert.equal(all.bucket_minutes, 60)
        assert.equal(all.orders, 4)
        assert.equal(all.truncated, false)
        assert.equal(all.buckets.length, 24)
        assert.deepEqual(
          Object.keys(all.buckets[0].counts),
          ['awaiting_ticketing', 'queued', 'in_progress', 'succeeded', 'failed', 'cancelling', 'cancelled'],
          'every status, counted or not',
        )
        const nonZero = (r: any) =>
          r.buckets.flatMap((b: any, i: number) =>
            Object.entries(b.counts)
              .filter(([, n]) => n)
              .map(([s, n]) => `${i} ${s} ${n}`),
          )
        assert.deepEqual(nonZero(all), ['0 succeeded 1', '0 failed 1', '22 cancelled 1', '23 queued 1'])

        const one = ok(await get(t, `/admin/v1/orders/by-hour?seller_id=${seller}`, full))
        assert.equal(one.seller_id, seller)
        assert.deepEqual(nonZero(one), ['0 succeeded 1', '0 failed 1', '23 queued 1'])

        // A key of one seller: its own without asking, and another seller not found.
        const own = ok(await get(t, '/admin/v1/orders/by-hour', mine))
        assert.equal(own.seller_id, seller)
        assert.deepEqual(nonZero(own), nonZero(one))
        assert.equal((await get(t, `/admin/v1/orders/by-hour?seller_id=${otherId}`, mine)).statusCode, 404)
        assert.equal((await get(t, '/admin/v1/orders/by-hour?seller_id=nobody', full)).statusCode, 404)
        assert.equal((await get(t, '/admin/v1/orders/by-hour', 'svc_op_nope')).statusCode, 401)

        // Bad input: every bad field named, as problem+json.
        const bad = assertProblem(
          await get(t, `/admin/v1/orders/by-hour?seller_id=${'s'.repeat(129)}&hours=48`, full),
          400,
          'validation_error',
        )
        assert.deepEqual(bad.errors!.map((e) => e.path).sort(), ['/hours', '/seller_id'])
      } finally {
        await t.close()
      }
    })

    test('the admin OpenAPI document lists orders by hour with its query', async () => {
      const { t } = await setup()
      try {
        const doc = body<any>(await t.app.inject({ method: 'GET', url: '/admin/v1/openapi.json' }))
        const op = doc.paths['/admin/v1/orders/by-hour']?.get
        assert.equal(op?.operationId, 'ordersByHour')
        assert.deepEqual(
          op.parameters.map((p: any) => [p.name, p.in, p.required]),
          [['seller_id', 'query', false]],
        )
        assert.match(doc.paths['/admin/v1/sellers/{seller_id}/supplier-health'].get.summary, /5-minute buckets/)
      } finally {
        await t.close()
      }
    })
  })
}
