/**
 * The PostgreSQL Store (pg Pool): for many stateless instances sharing one database. Timestamps are
 * timestamptz; documents read and written whole are json (text), the others jsonb; workers claim jobs with
 * FOR UPDATE SKIP LOCKED so each runs once.
 *
 * Every statement is prepared once per connection (named), and every operation is one round trip where one
 * statement can do it: a trip change is one conditional UPDATE (atomic without BEGIN/COMMIT, and no
 * connection sits idle in a transaction while this process works), the plain changes of a turn of the
 * event loop are one UPDATE together (updateTrips), and a trip with everything it brings along (search,
 * seat maps, session, jobs) is one statement of data-modifying CTEs, atomic as a statement is.
 *
 * Durability, as the SQLite store's: a write that queues work (jobs: a fulfillment's orders, a check, a
 * webhook) commits synchronously, waiting for its WAL to reach disk, which makes every commit before it
 * durable too; any other commit returns once its WAL is written, not flushed (`synchronous_commit = off`
 * for the session), so a crash of the database server (not of this process) may lose the last moments of
 * basket edits, never a half-written one. Measured (npm run bench -- api, one run, the server's setting
 * switched): PUT basket 2,036 → 3,036 req/s, POST trip 1,192 → 1,446. A connection string that sets
 * `options` itself replaces this store's, leaving every commit synchronous.
 *
 * The plain reads and writes, the row mappers and the time helpers are shared with the SQLite store
 * (server/store/sql/): here is what PostgreSQL does its own way.
 */
import pg from 'pg'
import {
  bringsAlong,
  type ConsumeResult,
  type JobRecord,
  type OrderFeedEntry,
  type OrderFeedItem,
  type OrderFeedQuery,
  type PlainWrite,
  type PurgeCounts,
  type PurgeCutoffs,
  type SearchRecord,
  type TripEffects,
  type TripRecord,
  type Versioned,
  type KnownVersion,
} from '../../core/ports/records.ts'
import type { RateLimitCount, RateLimitHits, Store } from '../../core/ports/store.ts'
import type { SupplierSeatMap } from '../../core/ports/supplier-answers.ts'
import { isFulfilled } from '../../core/domain/fulfillment.ts'
import { migrations, schemaMigrationsTable } from './migrations.ts'
import { SqlStore } from './sql/base.ts'
import { json, postgres, type Row, type Statement } from './sql/dialect.ts'
import { checkedOrders, jobRow, tripDoc } from './sql/rows.ts'

/**
 * Connections per instance. Measured (bench/api-load.ts with DATABASE_POOL_SIZE, 16 clients, GET and PUT
 * basket, PostgreSQL on the same 2-core machine): 2 was a fifth slower, 4 to 16 the same within the noise.
 * A database on its own machine serving N instances wants about its cores × 2 connections in all.
 */
const DEFAULT_POOL_SIZE = 8

/** updateTrips: the casts of a row's parameters, and the most rows a prepared statement is kept for. */
const BATCH_TYPES = ['::text', '::integer', '::text', '::json', '::timestamptz', '::text', '::boolean']
const PREPARED_BATCH = 32

/** Any constant shared by every instance: the migration lock is per database. */
const MIGRATION_LOCK = 7_250_601_184

/**
 * What a trip write brings along, as the JSON parameters of the CTEs below (empty arrays when absent), and
 * how many orders it moves. Seat maps come with the search that names them and take its time as their use.
 * Each order carries its place `i` (1, 2, ...) among them: it is numbered the seller's counter less the
 * count plus `i`.
 */
function effectParams(tripId: string, e: TripEffects = {}): Array<string | number> {
  const usedAt = e.search?.created_at ?? new Date().toISOString()
  const orders = checkedOrders(tripId, e)
  return [
    json(e.search ? [{ ...e.search, offers: e.search.offers }] : []),
    json((e.seatMaps ?? []).map((m) => ({ key: m.key, doc: m, used_at: usedAt }))),
    json(e.refreshToken ? [e.refreshToken] : []),
    json(e.jobs ?? []),
    json(
      orders.map((o, i) => {
        const doc: OrderFeedItem = { ...o, updated_at: new Date(o.updated_at).toISOString() }
        return { i: i + 1, order_id: o.order_id, status: o.status, updated_at: doc.updated_at, doc }
      }),
    ),
    orders.length,
    json(e.idempotency ? [e.idempotency] : []),
  ]
}

