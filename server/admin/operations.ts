/**
 * The operator's admin API (docs/operations.md), as a table of operations like the public one
 * (core/api/operations.ts): method, path, schemas, whether it writes, and the application function it calls
 * (core/application/admin.ts).
 *
 * Why here, in server/, and not in core/api/: the public table is what both hosts serve (the server and the
 * offline sandbox, held to parity), and the sandbox has no operator and must not carry the admin API in its
 * browser bundle. Only the Fastify host serves this, so it sits with the host and imports the core, as the
 * layer rules let server/ do; every rule it applies (who sees what, what a write does) is the core's.
 */
import { Type, type TSchema } from 'typebox'
import * as S from '../../core/schemas/index.ts'
import * as admin from '../../core/application/admin.ts'
import type { Context } from '../../core/application/context.ts'
import type { Operator } from '../../core/application/operators.ts'
import type { TripEventKind, WebhookDeliveryState } from '../../core/ports/records.ts'

/** The most items a page holds, and how many when the client does not say. */
export const ADMIN_PAGE_MAX = 200
export const ADMIN_PAGE_DEFAULT = 50

const Limit = Type.String({
  pattern: '^([1-9]|[1-9][0-9]|1[0-9][0-9]|200)$',
  description: `how many at most, 1–${ADMIN_PAGE_MAX} (${ADMIN_PAGE_DEFAULT} when absent)`,
})
const After = Type.String({
  pattern: '^[A-Za-z0-9._:-]{1,128}$',
  description: 'the `next_after` of the page before',
})
const PageQuery = Type.Object(
  { after: Type.Optional(After), limit: Type.Optional(Limit) },
  { additionalProperties: false },
)
const SellerParams = Type.Object({ seller_id: S.Id })
const DeliveryParams = Type.Object({ delivery_id: S.Id })
const DELIVERY_STATES: WebhookDeliveryState[] = ['pending', 'succeeded', 'failed', 'given_up']
/** A timeline page's `after`: the `next_after` (a seq) of the page before. */
const Seq = Type.String({ pattern: '^[0-9]{1,15}$', description: 'the `next_after` of the page before' })
/** Every kind of timeline entry (core/ports/records.ts TripEventKind), to filter by. */
const TRIP_EVENT_KINDS: TripEventKind[] = [
  'trip_created',
  'search_started',
  'search_ended',
  'basket_changed',
  'validity_checked',
  'fulfill_accepted',
  'order_status',
  'cancellation',
  'supplier_call',
  'webhook_attempt',
]

/** A validated request of an admin operation. */
export interface AdminInput {
  params: Record<string, string>
  query: Record<string, string | undefined>
  body: Record<string, unknown>
}

export interface AdminOperation {
  id: string
  method: 'GET' | 'POST'
  path: string
  summary: string
  /** Refused to read-only keys (403). */
  write: boolean
  params?: TSchema
  query?: TSchema
  body?: TSchema
  handler(ctx: Context, operator: Operator, input: AdminInput): Promise<unknown>
}

/** The page a query asks for. */
const pageOf = (q: AdminInput['query']) => ({
  ...(q.after === undefined ? {} : { after: q.after }),
  limit: q.limit === undefined ? ADMIN_PAGE_DEFAULT : Number(q.limit),
})
const given = <K extends string>(q: AdminInput['query'], ...names: K[]) =>
  Object.fromEntries(names.flatMap((n) => (q[n] === undefined ? [] : [[n, q[n]]]))) as Partial<Record<K, string>>

