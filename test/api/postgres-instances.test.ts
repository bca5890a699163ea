/**
 * Two instances of the server on one PostgreSQL, as a scaled-out deployment runs: each keeps verified
 * tokens and trips in memory, and still sees every write of the other before answering its next request
 * (a basket change, a revoked session). Runs when the test runner has PostgreSQL (DATABASE_URL_PG).
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { PostgresStore } from '../../server/store/postgres.ts'
import { pgSchemas } from '../helpers/pg-schemas.ts'
import { build, createTrip, bearer, basic as basicAuthOf, body, assertProblem, type Built } from '../helpers/build.ts'
import { changeBasket, checkedBag, readSearch } from '../helpers/flows.ts'

const url = process.env.DATABASE_URL_PG

if (!url) {
  test('two instances on one PostgreSQL', { skip: 'DATABASE_URL_PG not set' }, () => {})
} else {
  describe('two instances on one PostgreSQL', () => {
    const schemas = pgSchemas(url, 'svc_instances')
    let schema: string
    const open = () => schemas.store(schema)
    let a: Built
    let b: Built
    before(async () => {
      schema = await schemas.fresh()
      const first = open()
      await first.migrate()
      a = await build({ store: first })
      b = await build({ store: open() })
    })
    after(async () => {
      await a?.close()
      await b?.close()
      await a?.store.close()
      await b?.store.close()
      await schemas.drop()
    })

    test('a basket changed on one instance reads changed on the other at once', async () => {
      const trip = await createTrip(a)
      const token = bearer(trip.trip_access_token)
      const read = async (t: Built) =>
        body(
          await t.app.inject({
            method: 'GET',
            url: `/v2.2/trip/${trip.trip_id}/basket`,
            headers: { authorization: token },
          }),
        )
      const before = await read(b) // b now keeps the trip and the token
      const bag = checkedBag(await readSearch(a, trip, token))
      await changeBasket(a, trip, 'PATCH', [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }], token)
      const after = await read(b)
      assert.notEqual(after.trip_state_hash, before.trip_state_hash)
      assert.equal(Object.keys(after.basket).length, Object.keys(before.basket).length + 1)
      assert.deepEqual(after, await read(a))
    })

    test('a session revoked on one instance is refused by the other on its next request', async () => {
      const trip = await createTrip(a)
      const read = (t: Built, token: string) =>
        t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}/basket`,
          headers: { authorization: bearer(token) },
        })
      const rotated = body(
        await b.app.inject({
          method: 'POST',
          url: '/v2.2/refresh_token',
          payload: { refresh_token: trip.refresh_token },
        }),
      )
      for (const token of [trip.trip_access_token, rotated.trip_access_token]) {
        assert.equal((await read(b, token)).statusCode, 200) // verified and kept on b
        assert.equal((await read(a, token)).statusCode, 200)
      }
      // The first refresh token, presented again on a: reuse, the family is revoked.
      assertProblem(
        await a.app.inject({
          method: 'POST',
          url: '/v2.2/refresh_token',
          payload: { refresh_token: trip.refresh_token },
        }),
        401,
        'unauthorized',
      )
      for (const token of [trip.trip_access_token, rotated.trip_access_token]) {
        assertProblem(await read(b, token), 401, 'unauthorized')
        assertProblem(await read(a, token), 401, 'unauthorized')
      }
      assertProblem(
        await b.app.inject({
          method: 'POST',
          url: '/v2.2/refresh_token',
          payload: { refresh_token: rotated.refresh_token },
        }),
        401,
        'unauthorized',
      )
    })

    test('the instances share one rate limit: N instances allow the limit once, not N times', async () => {
      const limited = { max: 5, timeWindow: 60_000 }
      const c = await build({ store: open(), rateLimit: limited, rateLimitSyncMs: 20 })
      const d = await build({ store: open(), rateLimit: limited, rateLimitSyncMs: 20 })
      try {
        const trip = await createTrip(a)
        const get = (t: Built, auth: string) =>
          t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/basket`, headers: { authorization: auth } })
        const token = bearer(trip.trip_access_token)
        // One request at a time, alternating, each a few sync intervals after the last: counted per
        // instance, ten would pass (five on each); shared, five do.
        const statuses = []
        for (let i = 0; i < 10; i++) {
          statuses.push((await get(i % 2 ? d : c, token)).statusCode)
          await new Promise((r) => setTimeout(r, 100))
        }
        assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429, 429, 429])
        const refused = await get(d, token)
        assertProblem(refused, 429, 'rate_limited')
        assert.equal(refused.headers['ratelimit-remaining'], '0')
        // Another credential counts on its own.
        assert.equal((await get(c, basicAuthOf(a.apiKey))).statusCode, 200)
      } finally {
        await c.close()
        await d.close()
        await c.store.close()
        await d.store.close()
      }
    })

    test('shared counters add batches of hits, and a window ends on the database clock and starts again', async () => {
      const store = a.store as PostgresStore
      const k1 = `window-a-${Date.now()}`
      const k2 = `window-b-${Date.now()}`
      assert.deepEqual(
        (await store.addRateLimitHits([{ key: k1, hits: 3, windowMs: 300 }])).map((c) => c.count),
        [3],
      )
      const both = await store.addRateLimitHits([
        { key: k2, hits: 1, windowMs: 300 },
        { key: k1, hits: 2, windowMs: 300 },
      ])
      assert.deepEqual(Object.fromEntries(both.map((c) => [c.key, c.count])), { [k1]: 5, [k2]: 1 })
      for (const c of both) assert.ok(c.ttlMs > 0 && c.ttlMs <= 300, `ttl ${c.ttlMs}`)
      await new Promise((r) => setTimeout(r, 350))
      assert.deepEqual(
        (await store.addRateLimitHits([{ key: k1, hits: 1, windowMs: 300 }])).map((c) => c.count),
        [1],
      )
    })
  })
}
