/** The orders feed of a seller (GET /v2.2/orders): every order of its trips, by change, for reconciliation. */
import { ProblemError } from '../shared/errors.ts'
import { canonicalSince, readCursor, writeCursor, type FeedPosition } from '../domain/order-feed.ts'
import { ORDERS_PAGE_DEFAULT, type OrdersQuery } from '../schemas/fulfillment.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'

/**
 * One page of the caller's orders, by change number (core/domain/order-feed.ts says why not by time), and the cursor
 * of the next. A cursor carries the filters of the page it ends: a request may repeat them or leave them
 * out, but not change them (a cursor is a place in one filtered list, and means nothing in another).
 */
export async function listOrders(ctx: Context, p: Principal, q: OrdersQuery) {
  const sellerId = p.seller.seller_id
  let since: string | null = null
  if (q.updated_since !== undefined) {
    since = canonicalSince(q.updated_since)
    if (since === null) {
      throw new ProblemError(
        'validation_error',
        'The query string is invalid: /updated_since must be a date and time, ISO 8601, up to the year 9999.',
        [{ path: '/updated_since', message: 'must be a date and time, ISO 8601, up to the year 9999' }],
      )
    }
  }
  let at: FeedPosition = { seq: 0, status: q.status ?? null, since }
  if (q.cursor !== undefined) {
    const c = readCursor(sellerId, q.cursor)
    const changed = [
      ...(q.status !== undefined && q.status !== c.status ? ['status'] : []),
      ...(since !== null && since !== c.since ? ['updated_since'] : []),
    ]
    if (changed.length) {
      throw new ProblemError(
        'validation_error',
        `The query string is invalid: the cursor was given for other filters (${changed.join(', ')}); repeat the first page's or leave them out.`,
        changed.map((name) => ({ path: `/${name}`, message: "differs from the cursor's" })),
      )
    }
    at = c
  }
  const limit = q.limit === undefined ? ORDERS_PAGE_DEFAULT : Number(q.limit)
  const entries = await ctx.store.listOrders(sellerId, {
    after: at.seq,
    limit,
    ...(at.status ? { status: at.status } : {}),
    ...(at.since ? { updatedSince: at.since } : {}),
  })
  const last = entries.at(-1)
  return {
    data: entries.map((e) => e.order),
    next_cursor: writeCursor(sellerId, { ...at, seq: last ? last.seq : at.seq }),
  }
}
