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
 * Every statement is written once for both SQL stores (server/store/sql/): here is how PostgreSQL runs
 * them, each a named statement, and what only PostgreSQL has (the trips' notifications, the rate-limit
 * counters every instance shares, the version check of many trips in one round trip).
 */
import pg from 'pg'
import {
  bringsAlong,
  MAX_SUPPLIER_CALLS,
  type TripEventInput,
  type JobRecord,
  type PlainWrite,
  type PurgeCounts,
  type PurgeCutoffs,
  type SearchRecord,
  type TripEffects,
  type TripRecord,
  type KnownVersion,
} from '../../core/ports/records.ts'
import type { RateLimitCount, RateLimitHits, Store } from '../../core/ports/store.ts'
import type { SupplierSeatMap } from '../../core/ports/supplier-answers.ts'
import { migrations, schemaMigrationsTable } from './migrations.ts'
import { SqlStore } from './sql/base.ts'
import { json, postgres, type Row, type Statement } from './sql/dialect.ts'
import type { PurgeStep } from './sql/retention.ts'
import { jobRow, tripRow } from './sql/rows.ts'
import { effectParams, eventRows, postgresTripWrites, updateTripsText } from './sql/trip-writes.ts'

/**
 * Connections per instance. Measured (bench/api-load.ts with DATABASE_POOL_SIZE, 16 clients, GET and PUT
 * basket, PostgreSQL on the same 2-core machine): 2 was a fifth slower, 4 to 16 the same within the noise.
 * A database on its own machine serving N instances wants about its cores × 2 connections in all.
 */
const DEFAULT_POOL_SIZE = 8

/** updateTrips: the most rows a prepared statement is kept for (a larger batch is planned each time). */
const PREPARED_BATCH = 32

/** Any constant shared by every instance: the migration lock is per database. */
const MIGRATION_LOCK = 7_250_601_184

/** The channel migration 5's trigger notifies on, with the trip's id as payload. */
const TRIP_CHANNEL = 'svc_trip_changed'
/** After the listening connection drops, how long before connecting again. */
const RELISTEN_MS = 1_000

/** The advisory lock fair job claims take (any number: it only has to be one no other code takes). */
const FAIR_CLAIMS_LOCK = 7_363_501

