/**
 * What the operator's admin API does (docs/operations.md), as an operator key lets it: read sellers, trips,
 * orders and jobs across sellers, and make the seller CLI's writes. Every write goes through the service the
 * CLI calls (core/application/sellers.ts, through `Sellers`), so there is one way into each.
 *
 * Who sees what: a key limited to one seller finds every other seller's objects not found (404, never 403,
 * so it learns nothing of them, as a seller never learns of another's trip); a read-only key is refused
 * every write (403). Nothing here returns a supplier token or a key's hash, nor a key, but the one a
 * rotation makes, once, as `npm run seller -- rotate-key` prints it.
 */
import type {
  JobCount,
  JobRecord,
  Order,
  SupplierCallDetail,
  TripEventKind,
  TripEventRecord,
  TripRecord,
  WebhookDeliveryRecord,
  WebhookDeliveryState,
} from '../ports/records.ts'
import type { TestPingEvent } from '../schemas/fulfillment.ts'
import { newJob, parseJob, type Job } from './jobs/job.ts'
import { deliveryOf } from './jobs/webhook.ts'
import { ProblemError } from '../shared/errors.ts'
import { bucketed, percentile, windowEndingAt } from '../domain/time-series.ts'
import { ORDER_STATUSES, type OrderStatus } from '../schemas/basket.ts'
import type { Context } from './context.ts'
import type { Operator } from './operators.ts'
import type { ListedKey, SellerListing } from './sellers.ts'

/** A page of a list, by id: `next_after` is the `after` of the next page, null when this one is the last. */
export interface Page<T> {
  data: T[]
  next_after: string | null
}

export interface PageQuery {
  after?: string
  limit: number
}

const page = <T>(items: T[], limit: number, id: (item: T) => string): Page<T> => ({
  data: items,
  next_after: items.length === limit && items.length > 0 ? id(items[items.length - 1]!) : null,
})

/** Its seller's objects only, for a key limited to one: any other is not found (never forbidden). */
function assertSees(op: Operator, sellerId: string, what: string): void {
  if (op.seller_id !== null && op.seller_id !== sellerId) throw new ProblemError('not_found', `${what} does not exist.`)
}

function assertWrites(op: Operator): void {
  if (op.read_only)
    throw new ProblemError('forbidden', `Operator key "${op.name}" is read-only: it may not change anything.`)
}

/** What is not one seller's (the job queue) is for keys of every seller. */
function assertAllSellers(op: Operator): void {
  if (op.seller_id !== null)
    throw new ProblemError(
      'forbidden',
      `Operator key "${op.name}" sees one seller, and the job queue is every seller's: use a key of every seller.`,
    )
}

/** A seller as the admin API shows it: whether its supplier has credentials, never the credentials. */
export interface SellerView {
  seller_id: string
  name: string
  sandbox: boolean
  created_at: string
  disabled: boolean
  disabled_at: string | null
  supplier: { name: string; credentials_set: boolean }
  kept_tokens: string[]
  origins: string[]
  trip_tokens_after: string | null
  keys: Array<Pick<ListedKey, 'prefix' | 'state' | 'created_at' | 'expires_at' | 'revoked_at'>>
}

export function sellerView({ seller: s, keys }: SellerListing): SellerView {
  return {
    seller_id: s.seller_id,
    name: s.name,
    sandbox: s.sandbox,
    created_at: s.created_at,
    disabled: s.disabled_at !== undefined,
    disabled_at: s.disabled_at ?? null,
    supplier: { name: s.supplier.name, credentials_set: s.supplier.credentials !== null },
    kept_tokens: Object.keys(s.kept_credentials ?? {}).sort(),
    origins: s.origins,
    trip_tokens_after: s.trip_tokens_after ?? null,
    keys: keys.map((k) => ({
      prefix: k.prefix,
      state: k.state,
      created_at: k.created_at,
      expires_at: k.expires_at,
      revoked_at: k.revoked_at,
    })),
  }
}

