/**
 * Ports: what the core needs from the outside world. Adapters live in the hosts
 * (server/store for SQL, mock-server for the browser) and in core/supplier for the sandbox airline.
 */
import type { BasketItem } from './schemas/basket.ts'
import type {
  ContactDetails, Journey, MarkupConfig, OrderStatus, Passenger, ProductTypeName, Ticket,
} from './schemas/trip.ts'
import type { Money, Price, OriginalMoney } from './schemas/common.ts'
import type { ToCancelItem } from './schemas/fulfillment.ts'
import type { TargetPolicy } from './network.ts'

// ---------------------------------------------------------------- clock and ids

export interface Clock { now(): Date }
export interface Ids {
  /** A random UUID (v4). */
  uuid(): string
  /** `bytes` of randomness, base64url; for API keys and refresh tokens. */
  secret(bytes: number): string
}

// ---------------------------------------------------------------- records the store keeps

export interface SellerRecord {
  seller_id: string
  name: string
  /** Origins allowed to call the API from a browser with an access token (CORS). */
  origins: string[]
  sandbox: boolean
  /** Where the seller's offers come from (design/api.md "Real supply: a supplier per seller"). */
  supplier: SellerSupplier
  created_at: string
}

/**
 * A seller's supplier: its name (`sandbox`, the built-in sandbox airline; `duffel`; the name of any adapter
 * the host wires) and the seller's credentials for it, sealed under SIGNING_KEY_SECRET (never stored in the
 * clear, never shown); null for a supplier that needs none.
 */
export interface SellerSupplier { name: string; credentials: SealedSecret | null }

/** A secret as stored: AES-256-GCM over its UTF-8 bytes, with what it belongs to as additional data (core/auth/sealing.ts). */
export interface SealedSecret { sealed: 'A256GCM'; iv: string; data: string }

export interface ApiKeyRecord {
  /** SHA-256 hex of the key; the key itself is never stored. */
  key_hash: string
  seller_id: string
  /** First characters of the key, for people to recognise it in lists and logs. */
  prefix: string
  created_at: string
  /** From this moment the key is refused (a rotated key's grace period ended, or it was revoked); null: never. */
  expires_at: string | null
}

export interface SigningKeyRecord {
  kid: string
  alg: 'ES256'
  /** Sealed (AES-256-GCM) when the service has a SIGNING_KEY_SECRET; in the clear otherwise. */
  private_jwk: JsonWebKey | SealedJwk
  public_jwk: JsonWebKey
  created_at: string
  /** After this moment the key signs nothing new; it verifies until every token it signed has expired. */
  retire_at: string | null
}

/** A private JWK as stored under a secret: its JSON sealed, the kid as additional data (core/auth/tokens.ts). */
export type SealedJwk = SealedSecret

export interface Order {
  order_id: string
  fulfillment_id: string
  basket_item_id: string
  display_name: string
  price: Price
  status: OrderStatus
  failure_reason?: string
  /** The airline's booking reference once the order succeeded. */
  supplier_reference?: string
  /** What the supplier handed back when it booked the order (its order and service ids), kept for it. */
  supplier_refs?: SupplierRefs
  /** The cancellation that moved it to `cancelling`; its refund once `cancelled`, or why the airline refused. */
  cancellation_id?: string
  refund?: Money
  cancellation_failure_reason?: string
  created_at: string
  updated_at: string
}

/**
 * An order as the orders feed shows it (GET /v2.2/orders): what a seller reconciles its books with. The
 * store keeps one per order beside the trip document, written in the same transaction as the trip.
 */
export interface OrderFeedItem {
  order_id: string
  trip_id: string
  basket_item_id: string
  display_name: string
  product_type: ProductTypeName
  price: Price
  status: OrderStatus
  /** Once `cancelled`: what the airline refunds. */
  refund?: Money
  updated_at: string
}

/**
 * An order in its seller's feed. `seq` is the seller's change number: each write that creates or changes
 * orders gives them the seller's next numbers, in the transaction of the write, so numbers follow commit
 * order (a reader that has seen number n never later finds a change numbered n or lower).
 */
