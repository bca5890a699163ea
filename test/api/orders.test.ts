/**
 * The orders feed (GET /v2.2/orders, docs/decisions.md "After-sale"): a seller pages through every order of its
 * trips, by change, while orders keep moving, and after the last page its copy is exactly the orders as
 * they are: none skipped, none repeated unless it changed after it was read. Then the filters, the cursor
 * (opaque, checked, carrying its filters), isolation between sellers, and bad input. The paging runs on the
 * memory, SQLite and (with DATABASE_URL_PG) PostgreSQL stores; on PostgreSQL also with two instances whose
 * clocks disagree moving orders at once while a third reads.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, body, assertProblem, type Built, type CreatedTrip } from '../helpers/build.ts'
import {
  readSearch,
  checkedBag,
  seats,
  addItems,
  fulfill,
  fulfillRequest,
  createTripOnFlight,
  readTrip,
} from '../helpers/flows.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { pgSchemas } from '../helpers/pg-schemas.ts'
import type { Store } from '../../core/ports/store.ts'
import { feedOrder, tripWithOrders } from '../store/contract.ts'

const FIELDS = [
  'order_id',
  'trip_id',
  'basket_item_id',
  'display_name',
  'product_type',
  'price',
  'status',
  'updated_at',
]
/** What an order has only in some states: why it failed, the supplier's references once booked, a refund once cancelled. */
const SOMETIMES = ['failure_reason', 'supplier_reference', 'supplier_refs', 'refund']

interface Item {
  order_id: string
  trip_id: string
  basket_item_id: string
  display_name: string
  product_type: string
  price: unknown
  status: string
  refund?: unknown
  updated_at: string
}
interface Page {
  data: Item[]
  next_cursor: string
}

const feed = (t: Built, query = '', apiKey = t.apiKey) =>
  t.app.inject({ method: 'GET', url: `/v2.2/orders${query}`, headers: { authorization: basic(apiKey) } })

async function page(t: Built, query = '', apiKey = t.apiKey): Promise<Page> {
  const res = await feed(t, query, apiKey)
  assert.equal(res.statusCode, 200, res.body)
  return body<Page>(res)
}

