/**
 * The SQLite Store (better-sqlite3): the embedded default for one machine. The server and a separate
 * worker process may share one file: WAL lets readers run beside the writer, busy_timeout makes a writer
 * wait for the other process's write lock instead of failing, and every write transaction is IMMEDIATE so
 * it takes that lock up front (a deferred one could fail with SQLITE_BUSY when upgrading from read to write).
 *
 * Durability: WAL with synchronous=NORMAL, SQLite's recommended pairing. A commit survives the process
 * dying (kill -9: test/server/worker.test.ts); an operating-system crash or power loss may lose the
 * commits since the last sync. Every write that queues work (a fulfillment's orders, a check, a webhook)
 * syncs at its commit (synchronous=FULL for that transaction), which also makes every commit before it
 * durable. An fsync at every commit blocks the event loop for ~0.25 ms here, longer than a basket change.
 * The WAL's checkpoints (and their two fsyncs) run on a thread of their own (./sqlite-checkpoints.ts).
 *
 * Every statement is written once for both SQL stores (server/store/sql/): here is how SQLite runs them.
 * A trip write with what it brings along is its statements one after the other in one IMMEDIATE
 * transaction (sql/trip-writes.ts); the reads of the hot path are each one cached prepared statement run
 * synchronously, and the trips a host keeps are checked one statement a trip, in one read transaction.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import {
  bringsAlong,
  type JobRecord,
  type KnownVersion,
  type PlainWrite,
  type PurgeCounts,
  type SearchRecord,
  type TripEffects,
  type TripRecord,
} from '../../core/ports/records.ts'
import type { Store } from '../../core/ports/store.ts'
import type { SupplierSeatMap } from '../../core/ports/supplier-answers.ts'
import { migrations, schemaMigrationsTable } from './migrations.ts'
import { SqlStore } from './sql/base.ts'
import { json, sqlite, type Row, type Statement } from './sql/dialect.ts'
import type { PurgeStep } from './sql/retention.ts'
import { checkedOrders, jobRow, orderRow, refreshTokenRow, searchRow, seatMapRow, tripRow } from './sql/rows.ts'
import { CheckpointThread, type CheckpointOptions } from './sqlite-checkpoints.ts'

export class SqliteStore extends SqlStore implements Store {
  readonly db: Database.Database
  private prepared = new Map<string, Database.Statement>()
  /** The WAL's checkpoints off the event loop, when asked for (./sqlite-checkpoints.ts; openStore asks for a file). */
  readonly #checkpoints: CheckpointThread | null

  /**
   * `path` is a file (its directory is created if missing) or `:memory:`. `onStatement` is told the SQL of
   * every statement the database runs, BEGIN and COMMIT included (how the tests and the bench count them).
   * `checkpointThread`: checkpoint a file's WAL on a thread of its own rather than in the commit that fills it.
   */
  constructor(path: string, opts: { onStatement?: (sql: string) => void; checkpointThread?: CheckpointOptions } = {}) {
    super(sqlite)
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    this.db = new Database(path, opts.onStatement ? { verbose: (sql) => opts.onStatement!(String(sql)) } : {})
    // busy_timeout first: switching to WAL needs a lock another process may hold.
    this.db.pragma('busy_timeout = 5000')
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('synchronous = NORMAL')
    this.db.pragma('foreign_keys = ON')
    // Reads of a large table (bench/scale.ts, 1 M trips): a 64 MiB page cache and memory-mapped reads keep a
    // trip lookup near its cost at 10 k (measured 12.5 → 8.8 µs at 1 M); the default cache is 2 MiB.
    this.db.pragma('cache_size = -65536')
    this.db.pragma('mmap_size = 268435456')
    // A burst can take the WAL far past its usual size; once checkpointed, the file is cut back to 64 MiB.
    this.db.pragma('journal_size_limit = 67108864')
    this.#checkpoints =
      opts.checkpointThread && path !== ':memory:' ? new CheckpointThread(this.db, path, opts.checkpointThread) : null
  }

  /** Applies every pending migration; `through` stops after that version (tests: a database left at an old version). */
  async migrate(through = Infinity): Promise<void> {
    this.db
      .transaction(() => {
        this.db.exec(schemaMigrationsTable.sqlite)
        const applied = new Set(this.db.prepare('SELECT version FROM schema_migrations').pluck().all())
        for (const m of migrations) {
          if (applied.has(m.version) || m.version > through) continue
          this.db.exec(m.sqlite)
          this.db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name)
        }
      })
      .immediate()
  }

  async close(): Promise<void> {
    // The thread's connection first: the last one to close checkpoints what is left and removes the WAL.
    await this.#checkpoints?.stop()
    if (this.db.open) this.db.close()
  }

  // ---------------------------------------------------------------- trips and searches

  async insertTrip(trip: TripRecord, effects?: TripEffects): Promise<void> {
    this.write(effects, () => {
      this.q(
        'INSERT INTO trips (trip_id, seller_id, version, updated_at, doc, search_id, open, created_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?)',
      ).run(
        trip.trip_id,
        trip.seller_id,
        iso(trip.updated_at),
        tripDoc(trip),
        trip.search_id,
        isFulfilled(trip) ? 0 : 1,
        iso(trip.created_at),
      )
      this.storeEffects(effects)
      this.storeOrders(trip, effects)
    })
  }

  async getTrip(tripId: string): Promise<Versioned<TripRecord> | undefined> {
    const r = this.q('SELECT doc, version, search_id FROM trips WHERE trip_id = ?').get(tripId) as Row | undefined
    return r && { value: this.to.trip(r), version: r.version as number }
  }

  async getTripsIfChanged(
    known: ReadonlyArray<KnownVersion>,
  ): Promise<Map<string, { version: number; value?: TripRecord }>> {
    const statement = this.q(
      'SELECT version, search_id, CASE WHEN version = ? THEN NULL ELSE doc END AS doc FROM trips WHERE trip_id = ?',
    )
    const found = new Map<string, { version: number; value?: TripRecord }>()
    const each = () => {
      for (const { tripId, version } of known) {
        const r = statement.get(version, tripId) as Row | undefined
        if (r)
          found.set(tripId, r.doc === null ? { version } : { value: this.to.trip(r), version: r.version as number })
      }
    }
    // One trip is one statement; several are read in one transaction, so the WAL's read lock (two system
    // calls each time) is taken once for all of them and they are read from one snapshot.
    if (known.length > 1) this.db.transaction(each)()
    else each()
    return found
  }

  async updateTrip(trip: TripRecord, expectedVersion: number, effects?: TripEffects): Promise<number | null> {
    return this.write(effects, () => {
      const version = this.#update(trip, expectedVersion)
      if (version === null) return null
      this.storeEffects(effects)
      this.storeOrders(trip, effects)
      return version
    })
  }

  async updateTrips(writes: ReadonlyArray<PlainWrite>): Promise<Array<number | null>> {
    const each = () => writes.map((w) => this.#update(w.trip, w.expectedVersion))
    // Several in one IMMEDIATE transaction: one commit (one append to the WAL) for all of them.
    return writes.length > 1 ? this.db.transaction(each).immediate() : each()
  }

  /** The trip's row, if still at `expectedVersion`: its new version, or null. */
  #update(trip: TripRecord, expectedVersion: number): number | null {
    // A trip's seller never changes, so seller_id is not written (its foreign key is not checked again).
    const r = this.q(
      `UPDATE trips SET doc = ?, updated_at = ?, search_id = ?, open = ?, version = version + 1
      WHERE trip_id = ? AND version = ? AND seller_id = ?`,
    ).run(
      tripDoc(trip),
      iso(trip.updated_at),
      trip.search_id,
      isFulfilled(trip) ? 0 : 1,
      trip.trip_id,
      expectedVersion,
      trip.seller_id,
    )
    return r.changes === 0 ? null : expectedVersion + 1
  }

  async putSearch(s: SearchRecord, seatMaps: SupplierSeatMap[] = []): Promise<void> {
    this.write({ search: s, seatMaps }, () => this.storeEffects({ search: s, seatMaps }))
  }

  async getSearch(searchId: string): Promise<SearchRecord | undefined> {
    const r = this.q(this.S.getSearch.text).get(searchId) as Row | undefined
    return r && this.to.search(r)
  }

  async listOrders(sellerId: string, q: OrderFeedQuery): Promise<OrderFeedEntry[]> {
    const where = ['seller_id = ?', 'seq > ?']
    const args: unknown[] = [sellerId, q.after]
    if (q.status !== undefined) {
      where.push('status = ?')
      args.push(q.status)
    }
    if (q.updatedSince !== undefined) {
      const since = iso(q.updatedSince)
      where.push('updated_at >= ?')
      args.push(since)
      // On the first page, start at the first order changed since then (found in orders_updated) rather
      // than walk the seller's whole history in orders_feed: every order changed since has a number from there.
      if (q.after === 0) {
        where.push('seq >= (SELECT coalesce(min(seq), 0) FROM orders WHERE seller_id = ? AND updated_at >= ?)')
        args.push(sellerId, since)
      }
    }
    const rows = this.q(`SELECT seq, doc FROM orders WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`).all(
      ...args,
      q.limit,
    ) as Row[]
    return rows.map(this.to.feedEntry)
  }

  // ---------------------------------------------------------------- refresh tokens

  async consumeRefreshToken(tokenHash: string, now: Date): Promise<ConsumeResult> {
    return this.db
      .transaction((): ConsumeResult => {
        const r = this.one(this.S.getRefreshToken, [tokenHash])
        if (!r) return { status: 'unknown' }
        const t = this.to.refreshToken(r)
        if (t.revoked_at !== null) return { status: 'revoked', record: t }
        if (t.used_at !== null) return { status: 'reused', record: t }
        if (Date.parse(t.expires_at) <= now.getTime()) return { status: 'expired', record: t }
        const usedAt = now.toISOString()
        this.q('UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?').run(usedAt, tokenHash)
        return { status: 'ok', record: { ...t, used_at: usedAt } }
      })
      .immediate()
  }

  // ---------------------------------------------------------------- idempotency

  // ---------------------------------------------------------------- jobs

  async enqueueJob(job: JobRecord): Promise<void> {
    this.write({ jobs: [job] }, () => this.insertJobs([job]))
  }

  async claimJob(
    kinds: string[],
    now: Date,
    leaseMs: number,
    opts: { perLane?: number } = {},
  ): Promise<JobRecord | undefined> {
    if (kinds.length === 0) return undefined
    const t = now.toISOString()
    const lockedUntil = new Date(now.getTime() + leaseMs).toISOString()
    return this.db
      .transaction(() => {
        const r = (
          opts.perLane === undefined
            ? this.q(
                `SELECT * FROM jobs
            WHERE status = 'pending' AND run_at <= ? AND (locked_until IS NULL OR locked_until <= ?)
              AND kind IN (SELECT value FROM json_each(?))
            ORDER BY run_at, job_id LIMIT 1`,
              ).get(t, t, json(kinds))
            : // Fair between lanes: how many leased jobs each candidate's lane holds now (jobs_lane answers it).
              this.q(
                `SELECT j.*, (SELECT count(*) FROM jobs r WHERE r.lane = j.lane AND r.status = 'pending' AND r.locked_until > ?) AS busy
            FROM jobs j
            WHERE j.status = 'pending' AND j.run_at <= ? AND (j.locked_until IS NULL OR j.locked_until <= ?)
              AND j.kind IN (SELECT value FROM json_each(?)) AND busy < ?
            ORDER BY busy, j.run_at, j.job_id LIMIT 1`,
              ).get(t, t, t, json(kinds), opts.perLane)
        ) as Row | undefined
        if (!r) return undefined
        this.q('UPDATE jobs SET locked_until = ?, attempts = attempts + 1 WHERE job_id = ?').run(lockedUntil, r.job_id)
        const job = this.to.job(r)
        return { ...job, locked_until: lockedUntil, attempts: job.attempts + 1 }
      })
      .immediate()
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
    const t = (d: Date) => d.toISOString()
    // Each batch is its own short transaction, so the API's writes interleave with a long purge.
    const batches = (step: () => number) => {
      for (let done = batch; done === batch;) done = this.db.transaction(step).immediate()
    }
    batches(() => {
      const ids = this.q(`SELECT trip_id FROM trips WHERE created_at < ? AND open = 1 LIMIT ?`)
        .pluck()
        .all(t(c.tripsBefore), batch) as string[]
      if (ids.length === 0) return 0
      const list = json(ids)
      n.searches += this.q('DELETE FROM searches WHERE trip_id IN (SELECT value FROM json_each(?))').run(list).changes
      n.refresh_tokens += this.q('DELETE FROM refresh_tokens WHERE trip_id IN (SELECT value FROM json_each(?))').run(
        list,
      ).changes
      // An open trip has no orders (fulfilling one closes it); were there any, they would go with it.
      this.q('DELETE FROM orders WHERE trip_id IN (SELECT value FROM json_each(?))').run(list)
      n.trips += this.q('DELETE FROM trips WHERE trip_id IN (SELECT value FROM json_each(?))').run(list).changes
      return ids.length
    })
    batches(() => {
      const rows = this.q(
        `SELECT s.search_id, s.trip_id, t.search_id = s.search_id AS current FROM searches s JOIN trips t ON t.trip_id = s.trip_id
        WHERE s.created_at < ? AND NOT (t.open = 1 AND t.search_id IS s.search_id) LIMIT ?`,
      ).all(t(c.searchesBefore), batch) as Row[]
      if (rows.length === 0) return 0
      n.searches += this.q('DELETE FROM searches WHERE search_id IN (SELECT value FROM json_each(?))').run(
        json(rows.map((r) => r.search_id)),
      ).changes
      const current = rows.filter((r) => r.current === 1).map((r) => r.trip_id)
      if (current.length)
        this.q(
          'UPDATE trips SET search_id = NULL, version = version + 1 WHERE trip_id IN (SELECT value FROM json_each(?))',
        ).run(json(current))
      return rows.length
    })
    const del =
      (sql: string, ...args: unknown[]) =>
      (key: keyof PurgeCounts) =>
        batches(() => {
          const changes = this.q(sql).run(...args, batch).changes
          n[key] += changes
          return changes
        })
    del(
      'DELETE FROM seat_maps WHERE key IN (SELECT key FROM seat_maps WHERE used_at < ? LIMIT ?)',
      t(c.seatMapsBefore),
    )('seat_maps')
    del(
      'DELETE FROM refresh_tokens WHERE rowid IN (SELECT rowid FROM refresh_tokens WHERE expires_at < ? LIMIT ?)',
      t(c.tokensBefore),
    )('refresh_tokens')
    del(
      'DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE created_at < ? LIMIT ?)',
      t(c.idempotencyBefore),
    )('idempotency_keys')
    del(
      `DELETE FROM jobs WHERE rowid IN (SELECT rowid FROM jobs WHERE created_at < ? AND status <> 'pending' LIMIT ?)`,
      t(c.jobsBefore),
    )('jobs')
    del(
      'DELETE FROM signing_keys WHERE kid IN (SELECT kid FROM signing_keys WHERE retire_at < ? LIMIT ?)',
      t(c.signingKeysBefore),
    )('signing_keys')
    return n
  }

  // ---------------------------------------------------------------- webhook subscriptions

  // ---------------------------------------------------------------- private

  // The shared statements (server/store/sql/base.ts), run synchronously: inside a transaction too.
  protected one(s: Statement, params: readonly unknown[] = []): Row | undefined {
    return this.q(s.text).get(...this.d.args(s, params)) as Row | undefined
  }

  protected all(s: Statement, params: readonly unknown[] = []): Row[] {
    return this.q(s.text).all(...this.d.args(s, params)) as Row[]
  }

  protected change(s: Statement, params: readonly unknown[] = []): number {
    return this.q(s.text).run(...this.d.args(s, params)).changes
  }

  /** Prepared statements, made on first use because the tables only exist after migrate(). */
  private q(sql: string): Database.Statement {
    let s = this.prepared.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.prepared.set(sql, s)
    }
    return s
  }

  /**
   * Runs one write: a single statement needs no transaction of its own (it is atomic, and a PUT basket is
   * then one statement); more take one IMMEDIATE transaction. A write that queues jobs is synced to disk
   * at its commit (see the header).
   */
  private write<T>(effects: TripEffects | undefined, run: () => T): T {
    if (!bringsAlong(effects)) return run()
    const jobs = (effects?.jobs?.length ?? 0) > 0
    if (!jobs) return this.db.transaction(run).immediate()
    this.db.pragma('synchronous = FULL')
    try {
      return this.db.transaction(run).immediate()
    } finally {
      this.db.pragma('synchronous = NORMAL')
    }
  }

  /** What comes with a trip write (core/ports/records.ts TripEffects), inside the caller's transaction. */
  private storeEffects(effects: TripEffects = {}): void {
    this.insertJobs(effects.jobs ?? [])
    // Seat maps come with the search that names them, at its time (the core's clock).
    const now = new Date(effects.search?.created_at ?? Date.now())
    for (const m of effects.seatMaps ?? []) {
      // Insert once; a map in use gets its used_at refreshed at most hourly (retention keeps maps in use).
      this.q(
        `INSERT INTO seat_maps (key, doc, used_at) VALUES (?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET used_at = excluded.used_at WHERE seat_maps.used_at < ?`,
      ).run(m.key, json(m), now.toISOString(), new Date(now.getTime() - SEAT_MAP_TOUCH_MS).toISOString())
    }
    const s = effects.search
    if (s) {
      // Inserted, or completed: a stored `in_progress` search (a remote supplier's) takes its answer once.
      this.q(
        `INSERT INTO searches (search_id, trip_id, status, created_at, offers) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (search_id) DO UPDATE SET status = excluded.status, offers = excluded.offers WHERE searches.status = 'in_progress'`,
      ).run(s.search_id, s.trip_id, s.status, iso(s.created_at), json(s.offers))
    }
    const t = effects.refreshToken
    if (t) this.change(this.S.insertRefreshToken, refreshTokenRow(this.d, t))
    const c = effects.idempotency
    if (c) this.change(this.S.completeIdempotency, [c.scope, c.key, c.owner, json(c.response)])
  }

  /**
   * The orders feed's rows of the orders a trip write created or moved, inside its transaction: the seller's
   * counter moves on by their number and they take the numbers up to it, in the order given. The write
   * holds SQLite's one write lock until it commits, so numbers follow commit order.
   */
  private storeOrders(trip: TripRecord, effects: TripEffects | undefined): void {
    const orders = checkedOrders(trip.trip_id, effects)
    if (orders.length === 0) return
    const last = this.q(
      `INSERT INTO order_feeds (seller_id, seq) VALUES (?, ?)
      ON CONFLICT (seller_id) DO UPDATE SET seq = seq + excluded.seq RETURNING seq`,
    )
      .pluck()
      .get(trip.seller_id, orders.length) as number
    const upsert = this
      .q(`INSERT INTO orders (order_id, seller_id, trip_id, seq, status, updated_at, doc) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (order_id) DO UPDATE SET seq = excluded.seq, status = excluded.status, updated_at = excluded.updated_at, doc = excluded.doc`)
    orders.forEach((o, i) => {
      const item = { ...o, updated_at: iso(o.updated_at) }
      upsert.run(
        o.order_id,
        trip.seller_id,
        trip.trip_id,
        last - orders.length + 1 + i,
        o.status,
        item.updated_at,
        json(item),
      )
    })
  }

  private insertJobs(jobs: JobRecord[]): void {
    for (const j of jobs) this.change(this.S.insertJob, jobRow(this.d, j))
  }
}
