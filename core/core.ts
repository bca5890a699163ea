/**
 * The application service: every operation of the API as a method over the ports. The operations live in
 * core/application/ by subject (trips, searches, basket, fulfillment, subscriptions, tokens, sellers, jobs);
 * this facade is what hosts, the CLI, the worker and tests hold. Its methods take request bodies as
 * received (unknown) and validate them, async so that a refusal is a rejected promise like any other.
 */
import type { PurgeCounts, SellerRecord } from './ports/records.ts'
import type { ProductTypeName } from './schemas/trip.ts'
import { TripCreateRequest, TripPatchRequest, SearchSelection } from './schemas/trip.ts'
import { BasketAddRequest, BasketReplaceRequest } from './schemas/basket.ts'
import { RefreshRequest } from './schemas/auth.ts'
import { FulfillRequest, SubscriptionRequest } from './schemas/fulfillment.ts'
import { validate } from './shared/validate.ts'
import type { Rendered } from './shared/rendered.ts'
import type { TokenService } from './application/jwt.ts'
import type { CoreConfig, CoreDeps } from './application/config.ts'
import { createContext, type Context } from './application/context.ts'
import type { NewSeller, RevokedKeys, RotatedKey, SellerChange, SellerListing } from './application/sellers.ts'
import { authenticate, type Principal } from './application/auth.ts'
import * as trips from './application/trips.ts'
import * as searches from './application/searches.ts'
import * as basket from './application/baskets.ts'
import { fulfill } from './application/fulfillments.ts'
import * as subscriptions from './application/subscriptions.ts'
import * as tokens from './application/tokens.ts'
import { purgeExpired } from './application/retention.ts'
import { drainJobs, processNextJob, type JobReport } from './application/jobs/runner.ts'
import { JOB_KINDS, type JobKind } from './application/jobs/job.ts'
import type { CoreObserver } from './application/observe.ts'

export { defaultConfig, type CoreConfig, type CoreDeps, type Retention } from './application/config.ts'
export { normaliseOrigin } from './application/sellers.ts'
export type { KeyInfo, NewSeller, RevokedKeys, RotatedKey, SellerChange, SellerListing, SupplierChoice } from './application/sellers.ts'
export type { AuthRule, Principal } from './application/auth.ts'
export type { Answer } from './application/idempotency.ts'
export type { Context } from './application/context.ts'
export { JOB_KINDS, type Job, type JobKind } from './application/jobs/job.ts'
export type { JobReport } from './application/jobs/runner.ts'
export type { CoreObserver } from './application/observe.ts'

export class Core {
  /** What the operations work with; the request pipeline (core/api/) calls them with it. */
  readonly context: Context
  readonly config: CoreConfig
  readonly tokens: TokenService

  constructor(deps: CoreDeps) {
    this.context = createContext(deps)
    this.config = this.context.config
    this.tokens = this.context.tokens
  }

  // ------------------------------------------------------------ sellers and credentials

  ensureSigningKey() { return this.tokens.ensureSigningKey() }
  createSeller(input: NewSeller) { return this.context.sellers.create(input) }
  /** Adds and removes origins, changes the supplier (checked and sealed as at creation). */
  updateSeller(sellerId: string, change: SellerChange): Promise<SellerRecord> { return this.context.sellers.update(sellerId, change) }
  /** Every seller with its keys (prefixes and expiry); never a key or a credential. */
  listSellers(): Promise<SellerListing[]> { return this.context.sellers.list() }
  addApiKey(sellerId: string): Promise<string> { return this.context.sellers.addApiKey(sellerId) }
  /** A new key (shown once); the keys that work now stop after `graceHours` (default 24, 0: at once). */
  rotateApiKey(sellerId: string, graceHours?: number): Promise<RotatedKey> { return this.context.sellers.rotateKey(sellerId, graceHours) }
  /** The key `prefix` names stops working now; without one, every key but the newest. */
  revokeApiKeys(sellerId: string, prefix?: string): Promise<RevokedKeys> { return this.context.sellers.revokeKeys(sellerId, prefix) }
  findSellerByApiKey(apiKey: string): Promise<SellerRecord | undefined> { return this.context.sellers.byApiKey(apiKey) }
  addSellerOrigins(sellerId: string, origins: string[]): Promise<void> { return this.context.sellers.addOrigins(sellerId, origins) }
  sellerCount(): Promise<number> { return this.context.sellers.count() }
  isAllowedOrigin(origin: string): Promise<boolean> { return this.context.sellers.isAllowedOrigin(origin) }
  authenticate(authorization: string | undefined): Promise<Principal | null> { return authenticate(this.context, authorization) }

