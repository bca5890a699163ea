/**
 * The records the store keeps (core/ports/store.ts): sellers, keys, trips and their orders, searches, tokens,
 * idempotency answers, jobs and subscriptions, as every adapter reads and writes them.
 */
import type { BasketItem } from '../schemas/basket.ts'
import type {
  ContactDetails,
  Journey,
  MarkupConfig,
  OrderStatus,
  Passenger,
  ProductTypeName,
  Ticket,
} from '../schemas/trip.ts'
import type { Money, Price, OriginalMoney } from '../schemas/common.ts'
import type { ToCancelItem } from '../schemas/fulfillment.ts'
import type { SealedSecret } from '../shared/sealing.ts'
import type {
  OrderSupplierRefs,
  PartialFailure,
  SupplierRefs,
  SupplierTax,
  SupplierPassengerOffer,
  SupplierSeatMap,
} from './supplier-answers.ts'

export interface SellerRecord {
  seller_id: string
  name: string
  /** Origins allowed to call the API from a browser with an access token (CORS). */
  origins: string[]
  sandbox: boolean
  /** Where the seller's offers come from (docs/decisions.md "Real supply: a supplier per seller"). */
  supplier: SellerSupplier
  created_at: string
  /** Trip access tokens issued before this are refused (`npm run seller -- revoke-key --end-trip-tokens`). */
  trip_tokens_after?: string
  /**
   * Since when the seller is disabled (`npm run seller -- disable`): every request made with one of its API
   * keys, trip creation tokens or trip access tokens is refused with 403 `seller_disabled` until it is
   * enabled again. Absent: enabled.
   */
  disabled_at?: string
  /**
   * Sealed credentials of suppliers the seller sold from before, by supplier name: kept when it switched
   * supplier (`npm run seller -- update --supplier`, unless `--remove-token`). Its trips created on such a
   * supplier are still served with them, and switching back takes them up again. Never the current
   * supplier's (those are `supplier.credentials`). Absent: none.
   */
  kept_credentials?: Record<string, SealedSecret>
}

/**
 * A seller's supplier: its name (`sandbox`, the built-in sandbox airline; `duffel`; the name of any adapter
 * the host wires) and the seller's credentials for it, sealed under SIGNING_KEY_SECRET (never stored in the
 * clear, never shown); null for a supplier that needs none.
 */
export interface SellerSupplier {
  name: string
  credentials: SealedSecret | null
}

/** How a secret is stored (core/shared/sealing.ts): the records hold it, the sealing defines it. */
export type { SealedSecret }

export interface ApiKeyRecord {
  /** SHA-256 hex of the key; the key itself is never stored. */
  key_hash: string
  seller_id: string
  /** First characters of the key, for people to recognise it in lists and logs. */
  prefix: string
  created_at: string
  /** From this moment the key is refused (a rotated key's grace period ended, or it was revoked); null: never. */
  expires_at: string | null
  /**
   * When it was revoked (`npm run seller -- revoke-key`), which also made it expire then: what tells a revoked
   * key from one that expired. Absent: never revoked (keys revoked before this was recorded list as expired).
   */
  revoked_at?: string
}

/**
 * A key of the operator's admin API (`npm run operator -- create`): like a seller's API key, only its SHA-256
 * is kept; the key itself is shown once. docs/operations.md says what each field lets it do.
 */
export interface OperatorKeyRecord {
  /** What the CLI and lists name it by (revoke takes it, or the prefix). */
  key_id: string
  /** SHA-256 hex of the key; the key itself is never stored. */
  key_hash: string
  /** Who or what holds it, for people reading a list. */
  name: string
  /** First characters of the key (`svc_op_` and a few more), to recognise it. */
  prefix: string
  /** The one seller it may see (every other seller's objects are not found to it); null: every seller. */
  seller_id: string | null
  /** Reads only: every write of the admin API is refused to it (403). */
  read_only: boolean
  created_at: string
  /** From this moment it is refused (401); null: it works. */
  revoked_at: string | null
}