// ---------------------------------------------------------------- sellers

/** Sellers by seller_id (a key limited to one: that one only). Sellers are few, so the service's list is paged here. */
export async function listSellers(ctx: Context, op: Operator, q: PageQuery): Promise<Page<SellerView>> {
  const all = (await ctx.sellers.list())
    .filter((l) => op.seller_id === null || l.seller.seller_id === op.seller_id)
    .filter((l) => l.seller.seller_id > (q.after ?? ''))
    .sort((a, b) => (a.seller.seller_id < b.seller.seller_id ? -1 : 1))
    .slice(0, q.limit)
    .map(sellerView)
  return page(all, q.limit, (s) => s.seller_id)
}

export async function showSeller(ctx: Context, op: Operator, sellerId: string): Promise<SellerView> {
  assertSees(op, sellerId, `Seller ${sellerId}`)
  return sellerView(await ctx.sellers.show(sellerId))
}

/** `npm run seller -- rotate-key`: the new key is in this answer once, and never again. */
export async function rotateKey(ctx: Context, op: Operator, sellerId: string, graceHours: number | undefined) {
  assertSees(op, sellerId, `Seller ${sellerId}`)
  assertWrites(op)
  const rotated = await ctx.sellers.rotateKey(sellerId, graceHours)
  return {
    api_key: rotated.apiKey,
    prefix: rotated.prefix,
    grace_until: rotated.graceUntil,
    previous: rotated.previous,
  }
}

/** `npm run seller -- revoke-key`. */
export async function revokeKeys(
  ctx: Context,
  op: Operator,
  sellerId: string,
  body: { prefix?: string; end_trip_tokens?: boolean },
) {
  assertSees(op, sellerId, `Seller ${sellerId}`)
  assertWrites(op)
  const r = await ctx.sellers.revokeKeys(sellerId, body.prefix, { endTripTokens: body.end_trip_tokens === true })
  return { revoked: r.revoked, already_expired: r.alreadyExpired, kept: r.kept }
}

/** `npm run seller -- disable` / `enable`. */
export async function setDisabled(ctx: Context, op: Operator, sellerId: string, disabled: boolean) {
  assertSees(op, sellerId, `Seller ${sellerId}`)
  assertWrites(op)
  const { changed } = await ctx.sellers.setDisabled(sellerId, disabled)
  return { changed, seller: sellerView(await ctx.sellers.show(sellerId)) }
}

// ---------------------------------------------------------------- trips and orders

/** A trip in a list: who it is of, when, its record locators and how many orders it has. */
export interface TripSummary {
  trip_id: string
  seller_id: string
  created_at: string
  updated_at: string
  record_locators: string[]
  orders: number
}

const locators = (t: TripRecord) => [
  ...new Set(t.tickets.flatMap((k) => (k.access_details.record_locator ? [k.access_details.record_locator] : []))),
]

export async function findTrips(
  ctx: Context,
  op: Operator,
  q: PageQuery & { seller_id?: string; record_locator?: string },
): Promise<Page<TripSummary>> {
  if (q.seller_id !== undefined) assertSees(op, q.seller_id, `Seller ${q.seller_id}`)
  const sellerId = op.seller_id ?? q.seller_id
  const trips = await ctx.store.findTrips({
    ...(sellerId === undefined ? {} : { sellerId }),
    ...(q.record_locator === undefined ? {} : { recordLocator: q.record_locator }),
    ...(q.after === undefined ? {} : { after: q.after }),
    limit: q.limit,
  })
  const summaries = trips.map((t) => ({
    trip_id: t.trip_id,
    seller_id: t.seller_id,
    created_at: t.created_at,
    updated_at: t.updated_at,
    record_locators: locators(t),
    orders: Object.keys(t.orders).length,
  }))
  return page(summaries, q.limit, (t) => t.trip_id)
}

