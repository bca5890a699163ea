/**
 * Scale: GET basket latency (p50, p99) and throughput as the trips table grows, 10 k → 100 k → 1 M trips, on
 * SQLite and on PostgreSQL. Target: p99 at the largest size ≤ 1.3 × p99 at the smallest.
 *
 *   npm run bench -- scale     BENCH_SCALE_SIZES=10000,100000,1000000  BENCH_SCALE_SAMPLE=10000
 *                              BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3  BENCH_SCALE_STORES=sqlite,postgres
 *
 * Loading: one trip is made through the real core as a seller's integration leaves it (bench/storage.ts
 * makeTrip: created with bag and seat search, a bag chosen, the token refreshed once); its rows (trips, its
 * searches row, its two refresh_tokens rows) are read back and cloned with fresh ids in large transactions of
 * prepared multi-row INSERTs, not made through the API (1 M trips would take hours). Seat maps are per flight
 * and shared by every trip on it, so they are not cloned. The same database grows from one size to the next.
 *
 * Reading: at each size, BENCH_SCALE_SAMPLE trips are picked at random from the whole table and each gets a
 * trip access token through POST /v2.2/refresh_token (the widget's credential and path: the loader knows the
 * plaintext of every clone's live refresh token). Every round then starts the service in its own process
 * (bench/servers/service.ts, on the loader's seller through BENCH_API_KEY), warms it for BENCH_SECONDS and
 * measures for BENCH_SECONDS: autocannon sends GET .../basket, every request for a trip drawn at random from
 * the sample. The default sample (10 000) is twice the service's in-process trip cache (core/core.ts, 5 000
 * trips), so about half the reads fetch the whole document from the store, as reads spread over a large table
 * do; the rest cost the store one "has it changed" lookup. Latencies are autocannon's per-response timings
 * (µs resolution; its own histogram rounds to whole milliseconds, too coarse for a 1.3× bound). Each round
 * also records the load average and the CPU steal (time the hypervisor gave to other machines): the sizes are
 * measured minutes apart, so contention at one of them reads as a store that slowed down with size.
 *
 * Disk: ~10.4 KiB per trip on SQLite (9.9 GiB at 1 M), ~4.5 KiB on PostgreSQL (its TOAST compresses the
 * documents; 4.3 GiB). The free space is checked first, sizes that do not fit are skipped, and every database
 * made is deleted at the end. The stores run one after the other, so only one store's copy is on disk at a time.
 * Loading 1 M takes ~3–4 min on each store on a 2-core machine.
 */
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import pg from 'pg'
import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import type { EventEmitter } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, statfsSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import '../server/native-hash.ts'
import { sha256Hex } from '../core/shared/crypto.ts'
import { createCore } from '../core/core.ts'
import { withStateHash } from '../core/domain/trip.ts'
import type { Store } from '../core/ports/store.ts'
import type { TripRecord } from '../core/ports/records.ts'
import { createSandboxSupplier } from '../core/adapters/sandbox-airline/adapter.ts'
import { SqliteStore } from '../server/store/sqlite.ts'
import { PostgresStore } from '../server/store/postgres.ts'
import { makeTrip } from './storage.ts'
import { serve } from './lib/servers.ts'
import { startPg } from './lib/pg.ts'
import { median, spread } from './lib/stats.ts'