export interface OrderFeedEntry { seq: number; order: OrderFeedItem }

/** Which of a seller's orders to list (`listOrders`): those numbered above `after`, lowest first. */
export interface OrderFeedQuery {
  after: number
  status?: OrderStatus
  /** Only orders whose `updated_at` is at or after this instant. */
  updatedSince?: string
  limit: number
}

export interface FulfillmentRecord {
  fulfillment_id: string
  status: 'queued' | 'completed'
  order_ids: string[]
  payment_type: string
  created_at: string
  completed_at: string | null
}

/** A confirmed cancellation: its orders move cancelling → cancelled | back to succeeded, each by a durable job. */
export interface CancellationRecord {
  cancellation_id: string
  status: 'queued' | 'completed'
  order_ids: string[]
  created_at: string
  completed_at: string | null
}

/** The airline's latest cancellation quote for some ordered items (POST .../to_cancel), until it expires or is confirmed. */
export interface CancellationQuote {
  quote_expires_at: string
  /** By basket_item_id (null-prototype when built: ids are the caller's). */
  items: Record<string, ToCancelItem>
}

/** The stored trip aggregate. The API representation is derived from it (core/trip.ts). */
export interface TripRecord {
  trip_id: string
  seller_id: string
  sandbox: boolean
  created_at: string
  updated_at: string
  language: string
  currency: string
  country: string
  markups: MarkupConfig
  journeys: Journey[]
  tickets: Ticket[]
  passengers: Passenger[]
  contact_details: ContactDetails | null
  corporate_identifiers: Record<string, { corporate_id: string; name: string }>
  basket: Record<string, BasketItem>
  orders: Record<string, Order>
  /** The trip's current search, or null when it has none (never searched, or purged by retention). */
  search_id: string | null
  /** That search's status, kept with the trip so that its end (a remote supplier's, by a job) is a change of the trip its event streams see. */
  search_status?: SearchRecord['status']
  /** The supplier the trip's offers come from (its seller's when it was created); absent: the sandbox airline. */
  supplier?: string
  /** What the supplier handed back with the trip's current search (SupplierOffers.refs), for its rechecks and bookings. */
  supplier_refs?: SupplierRefs
  /** When the offers of the trip's current search stop being bookable (SupplierOffers.expires_at): no item is valid past it. */
  offers_expire_at?: string
  /** product_id → the supplier's offer_key, for every product ever put in this basket (rechecks need it). */
  offer_keys: Record<string, string>
  /** basket_item_id → the check now revalidating it; a check's late answer for an item since re-checked is ignored. */
  pending_checks: Record<string, string>
  /**
   * What basket checks found of offers, where the airline's answer differs from the search's, by
   * `checkedOfferKey` (product and passenger; core/validity.ts): putting the product back in the basket gets
   * this answer, not the search's, until `valid_to`. Written with the check's outcome; a new search clears it.
   */
  checked_offers?: Record<string, CheckedOffer>
  fulfillments: Record<string, FulfillmentRecord>
  /** The current cancellation quote, if any; cleared when confirmed. */
  to_cancel?: CancellationQuote | null
  cancellations?: Record<string, CancellationRecord>
  /** Refresh families revoked after a reused refresh token: their access tokens are refused on every instance. */
  revoked_families?: string[]
  /**
   * `trip_state_hash` as of the last write (core/trip.ts), kept so reads need not hash again; it holds until
   * `until` (the first `valid_to` still ahead then, when an item's effective validity changes), or forever when null.
   */
  state_hash?: { value: string; until: string | null }
}

/** A check's answer for one offer: its new unit price for the rest of the quote's window, or that it is gone. */
export type CheckedOffer =
  | { status: 'price_changed'; base: OriginalMoney; taxes: SupplierTax[]; valid_from: string; valid_to: string }
  | { status: 'unavailable'; reason: string; valid_to: string }

export interface Versioned<T> { value: T; version: number }

/**
 * A search as stored: what the supplier offered, compact (core/search.ts renders the API's shape from it,
 * priced for the trip). Seat maps are stored apart, once per key, and referred to by key.
 */
