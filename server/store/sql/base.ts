/**
 * The methods of both SQL stores, written once over a dialect (server/store/sql/dialect.ts) and three ways
 * to run a statement, which each store provides: SQLite synchronously (better-sqlite3, its statements
 * prepared once and cached), PostgreSQL as a named statement on its pool (one round trip). Each method is
 * one statement (reserveIdempotency and consumeRefreshToken: a write, then a read when it lost), but
 * purge, whose batches are ./retention.ts'.
 *
 * What stays in each store is how it runs what is written once: a trip write with its effects
 * (./trip-writes.ts: SQLite's statements in one IMMEDIATE transaction, PostgreSQL's one statement of
 * CTEs), a write that queues jobs made durable at its commit, a batch of retention that picks rows, and
 * the shapes only one dialect has (statements.ts says which).
 */
import type {
  ApiKeyRecord,
  ConsumeResult,
  JobCount,
  OperatorKeyRecord,
  ConsoleSessionRecord,
  SellerOrder,
  OrderChange,
  IdempotencyCompletion,
  IdempotencyRecord,
  JobRecord,
  OrderFeedEntry,
  OrderFeedQuery,
  PurgeCounts,
  PurgeCutoffs,
  RefreshTokenRecord,
  SearchRecord,
  SellerRecord,
  SigningKeyRecord,
  SubscriptionRecord,
  TripRecord,
  Versioned,
  WebhookAttemptRecord,
  WebhookDeliveryCount,
  WebhookDeliveryRecord,
  WebhookDeliveryState,
  TripEventKind,
  TripEventRecord,
} from '../../../core/ports/records.ts'
import type { SellerChangeRecord } from '../../../core/ports/store.ts'
import type { SupplierSeatMap } from '../../../core/ports/supplier-answers.ts'
import { refreshRefusal } from '../../../core/adapters/store-rules.ts'
import { leaseIso } from '../../../core/adapters/store-times.ts'
import { json, type Dialect, type Row, type Statement } from './dialect.ts'
import { retention, type PurgeStep } from './retention.ts'
import {
  apiKeyRow,
  deliveryRow,
  idempotencyRow,
  keptCredentials,
  mappers,
  operatorKeyRow,
  refreshTokenRow,
  sellerRow,
  signingKeyRow,
  subscriptionRow,
  type Mappers,
} from './rows.ts'
import { ordersFeedParams, statements, type Statements } from './statements.ts'
import { tripWrites, type TripWrites } from './trip-writes.ts'

type MaybePromise<T> = T | Promise<T>

export abstract class SqlStore {
  protected readonly S: Statements
  /** A trip write's statements (./trip-writes.ts). */
  protected readonly W: TripWrites
  protected readonly to: Mappers
  readonly #purge: PurgeStep[]

  constructor(protected readonly d: Dialect) {
    this.S = statements(d)
    this.W = tripWrites(d)
    this.to = mappers(d)
    this.#purge = retention(d)
  }

  /** The first row the statement returns, if any. */
  protected abstract one(s: Statement, params?: readonly unknown[]): MaybePromise<Row | undefined>
  /** Every row the statement returns. */
  protected abstract all(s: Statement, params?: readonly unknown[]): MaybePromise<Row[]>
  /** Runs a write; returns how many rows it changed. */
  protected abstract change(s: Statement, params?: readonly unknown[]): MaybePromise<number>
  /**
   * Runs one batch of retention that picks rows (./retention.ts), with its cutoff and size as parameters:
   * how many rows it picked, and adds what its writes changed to `counts`.
   */
  protected abstract purgePicked(
    step: Extract<PurgeStep, { kind: 'pick' }>,
    params: readonly unknown[],
    counts: PurgeCounts,
  ): MaybePromise<number>

  async ping(): Promise<void> {
    await this.one(this.S.ping)
  }

  // ---------------------------------------------------------------- sellers and keys