const sizes = (process.env.BENCH_SCALE_SIZES ?? '10000,100000,1000000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b)
const sample = Number(process.env.BENCH_SCALE_SAMPLE ?? 10_000)
const stores = (process.env.BENCH_SCALE_STORES ?? 'sqlite,postgres').split(',')
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

/** Disk per trip, for the free-space check (measured: 10.4 KiB on SQLite, 4.5 KiB on PostgreSQL), with room for WAL. */
const BYTES_PER_TRIP = 13 * 1024
/** Trips per transaction: four rows each (trip, search, two tokens), ~10 k rows per transaction. */
const TRIPS_PER_TX = 2_500
/** Trips per multi-row INSERT (PostgreSQL binds at most 65 535 parameters: ~4 600 trips' tokens, 2 rows × 7 columns). */
const SQLITE_TRIPS_PER_INSERT = 250
const PG_TRIPS_PER_INSERT = 1_000
/** How long a clone's basket hold and refresh token last (see Template). */
const HOLD_MS = 24 * 3600_000

// ------------------------------------------------------------------ the template and its clones

/** One trip's rows as read back from its store: column values as text (times ISO, documents JSON). */
interface Template {
  sellerId: string
  apiKey: string
  trip: { version: number; updated_at: string; created_at: string; docParts: string[] }
  search: { status: string; created_at: string; offers: string }
  usedToken: { used_at: string | null }
}

/** The rows of one clone, in the column order of the INSERTs below. */
interface Clone {
  tripId: string
  trip: unknown[]
  search: unknown[]
  tokens: unknown[][]
}

/**
 * The plaintext of a clone's live refresh token, worked out from its trip id so a million need not be kept;
 * the salt is this run's, so the tokens are secrets like the service's own (rt_ + 32 bytes base64url).
 */
const salt = randomBytes(16)
const refreshTokenOf = (tripId: string) => `rt_${createHmac('sha256', salt).update(tripId).digest('base64url')}`

/**
 * Makes the trip through the core and reads its rows back. The basket hold (30 min) and the refresh token's
 * life (45 min) are stretched to a day: a run longer than half an hour would otherwise read the small sizes
 * with a held bag and the large ones with an expired one (whose state hash is worked out again at every read),
 * and could not mint tokens for trips loaded early. The document keeps its shape and size.
 */
async function makeTemplate(
  store: Store,
  read: (
    tripId: string,
    searchId: string,
  ) => Promise<{
    trip: { version: number; updated_at: string; created_at: string; doc: string }
    search: { status: string; created_at: string; offers: string }
    tokens: Array<{ used_at: string | null }>
  }>,
): Promise<Template> {
  await store.migrate()
  const core = createCore({
    store,
    suppliers: [createSandboxSupplier()],
    clock: { now: () => new Date() },
    ids: { uuid: () => randomUUID(), secret: (n) => randomBytes(n).toString('base64url') },
  })
  await core.ensureSigningKey()
  const { seller, apiKey } = await core.createSeller({ name: 'Bench', origins: [], sandbox: true })
  const made = await makeTrip(core, apiKey)
  const rows = await read(made.trip_id, made.search_id!)
  const now = new Date()
  const doc = JSON.parse(rows.trip.doc) as TripRecord
  for (const item of Object.values(doc.basket))
    item.validity = { ...item.validity, valid_to: new Date(now.getTime() + HOLD_MS).toISOString() }
  const held = withStateHash(doc, now)
  const used = rows.tokens.find((t) => t.used_at !== null)
  if (rows.tokens.length !== 2 || !used)
    throw new Error(`expected a used and a live refresh token, found ${JSON.stringify(rows.tokens)}`)
  return {
    sellerId: seller.seller_id,
    apiKey,
    // The trip id is the only id the document holds (its search id has a column of its own): split on it once.
    trip: {
      version: rows.trip.version,
      updated_at: rows.trip.updated_at,
      created_at: rows.trip.created_at,
      docParts: JSON.stringify(held).split(made.trip_id),
    },
    search: rows.search,
    usedToken: { used_at: used.used_at },
  }
}

/**
 * Clone `i`: fresh trip, search and family ids, the trip id written into the document, token hashes of fresh
 * plaintexts. The indexed times (trips.created_at, searches.created_at, refresh_tokens.expires_at) advance by
 * a millisecond a clone, so their indexes grow at the right edge as a live table's do (identical keys would
 * make PostgreSQL's deduplicated B-trees unrealistically small).
 */
function cloneOf(t: Template, i: number, base: number, sqlite: boolean): Clone {
  const tripId = randomUUID()
  const searchId = randomUUID()
  const familyId = randomUUID()
  const at = new Date(base + i).toISOString()
  const expires = new Date(base + HOLD_MS + i).toISOString()
  return {
    tripId,
    trip: [
      tripId,
      t.sellerId,
      t.trip.version,
      t.trip.updated_at,
      t.trip.docParts.join(tripId),
      searchId,
      sqlite ? 1 : true,
      at,
    ],
    search: [searchId, tripId, t.search.status, at, t.search.offers],
    tokens: [
      [sha256Hex(randomUUID()), familyId, tripId, t.sellerId, expires, t.usedToken.used_at, null],
      [sha256Hex(refreshTokenOf(tripId)), familyId, tripId, t.sellerId, expires, null, null],
    ],
  }
}

const TRIP_COLS = 'trip_id, seller_id, version, updated_at, doc, search_id, open, created_at'
const SEARCH_COLS = 'search_id, trip_id, status, created_at, offers'
const TOKEN_COLS = 'token_hash, family_id, trip_id, seller_id, expires_at, used_at, revoked_at'

/** Loads clones into one store; `grow` adds `n` and returns the seconds spent settling them afterwards (VACUUM). */
export interface Loader {
  readonly label: string
  readonly databaseUrl: string
  template: Template
  grow(n: number, onTrip: (tripId: string) => void): Promise<number>
  bytes(): Promise<number>
  drop(): Promise<void>
}

// ------------------------------------------------------------------ SQLite

export async function sqliteLoader(dir: string): Promise<Loader> {
  const path = join(dir, 'scale.db')
  const store = new SqliteStore(path)
  const template = await makeTemplate(store, async (tripId, searchId) => ({
    trip: store.db
      .prepare('SELECT version, updated_at, created_at, doc FROM trips WHERE trip_id = ?')
      .get(tripId) as never,
    search: store.db
      .prepare('SELECT status, created_at, offers FROM searches WHERE search_id = ?')
      .get(searchId) as never,
    tokens: store.db.prepare('SELECT used_at FROM refresh_tokens WHERE trip_id = ?').all(tripId) as never,
  }))
  await store.close()
  let loaded = 0
  const base = Date.now()

  /** Adds `n` clones in transactions of TRIPS_PER_TX, each a few multi-row INSERTs per table. */
  function loadInto(db: Database.Database, n: number, onTrip: (tripId: string) => void) {
    const prepared = new Map<string, Database.Statement>()
    const insert = (table: string, cols: string, width: number, rows: unknown[][]) => {
      const key = `${table}/${rows.length}`
      let s = prepared.get(key)
      if (!s) {
        s = db.prepare(
          `INSERT INTO ${table} (${cols}) VALUES ${Array(rows.length)
            .fill(`(${Array(width).fill('?').join(',')})`)
            .join(',')}`,
        )
        prepared.set(key, s)
      }
      s.run(rows.flat())
    }
    const tx = db.transaction((clones: Clone[]) => {
      for (let at = 0; at < clones.length; at += SQLITE_TRIPS_PER_INSERT) {
        const part = clones.slice(at, at + SQLITE_TRIPS_PER_INSERT)
        insert(
          'trips',
          TRIP_COLS,
          8,
          part.map((c) => c.trip),
        )
        insert(
          'searches',
          SEARCH_COLS,
          5,
          part.map((c) => c.search),
        )
        insert(
          'refresh_tokens',
          TOKEN_COLS,
          7,
          part.flatMap((c) => c.tokens),
        )
      }
    })
    for (let done = 0; done < n;) {
      const clones: Clone[] = []
      for (; clones.length < TRIPS_PER_TX && done < n; done++) clones.push(cloneOf(template, loaded++, base, true))
      tx.immediate(clones)
      for (const c of clones) onTrip(c.tripId)
    }
    // The service then opens a file without a WAL to replay.
    db.pragma('wal_checkpoint(TRUNCATE)')
  }

  return {
    label: 'SQLite',
    databaseUrl: `sqlite:${path}`,
    template,
    async grow(n, onTrip) {
      // A connection of the loader's own, closed before the service opens the file. No sync (a crash while
      // loading loses only the benchmark's rows) and a large page cache (the three tables' indexes take random
      // UUID keys); foreign keys unchecked, since every clone names rows of its own batch.
      const db = new Database(path)
      try {
        db.pragma('synchronous = OFF')
        db.pragma('cache_size = -524288')
        db.pragma('foreign_keys = OFF')
        loadInto(db, n, onTrip)
      } finally {
        db.close()
      }
      return 0
    },
    async bytes() {
      return statSync(path).size
    },
    async drop() {
      for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true })
    },
  }
}