export interface SearchRecord {
  search_id: string
  trip_id: string
  status: 'in_progress' | 'success' | 'failed'
  created_at: string
  offers: StoredOffers
}

export interface StoredOffers {
  /** The product types searched. */
  types: ProductTypeName[]
  /** Passenger ids, in the order of every per-passenger list below. */
  passengers: string[]
  /** The distinct per-passenger offers; products and seat bands name them by index (a handful serve hundreds of seats). */
  offers: SupplierPassengerOffer[]
  /** Every product but seats, with its offer to each passenger (an index into `offers`). */
  products: Array<{ key: string; type: ProductTypeName; name: string; details: Record<string, unknown>; included?: boolean; offers: number[] }>
  /** Seats per segment: the seat map's key and, per price band, the offer to each passenger. */
  seats: Array<{ segment_id: string; map: string; bands: Record<string, number[]> }>
  /** When the supplier's offers stop being bookable (SupplierOffers.expires_at). */
  expires_at?: string
  /** What the supplier handed back with them (SupplierOffers.refs). */
  refs?: SupplierRefs
  /** Why a `failed` search failed (`supplier_timeout`, `supplier_unavailable`, `supplier_refused`, `not_found`, `not_matched`, …). */
  failure_reason?: string
}

export interface RefreshTokenRecord {
  /** SHA-256 hex of the opaque token. */
  token_hash: string
  /** Every token issued by rotation from one trip creation shares a family; reuse revokes the family. */
  family_id: string
  trip_id: string
  seller_id: string
  expires_at: string
  used_at: string | null
  revoked_at: string | null
}

export type ConsumeResult =
  | { status: 'ok'; record: RefreshTokenRecord }
  | { status: 'reused'; record: RefreshTokenRecord }
  | { status: 'revoked'; record: RefreshTokenRecord }
  | { status: 'expired'; record: RefreshTokenRecord }
  | { status: 'unknown' }

export interface IdempotencyRecord {
  /** `<seller_id>:<route>`; keys are scoped so two sellers never collide. */
  scope: string
  key: string
  request_hash: string
  /** null while the first request is still running. */
  response: IdempotentResponse | null
  created_at: string
  /** Who holds the reservation: one request of one process (`<instance>/<request>`). */
  owner: string
  /**
   * Until when the holder is known to be alive: it renews this while its request runs. A reservation
   * without a response whose lease has lapsed belonged to a process that died, and another request takes it.
   */
  lease_until: string
}

export interface IdempotentResponse { status: number; body: unknown }

/** An idempotent request's answer, stored in the same transaction as what the request wrote (TripEffects). */
export interface IdempotencyCompletion { scope: string; key: string; owner: string; response: IdempotentResponse }

/** A durable job (fulfillment delivery, webhook delivery). Claimed with a lease; a lapsed lease is claimable again. */
export interface JobRecord {
  job_id: string
  kind: string
  payload: unknown
  run_at: string
  attempts: number
  max_attempts: number
  locked_until: string | null
  last_error: string | null
  status: 'pending' | 'done' | 'dead'
  created_at: string
}

/** A seller's webhook subscription. The secret signs deliveries, so it is kept (unlike API keys). */
export interface SubscriptionRecord {
  subscription_id: string
  seller_id: string
  event_name: string
  delivery_method: 'http'
  target: string
  secret: string
  created_at: string
}

/** What the retention job may delete: rows older than these moments (api.md "Retention"). */
export interface PurgeCutoffs {
  /** Open (unfulfilled) trips created before this go, with their searches and refresh tokens. */
  tripsBefore: Date
  /** Searches created before this go, unless one is the current search of an open trip. */
  searchesBefore: Date
  /** Seat maps no search has stored since this go (searches live at most as long as their trip). */
  seatMapsBefore: Date
  /** Refresh tokens that expired before this go (used or not: past expiry a token proves nothing). */
  tokensBefore: Date
  idempotencyBefore: Date
  /** Finished jobs (done or dead) created before this go; pending ones always stay. */
  jobsBefore: Date
  /** Signing keys retired before this go (every token they signed has expired). */
  signingKeysBefore: Date
}

