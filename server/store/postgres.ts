/**
 * The PostgreSQL Store (pg Pool): for many stateless instances sharing one database. Timestamps are
 * timestamptz; documents read and written whole are json (text), the others jsonb; workers claim jobs with
 * FOR UPDATE SKIP LOCKED so each runs once.
 *
 * Every statement is prepared once per connection (named), and every operation is one round trip where one
 * statement can do it: a trip change is one conditional UPDATE (atomic without BEGIN/COMMIT, and no
 * connection sits idle in a transaction while this process works), and a trip with everything it brings
 * along (search, seat maps, session, jobs) is one statement of data-modifying CTEs, atomic as a statement is.
 */
import pg from 'pg'
import type { ApiKeyRecord, ConsumeResult, IdempotencyCompletion, IdempotencyRecord, JobRecord, OrderFeedEntry, OrderFeedItem, OrderFeedQuery, PurgeCounts, PurgeCutoffs, RefreshTokenRecord, SealedSecret, SearchRecord, SellerRecord, SellerSupplier, SigningKeyRecord, SubscriptionRecord, TripEffects, TripRecord, Versioned } from '../../core/ports/records.ts'
import type { RateLimitCount, RateLimitHits, Store } from '../../core/ports/store.ts'
import type { SupplierSeatMap } from '../../core/ports/supplier-answers.ts'
import { isFulfilled } from '../../core/domain/fulfillment.ts'
import { migrations, schemaMigrationsTable } from './migrations.ts'

type Row = Record<string, unknown>

/**
 * Connections per instance. Measured (bench/api-load.ts with DATABASE_POOL_SIZE, 16 clients, GET and PUT
 * basket, PostgreSQL on the same 2-core machine): 2 was a fifth slower, 4 to 16 the same within the noise.
 * A database on its own machine serving N instances wants about its cores × 2 connections in all.
 */
const DEFAULT_POOL_SIZE = 8

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
  supplier: { name: r.supplier as string, credentials: r.supplier_credentials === null ? null : JSON.parse(r.supplier_credentials as string) as SealedSecret },
  created_at: iso(r.created_at),
})
const toApiKey = (r: Row): ApiKeyRecord => ({
  key_hash: r.key_hash as string,
  seller_id: r.seller_id as string,
  prefix: r.prefix as string,
  created_at: iso(r.created_at),
  expires_at: isoOrNull(r.expires_at),
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
  created_at: iso(r.created_at),
  offers: r.offers as SearchRecord['offers'],
})
/** The trip's document: everything but what has a column of its own (search_id). */
const tripDoc = ({ search_id: _s, ...doc }: TripRecord): string => json(doc)

/**
 * What a trip write brings along, as the JSON parameters of the CTEs below (empty arrays when absent), and
 * how many orders it moves. Seat maps come with the search that names them and take its time as their use.
 * Each order carries its place `i` (1, 2, ...) among them: it is numbered the seller's counter less the
 * count plus `i`.
 */
