/**
 * The composition root: `createCore` wires the adapters it is given (store, suppliers, clock, ids, webhook
 * sender) into the application's context (core/application/), and the `Core` it returns is what a host holds.
 * The API's operations are not methods here: they are the table of core/api/operations.ts, and every caller
 * (the Fastify server, the MSW sandbox, and the tests through test/helpers/operations.ts) runs them through
 * the one request pipeline, core/api/dispatch.ts, with `context`. What is left is what the hosts, the worker
 * and the seller CLI need beside it: configuration and tokens, seller administration, authentication,
 * retention, the job runner, and observing the core's work.
 */
import type { PurgeCounts, SellerRecord } from './ports/records.ts'
import type { TokenService } from './application/jwt.ts'
import type { CoreConfig, CoreDeps } from './application/config.ts'
import { createContext, type Context } from './application/context.ts'
import { fetchSender } from './adapters/fetch-webhook-sender.ts'
import type {
  NewSeller,
  RevokedKeys,
  RotatedKey,
  SellerChange,
  SellerListing,
  SellerSwitch,
  UpdatedSeller,
} from './application/sellers.ts'
import { authenticate, type Principal } from './application/auth.ts'
import {
  createOperatorKey,
  listOperatorKeys,
  revokeOperatorKey,
  type ListedOperatorKey,
  type NewOperatorKey,
} from './application/operators.ts'
import { purgeExpired } from './application/retention.ts'
import { drainJobs, processNextJob, type JobReport } from './application/jobs/runner.ts'
import { JOB_KINDS, type JobKind } from './application/jobs/job.ts'
import type { CoreObserver } from './application/observe.ts'

export { defaultConfig, type CoreConfig, type CoreDeps, type Retention } from './application/config.ts'
export { normaliseOrigin } from './application/sellers.ts'
export type {
  KeyInfo,
  KeyState,
  ListedKey,
  NewSeller,
  RevokedKeys,
  RotatedKey,
  SellerChange,
  SellerListing,
  SellerSwitch,
  SupplierChoice,
  UnfinishedTrips,
  UpdatedSeller,
} from './application/sellers.ts'
export { NOT_YET_FULFILLED, notYetFulfilled } from './application/sellers.ts'
export type { AuthRule, Principal } from './application/auth.ts'
export type { ListedOperatorKey, NewOperatorKey, Operator } from './application/operators.ts'
// What `npm run seller -- list --json` prints and the admin API answers for a seller: one view.
export { sellerView, type SellerView } from './application/admin.ts'
export type { Answer } from './application/idempotency.ts'
export type { Context } from './application/context.ts'
export { JOB_KINDS, OTHER_KINDS, SEARCH_KINDS, type Job, type JobKind } from './application/jobs/job.ts'
export type { JobReport } from './application/jobs/runner.ts'
export type { CoreObserver } from './application/observe.ts'

export class Core {
  /** What the operations work with; the request pipeline (core/api/) calls them with it. */
  readonly context: Context
  readonly config: CoreConfig
  readonly tokens: TokenService

  constructor(deps: CoreDeps) {
    // A host that delivers webhooks its own way passes its sender (the server's checks the address it connects to).
    this.context = createContext({ ...deps, webhooks: deps.webhooks ?? fetchSender() })
    this.config = this.context.config
    this.tokens = this.context.tokens
  }

  // ------------------------------------------------------------ sellers and credentials