export interface PurgeCounts {
  trips: number
  searches: number
  seat_maps: number
  refresh_tokens: number
  idempotency_keys: number
  jobs: number
  signing_keys: number
}

/**
 * Written in the same transaction as a trip insert or update, so a change and what comes with it never
 * part: the jobs it asks for, the search it ran (with seat maps not stored yet; a key already stored is
 * kept as it is), the refresh token of a new session, the orders it moved (the feed's index of them).
 */
export interface TripEffects {
  jobs?: JobRecord[]
  /**
   * The trip's orders this write creates or changes, as the feed shows them: each gets the seller's next
   * change number, in this order (core/orders.ts `changedOrders` sorts them by updated_at, then order_id).
   */
  orders?: OrderFeedItem[]
  search?: SearchRecord
  seatMaps?: SupplierSeatMap[]
  refreshToken?: RefreshTokenRecord
  /**
   * The answer of the idempotent request that makes this write, kept with it (if the request still holds
   * its key): a crash after the commit leaves a key that replays the answer, never one that runs it again.
   */
  idempotency?: IdempotencyCompletion
}

// ---------------------------------------------------------------- the store

export interface RateLimitHits { key: string; hits: number; windowMs: number }
export interface RateLimitCount { key: string; count: number; ttlMs: number }

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
export interface Store {
  migrate(): Promise<void>
  close(): Promise<void>
  /** A cheap round trip, for /readyz. */
  ping(): Promise<void>

  createSeller(seller: SellerRecord): Promise<void>
  getSeller(sellerId: string): Promise<SellerRecord | undefined>
  listSellers(): Promise<SellerRecord[]>
  /** Replaces what `change` names of the seller (its origins, its supplier); the rest stays. */
  updateSeller(sellerId: string, change: { origins?: string[]; supplier?: SellerSupplier }): Promise<void>
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

  listSigningKeys(): Promise<SigningKeyRecord[]>
  /** Inserts a key; returns false when the kid already exists. */
  addSigningKey(key: SigningKeyRecord): Promise<boolean>
  /** Retires a key (from `retire_at` it signs nothing new) or replaces its stored private key (sealing it). */
  updateSigningKey(kid: string, change: { retire_at?: string; private_jwk?: JsonWebKey | SealedJwk }): Promise<void>

  /** Inserts a new trip at version 1. */
  insertTrip(trip: TripRecord, effects?: TripEffects): Promise<void>
  getTrip(tripId: string): Promise<Versioned<TripRecord> | undefined>
  /**
   * The trip, unless its stored version is still `knownVersion`: then only `{ version }` (the caller's copy
   * is current). A host keeps trips in memory and still sees every other instance's writes, in one query
   * that does not carry or parse the document when nothing changed.
   */
  getTripIfChanged(tripId: string, knownVersion: number): Promise<{ version: number; value?: TripRecord } | undefined>
  /** Replaces the trip if its stored version is still `expectedVersion`; returns the new version, or null on a conflict. */
  updateTrip(trip: TripRecord, expectedVersion: number, effects?: TripEffects): Promise<number | null>
  /**
   * Where the store can say so: calls `onChange` with a trip's id after any process wrote the trip, until
   * the returned stop is called; with null when changes may have been missed (the feed reconnected), so
   * every followed trip is looked at again. A store without it (SQLite) has its followed trips' versions
   * checked instead.
   */
  watchTrips?(onChange: (tripId: string | null) => void): Promise<() => Promise<void>>

  /**
   * A seller's orders feed: its orders numbered above `query.after`, lowest number first, at most
   * `query.limit`, filtered by status and updated_at. Every order is listed once, at the number of its last
   * change (TripEffects.orders); one that changes again moves to a higher number.
   */
  listOrders(sellerId: string, query: OrderFeedQuery): Promise<OrderFeedEntry[]>