// ------------------------------------------------------------------ PostgreSQL

export async function pgLoader(adminUrl: string): Promise<Loader> {
  const name = `scale_${process.pid}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name}`)
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const databaseUrl = adminUrl.replace(/\/[^/]*$/, `/${name}`)
  const store = new PostgresStore(databaseUrl)
  const iso = (x: unknown) => (x === null ? null : (x as Date).toISOString())
  const template = await makeTemplate(store, async (tripId, searchId) => {
    const {
      rows: [trip],
    } = await store.pool.query(
      'SELECT version, updated_at, created_at, doc::text AS doc FROM trips WHERE trip_id = $1',
      [tripId],
    )
    const {
      rows: [search],
    } = await store.pool.query('SELECT status, created_at, offers::text AS offers FROM searches WHERE search_id = $1', [
      searchId,
    ])
    const { rows: tokens } = await store.pool.query('SELECT used_at FROM refresh_tokens WHERE trip_id = $1', [tripId])
    return {
      trip: { ...trip, updated_at: iso(trip.updated_at), created_at: iso(trip.created_at) },
      search: { ...search, created_at: iso(search.created_at) },
      tokens: tokens.map((t) => ({ used_at: iso(t.used_at) })),
    }
  })
  await store.close()
  let loaded = 0
  const base = Date.now()
  return {
    label: 'PostgreSQL',
    databaseUrl,
    template,
    async grow(n, onTrip) {
      const c = new pg.Client({ connectionString: databaseUrl })
      await c.connect()
      // Commits of the loader's own need not wait for the WAL flush (the transactions are large anyway).
      await c.query('SET synchronous_commit = off')
      const insert = (table: string, cols: string, width: number, rows: unknown[][]) => {
        const values = rows
          .map((_, r) => `(${Array.from({ length: width }, (_, k) => `$${r * width + k + 1}`).join(',')})`)
          .join(',')
        // Named, so each batch size is planned once per connection.
        return c.query({
          name: `${table}/${rows.length}`,
          text: `INSERT INTO ${table} (${cols}) VALUES ${values}`,
          values: rows.flat(),
        })
      }
      // While PostgreSQL inserts one batch, this process builds the next (two cores, both busy).
      let pending: Promise<unknown> = Promise.resolve()
      let inTx = 0
      await c.query('BEGIN')
      for (let done = 0; done < n;) {
        const clones: Clone[] = []
        for (; clones.length < PG_TRIPS_PER_INSERT && done < n; done++)
          clones.push(cloneOf(template, loaded++, base, false))
        await pending
        // In this order: the searches and tokens name the trips (foreign keys checked at each statement's end).
        pending = (async () => {
          await insert(
            'trips',
            TRIP_COLS,
            8,
            clones.map((x) => x.trip),
          )
          await insert(
            'searches',
            SEARCH_COLS,
            5,
            clones.map((x) => x.search),
          )
          await insert(
            'refresh_tokens',
            TOKEN_COLS,
            7,
            clones.flatMap((x) => x.tokens),
          )
        })()
        for (const x of clones) onTrip(x.tripId)
        inTx += clones.length
        if (inTx >= TRIPS_PER_TX * 4 || done >= n) {
          await pending
          await c.query('COMMIT')
          if (done < n) await c.query('BEGIN')
          inTx = 0
        }
      }
      await pending
      // A live table is vacuumed and analysed as it grows; freshly inserted rows would otherwise have their hint
      // bits set (their pages written) by the first reads, inside the measurement.
      const v0 = performance.now()
      await c.query('VACUUM ANALYZE trips, searches, refresh_tokens')
      await c.end()
      return (performance.now() - v0) / 1000
    },
    async bytes() {
      const c = new pg.Client({ connectionString: databaseUrl })
      await c.connect()
      const {
        rows: [r],
      } = await c.query('SELECT pg_database_size(current_database())::bigint AS b')
      await c.end()
      return Number(r.b)
    },
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name}`)
      await c.end()
    },
  }
}

// ------------------------------------------------------------------ measurement

/**
 * One measured run. These machines are shared, so it also records what else took the CPU: `loadavg`, the
 * 1-minute load average at its end (this run alone keeps it near 2), and `steal`, the share of CPU time the
 * hypervisor gave to other machines during the run (measured: 20–30 % of it tripled p50 at one size).
 */
interface Sample {
  rps: number
  p50: number
  p99: number
  errors: number
  requests: number
  loadavg: number
  steal: number
}

/** The machine's CPU time counters (Linux /proc/stat: user … steal); null elsewhere. */
function cpuTimes(): { steal: number; total: number } | null {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number)
    return { steal: f[7] ?? 0, total: f.reduce((a, b) => a + b, 0) }
  } catch {
    return null
  }
}

interface Reader {
  id: string
  bearer: string
}

/** The live refresh token of each trip whose token this run has already rotated (the rest are refreshTokenOf). */
const rotated = new Map<string, string>()

/** `k` distinct trips drawn at random from `ids`, the whole table. */
function pick(ids: string[], k: number): string[] {
  if (k >= ids.length) return [...ids]
  const chosen = new Set<number>()
  while (chosen.size < k) chosen.add(Math.floor(Math.random() * ids.length))
  return [...chosen].map((i) => ids[i]!)
}

/** One access token per trip, minted as the widget does; 16 at a time. */
async function mint(url: string, tripIds: string[]): Promise<Reader[]> {
  const out: Reader[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < tripIds.length) {
        const id = tripIds[next++]!
        const res = await fetch(`${url}/v2.2/refresh_token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ refresh_token: rotated.get(id) ?? refreshTokenOf(id) }),
        })
        if (res.status !== 200)
          throw new Error(`POST refresh_token for ${id} answered ${res.status}: ${await res.text()}`)
        const body = (await res.json()) as { trip_access_token: string; refresh_token: string }
        rotated.set(id, body.refresh_token)
        out.push({ id, bearer: `Bearer ${body.trip_access_token}` })
      }
    }),
  )
  return out
}