/**
 * A signed-in session of the operator console (`/console`): made by signing in with an operator key, it
 * acts with that key's limits. Only the SHA-256 of the session's secret (the HttpOnly cookie's value) is
 * kept, as keys are; never the operator key itself.
 */
export interface ConsoleSessionRecord {
  /** SHA-256 hex of the session secret the cookie carries. */
  session_hash: string
  /** The operator key it was opened with: revoking the key ends the session too. */
  key_id: string
  created_at: string
  /** From this moment it is refused (8 hours after sign-in). */
  expires_at: string
}

/** An order as the admin API lists it across sellers: the feed's item with the seller it is of. */
export interface SellerOrder {
  seller_id: string
  order: OrderFeedItem
}

/** An order's status and the time of its last change, as the orders table keeps them (the operator's orders by hour). */
export interface OrderChange {
  status: OrderStatus
  updated_at: string
}

/** How many jobs of one kind are in one state (JobRecord.status). */
export interface JobCount {
  kind: string
  status: JobRecord['status']
  count: number
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

/** A private JWK as stored under a secret: its JSON sealed, the kid as additional data (core/application/jwt.ts). */
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
  /** The supplier's ids of the order and what it bought or found (its order and service ids), for the seller to reconcile. */
  supplier_refs?: OrderSupplierRefs
  /**
   * When a purchase for this order was sent and its answer lost (a time-out, a 5xx): from then on the order
   * is only reconciled, never bought again, and fails with `supplier_outcome_unknown` after
   * SUPPLIER_RECONCILE_MINUTES. Kept for the service, not shown.
   */
  purchase_unknown_since?: string
  /** A `price_changed` failure: the supplier's price now, with the trip's mark-up (the item is offered again at it). */
  current_price?: Price
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
  /** Why a `failed` order failed. */
  failure_reason?: string
  /** The airline's booking reference, and the supplier's own ids (Order.supplier_refs), to reconcile with the supplier. */
  supplier_reference?: string
  supplier_refs?: OrderSupplierRefs
  /** Once `cancelled`: what the airline refunds. */
  refund?: Money
  updated_at: string
}

/**
 * An order in its seller's feed. `seq` is the seller's change number: each write that creates or changes
 * orders gives them the seller's next numbers, in the transaction of the write, so numbers follow commit
 * order (a reader that has seen number n never later finds a change numbered n or lower).
 */
export interface OrderFeedEntry {
  seq: number
  order: OrderFeedItem
}

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

/** The stored trip aggregate. The API representation is derived from it (core/domain/trip.ts). */
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
  /** Set by the fulfill that booked the tickets (false with `is_ticketed: false`), true once a fulfill issues them. */
  tickets_issued?: boolean
  /** That search's status, kept with the trip so that its end (a remote supplier's, by a job) is a change of the trip its event streams see. */
  search_status?: SearchRecord['status']
  /** When searches started with a trip access token were started, within the last minute (at most 10: core/domain/search.ts). */
  search_starts?: string[]
  /** A search started for the trip and not answered yet, while the trip's offers stay those of `search_id`: a new request joins it. */
  running_search_id?: string
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
   * `checkedOfferKey` (product and passenger; core/domain/validity.ts): putting the product back in the basket gets
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
   * `trip_state_hash` as of the last write (core/domain/trip.ts), kept so reads need not hash again; it holds until
   * `until` (the first `valid_to` still ahead then, when an item's effective validity changes), or forever when null.
   */
  state_hash?: { value: string; until: string | null }
}

/** A check's answer for one offer: its new unit price for the rest of the quote's window, or that it is gone. */
export type CheckedOffer =
  | { status: 'price_changed'; base: OriginalMoney; taxes: SupplierTax[]; valid_from: string; valid_to: string }
  | { status: 'unavailable'; reason: string; valid_to: string }

export interface Versioned<T> {
  value: T
  version: number
}

