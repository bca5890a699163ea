/**
 * The plain reads and writes of both SQL stores, written once over a dialect (server/store/sql/dialect.ts)
 * and three ways to run a statement, which each store provides: SQLite synchronously (better-sqlite3,
 * its statements prepared once and cached), PostgreSQL as a named statement on its pool (one round trip).
 * Each method is one statement (reserveIdempotency: an insert, then a read when it lost).
 *
 * What stays in each store is what it does its own way: trip writes with their effects (one transaction
 * on SQLite, one statement of CTEs on PostgreSQL), the trip reads on SQLite's hot path, job claims (SKIP
 * LOCKED on PostgreSQL), refresh-token rotation, the orders feed and retention batches.
 */
import type {
  ApiKeyRecord,
  IdempotencyCompletion,
  IdempotencyRecord,
  JobRecord,
  RefreshTokenRecord,
  SellerRecord,
  SigningKeyRecord,
  SubscriptionRecord,
  TripRecord,
} from '../../../core/ports/records.ts'
import type { SellerChangeRecord } from '../../../core/ports/store.ts'
import type { SupplierSeatMap } from '../../../core/ports/supplier-answers.ts'
import { leaseIso } from '../../../core/adapters/store-times.ts'
import { json, type Dialect, type Row, type Statement } from './dialect.ts'
import {
  apiKeyRow,
  idempotencyRow,
  keptCredentials,
  mappers,
  refreshTokenRow,
  sellerRow,
  signingKeyRow,
  subscriptionRow,
  type Mappers,
} from './rows.ts'
import { statements, type Statements } from './statements.ts'

type MaybePromise<T> = T | Promise<T>

export abstract class SqlStore {
  protected readonly S: Statements
  protected readonly to: Mappers

  constructor(protected readonly d: Dialect) {
    this.S = statements(d)
    this.to = mappers(d)
  }

  /** The first row the statement returns, if any. */
  protected abstract one(s: Statement, params?: readonly unknown[]): MaybePromise<Row | undefined>
  /** Every row the statement returns. */
  protected abstract all(s: Statement, params?: readonly unknown[]): MaybePromise<Row[]>
  /** Runs a write; returns how many rows it changed. */
  protected abstract change(s: Statement, params?: readonly unknown[]): MaybePromise<number>

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

  // ---------------------------------------------------------------- seat maps

  async getSeatMaps(keys: string[]): Promise<SupplierSeatMap[]> {
    return (await this.all(this.S.getSeatMaps, [this.d.list(keys)])).map((r) => this.d.readJson<SupplierSeatMap>(r.doc))
  }

  // ---------------------------------------------------------------- refresh tokens

  async insertRefreshToken(t: RefreshTokenRecord): Promise<void> {
    await this.change(this.S.insertRefreshToken, refreshTokenRow(this.d, t))
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
