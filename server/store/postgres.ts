/**
 * The PostgreSQL Store (pg Pool): for many stateless instances sharing one database. Timestamps are
 * timestamptz, documents jsonb; workers claim jobs with FOR UPDATE SKIP LOCKED so each runs once.
 */
import pg from 'pg'
import type {
  ApiKeyRecord, ConsumeResult, IdempotencyRecord, JobRecord, RefreshTokenRecord, SearchRecord,
  SellerRecord, SigningKeyRecord, Store, SubscriptionRecord, TripEffects, TripRecord, Versioned,
} from '../../core/ports.ts'
import { migrations, schemaMigrationsTable } from './migrations.ts'

type Row = Record<string, unknown>
type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>

/** Any constant shared by every instance: the migration lock is per database. */
const MIGRATION_LOCK = 7_250_601_184

const iso = (time: unknown): string => (time as Date).toISOString()
const isoOrNull = (time: unknown): string | null => (time === null ? null : iso(time))
// Always stringify: pg would send a JS array as a PostgreSQL array, not as JSON.
const json = (value: unknown): string => JSON.stringify(value)
/**
 * A lease in canonical form, or null when it is no time at all (then it matches no job). Parsed by JS
 * like the other stores do, then compared as timestamptz, so the stored instant equals the claim's ISO string.
 */
const leaseIso = (lease: string): string | null => {
  const t = new Date(lease)
  return Number.isNaN(t.getTime()) ? null : t.toISOString()
}

const toSeller = (r: Row): SellerRecord => ({
  seller_id: r.seller_id as string,
  name: r.name as string,
  origins: r.origins as string[],
  sandbox: r.sandbox as boolean,
  created_at: iso(r.created_at),
})
const toApiKey = (r: Row): ApiKeyRecord => ({
  key_hash: r.key_hash as string,
  seller_id: r.seller_id as string,
  prefix: r.prefix as string,
  created_at: iso(r.created_at),
})
const toSigningKey = (r: Row): SigningKeyRecord => ({
  kid: r.kid as string,
  alg: r.alg as 'ES256',
  private_jwk: r.private_jwk as JsonWebKey,
  public_jwk: r.public_jwk as JsonWebKey,
  created_at: iso(r.created_at),
  retire_at: isoOrNull(r.retire_at),
})
const toSearch = (r: Row): SearchRecord => ({
  search_id: r.search_id as string,
  trip_id: r.trip_id as string,
  status: r.status as SearchRecord['status'],
  results: r.results as SearchRecord['results'],
  offer_keys: r.offer_keys as Record<string, string>,
  created_at: iso(r.created_at),
})
const toRefreshToken = (r: Row): RefreshTokenRecord => ({
  token_hash: r.token_hash as string,
  family_id: r.family_id as string,
  trip_id: r.trip_id as string,
  seller_id: r.seller_id as string,
  expires_at: iso(r.expires_at),
  used_at: isoOrNull(r.used_at),
  revoked_at: isoOrNull(r.revoked_at),
})
const toIdempotency = (r: Row): IdempotencyRecord => ({
  scope: r.scope as string,
  key: r.key as string,
  request_hash: r.request_hash as string,
  response: r.response as IdempotencyRecord['response'],
  created_at: iso(r.created_at),
})
const toJob = (r: Row): JobRecord => ({
  job_id: r.job_id as string,
  kind: r.kind as string,
  payload: r.payload,
  run_at: iso(r.run_at),
  attempts: r.attempts as number,
  max_attempts: r.max_attempts as number,
  locked_until: isoOrNull(r.locked_until),
  last_error: r.last_error as string | null,
  status: r.status as JobRecord['status'],
  created_at: iso(r.created_at),
})
const toSubscription = (r: Row): SubscriptionRecord => ({
  subscription_id: r.subscription_id as string,
  seller_id: r.seller_id as string,
  event_name: r.event_name as string,
  delivery_method: r.delivery_method as SubscriptionRecord['delivery_method'],
  target: r.target as string,
  secret: r.secret as string,
  created_at: iso(r.created_at),
})