/** A trip's version as a host knows it (TripStore.getTripsIfChanged). */
export interface KnownVersion {
  tripId: string
  version: number
}

/**
 * A search as stored: what the supplier offered, compact (core/domain/search.ts renders the API's shape from it,
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
  products: Array<{
    key: string
    type: ProductTypeName
    name: string
    details: Record<string, unknown>
    included?: boolean
    offers: number[]
  }>
  /** Seats per segment: the seat map's key and, per price band, the offer to each passenger. */
  seats: Array<{ segment_id: string; map: string; bands: Record<string, number[]> }>
  /** When the supplier's offers stop being bookable (SupplierOffers.expires_at). */
  expires_at?: string
  /** What the supplier handed back with them (SupplierOffers.refs). */
  refs?: SupplierRefs
  /** Why a `failed` search failed (`supplier_timeout`, `supplier_unavailable`, `supplier_refused`, `not_found`, `not_matched`, …). */
  failure_reason?: string
  /** A `success` search's product types that could not be read (the others were): left out, with why. */
  partial_failures?: PartialFailure[]
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

export interface IdempotentResponse {
  status: number
  body: unknown
}

/** An idempotent request's answer, stored in the same transaction as what the request wrote (TripEffects). */
export interface IdempotencyCompletion {
  scope: string
  key: string
  owner: string
  response: IdempotentResponse
}

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
  /** Whose it is, where claims are fair between owners (the seller of a supplier search); absent elsewhere. */
  lane?: string
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

/** Where a webhook delivery is: not tried yet, delivered (a 2xx), failed and to be retried, or given up. */
export type WebhookDeliveryState = 'pending' | 'succeeded' | 'failed' | 'given_up'

/** One try of a webhook delivery: what the receiver answered (or why nothing came back), never its headers. */
export interface WebhookAttemptRecord {
  /** The job's attempt number (1 for the first try). */
  attempt: number
  at: string
  /** The receiver's HTTP status; null when no answer came (`error` says why). */
  status: number | null
  /** Why the attempt failed without an answer (network, time-out, a refused address); null otherwise. */
  error: string | null
  duration_ms: number
  /** The first 1 KB (WEBHOOK_BODY_KEPT bytes) of the answer's body, as text; null without an answer. */
  response_body: string | null
}

/** The most of a receiver's answer an attempt keeps: enough to read an error page's first lines. */
export const WEBHOOK_BODY_KEPT = 1024

/**
 * One webhook delivery: an event sent to one subscription, by the job whose id is its `delivery_id`
 * (core/application/jobs/webhook.ts records each attempt as it runs). A resend is a delivery of its own,
 * `resend_of` the one it repeats. Attempts are at most the job's max attempts (plus one per operator retry).
 */
export interface WebhookDeliveryRecord {
  delivery_id: string
  event_id: string
  event_name: string
  subscription_id: string
  seller_id: string
  /** What the event is about, where it names them (a test event names none). */
  trip_id: string | null
  order_id: string | null
  resend_of: string | null
  state: WebhookDeliveryState
  created_at: string
  updated_at: string
  /** The body sent (without signature: each attempt signs it anew), so an operator may send it again. */
  event: Record<string, unknown>
  attempts: WebhookAttemptRecord[]
}

/** How many deliveries of one subscription are in one state. */
export interface WebhookDeliveryCount {
  subscription_id: string
  state: WebhookDeliveryState
  count: number
}

/** What the retention job may delete: rows older than these moments (docs/decisions.md "Retention"). */
export interface PurgeCutoffs {
  /** Open (unfulfilled) trips created before this go, with their searches and refresh tokens. */
  tripsBefore: Date
  /** Searches created before this go, unless one is the current search of an open trip. */
  searchesBefore: Date
  /** Seat maps no search has stored since this go (searches live at most as long as their trip). */
  seatMapsBefore: Date
  /**
   * Refresh tokens and operator console sessions that expired before this go (used or not: past expiry a
   * token proves nothing, and a session is refused).
   */
  tokensBefore: Date
  idempotencyBefore: Date
  /** Finished jobs (done or dead) created before this go; pending ones always stay. */
  jobsBefore: Date
  /** Signing keys retired before this go (every token they signed has expired). */
  signingKeysBefore: Date
  /** Webhook deliveries created before this go once they have ended (succeeded or given up). */
  deliveriesBefore: Date
}

