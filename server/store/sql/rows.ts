/**
 * The row mappers of both SQL stores, written once: row → record (`to…`, made for a dialect) and record →
 * the parameters of its INSERT (`…Row`, in the column order of its statement in server/store/sql/statements.ts
 * or of its table in server/store/sql/trip-writes.ts). A new column is added here, in its statement or
 * table and in a migration.
 */
import type {
  TripEventKind,
  TripEventRecord,
  ApiKeyRecord,
  IdempotencyRecord,
  JobRecord,
  OperatorKeyRecord,
  OrderFeedItem,
  RefreshTokenRecord,
  SealedSecret,
  SearchRecord,
  SellerOrder,
  SellerRecord,
  SigningKeyRecord,
  SubscriptionRecord,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  TripEffects,
  TripRecord,
} from '../../../core/ports/records.ts'
import type { SupplierSeatMap } from '../../../core/ports/supplier-answers.ts'
import { isOpen } from '../../../core/adapters/store-rules.ts'
import { iso } from '../../../core/adapters/store-times.ts'
import { json, type Dialect, type Row } from './dialect.ts'

/** Every mapper of one dialect. */
export function mappers(d: Dialect) {
  return {
    event: (r: Row): TripEventRecord => ({
      seq: Number(r.seq),
      trip_id: r.trip_id as string,
      seller_id: r.seller_id as string,
      at: d.readTime(r.at),
      kind: r.kind as TripEventKind,
      detail: d.readJson<Record<string, unknown>>(r.detail),
    }),
    seller: (r: Row): SellerRecord => ({
      seller_id: r.seller_id as string,
      name: r.name as string,
      origins: d.readJson<string[]>(r.origins),
      sandbox: d.readBool(r.sandbox),
      // A text column in both dialects: the SealedSecret as JSON.
      supplier: {
        name: r.supplier as string,
        credentials:
          r.supplier_credentials === null ? null : (JSON.parse(r.supplier_credentials as string) as SealedSecret),
      },
      created_at: d.readTime(r.created_at),
      ...(r.trip_tokens_after ? { trip_tokens_after: d.readTime(r.trip_tokens_after) } : {}),
      ...(r.disabled_at ? { disabled_at: d.readTime(r.disabled_at) } : {}),
      // Text in both dialects, like supplier_credentials: supplier name → SealedSecret, as JSON.
      ...(r.kept_credentials
        ? { kept_credentials: JSON.parse(r.kept_credentials as string) as Record<string, SealedSecret> }
        : {}),
    }),
    operatorKey: (r: Row): OperatorKeyRecord => ({
      key_id: r.key_id as string,
      key_hash: r.key_hash as string,
      name: r.name as string,
      prefix: r.prefix as string,
      seller_id: r.seller_id as string | null,
      read_only: d.readBool(r.read_only),
      created_at: d.readTime(r.created_at),
      revoked_at: d.readTimeOrNull(r.revoked_at),
    }),
    sellerOrder: (r: Row): SellerOrder => ({
      seller_id: r.seller_id as string,
      order: d.readJson<OrderFeedItem>(r.doc),
    }),
    apiKey: (r: Row): ApiKeyRecord => ({
      key_hash: r.key_hash as string,
      seller_id: r.seller_id as string,
      prefix: r.prefix as string,
      created_at: d.readTime(r.created_at),
      expires_at: d.readTimeOrNull(r.expires_at),
      ...(r.revoked_at ? { revoked_at: d.readTime(r.revoked_at) } : {}),
    }),
    signingKey: (r: Row): SigningKeyRecord => ({
      kid: r.kid as string,
      alg: r.alg as 'ES256',
      private_jwk: d.readJson<SigningKeyRecord['private_jwk']>(r.private_jwk),
      public_jwk: d.readJson<JsonWebKey>(r.public_jwk),
      created_at: d.readTime(r.created_at),
      retire_at: d.readTimeOrNull(r.retire_at),
    }),
    /** A trip: its document (doc) with its search_id column. */
    trip: (r: Row): TripRecord => ({ ...d.readJson<TripRecord>(r.doc), search_id: r.search_id as string | null }),
    search: (r: Row): SearchRecord => ({
      search_id: r.search_id as string,
      trip_id: r.trip_id as string,
      status: r.status as SearchRecord['status'],
      created_at: d.readTime(r.created_at),
      offers: d.readJson<SearchRecord['offers']>(r.offers),
    }),
    refreshToken: (r: Row): RefreshTokenRecord => ({
      token_hash: r.token_hash as string,
      family_id: r.family_id as string,
      trip_id: r.trip_id as string,
      seller_id: r.seller_id as string,
      expires_at: d.readTime(r.expires_at),
      used_at: d.readTimeOrNull(r.used_at),
      revoked_at: d.readTimeOrNull(r.revoked_at),
    }),
    idempotency: (r: Row): IdempotencyRecord => ({
      scope: r.scope as string,
      key: r.key as string,
      request_hash: r.request_hash as string,
      response: r.response === null ? null : d.readJson<IdempotencyRecord['response']>(r.response),
      created_at: d.readTime(r.created_at),
      owner: r.owner as string,
      lease_until: d.readTime(r.lease_until),
    }),
    job: (r: Row): JobRecord => ({
      job_id: r.job_id as string,
      kind: r.kind as string,
      payload: d.readJson<unknown>(r.payload),
      run_at: d.readTime(r.run_at),
      attempts: r.attempts as number,
      max_attempts: r.max_attempts as number,
      locked_until: d.readTimeOrNull(r.locked_until),
      last_error: r.last_error as string | null,
      status: r.status as JobRecord['status'],
      created_at: d.readTime(r.created_at),
      ...(r.lane ? { lane: r.lane as string } : {}),
    }),
    subscription: (r: Row): SubscriptionRecord => ({
      subscription_id: r.subscription_id as string,
      seller_id: r.seller_id as string,
      event_name: r.event_name as string,
      delivery_method: r.delivery_method as SubscriptionRecord['delivery_method'],
      target: r.target as string,
      secret: r.secret as string,
      created_at: d.readTime(r.created_at),
    }),
    delivery: (r: Row): WebhookDeliveryRecord => ({
      delivery_id: r.delivery_id as string,
      event_id: r.event_id as string,
      event_name: r.event_name as string,
      subscription_id: r.subscription_id as string,
      seller_id: r.seller_id as string,
      trip_id: r.trip_id as string | null,
      order_id: r.order_id as string | null,
      resend_of: r.resend_of as string | null,
      state: r.state as WebhookDeliveryRecord['state'],
      created_at: d.readTime(r.created_at),
      updated_at: d.readTime(r.updated_at),
      event: d.readJson<Record<string, unknown>>(r.event),
      attempts: d.readJson<WebhookAttemptRecord[]>(r.attempts),
    }),
    /** An order of the feed: the seq and doc columns (bigint comes back from pg as a string). */
    feedEntry: (r: Row) => ({ seq: Number(r.seq), order: d.readJson<OrderFeedItem>(r.doc) }),
  }
}
export type Mappers = ReturnType<typeof mappers>

