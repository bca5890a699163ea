/** A trip's session: the access token and the single-use refresh token of one refresh family. */
import type { RefreshTokenRecord, TripRecord } from '../ports/records.ts'
import { sha256Hex } from '../shared/crypto.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'

/**
 * A session of the trip in the refresh family `familyId`: the refresh token's record, for the caller to
 * store (with the trip, when it is new), and the tokens to hand out once it is stored.
 */
export function newSession(
  ctx: Context,
  trip: TripRecord,
  familyId: string,
): { record: RefreshTokenRecord; tokens(): Promise<{ trip_access_token: string; refresh_token: string }> } {
  const refresh_token = `rt_${ctx.ids.secret(32)}`
  const record: RefreshTokenRecord = {
    token_hash: sha256Hex(refresh_token),
    family_id: familyId,
    trip_id: trip.trip_id,
    seller_id: trip.seller_id,
    expires_at: new Date(ctx.clock.now().getTime() + ctx.config.refreshTokenTtl * 1000).toISOString(),
    used_at: null,
    revoked_at: null,
  }
  return {
    record,
    tokens: async () => ({
      trip_access_token: await ctx.tokens.sign(
        'trip_access',
        trip.seller_id,
        ctx.config.accessTokenTtl,
        trip.trip_id,
        familyId,
      ),
      refresh_token,
    }),
  }
}

/** A browser keeps the token it has (renewal is the refresh endpoint's job); a backend gets a fresh one. */
export async function accessTokenFor(ctx: Context, p: Principal, trip: TripRecord): Promise<string> {
  return p.kind === 'access_token'
    ? p.token
    : ctx.tokens.sign('trip_access', trip.seller_id, ctx.config.accessTokenTtl, trip.trip_id, null)
}
