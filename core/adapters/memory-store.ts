/**
 * The in-memory Store. Why it exists: the offline sandbox runs the whole API in the browser (mock-server/:
 * MSW over the same core, this store persisted to localStorage through `snapshot`/`restore`), where neither
 * SQLite's native driver nor PostgreSQL can go; the core's tests run on it without a database; and
 * `memory:` (server/store/index.ts) is a service that keeps nothing. So it is complete, every role of
 * core/ports/store.ts, held to the same contract suite as the SQL stores (test/store/).
 *
 * What it is: maps of records, and nothing of its own that decides which rows a call reads, changes or
 * deletes: those rules (the orders feed's filters, retention, claim fairness and leases, refresh-token
 * refusals, idempotency takeovers) are core/adapters/store-rules.ts, which the SQL stores' statements
 * mirror. What is left here is what a database does for the SQL stores: every record copied in and out so
 * callers never alias stored state, timestamps back in canonical `toISOString()` form, references to
 * sellers and trips checked like foreign keys, and a write that fails changing nothing. Each method runs
 * to completion without awaiting, so each is atomic (and a purge needs no batches: no lock is held).
 */
import { MAX_SUPPLIER_CALLS } from '../ports/records.ts'
import type {
  TripEventInput,
  TripEventKind,
  TripEventRecord,
  ApiKeyRecord,
  ConsumeResult,
  IdempotencyCompletion,
  IdempotencyRecord,
  JobRecord,
  OrderFeedEntry,
  OrderFeedItem,
  OrderFeedQuery,
  PurgeCounts,
  PurgeCutoffs,
  RefreshTokenRecord,
  SearchRecord,
  SellerRecord,
  SigningKeyRecord,
  SubscriptionRecord,
  TripEffects,
  TripRecord,
  Versioned,
  KnownVersion,
  PlainWrite,
  OperatorKeyRecord,
  ConsoleSessionRecord,
  SellerOrder,
  OrderChange,
  JobCount,
  WebhookAttemptRecord,
  WebhookDeliveryCount,
  WebhookDeliveryRecord,
  WebhookDeliveryState,
} from '../ports/records.ts'
import type { SellerChangeRecord, Store } from '../ports/store.ts'
import type { SupplierSeatMap } from '../ports/supplier-answers.ts'
import { changedOrders } from '../domain/order-feed.ts'
import {
  heldBy,
  holdsLease,
  inFeedPage,
  jobToClaim,
  keyWorksAt,
  lapsed,
  orderMatches,
  purgeable,
  retried,
  tripMatches,
  refreshRefusal,
  deliveryGivenUp,
  deliveryMatches,
  withAttempt,
  searchWritable,
  seatMapTouched,
  keptEvents,
} from './store-rules.ts'
import { iso, isoOrNull } from './store-times.ts'

/** An order of the feed as the store keeps it: its seller and change number (the SQL stores' orders table). */
export interface StoredOrder {
  seller_id: string
  seq: number
  order: OrderFeedItem
}

/** Everything the store holds, as plain JSON-compatible data (e.g. for localStorage). */
export interface MemorySnapshot {
  sellers: SellerRecord[]
  apiKeys: ApiKeyRecord[]
  signingKeys: SigningKeyRecord[]
  trips: Array<Versioned<TripRecord>>
  searches: SearchRecord[]
  seatMaps: SupplierSeatMap[]
  refreshTokens: RefreshTokenRecord[]
  idempotency: IdempotencyRecord[]
  jobs: JobRecord[]
  subscriptions: SubscriptionRecord[]
  /** The orders feed's rows, and each seller's last change number (numbers are never given twice). */
  orders: StoredOrder[]
  orderFeeds: Array<{ seller_id: string; seq: number }>
  operatorKeys: OperatorKeyRecord[]
  webhookDeliveries: WebhookDeliveryRecord[]
}

/**
 * What `restore` accepts: a snapshot saved before subscriptions or seat maps existed restores without any,
 * searches stored in the earlier full form are dropped (their trips search again), and one saved before the
 * orders feed gets its feed built from the trips' orders (as the SQL migration does). Sellers saved before
 * suppliers sell from the sandbox airline, and keys saved before expiry never expire (as migration 8).
 */
export type StoredSnapshot = Omit<
  MemorySnapshot,
  'subscriptions' | 'seatMaps' | 'orders' | 'orderFeeds' | 'sellers' | 'apiKeys' | 'operatorKeys' | 'webhookDeliveries'
> &
  Partial<
    Pick<MemorySnapshot, 'subscriptions' | 'seatMaps' | 'orders' | 'orderFeeds' | 'operatorKeys' | 'webhookDeliveries'>
  > & {
    sellers: Array<Omit<SellerRecord, 'supplier'> & Partial<Pick<SellerRecord, 'supplier'>>>
    apiKeys: Array<Omit<ApiKeyRecord, 'expires_at'> & Partial<Pick<ApiKeyRecord, 'expires_at'>>>
  }