  // ------------------------------------------------------------ operations

  authorize(p: Principal) { return tokens.authorize(this.context, p) }
  async refresh(body: unknown) { return tokens.refresh(this.context, validate(RefreshRequest, body)) }
  jwks() { return tokens.jwks(this.context) }

  async createTrip(p: Principal, body: unknown) { return trips.createTrip(this.context, p, validate(TripCreateRequest, body)) }
  getTrip(p: Principal, tripId: string) { return trips.getTrip(this.context, p, tripId) }
  async patchTrip(p: Principal, tripId: string, body: unknown) { return trips.patchTrip(this.context, p, tripId, validate(TripPatchRequest, body)) }

  async startSearch(p: Principal, tripId: string, body: unknown) { return searches.startSearch(this.context, p, tripId, validate(SearchSelection, body)) }
  getSearch(p: Principal, tripId: string, searchId: string, types?: ProductTypeName[]) { return searches.getSearch(this.context, p, tripId, searchId, types) }
  readSearch(p: Principal, tripId: string, searchId: string, types?: ProductTypeName[]): Promise<Rendered> { return searches.readSearch(this.context, p, tripId, searchId, types) }

  getBasket(p: Principal, tripId: string) { return basket.getBasket(this.context, p, tripId) }
  readBasket(p: Principal, tripId: string): Promise<Rendered> { return basket.readBasket(this.context, p, tripId) }
  async addToBasket(p: Principal, tripId: string, body: unknown) { return basket.addToBasket(this.context, p, tripId, validate(BasketAddRequest, body)) }
  async replaceBasket(p: Principal, tripId: string, body: unknown) { return basket.replaceBasket(this.context, p, tripId, validate(BasketReplaceRequest, body)) }
  removeFromBasket(p: Principal, tripId: string, itemId: string) { return basket.removeFromBasket(this.context, p, tripId, itemId) }
  checkBasket(p: Principal, tripId: string) { return basket.checkBasket(this.context, p, tripId) }
  acceptItem(p: Principal, tripId: string, itemId: string) { return basket.acceptItem(this.context, p, tripId, itemId) }

  async fulfill(p: Principal, tripId: string, body: unknown) { return fulfill(this.context, p, tripId, validate(FulfillRequest, body)) }

  async createSubscription(p: Principal, body: unknown) { return subscriptions.createSubscription(this.context, p, validate(SubscriptionRequest, body)) }
  listSubscriptions(p: Principal) { return subscriptions.listSubscriptions(this.context, p) }
  deleteSubscription(p: Principal, subscriptionId: string) { return subscriptions.deleteSubscription(this.context, p, subscriptionId) }

  // ------------------------------------------------------------ retention and jobs

  purgeExpired(): Promise<PurgeCounts> { return purgeExpired(this.context) }
  processNextJob(kinds: JobKind[] = JOB_KINDS): Promise<JobReport | null> { return processNextJob(this.context, kinds) }
  drainJobs(kinds: JobKind[] = JOB_KINDS, limit = 1000): Promise<number> { return drainJobs(this.context, kinds, limit) }

  // ------------------------------------------------------------ observing

  /** Tells `observer` of the core's work from now on (the server's /metrics counters); returns the way to stop. */
  observe(observer: CoreObserver): () => void { return this.context.observers.add(observer) }
}

export function createCore(deps: CoreDeps): Core { return new Core(deps) }