  ensureSigningKey() {
    return this.tokens.ensureSigningKey()
  }
  createSeller(input: NewSeller) {
    return this.context.sellers.create(input)
  }
  /**
   * Adds and removes origins, changes the supplier (checked and sealed as at creation; the one left keeps its
   * token unless `removeToken`); a switch waits for the trips not yet fulfilled unless `force`.
   */
  updateSeller(sellerId: string, change: SellerChange): Promise<UpdatedSeller> {
    return this.context.sellers.update(sellerId, change)
  }
  /** Every seller with its keys (prefixes, expiry and state); never a key or a credential. */
  listSellers(): Promise<SellerListing[]> {
    return this.context.sellers.list()
  }
  /** One seller with its keys, as `listSellers` shows each. */
  showSeller(sellerId: string): Promise<SellerListing> {
    return this.context.sellers.show(sellerId)
  }
  /** Its API keys and trip tokens answer 403 seller_disabled until it is enabled (on every instance within 10 s). */
  disableSeller(sellerId: string): Promise<SellerSwitch> {
    return this.context.sellers.setDisabled(sellerId, true)
  }
  enableSeller(sellerId: string): Promise<SellerSwitch> {
    return this.context.sellers.setDisabled(sellerId, false)
  }
  addApiKey(sellerId: string): Promise<string> {
    return this.context.sellers.addApiKey(sellerId)
  }
  /** A new key (shown once); the keys that work now stop after `graceHours` (default 24, 0: at once). */
  rotateApiKey(sellerId: string, graceHours?: number): Promise<RotatedKey> {
    return this.context.sellers.rotateKey(sellerId, graceHours)
  }
  /**
   * The key `prefix` names stops working now; without one, every key but the newest. Trip creation tokens the
   * keys minted stop with them; with `endTripTokens`, so do every trip access and refresh token of the seller.
   */
  revokeApiKeys(sellerId: string, prefix?: string, opts: { endTripTokens?: boolean } = {}): Promise<RevokedKeys> {
    return this.context.sellers.revokeKeys(sellerId, prefix, opts)
  }
  findSellerByApiKey(apiKey: string): Promise<SellerRecord | undefined> {
    return this.context.sellers.byApiKey(apiKey)
  }
  addSellerOrigins(sellerId: string, origins: string[]): Promise<void> {
    return this.context.sellers.addOrigins(sellerId, origins)
  }
  sellerCount(): Promise<number> {
    return this.context.sellers.count()
  }
  isAllowedOrigin(origin: string): Promise<boolean> {
    return this.context.sellers.isAllowedOrigin(origin)
  }
  authenticate(authorization: string | undefined): Promise<Principal | null> {
    return authenticate(this.context, authorization)
  }

  // ------------------------------------------------------------ the operator's admin API keys

  /** A new operator key: the key (to be shown once; only its hash is kept) and the key as listed. */
  createOperatorKey(input: NewOperatorKey): Promise<{ key: string; listed: ListedOperatorKey }> {
    return createOperatorKey(this.context, input)
  }
  listOperatorKeys(): Promise<ListedOperatorKey[]> {
    return listOperatorKeys(this.context)
  }
  /** Revokes the operator key its id, prefix or whole key names: refused from now on, on every instance. */
  revokeOperatorKey(idOrPrefix: string): Promise<ListedOperatorKey> {
    return revokeOperatorKey(this.context, idOrPrefix)
  }

  // ------------------------------------------------------------ retention and jobs

  purgeExpired(): Promise<PurgeCounts> {
    return purgeExpired(this.context)
  }
  /** Claims and runs one due job of `kinds`; `perLane` makes the claim fair between lanes (Store.claimJob). */
  processNextJob(kinds: JobKind[] = JOB_KINDS, opts: { perLane?: number } = {}): Promise<JobReport | null> {
    return processNextJob(this.context, kinds, opts)
  }
  drainJobs(kinds: JobKind[] = JOB_KINDS, limit = 1000): Promise<number> {
    return drainJobs(this.context, kinds, limit)
  }

  // ------------------------------------------------------------ observing

  /** Tells `observer` of the core's work from now on (the server's /metrics counters); returns the way to stop. */
  observe(observer: CoreObserver): () => void {
    return this.context.observers.add(observer)
  }
}

export function createCore(deps: CoreDeps): Core {
  return new Core(deps)
}
