/** The token operations: a trip creation token for a frontend, refresh-token rotation, the public keys. */
import { ProblemError } from '../shared/errors.ts'
import { sha256Hex } from '../shared/crypto.ts'
import type { Static } from 'typebox'
import type { RefreshRequest } from '../schemas/auth.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'
import { newSession } from './sessions.ts'

export async function authorize(ctx: Context, p: Principal) {
  return {
    token_type: 'Bearer' as const,
    // Names the key it came from: revoking the key ends the token too (within SELLER_TTL_MS on every instance).
    trip_creation_token: await ctx.tokens.sign(
      'trip_creation',
      p.seller.seller_id,
      ctx.config.creationTokenTtl,
      undefined,
      null,
      p.kind === 'api_key' ? p.key_hash : undefined,
    ),
    expires_in: ctx.config.creationTokenTtl,
  }
}

export async function refresh(ctx: Context, { refresh_token }: Static<typeof RefreshRequest>) {
  const now = ctx.clock.now()
  const r = await ctx.store.consumeRefreshToken(sha256Hex(refresh_token), now)
  if (r.status === 'unknown') throw new ProblemError('unauthorized', 'The refresh token is not valid.')
  if (r.status === 'revoked') throw new ProblemError('unauthorized', 'The refresh token has been revoked.')
  // Left unused by the store, so a retry with it is refused the same way, not taken for a reuse.
  if (r.status === 'expired') throw new ProblemError('token_expired', 'The refresh token has expired.')
  if (r.status === 'reused') {
    // A used token presented again means it leaked: end the whole session, the thief's and the owner's,
    // refresh tokens and access tokens alike (the trip records the family, which every instance reads).
    await ctx.store.revokeRefreshFamily(r.record.family_id, now)
    await ctx.trips
      .mutate(null, r.record.trip_id, (t) =>
        (t.revoked_families ?? []).includes(r.record.family_id)
          ? t
          : { ...t, revoked_families: [...(t.revoked_families ?? []), r.record.family_id] },
      )
      .catch((e: unknown) => {
        if (!(e instanceof ProblemError && e.code === 'not_found')) throw e
      })
    throw new ProblemError(
      'unauthorized',
      'The refresh token was already used; every token of this session is now revoked. Create the trip session again.',
    )
  }
  const trip = await ctx.trips.read(r.record.trip_id)
  if (!trip || (trip.value.revoked_families ?? []).includes(r.record.family_id))
    throw new ProblemError('unauthorized', 'The refresh token is not valid.')
  const session = newSession(ctx, trip.value, r.record.family_id)
  await ctx.store.insertRefreshToken(session.record)
  return {
    ...(await session.tokens()),
    expires_in: ctx.config.accessTokenTtl,
    refresh_expires_in: ctx.config.refreshTokenTtl,
  }
}

export function jwks(ctx: Context) {
  return ctx.tokens.jwks()
}
