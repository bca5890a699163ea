/** Cancelling purchased extras (docs/decisions.md "After-sale"): a quote from the airline, then its confirmation. */
import type { CancelQuoteRequest } from '../schemas/fulfillment.ts'
import { confirmCancellation, ordersToCancel, quoteView, withQuote } from '../domain/cancellation.ts'
import { supplierView } from '../domain/search.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'
import { newJob } from './jobs/job.ts'
import type { IdempotencyClaim } from './idempotency.ts'
import { requestSupplier } from './suppliers.ts'

/**
 * Asks the airline what cancelling these ordered items would refund, and keeps its answer as the trip's
 * `to_cancel` until `quote_expires_at` (a new quote replaces it). The airline is asked outside the trip's
 * write, and the orders are checked again in it: one that moved meanwhile refuses the quote.
 */
export async function quoteCancel(ctx: Context, p: Principal, tripId: string, req: CancelQuoteRequest) {
  const { value } = await ctx.trips.load(p, tripId)
  const orders = ordersToCancel(value, req.basket_item_ids)
  const now = ctx.clock.now()
  const { supplier, call } = await requestSupplier(ctx, p.seller, value)
  const quotes = await supplier.quoteCancellation(
    call,
    supplierView(value),
    orders.map((order) => ({ order, item: value.basket[order.basket_item_id]! })),
    now,
  )
  const expires = new Date(now.getTime() + ctx.config.cancellationQuoteTtl * 1000)
  const trip = await ctx.trips.mutate(p, tripId, (t) =>
    withQuote(t, ordersToCancel(t, req.basket_item_ids), quotes, expires),
  )
  return quoteView(trip)
}

export async function readQuote(ctx: Context, p: Principal, tripId: string) {
  return quoteView((await ctx.trips.load(p, tripId)).value)
}

/** Confirms the quote: its orders become `cancelling`, one durable job each asks the airline to cancel. */
export async function confirmCancel(ctx: Context, p: Principal, tripId: string, claim?: IdempotencyClaim) {
  const answer = { status: 'queued' as const, cancellation_id: ctx.ids.uuid() }
  await ctx.trips.mutate(p, tripId, (t) => {
    const r = confirmCancellation(t, ctx.clock.now(), answer.cancellation_id)
    return {
      trip: r.trip,
      events: r.events,
      effects: { idempotency: claim?.completion(answer) },
      jobs: r.cancellation.order_ids.map((order_id) =>
        newJob(ctx, { kind: 'cancel_order', payload: { trip_id: tripId, order_id } }),
      ),
    }
  })
  return answer
}