/** A trip with checked bags for p1 and p2 and a seat for p1, fulfilled: three orders, queued. */
async function book(t: Built, flight = '117'): Promise<CreatedTrip> {
  const trip = await createTripOnFlight(t, flight)
  const search = await readSearch(t, trip)
  const basket = await addItems(t, trip, [
    { product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' },
    { product_id: checkedBag(search, 'p2').product_id, passenger_id: 'p2' },
    { product_id: seats(search)[0]!.product_id, passenger_id: 'p1' },
  ])
  const res = await fulfill(t, trip, fulfillRequest(trip, basket.trip_state_hash))
  assert.equal(res.statusCode, 202, res.body)
  return trip
}

/** Every order of these trips as it is now (read from the trips), by order_id, as the feed shows it. */
async function truth(t: Built, trips: CreatedTrip[]) {
  const out = new Map<string, Item>()
  for (const trip of trips) {
    const read = await readTrip(t, trip)
    for (const o of Object.values<any>(read.orders)) {
      const item = read.basket[o.basket_item_id]
      out.set(o.order_id, {
        order_id: o.order_id,
        trip_id: trip.trip_id,
        basket_item_id: o.basket_item_id,
        display_name: o.display_name,
        product_type: item.product_type,
        price: o.price,
        status: o.status,
        ...(o.failure_reason ? { failure_reason: o.failure_reason } : {}),
        ...(o.supplier_reference ? { supplier_reference: o.supplier_reference } : {}),
        ...(o.supplier_refs ? { supplier_refs: o.supplier_refs } : {}),
        ...(o.refund ? { refund: o.refund } : {}),
        updated_at: o.updated_at,
      })
    }
  }
  return out
}

/** A seeded pseudo-random sequence (mulberry32): the interleaving is the same at every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Pages through the feed `limit` at a time, calling `between` after each page (which moves orders), until
 * a page is short and `between` says nothing is left to move. Returns every item read, in order, and the
 * last cursor.
 */
async function readWhileMoving(t: Built, limit: number, between: () => Promise<boolean>, query = '') {
  const read: Item[] = []
  let cursor: string | undefined
  for (let pages = 0; pages < 500; pages++) {
    const p = await page(t, `?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`)
    for (const item of p.data)
      assert.deepEqual(
        Object.keys(item)
          .filter((k) => !SOMETIMES.includes(k))
          .sort(),
        [...FIELDS].sort(),
      )
    read.push(...p.data)
    cursor = p.next_cursor
    const moved = await between()
    if (p.data.length < limit && !moved) return { read, cursor }
  }
  assert.fail('the feed never ended')
}

/**
 * What reconciliation needs of what was read: the last version read of each order is the order as it is
 * (none skipped), and an order comes again only as another version (moved since it was read: no repeats).
 */
function assertReconciled(read: Item[], now: Map<string, Item>) {
  const last = new Map<string, Item>()
  const versions = new Set<string>()
  for (const item of read) {
    const version = `${item.order_id} ${item.status} ${item.updated_at}`
    assert.ok(!versions.has(version), `read twice without a change: ${version}`)
    versions.add(version)
    last.set(item.order_id, item)
  }
  assert.deepEqual([...last.keys()].sort(), [...now.keys()].sort(), 'every order was read')
  for (const [id, item] of now) assert.deepEqual(last.get(id), item, `the last read of ${id} is the order as it is`)
}

/**
 * Books trips, then pages through the feed while, between pages, the worker moves orders a few jobs at a
 * time, cancellations are confirmed, time passes and now and then the clock goes back a minute (a write
 * stamped by an instance whose clock is behind: an updated_at earlier than orders already paged past).
 */
async function pagingWhileOrdersMove(t: Built, seed: number) {
  const next = random(seed)
  const trips = [await book(t), await book(t, '9003'), await book(t)]
  const toCancel = [trips[0]!, trips[2]!]
  let cancelled = 0
  let clockBack = 0
  const between = async (): Promise<boolean> => {
    const r = next()
    if (r < 0.15 && clockBack < 3) {
      t.clock.advance(-60_000)
      clockBack++
    } else t.clock.advance(Math.floor(next() * 3000))
    let moved = false
    for (let n = Math.floor(next() * 4); n > 0; n--) moved = (await t.core.processNextJob()) !== null || moved
    // A trip whose orders all succeeded: cancel them (each moves twice more, to cancelling and on).
    const trip = toCancel[cancelled]
    if (trip && next() < 0.5) {
      const orders = Object.values<any>((await readTrip(t, trip)).orders)
      if (orders.every((o) => o.status === 'succeeded')) {
        const q = await t.app.inject({
          method: 'POST',
          url: `/v2.2/trip/${trip.trip_id}/to_cancel`,
          headers: { authorization: basic(t.apiKey) },
          payload: { basket_item_ids: orders.map((o) => o.basket_item_id) },
        })
        assert.equal(q.statusCode, 200, q.body)
        const c = await t.app.inject({
          method: 'POST',
          url: `/v2.2/trip/${trip.trip_id}/to_cancel/confirm`,
          headers: { authorization: basic(t.apiKey) },
        })
        assert.equal(c.statusCode, 202, c.body)
        cancelled++
        moved = true
      }
    }
    // Not done while a job is left, or a trip is still to cancel.
    return (
      moved ||
      cancelled < toCancel.length ||
      (await t.store.countPendingJobs()).fulfill_order !== undefined ||
      (await t.store.countPendingJobs()).cancel_order !== undefined
    )
  }
  const { read, cursor } = await readWhileMoving(t, 2, between)
  const now = await truth(t, trips)
  assertReconciled(read, now)
  assert.ok(read.length > now.size, 'orders moved while they were read: some came again')
  assert.ok(
    [...now.values()].some((o) => o.status === 'cancelled' && o.refund),
    'cancelled, with a refund',
  )
  assert.ok([...now.values()].some((o) => o.status === 'failed'))
  // Caught up: the last cursor lists nothing until something changes.
  assert.deepEqual((await page(t, `?cursor=${cursor}`)).data, [])
  return { trips, cursor: cursor! }
}

const stores: Array<[string, () => Promise<{ store: Store; done(): Promise<void> }>]> = [
  ['memory', async () => ({ store: new MemoryStore(), done: async () => {} })],
  [
    'SQLite',
    async () => {
      const store = new SqliteStore(':memory:')
      await store.migrate()
      return { store, done: () => store.close() }
    },
  ],
]
const pgUrl = process.env.DATABASE_URL_PG
const schemas = pgUrl ? pgSchemas(pgUrl, 'svc_orders') : undefined
const pgStore = async (schema: string) => {
  const store = schemas!.store(schema)
  await store.migrate()
  return store
}
const newPgSchema = () => schemas!.fresh()
if (schemas) {
  stores.push([
    'PostgreSQL',
    async () => {
      const store = await pgStore(await newPgSchema())
      return { store, done: () => store.close() }
    },
  ])
}
after(() => schemas?.drop())

describe('orders feed: paging while orders keep moving', () => {
  for (const [name, open] of stores) {
    test(`${name}: after the last page every order is read as it is, none skipped, none repeated without a change`, async () => {
      const { store, done } = await open()
      const t = await build({ store })
      try {
        await pagingWhileOrdersMove(t, 20261122)
      } finally {
        await t.close()
        await done()
      }
    })
  }

  test('more interleavings (memory): seeds 1–6', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const t = await build()
      try {
        await pagingWhileOrdersMove(t, seed)
      } finally {
        await t.close()
      }
    }
  })

  test('an order moved with an updated_at earlier than what was paged past (a clock behind) is still found', async () => {
    const t = await build()
    const cancel = async (trip: CreatedTrip, order: { basket_item_id: string }) => {
      const q = await t.app.inject({
        method: 'POST',
        url: `/v2.2/trip/${trip.trip_id}/to_cancel`,
        headers: { authorization: basic(t.apiKey) },
        payload: { basket_item_ids: [order.basket_item_id] },
      })
      assert.equal(q.statusCode, 200, q.body)
      const c = await t.app.inject({
        method: 'POST',
        url: `/v2.2/trip/${trip.trip_id}/to_cancel/confirm`,
        headers: { authorization: basic(t.apiKey) },
      })
      assert.equal(c.statusCode, 202, c.body)
    }
    try {
      const trip = await book(t)
      await t.core.drainJobs()
      const [first, second] = Object.values<any>((await readTrip(t, trip)).orders)
      const start = t.clock.now().getTime()
      await cancel(trip, first) // cancelling now; the airline is asked by a job due now
      t.clock.set(new Date(start + 3_600_000))
      await cancel(trip, second) // an hour later
      const caughtUp = await page(t)
      const newest = caughtUp.data.at(-1)!
      assert.deepEqual([newest.order_id, newest.status], [second.order_id, 'cancelling'])
      // The worker that answers for the first runs on an instance whose clock is 59 minutes behind.
      t.clock.set(new Date(start + 60_000))
      assert.equal(await t.core.drainJobs(), 1)
      const later = await page(t, `?cursor=${caughtUp.next_cursor}`)
      assert.deepEqual(
        later.data.map((o) => [o.order_id, o.status]),
        [[first.order_id, 'cancelled']],
      )
      assert.ok(later.data[0]!.updated_at < newest.updated_at, 'paging by (updated_at, order_id) would have skipped it')
    } finally {
      await t.close()
    }
  })

  if (pgUrl) {
    test('PostgreSQL, two instances with clocks 30 s apart moving orders at once while a reader pages: none skipped', async () => {
      const schema = await newPgSchema()
      const a = await build({ store: await pgStore(schema) })
      // The same seller on the other instance: its API key is in the shared database.
      const b = await build({ store: await pgStore(schema) })
      try {
        b.clock.advance(-30_000)
        const trips = []
        for (let i = 0; i < 4; i++) trips.push(await book(a, i === 3 ? '9003' : '117'))
        const read: Item[] = []
        let cursor = ''
        let work = true
        // The two workers run jobs as fast as they can; the reader pages, 2 at a time, until they are done and it has caught up.
        const worker = async (t: Built) => {
          while (await t.core.processNextJob(['fulfill_order'])) {
            /* as fast as it can */
          }
        }
        const workers = Promise.all([worker(a), worker(b)]).finally(() => {
          work = false
        })
        for (;;) {
          const stillWorking = work
          const p = await page(a, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
          read.push(...p.data)
          cursor = p.next_cursor
          if (p.data.length < 2 && !stillWorking) break
        }
        await workers
        const now = await truth(a, trips)
        assert.equal(now.size, 12)
        assertReconciled(read, now)
      } finally {
        await a.close()
        await b.close()
        await a.store.close()
        await b.store.close()
      }
    })
  }
})

