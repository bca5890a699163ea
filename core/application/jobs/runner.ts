/**
 * The job runner: claims one due job, runs its kind's handler, and records the outcome under the claim's
 * lease. A worker that dies mid-job loses nothing: the lease lapses and another run picks the job up, and
 * every handler is safe to repeat (orders move only forward; the supplier books once per order).
 */
import type { Context } from '../context.ts'
import type { JobRecord } from '../../ports/records.ts'
import { isSupplierError } from '../../ports/supplier-errors.ts'
import { JobLease, LeaseLost } from './lease.ts'
import { JOB_KINDS, parseJob, type Job, type JobAbout, type JobKind, type JobReport } from './job.ts'
import * as basketCheck from './basket-check.ts'
import * as fulfillOrder from './fulfill-order.ts'
import * as cancelOrder from './cancel-order.ts'
import * as ticketingTimeout from './ticketing-timeout.ts'
import * as webhook from './webhook.ts'
import * as supplierSearch from './supplier-search.ts'

export type { JobReport } from './job.ts'

/**
 * Claims and runs one due job; null when none was due. Its report also goes to the host's observers (the
 * server's job counters); a store failure around the job throws instead, and reports nothing.
 */
export async function processNextJob(
  ctx: Context,
  kinds: JobKind[] = JOB_KINDS,
  opts: { perLane?: number } = {},
): Promise<JobReport | null> {
  const report = await runNextJob(ctx, kinds, opts)
  if (report) {
    // The supplier calls a run made that no write of its trip took along (it failed first) are written now.
    const tripId = report.about?.trip_id
    if (typeof tripId === 'string') await ctx.supplierCalls.flush(tripId).catch(() => {})
    ctx.observers.jobFinished(report)
  }
  return report
}

/** The ids a job's payload names, and its seller (the payload's, the lane's, or its trip's as this process keeps it). */
function subjectOf(ctx: Context, payload: unknown, lane: string | undefined): JobAbout {
  const p = (payload ?? {}) as Record<string, unknown>
  const text = (k: string) => (typeof p[k] === 'string' ? { [k]: p[k] } : {})
  const tripId = typeof p.trip_id === 'string' ? p.trip_id : undefined
  const sellerId =
    (typeof p.seller_id === 'string' ? p.seller_id : undefined) ?? lane ?? (tripId && ctx.trips.sellerOf(tripId))
  return {
    ...(sellerId ? { seller_id: sellerId } : {}),
    ...text('trip_id'),
    ...text('order_id'),
    ...text('subscription_id'),
  }
}

