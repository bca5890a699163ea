/**
 * The store: where the service keeps its records (core/ports/records.ts). It is a set of role ports of a
 * few methods each (sellers and their keys, signing keys, trips with their searches, the orders feed,
 * refresh tokens, idempotency, jobs, retention, rate limits, webhook subscriptions); `Store` is all of them
 * with its lifecycle, which every adapter implements (core/adapters/memory-store.ts, server/store/*.ts).
 * Each role has its own contract under test/store/ (test/store/contract.ts applies them all).
 */
import type {
  SellerRecord,
  SellerSupplier,
  SealedSecret,
  ApiKeyRecord,
  SigningKeyRecord,
  SealedJwk,
  OrderFeedEntry,
  OrderFeedQuery,
  TripRecord,
  Versioned,
  KnownVersion,
  SearchRecord,
  RefreshTokenRecord,
  ConsumeResult,
  IdempotencyRecord,
  IdempotencyCompletion,
  JobRecord,
  SubscriptionRecord,
  PurgeCutoffs,
  PurgeCounts,
  TripEffects,
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
  TripEventInput,
  TripEventRecord,
} from './records.ts'
import type { SupplierSeatMap } from './supplier-answers.ts'

export interface RateLimitHits {
  key: string
  hits: number
  windowMs: number
}
export interface RateLimitCount {
  key: string
  count: number
  ttlMs: number
}

/** Sellers and their API keys. */
export interface SellerStore {
  createSeller(seller: SellerRecord): Promise<void>
  getSeller(sellerId: string): Promise<SellerRecord | undefined>
  listSellers(): Promise<SellerRecord[]>
  /**
   * Replaces what `change` names of the seller (its origins, its supplier, its end of trip tokens, its kept
   * credentials); the rest stays. `disabled_at`: a time disables the seller from then, null enables it.
   * `kept_credentials` replaces them all (`{}`: none kept).
   */
  updateSeller(sellerId: string, change: SellerChangeRecord): Promise<void>
  addApiKey(key: ApiKeyRecord): Promise<void>
  /** The key with this hash, expired or not (the caller compares `expires_at` with its clock). */
  findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined>
  /** A seller's keys, oldest first. */
  listApiKeys(sellerId: string): Promise<ApiKeyRecord[]>
  /**
   * Makes the seller's keys named by hash expire at `at` (or keeps an earlier expiry they already have): a
   * rotation's grace period, or a revocation (`at` now).
   */
  expireApiKeys(sellerId: string, keyHashes: string[], at: string): Promise<void>
  /**
   * Revokes the seller's keys named by hash at `at`: each expires then and records `at` as its revocation
   * (`revoked_at`), so it lists as revoked rather than expired. A key that had expired by `at` already (or
   * was revoked before) is left as it is; another seller's key is never touched.
   */
  revokeApiKeys(sellerId: string, keyHashes: string[], at: string): Promise<void>
  /**
   * A page of the seller's trips, by trip_id: those whose id is above `after` (all, without it), at most
   * `limit`, lowest first. For the operator's questions about a seller's trips (`npm run seller -- update
   * --supplier` looks for trips not yet fulfilled); a request never needs it.
   */
  listSellerTrips(sellerId: string, page: { after?: string; limit: number }): Promise<TripRecord[]>
}

/** What `SellerStore.updateSeller` changes of a seller: what is left out stays. */
export interface SellerChangeRecord {
  origins?: string[]
  supplier?: SellerSupplier
  trip_tokens_after?: string
  /** A time: disabled from then; null: enabled. */
  disabled_at?: string | null
  kept_credentials?: Record<string, SealedSecret>
}

/** The keys that sign session tokens. */
export interface SigningKeyStore {
  listSigningKeys(): Promise<SigningKeyRecord[]>
  /** Inserts a key; returns false when the kid already exists. */
  addSigningKey(key: SigningKeyRecord): Promise<boolean>
  /** Retires a key (from `retire_at` it signs nothing new) or replaces its stored private key (sealing it). */
  updateSigningKey(kid: string, change: { retire_at?: string; private_jwk?: JsonWebKey | SealedJwk }): Promise<void>
}