export interface PurgeCounts {
  trips: number
  searches: number
  seat_maps: number
  refresh_tokens: number
  idempotency_keys: number
  jobs: number
  signing_keys: number
  webhook_deliveries: number
  console_sessions: number
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
   * change number, in this order (core/domain/order-feed.ts `changedOrders` sorts them by updated_at, then order_id).
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
  /**
   * The trip's timeline entries this write records (core/domain/trip-events.ts), appended in the same
   * transaction: a write refused (a version conflict) or failed records none. Not a reason on its own to
   * leave the plain path (bringsAlong): a basket edit carries its event and stays one statement on PostgreSQL.
   */
  events?: TripEventInput[]
}

/** Whether a write brings anything along (a plain one, such as a basket edit, is the trip's row alone). */
export function bringsAlong(e: TripEffects = {}): boolean {
  return !!(
    e.search ||
    e.seatMaps?.length ||
    e.refreshToken ||
    e.jobs?.length ||
    e.orders?.length ||
    e.idempotency ||
    // Supplier calls keep their trip within MAX_SUPPLIER_CALLS, which a plain write does not do.
    e.events?.some((x) => x.kind === 'supplier_call')
  )
}

/** A trip write that brings nothing along, conditional on the version it was made from (TripStore.updateTrips). */
export interface PlainWrite {
  trip: TripRecord
  expectedVersion: number
  /** Its timeline entries (TripEffects.events), stored only if the write is. */
  events?: TripEventInput[]
}

/**
 * What a trip's timeline records (core/domain/trip-events.ts says when each is written and what its detail
 * holds). `supplier_call` is one call to the trip's supplier (SupplierCallDetail), kept at most
 * MAX_SUPPLIER_CALLS per trip; `webhook_attempt` is left for webhook deliveries.
 */
export type TripEventKind =
  | 'trip_created'
  | 'search_started'
  | 'search_ended'
  | 'basket_changed'
  | 'validity_checked'
  | 'fulfill_accepted'
  | 'order_status'
  | 'cancellation'
  | 'supplier_call'
  | 'webhook_attempt'

/**
 * One entry of a trip's timeline as a write appends it. `detail` is small JSON of ids, amounts, statuses
 * and reasons: never a token, a card field or a passenger's document (the builders in trip-events.ts copy
 * named fields only, never a whole record).
 */
export interface TripEventInput {
  trip_id: string
  seller_id: string
  at: string
  kind: TripEventKind
  detail: Record<string, unknown>
}

/** A stored entry: `seq` orders its trip's entries (the stores number them on from the trip's last, or from one count for all) and pages them. */
export interface TripEventRecord extends TripEventInput {
  seq: number
}

/** A supplier call's detail (kind `supplier_call`): never a token, a body or a query string. */
export interface SupplierCallDetail {
  /** The HTTP method, or the port method for an in-process supplier (the sandbox airline). */
  method: string
  /** The path without its query, or the supplier's name for an in-process one. */
  path: string
  /** The HTTP status; null when none came (a time-out, an unreachable host, an in-process call). */
  status: number | null
  duration_ms: number
  /** The supplier's id of the request, for its support. */
  request_id?: string
  /** `ok`, or the reason it failed (core/ports/supplier-errors.ts reasons, `http_<status>`). */
  outcome: string
  /** Which operation of the supplier port it was part of (search, recheck, fulfill, …). */
  operation: string
}

/** The most supplier calls a trip keeps: older ones are dropped as new ones are written. */
export const MAX_SUPPLIER_CALLS = 200