  async createSeller(s: SellerRecord): Promise<void> {
    await this.change(this.S.createSeller, sellerRow(this.d, s))
  }

  async getSeller(sellerId: string): Promise<SellerRecord | undefined> {
    const r = await this.one(this.S.getSeller, [sellerId])
    return r && this.to.seller(r)
  }

  async listSellers(): Promise<SellerRecord[]> {
    return (await this.all(this.S.listSellers)).map(this.to.seller)
  }

  async updateSeller(sellerId: string, change: SellerChangeRecord): Promise<void> {
    const supplier = change.supplier ?? null
    await this.change(this.S.updateSeller, [
      sellerId,
      change.origins ? json(change.origins) : null,
      supplier?.name ?? null,
      supplier?.credentials ? json(supplier.credentials) : null,
      change.trip_tokens_after ? this.d.time(change.trip_tokens_after) : null,
      this.d.bool(change.disabled_at !== undefined),
      change.disabled_at ? this.d.time(change.disabled_at) : null,
      this.d.bool(change.kept_credentials !== undefined),
      keptCredentials(change.kept_credentials),
    ])
  }

  async addApiKey(k: ApiKeyRecord): Promise<void> {
    await this.change(this.S.addApiKey, apiKeyRow(this.d, k))
  }

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const r = await this.one(this.S.findApiKey, [keyHash])
    return r && this.to.apiKey(r)
  }

  async listApiKeys(sellerId: string): Promise<ApiKeyRecord[]> {
    return (await this.all(this.S.listApiKeys, [sellerId])).map(this.to.apiKey)
  }

  async expireApiKeys(sellerId: string, keyHashes: string[], at: string): Promise<void> {
    await this.change(this.S.expireApiKeys, [sellerId, this.d.list(keyHashes), this.d.time(at)])
  }

  async revokeApiKeys(sellerId: string, keyHashes: string[], at: string): Promise<void> {
    await this.change(this.S.revokeApiKeys, [sellerId, this.d.list(keyHashes), this.d.time(at)])
  }

  async listSellerTrips(sellerId: string, page: { after?: string; limit: number }): Promise<TripRecord[]> {
    return (await this.all(this.S.listSellerTrips, [sellerId, page.after ?? '', page.limit])).map(this.to.trip)
  }

  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    return (await this.all(this.S.listSigningKeys)).map(this.to.signingKey)
  }

  async addSigningKey(k: SigningKeyRecord): Promise<boolean> {
    return (await this.change(this.S.addSigningKey, signingKeyRow(this.d, k))) === 1
  }

  async updateSigningKey(
    kid: string,
    change: { retire_at?: string; private_jwk?: SigningKeyRecord['private_jwk'] },
  ): Promise<void> {
    await this.change(this.S.updateSigningKey, [
      kid,
      change.retire_at === undefined ? null : this.d.time(change.retire_at),
      change.private_jwk === undefined ? null : json(change.private_jwk),
    ])
  }

  // ---------------------------------------------------------------- trips, searches, seat maps, the orders feed

  async getTrip(tripId: string): Promise<Versioned<TripRecord> | undefined> {
    const r = await this.one(this.S.getTrip, [tripId])
    return r && { value: this.to.trip(r), version: r.version as number }
  }

  async getSearch(searchId: string): Promise<SearchRecord | undefined> {
    const r = await this.one(this.S.getSearch, [searchId])
    return r && this.to.search(r)
  }

  async listOrders(sellerId: string, q: OrderFeedQuery): Promise<OrderFeedEntry[]> {
    return (await this.all(this.S.listOrders(q), ordersFeedParams(this.d, sellerId, q))).map(this.to.feedEntry)
  }

  async getSeatMaps(keys: string[]): Promise<SupplierSeatMap[]> {
    return (await this.all(this.S.getSeatMaps, [this.d.list(keys)])).map((r) => this.d.readJson<SupplierSeatMap>(r.doc))
  }

  // ---------------------------------------------------------------- refresh tokens

  async insertRefreshToken(t: RefreshTokenRecord): Promise<void> {
    await this.change(this.S.insertRefreshToken, refreshTokenRow(this.d, t))
  }

  async consumeRefreshToken(tokenHash: string, now: Date): Promise<ConsumeResult> {
    const won = await this.one(this.S.consumeRefreshToken, [tokenHash, now.toISOString()])
    if (won) return { status: 'ok', record: this.to.refreshToken(won) }
    const r = await this.one(this.S.getRefreshToken, [tokenHash])
    if (!r) return { status: 'unknown' }
    const record = this.to.refreshToken(r)
    // A token the UPDATE passed over is refused for one of these reasons (a consumable one cannot be).
    return { status: refreshRefusal(record, now) ?? 'expired', record }
  }

  async revokeRefreshFamily(familyId: string, now: Date): Promise<void> {
    await this.change(this.S.revokeRefreshFamily, [now.toISOString(), familyId])
  }

  async revokeSellerRefreshTokens(sellerId: string, now: Date): Promise<void> {
    await this.change(this.S.revokeSellerRefreshTokens, [now.toISOString(), sellerId])
  }

  // ---------------------------------------------------------------- idempotency

  async reserveIdempotency(record: IdempotencyRecord, now?: Date): Promise<IdempotencyRecord | null> {
    const values = idempotencyRow(this.d, record)
    // The holder may release its key between our insert and our read; then the key is free again, so retry.
    for (;;) {
      const inserted =
        now === undefined
          ? await this.change(this.S.reserveIdempotency, values)
          : await this.change(this.S.takeOverIdempotency, [...values, now.toISOString()])
      if (inserted === 1) return null
      const r = await this.one(this.S.getIdempotency, [record.scope, record.key])
      if (r) return this.to.idempotency(r)
    }
  }

  async renewIdempotency(scope: string, key: string, owner: string, leaseUntil: Date): Promise<boolean> {
    return (await this.change(this.S.renewIdempotency, [scope, key, owner, leaseUntil.toISOString()])) === 1
  }

  async completeIdempotency(c: IdempotencyCompletion): Promise<boolean> {
    return (await this.change(this.S.completeIdempotency, [c.scope, c.key, c.owner, json(c.response)])) === 1
  }

  async releaseIdempotency(scope: string, key: string, owner: string): Promise<void> {
    await this.change(this.S.releaseIdempotency, [scope, key, owner])
  }

  // ---------------------------------------------------------------- jobs

  async claimJob(
    kinds: string[],
    now: Date,
    leaseMs: number,
    opts: { perLane?: number } = {},
  ): Promise<JobRecord | undefined> {
    if (kinds.length === 0) return undefined
    const args = [now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), this.d.list(kinds)]
    const r =
      opts.perLane === undefined
        ? await this.one(this.S.claimJob, args)
        : await this.one(this.S.claimJobFair, [...args, opts.perLane])
    return r && this.to.job(r)
  }

  async completeJob(jobId: string, lease: string): Promise<boolean> {
    const l = leaseIso(lease)
    if (l === null) return false
    return (await this.change(this.S.completeJob, [jobId, l])) === 1
  }

  async failJob(jobId: string, lease: string, error: string, retryAt: Date | null): Promise<boolean> {
    const l = leaseIso(lease)
    if (l === null) return false
    return (
      (await this.change(this.S.failJob, [
        jobId,
        l,
        retryAt === null ? 'dead' : 'pending',
        error,
        retryAt === null ? null : retryAt.toISOString(),
      ])) === 1
    )
  }

  async renewJob(jobId: string, lease: string, until: Date): Promise<boolean> {
    const l = leaseIso(lease)
    if (l === null) return false
    return (await this.change(this.S.renewJob, [jobId, l, until.toISOString()])) === 1
  }

  async deferJob(jobId: string, lease: string, note: string, runAt: Date): Promise<boolean> {
    const l = leaseIso(lease)
    if (l === null) return false
    return (await this.change(this.S.deferJob, [jobId, l, note, runAt.toISOString()])) === 1
  }

  async getJob(jobId: string): Promise<JobRecord | undefined> {
    const r = await this.one(this.S.getJob, [jobId])
    return r && this.to.job(r)
  }

  async listJobs(kinds: string[]): Promise<JobRecord[]> {
    return (await this.all(this.S.listJobs, [this.d.list(kinds)])).map(this.to.job)
  }

  async countPendingJobs(): Promise<Record<string, number>> {
    const rows = await this.all(this.S.countPendingJobs)
    return Object.fromEntries(rows.map((r) => [r.kind as string, r.n as number]))
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
      webhook_deliveries: 0,
      console_sessions: 0,
    }
    for (const step of this.#purge) {
      const params = [c[step.cutoff].toISOString(), batch]
      // Until a batch comes back short: a full one may have left more behind it.
      for (let done = batch; done === batch;) {
        if (step.kind === 'pick') done = await this.purgePicked(step, params, n)
        else n[step.count] += done = await this.change(step.statement, params)
      }
    }
    return n
  }

  // ---------------------------------------------------------------- the operator's keys and questions

  async addOperatorKey(k: OperatorKeyRecord): Promise<void> {
    await this.change(this.S.addOperatorKey, operatorKeyRow(this.d, k))
  }

  async findOperatorKey(keyHash: string): Promise<OperatorKeyRecord | undefined> {
    const r = await this.one(this.S.findOperatorKey, [keyHash])
    return r && this.to.operatorKey(r)
  }

  async listOperatorKeys(): Promise<OperatorKeyRecord[]> {
    return (await this.all(this.S.listOperatorKeys)).map(this.to.operatorKey)
  }

  async revokeOperatorKey(keyId: string, at: string): Promise<boolean> {
    return (await this.change(this.S.revokeOperatorKey, [keyId, this.d.time(at)])) === 1
  }

  async addConsoleSession(c: ConsoleSessionRecord): Promise<void> {
    await this.change(this.S.addConsoleSession, [
      c.session_hash,
      c.key_id,
      this.d.time(c.created_at),
      this.d.time(c.expires_at),
    ])
  }

  async findConsoleSession(
    sessionHash: string,
  ): Promise<{ session: ConsoleSessionRecord; key: OperatorKeyRecord } | undefined> {
    const r = await this.one(this.S.findConsoleSession, [sessionHash])
    if (!r) return undefined
    return {
      session: {
        session_hash: r.session_hash as string,
        key_id: r.key_id as string,
        created_at: this.d.readTime(r.session_created_at),
        expires_at: this.d.readTime(r.session_expires_at),
      },
      key: this.to.operatorKey(r),
    }
  }

  async endConsoleSession(sessionHash: string): Promise<boolean> {
    return (await this.change(this.S.endConsoleSession, [sessionHash])) === 1
  }

  async findTrips(q: {
    sellerId?: string
    recordLocator?: string
    after?: string
    limit: number
  }): Promise<TripRecord[]> {
    const { statement, params } = this.S.findTrips(q)
    return (await this.all(statement, params)).map(this.to.trip)
  }

  async findOrders(q: {
    sellerId?: string
    status?: string
    failureReason?: string
    after?: string
    limit: number
  }): Promise<SellerOrder[]> {
    const { statement, params } = this.S.findOrders(q)
    return (await this.all(statement, params)).map(this.to.sellerOrder)
  }

  async listOrderChanges(q: { sellerId?: string; since: string; limit: number }): Promise<OrderChange[]> {
    const since = this.d.time(q.since)
    const rows =
      q.sellerId === undefined
        ? await this.all(this.S.listOrderChanges, [since, q.limit])
        : await this.all(this.S.listSellerOrderChanges, [q.sellerId, since, q.limit])
    return rows.map((r) => ({ status: r.status as OrderChange['status'], updated_at: this.d.readTime(r.updated_at) }))
  }

  async countJobs(): Promise<JobCount[]> {
    return (await this.all(this.S.countJobs)).map((r) => ({
      kind: r.kind as string,
      status: r.status as JobRecord['status'],
      count: Number(r.n),
    }))
  }

  async listDeadJobs(page: { after?: string; limit: number }): Promise<JobRecord[]> {
    return (await this.all(this.S.listDeadJobs, [page.after ?? '', page.limit])).map(this.to.job)
  }

  async retryDeadJob(jobId: string, runAt: string): Promise<boolean> {
    return (await this.change(this.S.retryDeadJob, [jobId, this.d.time(runAt)])) === 1
  }

  // ---------------------------------------------------------------- webhook deliveries

  async addWebhookDelivery(x: WebhookDeliveryRecord): Promise<boolean> {
    return (await this.change(this.S.addWebhookDelivery, deliveryRow(this.d, x))) === 1
  }

  async recordWebhookAttempt(x: Omit<WebhookDeliveryRecord, 'attempts'>, a: WebhookAttemptRecord): Promise<void> {
    await this.change(this.S.recordWebhookAttempt, deliveryRow(this.d, { ...x, attempts: [a] }))
  }

  async giveUpWebhookDelivery(deliveryId: string, at: string): Promise<boolean> {
    return (await this.change(this.S.giveUpWebhookDelivery, [deliveryId, this.d.time(at)])) === 1
  }

  async getWebhookDelivery(deliveryId: string): Promise<WebhookDeliveryRecord | undefined> {
    const r = await this.one(this.S.getWebhookDelivery, [deliveryId])
    return r && this.to.delivery(r)
  }

  async findWebhookDeliveries(q: {
    sellerId?: string
    state?: WebhookDeliveryState
    subscriptionId?: string
    tripId?: string
    after?: string
    limit: number
  }): Promise<WebhookDeliveryRecord[]> {
    const { statement, params } = this.S.findWebhookDeliveries(q)
    return (await this.all(statement, params)).map(this.to.delivery)
  }

  async countWebhookDeliveries(sellerId: string): Promise<WebhookDeliveryCount[]> {
    return (await this.all(this.S.countWebhookDeliveries, [sellerId])).map((r) => ({
      subscription_id: r.subscription_id as string,
      state: r.state as WebhookDeliveryState,
      count: Number(r.n),
    }))
  }

  // ---------------------------------------------------------------- trip timelines

  async listTripEvents(
    tripId: string,
    page: { after?: number; limit: number; kind?: TripEventKind },
  ): Promise<TripEventRecord[]> {
    const params = [tripId, page.after ?? 0, page.limit]
    const rows = page.kind
      ? await this.all(this.S.listTripEventsOfKind, [...params, page.kind])
      : await this.all(this.S.listTripEvents, params)
    return rows.map(this.to.event)
  }

  async listSupplierCallsSince(sellerId: string, since: string, limit: number): Promise<TripEventRecord[]> {
    return (await this.all(this.S.listSupplierCallsSince, [sellerId, this.d.time(since), limit])).map(this.to.event)
  }

  // ---------------------------------------------------------------- webhook subscriptions

  async addSubscription(x: SubscriptionRecord): Promise<void> {
    await this.change(this.S.addSubscription, subscriptionRow(this.d, x))
  }

  async listSubscriptions(sellerId: string): Promise<SubscriptionRecord[]> {
    return (await this.all(this.S.listSubscriptions, [sellerId])).map(this.to.subscription)
  }

  async deleteSubscription(sellerId: string, subscriptionId: string): Promise<boolean> {
    return (await this.change(this.S.deleteSubscription, [sellerId, subscriptionId])) === 1
  }
}
