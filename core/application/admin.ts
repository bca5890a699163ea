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
import type { JobCount, JobRecord, Order, TripRecord } from '../ports/records.ts'
import { ProblemError } from '../shared/errors.ts'
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