/**
 * The CTEs that store a trip write's effects, after the trip's own statement (CTE `t`, which must return
 * trip_id and seller_id): each inserts only when `t` wrote its row, so a version conflict stores nothing.
 * $e1..$e7 are effectParams' order. A seat map in use gets used_at refreshed at most hourly.
 *
 * Orders (the feed, core/domain/order-feed.ts): `n` moves the seller's counter on by their number, and keeps its row
 * locked until the statement commits, so a concurrent write of the same seller's orders waits for it and
 * takes the numbers after: numbers follow commit order. The trip's row is locked first (`t`), the
 * counter after, in every write, so two writes never wait on each other in a cycle.
 */
const effectsCtes = (e: number) => `
  s AS (INSERT INTO searches (search_id, trip_id, status, created_at, offers)
    SELECT x.search_id, x.trip_id, x.status, x.created_at, x.offers
    FROM t, json_to_recordset($${e}::json) AS x(search_id text, trip_id text, status text, created_at timestamptz, offers json)
    ON CONFLICT (search_id) DO UPDATE SET status = excluded.status, offers = excluded.offers WHERE searches.status = 'in_progress'),
  m AS (INSERT INTO seat_maps (key, doc, used_at)
    SELECT x.key, x.doc, x.used_at FROM t, json_to_recordset($${e + 1}::json) AS x(key text, doc json, used_at timestamptz)
    ON CONFLICT (key) DO UPDATE SET used_at = excluded.used_at WHERE seat_maps.used_at < excluded.used_at - interval '1 hour'),
  r AS (INSERT INTO refresh_tokens (token_hash, family_id, trip_id, seller_id, expires_at, used_at, revoked_at)
    SELECT x.token_hash, x.family_id, x.trip_id, x.seller_id, x.expires_at, x.used_at, x.revoked_at
    FROM t, json_to_recordset($${e + 2}::json) AS x(token_hash text, family_id text, trip_id text, seller_id text,
      expires_at timestamptz, used_at timestamptz, revoked_at timestamptz)),
  j AS (INSERT INTO jobs (job_id, kind, payload, run_at, attempts, max_attempts, locked_until, last_error, status, created_at, lane)
    SELECT x.job_id, x.kind, x.payload, x.run_at, x.attempts, x.max_attempts, x.locked_until, x.last_error, x.status, x.created_at, x.lane
    FROM t, json_to_recordset($${e + 3}::json) AS x(job_id text, kind text, payload jsonb, run_at timestamptz, attempts integer,
      max_attempts integer, locked_until timestamptz, last_error text, status text, created_at timestamptz, lane text)),
  n AS (INSERT INTO order_feeds AS f (seller_id, seq) SELECT t.seller_id, $${e + 5}::bigint FROM t WHERE $${e + 5}::bigint > 0
    ON CONFLICT (seller_id) DO UPDATE SET seq = f.seq + excluded.seq RETURNING seq),
  o AS (INSERT INTO orders (order_id, seller_id, trip_id, seq, status, updated_at, doc)
    SELECT x.order_id, t.seller_id, t.trip_id, n.seq - $${e + 5}::bigint + x.i, x.status, x.updated_at, x.doc
    FROM t, n, json_to_recordset($${e + 4}::json) AS x(i bigint, order_id text, status text, updated_at timestamptz, doc json)
    ON CONFLICT (order_id) DO UPDATE SET seq = excluded.seq, status = excluded.status, updated_at = excluded.updated_at, doc = excluded.doc),
  i AS (UPDATE idempotency_keys k SET response = x.response::jsonb
    FROM t, json_to_recordset($${e + 6}::json) AS x(scope text, key text, owner text, response json)
    WHERE k.scope = x.scope AND k.key = x.key AND k.owner = x.owner AND k.response IS NULL)`
/** The channel migration 5's trigger notifies on, with the trip's id as payload. */
const TRIP_CHANNEL = 'svc_trip_changed'
/** After the listening connection drops, how long before connecting again. */
const RELISTEN_MS = 1_000