/** Trips, versioned, written with what comes along (TripEffects); the searches and seat maps they name. */
export interface TripStore {
  /** Inserts a new trip at version 1. */
  insertTrip(trip: TripRecord, effects?: TripEffects): Promise<void>
  getTrip(tripId: string): Promise<Versioned<TripRecord> | undefined>
  /**
   * Each trip of `known`, unless its stored version is still the one known: then only `{ version }` (the
   * caller's copy is current). A host keeps trips in memory and still sees every other instance's writes:
   * one query for all the trips it is asked about at once, which neither carries nor parses a document that
   * did not change. A trip that does not exist is not in the answer.
   */
  getTripsIfChanged(known: ReadonlyArray<KnownVersion>): Promise<Map<string, { version: number; value?: TripRecord }>>
  /** Replaces the trip if its stored version is still `expectedVersion`; returns the new version, or null on a conflict. */
  updateTrip(trip: TripRecord, expectedVersion: number, effects?: TripEffects): Promise<number | null>
  /**
   * Plain writes of distinct trips at once, each by `updateTrip`'s rule: the new version of each, in their
   * order, or null where its version moved. Atomic as one statement is: a call that fails wrote none of it
   * (or, when the connection was lost, cannot say, as any write), so each may be tried again alone. A host
   * makes the plain writes of a turn of its event loop with one call: one statement on PostgreSQL, one
   * commit on SQLite.
   */
  updateTrips(writes: ReadonlyArray<PlainWrite>): Promise<Array<number | null>>
  /**
   * Where the store can say so: calls `onChange` with a trip's id after any process wrote the trip, until
   * the returned stop is called; with null when changes may have been missed (the feed reconnected), so
   * every followed trip is looked at again. A store without it (SQLite) has its followed trips' versions
   * checked instead.
   */
  watchTrips?(onChange: (tripId: string | null) => void): Promise<() => Promise<void>>

  /** Stores a search that changes no trip (a failed one), with the seat maps it names and the events it records. */
  putSearch(search: SearchRecord, seatMaps?: SupplierSeatMap[], events?: TripEventInput[]): Promise<void>
  getSearch(searchId: string): Promise<SearchRecord | undefined>
  /** The seat maps stored under these keys (the ones not stored are left out). */
  getSeatMaps(keys: string[]): Promise<SupplierSeatMap[]>
}

/**
 * A trip's timeline (core/domain/trip-events.ts): entries appended by the trip writes they record
 * (TripEffects.events, PlainWrite.events, putSearch), never changed, and deleted with their trip.
 */
export interface TripEventStore {
  /**
   * Appends entries that come with no trip write (supplier calls a failed job made): each trip keeps its
   * MAX_SUPPLIER_CALLS latest `supplier_call` entries, older ones go. Entries of a trip that does not
   * exist are not stored.
   */
  appendTripEvents(events: TripEventInput[]): Promise<void>
  /** A trip's entries with `seq` above `after`, oldest first, at most `limit`; of one kind when `kind` is given. */
  listTripEvents(
    tripId: string,
    page: { after?: number; limit: number; kind?: TripEventInput['kind'] },
  ): Promise<TripEventRecord[]>
  /** A seller's `supplier_call` entries at or after `since`, oldest first, at most `limit` (the operator's health view). */
  listSupplierCallsSince(sellerId: string, since: string, limit: number): Promise<TripEventRecord[]>
}

/** The orders feed (core/domain/order-feed.ts), written by trip writes (TripEffects.orders). */
export interface OrderFeedStore {
  /**
   * A seller's orders feed: its orders numbered above `query.after`, lowest number first, at most
   * `query.limit`, filtered by status and updated_at. Every order is listed once, at the number of its last
   * change (TripEffects.orders); one that changes again moves to a higher number.
   */
  listOrders(sellerId: string, query: OrderFeedQuery): Promise<OrderFeedEntry[]>
}