export class PostgresStore extends SqlStore implements Store {
  readonly pool: pg.Pool
  readonly #config: pg.ClientConfig
  /** A trip write with what it brings along, as one statement (sql/trip-writes.ts). */
  readonly #writes = postgresTripWrites(this.W)

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
    await this.write(effects, this.#writes.insertTripWith, [
      ...tripRow(this.d, trip, 1),
      this.d.time(trip.created_at),
      ...effectParams(trip.trip_id, effects, false),
    ])
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
    const row = tripRow(this.d, trip, expectedVersion)
    // The common change (a basket edit) brings nothing along but its timeline entry: one conditional UPDATE
    // (with the entry's INSERT as a CTE of it), no transaction.
    if (!bringsAlong(effects)) {
      if (!effects?.events?.length)
        return (await this.change(this.W.updateTrip, row)) === 1 ? expectedVersion + 1 : null
      const [one, ...more] = effects.events
      const w = more.length ? this.#writes.updateTripEvents : this.#writes.updateTripEvent
      const found = await this.run(
        w.name,
        w.text,
        more.length
          ? [...row, eventRows(effects.events)]
          : [...row, this.d.time(one!.at), one!.kind, json(one!.detail)],
      )
      return found.rows.length === 1 ? expectedVersion + 1 : null
    }
    const {
      rows: [r],
    } = await this.write(effects, this.#writes.updateTripWith, [...row, ...effectParams(trip.trip_id, effects)])
    return r ? (r.version as number) : null
  }

  async updateTrips(writes: ReadonlyArray<PlainWrite>): Promise<Array<number | null>> {
    if (writes.length === 0) return []
    if (writes.length === 1) {
      const [w] = writes
      return [await this.updateTrip(w!.trip, w!.expectedVersion, w!.events ? { events: w!.events } : undefined)]
    }
    // One UPDATE of every row named, locked in trip_id order as every instance's batches lock them, so two
    // batches never wait on each other in a cycle.
    const sorted = [...writes].sort((x, y) => (x.trip.trip_id < y.trip.trip_id ? -1 : 1))
    if (new Set(sorted.map((w) => w.trip.trip_id)).size < sorted.length)
      throw new Error('updateTrips: a trip named twice')
    // A statement per row count, prepared up to PREPARED_BATCH rows; a larger batch is planned each time.
    const { rows } = await this.pool.query({
      ...(sorted.length <= PREPARED_BATCH ? { name: `updateTrips${sorted.length}` } : {}),
      text: updateTripsText(sorted.length),
      values: [
        ...sorted.flatMap(({ trip, expectedVersion }) => tripRow(this.d, trip, expectedVersion)),
        eventRows(sorted.flatMap((w) => w.events ?? [])),
      ],
    })
    const written = new Map(rows.map((r) => [r.trip_id as string, r.version as number]))
    return writes.map((w) => written.get(w.trip.trip_id) ?? null)
  }

  async putSearch(s: SearchRecord, seatMaps: SupplierSeatMap[] = [], events: TripEventInput[] = []): Promise<void> {
    const {
      rows: [r],
    } = await this.run(this.#writes.putSearch.name, this.#writes.putSearch.text, [
      s.trip_id,
      ...effectParams(s.trip_id, { search: s, seatMaps, events }),
    ])
    if (Number(r!.found) === 0) throw new Error(`unknown trip ${s.trip_id}`)
  }

  async appendTripEvents(events: TripEventInput[]): Promise<void> {
    if (events.length === 0) return
    await this.tx(async (c) => {
      const q = (st: Statement, values: unknown[]) => c.query({ name: st.name, text: st.text, values })
      await q(this.S.appendTripEvents, [eventRows(events)])
      for (const tripId of new Set(events.map((e) => e.trip_id)))
        await q(this.W.trimCalls, [tripId, MAX_SUPPLIER_CALLS])
    })
  }

  // ---------------------------------------------------------------- jobs

  async enqueueJob(job: JobRecord): Promise<void> {
    await this.write({ jobs: [job] }, this.S.insertJob, jobRow(this.d, job))
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

  /**
   * A fair claim (no lane above `perLane` live leases) one at a time, on every instance. Under READ COMMITTED
   * two claims at once each counted the lane without the other's new lease, and a seller held more than its
   * share of the search lane (3 of 4 with two busy loops beside the suite; six of six claims at once in the
   * store contract). The transaction's advisory lock is taken before the claim's statement takes its snapshot,
   * so each claim counts the leases of those before it. A claim is per job, not per request: the lock costs a
   * job two round trips more.
   */
  override async claimJob(
    kinds: string[],
    now: Date,
    leaseMs: number,
    opts: { perLane?: number } = {},
  ): Promise<JobRecord | undefined> {
    if (opts.perLane === undefined || kinds.length === 0) return super.claimJob(kinds, now, leaseMs, opts)
    const args = [now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), this.d.list(kinds), opts.perLane]
    const r = await this.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [FAIR_CLAIMS_LOCK])
      const s = this.S.claimJobFair
      return (await c.query({ name: s.name, text: s.text, values: args })).rows[0] as Row | undefined
    })
    return r && this.to.job(r)
  }

  // ---------------------------------------------------------------- retention

  override async purge(c: PurgeCutoffs, batch = 1000): Promise<PurgeCounts> {
    const n = await super.purge(c, batch)
    // Windows that ended: not counted, they are a cache of counts, not records.
    await this.run('purgeRateLimits', 'DELETE FROM rate_limits WHERE reset_at < now()')
    return n
  }

  /** A batch of retention that picks rows: one statement of CTEs, so no transaction stays open between round trips. */
  protected async purgePicked(
    step: Extract<PurgeStep, { kind: 'pick' }>,
    params: readonly unknown[],
    counts: PurgeCounts,
  ): Promise<number> {
    const r = (await this.one(step.composed, params))!
    step.writes.forEach((w, i) => {
      if (w.count) counts[w.count] += Number(r[`w${i}`])
    })
    return Number(r.picked)
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
  private write(effects: TripEffects | undefined, s: Statement, values: readonly unknown[]): Promise<pg.QueryResult> {
    if (!effects?.jobs?.length) return this.run(s.name, s.text, values)
    return this.tx(async (c) => {
      await c.query('SET LOCAL synchronous_commit = on')
      return c.query({ name: s.name, text: s.text, values: values as unknown[] })
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
