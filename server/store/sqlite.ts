/**
 * The SQLite Store (better-sqlite3): the embedded default for one machine. The server and a separate
 * worker process may share one file: WAL lets readers run beside the writer, busy_timeout makes a writer
 * wait for the other process's write lock instead of failing, and every write transaction is IMMEDIATE so
 * it takes that lock up front (a deferred one could fail with SQLITE_BUSY when upgrading from read to write).
 *
 * Durability: WAL with synchronous=NORMAL, SQLite's recommended pairing. A commit survives the process
 * dying (kill -9: test/server/worker-crash.test.ts); an operating-system crash or power loss may lose the
 * commits since the last sync. Every write that queues work (a fulfillment's orders, a check, a webhook)
 * syncs at its commit (synchronous=FULL for that transaction), which also makes every commit before it
 * durable. An fsync at every commit blocks the event loop for ~0.25 ms here, longer than a basket change.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { ApiKeyRecord, ConsumeResult, IdempotencyCompletion, IdempotencyRecord, JobRecord, OrderFeedEntry, OrderFeedItem, OrderFeedQuery, PurgeCounts, PurgeCutoffs, RefreshTokenRecord, SealedSecret, SearchRecord, SellerRecord, SellerSupplier, SigningKeyRecord, SubscriptionRecord, TripEffects, TripRecord, Versioned } from '../../core/ports/records.ts'
import type { Store } from '../../core/ports/store.ts'
import type { SupplierSeatMap } from '../../core/ports/supplier-answers.ts'
import { isFulfilled } from '../../core/domain/fulfillment.ts'
import { migrations, schemaMigrationsTable } from './migrations.ts'

type Row = Record<string, unknown>

// Canonical ISO text sorts chronologically, which claimJob's comparisons rely on.
const iso = (time: string): string => new Date(time).toISOString()
const isoOrNull = (time: string | null): string | null => (time === null ? null : iso(time))
/** A lease in canonical form, or null when it is no time at all (then it matches no job). */
const leaseIso = (lease: string): string | null => {
  const t = new Date(lease)
  return Number.isNaN(t.getTime()) ? null : t.toISOString()
}
const json = (value: unknown): string => JSON.stringify(value)
const parse = <T>(text: unknown): T => JSON.parse(text as string) as T

const toSeller = (r: Row): SellerRecord => ({
  seller_id: r.seller_id as string,
  name: r.name as string,
  origins: parse<string[]>(r.origins),
  sandbox: r.sandbox === 1,
  supplier: { name: r.supplier as string, credentials: r.supplier_credentials === null ? null : parse<SealedSecret>(r.supplier_credentials) },
  created_at: r.created_at as string,
})
const toApiKey = (r: Row): ApiKeyRecord => ({
  key_hash: r.key_hash as string,
  seller_id: r.seller_id as string,
  prefix: r.prefix as string,
  created_at: r.created_at as string,
  expires_at: r.expires_at as string | null,
})
const toSigningKey = (r: Row): SigningKeyRecord => ({
  kid: r.kid as string,
  alg: r.alg as 'ES256',
  private_jwk: parse<JsonWebKey>(r.private_jwk),
  public_jwk: parse<JsonWebKey>(r.public_jwk),
  created_at: r.created_at as string,
  retire_at: r.retire_at as string | null,
})
const toSearch = (r: Row): SearchRecord => ({
  search_id: r.search_id as string,
  trip_id: r.trip_id as string,
  status: r.status as SearchRecord['status'],
  created_at: r.created_at as string,
  offers: parse<SearchRecord['offers']>(r.offers),
})
const toTrip = (r: Row): TripRecord => ({ ...parse<TripRecord>(r.doc), search_id: r.search_id as string | null })
/** The trip's document: everything but what has a column of its own (search_id). */
const tripDoc = ({ search_id: _s, ...doc }: TripRecord): string => json(doc)
/** A seat map's use is recorded at most this often, so a flight's row is not rewritten by every trip on it. */
const SEAT_MAP_TOUCH_MS = 3600_000
const toIdempotency = (r: Row): IdempotencyRecord => ({
  scope: r.scope as string,
  key: r.key as string,
  request_hash: r.request_hash as string,
  response: r.response === null ? null : parse<IdempotencyRecord['response']>(r.response),
  created_at: r.created_at as string,
  owner: r.owner as string,
  lease_until: r.lease_until as string,
})
const toJob = (r: Row): JobRecord => ({
  job_id: r.job_id as string,
  kind: r.kind as string,
  payload: parse<unknown>(r.payload),
  run_at: r.run_at as string,
  attempts: r.attempts as number,
  max_attempts: r.max_attempts as number,
  locked_until: r.locked_until as string | null,
  last_error: r.last_error as string | null,
  status: r.status as JobRecord['status'],
  created_at: r.created_at as string,
})
const toSubscription = (r: Row): SubscriptionRecord => ({
  subscription_id: r.subscription_id as string,
  seller_id: r.seller_id as string,
  event_name: r.event_name as string,
  delivery_method: r.delivery_method as SubscriptionRecord['delivery_method'],
  target: r.target as string,
  secret: r.secret as string,
  created_at: r.created_at as string,
})

