/** Idempotency-Key: a retried request gets the first answer, not a second effect. */
import { ProblemError } from '../errors.ts'
import { canonicalJson, sha256Hex } from '../crypto.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'
import { newSession } from './sessions.ts'

/**
 * What an operation answers. `body` is a value to serialize, or a `Rendered` body already serialized. An
 * `etag` names the body: the request pipeline (core/api/dispatch.ts) sends it, and answers 304 without a
 * body when the request's If-None-Match has it. A replay answers the kept status and body, with the header
 * that says it is one.
 */
export interface Answer { status: number; body: unknown; headers?: Record<string, string>; etag?: string }

/** Replays the first answer for a repeated Idempotency-Key; the same key with another body is refused. */
export async function idempotent(ctx: Context, principal: Principal, operationId: string, key: string | undefined, body: unknown, run: () => Promise<Answer>): Promise<Answer> {
  if (key === undefined) return run()
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw new ProblemError('validation_error', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.', [{ path: 'header:Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }])
  const scope = `${principal.seller.seller_id}:${operationId}`
  const request_hash = sha256Hex(canonicalJson(body))
  const now = ctx.clock.now()
  const existing = await ctx.store.reserveIdempotency(
    { scope, key, request_hash, response: null, created_at: now.toISOString() },
    new Date(now.getTime() - ctx.config.idempotencyStaleMs))
  if (existing) {
    if (existing.request_hash !== request_hash) throw new ProblemError('idempotency_conflict', 'This Idempotency-Key was used with a different request body.')
    if (!existing.response) throw new ProblemError('idempotency_conflict', 'A request with this Idempotency-Key is still being processed; retry shortly.')
    return { ...(await withFreshSession(ctx, existing.response)), headers: { 'Idempotent-Replayed': 'true' } }
  }
  try {
    const result = await run()
    await ctx.store.completeIdempotency(scope, key, { status: result.status, body: withoutSessionSecrets(result.body) })
    return result
  } catch (e) {
    // A refused request changed nothing, so the key is free for a corrected retry.
    await ctx.store.releaseIdempotency(scope, key)
    throw e
  }
}

/**
 * Idempotency records never keep live tokens (that would undo hashing refresh tokens at rest): a replay
 * of a response that carried a session gets a new session for the same trip.
 */
async function withFreshSession(ctx: Context, response: { status: number; body: unknown }) {
  const body = response.body
  if (!body || typeof body !== 'object' || !('refresh_token' in body) || !('trip_id' in body) || typeof body.trip_id !== 'string') return response
  const trip = await ctx.trips.read(body.trip_id)
  if (!trip) return response
  const session = newSession(ctx, trip.value, ctx.ids.uuid())
  await ctx.store.insertRefreshToken(session.record)
  return { status: response.status, body: { ...body, ...(await session.tokens()) } }
}

function withoutSessionSecrets(body: unknown): unknown {
  if (!body || typeof body !== 'object' || !('refresh_token' in body)) return body
  return { ...body, trip_access_token: null, refresh_token: null }
}