export const adminOperations: AdminOperation[] = [
  {
    id: 'listSellers',
    method: 'GET',
    path: '/admin/v1/sellers',
    summary: 'Sellers, by seller_id (a key of one seller: that one)',
    write: false,
    query: PageQuery,
    handler: (ctx, op, i) => admin.listSellers(ctx, op, pageOf(i.query)),
  },
  {
    id: 'showSeller',
    method: 'GET',
    path: '/admin/v1/sellers/:seller_id',
    summary: 'One seller: its supplier (whether it has credentials), origins, and keys by prefix with their state',
    write: false,
    params: SellerParams,
    handler: (ctx, op, i) => admin.showSeller(ctx, op, i.params.seller_id!),
  },
  {
    id: 'rotateSellerKey',
    method: 'POST',
    path: '/admin/v1/sellers/:seller_id/rotate-key',
    summary: 'A new API key for the seller (in this answer once); its keys that work keep working grace_hours more',
    write: true,
    params: SellerParams,
    body: Type.Object(
      { grace_hours: Type.Optional(Type.Number({ minimum: 0, maximum: 24 * 365, description: 'default 24' })) },
      { additionalProperties: false },
    ),
    handler: (ctx, op, i) => admin.rotateKey(ctx, op, i.params.seller_id!, i.body.grace_hours as number | undefined),
  },
  {
    id: 'revokeSellerKey',
    method: 'POST',
    path: '/admin/v1/sellers/:seller_id/revoke-key',
    summary: "Stops the key `prefix` names now (without it, every key but the newest), as the seller CLI's revoke-key",
    write: true,
    params: SellerParams,
    body: Type.Object(
      {
        prefix: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        end_trip_tokens: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
    handler: (ctx, op, i) => admin.revokeKeys(ctx, op, i.params.seller_id!, i.body),
  },
  {
    id: 'disableSeller',
    method: 'POST',
    path: '/admin/v1/sellers/:seller_id/disable',
    summary: "Refuses the seller's keys and tokens (403 seller_disabled) until it is enabled",
    write: true,
    params: SellerParams,
    handler: (ctx, op, i) => admin.setDisabled(ctx, op, i.params.seller_id!, true),
  },
  {
    id: 'enableSeller',
    method: 'POST',
    path: '/admin/v1/sellers/:seller_id/enable',
    summary: "Lets a disabled seller's keys and tokens work again",
    write: true,
    params: SellerParams,
    handler: (ctx, op, i) => admin.setDisabled(ctx, op, i.params.seller_id!, false),
  },
  {
    id: 'findTrips',
    method: 'GET',
    path: '/admin/v1/trips',
    summary: 'Trips by trip_id, of one seller and/or with a ticket of one record locator',
    write: false,
    query: Type.Object(
      {
        seller_id: Type.Optional(S.Id),
        record_locator: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]{1,16}$' })),
        after: Type.Optional(After),
        limit: Type.Optional(Limit),
      },
      { additionalProperties: false },
    ),
    handler: (ctx, op, i) =>
      admin.findTrips(ctx, op, { ...pageOf(i.query), ...given(i.query, 'seller_id', 'record_locator') }),
  },
  {
    id: 'showTrip',
    method: 'GET',
    path: '/admin/v1/trips/:trip_id',
    summary: 'One trip: its record as stored, and its orders with the supplier references',
    write: false,
    params: Type.Object({ trip_id: S.Id }),
    handler: (ctx, op, i) => admin.showTrip(ctx, op, i.params.trip_id!),
  },
  {
    id: 'tripEvents',
    method: 'GET',
    path: '/admin/v1/trips/:trip_id/events',
    summary: "A trip's timeline, oldest first: its changes and its supplier calls, paged by seq",
    write: false,
    params: Type.Object({ trip_id: S.Id }),
    query: Type.Object(
      {
        kind: Type.Optional(Type.Union(TRIP_EVENT_KINDS.map((k) => Type.Literal(k)))),
        after: Type.Optional(Seq),
        limit: Type.Optional(Limit),
      },
      { additionalProperties: false },
    ),
    handler: (ctx, op, i) =>
      admin.tripEvents(ctx, op, i.params.trip_id!, {
        ...pageOf(i.query),
        ...(i.query.kind ? { kind: i.query.kind as TripEventKind } : {}),
      }),
  },
  {
    id: 'tripSupplierCalls',
    method: 'GET',
    path: '/admin/v1/trips/:trip_id/supplier-calls',
    summary: "A trip's supplier calls (its latest 200), oldest first, paged by seq",
    write: false,
    params: Type.Object({ trip_id: S.Id }),
    query: Type.Object({ after: Type.Optional(Seq), limit: Type.Optional(Limit) }, { additionalProperties: false }),
    handler: (ctx, op, i) =>
      admin.tripEvents(ctx, op, i.params.trip_id!, { ...pageOf(i.query), kind: 'supplier_call' }),
  },
  {
    id: 'supplierHealth',
    method: 'GET',
    path: '/admin/v1/sellers/:seller_id/supplier-health',
    summary:
      "A seller's supplier calls over the last hour: count, errors by reason, p50 and p95 time; the same in 5-minute buckets",
    write: false,
    params: SellerParams,
    handler: (ctx, op, i) => admin.supplierHealth(ctx, op, i.params.seller_id!),
  },
  {
    id: 'ordersByHour',
    method: 'GET',
    path: '/admin/v1/orders/by-hour',
    summary: 'Orders by status over the last 24 hours, an hour a bucket, of every seller or one',
    write: false,
    query: Type.Object({ seller_id: Type.Optional(S.Id) }, { additionalProperties: false }),
    handler: (ctx, op, i) => admin.ordersByHour(ctx, op, given(i.query, 'seller_id')),
  },
  {
    id: 'findOrders',
    method: 'GET',
    path: '/admin/v1/orders',
    summary: 'Orders by order_id, filtered by seller, status and failure reason',
    write: false,
    query: Type.Object(
      {
        seller_id: Type.Optional(S.Id),
        status: Type.Optional(Type.Union(S.ORDER_STATUSES.map((s) => Type.Literal(s)))),
        failure_reason: Type.Optional(Type.String({ pattern: '^[a-z0-9_]{1,64}$' })),
        after: Type.Optional(After),
        limit: Type.Optional(Limit),
      },
      { additionalProperties: false },
    ),
    handler: (ctx, op, i) =>
      admin.findOrders(ctx, op, { ...pageOf(i.query), ...given(i.query, 'seller_id', 'status', 'failure_reason') }),
  },
  {
    id: 'jobCounts',
    method: 'GET',
    path: '/admin/v1/jobs',
    summary: 'How many jobs of each kind are in each state',
    write: false,
    handler: (ctx, op) => admin.jobCounts(ctx, op),
  },
  {
    id: 'deadJobs',
    method: 'GET',
    path: '/admin/v1/jobs/dead',
    summary: 'Dead jobs (given up) by job_id, with their last error',
    write: false,
    query: PageQuery,
    handler: (ctx, op, i) => admin.deadJobs(ctx, op, pageOf(i.query)),
  },
  {
    id: 'retryJob',
    method: 'POST',
    path: '/admin/v1/jobs/:job_id/retry',
    summary: 'Runs a dead job once more, now (failing again, it is dead again)',
    write: true,
    params: Type.Object({ job_id: S.Id }),
    handler: (ctx, op, i) => admin.retryJob(ctx, op, i.params.job_id!),
  },
  {
    id: 'sellerWebhooks',
    method: 'GET',
    path: '/admin/v1/sellers/:seller_id/webhooks',
    summary: "The seller's webhook subscriptions (without secrets), with how many deliveries of each are in each state",
    write: false,
    params: SellerParams,
    handler: (ctx, op, i) => admin.sellerWebhooks(ctx, op, i.params.seller_id!),
  },
  {
    id: 'findDeliveries',
    method: 'GET',
    path: '/admin/v1/webhooks/deliveries',
    summary:
      'Webhook deliveries by delivery_id, filtered by seller, state, subscription and trip, with their last attempt',
    write: false,
    query: Type.Object(
      {
        seller_id: Type.Optional(S.Id),
        state: Type.Optional(Type.Union(DELIVERY_STATES.map((s) => Type.Literal(s)))),
        subscription_id: Type.Optional(S.Id),
        trip_id: Type.Optional(S.Id),
        after: Type.Optional(After),
        limit: Type.Optional(Limit),
      },
      { additionalProperties: false },
    ),
    handler: (ctx, op, i) =>
      admin.findDeliveries(ctx, op, {
        ...pageOf(i.query),
        ...given(i.query, 'seller_id', 'subscription_id', 'trip_id'),
        ...(i.query.state === undefined ? {} : { state: i.query.state as WebhookDeliveryState }),
      }),
  },
  {
    id: 'showDelivery',
    method: 'GET',
    path: '/admin/v1/webhooks/deliveries/:delivery_id',
    summary: "One delivery: its event and every attempt (status or error, duration, the answer's first 1 KB)",
    write: false,
    params: DeliveryParams,
    handler: (ctx, op, i) => admin.showDelivery(ctx, op, i.params.delivery_id!),
  },
  {
    id: 'resendDelivery',
    method: 'POST',
    path: '/admin/v1/webhooks/deliveries/:delivery_id/resend',
    summary: 'Sends the event again as a new delivery (resend_of this one), signed anew; a given-up one too',
    write: true,
    params: DeliveryParams,
    handler: (ctx, op, i) => admin.resendDelivery(ctx, op, i.params.delivery_id!),
  },
  {
    id: 'sendTestWebhook',
    method: 'POST',
    path: '/admin/v1/sellers/:seller_id/webhooks/test',
    summary: "A test_ping event to each of the seller's subscriptions (or the one named), each a delivery",
    write: true,
    params: SellerParams,
    body: Type.Object({ subscription_id: Type.Optional(S.Id) }, { additionalProperties: false }),
    handler: (ctx, op, i) =>
      admin.sendTestEvent(ctx, op, i.params.seller_id!, i.body.subscription_id as string | undefined),
  },
]