export class PostgresStore implements Store {
  readonly pool: pg.Pool

  /** A connection string, or a pool config (e.g. with `options: '-c search_path=...'`). */
  constructor(config: string | pg.PoolConfig) {
    this.pool = new pg.Pool(typeof config === 'string' ? { connectionString: config } : config)
    // An idle client that loses its connection emits here; without a listener that would crash the
    // process. The pool has already discarded the client and the next query opens a fresh one.
    this.pool.on('error', () => {})
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

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1')
  }

  // ---------------------------------------------------------------- sellers and keys

  async createSeller(s: SellerRecord): Promise<void> {
    await this.pool.query(
      'INSERT INTO sellers (seller_id, name, origins, sandbox, created_at) VALUES ($1, $2, $3, $4, $5)',
      [s.seller_id, s.name, json(s.origins), s.sandbox, s.created_at])
  }

  async getSeller(sellerId: string): Promise<SellerRecord | undefined> {
    const { rows: [r] } = await this.pool.query('SELECT * FROM sellers WHERE seller_id = $1', [sellerId])
    return r && toSeller(r)
  }

  async listSellers(): Promise<SellerRecord[]> {
    const { rows } = await this.pool.query('SELECT * FROM sellers ORDER BY created_at, seller_id')
    return rows.map(toSeller)
  }

  async updateSellerOrigins(sellerId: string, origins: string[]): Promise<void> {
    await this.pool.query('UPDATE sellers SET origins = $1 WHERE seller_id = $2', [json(origins), sellerId])
  }