function effectParams(tripId: string, e: TripEffects = {}): Array<string | number> {
  const usedAt = e.search?.created_at ?? new Date().toISOString()
  const orders = e.orders ?? []
  for (const o of orders) if (o.trip_id !== tripId) throw new Error(`order ${o.order_id} belongs to trip ${o.trip_id}`)
  return [
    json(e.search ? [{ ...e.search, offers: e.search.offers }] : []),
    json((e.seatMaps ?? []).map((m) => ({ key: m.key, doc: m, used_at: usedAt }))),
    json(e.refreshToken ? [e.refreshToken] : []),
    json(e.jobs ?? []),
    json(orders.map((o, i) => {
      const doc: OrderFeedItem = { ...o, updated_at: new Date(o.updated_at).toISOString() }
      return { i: i + 1, order_id: o.order_id, status: o.status, updated_at: doc.updated_at, doc }
    })),
    orders.length,
    json(e.idempotency ? [e.idempotency] : []),
  ]
}
const hasEffects = (e: TripEffects = {}) => !!(e.search || e.seatMaps?.length || e.refreshToken || e.jobs?.length || e.orders?.length || e.idempotency)

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
  j AS (INSERT INTO jobs (job_id, kind, payload, run_at, attempts, max_attempts, locked_until, last_error, status, created_at)
    SELECT x.job_id, x.kind, x.payload, x.run_at, x.attempts, x.max_attempts, x.locked_until, x.last_error, x.status, x.created_at
    FROM t, json_to_recordset($${e + 3}::json) AS x(job_id text, kind text, payload jsonb, run_at timestamptz, attempts integer,
      max_attempts integer, locked_until timestamptz, last_error text, status text, created_at timestamptz)),
  n AS (INSERT INTO order_feeds AS f (seller_id, seq) SELECT t.seller_id, $${e + 5}::bigint FROM t WHERE $${e + 5}::bigint > 0
    ON CONFLICT (seller_id) DO UPDATE SET seq = f.seq + excluded.seq RETURNING seq),
  o AS (INSERT INTO orders (order_id, seller_id, trip_id, seq, status, updated_at, doc)
    SELECT x.order_id, t.seller_id, t.trip_id, n.seq - $${e + 5}::bigint + x.i, x.status, x.updated_at, x.doc
    FROM t, n, json_to_recordset($${e + 4}::json) AS x(i bigint, order_id text, status text, updated_at timestamptz, doc json)
    ON CONFLICT (order_id) DO UPDATE SET seq = excluded.seq, status = excluded.status, updated_at = excluded.updated_at, doc = excluded.doc),
  i AS (UPDATE idempotency_keys k SET response = x.response::jsonb
    FROM t, json_to_recordset($${e + 6}::json) AS x(scope text, key text, owner text, response json)
    WHERE k.scope = x.scope AND k.key = x.key AND k.owner = x.owner AND k.response IS NULL)`
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
  owner: r.owner as string,
  lease_until: iso(r.lease_until),
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

/** The channel migration 5's trigger notifies on, with the trip's id as payload. */
const TRIP_CHANNEL = 'svc_trip_changed'
/** After the listening connection drops, how long before connecting again. */
const RELISTEN_MS = 1_000

export class PostgresStore implements Store {
  readonly pool: pg.Pool
  readonly #config: pg.ClientConfig

  /** A connection string, or a pool config (e.g. with `options: '-c search_path=...'`). */
  constructor(config: string | pg.PoolConfig) {
    this.#config = typeof config === 'string' ? { connectionString: config } : config
    this.pool = new pg.Pool({ max: DEFAULT_POOL_SIZE, ...this.#config })
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
      retry = setTimeout(() => { listen().then(() => onChange(null), () => {}) }, RELISTEN_MS)
    }
    const listen = async (): Promise<void> => {
      const c = new pg.Client(this.#config)
      client = c
      c.on('notification', (n) => { if (n.channel === TRIP_CHANNEL && n.payload) onChange(n.payload) })
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
    await listen().catch((e) => { stopped = true; if (retry) clearTimeout(retry); throw e })
    return async () => {
      stopped = true
      if (retry) clearTimeout(retry)
      await client?.end().catch(() => {})
      client = null
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1')
  }

  // ---------------------------------------------------------------- sellers and keys

  async createSeller(s: SellerRecord): Promise<void> {
    await this.run('createSeller',
      'INSERT INTO sellers (seller_id, name, origins, sandbox, created_at, supplier, supplier_credentials) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [s.seller_id, s.name, json(s.origins), s.sandbox, s.created_at, s.supplier.name, s.supplier.credentials === null ? null : json(s.supplier.credentials)])
  }

  async getSeller(sellerId: string): Promise<SellerRecord | undefined> {
    const { rows: [r] } = await this.run('getSeller', 'SELECT * FROM sellers WHERE seller_id = $1', [sellerId])
    return r && toSeller(r)
  }

  async listSellers(): Promise<SellerRecord[]> {
    const { rows } = await this.run('listSellers', 'SELECT * FROM sellers ORDER BY created_at, seller_id')
    return rows.map(toSeller)
  }

  async updateSeller(sellerId: string, change: { origins?: string[]; supplier?: SellerSupplier }): Promise<void> {
    // What `change` leaves out stays: NULL keeps the column (the supplier's name says whether the supplier changes).
    const supplier = change.supplier ?? null
    await this.run('updateSeller', `UPDATE sellers SET origins = coalesce($2::jsonb, origins), supplier = coalesce($3::text, supplier),
      supplier_credentials = CASE WHEN $3::text IS NULL THEN supplier_credentials ELSE $4::text END WHERE seller_id = $1`,
    [sellerId, change.origins ? json(change.origins) : null, supplier?.name ?? null, supplier?.credentials ? json(supplier.credentials) : null])
  }

  async addApiKey(k: ApiKeyRecord): Promise<void> {
    await this.run('addApiKey', 'INSERT INTO api_keys (key_hash, seller_id, prefix, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [k.key_hash, k.seller_id, k.prefix, k.created_at, k.expires_at])
  }

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const { rows: [r] } = await this.run('findApiKey', 'SELECT * FROM api_keys WHERE key_hash = $1', [keyHash])
    return r && toApiKey(r)
  }

  async listApiKeys(sellerId: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.run('listApiKeys', 'SELECT * FROM api_keys WHERE seller_id = $1 ORDER BY created_at, key_hash', [sellerId])
    return rows.map(toApiKey)
  }

  async expireApiKeys(sellerId: string, keyHashes: string[], at: string): Promise<void> {
    // An earlier expiry stays: a rotation never lengthens a key's life (nor undoes a revocation).
    await this.run('expireApiKeys', `UPDATE api_keys SET expires_at = $3 WHERE seller_id = $1 AND key_hash = ANY($2::text[])
      AND (expires_at IS NULL OR expires_at > $3)`, [sellerId, keyHashes, at])
  }

  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    const { rows } = await this.run('listSigningKeys', 'SELECT * FROM signing_keys ORDER BY created_at, kid')
    return rows.map(toSigningKey)
  }

  async updateSigningKey(kid: string, change: { retire_at?: string; private_jwk?: SigningKeyRecord['private_jwk'] }): Promise<void> {
    await this.run('updateSigningKey', `UPDATE signing_keys SET retire_at = coalesce($2::timestamptz, retire_at),
      private_jwk = coalesce($3::jsonb, private_jwk) WHERE kid = $1`,
    [kid, change.retire_at ?? null, change.private_jwk === undefined ? null : json(change.private_jwk)])
  }

  async addSigningKey(k: SigningKeyRecord): Promise<boolean> {
    const r = await this.run('addSigningKey', `INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created_at, retire_at)
      VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (kid) DO NOTHING`,
    [k.kid, k.alg, json(k.private_jwk), json(k.public_jwk), k.created_at, k.retire_at])
    return r.rowCount === 1
  }

  // ---------------------------------------------------------------- trips and searches

  async insertTrip(trip: TripRecord, effects?: TripEffects): Promise<void> {
    await this.run('insertTrip', `WITH t AS (
        INSERT INTO trips (trip_id, seller_id, version, updated_at, doc, search_id, open, created_at) VALUES ($1, $2, 1, $3, $4, $5, $6, $7)
        RETURNING trip_id, seller_id),
      ${effectsCtes(8)}
      SELECT 1`,
    [trip.trip_id, trip.seller_id, trip.updated_at, tripDoc(trip), trip.search_id, !isFulfilled(trip), trip.created_at, ...effectParams(trip.trip_id, effects)])
  }

  async getTrip(tripId: string): Promise<Versioned<TripRecord> | undefined> {
    const { rows: [r] } = await this.run('getTrip', 'SELECT doc, version, search_id FROM trips WHERE trip_id = $1', [tripId])
    return r && { value: { ...(r.doc as TripRecord), search_id: r.search_id as string | null }, version: r.version as number }
  }

  async getTripIfChanged(tripId: string, knownVersion: number): Promise<{ version: number; value?: TripRecord } | undefined> {
    const { rows: [r] } = await this.run('getTripIfChanged',
      'SELECT version, search_id, CASE WHEN version = $2 THEN NULL ELSE doc END AS doc FROM trips WHERE trip_id = $1', [tripId, knownVersion])
    if (!r) return undefined
    return r.doc === null ? { version: r.version as number } : { value: { ...(r.doc as TripRecord), search_id: r.search_id as string | null }, version: r.version as number }
  }

  async updateTrip(trip: TripRecord, expectedVersion: number, effects?: TripEffects): Promise<number | null> {
    // A trip's seller never changes, so seller_id is only matched, not written.
    const values = [tripDoc(trip), trip.seller_id, trip.updated_at, trip.search_id, !isFulfilled(trip), trip.trip_id, expectedVersion]
    const set = `UPDATE trips SET doc = $1, updated_at = $3, search_id = $4, open = $5, version = version + 1
        WHERE trip_id = $6 AND version = $7 AND seller_id = $2`
    // The common change (a basket edit) brings nothing along: one conditional UPDATE, no transaction.
    const { rows: [r] } = hasEffects(effects)
      ? await this.run('updateTripWith', `WITH t AS (${set} RETURNING trip_id, seller_id, version), ${effectsCtes(8)} SELECT version FROM t`,
        [...values, ...effectParams(trip.trip_id, effects)])
      : await this.run('updateTrip', `${set} RETURNING version`, values)
    return r ? (r.version as number) : null
  }

  async putSearch(s: SearchRecord, seatMaps: SupplierSeatMap[] = []): Promise<void> {
    await this.run('putSearch', `WITH t AS (SELECT trip_id, seller_id FROM trips WHERE trip_id = $1), ${effectsCtes(2)}
      SELECT (SELECT count(*) FROM t) AS found`, [s.trip_id, ...effectParams(s.trip_id, { search: s, seatMaps })])
      .then(({ rows: [r] }) => { if (Number(r!.found) === 0) throw new Error(`unknown trip ${s.trip_id}`) })
  }

  async getSearch(searchId: string): Promise<SearchRecord | undefined> {
    const { rows: [r] } = await this.run('getSearch', 'SELECT * FROM searches WHERE search_id = $1', [searchId])
    return r && toSearch(r)
  }

  async listOrders(sellerId: string, q: OrderFeedQuery): Promise<OrderFeedEntry[]> {
    const where = ['seller_id = $1', 'seq > $2']
    const args: unknown[] = [sellerId, q.after]
    let name = 'listOrders'
    if (q.status !== undefined) { args.push(q.status); where.push(`status = $${args.length}`); name += 'S' }
    if (q.updatedSince !== undefined) {
      args.push(q.updatedSince)
      const since = `$${args.length}::timestamptz`
      where.push(`updated_at >= ${since}`)
      name += 'U'
      // On the first page, start at the first order changed since then (found in orders_updated) rather
      // than walk the seller's whole history in orders_feed: every order changed since has a number from there.
      if (q.after === 0) { where.push(`seq >= (SELECT coalesce(min(seq), 0) FROM orders WHERE seller_id = $1 AND updated_at >= ${since})`); name += '0' }
    }
    args.push(q.limit)
    const { rows } = await this.run(name, `SELECT seq, doc FROM orders WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $${args.length}`, args)
    return rows.map((r) => ({ seq: Number(r.seq), order: r.doc as OrderFeedItem }))
  }

  async getSeatMaps(keys: string[]): Promise<SupplierSeatMap[]> {
    const { rows } = await this.run('getSeatMaps', 'SELECT doc FROM seat_maps WHERE key = ANY($1::text[])', [keys])
    return rows.map((r) => r.doc as SupplierSeatMap)
  }

  // ---------------------------------------------------------------- refresh tokens

  async insertRefreshToken(t: RefreshTokenRecord): Promise<void> {
    await this.run('insertRefreshToken', `INSERT INTO refresh_tokens
      (token_hash, family_id, trip_id, seller_id, expires_at, used_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [t.token_hash, t.family_id, t.trip_id, t.seller_id, t.expires_at, t.used_at, t.revoked_at])
  }

  async consumeRefreshToken(tokenHash: string, now: Date): Promise<ConsumeResult> {
    // One statement decides the winner: a concurrent consumer waits on the row lock, then finds used_at set.
    const { rows: [won] } = await this.run('consumeRefreshToken', `UPDATE refresh_tokens SET used_at = $2
      WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING *`, [tokenHash, now.toISOString()])
    if (won) return { status: 'ok', record: toRefreshToken(won) }
    const { rows: [r] } = await this.run('consumeRefreshToken2', 'SELECT * FROM refresh_tokens WHERE token_hash = $1', [tokenHash])
    if (!r) return { status: 'unknown' }
    const record = toRefreshToken(r)
    return { status: record.revoked_at !== null ? 'revoked' : record.used_at !== null ? 'reused' : 'expired', record }
  }

  async revokeRefreshFamily(familyId: string, now: Date): Promise<void> {
    await this.run('revokeRefreshFamily', 'UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL',
      [now.toISOString(), familyId])
  }

  // ---------------------------------------------------------------- idempotency

  async reserveIdempotency(record: IdempotencyRecord, now?: Date): Promise<IdempotencyRecord | null> {
    const values = [record.scope, record.key, record.request_hash,
      record.response === null ? null : json(record.response), record.created_at, record.owner, record.lease_until]
    // The holder may release its key between our insert and our read; then the key is free again, so retry.
    for (;;) {
      // With now, one statement inserts or takes over a reservation whose lease lapsed without a response:
      // concurrent takeovers queue on the row lock and each re-checks the WHERE against the row the one
      // before it wrote, so exactly one wins (its fresh lease has not lapsed).
      const inserted = now === undefined
        ? await this.run('reserveIdempotency', `INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at, owner, lease_until)
            VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (scope, key) DO NOTHING`, values)
        : await this.run('reserveIdempotency2', `INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at, owner, lease_until)
            VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash,
              response = excluded.response, created_at = excluded.created_at, owner = excluded.owner, lease_until = excluded.lease_until
            WHERE idempotency_keys.response IS NULL AND idempotency_keys.lease_until < $8::timestamptz`,
          [...values, now.toISOString()])
      if (inserted.rowCount === 1) return null
      const { rows: [r] } = await this.run('reserveIdempotency3', 'SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2',
        [record.scope, record.key])
      if (r) return toIdempotency(r)
    }
  }

  async renewIdempotency(scope: string, key: string, owner: string, leaseUntil: Date): Promise<boolean> {
    const r = await this.run('renewIdempotency', `UPDATE idempotency_keys SET lease_until = $4
      WHERE scope = $1 AND key = $2 AND owner = $3 AND response IS NULL`, [scope, key, owner, leaseUntil.toISOString()])
    return r.rowCount === 1
  }

  async completeIdempotency(c: IdempotencyCompletion): Promise<boolean> {
    const r = await this.run('completeIdempotency', `UPDATE idempotency_keys SET response = $4
      WHERE scope = $1 AND key = $2 AND owner = $3 AND response IS NULL`, [c.scope, c.key, c.owner, json(c.response)])
    return r.rowCount === 1
  }

  async releaseIdempotency(scope: string, key: string, owner: string): Promise<void> {
    await this.run('releaseIdempotency', 'DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND owner = $3 AND response IS NULL',
      [scope, key, owner])
  }

  // ---------------------------------------------------------------- jobs

  async enqueueJob(job: JobRecord): Promise<void> {
    await this.run('enqueueJob', `INSERT INTO jobs (job_id, kind, payload, run_at, attempts, max_attempts, locked_until, last_error, status, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [job.job_id, job.kind, json(job.payload), job.run_at, job.attempts, job.max_attempts, job.locked_until, job.last_error, job.status, job.created_at])
  }

  async claimJob(kinds: string[], now: Date, leaseMs: number): Promise<JobRecord | undefined> {
    if (kinds.length === 0) return undefined
    // SKIP LOCKED: concurrent claimers pass over a row another one is taking instead of waiting for it,
    // and a row that changed meanwhile is re-checked against the WHERE clause before it is locked.
    const { rows: [r] } = await this.run('claimJob', `UPDATE jobs SET locked_until = $2, attempts = attempts + 1
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
    const r = await this.run('completeJob', `UPDATE jobs SET status = 'done', locked_until = NULL
      WHERE job_id = $1 AND status = 'pending' AND locked_until = $2::timestamptz`, [jobId, l])
    return r.rowCount === 1
  }

  async failJob(jobId: string, lease: string, error: string, retryAt: Date | null): Promise<boolean> {
    const l = leaseIso(lease)
    if (l === null) return false
    const r = await this.run('failJob', `UPDATE jobs SET status = $3, last_error = $4, locked_until = NULL,
        run_at = coalesce($5::timestamptz, run_at)
      WHERE job_id = $1 AND status = 'pending' AND locked_until = $2::timestamptz`,
    [jobId, l, retryAt === null ? 'dead' : 'pending', error, retryAt === null ? null : retryAt.toISOString()])
    return r.rowCount === 1
  }

  async getJob(jobId: string): Promise<JobRecord | undefined> {
    const { rows: [r] } = await this.run('getJob', 'SELECT * FROM jobs WHERE job_id = $1', [jobId])
    return r && toJob(r)
  }

  async listJobs(kinds: string[]): Promise<JobRecord[]> {
    const { rows } = await this.run('listJobs', 'SELECT * FROM jobs WHERE kind = ANY($1::text[]) ORDER BY created_at, job_id',
      [kinds])
    return rows.map(toJob)
  }

  async countPendingJobs(): Promise<Record<string, number>> {
    // The partial index of pending jobs (jobs_due) answers the WHERE; finished jobs are never read.
    const { rows } = await this.run('countPendingJobs', `SELECT kind, count(*)::int AS n FROM jobs WHERE status = 'pending' GROUP BY kind`)
    return Object.fromEntries(rows.map((r: { kind: string; n: number }) => [r.kind, r.n]))
  }

  // ---------------------------------------------------------------- rate limits

  async addRateLimitHits(hits: ReadonlyArray<RateLimitHits>): Promise<RateLimitCount[]> {
    // Keys in one order on every instance, so two batches never wait on each other's rows in a cycle.
    const sorted = [...hits].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
    const { rows } = await this.run('addRateLimitHits', `INSERT INTO rate_limits AS l (key, count, reset_at)
        SELECT k, n, now() + w * interval '1 millisecond' FROM unnest($1::text[], $2::int[], $3::int[]) AS h(k, n, w)
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN l.reset_at <= now() THEN excluded.count ELSE l.count + excluded.count END,
        reset_at = CASE WHEN l.reset_at <= now() THEN excluded.reset_at ELSE l.reset_at END
      RETURNING key, count, greatest(0, ceil(extract(epoch FROM reset_at - now()) * 1000))::integer AS ttl`,
    [sorted.map((h) => h.key), sorted.map((h) => h.hits), sorted.map((h) => h.windowMs)])
    return rows.map((r) => ({ key: r.key as string, count: r.count as number, ttlMs: r.ttl as number }))
  }

  // ---------------------------------------------------------------- retention

  async purge(c: PurgeCutoffs, batch = 1000): Promise<PurgeCounts> {
    const n: PurgeCounts = { trips: 0, searches: 0, seat_maps: 0, refresh_tokens: 0, idempotency_keys: 0, jobs: 0, signing_keys: 0 }
    // Each batch is one statement (data-modifying CTEs), so no transaction stays open between round trips,
    // and instances purging at once skip each other's rows (SKIP LOCKED) instead of waiting.
    const batches = async (step: () => Promise<number>) => { for (let done = batch; done === batch;) done = await step() }
    await batches(async () => {
      const { rows: [r] } = await this.run('purgeTrips', `WITH t AS (
          SELECT trip_id FROM trips WHERE created_at < $1 AND open LIMIT $2 FOR UPDATE SKIP LOCKED),
        s AS (DELETE FROM searches WHERE trip_id IN (SELECT trip_id FROM t) RETURNING 1),
        r AS (DELETE FROM refresh_tokens WHERE trip_id IN (SELECT trip_id FROM t) RETURNING 1),
        o AS (DELETE FROM orders WHERE trip_id IN (SELECT trip_id FROM t)),
        d AS (DELETE FROM trips WHERE trip_id IN (SELECT trip_id FROM t) RETURNING 1)
        SELECT (SELECT count(*) FROM t) AS picked, (SELECT count(*) FROM s) AS searches,
          (SELECT count(*) FROM r) AS tokens, (SELECT count(*) FROM d) AS trips`, [c.tripsBefore, batch])
      n.searches += Number(r!.searches)
      n.refresh_tokens += Number(r!.tokens)
      n.trips += Number(r!.trips)
      return Number(r!.picked)
    })
    await batches(async () => {
      const { rows: [r] } = await this.run('purgeSearches', `WITH s AS (
          SELECT s.search_id, s.trip_id, t.search_id = s.search_id AS current FROM searches s JOIN trips t ON t.trip_id = s.trip_id
          WHERE s.created_at < $1 AND NOT (t.open AND t.search_id IS NOT DISTINCT FROM s.search_id) LIMIT $2 FOR UPDATE OF s SKIP LOCKED),
        d AS (DELETE FROM searches WHERE search_id IN (SELECT search_id FROM s) RETURNING 1),
        u AS (UPDATE trips SET search_id = NULL, version = version + 1 WHERE trip_id IN (SELECT trip_id FROM s WHERE current) RETURNING 1)
        SELECT (SELECT count(*) FROM s) AS picked, (SELECT count(*) FROM d) AS deleted`, [c.searchesBefore, batch])
      n.searches += Number(r!.deleted)
      return Number(r!.picked)
    })
    const del = (name: string, table: string, key: string, where: string, at: Date, count: keyof PurgeCounts) => batches(async () => {
      const r = await this.run(name, `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT $2 FOR UPDATE SKIP LOCKED)`, [at, batch])
      n[count] += r.rowCount ?? 0
      return r.rowCount ?? 0
    })
    await del('purgeSeatMaps', 'seat_maps', 'key', 'used_at < $1', c.seatMapsBefore, 'seat_maps')
    await del('purgeTokens', 'refresh_tokens', 'token_hash', 'expires_at < $1', c.tokensBefore, 'refresh_tokens')
    await del('purgeIdempotency', 'idempotency_keys', 'scope, key', 'created_at < $1', c.idempotencyBefore, 'idempotency_keys')
    await del('purgeJobs', 'jobs', 'job_id', `created_at < $1 AND status <> 'pending'`, c.jobsBefore, 'jobs')
    await del('purgeSigningKeys', 'signing_keys', 'kid', 'retire_at < $1', c.signingKeysBefore, 'signing_keys')
    // Windows that ended: not counted, they are a cache of counts, not records.
    await this.run('purgeRateLimits', 'DELETE FROM rate_limits WHERE reset_at < now()')
    return n
  }

  // ---------------------------------------------------------------- webhook subscriptions

  async addSubscription(x: SubscriptionRecord): Promise<void> {
    await this.run('addSubscription', `INSERT INTO subscriptions
      (subscription_id, seller_id, event_name, delivery_method, target, secret, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [x.subscription_id, x.seller_id, x.event_name, x.delivery_method, x.target, x.secret, x.created_at])
  }

  async listSubscriptions(sellerId: string): Promise<SubscriptionRecord[]> {
    const { rows } = await this.run('listSubscriptions',
      'SELECT * FROM subscriptions WHERE seller_id = $1 ORDER BY created_at, subscription_id', [sellerId])
    return rows.map(toSubscription)
  }

  async deleteSubscription(sellerId: string, subscriptionId: string): Promise<boolean> {
    const r = await this.run('deleteSubscription', 'DELETE FROM subscriptions WHERE seller_id = $1 AND subscription_id = $2',
      [sellerId, subscriptionId])
    return r.rowCount === 1
  }

  // ---------------------------------------------------------------- private

  /** A named (prepared once per connection) statement: PostgreSQL plans it once instead of at every call. */
  private run(name: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
    return this.pool.query({ name, text, values })
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
      await c.query('ROLLBACK').catch((err: Error) => { broken = err })
      throw e
    } finally {
      c.release(broken)
    }
  }
}