async function runNextJob(ctx: Context, kinds: JobKind[], opts: { perLane?: number }): Promise<JobReport | null> {
  const { store, clock, config } = ctx
  const record = await store.claimJob(kinds, clock.now(), config.jobLeaseMs, opts)
  if (!record) return null
  // A claim always sets the lease; without one no outcome could be recorded, so the job is left to lapse.
  const lease = record.locked_until
  if (lease === null) throw new Error(`job ${record.job_id} was claimed without a lease`)
  // Whose job it was (its payload's ids), then what the handler says the run is about (a webhook's ids,
  // status and duration), for the log line.
  const about: JobAbout = subjectOf(ctx, record.payload, record.lane)
  const report = (
    outcome: JobReport['outcome'],
    kept: boolean,
    extra: { error?: string; retry_at?: Date | null } = {},
  ): JobReport => ({
    job_id: record.job_id,
    kind: record.kind,
    attempt: record.attempts,
    max_attempts: record.max_attempts,
    // A lapsed lease means another worker re-claimed the job: this run's outcome was not recorded.
    outcome: kept ? outcome : 'lease_lost',
    ...(extra.error ? { error: extra.error } : {}),
    ...(extra.retry_at ? { retry_at: extra.retry_at.toISOString() } : {}),
    ...(Object.keys(about).length ? { about } : {}),
  })
  let job: Job | undefined
  // Held for as long as the run goes on (renewed), so a slow supplier call is not the next worker's job too.
  const held = new JobLease(store, clock, record.job_id, lease, config.jobLeaseMs)
  held.start()
  try {
    job = parseJob(record)
    if (record.attempts > record.max_attempts) {
      // A previous run gave up but died before recording it.
      const error = record.last_error ?? 'gave up'
      await giveUp(ctx, job, new Error(error), record.job_id)
      return report('dead', await store.failJob(record.job_id, await held.release(), error, null), { error })
    }
    const retryAt = await run(ctx, job, held, record, about)
    // Not an attempt that failed: the answer is not ready (a hold order not paid yet, a lost answer being
    // looked for); each kind bounds its own wait.
    if (retryAt)
      return report(
        'waiting',
        await store.deferJob(record.job_id, await held.release(), 'waiting for the supplier', retryAt),
        { retry_at: retryAt },
      )
    return report('done', await store.completeJob(record.job_id, await held.release()))
  } catch (e) {
    // Another worker owns the job now: nothing of this run is recorded, and nothing given up.
    if (e instanceof LeaseLost) return report('lease_lost', false, { error: e.message })
    const error = e instanceof Error ? e.message : String(e)
    const last = record.attempts >= record.max_attempts
    if (last && job) await giveUp(ctx, job, e)
    // Not before the supplier said to come back (a 429's Retry-After), however short the backoff is.
    const waitMs = Math.max(
      backoffMs(record.attempts, config.backoffBaseMs, config.backoffCapMs),
      isSupplierError(e) ? (e.retryAfterMs ?? 0) : 0,
    )
    const retryAt = last ? null : new Date(clock.now().getTime() + waitMs)
    return report(last ? 'dead' : 'retry', await store.failJob(record.job_id, await held.release(), error, retryAt), {
      error,
      retry_at: retryAt,
    })
  } finally {
    held.stop()
  }
}

/** Runs every job that is due now (tests, and hosts without a background worker). */
export async function drainJobs(ctx: Context, kinds: JobKind[] = JOB_KINDS, limit = 1000): Promise<number> {
  let n = 0
  while (n < limit && (await processNextJob(ctx, kinds))) n++
  return n
}

/** Runs a job; returns when to come back if the answer is not ready yet. */
function run(ctx: Context, job: Job, lease: JobLease, record: JobRecord, about: JobAbout): Promise<Date | undefined> {
  switch (job.kind) {
    case 'basket_check':
      return basketCheck.run(ctx, job.payload)
    case 'fulfill_order':
      return fulfillOrder.run(ctx, job.payload, lease)
    case 'cancel_order':
      return cancelOrder.run(ctx, job.payload)
    case 'ticketing_timeout':
      return ticketingTimeout.run(ctx, job.payload)
    case 'webhook':
      return webhook.run(
        ctx,
        job.payload,
        {
          job_id: record.job_id,
          attempt: record.attempts,
          max_attempts: record.max_attempts,
          created_at: record.created_at,
        },
        about,
      )
    case 'supplier_search':
      return supplierSearch.run(ctx, job.payload)
  }
}

/** What giving up on a job means for the trip: an order fails, a check leaves its items `invalid`, a search fails with the last reason. */
async function giveUp(ctx: Context, job: Job, error: unknown, jobId?: string): Promise<void> {
  if (job.kind === 'fulfill_order') await fulfillOrder.giveUp(ctx, job.payload)
  else if (job.kind === 'cancel_order') await cancelOrder.giveUp(ctx, job.payload)
  else if (job.kind === 'basket_check') await basketCheck.giveUp(ctx, job.payload)
  else if (job.kind === 'ticketing_timeout') await ticketingTimeout.giveUp(ctx, job.payload)
  else if (job.kind === 'supplier_search') await supplierSearch.giveUp(ctx, job.payload, error)
  // A failed last attempt records its delivery given up itself; a job that died before it did is given up here.
  else if (job.kind === 'webhook' && jobId) await webhook.giveUp(ctx, jobId)
}

/** Exponential backoff: base, 2×base, 4×base, ... capped. */
export const backoffMs = (attempt: number, baseMs: number, capMs: number) =>
  Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1))