/** Refresh tokens of trip sessions, rotated once each. */
export interface RefreshTokenStore {
  insertRefreshToken(token: RefreshTokenRecord): Promise<void>
  /**
   * Atomically marks an unused, unrevoked, unexpired token used and reports what it was. An expired one is
   * reported `expired` and left unused: refusing it changes nothing, so presenting it again is not a reuse.
   */
  consumeRefreshToken(tokenHash: string, now: Date): Promise<ConsumeResult>
  revokeRefreshFamily(familyId: string, now: Date): Promise<void>
  /** Revokes every refresh token of the seller not used or revoked yet (`revoke-key --end-trip-tokens`). */
  revokeSellerRefreshTokens(sellerId: string, now: Date): Promise<void>
}

/** Idempotency-Key reservations with their leases and stored answers. */
export interface IdempotencyStore {
  /**
   * Reserves `record.key` in `record.scope` for `record.owner` until `record.lease_until`. Returns null when
   * this caller won the reservation; otherwise the existing record (possibly still without a response). A
   * reservation still without a response whose lease ended before `now` belonged to a process that died:
   * it is taken over (replaced by `record`, returning null). Without `now`, nothing is taken over.
   */
  reserveIdempotency(record: IdempotencyRecord, now?: Date): Promise<IdempotencyRecord | null>
  /** Extends the lease of a reservation `owner` still holds without a response; false when it no longer does. */
  renewIdempotency(scope: string, key: string, owner: string, leaseUntil: Date): Promise<boolean>
  /** Stores the answer, if `owner` still holds the key; false when it no longer does (nothing changes). */
  completeIdempotency(completion: IdempotencyCompletion): Promise<boolean>
  /** Frees a key `owner` holds without a response (its request was refused, so a corrected retry may use it). */
  releaseIdempotency(scope: string, key: string, owner: string): Promise<void>
}

/** The job queue: leased claims, retries, dead jobs. */
export interface JobStore {
  enqueueJob(job: JobRecord): Promise<void>
  /**
   * Claims one due job (pending, run_at ≤ now, no live lease) and leases it until now + leaseMs. With
   * `perLane`, fair between lanes: a job of a lane that holds `perLane` leased jobs already is passed over,
   * and of the others the one whose lane holds fewest comes first (then the oldest). Concurrent claimers may
   * each take one past the share: it bounds a lane, it is not a lock.
   */
  claimJob(kinds: string[], now: Date, leaseMs: number, opts?: { perLane?: number }): Promise<JobRecord | undefined>
  /**
   * Marks a claimed job done. `lease` is the `locked_until` the claim returned: when the lease lapsed and
   * another worker claimed the job since, nothing changes and false is returned.
   */
  completeJob(jobId: string, lease: string): Promise<boolean>
  /** Records a failed attempt (same lease rule): reschedules at `retryAt`, or marks the job dead when `retryAt` is null. */
  failJob(jobId: string, lease: string, error: string, retryAt: Date | null): Promise<boolean>
  /**
   * Extends a claimed job's lease to `until` while its run goes on (same lease rule): true when the caller
   * still held it. The run then names the job by the new lease (`until`, as ISO 8601).
   */
  renewJob(jobId: string, lease: string, until: Date): Promise<boolean>
  /**
   * Records a run that found its answer not ready (same lease rule): rescheduled at `runAt` with `note` as
   * its last error, and not counted as an attempt, so a job may wait longer than its attempts would allow
   * (a hold order paid days later). The job's own rule bounds the wait.
   */
  deferJob(jobId: string, lease: string, note: string, runAt: Date): Promise<boolean>
  getJob(jobId: string): Promise<JobRecord | undefined>
  /** Jobs of some kinds in every status, oldest first (tests and operator views). */
  listJobs(kinds: string[]): Promise<JobRecord[]>
  /**
   * Pending jobs (due or waiting for a retry, leased or not) by kind, for the queue-depth gauge of /metrics:
   * one aggregate over the pending jobs, which are few next to the finished ones. Kinds with none are left out.
   */
  countPendingJobs(): Promise<Record<string, number>>
}