// Through JSON, not structuredClone: the SQL stores keep documents as JSON, so `undefined` fields vanish
// there too and the sandbox stores exactly what production stores.
const copy = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T))
const idemKey = (scope: string, key: string) => JSON.stringify([scope, key])
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
/** Copies of the `rows` `keep` keeps, oldest first, ties by `id`: how every store lists (ORDER BY created_at, id). */
const oldestFirst = <T extends { created_at: string }>(rows: Iterable<T>, id: keyof T, keep = (_: T) => true): T[] =>
  copy([...rows].filter(keep).sort((a, b) => compare(a.created_at, b.created_at) || compare(`${a[id]}`, `${b[id]}`)))

// Copies a record and puts its timestamps in canonical form, as the SQL stores do.
/** As the SQL stores keep a seller: times canonical, optional fields absent rather than empty. */
const seller = (s: SellerRecord): SellerRecord => {
  const { trip_tokens_after, disabled_at, kept_credentials, ...rest } = copy(s)
  return {
    ...rest,
    created_at: iso(s.created_at),
    ...(trip_tokens_after ? { trip_tokens_after: iso(trip_tokens_after) } : {}),
    ...(disabled_at ? { disabled_at: iso(disabled_at) } : {}),
    ...(kept_credentials && Object.keys(kept_credentials).length ? { kept_credentials } : {}),
  }
}
const apiKey = (k: ApiKeyRecord): ApiKeyRecord => {
  const { revoked_at, ...rest } = copy(k)
  return {
    ...rest,
    created_at: iso(k.created_at),
    expires_at: isoOrNull(k.expires_at),
    ...(revoked_at ? { revoked_at: iso(revoked_at) } : {}),
  }
}
const signingKey = (k: SigningKeyRecord): SigningKeyRecord => ({
  ...copy(k),
  created_at: iso(k.created_at),
  retire_at: isoOrNull(k.retire_at),
})
const search = (s: SearchRecord): SearchRecord => ({ ...copy(s), created_at: iso(s.created_at) })
const refreshToken = (t: RefreshTokenRecord): RefreshTokenRecord => ({
  ...copy(t),
  expires_at: iso(t.expires_at),
  used_at: isoOrNull(t.used_at),
  revoked_at: isoOrNull(t.revoked_at),
})
const idempotency = (r: IdempotencyRecord): IdempotencyRecord => ({
  ...copy(r),
  created_at: iso(r.created_at),
  lease_until: iso(r.lease_until),
})
const job = (j: JobRecord): JobRecord => ({
  ...copy(j),
  run_at: iso(j.run_at),
  locked_until: isoOrNull(j.locked_until),
  created_at: iso(j.created_at),
})
const subscription = (x: SubscriptionRecord): SubscriptionRecord => ({ ...copy(x), created_at: iso(x.created_at) })
const operatorKey = (k: OperatorKeyRecord): OperatorKeyRecord => ({
  ...copy(k),
  created_at: iso(k.created_at),
  revoked_at: isoOrNull(k.revoked_at),
})
const attempt = (a: WebhookAttemptRecord): WebhookAttemptRecord => ({ ...copy(a), at: iso(a.at) })
const delivery = (d: WebhookDeliveryRecord): WebhookDeliveryRecord => ({
  ...copy(d),
  created_at: iso(d.created_at),
  updated_at: iso(d.updated_at),
  attempts: d.attempts.map(attempt),
})
const feedItem = (o: OrderFeedItem): OrderFeedItem => ({ ...copy(o), updated_at: iso(o.updated_at) })

export class MemoryStore implements Store {
  private sellers = new Map<string, SellerRecord>()
  private apiKeys = new Map<string, ApiKeyRecord>()
  private signingKeys = new Map<string, SigningKeyRecord>()
  private trips = new Map<string, Versioned<TripRecord>>()
  private searches = new Map<string, SearchRecord>()
  private seatMaps = new Map<string, SupplierSeatMap>()
  /** When a search last named each seat map (refreshed at most hourly, as the SQL stores do). */
  private seatMapUsed = new Map<string, string>()
  private refreshTokens = new Map<string, RefreshTokenRecord>()
  private idempotency = new Map<string, IdempotencyRecord>()
  private jobs = new Map<string, JobRecord>()
  private subscriptions = new Map<string, SubscriptionRecord>()
  /** The orders feed: by order_id, with each seller's last change number. */
  private orders = new Map<string, StoredOrder>()
  private orderFeeds = new Map<string, number>()
  private operatorKeys = new Map<string, OperatorKeyRecord>()
  private webhookDeliveries = new Map<string, WebhookDeliveryRecord>()
  /** The console's sessions, by their hash: not in a snapshot (a restart of the sandbox signs everyone out). */
  private consoleSessions = new Map<string, ConsoleSessionRecord>()
  /** Each trip's timeline, oldest first; `eventSeq` numbers every entry of the store. */
  private events = new Map<string, TripEventRecord[]>()
  private eventSeq = 0

  constructor(snapshot?: StoredSnapshot) {
    if (snapshot) this.restore(snapshot)
  }