describe('orders feed: what it shows, filters, cursors, isolation, bad input', () => {
  let t: Built
  let other: { apiKey: string }
  let ok: CreatedTrip
  let failed: CreatedTrip
  before(async () => {
    t = await build()
    other = await t.otherSeller()
    ok = await book(t)
    failed = await book(t, '9003')
    await t.core.drainJobs()
  })
  after(() => t.close())

  test('each order as the trip has it, with its product type; a refund once cancelled', async () => {
    const now = await truth(t, [ok, failed])
    const all = await page(t)
    assert.deepEqual(new Map(all.data.map((o) => [o.order_id, o])), now)
    assert.deepEqual(all.data.map((o) => o.product_type).sort(), ['bag', 'bag', 'bag', 'bag', 'seat', 'seat'])
    assert.equal(typeof all.next_cursor, 'string')
  })

  test('status and updated_since filter; a cursor carries them; changing them with a cursor is refused', async () => {
    const succeeded = await page(t, '?status=succeeded')
    assert.deepEqual(
      succeeded.data.map((o) => o.trip_id),
      [ok.trip_id, ok.trip_id, ok.trip_id],
    )
    assert.deepEqual(
      (await page(t, '?status=failed')).data.map((o) => o.trip_id),
      [failed.trip_id, failed.trip_id, failed.trip_id],
    )
    assert.deepEqual((await page(t, '?status=queued')).data, [])

    // One page at a time, the filter given once.
    const first = await page(t, '?status=succeeded&limit=2')
    assert.equal(first.data.length, 2)
    const second = await page(t, `?limit=2&cursor=${first.next_cursor}`)
    assert.deepEqual([...first.data, ...second.data], succeeded.data)
    assert.deepEqual(
      (await page(t, `?status=succeeded&limit=2&cursor=${first.next_cursor}`)).data,
      second.data,
      'the same filter may be repeated',
    )
    const changed = assertProblem(await feed(t, `?status=failed&cursor=${first.next_cursor}`), 400, 'validation_error')
    assert.deepEqual(changed.errors, [{ path: '/status', message: "differs from the cursor's" }])
    assertProblem(
      await feed(t, `?updated_since=2026-01-01T00:00:00Z&cursor=${first.next_cursor}`),
      400,
      'validation_error',
    )

    // Later changes only: updated_since at the instant they are made, in any offset.
    t.clock.advance(3_600_000)
    const since = t.clock.now()
    const bag = Object.values<any>((await readTrip(t, ok)).orders)[0]
    await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${ok.trip_id}/to_cancel`,
      headers: { authorization: basic(t.apiKey) },
      payload: { basket_item_ids: [bag.basket_item_id] },
    })
    await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${ok.trip_id}/to_cancel/confirm`,
      headers: { authorization: basic(t.apiKey) },
    })
    await t.core.drainJobs()
    const recent = await page(t, `?updated_since=${since.toISOString()}`)
    assert.deepEqual(
      recent.data.map((o) => [o.order_id, o.status]),
      [[bag.order_id, 'cancelled']],
    )
    assert.ok(recent.data[0]!.refund)
    const offset = new Date(since.getTime() + 2 * 3_600_000)
      .toISOString()
      .replace('Z', '+02:00')
      .replace(/\.\d{3}/, '')
    assert.deepEqual((await page(t, `?updated_since=${encodeURIComponent(offset)}`)).data, recent.data)
    assert.deepEqual((await page(t, `?updated_since=${new Date(since.getTime() + 1).toISOString()}`)).data, [])
    assert.deepEqual((await page(t, `?status=cancelled&updated_since=${since.toISOString()}`)).data, recent.data)
    assert.deepEqual((await page(t, `?status=succeeded&updated_since=${since.toISOString()}`)).data, [])
  })

  test('the last cursor lists what changed since, and nothing before', async () => {
    const caughtUp = await page(t, '?limit=200')
    const again = await page(t, `?cursor=${caughtUp.next_cursor}`)
    assert.deepEqual(again, { data: [], next_cursor: caughtUp.next_cursor })
    const trip = await book(t)
    const after = await page(t, `?cursor=${caughtUp.next_cursor}`)
    assert.deepEqual(
      after.data.map((o) => [o.trip_id, o.status]),
      [
        [trip.trip_id, 'queued'],
        [trip.trip_id, 'queued'],
        [trip.trip_id, 'queued'],
      ],
    )
    await t.core.drainJobs()
  })

  test('50 a page unless limit says otherwise, up to 200', async () => {
    const u = await build()
    try {
      // 60 orders of the seller, written as a trip write stores them.
      for (let i = 0; i < 3; i++) {
        const orders = Array.from({ length: 20 }, (_, j) =>
          feedOrder(`bulk-${i}`, `o-${i}-${String(j).padStart(2, '0')}`),
        )
        await u.store.insertTrip(tripWithOrders(`bulk-${i}`, u.seller.seller_id, orders), { orders })
      }
      const first = await page(u)
      assert.equal(first.data.length, 50)
      assert.equal((await page(u, `?cursor=${first.next_cursor}`)).data.length, 10)
      assert.equal((await page(u, '?limit=200')).data.length, 60)
      assert.equal((await page(u, '?limit=1')).data.length, 1)
    } finally {
      await u.close()
    }
  })

  test("another seller sees none of your orders, and neither seller's cursor works for the other", async () => {
    const theirs = await page(t, '', other.apiKey)
    assert.deepEqual(theirs.data, [])
    assert.deepEqual((await page(t, '?status=succeeded&updated_since=2000-01-01T00:00:00Z', other.apiKey)).data, [])
    const mine = await page(t, '?limit=1')
    assertProblem(await feed(t, `?cursor=${mine.next_cursor}`, other.apiKey), 400, 'validation_error')
    assertProblem(await feed(t, `?cursor=${theirs.next_cursor}`), 400, 'validation_error')
  })

  test('a cursor changed in any way is a 400 naming /cursor', async () => {
    const { next_cursor: cursor } = await page(t, '?limit=1')
    const raw = Buffer.from(cursor, 'base64url').toString()
    const reencode = (text: string) => Buffer.from(text).toString('base64url')
    const [bodyText, sum] = [raw.slice(0, raw.lastIndexOf('.')), raw.slice(raw.lastIndexOf('.') + 1)]
    const position = JSON.parse(bodyText) as unknown[]
    const tampered = [
      cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6),
      cursor.slice(0, 10),
      reencode(`${JSON.stringify([position[0], 0, ...position.slice(2)])}.${sum}`), // an earlier place, old checksum
      reencode(`${JSON.stringify([2, ...position.slice(1)])}.${sum}`), // another version
      reencode(bodyText), // no checksum
      reencode('not json.0123456789abcdef'),
      reencode(`${bodyText}.${'0'.repeat(16)}`),
      'AAAA',
      '_',
      'x'.repeat(512),
    ]
    for (const bad of tampered) {
      const p = assertProblem(await feed(t, `?cursor=${bad}`), 400, 'validation_error')
      assert.deepEqual(
        p.errors?.map((e) => e.path),
        ['/cursor'],
        bad,
      )
    }
  })

  test('bad query strings are refused, naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['?limit=0', '/limit'],
      ['?limit=201', '/limit'],
      ['?limit=-1', '/limit'],
      ['?limit=1.5', '/limit'],
      ['?limit=abc', '/limit'],
      ['?limit=050', '/limit'],
      ['?limit=', '/limit'],
      ['?limit=1&limit=2', '/limit'],
      ['?status=shipped', '/status'],
      ['?status=SUCCEEDED', '/status'],
      ['?status=', '/status'],
      ['?updated_since=yesterday', '/updated_since'],
      ['?updated_since=2026-11-22', '/updated_since'],
      ['?updated_since=2026-11-22T10:00:00', '/updated_since'],
      ['?updated_since=2026-12-22T23:59:60Z', '/updated_since'],
      ['?cursor=', '/cursor'],
      ['?cursor=a%20b', '/cursor'],
      [`?cursor=${'x'.repeat(513)}`, '/cursor'],
      ['?page=2', '/page'],
      ['?seller_id=other', '/seller_id'],
    ]
    for (const [query, path] of cases) {
      const p = assertProblem(await feed(t, query), 400, 'validation_error')
      assert.deepEqual(
        p.errors?.map((e) => e.path),
        [path],
        query,
      )
    }
  })

  test('API key only, and the OpenAPI document describes it', async () => {
    const trip = await readTrip(t, ok)
    assertProblem(
      await t.app.inject({
        method: 'GET',
        url: '/v2.2/orders',
        headers: { authorization: `Bearer ${trip.trip_access_token}` },
      }),
      403,
      'forbidden',
    )
    assertProblem(await t.app.inject({ method: 'GET', url: '/v2.2/orders' }), 401, 'unauthorized')
    const doc = body(await t.app.inject({ method: 'GET', url: '/v2.2/openapi.json' }))
    const op = doc.paths['/v2.2/orders'].get
    assert.deepEqual(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort(), [
      'query:cursor',
      'query:limit',
      'query:status',
      'query:updated_since',
    ])
    assert.ok(op.responses['200'] && op.responses['400'])
  })
})