/** One trip: its record as stored (with its version), and its orders with the supplier's references. */
export async function showTrip(
  ctx: Context,
  op: Operator,
  tripId: string,
): Promise<{ version: number; trip: TripRecord; orders: Order[] }> {
  const found = await ctx.store.getTrip(tripId)
  if (!found) throw new ProblemError('not_found', `Trip ${tripId} does not exist.`)
  assertSees(op, found.value.seller_id, `Trip ${tripId}`)
  const orders = Object.values(found.value.orders).sort((a, b) => (a.order_id < b.order_id ? -1 : 1))
  return { version: found.version, trip: found.value, orders }
}

export async function findOrders(
  ctx: Context,
  op: Operator,
  q: PageQuery & { seller_id?: string; status?: string; failure_reason?: string },
) {
  if (q.seller_id !== undefined) assertSees(op, q.seller_id, `Seller ${q.seller_id}`)
  const sellerId = op.seller_id ?? q.seller_id
  const found = await ctx.store.findOrders({
    ...(sellerId === undefined ? {} : { sellerId }),
    ...(q.status === undefined ? {} : { status: q.status }),
    ...(q.failure_reason === undefined ? {} : { failureReason: q.failure_reason }),
    ...(q.after === undefined ? {} : { after: q.after }),
    limit: q.limit,
  })
  return page(
    found.map((o) => ({ seller_id: o.seller_id, ...o.order })),
    q.limit,
    (o) => o.order_id,
  )
}

// ---------------------------------------------------------------- jobs

export async function jobCounts(ctx: Context, op: Operator): Promise<{ counts: JobCount[] }> {
  assertAllSellers(op)
  return { counts: await ctx.store.countJobs() }
}

/** A job as the admin API shows it: without its payload (a webhook's carries the seller's event). */
export interface JobView {
  job_id: string
  kind: string
  status: JobRecord['status']
  attempts: number
  max_attempts: number
  last_error: string | null
  run_at: string
  created_at: string
}

const jobView = (j: JobRecord): JobView => ({
  job_id: j.job_id,
  kind: j.kind,
  status: j.status,
  attempts: j.attempts,
  max_attempts: j.max_attempts,
  last_error: j.last_error,
  run_at: j.run_at,
  created_at: j.created_at,
})

export async function deadJobs(ctx: Context, op: Operator, q: PageQuery): Promise<Page<JobView>> {
  assertAllSellers(op)
  const jobs = await ctx.store.listDeadJobs({ ...(q.after === undefined ? {} : { after: q.after }), limit: q.limit })
  return page(jobs.map(jobView), q.limit, (j) => j.job_id)
}

/** A dead job, run once more now (a worker takes it up as any due job); failing again, it is dead again. */
export async function retryJob(ctx: Context, op: Operator, jobId: string): Promise<JobView> {
  assertAllSellers(op)
  assertWrites(op)
  if (!(await ctx.store.retryDeadJob(jobId, ctx.clock.now().toISOString())))
    throw new ProblemError('not_found', `There is no dead job ${jobId}.`)
  return jobView((await ctx.store.getJob(jobId))!)
}

// ---------------------------------------------------------------- webhooks

/** The seller, or not found (a key of another seller finds no seller either). */
async function seenSeller(ctx: Context, op: Operator, sellerId: string) {
  assertSees(op, sellerId, `Seller ${sellerId}`)
  const seller = await ctx.store.getSeller(sellerId)
  if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
  return seller
}

const noDeliveries = (): Record<WebhookDeliveryState, number> => ({ pending: 0, succeeded: 0, failed: 0, given_up: 0 })

/** The seller's subscriptions (never their secrets), each with how many of its deliveries are in each state. */
export async function sellerWebhooks(ctx: Context, op: Operator, sellerId: string) {
  await seenSeller(ctx, op, sellerId)
  const [subs, counts] = await Promise.all([
    ctx.store.listSubscriptions(sellerId),
    ctx.store.countWebhookDeliveries(sellerId),
  ])
  return {
    subscriptions: subs.map((s) => {
      const deliveries = noDeliveries()
      for (const c of counts) if (c.subscription_id === s.subscription_id) deliveries[c.state] = c.count
      return {
        subscription_id: s.subscription_id,
        event_name: s.event_name,
        delivery_method: s.delivery_method,
        target: s.target,
        created_at: s.created_at,
        deliveries,
      }
    }),
  }
}