  /** A deep copy of everything stored. */
  snapshot(): MemorySnapshot {
    return copy({
      sellers: [...this.sellers.values()],
      apiKeys: [...this.apiKeys.values()],
      signingKeys: [...this.signingKeys.values()],
      trips: [...this.trips.values()],
      searches: [...this.searches.values()],
      seatMaps: [...this.seatMaps.values()],
      refreshTokens: [...this.refreshTokens.values()],
      idempotency: [...this.idempotency.values()],
      jobs: [...this.jobs.values()],
      subscriptions: [...this.subscriptions.values()],
      orders: [...this.orders.values()],
      orderFeeds: [...this.orderFeeds].map(([seller_id, seq]) => ({ seller_id, seq })),
      operatorKeys: [...this.operatorKeys.values()],
      webhookDeliveries: [...this.webhookDeliveries.values()],
    })
  }

  /** Replaces everything stored with a copy of `snapshot`. */
  restore(snapshot: StoredSnapshot): void {
    const s = copy(snapshot)
    this.sellers = new Map(
      s.sellers.map((x) => [x.seller_id, { ...x, supplier: x.supplier ?? { name: 'sandbox', credentials: null } }]),
    )
    this.apiKeys = new Map(s.apiKeys.map((x) => [x.key_hash, { ...x, expires_at: x.expires_at ?? null }]))
    this.signingKeys = new Map(s.signingKeys.map((x) => [x.kid, x]))
    const searches = s.searches.filter((x) => 'offers' in x)
    const current = new Set(searches.map((x) => x.search_id))
    // A trip whose search was dropped (the earlier form) has none: a client starts a new one.
    this.trips = new Map(
      s.trips.map((x) => [
        x.value.trip_id,
        x.value.search_id && !current.has(x.value.search_id) ? { ...x, value: { ...x.value, search_id: null } } : x,
      ]),
    )
    this.searches = new Map(searches.map((x) => [x.search_id, x]))
    this.seatMaps = new Map((s.seatMaps ?? []).map((x) => [x.key, x]))
    // A restored map counts as used now: the snapshot does not carry uses.
    this.seatMapUsed = new Map([...this.seatMaps.keys()].map((k) => [k, new Date().toISOString()]))
    this.refreshTokens = new Map(s.refreshTokens.map((x) => [x.token_hash, x]))
    this.idempotency = new Map(s.idempotency.map((x) => [idemKey(x.scope, x.key), x]))
    this.jobs = new Map(s.jobs.map((x) => [x.job_id, x]))
    this.subscriptions = new Map((s.subscriptions ?? []).map((x) => [x.subscription_id, x]))
    // As a foreign key would: no order of a trip the snapshot does not hold (a sandbox that kept fewer trips).
    this.orders = new Map(
      (s.orders ?? feedOf([...this.trips.values()].map((t) => t.value)))
        .filter((o) => this.trips.has(o.order.trip_id))
        .map((o) => [o.order.order_id, o]),
    )
    this.orderFeeds = new Map((s.orderFeeds ?? []).map((f) => [f.seller_id, f.seq]))
    for (const o of this.orders.values())
      this.orderFeeds.set(o.seller_id, Math.max(o.seq, this.orderFeeds.get(o.seller_id) ?? 0))
    this.operatorKeys = new Map((s.operatorKeys ?? []).map((k) => [k.key_id, k]))
    this.webhookDeliveries = new Map((s.webhookDeliveries ?? []).map((d) => [d.delivery_id, d]))
  }

  async migrate(): Promise<void> {}
  async close(): Promise<void> {}
  async ping(): Promise<void> {}

  // ---------------------------------------------------------------- sellers and keys

  async createSeller(s: SellerRecord): Promise<void> {
    if (this.sellers.has(s.seller_id)) throw new Error(`seller ${s.seller_id} already exists`)
    this.sellers.set(s.seller_id, seller(s))
  }

  async getSeller(sellerId: string): Promise<SellerRecord | undefined> {
    const s = this.sellers.get(sellerId)
    return s && copy(s)
  }

  async listSellers(): Promise<SellerRecord[]> {
    return oldestFirst(this.sellers.values(), 'seller_id')
  }

  async updateSeller(sellerId: string, change: SellerChangeRecord): Promise<void> {
    const s = this.sellers.get(sellerId)
    if (!s) return
    const next = { ...s }
    if (change.origins) next.origins = copy(change.origins)
    if (change.supplier) next.supplier = copy(change.supplier)
    if (change.trip_tokens_after) next.trip_tokens_after = change.trip_tokens_after
    if (change.disabled_at !== undefined) {
      if (change.disabled_at === null) delete next.disabled_at
      else next.disabled_at = change.disabled_at
    }
    if (change.kept_credentials !== undefined) next.kept_credentials = copy(change.kept_credentials)
    this.sellers.set(sellerId, seller(next))
  }

