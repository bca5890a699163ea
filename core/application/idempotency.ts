/**
 * Idempotency-Key: a retried request gets the first answer, not a second effect.
 *
 * A request reserves its key with a lease that it renews while it runs. Another request with the key meets
 * the reservation: the same body still running is told to retry (409 `idempotency_in_progress`, with
 * Retry-After: when the lease ends if its holder stops renewing it); another body is refused for good (422
 * `idempotency_conflict`); once answered, it replays the answer. A holder that died (a crash, a kill) stops
 * renewing, and the first request after its lease lapsed takes the key over and runs.
 *
 * Taking over is safe because a request that writes a trip stores its answer in the same transaction
 * (`IdempotencyClaim`): if the dead holder's write committed, its answer is there and is replayed; if not,
 * nothing of it is, and running again is the first effect.
 */
import { ProblemError } from '../shared/errors.ts'
import { canonicalJson, sha256Hex } from '../shared/crypto.ts'
import type { IdempotencyCompletion } from '../ports/records.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'
import { newSession } from './sessions.ts'

/**
 * What an operation answers. `body` is a value to serialize, or a `Rendered` body already serialized. An
 * `etag` names the body: the request pipeline (core/api/dispatch.ts) sends it, and answers 304 without a
 * body when the request's If-None-Match has it. A replay answers the kept status and body, with the header
 * that says it is one.
 */
export interface Answer {
  status: number
  body: unknown
  headers?: Record<string, string>
  etag?: string
}

/**
 * The key a running request holds: its write stores `completion(body)` (TripEffects.idempotency) so that
 * the answer commits with the effect. The body is the operation's success body, before the session
 * secrets come out (they are never kept).
 */
export interface IdempotencyClaim {
  completion(body: unknown): IdempotencyCompletion
}

/** Replays the first answer for a repeated Idempotency-Key; the same key with another body is refused. */
export async function idempotent(
  ctx: Context,
  principal: Principal,
  operationId: string,
  successStatus: number,
  key: string | undefined,
  body: unknown,
  run: (claim?: IdempotencyClaim) => Promise<Answer>,
): Promise<Answer> {
  if (key === undefined) return run()
  if (!/^[\x21-\x7e]{1,255}$/.test(key))
    throw new ProblemError(
      'validation_error',
      'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
      [{ path: 'header:Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
    )
  const scope = `${principal.seller.seller_id}:${operationId}`
  const request_hash = sha256Hex(canonicalJson(body))
  const owner = `${ctx.instance}/${ctx.ids.uuid()}`
  const leaseMs = ctx.config.idempotencyLeaseMs
  const now = ctx.clock.now()
  const existing = await ctx.store.reserveIdempotency(
    {
      scope,
      key,
      request_hash,
      response: null,
      created_at: now.toISOString(),
      owner,
      lease_until: new Date(now.getTime() + leaseMs).toISOString(),
    },
    now,
  )
  if (existing) {
    if (existing.request_hash !== request_hash)
      throw new ProblemError('idempotency_conflict', 'This Idempotency-Key was used with a different request body.')
    if (!existing.response) {
      // Retry when the holder's lease would end: by then it has answered, or it died and the retry runs.
      const seconds = Math.max(1, Math.ceil((Date.parse(existing.lease_until) - now.getTime()) / 1000))
      throw new ProblemError(
        'idempotency_in_progress',
        `A request with this Idempotency-Key is still being processed; retry the same request after ${seconds} s (Retry-After).`,
        undefined,
        { 'retry-after': String(seconds) },
      )
    }
    return { ...(await withFreshSession(ctx, existing.response)), headers: { 'Idempotent-Replayed': 'true' } }
  }
  const completion = (answer: unknown): IdempotencyCompletion => ({
    scope,
    key,
    owner,
    response: { status: successStatus, body: withoutSessionSecrets(answer) },
  })
  // Renewed while the request runs; a renewal that fails (the store is down) is tried again at the next tick.
  const renewal = setInterval(() => {
    void ctx.store.renewIdempotency(scope, key, owner, new Date(ctx.clock.now().getTime() + leaseMs)).catch(() => false)
  }, leaseMs / 3)
  try {
    const result = await run({ completion })
    // Stored here unless the request's own write stored it (then this changes nothing).
    await ctx.store.completeIdempotency(completion(result.body))
    return result
  } catch (e) {
    // A refused request changed nothing, so the key is free for a corrected retry.
    await ctx.store.releaseIdempotency(scope, key, owner)
    throw e
  } finally {
    clearInterval(renewal)
  }
}

/**
 * Idempotency records never keep live tokens (that would undo hashing refresh tokens at rest): a replay
 * of a response that carried a session gets a new session for the same trip.
 */
async function withFreshSession(ctx: Context, response: { status: number; body: unknown }) {
  const body = response.body
  if (
    !body ||
    typeof body !== 'object' ||
    !('refresh_token' in body) ||
    !('trip_id' in body) ||
    typeof body.trip_id !== 'string'
  )
    return response
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