  /** Stores a search that changes no trip (a failed one), with the seat maps it names. */
  putSearch(search: SearchRecord, seatMaps?: SupplierSeatMap[]): Promise<void>
  getSearch(searchId: string): Promise<SearchRecord | undefined>
  /** The seat maps stored under these keys (the ones not stored are left out). */
  getSeatMaps(keys: string[]): Promise<SupplierSeatMap[]>

  insertRefreshToken(token: RefreshTokenRecord): Promise<void>
  /**
   * Atomically marks an unused, unrevoked, unexpired token used and reports what it was. An expired one is
   * reported `expired` and left unused: refusing it changes nothing, so presenting it again is not a reuse.
   */
  consumeRefreshToken(tokenHash: string, now: Date): Promise<ConsumeResult>
  revokeRefreshFamily(familyId: string, now: Date): Promise<void>

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

  enqueueJob(job: JobRecord): Promise<void>
  /** Claims one due job (pending, run_at ≤ now, no live lease) and leases it until now + leaseMs. */
  claimJob(kinds: string[], now: Date, leaseMs: number): Promise<JobRecord | undefined>
  /**
   * Marks a claimed job done. `lease` is the `locked_until` the claim returned: when the lease lapsed and
   * another worker claimed the job since, nothing changes and false is returned.
   */
  completeJob(jobId: string, lease: string): Promise<boolean>
  /** Records a failed attempt (same lease rule): reschedules at `retryAt`, or marks the job dead when `retryAt` is null. */
  failJob(jobId: string, lease: string, error: string, retryAt: Date | null): Promise<boolean>
  getJob(jobId: string): Promise<JobRecord | undefined>
  /** Jobs of some kinds in every status, oldest first (tests and operator views). */
  listJobs(kinds: string[]): Promise<JobRecord[]>
  /**
   * Pending jobs (due or waiting for a retry, leased or not) by kind, for the queue-depth gauge of /metrics:
   * one aggregate over the pending jobs, which are few next to the finished ones. Kinds with none are left out.
   */
  countPendingJobs(): Promise<Record<string, number>>

  /**
   * Deletes what retention allows (see PurgeCutoffs), in batches of at most `batch` rows per statement so no
   * write lock is held for long, and reports how many of each went. A fulfilled trip whose current search
   * goes is left with search_id null (and a new version, so every instance reads it again).
   */
  purge(cutoffs: PurgeCutoffs, batch?: number): Promise<PurgeCounts>

  /**
   * Adds hits to rate-limit counters kept for every instance (PostgreSQL), each in a fixed window of
   * `windowMs` that starts at its first hit on the database's clock, and returns each key's count in its
   * window and the milliseconds left of it. Absent, each instance counts in its own memory (SQLite, memory).
   */
  addRateLimitHits?(hits: ReadonlyArray<RateLimitHits>): Promise<RateLimitCount[]>

  addSubscription(sub: SubscriptionRecord): Promise<void>
  listSubscriptions(sellerId: string): Promise<SubscriptionRecord[]>
  /** Returns false when the seller has no such subscription. */
  deleteSubscription(sellerId: string, subscriptionId: string): Promise<boolean>
}

// ---------------------------------------------------------------- suppliers (where offers come from)

/**
 * What a supplier sees of a trip: no prices, no seller data; and what it handed back when the trip's search
 * was made (`supplier_refs`: its own ids, e.g. the offer a search priced from), opaque to the core.
 */
export interface SupplierTrip {
  trip_id: string
  sandbox: boolean
  journeys: Journey[]
  passengers: Passenger[]
  tickets: Ticket[]
  supplier_refs?: SupplierRefs
}

/** A supplier's own identifiers, kept for it with a trip, a search or an order; the core never reads them. */
export type SupplierRefs = Record<string, unknown>

/**
 * Who a supplier call is for: every call gets the seller's context, so one adapter serves every seller with
 * the seller's own account (test or live, as the seller is sandbox or not).
 */
export interface SupplierContext {
  seller_id: string
  /** A sandbox seller: the supplier's test mode (the sandbox airline's test scenarios). */
  sandbox: boolean
  /** The seller's credentials for this supplier, unsealed for this call; null when it needs none. */
  credentials: string | null
}