/** Retention: what may go, in short batches. */
export interface RetentionStore {
  /**
   * Deletes what retention allows (see PurgeCutoffs), in batches of at most `batch` rows per statement so no
   * write lock is held for long, and reports how many of each went. A fulfilled trip whose current search
   * goes is left with search_id null (and a new version, so every instance reads it again).
   */
  purge(cutoffs: PurgeCutoffs, batch?: number): Promise<PurgeCounts>
}

/** Rate-limit counters shared by every instance, where a store has them. */
export interface RateLimitStore {
  /**
   * Adds hits to rate-limit counters kept for every instance (PostgreSQL), each in a fixed window of
   * `windowMs` that starts at its first hit on the database's clock, and returns each key's count in its
   * window and the milliseconds left of it. Absent, each instance counts in its own memory (SQLite, memory).
   */
  addRateLimitHits?(hits: ReadonlyArray<RateLimitHits>): Promise<RateLimitCount[]>
}

/** Webhook subscriptions of sellers. */
export interface SubscriptionStore {
  addSubscription(sub: SubscriptionRecord): Promise<void>
  listSubscriptions(sellerId: string): Promise<SubscriptionRecord[]>
  /** Returns false when the seller has no such subscription. */
  deleteSubscription(sellerId: string, subscriptionId: string): Promise<boolean>
}

/**
 * Webhook deliveries and their attempts (core/application/jobs/webhook.ts writes them, the admin API reads
 * them). Each write is one statement: an attempt and the delivery's new state never part.
 */
export interface WebhookDeliveryStore {
  /** Inserts a delivery not tried yet (a resend, a test event); false when its id exists (nothing changes). */
  addWebhookDelivery(delivery: WebhookDeliveryRecord): Promise<boolean>
  /**
   * Records one attempt: the delivery is inserted with it when it is not stored yet (its job's first try),
   * otherwise the attempt is appended and the delivery takes `delivery.state` and `updated_at`; the rest of
   * a stored delivery stays as it is (store-rules.ts withAttempt).
   */
  recordWebhookAttempt(delivery: Omit<WebhookDeliveryRecord, 'attempts'>, attempt: WebhookAttemptRecord): Promise<void>
  /** A delivery still pending or failed becomes given_up at `at` (its job died); false otherwise. */
  giveUpWebhookDelivery(deliveryId: string, at: string): Promise<boolean>
  getWebhookDelivery(deliveryId: string): Promise<WebhookDeliveryRecord | undefined>
  /**
   * Deliveries by delivery_id above `after`, at most `limit`, lowest first, each filter optional
   * (store-rules.ts deliveryMatches), with their attempts.
   */
  findWebhookDeliveries(q: {
    sellerId?: string
    state?: WebhookDeliveryState
    subscriptionId?: string
    tripId?: string
    after?: string
    limit: number
  }): Promise<WebhookDeliveryRecord[]>
  /** How many deliveries of the seller's subscriptions are in each state; pairs with none are left out. */
  countWebhookDeliveries(sellerId: string): Promise<WebhookDeliveryCount[]>
}

/** The operator's admin API keys (core/application/operators.ts). */
export interface OperatorKeyStore {
  /** Inserts a key; its seller, when it has one, must exist (as a foreign key would have it). */
  addOperatorKey(key: OperatorKeyRecord): Promise<void>
  /** The key with this hash, revoked or not (the caller looks at `revoked_at`). */
  findOperatorKey(keyHash: string): Promise<OperatorKeyRecord | undefined>
  /** Every key, oldest first. */
  listOperatorKeys(): Promise<OperatorKeyRecord[]>
  /** Revokes the key at `at`; false when there is no such key or it was revoked already (nothing changes). */
  revokeOperatorKey(keyId: string, at: string): Promise<boolean>
}

/**
 * The operator console's sessions (server/plugins/console.ts): kept by the hash of their secret, so a
 * sign-out or an expiry holds on every instance of one database.
 */