  async addApiKey(k: ApiKeyRecord): Promise<void> {
    await this.pool.query('INSERT INTO api_keys (key_hash, seller_id, prefix, created_at) VALUES ($1, $2, $3, $4)',
      [k.key_hash, k.seller_id, k.prefix, k.created_at])
  }

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const { rows: [r] } = await this.pool.query('SELECT * FROM api_keys WHERE key_hash = $1', [keyHash])
    return r && toApiKey(r)
  }

  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    const { rows } = await this.pool.query('SELECT * FROM signing_keys ORDER BY created_at, kid')
    return rows.map(toSigningKey)
  }

  async addSigningKey(k: SigningKeyRecord): Promise<boolean> {
    const r = await this.pool.query(`INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created_at, retire_at)
      VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (kid) DO NOTHING`,
    [k.kid, k.alg, json(k.private_jwk), json(k.public_jwk), k.created_at, k.retire_at])
    return r.rowCount === 1
  }

  // ---------------------------------------------------------------- trips and searches

  async insertTrip(trip: TripRecord, effects?: TripEffects): Promise<void> {
    await this.tx(async (c) => {
      await c.query('INSERT INTO trips (trip_id, seller_id, version, updated_at, doc) VALUES ($1, $2, 1, $3, $4)',
        [trip.trip_id, trip.seller_id, trip.updated_at, json(trip)])
      await insertJobs(c, effects?.jobs ?? [])
    })
  }

  async getTrip(tripId: string): Promise<Versioned<TripRecord> | undefined> {
    const { rows: [r] } = await this.pool.query('SELECT doc, version FROM trips WHERE trip_id = $1', [tripId])
    return r && { value: r.doc as TripRecord, version: r.version as number }
  }

  async updateTrip(trip: TripRecord, expectedVersion: number, effects?: TripEffects): Promise<number | null> {
    return this.tx(async (c) => {
      const { rows: [r] } = await c.query(`UPDATE trips SET doc = $1, seller_id = $2, updated_at = $3, version = version + 1
        WHERE trip_id = $4 AND version = $5 RETURNING version`,
      [json(trip), trip.seller_id, trip.updated_at, trip.trip_id, expectedVersion])
      if (!r) return null
      await insertJobs(c, effects?.jobs ?? [])
      return r.version as number
    })
  }

  async putSearch(s: SearchRecord): Promise<void> {
    await this.pool.query(`INSERT INTO searches (search_id, trip_id, status, results, offer_keys, created_at)
      VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (search_id) DO UPDATE SET trip_id = excluded.trip_id, status = excluded.status,
        results = excluded.results, offer_keys = excluded.offer_keys, created_at = excluded.created_at`,
    [s.search_id, s.trip_id, s.status, json(s.results), json(s.offer_keys), s.created_at])
  }

  async getSearch(searchId: string): Promise<SearchRecord | undefined> {
    const { rows: [r] } = await this.pool.query('SELECT * FROM searches WHERE search_id = $1', [searchId])
    return r && toSearch(r)
  }

  // ---------------------------------------------------------------- refresh tokens

  async insertRefreshToken(t: RefreshTokenRecord): Promise<void> {
    await this.pool.query(`INSERT INTO refresh_tokens
      (token_hash, family_id, trip_id, seller_id, expires_at, used_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [t.token_hash, t.family_id, t.trip_id, t.seller_id, t.expires_at, t.used_at, t.revoked_at])
  }

  async consumeRefreshToken(tokenHash: string, now: Date): Promise<ConsumeResult> {
    // One statement decides the winner: a concurrent consumer waits on the row lock, then finds used_at set.
    const { rows: [won] } = await this.pool.query(`UPDATE refresh_tokens SET used_at = $2
      WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL RETURNING *`, [tokenHash, now.toISOString()])
    if (won) return { status: 'ok', record: toRefreshToken(won) }
    const { rows: [r] } = await this.pool.query('SELECT * FROM refresh_tokens WHERE token_hash = $1', [tokenHash])
    if (!r) return { status: 'unknown' }
    const record = toRefreshToken(r)
    return { status: record.revoked_at !== null ? 'revoked' : 'reused', record }
  }

  async revokeRefreshFamily(familyId: string, now: Date): Promise<void> {
    await this.pool.query('UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL',
      [now.toISOString(), familyId])
  }

  // ---------------------------------------------------------------- idempotency

  async reserveIdempotency(record: IdempotencyRecord, staleBefore?: Date): Promise<IdempotencyRecord | null> {
    const values = [record.scope, record.key, record.request_hash,
      record.response === null ? null : json(record.response), record.created_at]
    // The holder may release its key between our insert and our read; then the key is free again, so retry.
    for (;;) {
      // With staleBefore, one statement inserts or takes over a reservation abandoned without a response:
      // concurrent takeovers queue on the row lock and each re-checks the WHERE against the row the one
      // before it wrote, so exactly one wins (its fresh created_at is no longer stale).
      const inserted = staleBefore === undefined
        ? await this.pool.query(`INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at)
            VALUES ($1, $2, $3, $4, $5) ON CONFLICT (scope, key) DO NOTHING`, values)
        : await this.pool.query(`INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at)
            VALUES ($1, $2, $3, $4, $5) ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash,
              response = excluded.response, created_at = excluded.created_at
            WHERE idempotency_keys.response IS NULL AND idempotency_keys.created_at < $6::timestamptz`,
          [...values, staleBefore.toISOString()])
      if (inserted.rowCount === 1) return null
      const { rows: [r] } = await this.pool.query('SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2',
        [record.scope, record.key])
      if (r) return toIdempotency(r)
    }
  }

  async completeIdempotency(scope: string, key: string, response: { status: number; body: unknown }): Promise<void> {
    await this.pool.query('UPDATE idempotency_keys SET response = $1 WHERE scope = $2 AND key = $3',
      [json(response), scope, key])
  }

  async releaseIdempotency(scope: string, key: string): Promise<void> {
    await this.pool.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2', [scope, key])
  }

  // ---------------------------------------------------------------- jobs

  async enqueueJob(job: JobRecord): Promise<void> {
    await insertJobs(this.pool, [job])
  }

  async claimJob(kinds: string[], now: Date, leaseMs: number): Promise<JobRecord | undefined> {
    if (kinds.length === 0) return undefined
    // SKIP LOCKED: concurrent claimers pass over a row another one is taking instead of waiting for it,
    // and a row that changed meanwhile is re-checked against the WHERE clause before it is locked.
    const { rows: [r] } = await this.pool.query(`UPDATE jobs SET locked_until = $2, attempts = attempts + 1
      WHERE job_id = (
        SELECT job_id FROM jobs
        WHERE status = 'pending' AND run_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
          AND kind = ANY($3::text[])
        ORDER BY run_at, job_id LIMIT 1
        FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), kinds])
    return r && toJob(r)
  }

  // Both only touch the job while it is pending and still holds the caller's lease: a worker whose lease
  // lapsed and whose job was claimed again (a later locked_until) changes nothing. A concurrent re-claim
  // holds the row lock; the UPDATE then re-checks locked_until against the row it committed.
  async completeJob(jobId: string, lease: string): Promise<boolean> {
    const l = leaseIso(lease)
    if (l === null) return false
    const r = await this.pool.query(`UPDATE jobs SET status = 'done', locked_until = NULL
      WHERE job_id = $1 AND status = 'pending' AND locked_until = $2::timestamptz`, [jobId, l])
    return r.rowCount === 1
  }

  async failJob(jobId: string, lease: string, error: string, retryAt: Date | null): Promise<boolean> {
    const l = leaseIso(lease)
    if (l === null) return false
    const r = await this.pool.query(`UPDATE jobs SET status = $3, last_error = $4, locked_until = NULL,
        run_at = coalesce($5::timestamptz, run_at)
      WHERE job_id = $1 AND status = 'pending' AND locked_until = $2::timestamptz`,
    [jobId, l, retryAt === null ? 'dead' : 'pending', error, retryAt === null ? null : retryAt.toISOString()])
    return r.rowCount === 1
  }

  async getJob(jobId: string): Promise<JobRecord | undefined> {
    const { rows: [r] } = await this.pool.query('SELECT * FROM jobs WHERE job_id = $1', [jobId])
    return r && toJob(r)
  }

  async listJobs(kinds: string[]): Promise<JobRecord[]> {
    const { rows } = await this.pool.query('SELECT * FROM jobs WHERE kind = ANY($1::text[]) ORDER BY created_at, job_id',
      [kinds])
    return rows.map(toJob)
  }

  // ---------------------------------------------------------------- webhook subscriptions

  async addSubscription(x: SubscriptionRecord): Promise<void> {
    await this.pool.query(`INSERT INTO subscriptions
      (subscription_id, seller_id, event_name, delivery_method, target, secret, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [x.subscription_id, x.seller_id, x.event_name, x.delivery_method, x.target, x.secret, x.created_at])
  }

  async listSubscriptions(sellerId: string): Promise<SubscriptionRecord[]> {
    const { rows } = await this.pool.query(
      'SELECT * FROM subscriptions WHERE seller_id = $1 ORDER BY created_at, subscription_id', [sellerId])
    return rows.map(toSubscription)
  }

  async deleteSubscription(sellerId: string, subscriptionId: string): Promise<boolean> {
    const r = await this.pool.query('DELETE FROM subscriptions WHERE seller_id = $1 AND subscription_id = $2',
      [sellerId, subscriptionId])
    return r.rowCount === 1
  }

  // ---------------------------------------------------------------- private

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
      await c.query('ROLLBACK').catch((err: Error) => { broken = err })
      throw e
    } finally {
      c.release(broken)
    }
  }
}

async function insertJobs(db: Queryable, jobs: JobRecord[]): Promise<void> {
  for (const j of jobs) {
    await db.query(`INSERT INTO jobs
      (job_id, kind, payload, run_at, attempts, max_attempts, locked_until, last_error, status, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [j.job_id, j.kind, json(j.payload), j.run_at, j.attempts, j.max_attempts, j.locked_until, j.last_error, j.status, j.created_at])
  }
}