/**
 * What a supplier can do, declared by the adapter (the contract suite, test/suppliers/contract.ts, holds each
 * adapter to its declaration). The core and the docs say what a seller meets where a supplier cannot.
 */
export interface SupplierCapabilities {
  /** Its offers are simulated (the sandbox airline): it serves sandbox sellers only, never a live one. */
  simulated: boolean
  /** The product types it may offer at all. */
  products: ProductTypeName[]
  /**
   * Its search runs in the background (a remote API): `POST /v2.2/trip` answers at once with an
   * `in_progress` search that a job completes. False: the search answers within the request (the sandbox airline).
   */
  remote: boolean
  /** Product types that can still be bought once the trip is booked (fulfilled). */
  afterBooking: ProductTypeName[]
  /**
   * Seats are sold only with the airline booking itself: a seat ordered here succeeds when the seller's
   * booking already holds it (handed off), and otherwise fails with `seat_requires_booking`.
   */
  seatsAtBookingOnly: boolean
  /** It can cancel one ordered item (with a refund quote); false: every quote says `supplier_does_not_cancel`. */
  cancels: boolean
}

export interface SupplierTax { tax_type: string; amount: number }

/** A priced availability for one passenger, in the airline's currency. */
export interface SupplierPassengerOffer {
  available: boolean
  /**
   * Unit price in `currency`'s minor units, before taxes; tax-inclusive when the supplier states no taxes
   * apart (Duffel's prices): then `taxes` is empty. null when not available.
   */
  base: OriginalMoney | null
  taxes: SupplierTax[]
  quantity_limit: number
  reason?: string
  /** The supplier's ids for this offer to this passenger (Duffel's service ids), shown on a basket item priced from it. */
  refs?: string[]
}

export interface SupplierProduct {
  /** Stable key of the offer within the trip, e.g. `bag:J1:checked23`; the core maps it to a product_id. */
  offer_key: string
  product_type: ProductTypeName
  display_name: string
  product_details: Record<string, unknown>
  included?: boolean
  per_passenger: Record<string, SupplierPassengerOffer>
}

/** A seat map as the airline flies it: the same for every trip on the flight, so stored once per `key`. */
export interface SupplierSeatMap {
  /**
   * Names this exact content: two maps under one key are equal (the sandbox: aircraft layout, flight and
   * date). A map whose seats changed (sold since) needs a new key.
   */
  key: string
  aircraft: string
  decks: Array<{
    deck: number
    name: string
    /** The seat columns across the deck, in order (letters); a map drawn from seat designators lists those found. */
    columns: string[]
    aisles_after: string[]
    rows: Array<{
      row: number
      exit: boolean
      /** Over the wing; false also when the airline does not say. */
      wing: boolean
      /** `band` names the seat's price band; null when the seat is not on sale (taken). */
      seats: Array<{
        column: string
        characteristics: string[]
        band: string | null
        /** The airline's notices about this seat (e.g. "no recline"), shown with it. */
        disclosures?: string[]
        /** The supplier's id of this seat for each passenger offered it (Duffel's service ids), by passenger id. */
        refs?: Record<string, string>
      }>
    }>
  }>
}

/** One segment's seats on offer: the shared map, and what a seat of each price band costs each passenger. */
export interface SupplierSeatOffers {
  segment_id: string
  map: SupplierSeatMap
  /** band → passenger_id → the offer. Seats in one band cost every passenger the same (a passenger left out is not offered them). */
  bands: Record<string, Record<string, SupplierPassengerOffer>>
}

/**
 * A search's answer. Seats come by price band (a map holds hundreds of seats and a handful of prices); each
 * seat is a product whose offer key is `seat:<segment_id>:<row><column>` (core/search.ts `seatOfferKey`).
 */
export interface SupplierOffers {
  /** Every product on offer but seats. */
  products: SupplierProduct[]
  seats: SupplierSeatOffers[]
  /** When the supplier's offers stop being bookable: an item priced from them is valid until then at most. */
  expires_at?: string
  /** What the supplier needs again to recheck and fulfill (its offer or order id, how it matched passengers and segments), kept with the trip. */
  refs?: SupplierRefs
}

