/**
 * ES256 JWTs for trip access and trip creation. Signing keys live in the store so every server instance
 * (and a restarted one) signs and verifies with the same keys; a retired key keeps verifying until the
 * tokens it signed have expired. Verification pins ES256, so `none` and HS/ES confusion are refused.
 */
import { SignJWT, jwtVerify, generateKeyPair, exportJWK, importJWK, errors, type JWTPayload, type CryptoKey } from 'jose'
import { LRUCache } from 'lru-cache'
import type { Clock, Ids, SigningKeyRecord, Store } from '../ports.ts'
import { ProblemError } from '../errors.ts'

export type TokenUse = 'trip_access' | 'trip_creation'

export interface TokenClaims extends JWTPayload {
  token_use: TokenUse
  /** seller_id */
  sid: string
  /** trip_id, for access tokens */
  sub?: string
  /** The refresh family of an access token: revoking the family refuses the token (core/service.ts). */
  fam?: string
}

interface LoadedKey { record: SigningKeyRecord; privateKey: CryptoKey; publicKey: CryptoKey }

const ALG = 'ES256'

export class TokenService {
  #keys = new Map<string, LoadedKey>()
  #loading: Promise<void> | null = null
  /**
   * Verified tokens until they expire: an ES256 verification costs ~170 µs, and a widget sends the same
   * token with every request. Only the signature's verdict is kept; whether the session still stands is
   * decided per request on the trip just read (revoked families), so a revocation needs no cache purge.
   */
  #verified = new LRUCache<string, TokenClaims>({ max: 20_000 })

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: Ids,
    private readonly issuer: string,
  ) {}

  /** Makes sure an active signing key exists; racing instances may both add one, which is harmless. */
  async ensureSigningKey(): Promise<void> {
    await this.#reload()
    if (this.#active()) return
    const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true })
    const kid = this.ids.uuid()
    await this.store.addSigningKey({
      kid, alg: ALG,
      private_jwk: { ...(await exportJWK(privateKey)), kid, alg: ALG } as JsonWebKey,
      public_jwk: { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' } as JsonWebKey,
      created_at: this.clock.now().toISOString(),
      retire_at: null,
    })
    await this.#reload()
  }

  async sign(use: TokenUse, sellerId: string, ttlSeconds: number, tripId?: string, family?: string | null): Promise<string> {
    let key = this.#active()
    if (!key) { await this.ensureSigningKey(); key = this.#active() }
    if (!key) throw new ProblemError('internal', 'no signing key')
    const now = Math.floor(this.clock.now().getTime() / 1000)
    const jwt = new SignJWT({ token_use: use, sid: sellerId, ...(family ? { fam: family } : {}) })
      .setProtectedHeader({ alg: ALG, kid: key.record.kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .setJti(this.ids.uuid())
    if (tripId) jwt.setSubject(tripId)
    return jwt.sign(key.privateKey)
  }

  /** Verifies signature, algorithm, issuer and expiry against the injected clock. */
  async verify(token: string): Promise<TokenClaims> {
    const known = this.#verified.get(token)
    if (known) {
      // exp is checked on every use (jose's rule: expired once now ≥ exp), against the injected clock.
      if (typeof known.exp === 'number' && Math.floor(this.clock.now().getTime() / 1000) >= known.exp) {
        this.#verified.delete(token)
        throw new ProblemError('token_expired', 'The token has expired. Refresh the access token with POST /v2.2/refresh_token.')
      }
      return known
    }
    const claims = await this.#verify(token)
    this.#verified.set(token, claims)
    return claims
  }

  async #verify(token: string): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, async (header) => {
        const kid = header.kid ?? ''
        if (!this.#keys.has(kid)) await this.#reload()
        const k = this.#keys.get(kid)
        if (!k) throw new ProblemError('unauthorized', 'The token was signed by an unknown key.')
        return k.publicKey
      }, { algorithms: [ALG], issuer: this.issuer, currentDate: this.clock.now() })
      const claims = payload as TokenClaims
      if ((claims.token_use !== 'trip_access' && claims.token_use !== 'trip_creation') || typeof claims.sid !== 'string') {
        throw new ProblemError('unauthorized', 'The token is not a service token.')
      }
      return claims
    } catch (e) {
      if (e instanceof ProblemError) throw e
      if (e instanceof errors.JWTExpired) throw new ProblemError('token_expired', 'The token has expired. Refresh the access token with POST /v2.2/refresh_token.')
      throw new ProblemError('unauthorized', 'The token is not valid.')
    }
  }

  async jwks(): Promise<{ keys: JsonWebKey[] }> {
    await this.#reload()
    return { keys: [...this.#keys.values()].map((k) => k.record.public_jwk) }
  }

  #active(): LoadedKey | undefined {
    const now = this.clock.now().toISOString()
    return [...this.#keys.values()]
      .filter((k) => k.record.retire_at === null || k.record.retire_at > now)
      .sort((a, b) => (a.record.created_at < b.record.created_at ? 1 : -1))[0]
  }

  #reload(): Promise<void> {
    // One reload at a time: a burst of tokens with a new kid triggers a single store read.
    this.#loading ??= (async () => {
      try {
        for (const record of await this.store.listSigningKeys()) {
          if (this.#keys.has(record.kid)) continue
          this.#keys.set(record.kid, {
            record,
            privateKey: (await importJWK(record.private_jwk as Parameters<typeof importJWK>[0], ALG)) as CryptoKey,
            publicKey: (await importJWK(record.public_jwk as Parameters<typeof importJWK>[0], ALG)) as CryptoKey,
          })
        }
      } finally {
        this.#loading = null
      }
    })()
    return this.#loading
  }
}
