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
  MAX_SUPPLIER_CALLS,
  type TripEventInput,
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
import { callsKept, eventRows, pendingEvents, sqliteTripWrites } from './sql/trip-writes.ts'
import { CheckpointThread, type CheckpointOptions } from './sqlite-checkpoints.ts'

export class SqliteStore extends SqlStore implements Store {
  readonly db: Database.Database
  private prepared = new Map<string, Database.Statement>()
  /** The WAL's checkpoints off the event loop, when asked for (./sqlite-checkpoints.ts; openStore asks for a file). */
  readonly #checkpoints: CheckpointThread | null
  /** The trip writes that carry their timeline entries in the row (migration 15's triggers append them). */
  readonly #events = sqliteTripWrites(sqlite)

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
      const row = [...tripRow(this.d, trip, 1), this.d.time(trip.created_at)]
      // Its timeline entries ride in the row (migration 15's trigger appends them): no statement of their own.
      const events = effects?.events
      if (events?.length) this.change(this.#events.insertTripEvents, [...row, pendingEvents(events)])
      else this.change(this.W.insertTrip, row)
      this.storeEffects(trip, effects && { ...effects, events: [] })
    })
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
      const version = this.#update(trip, expectedVersion, effects?.events)
      if (version !== null) this.storeEffects(trip, effects && { ...effects, events: [] })
      return version
    })
  }

  async updateTrips(writes: ReadonlyArray<PlainWrite>): Promise<Array<number | null>> {
    // Each with its timeline entries in its row (#update): one statement each.
    const each = () => writes.map((w) => this.#update(w.trip, w.expectedVersion, w.events))
    // Several in one IMMEDIATE transaction: one commit (one append to the WAL) for all of them.
    return writes.length > 1 ? this.db.transaction(each).immediate() : each()
  }

  /**
   * The trip's row, if still at `expectedVersion`: its new version, or null. Its timeline entries ride in
   * the row (`pending_events`), appended by migration 15's triggers within this one statement, and only
   * when it changed the row: a conflict appends none.
   */
  #update(trip: TripRecord, expectedVersion: number, events?: readonly TripEventInput[]): number | null {
    const row = tripRow(this.d, trip, expectedVersion)
    const changed = events?.length
      ? this.change(this.#events.updateTripEvents, [...row, pendingEvents(events)])
      : this.change(this.W.updateTrip, row)
    return changed === 0 ? null : expectedVersion + 1
  }

  async putSearch(s: SearchRecord, seatMaps: SupplierSeatMap[] = [], events: TripEventInput[] = []): Promise<void> {
    this.write({ search: s, seatMaps, events }, () => this.storeEffects(s, { search: s, seatMaps, events }))
  }

  async appendTripEvents(events: TripEventInput[]): Promise<void> {
    if (events.length === 0) return
    this.db
      .transaction(() => {
        this.change(this.S.appendTripEvents, [eventRows(events)])
        for (const tripId of new Set(events.map((e) => e.trip_id)))
          this.change(this.W.trimCalls, [tripId, MAX_SUPPLIER_CALLS])
      })
      .immediate()
  }

  // ---------------------------------------------------------------- jobs

  async enqueueJob(job: JobRecord): Promise<void> {
    this.write({ jobs: [job] }, () => this.insertJobs([job]))
  }

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

  /** A batch of retention that picks rows: the pick and its writes in one IMMEDIATE transaction. */
  protected purgePicked(
    step: Extract<PurgeStep, { kind: 'pick' }>,
    params: readonly unknown[],
    counts: PurgeCounts,
  ): number {
    return this.db
      .transaction(() => {
        const rows = this.all(step.pick, params)
        for (const w of step.writes) {
          const keys = rows.filter((r) => w.only === undefined || this.d.readBool(r[w.only])).map((r) => r[w.key])
          if (keys.length === 0) continue
          const changed = this.change(w.statement, [this.d.list(keys as string[])])
          if (w.count) counts[w.count] += changed
        }
        return rows.length
      })
      .immediate()
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
    // Timeline entries alone need no transaction: they ride in the trip's row (#update), or, without one
    // (putSearch), come with a search, which brings the transaction along.
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

  /**
   * What comes with a trip write (core/ports/records.ts TripEffects), inside the caller's transaction: the
   * statements of sql/trip-writes.ts, a row each. `at` is the trip the write is for (a search's trip_id for
   * putSearch, whose effects bring no orders).
   */
  private storeEffects(at: { trip_id: string; seller_id?: string }, effects: TripEffects = {}): void {
    // Timeline entries no trip row carries (putSearch's): a write that fails below rolls them back with the rest.
    if (effects.events?.length) {
      this.change(this.W.events, [eventRows(effects.events)])
      if (callsKept(effects.events) !== null) this.change(this.W.trimCalls, [at.trip_id, MAX_SUPPLIER_CALLS])
    }
    this.insertJobs(effects.jobs ?? [])
    // Seat maps come with the search that names them, at its time (the core's clock).
    const usedAt = effects.search?.created_at ?? new Date().toISOString()
    for (const m of effects.seatMaps ?? []) this.change(this.W.seatMap, seatMapRow(this.d, m, usedAt))
    if (effects.search) this.change(this.W.search, searchRow(this.d, effects.search))
    const t = effects.refreshToken
    if (t) this.change(this.S.insertRefreshToken, refreshTokenRow(this.d, t))
    const c = effects.idempotency
    if (c) this.change(this.S.completeIdempotency, [c.scope, c.key, c.owner, json(c.response)])
    // The orders feed: the seller's counter moves on by their number and they take the numbers up to it.
    const orders = checkedOrders(at.trip_id, effects)
    if (orders.length === 0 || at.seller_id === undefined) return
    const last = this.one(this.W.orderCounter, [at.seller_id, orders.length])!.seq as number
    orders.forEach((o, i) =>
      this.change(this.W.order, orderRow(this.d, at.seller_id!, last - orders.length + 1 + i, o)),
    )
  }

  private insertJobs(jobs: JobRecord[]): void {
    for (const j of jobs) this.change(this.S.insertJob, jobRow(this.d, j))
  }
}