// ---------------------------------------------------------------- record → row

export const sellerRow = (d: Dialect, s: SellerRecord): unknown[] => [
  s.seller_id,
  s.name,
  json(s.origins),
  d.bool(s.sandbox),
  d.time(s.created_at),
  s.supplier.name,
  s.supplier.credentials === null ? null : json(s.supplier.credentials),
  d.timeOrNull(s.trip_tokens_after ?? null),
  d.timeOrNull(s.disabled_at ?? null),
  keptCredentials(s.kept_credentials),
]
/** Kept credentials as stored: JSON, or NULL for none. */
export const keptCredentials = (kept: SellerRecord['kept_credentials']): string | null =>
  kept && Object.keys(kept).length ? json(kept) : null
export const operatorKeyRow = (d: Dialect, k: OperatorKeyRecord): unknown[] => [
  k.key_id,
  k.key_hash,
  k.name,
  k.prefix,
  k.seller_id,
  d.bool(k.read_only),
  d.time(k.created_at),
  d.timeOrNull(k.revoked_at),
]
export const apiKeyRow = (d: Dialect, k: ApiKeyRecord): unknown[] => [
  k.key_hash,
  k.seller_id,
  k.prefix,
  d.time(k.created_at),
  d.timeOrNull(k.expires_at),
  d.timeOrNull(k.revoked_at ?? null),
]
export const signingKeyRow = (d: Dialect, k: SigningKeyRecord): unknown[] => [
  k.kid,
  k.alg,
  json(k.private_jwk),
  json(k.public_jwk),
  d.time(k.created_at),
  d.timeOrNull(k.retire_at),
]
export const refreshTokenRow = (d: Dialect, t: RefreshTokenRecord): unknown[] => [
  t.token_hash,
  t.family_id,
  t.trip_id,
  t.seller_id,
  d.time(t.expires_at),
  d.timeOrNull(t.used_at),
  d.timeOrNull(t.revoked_at),
]
export const idempotencyRow = (d: Dialect, r: IdempotencyRecord): unknown[] => [
  r.scope,
  r.key,
  r.request_hash,
  r.response === null ? null : json(r.response),
  d.time(r.created_at),
  r.owner,
  d.time(r.lease_until),
]
export const jobRow = (d: Dialect, j: JobRecord): unknown[] => [
  j.job_id,
  j.kind,
  json(j.payload),
  d.time(j.run_at),
  j.attempts,
  j.max_attempts,
  d.timeOrNull(j.locked_until),
  j.last_error,
  j.status,
  d.time(j.created_at),
  j.lane ?? null,
]
export const subscriptionRow = (d: Dialect, x: SubscriptionRecord): unknown[] => [
  x.subscription_id,
  x.seller_id,
  x.event_name,
  x.delivery_method,
  x.target,
  x.secret,
  d.time(x.created_at),
]