export class PostgresStore extends SqlStore implements Store {
  readonly pool: pg.Pool
  readonly #config: pg.ClientConfig

  /** A connection string, or a pool config (e.g. with `options: '-c search_path=...'`). */
  /**
   * `onStatement` is told the text of every query a connection sends, BEGIN and COMMIT included: each is
   * one round trip to the database (how the tests and the bench count them).
   */
  constructor(config: string | pg.PoolConfig, opts: { onStatement?: (sql: string) => void } = {}) {
    super(postgres)
    this.#config = typeof config === 'string' ? { connectionString: config } : config
    const options = [this.#config.options, '-c synchronous_commit=off'].filter(Boolean).join(' ')
    this.pool = new pg.Pool({ max: DEFAULT_POOL_SIZE, ...this.#config, options })
    // An idle client that loses its connection emits here; without a listener that would crash the
    // process. The pool has already discarded the client and the next query opens a fresh one.
    this.pool.on('error', () => {})
    const told = opts.onStatement
    // pg has no per-query event: each new connection's query is wrapped (pool.query goes through it too).
    if (told) {
      this.pool.on('connect', (client) => {
        const query = client.query.bind(client) as (...args: unknown[]) => unknown
        client.query = ((...args: unknown[]) => {
          const q = args[0]
          told(typeof q === 'string' ? q : ((q as { text?: string }).text ?? ''))
          return query(...args)
        }) as typeof client.query
      })
    }
  }

  /** Applies every pending migration; `through` stops after that version (tests: a database left at an old version). */
  async migrate(through = Infinity): Promise<void> {
    await this.tx(async (c) => {
      // Serialises processes that start at once; released at commit.
      await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
      await c.query(schemaMigrationsTable.postgres)
      const { rows } = await c.query<{ version: number }>('SELECT version FROM schema_migrations')
      const applied = new Set(rows.map((r) => r.version))
      for (const m of migrations) {
        if (applied.has(m.version) || m.version > through) continue
        await c.query(m.postgres)
        await c.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name])
      }
    })
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end()
  }

  /**
   * LISTENs on a connection of its own (not one of the pool's, which would be lost to queries), and on
   * losing it connects again; a change made while it was away may have been missed, so it then says null.
   */
  async watchTrips(onChange: (tripId: string | null) => void): Promise<() => Promise<void>> {
    let client: pg.Client | null = null
    let stopped = false
    let retry: ReturnType<typeof setTimeout> | null = null
    const lost = (c: pg.Client) => {
      if (stopped || client !== c) return
      client = null
      void c.end().catch(() => {})
      retry = setTimeout(() => {
        listen().then(
          () => onChange(null),
          () => {},
        )
      }, RELISTEN_MS)
    }
    const listen = async (): Promise<void> => {
      const c = new pg.Client(this.#config)
      client = c
      c.on('notification', (n) => {
        if (n.channel === TRIP_CHANNEL && n.payload) onChange(n.payload)
      })
      c.on('error', () => lost(c))
      c.on('end', () => lost(c))
      try {
        await c.connect()
        await c.query(`LISTEN ${TRIP_CHANNEL}`)
      } catch (e) {
        lost(c)
        throw e
      }
    }
    // A first connection that fails is the caller's to handle (it checks versions instead): no retries.
    await listen().catch((e) => {
      stopped = true
      if (retry) clearTimeout(retry)
      throw e
    })
    return async () => {
      stopped = true
      if (retry) clearTimeout(retry)
      await client?.end().catch(() => {})
      client = null
    }
  }

  // ---------------------------------------------------------------- trips and searches

  async insertTrip(trip: TripRecord, effects?: TripEffects): Promise<void> {
    await this.write(
      effects,
      'insertTrip',
      `WITH t AS (
        INSERT INTO trips (trip_id, seller_id, version, updated_at, doc, search_id, open, created_at) VALUES ($1, $2, 1, $3, $4, $5, $6, $7)
        RETURNING trip_id, seller_id),
      ${effectsCtes(8)}
      SELECT 1`,
      [
        trip.trip_id,
        trip.seller_id,
        trip.updated_at,
        tripDoc(trip),
        trip.search_id,
        !isFulfilled(trip),
        trip.created_at,
        ...effectParams(trip.trip_id, effects),
      ],
    )
  }

  async getTrip(tripId: string): Promise<Versioned<TripRecord> | undefined> {
    const {
      rows: [r],
    } = await this.run('getTrip', 'SELECT doc, version, search_id FROM trips WHERE trip_id = $1', [tripId])
    return r && { value: this.to.trip(r), version: r.version as number }
  }

  async getTripsIfChanged(
    known: ReadonlyArray<KnownVersion>,
  ): Promise<Map<string, { version: number; value?: TripRecord }>> {
    // One round trip for every trip asked about, however many.
    const { rows } = await this.run(
      'getTripsIfChanged',
      `SELECT t.trip_id, t.version, t.search_id,
        CASE WHEN t.version = k.version THEN NULL ELSE t.doc END AS doc
      FROM unnest($1::text[], $2::integer[]) AS k (trip_id, version) JOIN trips t ON t.trip_id = k.trip_id`,
      [known.map((k) => k.tripId), known.map((k) => k.version)],
    )
    return new Map(
      rows.map((r) => [
        r.trip_id as string,
        r.doc === null ? { version: r.version as number } : { value: this.to.trip(r), version: r.version as number },
      ]),
    )
  }

  async updateTrip(trip: TripRecord, expectedVersion: number, effects?: TripEffects): Promise<number | null> {
    // A trip's seller never changes, so seller_id is only matched, not written.
    const values = [
      tripDoc(trip),
      trip.seller_id,
      trip.updated_at,
      trip.search_id,
      !isFulfilled(trip),
      trip.trip_id,
      expectedVersion,
    ]
    const set = `UPDATE trips SET doc = $1, updated_at = $3, search_id = $4, open = $5, version = version + 1
        WHERE trip_id = $6 AND version = $7 AND seller_id = $2`
    // The common change (a basket edit) brings nothing along: one conditional UPDATE, no transaction.
    const {
      rows: [r],
    } = bringsAlong(effects)
      ? await this.write(
          effects,
          'updateTripWith',
          `WITH t AS (${set} RETURNING trip_id, seller_id, version), ${effectsCtes(8)} SELECT version FROM t`,
          [...values, ...effectParams(trip.trip_id, effects)],
        )
      : await this.run('updateTrip', `${set} RETURNING version`, values)
    return r ? (r.version as number) : null
  }

  async updateTrips(writes: ReadonlyArray<PlainWrite>): Promise<Array<number | null>> {
    if (writes.length === 0) return []
    if (writes.length === 1) return [await this.updateTrip(writes[0]!.trip, writes[0]!.expectedVersion)]
    // One UPDATE of every row named, locked in trip_id order as every instance's batches lock them, so two
    // batches never wait on each other in a cycle.
    const sorted = [...writes].sort((x, y) => (x.trip.trip_id < y.trip.trip_id ? -1 : 1))
    if (new Set(sorted.map((w) => w.trip.trip_id)).size < sorted.length)
      throw new Error('updateTrips: a trip named twice')
    // The rows as parameters of a VALUES list, each document a parameter of its own: one JSON parameter
    // holding them all cost the database ~50 µs a document in json_to_recordset, and a json[] parameter made
    // pg escape every quote of every document (7 % of a PUT's time under load). A statement per row count,
    // prepared up to PREPARED_BATCH rows; a larger batch is planned each time.
    const columns = 7
    const values = sorted.map(
      (_, i) => `(${Array.from({ length: columns }, (_, c) => `$${i * columns + c + 1}${BATCH_TYPES[c]}`).join(', ')})`,
    )
    const { rows } = await this.pool.query({
      ...(sorted.length <= PREPARED_BATCH ? { name: `updateTrips${sorted.length}` } : {}),
      text: `UPDATE trips t SET doc = u.doc, updated_at = u.updated_at, search_id = u.search_id, open = u.open, version = t.version + 1
        FROM (VALUES ${values.join(', ')}) AS u (trip_id, version, seller_id, doc, updated_at, search_id, open)
        WHERE t.trip_id = u.trip_id AND t.version = u.version AND t.seller_id = u.seller_id
        RETURNING t.trip_id, t.version`,
      values: sorted.flatMap(({ trip, expectedVersion }) => [
        trip.trip_id,
        expectedVersion,
        trip.seller_id,
        tripDoc(trip),
        trip.updated_at,
        trip.search_id,
        !isFulfilled(trip),
      ]),
    })
    const written = new Map(rows.map((r) => [r.trip_id as string, r.version as number]))
    return writes.map((w) => written.get(w.trip.trip_id) ?? null)
  }

  async putSearch(s: SearchRecord, seatMaps: SupplierSeatMap[] = []): Promise<void> {
    await this.run(
      'putSearch',
      `WITH t AS (SELECT trip_id, seller_id FROM trips WHERE trip_id = $1), ${effectsCtes(2)}
      SELECT (SELECT count(*) FROM t) AS found`,
      [s.trip_id, ...effectParams(s.trip_id, { search: s, seatMaps })],
    ).then(({ rows: [r] }) => {
      if (Number(r!.found) === 0) throw new Error(`unknown trip ${s.trip_id}`)
    })
  }

  async getSearch(searchId: string): Promise<SearchRecord | undefined> {
    const r = await this.one(this.S.getSearch, [searchId])
    return r && this.to.search(r)
  }

  async listOrders(sellerId: string, q: OrderFeedQuery): Promise<OrderFeedEntry[]> {
    const where = ['seller_id = $1', 'seq > $2']
    const args: unknown[] = [sellerId, q.after]
    let name = 'listOrders'
    if (q.status !== undefined) {
      args.push(q.status)
      where.push(`status = $${args.length}`)
      name += 'S'
    }
    if (q.updatedSince !== undefined) {
      args.push(q.updatedSince)
      const since = `$${args.length}::timestamptz`
      where.push(`updated_at >= ${since}`)
      name += 'U'
      // On the first page, start at the first order changed since then (found in orders_updated) rather
      // than walk the seller's whole history in orders_feed: every order changed since has a number from there.
      if (q.after === 0) {
        where.push(`seq >= (SELECT coalesce(min(seq), 0) FROM orders WHERE seller_id = $1 AND updated_at >= ${since})`)
        name += '0'
      }
    }
    args.push(q.limit)
    const { rows } = await this.run(
      name,
      `SELECT seq, doc FROM orders WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $${args.length}`,
      args,
    )
    return rows.map(this.to.feedEntry)
  }

  // ---------------------------------------------------------------- refresh tokens

  async consumeRefreshToken(tokenHash: string, now: Date): Promise<ConsumeResult> {
    // One statement decides the winner: a concurrent consumer waits on the row lock, then finds used_at set.
    const {
      rows: [won],
    } = await this.run(
      'consumeRefreshToken',
      `UPDATE refresh_tokens SET used_at = $2
      WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING *`,
      [tokenHash, now.toISOString()],
    )
    if (won) return { status: 'ok', record: this.to.refreshToken(won) }
    const r = await this.one(this.S.getRefreshToken, [tokenHash])
    if (!r) return { status: 'unknown' }
    const record = this.to.refreshToken(r)
    return { status: record.revoked_at !== null ? 'revoked' : record.used_at !== null ? 'reused' : 'expired', record }
  }

  // ---------------------------------------------------------------- jobs

  async enqueueJob(job: JobRecord): Promise<void> {
    await this.write({ jobs: [job] }, this.S.insertJob.name, this.S.insertJob.text, jobRow(this.d, job))
  }

  async claimJob(
    kinds: string[],
    now: Date,
    leaseMs: number,
    opts: { perLane?: number } = {},
  ): Promise<JobRecord | undefined> {
    if (kinds.length === 0) return undefined
    const args = [now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), kinds]
    // SKIP LOCKED: concurrent claimers pass over a row another one is taking instead of waiting for it,
    // and a row that changed meanwhile is re-checked against the WHERE clause before it is locked.
    const {
      rows: [r],
    } =
      opts.perLane === undefined
        ? await this.run(
            'claimJob',
            `UPDATE jobs SET locked_until = $2, attempts = attempts + 1
          WHERE job_id = (
            SELECT job_id FROM jobs
            WHERE status = 'pending' AND run_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
              AND kind = ANY($3::text[])
            ORDER BY run_at, job_id LIMIT 1
            FOR UPDATE SKIP LOCKED)
          RETURNING *`,
            args,
          )
        : // Fair between lanes: how many leased jobs each candidate's lane holds now (jobs_lane answers it).
          await this.run(
            'claimJobFair',
            `UPDATE jobs SET locked_until = $2, attempts = attempts + 1
          WHERE job_id = (
            SELECT j.job_id FROM jobs j
            CROSS JOIN LATERAL (SELECT count(*) AS n FROM jobs r WHERE r.lane = j.lane AND r.status = 'pending' AND r.locked_until > $1) busy
            WHERE j.status = 'pending' AND j.run_at <= $1 AND (j.locked_until IS NULL OR j.locked_until <= $1)
              AND j.kind = ANY($3::text[]) AND busy.n < $4
            ORDER BY busy.n, j.run_at, j.job_id LIMIT 1
            FOR UPDATE OF j SKIP LOCKED)
          RETURNING *`,
            [...args, opts.perLane],
          )
    return r && this.to.job(r)
  }

  // ---------------------------------------------------------------- rate limits

  async addRateLimitHits(hits: ReadonlyArray<RateLimitHits>): Promise<RateLimitCount[]> {
    // Keys in one order on every instance, so two batches never wait on each other's rows in a cycle.
    const sorted = [...hits].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
    const { rows } = await this.run(
      'addRateLimitHits',
      `INSERT INTO rate_limits AS l (key, count, reset_at)
        SELECT k, n, now() + w * interval '1 millisecond' FROM unnest($1::text[], $2::int[], $3::int[]) AS h(k, n, w)
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN l.reset_at <= now() THEN excluded.count ELSE l.count + excluded.count END,
        reset_at = CASE WHEN l.reset_at <= now() THEN excluded.reset_at ELSE l.reset_at END
      RETURNING key, count, greatest(0, ceil(extract(epoch FROM reset_at - now()) * 1000))::integer AS ttl`,
      [sorted.map((h) => h.key), sorted.map((h) => h.hits), sorted.map((h) => h.windowMs)],
    )
    return rows.map((r) => ({ key: r.key as string, count: r.count as number, ttlMs: r.ttl as number }))
  }

  // ---------------------------------------------------------------- retention

  async purge(c: PurgeCutoffs, batch = 1000): Promise<PurgeCounts> {
    const n: PurgeCounts = {
      trips: 0,
      searches: 0,
      seat_maps: 0,
      refresh_tokens: 0,
      idempotency_keys: 0,
      jobs: 0,
      signing_keys: 0,
    }
    // Each batch is one statement (data-modifying CTEs), so no transaction stays open between round trips,
    // and instances purging at once skip each other's rows (SKIP LOCKED) instead of waiting.
    const batches = async (step: () => Promise<number>) => {
      for (let done = batch; done === batch;) done = await step()
    }
    await batches(async () => {
      const {
        rows: [r],
      } = await this.run(
        'purgeTrips',
        `WITH t AS (
          SELECT trip_id FROM trips WHERE created_at < $1 AND open LIMIT $2 FOR UPDATE SKIP LOCKED),
        s AS (DELETE FROM searches WHERE trip_id IN (SELECT trip_id FROM t) RETURNING 1),
        r AS (DELETE FROM refresh_tokens WHERE trip_id IN (SELECT trip_id FROM t) RETURNING 1),
        o AS (DELETE FROM orders WHERE trip_id IN (SELECT trip_id FROM t)),
        d AS (DELETE FROM trips WHERE trip_id IN (SELECT trip_id FROM t) RETURNING 1)
        SELECT (SELECT count(*) FROM t) AS picked, (SELECT count(*) FROM s) AS searches,
          (SELECT count(*) FROM r) AS tokens, (SELECT count(*) FROM d) AS trips`,
        [c.tripsBefore, batch],
      )
      n.searches += Number(r!.searches)
      n.refresh_tokens += Number(r!.tokens)
      n.trips += Number(r!.trips)
      return Number(r!.picked)
    })
    await batches(async () => {
      const {
        rows: [r],
      } = await this.run(
        'purgeSearches',
        `WITH s AS (
          SELECT s.search_id, s.trip_id, t.search_id = s.search_id AS current FROM searches s JOIN trips t ON t.trip_id = s.trip_id
          WHERE s.created_at < $1 AND NOT (t.open AND t.search_id IS NOT DISTINCT FROM s.search_id) LIMIT $2 FOR UPDATE OF s SKIP LOCKED),
        d AS (DELETE FROM searches WHERE search_id IN (SELECT search_id FROM s) RETURNING 1),
        u AS (UPDATE trips SET search_id = NULL, version = version + 1 WHERE trip_id IN (SELECT trip_id FROM s WHERE current) RETURNING 1)
        SELECT (SELECT count(*) FROM s) AS picked, (SELECT count(*) FROM d) AS deleted`,
        [c.searchesBefore, batch],
      )
      n.searches += Number(r!.deleted)
      return Number(r!.picked)
    })
    const del = (name: string, table: string, key: string, where: string, at: Date, count: keyof PurgeCounts) =>
      batches(async () => {
        const r = await this.run(
          name,
          `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT $2 FOR UPDATE SKIP LOCKED)`,
          [at, batch],
        )
        n[count] += r.rowCount ?? 0
        return r.rowCount ?? 0
      })
    await del('purgeSeatMaps', 'seat_maps', 'key', 'used_at < $1', c.seatMapsBefore, 'seat_maps')
    await del('purgeTokens', 'refresh_tokens', 'token_hash', 'expires_at < $1', c.tokensBefore, 'refresh_tokens')
    await del(
      'purgeIdempotency',
      'idempotency_keys',
      'scope, key',
      'created_at < $1',
      c.idempotencyBefore,
      'idempotency_keys',
    )
    await del('purgeJobs', 'jobs', 'job_id', `created_at < $1 AND status <> 'pending'`, c.jobsBefore, 'jobs')
    await del('purgeSigningKeys', 'signing_keys', 'kid', 'retire_at < $1', c.signingKeysBefore, 'signing_keys')
    // Windows that ended: not counted, they are a cache of counts, not records.
    await this.run('purgeRateLimits', 'DELETE FROM rate_limits WHERE reset_at < now()')
    return n
  }

  // ---------------------------------------------------------------- private

  // The shared statements (server/store/sql/base.ts): each a named statement, one round trip.
  protected async one(s: Statement, params: readonly unknown[] = []): Promise<Row | undefined> {
    return (await this.run(s.name, s.text, params)).rows[0] as Row | undefined
  }

  protected async all(s: Statement, params: readonly unknown[] = []): Promise<Row[]> {
    return (await this.run(s.name, s.text, params)).rows as Row[]
  }

  protected async change(s: Statement, params: readonly unknown[] = []): Promise<number> {
    return (await this.run(s.name, s.text, params)).rowCount ?? 0
  }

  /** A named (prepared once per connection) statement: PostgreSQL plans it once instead of at every call. */
  private run(name: string, text: string, values: readonly unknown[] = []): Promise<pg.QueryResult> {
    return this.pool.query({ name, text, values: values as unknown[] })
  }

  /**
   * A write and what it brings along: one statement, committed synchronously when it queues work (the
   * session commits asynchronously; see the top of this file), which takes a transaction of its own.
   */
  private write(
    effects: TripEffects | undefined,
    name: string,
    text: string,
    values: readonly unknown[],
  ): Promise<pg.QueryResult> {
    if (!effects?.jobs?.length) return this.run(name, text, values)
    return this.tx(async (c) => {
      await c.query('SET LOCAL synchronous_commit = on')
      return c.query({ name, text, values: values as unknown[] })
    })
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect()
    let broken: Error | undefined
    try {
      await c.query('BEGIN')
      const result = await fn(c)
      await c.query('COMMIT')
      return result
    } catch (e) {
      // A connection that cannot even roll back must not go back into the pool.
      await c.query('ROLLBACK').catch((err: Error) => {
        broken = err
      })
      throw e
    } finally {
      c.release(broken)
    }
  }
}
