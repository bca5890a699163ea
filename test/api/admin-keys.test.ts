/**
 * The operator keys' limits on every admin route, table-driven from the admin API's own OpenAPI document
 * (GET /admin/v1/openapi.json), so a new route cannot be forgotten: the table below must classify every
 * operation the document has, and only those.
 * - a read-only key: every write is 403 and changes nothing in the store; every read answers;
 * - a key of another seller: every object of this seller is 404 (never 403: it learns nothing of them), a
 *   list filtered by this seller too, an unfiltered list shows none of them, the job queue (every seller's)
 *   is 403; none of it changes anything;
 * - the same requests with this seller's own key (or an unlimited one, for the job queue) answer 2xx, so the
 *   refusals above are the key's and not a wrong id's;
 * - a seller's key (Basic and Bearer) and a trip token are 401 on every admin route, and an operator key is
 *   401 on every operation of the public API that takes credentials (core/api/operations.ts).
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { assertProblem, basic, bearer, body, build, type Built } from '../helpers/build.ts'
import { addItems, checkedBag, createTripOnFlight, fulfill, fulfillRequest, readSearch } from '../helpers/flows.ts'
import { operations } from '../../core/api/operations.ts'
import { job } from '../store/fixtures.ts'

/** How a key of another seller is answered: 404, 403 (the job queue is every seller's), or a list without this seller's. */
type Limited = 404 | 403 | 'filtered'
interface Case {
  query?: string
  body?: Record<string, unknown>
  limited: Limited
}

/** Every admin operation by its operationId, with the requests that aim it at this seller's objects. */
const ROUTES: Record<string, Case[]> = {
  listSellers: [{ limited: 'filtered' }],
  showSeller: [{ limited: 404 }],
  rotateSellerKey: [{ body: { grace_hours: 1 }, limited: 404 }],
  revokeSellerKey: [{ body: {}, limited: 404 }],
  disableSeller: [{ limited: 404 }],
  enableSeller: [{ limited: 404 }],
  findTrips: [{ limited: 'filtered' }, { query: 'seller_id=$seller_id', limited: 404 }],
  showTrip: [{ limited: 404 }],
  tripEvents: [{ limited: 404 }],
  tripSupplierCalls: [{ limited: 404 }],
  supplierHealth: [{ limited: 404 }],
  findOrders: [{ limited: 'filtered' }, { query: 'seller_id=$seller_id', limited: 404 }],
  // Counts, no ids: unfiltered, a key of another seller counts its own seller's orders alone.
  ordersByHour: [{ limited: 'filtered' }, { query: 'seller_id=$seller_id', limited: 404 }],
  jobCounts: [{ limited: 403 }],
  deadJobs: [{ limited: 403 }],
  retryJob: [{ limited: 403 }],
  sellerWebhooks: [{ limited: 404 }],
  findDeliveries: [
    { limited: 'filtered' },
    { query: 'seller_id=$seller_id', limited: 404 },
    { query: 'trip_id=$trip_id', limited: 404 },
  ],
  showDelivery: [{ limited: 404 }],
  resendDelivery: [{ limited: 404 }],
  sendTestWebhook: [{ body: {}, limited: 404 }],
}

interface Route {
  id: string
  method: 'GET' | 'POST'
  url: string
  body?: Record<string, unknown>
  limited: Limited
}

/** This seller's objects, one of each kind an admin route names: a booked trip, a delivery, a dead job. */
async function world() {
  const t = await build()
  const other = await t.otherSeller()
  const key = async (o: { readOnly?: boolean; sellerId?: string }) =>
    (await t.core.createOperatorKey({ name: 'k', ...o })).key
  const keys = {
    full: await key({}),
    reader: await key({ readOnly: true }),
    mine: await key({ sellerId: t.seller.seller_id }),
    theirs: await key({ sellerId: other.seller.seller_id }),
  }
  const trip = await createTripOnFlight(t, '117')
  const search = await readSearch(t, trip)
  const basket = await addItems(t, trip, [{ product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' }])
  assert.equal((await fulfill(t, trip, fulfillRequest(trip, basket.trip_state_hash))).statusCode, 202)
  await t.core.drainJobs()
  const sub = await t.app.inject({
    method: 'POST',
    url: '/v2.2/callback_subscription',
    headers: { authorization: basic(t.apiKey) },
    payload: { delivery_method: 'http', target: 'https://hooks.shop.example/svc', event_name: 'fulfillment_completed' },
  })
  assert.equal(sub.statusCode, 201, sub.body)
  const sent = await t.app.inject({
    method: 'POST',
    url: `/admin/v1/sellers/${t.seller.seller_id}/webhooks/test`,
    headers: { authorization: bearer(keys.full) },
  })
  assert.equal(sent.statusCode, 200, sent.body)
  await t.store.enqueueJob(
    job('dead-1', { kind: 'admin_keys_probe', status: 'dead', attempts: 1, max_attempts: 1, payload: {} }),
  )
  const ids: Record<string, string> = {
    seller_id: t.seller.seller_id,
    trip_id: trip.trip_id,
    delivery_id: body(sent).deliveries[0].delivery_id,
    job_id: 'dead-1',
  }
  return { t, other, keys, ids, trip, subscriptionId: body(sub).subscription_id as string }
}

/** Every request of the table, from the served document; fails on an operation the table does not classify. */
async function routes(t: Built, ids: Record<string, string>): Promise<Route[]> {
  const doc = body((await t.app.inject({ method: 'GET', url: '/admin/v1/openapi.json' })) as any)
  const out: Route[] = []
  const seen: string[] = []
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      seen.push(op.operationId)
      const cases = ROUTES[op.operationId]
      assert.ok(cases, `${method.toUpperCase()} ${path} (${op.operationId}) is not classified in ROUTES`)
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
        assert.ok(ids[name], `no object for {${name}}`)
        return ids[name]!
      })
      for (const c of cases)
        out.push({
          id: op.operationId,
          method: method.toUpperCase() as Route['method'],
          url: c.query ? `${url}?${c.query.replace(/\$(\w+)/g, (_, n: string) => ids[n]!)}` : url,
          ...(c.body ? { body: c.body } : {}),
          limited: c.limited,
        })
    }
  }
  assert.deepEqual(seen.sort(), Object.keys(ROUTES).sort(), 'ROUTES classifies exactly the served operations')
  return out
}

