/**
 * What each hot request costs the database, in statements (SQLite) and round trips (PostgreSQL): counts that
 * do not depend on the machine, so a change that adds a read to a write, or a statement to trip creation,
 * fails here (npm run bench -- api prints the same counts beside its throughput figures). The requests are
 * the bench's: POST trip, GET trip, GET basket, and a PUT basket that really changes the basket.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { pgSchemas } from '../helpers/pg-schemas.ts'
import type { Store } from '../../core/ports/store.ts'
import { build, createTrip, bearer, basic, body, type Built } from '../helpers/build.ts'
import { readSearch, productsOf } from '../helpers/flows.ts'

interface Counted {
  store: Store
  statements: string[]
}

/** The statements each hot request runs once the process has seen its trip (the steady state the bench measures). */
async function perRequest(t: Built, seen: string[]): Promise<Record<string, string[]>> {
  // The shared rate limit's sync (every 100 ms on PostgreSQL, whatever the traffic) is not a request's.
  const counted = async (f: () => Promise<unknown>) => {
    seen.length = 0
    await f()
    return seen.filter((q) => !/rate_limits/.test(q))
  }
  /** A trip, and a PUT of its basket with one of its bags (i = 0 or 1): each a real change from the other. */
  const tripWithBags = async () => {
    const trip = await createTrip(t)
    const token = bearer(trip.trip_access_token)
    const bags = productsOf(await readSearch(t, trip, token), 'bag').filter(
      (p) => p.price_and_availability['p1']?.available,
    )
    const put = (i: number) =>
      t.app.inject({
        method: 'PUT',
        url: `/v2.2/trip/${trip.trip_id}/basket`,
        headers: { authorization: token },
        payload: [{ product_id: bags[i]!.product_id, passenger_id: 'p1', quantity: 1 }],
      })
    return { trip, token, bags, put }
  }
  const { trip, token, bags, put } = await tripWithBags()
  const get = (path: string, authorization: string) =>
    t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}${path}`, headers: { authorization } })
  await put(0)
  await get('', basic(t.apiKey))
  // Four trips read and written at once, as a loaded server takes them: each token verified and each trip kept beforehand.
  const all = [{ trip, token, bags, put }, ...(await Promise.all([1, 2, 3].map(() => tripWithBags())))]
  const baskets = all.map(
    (x) => () =>
      t.app.inject({ method: 'GET', url: `/v2.2/trip/${x.trip.trip_id}/basket`, headers: { authorization: x.token } }),
  )
  for (const read of baskets) assert.equal((await read()).statusCode, 200)
  for (const x of all.slice(1)) assert.equal((await x.put(1)).statusCode, 200)
  return {
    'POST trip': await counted(() => createTrip(t)),
    'GET trip': await counted(async () => assert.equal((await get('', basic(t.apiKey))).statusCode, 200)),
    'GET basket': await counted(async () => assert.equal((await get('/basket', token)).statusCode, 200)),
    'PUT basket': await counted(async () => {
      const res = await put(1)
      assert.equal(res.statusCode, 200)
      assert.equal(
        Object.values(body(res).basket as Record<string, { product_id: string }>).filter(
          (i) => i.product_id === bags[1]!.product_id,
        ).length,
        1,
      )
    }),
    'GET basket of four trips at once': await counted(async () => {
      for (const res of await Promise.all(baskets.map((read) => read()))) assert.equal(res.statusCode, 200)
    }),
    // Each trip's basket holds bag 1 by then (the PUT above for the first): bag 0 is a change for all four.
    'PUT basket of four trips at once': await counted(async () => {
      for (const res of await Promise.all(all.map((x) => x.put(0)))) assert.equal(res.statusCode, 200)
    }),
  }
}

/** Statement text, shortened to its verb and table: what the assertion names. */
const shape = (sql: string) =>
  sql
    .replace(/\s+/g, ' ')
    .trim()
    .match(
      /^(WITH \w+|SELECT .*? FROM \w+|INSERT INTO \w+|UPDATE \w+|DELETE FROM \w+|BEGIN( IMMEDIATE)?|COMMIT|\S+)/,
    )![0]
    .replace(/^SELECT .*? FROM/, 'SELECT FROM')

describe('statements per request, SQLite', () => {
  const c: Counted = { store: undefined as unknown as Store, statements: [] }
  let t: Built
  before(async () => {
    const store = new SqliteStore(':memory:', { onStatement: (sql) => c.statements.push(sql) })
    await store.migrate()
    c.store = store
    t = await build({ store })
  })
  after(async () => {
    await t.close()
    await c.store.close()
  })

  test('each hot request runs the statements it needs, and no more', async () => {
    const counts = await perRequest(t, c.statements)
    assert.deepEqual(Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v.map(shape)])), {
      // The trip's timeline entries (created, its search started and ended, the search's call) ride in
      // its row (trips.pending_events), which migration 15's trigger appends to trip_events within the
      // INSERT: no statement more than before the timeline.
      'POST trip': [
        'BEGIN IMMEDIATE',
        'INSERT INTO trips',
        'INSERT INTO searches',
        'INSERT INTO refresh_tokens',
        'COMMIT',
      ],
      'GET trip': ['SELECT FROM trips'],
      'GET basket': ['SELECT FROM trips'],
      // The write is conditional on the kept version: no read of the trip before it. Its timeline entry
      // (basket_changed) rides in the row and the UPDATE's trigger appends it: one statement, atomic as
      // one, with no BEGIN and COMMIT around it.
      'PUT basket': ['UPDATE trips'],
      // The reads of one turn of the event loop are checked together, in one read transaction.
      'GET basket of four trips at once': [
        'BEGIN',
        'SELECT FROM trips',
        'SELECT FROM trips',
        'SELECT FROM trips',
        'SELECT FROM trips',
        'COMMIT',
      ],
      // And their writes, in one write transaction: one commit (each UPDATE appends its own entries).
      'PUT basket of four trips at once': [
        'BEGIN IMMEDIATE',
        'UPDATE trips',
        'UPDATE trips',
        'UPDATE trips',
        'UPDATE trips',
        'COMMIT',
      ],
    })
  })
})

const url = process.env.DATABASE_URL_PG
if (!url) {
  test('round trips per request, PostgreSQL', { skip: 'DATABASE_URL_PG not set' }, () => {})
} else {
  describe('round trips per request, PostgreSQL', () => {
    const schemas = pgSchemas(url, 'svc_statements')
    const c: Counted = { store: undefined as unknown as Store, statements: [] }
    let t: Built
    before(async () => {
      const store = schemas.store(await schemas.fresh(), { onStatement: (sql) => c.statements.push(sql) })
      await store.migrate()
      c.store = store
      t = await build({ store })
    })
    after(async () => {
      await t?.close()
      await c.store?.close()
      await schemas.drop()
    })

    test('each hot request takes the round trips it needs, and no more', async () => {
      const counts = await perRequest(t, c.statements)
      assert.deepEqual(Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v.map(shape)])), {
        'POST trip': ['WITH t'],
        'GET trip': ['SELECT FROM unnest'],
        'GET basket': ['SELECT FROM unnest'],
        // The UPDATE with the basket's timeline entry as a CTE of it: still one round trip.
        'PUT basket': ['WITH t'],
        // The reads of one turn of the event loop are checked together: one round trip for the four.
        'GET basket of four trips at once': ['SELECT FROM unnest'],
        // And their writes, with their entries: one round trip for the four.
        'PUT basket of four trips at once': ['WITH w'],
      })
    })
  })
}

describe('a write from a kept copy that another process changed', () => {
  let a: Built
  let b: Built
  const stores: SqliteStore[] = []
  before(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-kept-')), 'svc.db')
    const first = new SqliteStore(file)
    await first.migrate()
    stores.push(first, new SqliteStore(file))
    a = await build({ store: stores[0]! })
    b = await build({ store: stores[1]! })
  })
  after(async () => {
    await a.close()
    await b.close()
    for (const s of stores) await s.close()
  })

  test('is refused by the store and made again on the current trip; an answer that writes nothing is checked first', async () => {
    const trip = await createTrip(a)
    const token = bearer(trip.trip_access_token)
    const bags = productsOf(await readSearch(a, trip, token), 'bag').filter(
      (p) => p.price_and_availability['p1']?.available,
    )
    const line = (i: number, quantity = 1) => [{ product_id: bags[i]!.product_id, passenger_id: 'p1', quantity }]
    const put = (
      t: Built,
      lines: Array<{ product_id: string; passenger_id: string; quantity: number }>,
      method: 'PUT' | 'PATCH' = 'PUT',
    ) =>
      t.app.inject({
        method,
        url: `/v2.2/trip/${trip.trip_id}/basket`,
        headers: { authorization: token },
        payload: lines,
      })
    const bagsIn = (res: Awaited<ReturnType<typeof put>>) =>
      Object.values(body(res).basket as Record<string, { product_id: string }>)
        .filter((i) => bags.some((b) => b.product_id === i.product_id))
        .map((i) => i.product_id)
        .sort()

    assert.equal((await put(b, line(0))).statusCode, 200) // b keeps the trip with bag 0
    assert.equal((await put(a, line(1))).statusCode, 200) // a replaces it: b's copy is stale
    // b's copy says bag 0 is in: this PATCH adds bag 1 beside it on b's copy, and must land on a's trip.
    const added = await put(b, line(0), 'PATCH')
    assert.equal(added.statusCode, 200)
    assert.deepEqual(bagsIn(added), [bags[0]!.product_id, bags[1]!.product_id].sort())
    // Now b's copy is current; a replaces the basket again. PUT on b of what b's copy holds would be no change
    // there, but is one on the trip: b must not answer from its copy.
    assert.equal((await put(a, line(1))).statusCode, 200)
    const same = await put(b, [...line(0), ...line(1)])
    assert.equal(same.statusCode, 200)
    assert.deepEqual(bagsIn(same), [bags[0]!.product_id, bags[1]!.product_id].sort())
    const read = body(
      await a.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}/basket`,
        headers: { authorization: token },
      }),
    )
    assert.equal(read.trip_state_hash, body(same).trip_state_hash)

    // A refusal from a stale copy is not an answer: a adds bag 2, which b's copy has never seen; b removes it.
    const more = await put(a, line(2), 'PATCH')
    const item = Object.entries(body(more).basket as Record<string, { product_id: string }>).find(
      ([, i]) => i.product_id === bags[2]!.product_id,
    )![0]
    const removed = await b.app.inject({
      method: 'DELETE',
      url: `/v2.2/trip/${trip.trip_id}/basket/${item}`,
      headers: { authorization: token },
    })
    assert.equal(removed.statusCode, 200, removed.body)
    assert.deepEqual(bagsIn(removed), [bags[0]!.product_id, bags[1]!.product_id].sort())
  })
})