/** A delivery in a list: what it is about and where it is, its attempts counted and the last one shown. */
const deliverySummary = ({ attempts, event: _event, ...d }: WebhookDeliveryRecord) => ({
  ...d,
  attempt_count: attempts.length,
  last_attempt: attempts.at(-1) ?? null,
})

export async function findDeliveries(
  ctx: Context,
  op: Operator,
  q: PageQuery & { seller_id?: string; state?: WebhookDeliveryState; subscription_id?: string; trip_id?: string },
) {
  if (q.seller_id !== undefined) assertSees(op, q.seller_id, `Seller ${q.seller_id}`)
  // A trip's deliveries are read by its seller's index (server/store/sql/statements.ts): the trip names it.
  const tripSeller = q.trip_id === undefined ? undefined : await seenTrip(ctx, op, q.trip_id)
  if (tripSeller !== undefined && q.seller_id !== undefined && tripSeller !== q.seller_id)
    return page([], q.limit, () => '')
  const sellerId = op.seller_id ?? q.seller_id ?? tripSeller
  const found = await ctx.store.findWebhookDeliveries({
    ...(sellerId === undefined ? {} : { sellerId }),
    ...(q.state === undefined ? {} : { state: q.state }),
    ...(q.subscription_id === undefined ? {} : { subscriptionId: q.subscription_id }),
    ...(q.trip_id === undefined ? {} : { tripId: q.trip_id }),
    ...(q.after === undefined ? {} : { after: q.after }),
    limit: q.limit,
  })
  return page(found.map(deliverySummary), q.limit, (d) => d.delivery_id)
}

async function seenDelivery(ctx: Context, op: Operator, deliveryId: string): Promise<WebhookDeliveryRecord> {
  const d = await ctx.store.getWebhookDelivery(deliveryId)
  if (!d) throw new ProblemError('not_found', `Delivery ${deliveryId} does not exist.`)
  assertSees(op, d.seller_id, `Delivery ${deliveryId}`)
  return d
}

/** One delivery with its attempts and the event it sends (the subscription's secret is never shown). */
export async function showDelivery(ctx: Context, op: Operator, deliveryId: string): Promise<WebhookDeliveryRecord> {
  return seenDelivery(ctx, op, deliveryId)
}

/**
 * A new delivery (a job of its own) of the same event to the same subscription: signed anew when it is sent,
 * with a fresh timestamp, its own attempts, and `resend_of` naming this one. Any delivery may be resent, a
 * given-up one included; the event_id stays, so a receiver that dedupes on it takes it once.
 */
export async function resendDelivery(ctx: Context, op: Operator, deliveryId: string) {
  const d = await seenDelivery(ctx, op, deliveryId)
  assertWrites(op)
  const sub = (await ctx.store.listSubscriptions(d.seller_id)).find((s) => s.subscription_id === d.subscription_id)
  if (!sub)
    throw new ProblemError('not_found', `Subscription ${d.subscription_id} of delivery ${deliveryId} does not exist.`)
  // The stored event read back as a job reads its payload: checked, not trusted.
  const job = parseJob({
    kind: 'webhook',
    payload: { seller_id: d.seller_id, subscription_id: d.subscription_id, event: d.event, resend_of: deliveryId },
  } as JobRecord)
  if (job.kind !== 'webhook') throw new Error('a webhook job parsed as another kind')
  return enqueueDelivery(ctx, job)
}