/** Result of re-checking one basket item with the airline. A new price is per unit, like a search offer's. */
export type RecheckResult =
  | { basket_item_id: string; outcome: 'valid' }
  | { basket_item_id: string; outcome: 'price_changed'; base: OriginalMoney; taxes: SupplierTax[] }
  | { basket_item_id: string; outcome: 'unavailable'; reason: string }

/** A basket item as the supplier sees it: with the offer key of the search that produced it. */
export interface SupplierItem {
  item: BasketItem
  offer_key: string | undefined
  /**
   * At fulfill: the units of the same product for the same passenger that the trip's earlier orders hold
   * (booked, or being booked). An adapter that finds what an order bought by what it is, not by an id,
   * counts them first: this order's units come after them.
   */
  booked_before?: number
}

/**
 * How booking one order went. `unknown`: the supplier's answer was lost (a time-out after the request was
 * sent); the job asks again later, and the adapter finds out what happened before it books anything.
 */
export type FulfillOutcome =
  | { ok: true; reference: string; refs?: SupplierRefs }
  | { ok: false; reason: string }
  | { ok: 'unknown'; reason: string }

/**
 * A supplier of offers: the sandbox airline, Duffel, an airline's NDC API. Every call names the seller it is
 * for. A failure to reach the supplier or a refusal of the whole call is a thrown `SupplierError` (core/supplier/errors.ts).
 */
export interface Supplier {
  /** The name sellers are configured with (`npm run seller -- create --supplier NAME`). */
  readonly name: string
  readonly capabilities: SupplierCapabilities
  /**
   * What is wrong with configuring a seller with these credentials (sandbox or live seller), in words for
   * the operator; null when they fit. Checked when they are set, before they are sealed: a test token for a
   * live seller, or a live token for a sandbox seller, is refused there.
   */
  credentialsProblem(credentials: string | null, sandbox: boolean): string | null
  search(ctx: SupplierContext, trip: SupplierTrip, types: ProductTypeName[]): Promise<SupplierOffers>
  /**
   * Re-validates basket items against current availability, prices and passenger data. `delayMs` asks the
   * caller to come back later (the answer is not ready); the items then stay `checking`.
   */
  recheck(ctx: SupplierContext, trip: SupplierTrip, items: SupplierItem[]): Promise<{ results: RecheckResult[]; delayMs?: number }>
  /**
   * Books one order with the airline. Safe to repeat for the same order_id: a repeated call returns the
   * first outcome, never a second booking (the job runs again after a crash).
   */
  fulfill(ctx: SupplierContext, trip: SupplierTrip, order: Order, item: SupplierItem): Promise<FulfillOutcome>
  /**
   * What cancelling each ordered item would refund now, by the airline's rules (product, time to departure),
   * in the trip currency. A quote, not a promise: `cancel` may still refuse.
   */
  quoteCancellation(ctx: SupplierContext, trip: SupplierTrip, orders: SupplierOrder[], now: Date): Promise<SupplierCancellationQuote[]>
  /** Cancels one order with the airline. Idempotent per order_id: a repeated call returns the first outcome. */
  cancel(ctx: SupplierContext, trip: SupplierTrip, order: SupplierOrder, now: Date): Promise<{ ok: true; refund: Money } | { ok: false; reason: string }>
}

/** The suppliers a host offers its sellers, by name (the server: the sandbox airline and Duffel; the offline sandbox: the sandbox airline). */
export type Suppliers = ReadonlyMap<string, Supplier>

/** An order with the basket item it books. */
export interface SupplierOrder { order: Order; item: BasketItem }
export interface SupplierCancellationQuote { order_id: string; cancellable: boolean; refund: Money | null; reason?: string }

/**
 * Delivers one webhook request; resolves with the HTTP status, rejects on a network failure, a time-out, or
 * a target that resolves to an address `policy` forbids (core/network.ts), checked on the address it connects to.
 */
export interface WebhookSender {
  send(target: string, body: string, headers: Record<string, string>, policy: TargetPolicy): Promise<number>
}