export interface ConsoleSessionStore {
  /** Inserts a session; its operator key must exist. */
  addConsoleSession(session: ConsoleSessionRecord): Promise<void>
  /** The session with this hash and the operator key it acts with (revoked or not: the caller looks), or undefined. */
  findConsoleSession(
    sessionHash: string,
  ): Promise<{ session: ConsoleSessionRecord; key: OperatorKeyRecord } | undefined>
  /** Ends the session (sign-out); false when there was none. */
  endConsoleSession(sessionHash: string): Promise<boolean>
}

/**
 * What the operator's admin API asks across sellers (core/application/admin.ts), a page at a time by id
 * (`after`: the last id of the page before). A request of the public API never needs these: they read
 * without a seller's index where no seller is named, which is the operator's question to pay for.
 */
export interface OperationsStore {
  /**
   * Trips by id above `after`, at most `limit`, lowest first: of one seller (`sellerId`), and/or those with a
   * ticket whose record locator is `recordLocator` (store-rules.ts tripMatches).
   */
  findTrips(q: { sellerId?: string; recordLocator?: string; after?: string; limit: number }): Promise<TripRecord[]>
  /**
   * Orders by order_id above `after`, at most `limit`, lowest first, as the orders feed keeps them: of one seller,
   * in one status, failed for one reason, each filter optional (store-rules.ts orderMatches).
   */
  findOrders(q: {
    sellerId?: string
    status?: string
    failureReason?: string
    after?: string
    limit: number
  }): Promise<SellerOrder[]>
  /**
   * The orders whose last change (`updated_at`) is at or after `since`, of one seller when `sellerId` is
   * given: each one's status and that time, latest change first, at most `limit` (the operator's orders by hour).
   */
  listOrderChanges(q: { sellerId?: string; since: string; limit: number }): Promise<OrderChange[]>
  /** How many jobs there are of each kind in each state; pairs with none are left out. */
  countJobs(): Promise<JobCount[]>
  /** Dead jobs (given up, with their last error) by job_id above `after`, at most `limit`, lowest first. */
  listDeadJobs(page: { after?: string; limit: number }): Promise<JobRecord[]>
  /**
   * Gives a dead job one more attempt (store-rules.ts retried): pending again, due at `runAt`, with one attempt
   * left (max_attempts = attempts + 1), its last error kept until it runs. False when it is not dead (nothing changes).
   */
  retryDeadJob(jobId: string, runAt: string): Promise<boolean>
}

/**
 * How a store reports outcomes. An outcome the caller must handle is a value, never a thrown error, so
 * every adapter answers it the same way and the contract suite (test/store/) can hold them to it:
 * - absent: `undefined` (`getSeller`, `getTrip`, `getSearch`, `getJob`, `claimJob` when nothing is due);
 * - a precondition that no longer holds (someone else got there first): a falsy value, the caller decides
 *   what that means: `false` (`addSigningKey` on a kid taken, `completeJob`/`failJob` on a lost lease,
 *   `deleteSubscription` when there is none), `null` (`updateTrip` on a version conflict);
 * - several outcomes: a discriminated union (`consumeRefreshToken`);
 * - an update of a row that is not there changes nothing and says nothing (`updateSellerOrigins`,
 *   `updateSigningKey`, `revokeRefreshFamily`): their callers have just read the row.
 * A thrown error means the store failed, or a caller broke an invariant it owns (inserting an id that
 * exists); the core does not catch it, so it surfaces as a 500 or a job retry.
 * One method reads the other way round, kept as it is because its contract suite pins it down:
 * `reserveIdempotency` answers null when the caller won and the existing record when it lost.
 */
export interface Store
  extends
    SellerStore,
    SigningKeyStore,
    TripStore,
    OrderFeedStore,
    RefreshTokenStore,
    IdempotencyStore,
    JobStore,
    RetentionStore,
    RateLimitStore,
    SubscriptionStore,
    WebhookDeliveryStore,
    OperatorKeyStore,
    OperationsStore,
    ConsoleSessionStore,
    TripEventStore {
  migrate(): Promise<void>
  close(): Promise<void>
  /** A cheap round trip, for /readyz. */
  ping(): Promise<void>
}