/** A test_ping event to each of the seller's subscriptions (or the one named), each a delivery of its own. */
export async function sendTestEvent(ctx: Context, op: Operator, sellerId: string, subscriptionId?: string) {
  await seenSeller(ctx, op, sellerId)
  assertWrites(op)
  const subs = (await ctx.store.listSubscriptions(sellerId)).filter(
    (s) => subscriptionId === undefined || s.subscription_id === subscriptionId,
  )
  if (subs.length === 0)
    throw new ProblemError(
      'not_found',
      subscriptionId === undefined
        ? `Seller ${sellerId} has no webhook subscription.`
        : `Subscription ${subscriptionId} of seller ${sellerId} does not exist.`,
    )
  const created_at = ctx.clock.now().toISOString()
  const deliveries = []
  for (const s of subs) {
    const event: TestPingEvent = {
      event_id: ctx.ids.uuid(),
      event_name: 'test_ping',
      created_at,
      data: { message: 'A test delivery sent by an operator of the service.' },
    }
    deliveries.push(
      await enqueueDelivery(ctx, {
        kind: 'webhook',
        payload: { seller_id: sellerId, subscription_id: s.subscription_id, event },
      }),
    )
  }
  return { deliveries }
}

/**
 * Queues the delivery's job, then records the delivery pending (its id is the job's). Not one write: were
 * the second lost, the job records the delivery at its first attempt all the same.
 */
async function enqueueDelivery(ctx: Context, job: Extract<Job, { kind: 'webhook' }>) {
  const record = newJob(ctx, job)
  await ctx.store.enqueueJob(record)
  const delivery = { ...deliveryOf(job.payload, record, 'pending', record.created_at), attempts: [] }
  await ctx.store.addWebhookDelivery(delivery)
  return deliverySummary(delivery)
}

/** A timeline entry as the admin API shows it: as stored (its detail holds no token, card field or document). */
export type EventView = TripEventRecord

/** A trip the operator may see: its seller's id, or not found. */
async function seenTrip(ctx: Context, op: Operator, tripId: string): Promise<string> {
  const found = await ctx.store.getTrip(tripId)
  if (!found) throw new ProblemError('not_found', `Trip ${tripId} does not exist.`)
  assertSees(op, found.value.seller_id, `Trip ${tripId}`)
  return found.value.seller_id
}

/**
 * A trip's timeline, oldest first, a page at a time by `seq` (core/domain/trip-events.ts): its changes and
 * its supplier calls; `kind` keeps one kind of entry (the supplier calls: `supplier_call`).
 */
export async function tripEvents(
  ctx: Context,
  op: Operator,
  tripId: string,
  q: PageQuery & { kind?: TripEventKind },
): Promise<Page<EventView>> {
  await seenTrip(ctx, op, tripId)
  const events = await ctx.store.listTripEvents(tripId, {
    ...(q.after === undefined ? {} : { after: Number(q.after) }),
    limit: q.limit,
    ...(q.kind ? { kind: q.kind } : {}),
  })
  return page(events, q.limit, (e) => String(e.seq))
}

/** How far back the supplier health of a seller looks, in how many buckets, and the most calls it reads. */
export const HEALTH_WINDOW_MS = 60 * 60 * 1000
export const HEALTH_BUCKETS = 12
export const HEALTH_MAX_CALLS = 10_000

/** Calls, failures and times (ms; null without calls) of a set of supplier calls. */
export interface CallFigures {
  calls: number
  errors: number
  p50_ms: number | null
  p95_ms: number | null
}

export interface SupplierHealth extends CallFigures {
  seller_id: string
  since: string
  /** Failed calls by their reason (`supplier_timeout`, `supplier_unavailable`, …). */
  errors_by_reason: Record<string, number>
  /** More calls were made than were read (HEALTH_MAX_CALLS, the oldest first): the figures are of those read. */
  truncated: boolean
  bucket_minutes: number
  /** The hour in HEALTH_BUCKETS buckets from `since`, oldest first: the same calls as the totals. */
  buckets: Array<CallFigures & { start: string }>
}