const percentile = (sorted: Float64Array, q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!

async function load(url: string, readers: Reader[]): Promise<Sample> {
  const options: autocannon.Options = {
    url: `${url}/`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        // A trip drawn at random for every request, so consecutive reads do not share a page.
        setupRequest: (req) => {
          const r = readers[Math.floor(Math.random() * readers.length)]!
          return { ...req, path: `/v2.2/trip/${r.id}/basket`, headers: { authorization: r.bearer } }
        },
      },
    ],
  }
  // Unrecorded first: a fresh service fills its trip cache (half the default sample) and its rendered baskets
  // to their steady state, which the measured run then reads in.
  await autocannon(options)
  const latencies: number[] = []
  // Awaited for its result, and an emitter of every response with its duration (the types show only the former).
  const before = cpuTimes()
  const run = autocannon(options) as Promise<autocannon.Result> & EventEmitter
  run.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status < 300) latencies.push(ms)
  })
  const r = await run
  const after = cpuTimes()
  const sorted = Float64Array.from(latencies).sort()
  return {
    rps: r.requests.average,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    errors: r.errors + r.non2xx,
    requests: sorted.length,
    loadavg: loadavg()[0]!,
    steal: before && after ? (after.steal - before.steal) / Math.max(1, after.total - before.total) : NaN,
  }
}

