/** What the service is configured with, and the ports it is built on. */
import type { Clock, Ids } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'
import type { Supplier } from '../ports/supplier.ts'
import type { WebhookSender } from '../ports/webhook-sender.ts'
import type { JobKind } from './jobs/job.ts'

export interface CoreConfig {
  /** Lifetimes in seconds. The spec fixes access 30 min and refresh 45 min; tests shorten them. */
  accessTokenTtl: number
  refreshTokenTtl: number
  creationTokenTtl: number
  /** How long a priced basket item stays valid (valid_to − valid_from), seconds. */
  holdWindow: number
  /** `iss` of every token. */
  issuer: string
  /** A worker holds a claimed job this long; if it dies, another worker takes the job after it. */
  jobLeaseMs: number
  /** An order whose booking answer was lost (the supplier's `unknown`) is looked at again after this. */
  reconcileMs: number
  /**
   * How long such an order is looked at before it fails with `supplier_outcome_unknown`, for the seller to
   * settle with the supplier (SUPPLIER_RECONCILE_MINUTES): never bought a second time.
   */
  reconcileWindowMs: number
  /** An order the supplier cannot act on yet (handed off into a hold order not paid yet) is looked at again after this. */
  waitPollMs: number
  /** Retries: exponential from base to cap; attempts per job kind before it is given up. */
  backoffBaseMs: number
  backoffCapMs: number
  maxAttempts: Record<JobKind, number>
  /**
   * A request holding an Idempotency-Key renews its lease on it while it runs (every third of this); a key
   * without an answer whose lease has lapsed belonged to a process that died, and the next request takes it.
   */
  idempotencyLeaseMs: number
  /** How long rows are kept (docs/decisions.md "Retention"); the retention job deletes what is older. */
  retention: Retention
  /** Seals signing keys at rest (SIGNING_KEY_SECRET); unset, they are stored in the clear. */
  signingKeySecret?: string
  /** A signing key signs for this long, then the next one does (SIGNING_KEY_ROTATION_DAYS). */
  signingKeyRotationDays: number
  /** How long a cancellation quote may be confirmed, seconds. */
  cancellationQuoteTtl: number
  /** Orders of a trip fulfilled with `is_ticketed: false` fail with `ticketing_timeout` after this long unissued (TICKETING_TIMEOUT_HOURS). */
  ticketingTimeoutHours: number
  /** Trip event streams (docs/decisions.md "Live basket updates"). */
  live: LiveConfig
}

export interface LiveConfig {
  /** A comment line on an idle stream this often (the spec's 25 s), so proxies keep it open. */
  heartbeatMs: number
  /** The reconnect delay told to clients (`retry:`). */
  retryMs: number
  /** How often followed trips' versions are checked when the store has no change feed (SQLite). */
  pollMs: number
}

export interface Retention {
  /** Searches, but the current search of an open trip (RETENTION_SEARCH_HOURS, at least 2). */
  searchHours: number
  /** Open (unfulfilled) trips, counted from their creation (RETENTION_TRIP_DAYS). Fulfilled trips are kept. */
  tripDays: number
  /** Idempotency records (RETENTION_IDEMPOTENCY_HOURS). */
  idempotencyHours: number
  /** Finished jobs (RETENTION_JOB_DAYS). */
  jobDays: number
}

export const defaultConfig: CoreConfig = {
  accessTokenTtl: 30 * 60,
  refreshTokenTtl: 45 * 60,
  creationTokenTtl: 10 * 60,
  holdWindow: 30 * 60,
  issuer: 'svc',
  jobLeaseMs: 60_000,
  reconcileMs: 30_000,
  reconcileWindowMs: 10 * 60_000,
  waitPollMs: 10 * 60_000,
  backoffBaseMs: 2_000,
  backoffCapMs: 10 * 60_000,
  maxAttempts: {
    basket_check: 5,
    fulfill_order: 10,
    cancel_order: 10,
    ticketing_timeout: 10,
    webhook: 12,
    supplier_search: 3,
  },
  cancellationQuoteTtl: 15 * 60,
  ticketingTimeoutHours: 72,
  idempotencyLeaseMs: 10_000,
  retention: { searchHours: 24, tripDays: 30, idempotencyHours: 24, jobDays: 7 },
  signingKeyRotationDays: 30,
  live: { heartbeatMs: 25_000, retryMs: 2_000, pollMs: 1_000 },
}

export interface CoreDeps {
  store: Store
  /** The suppliers sellers may be configured with; the sandbox airline among them for sandbox sellers. */
  suppliers: Supplier[]
  clock: Clock
  ids: Ids
  /** Webhook delivery; `fetch` by default. */
  webhooks?: WebhookSender
  config?: Partial<CoreConfig>
}