/** A delivery's row; its attempts' times in canonical form, as every time the stores give back. */
export const deliveryRow = (d: Dialect, x: WebhookDeliveryRecord): unknown[] => [
  x.delivery_id,
  x.seller_id,
  x.subscription_id,
  x.event_id,
  x.event_name,
  x.trip_id,
  x.order_id,
  x.resend_of,
  x.state,
  d.time(x.created_at),
  d.time(x.updated_at),
  json(x.event),
  json(x.attempts.map((a) => ({ ...a, at: new Date(a.at).toISOString() }))),
]

/** The trip's document: everything but what has a column of its own (search_id). */
export const tripDoc = ({ search_id: _s, ...doc }: TripRecord): string => json(doc)

/**
 * A trip write's row (trip-writes.ts TRIP_MATCH then TRIP_SET): the trip at `version` (1 for an insert, the
 * version it was made from for an update).
 */
export const tripRow = (d: Dialect, t: TripRecord, version: number): unknown[] => [
  t.trip_id,
  version,
  t.seller_id,
  tripDoc(t),
  d.time(t.updated_at),
  t.search_id,
  d.bool(isOpen(t)),
]
export const searchRow = (d: Dialect, s: SearchRecord): unknown[] => [
  s.search_id,
  s.trip_id,
  s.status,
  d.time(s.created_at),
  json(s.offers),
]
/** A seat map stored with the search that names it, at the search's time (`usedAt`). */
export const seatMapRow = (d: Dialect, m: SupplierSeatMap, usedAt: string): unknown[] => [
  m.key,
  json(m),
  d.time(usedAt),
]
/** An order of the feed at its number: its updated_at canonical in the document as in its column. */
export const orderRow = (d: Dialect, sellerId: string, seq: number, o: OrderFeedItem): unknown[] => {
  const updatedAt = iso(o.updated_at)
  return [o.order_id, sellerId, o.trip_id, seq, o.status, d.time(updatedAt), json({ ...o, updated_at: updatedAt })]
}

/** The orders a trip write moves, checked to be its own (a write fails whole before anything is stored). */
export function checkedOrders(tripId: string, effects: TripEffects | undefined): OrderFeedItem[] {
  const orders = effects?.orders ?? []
  for (const o of orders) if (o.trip_id !== tripId) throw new Error(`order ${o.order_id} belongs to trip ${o.trip_id}`)
  return orders
}