type CallDetail = Partial<SupplierCallDetail>

function callFigures(details: CallDetail[]): CallFigures {
  const times = details.flatMap((d) => (typeof d.duration_ms === 'number' ? [d.duration_ms] : [])).sort((a, b) => a - b)
  return {
    calls: details.length,
    errors: details.filter((d) => d.outcome && d.outcome !== 'ok').length,
    p50_ms: percentile(times, 50),
    p95_ms: percentile(times, 95),
  }
}

/**
 * A seller's supplier calls over the last hour: how many, the failures by reason, the median and 95th
 * percentile time, and the same in 5-minute buckets.
 */
export async function supplierHealth(ctx: Context, op: Operator, sellerId: string): Promise<SupplierHealth> {
  await seenSeller(ctx, op, sellerId)
  const w = windowEndingAt(ctx.clock.now(), HEALTH_WINDOW_MS / HEALTH_BUCKETS, HEALTH_BUCKETS)
  const calls = await ctx.store.listSupplierCallsSince(sellerId, w.since, HEALTH_MAX_CALLS)
  const errors_by_reason: Record<string, number> = Object.create(null) as Record<string, number>
  for (const c of calls) {
    const outcome = (c.detail as CallDetail).outcome
    if (outcome && outcome !== 'ok') errors_by_reason[outcome] = (errors_by_reason[outcome] ?? 0) + 1
  }
  return {
    seller_id: sellerId,
    since: w.since,
    ...callFigures(calls.map((c) => c.detail as CallDetail)),
    errors_by_reason: { ...errors_by_reason },
    truncated: calls.length === HEALTH_MAX_CALLS,
    bucket_minutes: w.widthMs / 60_000,
    buckets: bucketed(w, calls, (c) => c.at).map((b) => ({
      start: b.start,
      ...callFigures(b.items.map((c) => c.detail as CallDetail)),
    })),
  }
}

/** How far back orders by hour look, in how many buckets, and the most orders it reads. */
export const ORDER_HOURS = 24
export const ORDER_HOURS_MAX_ORDERS = 20_000

export interface OrdersByHour {
  /** The seller asked of (or the one a key of one seller sees); null: every seller. */
  seller_id: string | null
  since: string
  bucket_minutes: number
  orders: number
  /** More orders changed than were read (ORDER_HOURS_MAX_ORDERS, the latest changes first): the counts are of those read. */
  truncated: boolean
  /** Each hour from `since`, oldest first: the orders whose last change was in it, counted by their status now. */
  buckets: Array<{ start: string; counts: Record<OrderStatus, number> }>
}

const noOrders = (): Record<OrderStatus, number> =>
  Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])) as Record<OrderStatus, number>

/**
 * Orders by status over the last 24 hours: each order counted once, in the hour of its last change
 * (`updated_at`, what the orders table keeps and indexes), by the status it is in now.
 */
export async function ordersByHour(ctx: Context, op: Operator, q: { seller_id?: string }): Promise<OrdersByHour> {
  if (q.seller_id !== undefined) await seenSeller(ctx, op, q.seller_id)
  const sellerId = op.seller_id ?? q.seller_id ?? null
  const w = windowEndingAt(ctx.clock.now(), 60 * 60 * 1000, ORDER_HOURS)
  const changes = await ctx.store.listOrderChanges({
    ...(sellerId === null ? {} : { sellerId }),
    since: w.since,
    limit: ORDER_HOURS_MAX_ORDERS,
  })
  return {
    seller_id: sellerId,
    since: w.since,
    bucket_minutes: w.widthMs / 60_000,
    orders: changes.length,
    truncated: changes.length === ORDER_HOURS_MAX_ORDERS,
    buckets: bucketed(w, changes, (c) => c.updated_at).map((b) => {
      const counts = noOrders()
      for (const c of b.items) if (c.status in counts) counts[c.status as OrderStatus]++
      return { start: b.start, counts }
    }),
  }
}