// ------------------------------------------------------------------ the run

interface Loaded {
  size: number
  seconds: number
  settle: number
  rows: number
  bytes: number
}

async function scaleStore(loader: Loader, fit: number[]) {
  const tripIds: string[] = []
  const loads: Loaded[] = []
  const results = new Map<number, Sample[]>()
  for (const size of fit) {
    const n = size - tripIds.length
    const t0 = performance.now()
    const settle = await loader.grow(n, (id) => tripIds.push(id))
    const took = (performance.now() - t0) / 1000 - settle
    const bytes = await loader.bytes()
    loads.push({ size, seconds: took, settle, rows: n * 4, bytes })
    console.error(
      `${loader.label}: +${n.toLocaleString('en')} trips (${(n * 4).toLocaleString('en')} rows) in ${took.toFixed(1)} s, ` +
        `${Math.round((n * 4) / took).toLocaleString('en')} rows/s, ${Math.round(n / took).toLocaleString('en')} trips/s` +
        `${settle ? `, then VACUUM ANALYZE ${settle.toFixed(1)} s` : ''}; database ${gib(bytes)}`,
    )
    const env = { DATABASE_URL: loader.databaseUrl, BENCH_API_KEY: loader.template.apiKey }
    // One sample per size, its tokens minted by a service of its own: every round then starts a fresh service
    // (empty in-process caches; the database's and the operating system's stay warm, as a live one's are).
    const minter = await serve('service', { env })
    const m0 = performance.now()
    const readers = await mint(minter.url, pick(tripIds, sample)).finally(() => minter.stop())
    console.error(
      `${loader.label} ${size.toLocaleString('en')} trips: ${readers.length} access tokens minted in ${((performance.now() - m0) / 1000).toFixed(1)} s`,
    )
    for (let round = 1; round <= rounds; round++) {
      const s = await serve('service', { env })
      try {
        const x = await load(s.url, readers)
        results.set(size, [...(results.get(size) ?? []), x])
        console.error(
          `round ${round}: ${loader.label} ${size.toLocaleString('en')} trips: GET basket p50 ${x.p50.toFixed(2)} ms, ` +
            `p99 ${x.p99.toFixed(2)} ms, ${Math.round(x.rps)} req/s, ${x.errors} errors; load average ${x.loadavg.toFixed(1)}, CPU steal ${pct(x.steal)}`,
        )
      } finally {
        await s.stop()
      }
    }
  }
  return { loads, results }
}