const send = (t: Built, r: Route, authorization: string) =>
  t.app.inject({
    method: r.method,
    url: r.url,
    headers: { authorization },
    ...(r.body ? { payload: r.body } : {}),
  })

test('a read-only key: every write is 403 and changes nothing, every read answers', async () => {
  const { t, keys, ids } = await world()
  try {
    const all = await routes(t, ids)
    assert.ok(all.some((r) => r.method === 'POST'))
    for (const r of all) {
      const before = t.snapshot()
      const res = await send(t, r, bearer(keys.reader))
      if (r.method === 'POST') {
        assertProblem(res, 403, 'forbidden')
        assert.deepStrictEqual(t.snapshot(), before, `${r.id}: a refused write changed the store`)
      } else assert.equal(res.statusCode, 200, `${r.id} ${r.url}: ${res.body}`)
    }
  } finally {
    await t.close()
  }
})

test("a key of another seller: this seller's objects are 404, the job queue 403, lists show none of them; nothing changes", async () => {
  const { t, keys, ids } = await world()
  try {
    const all = await routes(t, ids)
    for (const r of all) {
      const before = t.snapshot()
      const res = await send(t, r, bearer(keys.theirs))
      const what = `${r.id} ${r.method} ${r.url}`
      if (r.limited === 'filtered') {
        assert.equal(res.statusCode, 200, `${what}: ${res.body}`)
        const text = res.body
        for (const [name, id] of Object.entries(ids)) assert.ok(!text.includes(id), `${what} shows ${name} ${id}`)
      } else assertProblem(res, r.limited, r.limited === 404 ? 'not_found' : 'forbidden')
      assert.deepStrictEqual(t.snapshot(), before, `${what}: a refusal changed the store`)
    }

    // The same requests with this seller's own key (the job queue: an unlimited key) answer: the ids were right.
    const reads = all.filter((r) => r.method === 'GET')
    const writes = all.filter((r) => r.method === 'POST')
    for (const r of [...reads, ...writes]) {
      const before = t.snapshot()
      const res = await send(t, r, bearer(r.limited === 403 ? keys.full : keys.mine))
      assert.equal(res.statusCode, 200, `${r.id} ${r.method} ${r.url}: ${res.body}`)
      if (r.limited === 'filtered')
        assert.ok(
          // A list, or orders counted by hour.
          (body(res).data?.length ?? body(res).orders) > 0,
          `${r.id}: this seller's key lists its own`,
        )
      // What the comparisons above would have seen: a write that answers changes the store.
      if (r.method === 'POST') assert.notDeepStrictEqual(t.snapshot(), before, `${r.id} changed nothing`)
    }
  } finally {
    await t.close()
  }
})

test('keys never cross: seller keys and trip tokens are 401 on every admin route, an operator key on every /v2.2 operation', async () => {
  const { t, keys, ids, trip, subscriptionId } = await world()
  try {
    const refused = [
      ['Basic, seller key', basic(t.apiKey)],
      ['Bearer, seller key', bearer(t.apiKey)],
      ['Bearer, trip token', bearer(trip.trip_access_token)],
    ] as const
    for (const r of await routes(t, ids))
      for (const [label, authorization] of refused) {
        const before = t.snapshot()
        assertProblem(await send(t, r, authorization), 401, 'unauthorized')
        assert.deepStrictEqual(t.snapshot(), before, `${r.id} with ${label} changed the store`)
      }

    const params: Record<string, string> = {
      trip_id: trip.trip_id,
      search_id: trip.search_id!,
      basket_item_id: (trip.tickets as Array<{ basket_item_id: string }>)[0]!.basket_item_id,
      subscription_id: subscriptionId,
    }
    const secured = operations.filter((op) => op.auth !== 'public')
    assert.ok(secured.length > 10)
    for (const op of secured) {
      const url = op.path.replace(/:(\w+)/g, (_, name: string) => {
        assert.ok(params[name], `${op.id}: no id for :${name}`)
        return params[name]!
      })
      for (const authorization of [bearer(keys.full), basic(keys.full)]) {
        const before = t.snapshot()
        const res = await t.app.inject({
          method: op.method,
          url,
          headers: { authorization },
          ...(op.body ? { payload: {} } : {}),
        })
        assertProblem(res, 401, 'unauthorized')
        assert.deepStrictEqual(t.snapshot(), before, `${op.id} with an operator key changed the store`)
      }
    }
  } finally {
    await t.close()
  }
})