export class SqliteStore implements Store {
  readonly db: Database.Database
  private statements = new Map<string, Database.Statement>()

  /** `path` is a file (its directory is created if missing) or `:memory:`. */
  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    this.db = new Database(path)
    // busy_timeout first: switching to WAL needs a lock another process may hold.
    this.db.pragma('busy_timeout = 5000')
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('synchronous = NORMAL')
    this.db.pragma('foreign_keys = ON')
    // Reads of a large table (bench/scale.ts, 1 M trips): a 64 MiB page cache and memory-mapped reads keep a
    // trip lookup near its cost at 10 k (measured 12.5 → 8.8 µs at 1 M); the default cache is 2 MiB.
    this.db.pragma('cache_size = -65536')
    this.db.pragma('mmap_size = 268435456')
  }

  /** Applies every pending migration; `through` stops after that version (tests: a database left at an old version). */
  async migrate(through = Infinity): Promise<void> {
    this.db.transaction(() => {
      this.db.exec(schemaMigrationsTable.sqlite)
      const applied = new Set(this.db.prepare('SELECT version FROM schema_migrations').pluck().all())
      for (const m of migrations) {
        if (applied.has(m.version) || m.version > through) continue
        this.db.exec(m.sqlite)
        this.db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name)
      }
    }).immediate()
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close()
  }

  async ping(): Promise<void> {
    this.q('SELECT 1').get()
  }

  // ---------------------------------------------------------------- sellers and keys

  async createSeller(s: SellerRecord): Promise<void> {
    this.q('INSERT INTO sellers (seller_id, name, origins, sandbox, created_at, supplier, supplier_credentials) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(s.seller_id, s.name, json(s.origins), s.sandbox ? 1 : 0, iso(s.created_at), s.supplier.name, s.supplier.credentials === null ? null : json(s.supplier.credentials))
  }

  async getSeller(sellerId: string): Promise<SellerRecord | undefined> {
    const r = this.q('SELECT * FROM sellers WHERE seller_id = ?').get(sellerId) as Row | undefined
    return r && toSeller(r)
  }

  async listSellers(): Promise<SellerRecord[]> {
    return (this.q('SELECT * FROM sellers ORDER BY created_at, seller_id').all() as Row[]).map(toSeller)
  }

  async updateSeller(sellerId: string, change: { origins?: string[]; supplier?: SellerSupplier }): Promise<void> {
    // What `change` leaves out stays: NULL keeps the column (the supplier's name says whether the supplier changes).
    const supplier = change.supplier ?? null
    this.q(`UPDATE sellers SET origins = coalesce(?, origins), supplier = coalesce(?, supplier),
      supplier_credentials = CASE WHEN ? IS NULL THEN supplier_credentials ELSE ? END WHERE seller_id = ?`)
      .run(change.origins ? json(change.origins) : null, supplier?.name ?? null,
        supplier?.name ?? null, supplier?.credentials ? json(supplier.credentials) : null, sellerId)
  }

  async addApiKey(k: ApiKeyRecord): Promise<void> {
    this.q('INSERT INTO api_keys (key_hash, seller_id, prefix, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(k.key_hash, k.seller_id, k.prefix, iso(k.created_at), isoOrNull(k.expires_at))
  }

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const r = this.q('SELECT key_hash, seller_id, prefix, created_at, expires_at FROM api_keys WHERE key_hash = ?').get(keyHash) as Row | undefined
    return r && toApiKey(r)
  }

  async listApiKeys(sellerId: string): Promise<ApiKeyRecord[]> {
    return (this.q('SELECT key_hash, seller_id, prefix, created_at, expires_at FROM api_keys WHERE seller_id = ? ORDER BY created_at, key_hash')
      .all(sellerId) as Row[]).map(toApiKey)
  }

  async expireApiKeys(sellerId: string, keyHashes: string[], at: string): Promise<void> {
    // An earlier expiry stays: a rotation never lengthens a key's life (nor undoes a revocation).
    const when = iso(at)
    this.q(`UPDATE api_keys SET expires_at = ? WHERE seller_id = ? AND key_hash IN (SELECT value FROM json_each(?))
      AND (expires_at IS NULL OR expires_at > ?)`).run(when, sellerId, json(keyHashes), when)
  }

  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    return (this.q('SELECT * FROM signing_keys ORDER BY created_at, kid').all() as Row[]).map(toSigningKey)
  }

  async updateSigningKey(kid: string, change: { retire_at?: string; private_jwk?: SigningKeyRecord['private_jwk'] }): Promise<void> {
    if (change.retire_at !== undefined) this.q('UPDATE signing_keys SET retire_at = ? WHERE kid = ?').run(iso(change.retire_at), kid)
    if (change.private_jwk !== undefined) this.q('UPDATE signing_keys SET private_jwk = ? WHERE kid = ?').run(json(change.private_jwk), kid)
  }

  async addSigningKey(k: SigningKeyRecord): Promise<boolean> {
    const r = this.q(`INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created_at, retire_at)
      VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (kid) DO NOTHING`)
      .run(k.kid, k.alg, json(k.private_jwk), json(k.public_jwk), iso(k.created_at), isoOrNull(k.retire_at))
    return r.changes === 1
  }

  // ---------------------------------------------------------------- trips and searches

  async insertTrip(trip: TripRecord, effects?: TripEffects): Promise<void> {
    this.write(effects, () => {
      this.q('INSERT INTO trips (trip_id, seller_id, version, updated_at, doc, search_id, open, created_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?)')
        .run(trip.trip_id, trip.seller_id, iso(trip.updated_at), tripDoc(trip), trip.search_id, isFulfilled(trip) ? 0 : 1, iso(trip.created_at))
      this.storeEffects(effects)
      this.storeOrders(trip, effects?.orders)
    })
  }

  async getTrip(tripId: string): Promise<Versioned<TripRecord> | undefined> {
    const r = this.q('SELECT doc, version, search_id FROM trips WHERE trip_id = ?').get(tripId) as Row | undefined
    return r && { value: toTrip(r), version: r.version as number }
  }

  async getTripIfChanged(tripId: string, knownVersion: number): Promise<{ version: number; value?: TripRecord } | undefined> {
    const r = this.q('SELECT version, search_id, CASE WHEN version = ? THEN NULL ELSE doc END AS doc FROM trips WHERE trip_id = ?')
      .get(knownVersion, tripId) as Row | undefined
    if (!r) return undefined
    return r.doc === null ? { version: r.version as number } : { value: toTrip(r), version: r.version as number }
  }

  async updateTrip(trip: TripRecord, expectedVersion: number, effects?: TripEffects): Promise<number | null> {
    return this.write(effects, () => {
      // A trip's seller never changes, so seller_id is not written (its foreign key is not checked again).
      const r = this.q(`UPDATE trips SET doc = ?, updated_at = ?, search_id = ?, open = ?, version = version + 1
        WHERE trip_id = ? AND version = ? AND seller_id = ?`)
        .run(tripDoc(trip), iso(trip.updated_at), trip.search_id, isFulfilled(trip) ? 0 : 1, trip.trip_id, expectedVersion, trip.seller_id)
      if (r.changes === 0) return null
      this.storeEffects(effects)
      this.storeOrders(trip, effects?.orders)
      return expectedVersion + 1
    })
  }

  async putSearch(s: SearchRecord, seatMaps: SupplierSeatMap[] = []): Promise<void> {
    this.write({ search: s, seatMaps }, () => this.storeEffects({ search: s, seatMaps }))
  }

  async getSearch(searchId: string): Promise<SearchRecord | undefined> {
    const r = this.q('SELECT * FROM searches WHERE search_id = ?').get(searchId) as Row | undefined
    return r && toSearch(r)
  }

  async listOrders(sellerId: string, q: OrderFeedQuery): Promise<OrderFeedEntry[]> {
    const where = ['seller_id = ?', 'seq > ?']
    const args: unknown[] = [sellerId, q.after]
    if (q.status !== undefined) { where.push('status = ?'); args.push(q.status) }
    if (q.updatedSince !== undefined) {
      const since = iso(q.updatedSince)
      where.push('updated_at >= ?')
      args.push(since)
      // On the first page, start at the first order changed since then (found in orders_updated) rather
      // than walk the seller's whole history in orders_feed: every order changed since has a number from there.
      if (q.after === 0) { where.push('seq >= (SELECT coalesce(min(seq), 0) FROM orders WHERE seller_id = ? AND updated_at >= ?)'); args.push(sellerId, since) }
    }
    const rows = this.q(`SELECT seq, doc FROM orders WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`).all(...args, q.limit) as Row[]
    return rows.map((r) => ({ seq: r.seq as number, order: parse<OrderFeedItem>(r.doc) }))
  }

  async getSeatMaps(keys: string[]): Promise<SupplierSeatMap[]> {
    return (this.q('SELECT doc FROM seat_maps WHERE key IN (SELECT value FROM json_each(?))').pluck().all(json(keys)) as string[])
      .map((doc) => parse<SupplierSeatMap>(doc))
  }

  // ---------------------------------------------------------------- refresh tokens

  async insertRefreshToken(t: RefreshTokenRecord): Promise<void> {
    this.insertToken(t)
  }

  async consumeRefreshToken(tokenHash: string, now: Date): Promise<ConsumeResult> {
    return this.db.transaction((): ConsumeResult => {
      const t = this.q('SELECT * FROM refresh_tokens WHERE token_hash = ?').get(tokenHash) as RefreshTokenRecord | undefined
      if (!t) return { status: 'unknown' }
      if (t.revoked_at !== null) return { status: 'revoked', record: t }
      if (t.used_at !== null) return { status: 'reused', record: t }
      if (Date.parse(t.expires_at) <= now.getTime()) return { status: 'expired', record: t }
      const usedAt = now.toISOString()
      this.q('UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?').run(usedAt, tokenHash)
      return { status: 'ok', record: { ...t, used_at: usedAt } }
    }).immediate()
  }

  async revokeRefreshFamily(familyId: string, now: Date): Promise<void> {
    this.q('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL')
      .run(now.toISOString(), familyId)
  }

  // ---------------------------------------------------------------- idempotency

  async reserveIdempotency(record: IdempotencyRecord, now?: Date): Promise<IdempotencyRecord | null> {
    const values = [record.scope, record.key, record.request_hash,
      record.response === null ? null : json(record.response), iso(record.created_at), record.owner, iso(record.lease_until)]
    return this.db.transaction(() => {
      // One statement inserts, or takes over a reservation left without a response whose lease ended
      // before now (the WHERE sees the stored row; `changes` counts the insert or the takeover).
      const r = now === undefined
        ? this.q(`INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at, owner, lease_until)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO NOTHING`).run(...values)
        : this.q(`INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at, owner, lease_until)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash,
              response = excluded.response, created_at = excluded.created_at, owner = excluded.owner, lease_until = excluded.lease_until
            WHERE idempotency_keys.response IS NULL AND idempotency_keys.lease_until < ?`)
          .run(...values, now.toISOString())
      if (r.changes === 1) return null
      return toIdempotency(this.q('SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?')
        .get(record.scope, record.key) as Row)
    }).immediate()
  }

  async renewIdempotency(scope: string, key: string, owner: string, leaseUntil: Date): Promise<boolean> {
    return this.q('UPDATE idempotency_keys SET lease_until = ? WHERE scope = ? AND key = ? AND owner = ? AND response IS NULL')
      .run(leaseUntil.toISOString(), scope, key, owner).changes === 1
  }

  async completeIdempotency(c: IdempotencyCompletion): Promise<boolean> {
    return this.complete(c)
  }

  async releaseIdempotency(scope: string, key: string, owner: string): Promise<void> {
    this.q('DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND owner = ? AND response IS NULL').run(scope, key, owner)
  }

  // ---------------------------------------------------------------- jobs

  async enqueueJob(job: JobRecord): Promise<void> {
    this.write({ jobs: [job] }, () => this.insertJobs([job]))
  }

  async claimJob(kinds: string[], now: Date, leaseMs: number): Promise<JobRecord | undefined> {
    if (kinds.length === 0) return undefined
    const t = now.toISOString()
    const lockedUntil = new Date(now.getTime() + leaseMs).toISOString()
    return this.db.transaction(() => {
      const r = this.q(`SELECT * FROM jobs
        WHERE status = 'pending' AND run_at <= ? AND (locked_until IS NULL OR locked_until <= ?)
          AND kind IN (SELECT value FROM json_each(?))
        ORDER BY run_at, job_id LIMIT 1`).get(t, t, json(kinds)) as Row | undefined
      if (!r) return undefined
      this.q('UPDATE jobs SET locked_until = ?, attempts = attempts + 1 WHERE job_id = ?').run(lockedUntil, r.job_id)
      const job = toJob(r)
      return { ...job, locked_until: lockedUntil, attempts: job.attempts + 1 }
    }).immediate()
  }

  // Both only touch the job while it is pending and still holds the caller's lease: a worker whose lease
  // lapsed and whose job was claimed again (a later locked_until) changes nothing.
  async completeJob(jobId: string, lease: string): Promise<boolean> {
    const l = leaseIso(lease)
    if (l === null) return false
    return this.q(`UPDATE jobs SET status = 'done', locked_until = NULL
      WHERE job_id = ? AND status = 'pending' AND locked_until = ?`).run(jobId, l).changes === 1
  }

  async failJob(jobId: string, lease: string, error: string, retryAt: Date | null): Promise<boolean> {
    const l = leaseIso(lease)
    if (l === null) return false
    return this.q(`UPDATE jobs SET status = ?, last_error = ?, locked_until = NULL, run_at = coalesce(?, run_at)
      WHERE job_id = ? AND status = 'pending' AND locked_until = ?`)
      .run(retryAt === null ? 'dead' : 'pending', error, retryAt === null ? null : retryAt.toISOString(), jobId, l)
      .changes === 1
  }

  async getJob(jobId: string): Promise<JobRecord | undefined> {
    const r = this.q('SELECT * FROM jobs WHERE job_id = ?').get(jobId) as Row | undefined
    return r && toJob(r)
  }

  async listJobs(kinds: string[]): Promise<JobRecord[]> {
    return (this.q(`SELECT * FROM jobs WHERE kind IN (SELECT value FROM json_each(?)) ORDER BY created_at, job_id`)
      .all(json(kinds)) as Row[]).map(toJob)
  }

  async countPendingJobs(): Promise<Record<string, number>> {
    // The partial index of pending jobs (jobs_due) answers the WHERE; finished jobs are never read.
    const rows = this.q(`SELECT kind, count(*) AS n FROM jobs WHERE status = 'pending' GROUP BY kind`).all() as Array<{ kind: string; n: number }>
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]))
  }

  // ---------------------------------------------------------------- retention

  async purge(c: PurgeCutoffs, batch = 1000): Promise<PurgeCounts> {
    const n: PurgeCounts = { trips: 0, searches: 0, seat_maps: 0, refresh_tokens: 0, idempotency_keys: 0, jobs: 0, signing_keys: 0 }
    const t = (d: Date) => d.toISOString()
    // Each batch is its own short transaction, so the API's writes interleave with a long purge.
    const batches = (step: () => number) => { for (let done = batch; done === batch;) done = this.db.transaction(step).immediate() }
    batches(() => {
      const ids = this.q(`SELECT trip_id FROM trips WHERE created_at < ? AND open = 1 LIMIT ?`).pluck().all(t(c.tripsBefore), batch) as string[]
      if (ids.length === 0) return 0
      const list = json(ids)
      n.searches += this.q('DELETE FROM searches WHERE trip_id IN (SELECT value FROM json_each(?))').run(list).changes
      n.refresh_tokens += this.q('DELETE FROM refresh_tokens WHERE trip_id IN (SELECT value FROM json_each(?))').run(list).changes
      // An open trip has no orders (fulfilling one closes it); were there any, they would go with it.
      this.q('DELETE FROM orders WHERE trip_id IN (SELECT value FROM json_each(?))').run(list)
      n.trips += this.q('DELETE FROM trips WHERE trip_id IN (SELECT value FROM json_each(?))').run(list).changes
      return ids.length
    })
    batches(() => {
      const rows = this.q(`SELECT s.search_id, s.trip_id, t.search_id = s.search_id AS current FROM searches s JOIN trips t ON t.trip_id = s.trip_id
        WHERE s.created_at < ? AND NOT (t.open = 1 AND t.search_id IS s.search_id) LIMIT ?`).all(t(c.searchesBefore), batch) as Row[]
      if (rows.length === 0) return 0
      n.searches += this.q('DELETE FROM searches WHERE search_id IN (SELECT value FROM json_each(?))').run(json(rows.map((r) => r.search_id))).changes
      const current = rows.filter((r) => r.current === 1).map((r) => r.trip_id)
      if (current.length) this.q('UPDATE trips SET search_id = NULL, version = version + 1 WHERE trip_id IN (SELECT value FROM json_each(?))').run(json(current))
      return rows.length
    })
    const del = (sql: string, ...args: unknown[]) => (key: keyof PurgeCounts) => batches(() => {
      const changes = this.q(sql).run(...args, batch).changes
      n[key] += changes
      return changes
    })
    del('DELETE FROM seat_maps WHERE key IN (SELECT key FROM seat_maps WHERE used_at < ? LIMIT ?)', t(c.seatMapsBefore))('seat_maps')
    del('DELETE FROM refresh_tokens WHERE rowid IN (SELECT rowid FROM refresh_tokens WHERE expires_at < ? LIMIT ?)', t(c.tokensBefore))('refresh_tokens')
    del('DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE created_at < ? LIMIT ?)', t(c.idempotencyBefore))('idempotency_keys')
    del(`DELETE FROM jobs WHERE rowid IN (SELECT rowid FROM jobs WHERE created_at < ? AND status <> 'pending' LIMIT ?)`, t(c.jobsBefore))('jobs')
    del('DELETE FROM signing_keys WHERE kid IN (SELECT kid FROM signing_keys WHERE retire_at < ? LIMIT ?)', t(c.signingKeysBefore))('signing_keys')
    return n
  }

  // ---------------------------------------------------------------- webhook subscriptions

  async addSubscription(x: SubscriptionRecord): Promise<void> {
    this.q(`INSERT INTO subscriptions (subscription_id, seller_id, event_name, delivery_method, target, secret, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(x.subscription_id, x.seller_id, x.event_name, x.delivery_method, x.target, x.secret, iso(x.created_at))
  }

  async listSubscriptions(sellerId: string): Promise<SubscriptionRecord[]> {
    return (this.q('SELECT * FROM subscriptions WHERE seller_id = ? ORDER BY created_at, subscription_id')
      .all(sellerId) as Row[]).map(toSubscription)
  }

  async deleteSubscription(sellerId: string, subscriptionId: string): Promise<boolean> {
    return this.q('DELETE FROM subscriptions WHERE seller_id = ? AND subscription_id = ?')
      .run(sellerId, subscriptionId).changes === 1
  }

  // ---------------------------------------------------------------- private

  /** Prepared statements, made on first use because the tables only exist after migrate(). */
  private q(sql: string): Database.Statement {
    let s = this.statements.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.statements.set(sql, s)
    }
    return s
  }

  /**
   * Runs one write: a single statement needs no transaction of its own (it is atomic, and a PUT basket is
   * then one statement); more take one IMMEDIATE transaction. A write that queues jobs is synced to disk
   * at its commit (see the header).
   */
  private write<T>(effects: TripEffects | undefined, run: () => T): T {
    const jobs = (effects?.jobs?.length ?? 0) > 0
    const single = !jobs && !effects?.search && !effects?.refreshToken && !effects?.seatMaps?.length && !effects?.orders?.length && !effects?.idempotency
    if (single) return run()
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
      this.q(`INSERT INTO seat_maps (key, doc, used_at) VALUES (?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET used_at = excluded.used_at WHERE seat_maps.used_at < ?`)
        .run(m.key, json(m), now.toISOString(), new Date(now.getTime() - SEAT_MAP_TOUCH_MS).toISOString())
    }
    const s = effects.search
    if (s) {
      // Inserted, or completed: a stored `in_progress` search (a remote supplier's) takes its answer once.
      this.q(`INSERT INTO searches (search_id, trip_id, status, created_at, offers) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (search_id) DO UPDATE SET status = excluded.status, offers = excluded.offers WHERE searches.status = 'in_progress'`)
        .run(s.search_id, s.trip_id, s.status, iso(s.created_at), json(s.offers))
    }
    const t = effects.refreshToken
    if (t) this.insertToken(t)
    if (effects.idempotency) this.complete(effects.idempotency)
  }

  /** Stores an idempotent request's answer if its owner still holds the key (inside a trip's write, or alone). */
  private complete(c: IdempotencyCompletion): boolean {
    return this.q('UPDATE idempotency_keys SET response = ? WHERE scope = ? AND key = ? AND owner = ? AND response IS NULL')
      .run(json(c.response), c.scope, c.key, c.owner).changes === 1
  }

  /**
   * The orders feed's rows of the orders a trip write created or moved, inside its transaction: the seller's
   * counter moves on by their number and they take the numbers up to it, in the order given. The write
   * holds SQLite's one write lock until it commits, so numbers follow commit order.
   */
  private storeOrders(trip: TripRecord, orders: OrderFeedItem[] = []): void {
    if (orders.length === 0) return
    for (const o of orders) if (o.trip_id !== trip.trip_id) throw new Error(`order ${o.order_id} belongs to trip ${o.trip_id}`)
    const last = this.q(`INSERT INTO order_feeds (seller_id, seq) VALUES (?, ?)
      ON CONFLICT (seller_id) DO UPDATE SET seq = seq + excluded.seq RETURNING seq`).pluck().get(trip.seller_id, orders.length) as number
    const upsert = this.q(`INSERT INTO orders (order_id, seller_id, trip_id, seq, status, updated_at, doc) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (order_id) DO UPDATE SET seq = excluded.seq, status = excluded.status, updated_at = excluded.updated_at, doc = excluded.doc`)
    orders.forEach((o, i) => {
      const item = { ...o, updated_at: iso(o.updated_at) }
      upsert.run(o.order_id, trip.seller_id, trip.trip_id, last - orders.length + 1 + i, o.status, item.updated_at, json(item))
    })
  }

  private insertToken(t: RefreshTokenRecord): void {
    this.q(`INSERT INTO refresh_tokens (token_hash, family_id, trip_id, seller_id, expires_at, used_at, revoked_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(t.token_hash, t.family_id, t.trip_id, t.seller_id, iso(t.expires_at), isoOrNull(t.used_at), isoOrNull(t.revoked_at))
  }

  private insertJobs(jobs: JobRecord[]): void {
    const insert = this.q(`INSERT INTO jobs
      (job_id, kind, payload, run_at, attempts, max_attempts, locked_until, last_error, status, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    for (const j of jobs) {
      insert.run(j.job_id, j.kind, json(j.payload), iso(j.run_at), j.attempts, j.max_attempts,
        isoOrNull(j.locked_until), j.last_error, j.status, iso(j.created_at))
    }
  }
}