const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`
const pct = (x: number) => (Number.isNaN(x) ? '?' : `${(x * 100).toFixed(0)} %`)

function report(label: string, { loads, results }: Awaited<ReturnType<typeof scaleStore>>) {
  console.log(
    `\n${label}: GET basket at each size; ${connections} connections, ${seconds} s, ${rounds} rounds (median, lowest–highest); ` +
      `each request a random one of ${sample.toLocaleString('en')} trips picked from the whole table, read with its trip access token`,
  )
  console.table(
    loads.map((l) => {
      const xs = results.get(l.size)!
      return {
        trips: l.size.toLocaleString('en'),
        'p50 ms': spread(
          xs.map((x) => x.p50),
          2,
          '',
        ),
        'p99 ms': spread(
          xs.map((x) => x.p99),
          2,
          '',
        ),
        'req/s': Math.round(median(xs.map((x) => x.rps))),
        errors: xs.reduce((n, x) => n + x.errors, 0),
        'load avg': median(xs.map((x) => x.loadavg)).toFixed(1),
        'CPU steal': pct(median(xs.map((x) => x.steal))),
        'loaded (trips added)': `${(l.rows / 4).toLocaleString('en')} in ${l.seconds.toFixed(1)} s`,
        'rows/s': Math.round(l.rows / l.seconds).toLocaleString('en'),
        ...(l.settle ? { 'VACUUM s': l.settle.toFixed(1) } : {}),
        database: gib(l.bytes),
        'KiB/trip': (l.bytes / l.size / 1024).toFixed(1),
      }
    }),
  )
  if (loads.length > 1) {
    const small = results.get(loads[0]!.size)!
    const large = results.get(loads.at(-1)!.size)!
    const ratio = median(large.map((x) => x.p99)) / median(small.map((x) => x.p99))
    // Round i of the largest size over round i of the smallest: the spread of the ratio itself.
    const pairs = large.map((x, i) => x.p99 / small[i]!.p99)
    console.log(
      `p99 at ${loads.at(-1)!.size.toLocaleString('en')} ÷ p99 at ${loads[0]!.size.toLocaleString('en')}: ${ratio.toFixed(2)}× ` +
        `(round by round ${spread(pairs, 2)}); target ≤ 1.30×: ${ratio <= 1.3 ? 'met' : 'NOT met'}`,
    )
    const stolen = [...small, ...large].filter((x) => x.steal > 0.05).length
    if (stolen)
      console.log(
        `  (${stolen} of these rounds lost over 5 % of the CPU to other machines: run it again before reading the ratio)`,
      )
  }
}

export async function scale(): Promise<void> {
  for (const which of stores) {
    if (which !== 'sqlite' && which !== 'postgres')
      throw new Error(`BENCH_SCALE_STORES: unknown store ${JSON.stringify(which)} (sqlite, postgres)`)
    const pgServer = which === 'postgres' ? startPg() : null
    if (which === 'postgres' && !pgServer) continue
    const dir = mkdtempSync(join(tmpdir(), 'svc-scale-'))
    // Only the sizes the disk holds (PostgreSQL's cluster lives under the same temporary directory root).
    const { bavail, bsize } = statfsSync(dir)
    const free = bavail * bsize
    const fit = sizes.filter((n) => n * BYTES_PER_TRIP < free * 0.9)
    for (const n of sizes.filter((x) => !fit.includes(x)))
      console.error(
        `${which}: ${n.toLocaleString('en')} trips skipped: ~${gib(n * BYTES_PER_TRIP)} needed, ${gib(free)} free`,
      )
    let loader: Loader | undefined
    try {
      loader = which === 'sqlite' ? await sqliteLoader(dir) : await pgLoader(pgServer!.url)
      if (fit.length) report(loader.label, await scaleStore(loader, fit))
    } finally {
      await loader?.drop()
      pgServer?.stop()
      rmSync(dir, { recursive: true, force: true })
      rotated.clear()
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await scale()
