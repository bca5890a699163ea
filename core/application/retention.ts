import type { PurgeCounts } from '../ports/records.ts'
import type { Context } from './context.ts'

const HOUR = 3600_000

/**
 * Deletes what the retention figures allow (the worker runs it periodically). Seat maps go once no search
 * can still name them: a search lives at most as long as the longer of the two windows, and names a map
 * its process stored within the hour before (see SearchCache.effects), so two hours of margin.
 */
export async function purgeExpired(ctx: Context): Promise<PurgeCounts> {
  // The retention tick is also when a signing key past its rotation period is replaced.
  await ctx.tokens.ensureSigningKey()
  const now = ctx.clock.now().getTime()
  const r = ctx.config.retention
  const ago = (ms: number) => new Date(now - ms)
  return ctx.store.purge({
    tripsBefore: ago(r.tripDays * 24 * HOUR),
    searchesBefore: ago(r.searchHours * HOUR),
    seatMapsBefore: ago(Math.max(r.tripDays * 24, r.searchHours) * HOUR + 2 * HOUR),
    tokensBefore: ago(0),
    idempotencyBefore: ago(r.idempotencyHours * HOUR),
    jobsBefore: ago(r.jobDays * 24 * HOUR),
    // A delivery's history is kept as long as the job that made it (RETENTION_JOB_DAYS).
    deliveriesBefore: ago(r.jobDays * 24 * HOUR),
    // A retired key is published until its tokens expire (core/application/jwt.ts jwks), and then some.
    signingKeysBefore: ago(Math.max(ctx.config.accessTokenTtl, ctx.config.creationTokenTtl) * 1000 + 2 * HOUR),
  })
}
