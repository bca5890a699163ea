/** Who is calling (the Authorization header, verified) and what they may do (the matrix of docs/decisions.md). */
import { ProblemError } from '../shared/errors.ts'
import type { Context } from './context.ts'
import type { AuthRule, Principal } from './principal.ts'
import { normaliseOrigin } from './sellers.ts'
import { sha256Hex } from '../shared/crypto.ts'
import type { SellerRecord } from '../ports/records.ts'

export type { AuthRule, Principal } from './principal.ts'

/** Verifies the Authorization header: `Basic <apiKey:>` or `Bearer <jwt>`; null when there is none. */
export async function authenticate(ctx: Context, authorization: string | undefined): Promise<Principal | null> {
  if (!authorization) return null
  // Exactly `<scheme> <credential>`. Anything after the credential is refused, not ignored: a second
  // credential (or two Authorization headers, which fetch and the Fastify host join with ", ") is
  // ambiguous, and a proxy in front may have judged the other one.
  const parts = authorization.trim().split(/\s+/)
  if (parts.length > 2)
    throw new ProblemError(
      'unauthorized',
      'Send one credential in one Authorization header: "Basic <base64 of key:>" or "Bearer <token>".',
    )
  const [scheme, value = ''] = parts
  if (/^basic$/i.test(scheme ?? '')) {
    let decoded: string
    try {
      decoded = atob(value)
    } catch {
      throw new ProblemError('unauthorized', 'The Basic credentials are not valid base64.')
    }
    // The contract: the key is the user name and the password is empty, so `key:` exactly (keys have no colon).
    const colon = decoded.indexOf(':')
    if (colon < 1 || colon !== decoded.length - 1) {
      throw new ProblemError(
        'unauthorized',
        'Send the API key as the Basic user name with an empty password (base64 of "<key>:").',
      )
    }
    const key = decoded.slice(0, colon)
    const seller = await ctx.sellers.byApiKey(key)
    if (!seller) throw new ProblemError('unauthorized', 'The API key is not valid.')
    assertEnabled(seller)
    return { kind: 'api_key', seller, key_hash: sha256Hex(key) }
  }
  if (/^bearer$/i.test(scheme ?? '')) {
    const claims = await ctx.tokens.verify(value)
    const seller = await ctx.sellers.get(claims.sid)
    if (!seller) throw new ProblemError('unauthorized', 'The token is not valid.')
    assertEnabled(seller)
    if (claims.token_use === 'trip_creation') {
      // A token minted by a key that has stopped working stops with it (tokens from before this rule name no key).
      if (claims.akh !== undefined && !(await ctx.sellers.keyWorks(claims.akh))) {
        throw new ProblemError(
          'unauthorized',
          'The API key that issued this trip creation token was revoked: ask your backend for a new one.',
        )
      }
      return { kind: 'creation_token', seller }
    }
    if (!claims.sub) throw new ProblemError('unauthorized', 'The token is not valid.')
    // The seller's trip tokens were ended (revoke-key --end-trip-tokens): those issued before are refused.
    if (seller.trip_tokens_after && (claims.iat ?? 0) * 1000 < Date.parse(seller.trip_tokens_after)) {
      throw new ProblemError(
        'unauthorized',
        "This trip access token was ended when the seller's keys were revoked: the seller's backend creates the trip session again.",
      )
    }
    return {
      kind: 'access_token',
      seller,
      trip_id: claims.sub,
      token: value,
      family: typeof claims.fam === 'string' ? claims.fam : null,
      expires_at: claims.exp!,
    }
  }
  throw new ProblemError('unauthorized', 'Use HTTP Basic with the API key, or a Bearer token.')
}

/**
 * A disabled seller's credentials (`npm run seller -- disable`) are refused, whatever they are: they are valid,
 * so the answer is 403, not 401 (the caller need not renew anything), until the seller is enabled again. The
 * seller is read at most SELLER_TTL_MS before, so this holds on every instance within 10 s, as a revoked key does.
 */
function assertEnabled(seller: SellerRecord): void {
  if (seller.disabled_at !== undefined) {
    throw new ProblemError(
      'seller_disabled',
      'This seller is disabled by the operator of the service: its API keys and trip tokens are refused until it is enabled again.',
    )
  }
}

/** The caller of an operation that is not public; none is refused. */
export function required(principal: Principal | null): Principal {
  if (!principal)
    throw new ProblemError('unauthorized', 'Credentials are required: HTTP Basic with the API key, or a Bearer token.')
  return principal
}

/** The permission matrix of docs/decisions.md. */
export function authorizeFor(
  rule: AuthRule,
  principal: Principal | null,
  params: Record<string, string>,
  origin: string | undefined,
): void {
  if (rule === 'public') return
  const caller = required(principal)
  if (origin && caller.kind === 'api_key') {
    throw new ProblemError(
      'forbidden',
      'API keys are for server-to-server calls only; a browser must use a trip access token.',
    )
  }
  if (origin && !caller.seller.origins.includes(normaliseOrigin(origin))) {
    throw new ProblemError('forbidden', `Origin ${origin} is not allowed for this seller.`)
  }
  const kind = caller.kind
  const allowed =
    rule === 'api_key'
      ? kind === 'api_key'
      : rule === 'creator'
        ? kind === 'api_key' || kind === 'creation_token'
        : kind === 'api_key' || kind === 'access_token'
  if (!allowed) {
    const what = {
      api_key: 'the API key',
      creation_token: 'a trip creation token',
      access_token: 'a trip access token',
    }[kind]
    throw new ProblemError('forbidden', `This operation cannot be done with ${what}.`)
  }
  if (caller.kind === 'access_token' && params.trip_id !== undefined && params.trip_id !== caller.trip_id) {
    throw new ProblemError('not_found', `Trip ${params.trip_id} does not exist.`)
  }
}