  async addApiKey(k: ApiKeyRecord): Promise<void> {
    if (this.apiKeys.has(k.key_hash)) throw new Error('api key already exists')
    this.requireSeller(k.seller_id)
    this.apiKeys.set(k.key_hash, apiKey(k))
  }

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const k = this.apiKeys.get(keyHash)
    return k && copy(k)
  }

  async listApiKeys(sellerId: string): Promise<ApiKeyRecord[]> {
    return oldestFirst(this.apiKeys.values(), 'key_hash', (k) => k.seller_id === sellerId)
  }

  async expireApiKeys(sellerId: string, keyHashes: string[], at: string): Promise<void> {
    for (const k of this.#workingKeys(sellerId, keyHashes, iso(at))) k.expires_at = iso(at)
  }

  async revokeApiKeys(sellerId: string, keyHashes: string[], at: string): Promise<void> {
    for (const k of this.#workingKeys(sellerId, keyHashes, iso(at))) k.expires_at = k.revoked_at = iso(at)
  }

  /** The seller's keys named that still work `at`: an earlier expiry, or a revocation, stays as it is. */
  #workingKeys(sellerId: string, keyHashes: string[], at: string): ApiKeyRecord[] {
    return keyHashes.flatMap((hash) => {
      const k = this.apiKeys.get(hash)
      return k && k.seller_id === sellerId && keyWorksAt(k, at) ? [k] : []
    })
  }

  async listSellerTrips(sellerId: string, page: { after?: string; limit: number }): Promise<TripRecord[]> {
    const after = page.after ?? ''
    return copy(
      [...this.trips.values()]
        .map((t) => t.value)
        .filter((t) => t.seller_id === sellerId && t.trip_id > after)
        .sort((a, b) => compare(a.trip_id, b.trip_id))
        .slice(0, page.limit),
    )
  }

  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    return oldestFirst(this.signingKeys.values(), 'kid')
  }

  async updateSigningKey(
    kid: string,
    change: { retire_at?: string; private_jwk?: SigningKeyRecord['private_jwk'] },
  ): Promise<void> {
    const k = this.signingKeys.get(kid)
    if (!k) return
    if (change.retire_at !== undefined) k.retire_at = iso(change.retire_at)
    if (change.private_jwk !== undefined) k.private_jwk = copy(change.private_jwk)
  }

  async addSigningKey(k: SigningKeyRecord): Promise<boolean> {
    if (this.signingKeys.has(k.kid)) return false
    this.signingKeys.set(k.kid, signingKey(k))
    return true
  }

  // ---------------------------------------------------------------- trips and searches

  async insertTrip(trip: TripRecord, effects?: TripEffects): Promise<void> {
    if (this.trips.has(trip.trip_id)) throw new Error(`trip ${trip.trip_id} already exists`)
    this.requireSeller(trip.seller_id)
    const apply = this.checkEffects(trip, effects, true)
    this.trips.set(trip.trip_id, { value: copy(trip), version: 1 })
    apply()
  }

  async getTrip(tripId: string): Promise<Versioned<TripRecord> | undefined> {
    const t = this.trips.get(tripId)
    return t && copy(t)
  }

  async getTripsIfChanged(
    known: ReadonlyArray<KnownVersion>,
  ): Promise<Map<string, { version: number; value?: TripRecord }>> {
    const found = new Map<string, { version: number; value?: TripRecord }>()
    for (const { tripId, version } of known) {
      const t = this.trips.get(tripId)
      if (t) found.set(tripId, t.version === version ? { version } : copy(t))
    }
    return found
  }

  async updateTrip(trip: TripRecord, expectedVersion: number, effects?: TripEffects): Promise<number | null> {
    return this.#update(trip, expectedVersion, effects)
  }

  async updateTrips(writes: ReadonlyArray<PlainWrite>): Promise<Array<number | null>> {
    return writes.map((w) => this.#update(w.trip, w.expectedVersion, w.events ? { events: w.events } : undefined))
  }

  #update(trip: TripRecord, expectedVersion: number, effects?: TripEffects): number | null {
    const current = this.trips.get(trip.trip_id)
    // As the SQL stores: the version and the seller must match (a trip never changes seller).
    if (!current || current.version !== expectedVersion || current.value.seller_id !== trip.seller_id) return null
    const apply = this.checkEffects(trip, effects, false)
    const version = expectedVersion + 1
    this.trips.set(trip.trip_id, { value: copy(trip), version })
    apply()
    // After the caller has its answer, as a database's notification comes after its commit.
    for (const f of this.#watchers) queueMicrotask(() => f(trip.trip_id))
    return version
  }

  #watchers = new Set<(tripId: string) => void>()

  async watchTrips(onChange: (tripId: string) => void): Promise<() => Promise<void>> {
    const f = (tripId: string) => onChange(tripId)
    this.#watchers.add(f)
    return async () => {
      this.#watchers.delete(f)
    }
  }

  async putSearch(s: SearchRecord, seatMaps: SupplierSeatMap[] = [], events: TripEventInput[] = []): Promise<void> {
    this.requireTrip(s.trip_id)
    this.checkEffects(this.trips.get(s.trip_id)!.value, { search: s, seatMaps, events }, false)()
  }

  // ---------------------------------------------------------------- trip timelines

  async appendTripEvents(events: TripEventInput[]): Promise<void> {
    this.#append(events.filter((e) => this.trips.has(e.trip_id)))
  }

  async listTripEvents(
    tripId: string,
    page: { after?: number; limit: number; kind?: TripEventKind },
  ): Promise<TripEventRecord[]> {
    return (this.events.get(tripId) ?? [])
      .filter((e) => e.seq > (page.after ?? 0) && (!page.kind || e.kind === page.kind))
      .slice(0, page.limit)
      .map(copy)
  }

  async listSupplierCallsSince(sellerId: string, since: string, limit: number): Promise<TripEventRecord[]> {
    const at = iso(since)
    return [...this.events.values()]
      .flat()
      .filter((e) => e.seller_id === sellerId && e.kind === 'supplier_call' && e.at >= at)
      .sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : x.seq - y.seq))
      .slice(0, limit)
      .map(copy)
  }

  /** Appends in the order given, each trip kept to MAX_SUPPLIER_CALLS supplier calls (store-rules.ts keptEvents). */
  #append(events: TripEventInput[]): void {
    const touched = new Set<string>()
    for (const e of events) {
      const list = this.events.get(e.trip_id) ?? []
      list.push({ ...copy(e), at: iso(e.at), seq: ++this.eventSeq })
      this.events.set(e.trip_id, list)
      touched.add(e.trip_id)
    }
    for (const id of touched) this.events.set(id, keptEvents(this.events.get(id)!, MAX_SUPPLIER_CALLS))
  }

  async getSearch(searchId: string): Promise<SearchRecord | undefined> {
    const s = this.searches.get(searchId)
    return s && copy(s)
  }

  async listOrders(sellerId: string, q: OrderFeedQuery): Promise<OrderFeedEntry[]> {
    return copy(
      [...this.orders.values()]
        .filter((o) => o.seller_id === sellerId && inFeedPage(o.seq, o.order, q))
        .sort((a, b) => a.seq - b.seq)
        .slice(0, Math.max(0, q.limit))
        .map((o) => ({ seq: o.seq, order: o.order })),
    )
  }

  async getSeatMaps(keys: string[]): Promise<SupplierSeatMap[]> {
    return keys.flatMap((k) => {
      const m = this.seatMaps.get(k)
      return m ? [copy(m)] : []
    })
  }

  // ---------------------------------------------------------------- refresh tokens

  async insertRefreshToken(t: RefreshTokenRecord): Promise<void> {
    if (this.refreshTokens.has(t.token_hash)) throw new Error('refresh token already exists')
    this.requireTrip(t.trip_id)
    this.refreshTokens.set(t.token_hash, refreshToken(t))
  }

  async consumeRefreshToken(tokenHash: string, now: Date): Promise<ConsumeResult> {
    const t = this.refreshTokens.get(tokenHash)
    if (!t) return { status: 'unknown' }
    const refused = refreshRefusal(t, now)
    if (refused) return { status: refused, record: copy(t) }
    t.used_at = now.toISOString()
    return { status: 'ok', record: copy(t) }
  }

  async revokeRefreshFamily(familyId: string, now: Date): Promise<void> {
    for (const t of this.refreshTokens.values()) {
      if (t.family_id === familyId && t.revoked_at === null) t.revoked_at = now.toISOString()
    }
  }

  async revokeSellerRefreshTokens(sellerId: string, now: Date): Promise<void> {
    for (const t of this.refreshTokens.values()) {
      if (t.seller_id === sellerId && t.revoked_at === null && t.used_at === null) t.revoked_at = now.toISOString()
    }
  }

  // ---------------------------------------------------------------- idempotency

  async reserveIdempotency(record: IdempotencyRecord, now?: Date): Promise<IdempotencyRecord | null> {
    const k = idemKey(record.scope, record.key)
    const existing = this.idempotency.get(k)
    // A reservation whose holder died is taken over.
    if (existing && !(now !== undefined && lapsed(existing, now))) return copy(existing)
    this.idempotency.set(k, idempotency(record))
    return null
  }

  async renewIdempotency(scope: string, key: string, owner: string, leaseUntil: Date): Promise<boolean> {
    const r = this.#held(scope, key, owner)
    if (r) r.lease_until = leaseUntil.toISOString()
    return r !== undefined
  }

  async completeIdempotency(c: IdempotencyCompletion): Promise<boolean> {
    return this.#complete(c)
  }

  async releaseIdempotency(scope: string, key: string, owner: string): Promise<void> {
    if (this.#held(scope, key, owner)) this.idempotency.delete(idemKey(scope, key))
  }

  /** Stores an idempotent request's answer if its owner still holds the key (inside a trip's write, or alone). */
  #complete(c: IdempotencyCompletion): boolean {
    const r = this.#held(c.scope, c.key, c.owner)
    if (r) r.response = copy(c.response)
    return r !== undefined
  }

  /** The reservation `owner` holds without a response, if it still does. */
  #held(scope: string, key: string, owner: string): IdempotencyRecord | undefined {
    const r = this.idempotency.get(idemKey(scope, key))
    return r && heldBy(r, owner) ? r : undefined
  }

  // ---------------------------------------------------------------- jobs

  async enqueueJob(j: JobRecord): Promise<void> {
    const [stored] = this.checkNewJobs([j])
    this.jobs.set(j.job_id, stored!)
  }

  async claimJob(
    kinds: string[],
    now: Date,
    leaseMs: number,
    opts: { perLane?: number } = {},
  ): Promise<JobRecord | undefined> {
    const due = jobToClaim(this.jobs.values(), kinds, now.toISOString(), opts.perLane)
    if (!due) return undefined
    due.locked_until = new Date(now.getTime() + leaseMs).toISOString()
    due.attempts += 1
    return copy(due)
  }

  async completeJob(jobId: string, lease: string): Promise<boolean> {
    const j = this.leased(jobId, lease)
    if (!j) return false
    j.status = 'done'
    j.locked_until = null
    return true
  }

  async failJob(jobId: string, lease: string, error: string, retryAt: Date | null): Promise<boolean> {
    const j = this.leased(jobId, lease)
    if (!j) return false
    j.last_error = error
    j.locked_until = null
    if (retryAt === null) j.status = 'dead'
    else {
      j.status = 'pending'
      j.run_at = retryAt.toISOString()
    }
    return true
  }

  async renewJob(jobId: string, lease: string, until: Date): Promise<boolean> {
    const j = this.leased(jobId, lease)
    if (!j) return false
    j.locked_until = until.toISOString()
    return true
  }

  async deferJob(jobId: string, lease: string, note: string, runAt: Date): Promise<boolean> {
    const j = this.leased(jobId, lease)
    if (!j) return false
    j.last_error = note
    j.locked_until = null
    j.run_at = runAt.toISOString()
    j.attempts -= 1
    return true
  }

  async getJob(jobId: string): Promise<JobRecord | undefined> {
    const j = this.jobs.get(jobId)
    return j && copy(j)
  }

  async listJobs(kinds: string[]): Promise<JobRecord[]> {
    return oldestFirst(this.jobs.values(), 'job_id', (j) => kinds.includes(j.kind))
  }

  async countPendingJobs(): Promise<Record<string, number>> {
    const n: Record<string, number> = {}
    for (const j of this.jobs.values()) if (j.status === 'pending') n[j.kind] = (n[j.kind] ?? 0) + 1
    return n
  }

  // ---------------------------------------------------------------- the operator's keys and questions

  async addOperatorKey(k: OperatorKeyRecord): Promise<void> {
    if (this.operatorKeys.has(k.key_id) || [...this.operatorKeys.values()].some((x) => x.key_hash === k.key_hash))
      throw new Error(`operator key ${k.key_id} exists`)
    if (k.seller_id !== null && !this.sellers.has(k.seller_id)) throw new Error(`no seller ${k.seller_id}`)
    this.operatorKeys.set(k.key_id, operatorKey(k))
  }

  async findOperatorKey(keyHash: string): Promise<OperatorKeyRecord | undefined> {
    const k = [...this.operatorKeys.values()].find((x) => x.key_hash === keyHash)
    return k && copy(k)
  }

  async listOperatorKeys(): Promise<OperatorKeyRecord[]> {
    return oldestFirst(this.operatorKeys.values(), 'key_id')
  }

  async revokeOperatorKey(keyId: string, at: string): Promise<boolean> {
    const k = this.operatorKeys.get(keyId)
    if (!k || k.revoked_at !== null) return false
    k.revoked_at = iso(at)
    return true
  }

  async addConsoleSession(c: ConsoleSessionRecord): Promise<void> {
    if (this.consoleSessions.has(c.session_hash)) throw new Error('console session exists')
    if (!this.operatorKeys.has(c.key_id)) throw new Error(`no operator key ${c.key_id}`)
    this.consoleSessions.set(c.session_hash, { ...c, created_at: iso(c.created_at), expires_at: iso(c.expires_at) })
  }

  async findConsoleSession(
    sessionHash: string,
  ): Promise<{ session: ConsoleSessionRecord; key: OperatorKeyRecord } | undefined> {
    const session = this.consoleSessions.get(sessionHash)
    const key = session && this.operatorKeys.get(session.key_id)
    return session && key ? copy({ session, key }) : undefined
  }

  async endConsoleSession(sessionHash: string): Promise<boolean> {
    return this.consoleSessions.delete(sessionHash)
  }

  async findTrips(q: {
    sellerId?: string
    recordLocator?: string
    after?: string
    limit: number
  }): Promise<TripRecord[]> {
    return copy(
      [...this.trips.values()]
        .map((t) => t.value)
        .filter((t) => tripMatches(t, q))
        .sort((a, b) => compare(a.trip_id, b.trip_id))
        .slice(0, Math.max(0, q.limit)),
    )
  }

  async findOrders(q: {
    sellerId?: string
    status?: string
    failureReason?: string
    after?: string
    limit: number
  }): Promise<SellerOrder[]> {
    return copy(
      [...this.orders.values()]
        .filter((o) => orderMatches(o.seller_id, o.order, q))
        .sort((a, b) => compare(a.order.order_id, b.order.order_id))
        .slice(0, Math.max(0, q.limit))
        .map((o) => ({ seller_id: o.seller_id, order: o.order })),
    )
  }

  async listOrderChanges(q: { sellerId?: string; since: string; limit: number }): Promise<OrderChange[]> {
    const since = iso(q.since)
    return [...this.orders.values()]
      .filter((o) => (q.sellerId === undefined || o.seller_id === q.sellerId) && iso(o.order.updated_at) >= since)
      .map((o) => ({ status: o.order.status, updated_at: iso(o.order.updated_at) }))
      .sort((a, b) => compare(b.updated_at, a.updated_at))
      .slice(0, Math.max(0, q.limit))
  }

  async countJobs(): Promise<JobCount[]> {
    const n = new Map<string, JobCount>()
    for (const j of this.jobs.values()) {
      const key = JSON.stringify([j.kind, j.status])
      const c = n.get(key) ?? { kind: j.kind, status: j.status, count: 0 }
      c.count++
      n.set(key, c)
    }
    return [...n.values()].sort((a, b) => compare(a.kind, b.kind) || compare(a.status, b.status))
  }

  async listDeadJobs(page: { after?: string; limit: number }): Promise<JobRecord[]> {
    return copy(
      [...this.jobs.values()]
        .filter((j) => j.status === 'dead' && j.job_id > (page.after ?? ''))
        .sort((a, b) => compare(a.job_id, b.job_id))
        .slice(0, Math.max(0, page.limit)),
    )
  }

  async retryDeadJob(jobId: string, runAt: string): Promise<boolean> {
    const j = this.jobs.get(jobId)
    const next = j && retried(j, iso(runAt))
    if (!next) return false
    this.jobs.set(jobId, next)
    return true
  }

  // ---------------------------------------------------------------- retention

  /** What store-rules.ts `purgeable` allows, in one pass (`batch` bounds a SQL store's locks: none are held here). */
  async purge(c: PurgeCutoffs): Promise<PurgeCounts> {
    const drop = <V>(rows: Map<string, V>, goes: (v: V) => boolean, then?: (v: V, k: string) => void): number => {
      let n = 0
      for (const [k, v] of rows)
        if (goes(v)) {
          rows.delete(k)
          then?.(v, k)
          n++
        }
      return n
    }
    // A trip that goes takes its searches, refresh tokens and orders with it.
    const gone = new Set<string>()
    const trips = drop(
      this.trips,
      (t) => purgeable.trip(t.value, c),
      (t) => gone.add(t.value.trip_id),
    )
    const searches = drop(
      this.searches,
      (s) => gone.has(s.trip_id) || purgeable.search(s, this.trips.get(s.trip_id)?.value, c),
      (s) => {
        // A trip whose current search goes is left without one, at a new version.
        const trip = this.trips.get(s.trip_id)
        if (trip && trip.value.search_id === s.search_id)
          this.trips.set(s.trip_id, { value: { ...trip.value, search_id: null }, version: trip.version + 1 })
      },
    )
    const seat_maps = drop(
      this.seatMapUsed,
      (used) => purgeable.seatMap(used, c),
      (_, key) => this.seatMaps.delete(key),
    )
    drop(this.orders, (o) => gone.has(o.order.trip_id))
    for (const id of gone) this.events.delete(id)
    return {
      trips,
      searches,
      seat_maps,
      refresh_tokens: drop(this.refreshTokens, (t) => gone.has(t.trip_id) || purgeable.refreshToken(t, c)),
      idempotency_keys: drop(this.idempotency, (r) => purgeable.idempotency(r, c)),
      jobs: drop(this.jobs, (j) => purgeable.job(j, c)),
      signing_keys: drop(this.signingKeys, (k) => purgeable.signingKey(k, c)),
      webhook_deliveries: drop(this.webhookDeliveries, (d) => purgeable.delivery(d, c)),
      console_sessions: drop(this.consoleSessions, (x) => purgeable.consoleSession(x, c)),
    }
  }

  // ---------------------------------------------------------------- webhook subscriptions

  async addSubscription(x: SubscriptionRecord): Promise<void> {
    if (this.subscriptions.has(x.subscription_id)) throw new Error(`subscription ${x.subscription_id} already exists`)
    this.requireSeller(x.seller_id)
    this.subscriptions.set(x.subscription_id, subscription(x))
  }

  async listSubscriptions(sellerId: string): Promise<SubscriptionRecord[]> {
    return oldestFirst(this.subscriptions.values(), 'subscription_id', (x) => x.seller_id === sellerId)
  }

  async deleteSubscription(sellerId: string, subscriptionId: string): Promise<boolean> {
    const x = this.subscriptions.get(subscriptionId)
    if (!x || x.seller_id !== sellerId) return false
    this.subscriptions.delete(subscriptionId)
    return true
  }

  // ---------------------------------------------------------------- webhook deliveries

  async addWebhookDelivery(d: WebhookDeliveryRecord): Promise<boolean> {
    if (this.webhookDeliveries.has(d.delivery_id)) return false
    this.requireSeller(d.seller_id)
    this.webhookDeliveries.set(d.delivery_id, delivery(d))
    return true
  }

  async recordWebhookAttempt(d: Omit<WebhookDeliveryRecord, 'attempts'>, a: WebhookAttemptRecord): Promise<void> {
    const stored = this.webhookDeliveries.get(d.delivery_id)
    if (!stored) this.requireSeller(d.seller_id)
    this.webhookDeliveries.set(d.delivery_id, delivery(withAttempt(stored, d, a)))
  }

  async giveUpWebhookDelivery(deliveryId: string, at: string): Promise<boolean> {
    const stored = this.webhookDeliveries.get(deliveryId)
    const next = stored && deliveryGivenUp(stored, iso(at))
    if (!next) return false
    this.webhookDeliveries.set(deliveryId, next)
    return true
  }

  async getWebhookDelivery(deliveryId: string): Promise<WebhookDeliveryRecord | undefined> {
    return copy(this.webhookDeliveries.get(deliveryId))
  }

  async findWebhookDeliveries(q: {
    sellerId?: string
    state?: WebhookDeliveryState
    subscriptionId?: string
    tripId?: string
    after?: string
    limit: number
  }): Promise<WebhookDeliveryRecord[]> {
    return copy(
      [...this.webhookDeliveries.values()]
        .filter((d) => deliveryMatches(d, q))
        .sort((a, b) => compare(a.delivery_id, b.delivery_id))
        .slice(0, q.limit),
    )
  }

  async countWebhookDeliveries(sellerId: string): Promise<WebhookDeliveryCount[]> {
    const counts = new Map<string, WebhookDeliveryCount>()
    for (const d of this.webhookDeliveries.values()) {
      if (d.seller_id !== sellerId) continue
      const key = JSON.stringify([d.subscription_id, d.state])
      const c = counts.get(key) ?? { subscription_id: d.subscription_id, state: d.state, count: 0 }
      c.count++
      counts.set(key, c)
    }
    return [...counts.values()].sort(
      (a, b) => compare(a.subscription_id, b.subscription_id) || compare(a.state, b.state),
    )
  }

  // ---------------------------------------------------------------- private

  private requireSeller(sellerId: string): void {
    if (!this.sellers.has(sellerId)) throw new Error(`unknown seller ${sellerId}`)
  }

  /** The job if it is pending and still holds exactly `lease` (a lapsed lease re-claimed by another worker does not). */
  private leased(jobId: string, lease: string): JobRecord | undefined {
    const j = this.jobs.get(jobId)
    return j && holdsLease(j, lease) ? j : undefined
  }

  private requireTrip(tripId: string): void {
    if (!this.trips.has(tripId)) throw new Error(`unknown trip ${tripId}`)
  }

  /**
   * Checks what a trip write brings along, throwing before anything is written if it cannot all be stored
   * (a key taken: a primary key violation in SQL), and returns what stores it.
   */
  private checkEffects(
    trip: Pick<TripRecord, 'trip_id' | 'seller_id'>,
    effects: TripEffects = {},
    newTrip: boolean,
  ): () => void {
    const tripId = trip.trip_id
    const jobs = this.checkNewJobs(effects.jobs ?? [])
    const orders = (effects.orders ?? []).map(feedItem)
    for (const o of orders)
      if (o.trip_id !== tripId) throw new Error(`order ${o.order_id} belongs to trip ${o.trip_id}`)
    const { search: s, seatMaps = [], refreshToken: t } = effects
    if (s && s.trip_id !== tripId) throw new Error(`search ${s.search_id} belongs to trip ${s.trip_id}`)
    const writeSearch = s !== undefined && searchWritable(this.searches.get(s.search_id))
    if (t) {
      if (t.trip_id !== tripId) throw new Error(`refresh token of trip ${t.trip_id}`)
      if (this.refreshTokens.has(t.token_hash)) throw new Error('refresh token already exists')
    }
    if (!newTrip) this.requireTrip(tripId)
    for (const e of effects.events ?? [])
      if (e.trip_id !== tripId) throw new Error(`an event of trip ${e.trip_id} written with trip ${tripId}`)
    return () => {
      for (const j of jobs) this.jobs.set(j.job_id, j)
      if (writeSearch) this.searches.set(s.search_id, search(s))
      const usedAt = iso(s?.created_at ?? new Date().toISOString())
      for (const m of seatMaps) {
        if (!this.seatMaps.has(m.key)) this.seatMaps.set(m.key, copy(m))
        if (seatMapTouched(this.seatMapUsed.get(m.key), usedAt)) this.seatMapUsed.set(m.key, usedAt)
      }
      if (t) this.refreshTokens.set(t.token_hash, refreshToken(t))
      if (effects.idempotency) this.#complete(effects.idempotency)
      // The seller's next change numbers, in the order given (core/ports/records.ts OrderFeedEntry).
      let seq = this.orderFeeds.get(trip.seller_id) ?? 0
      for (const order of orders) this.orders.set(order.order_id, { seller_id: trip.seller_id, seq: ++seq, order })
      if (orders.length) this.orderFeeds.set(trip.seller_id, seq)
      this.#append(effects.events ?? [])
    }
  }

  /** Copies new jobs, throwing before anything is written if any id is taken (a primary key violation in SQL). */
  private checkNewJobs(jobs: JobRecord[]): JobRecord[] {
    const ids = new Set<string>()
    for (const j of jobs) {
      if (this.jobs.has(j.job_id) || ids.has(j.job_id)) throw new Error(`job ${j.job_id} already exists`)
      ids.add(j.job_id)
    }
    return jobs.map(job)
  }
}

/**
 * The feed of trips stored before it existed: every order of every trip, numbered per seller by updated_at
 * then order_id (what the SQL stores' migration does).
 */
function feedOf(trips: TripRecord[]): StoredOrder[] {
  const bySeller = new Map<string, OrderFeedItem[]>()
  for (const t of trips)
    bySeller.set(t.seller_id, [...(bySeller.get(t.seller_id) ?? []), ...changedOrders(undefined, t)])
  return [...bySeller].flatMap(([seller_id, items]) =>
    items
      .sort((a, b) => compare(a.updated_at, b.updated_at) || compare(a.order_id, b.order_id))
      .map((order, i) => ({ seller_id, seq: i + 1, order: feedItem(order) })),
  )
}
