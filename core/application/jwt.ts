/**
 * ES256 JWTs for trip access and trip creation. Signing keys live in the store so every server instance
 * (and a restarted one) signs and verifies with the same keys. Verification pins ES256, so `none` and
 * HS/ES confusion are refused.
 *
 * Keys rotate: once the active key is `rotationDays` old, a new one signs and the old one is retired; a
 * retired key keeps verifying, and stays in the JWKS, until every token it signed has expired, then the
 * retention job deletes it. With a secret (SIGNING_KEY_SECRET), private keys are stored sealed (core/shared/sealing.ts:
 * AES-256-GCM under a key derived from it by HKDF-SHA-256, the kid as additional data); a key stored in the
 * clear before the secret was set is sealed at the next start.
 */
import {
  SignJWT,
  jwtVerify,
  generateKeyPair,
  exportJWK,
  importJWK,
  errors,
  type JWTPayload,
  type CryptoKey,
} from 'jose'
import { LRUCache } from 'lru-cache'
import type { Clock, Ids } from '../ports/clock.ts'
import type { SealedJwk, SigningKeyRecord } from '../ports/records.ts'
import type { Store } from '../ports/store.ts'
import { ProblemError } from '../shared/errors.ts'
import { Sealer, isSealed } from '../shared/sealing.ts'

export { isSealed } from '../shared/sealing.ts'

export type TokenUse = 'trip_access' | 'trip_creation'

export interface TokenClaims extends JWTPayload {
  token_use: TokenUse
  /** seller_id */
  sid: string
  /** trip_id, for access tokens */
  sub?: string
  /** The refresh family of an access token: revoking the family refuses the token (core/core.ts). */
  fam?: string
  /** The hash of the API key that minted a trip creation token: revoking that key ends the token. */
  akh?: string
}

interface LoadedKey {
  record: SigningKeyRecord
  privateKey: CryptoKey
  publicKey: CryptoKey
}

export interface TokenServiceOptions {
  issuer: string
  /** Seals private keys at rest when set (SIGNING_KEY_SECRET). */
  secret?: string
  /** A key signs for this long, then the next one does. */
  rotationDays: number
  /** The longest a token lives (seconds): a retired key is published and kept this long after retiring. */
  maxTokenTtl: number
}

/** Thrown at start when the stored keys cannot be read with the configured secret. */
export class SigningKeySecretError extends Error {}

const ALG = 'ES256'
/** Other instances' rotations are picked up this often; a key they retired may sign here that long after. */
const RELOAD_MS = 5 * 60_000
/** An unknown kid makes a store read at most this often (a flood of forged kids must not flood the store). */
const UNKNOWN_KID_RELOAD_MS = 1000

export class TokenService {
  #keys = new Map<string, LoadedKey>()
  #loading: Promise<void> | null = null
  /**
   * Verified tokens until they expire: an ES256 verification costs ~170 µs, and a widget sends the same
   * token with every request. Only the signature's verdict is kept; whether the session still stands is
   * decided per request on the trip just read (revoked families), so a revocation needs no cache purge.
   */
  #verified = new LRUCache<string, TokenClaims>({ max: 20_000 })
  #loadedAt = -Infinity
  /** Seals private keys when a secret is set. */
  readonly #sealer: Sealer | null
  readonly #issuer: string

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: Ids,
    private readonly opts: TokenServiceOptions,
  ) {
    this.#issuer = opts.issuer
    this.#sealer = opts.secret ? new Sealer(opts.secret) : null
  }

  /**
   * Makes sure a signing key younger than the rotation period is active: adds one (retiring the one it
   * replaces) when there is none or it is too old, and seals keys stored in the clear when a secret is
   * set. Racing instances may both add one, which is harmless (the newest signs). Runs at start and with
   * the retention job.
   */
  async ensureSigningKey(): Promise<void> {
    await this.#reload()
    if (this.opts.secret) await this.#sealStoredKeys()
    const active = this.#active()
    const now = this.clock.now()
    if (active && now.getTime() - Date.parse(active.record.created_at) < this.opts.rotationDays * 86_400_000) return
    const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true })
    const kid = this.ids.uuid()
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: ALG } as JsonWebKey
    await this.store.addSigningKey({
      kid,
      alg: ALG,
      private_jwk: this.opts.secret ? await this.#seal(privateJwk, kid) : privateJwk,
      public_jwk: { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' } as JsonWebKey,
      created_at: now.toISOString(),
      retire_at: null,
    })
    // The key it replaces signs nothing new from now; it verifies (and is published) until its tokens expire.
    if (active) await this.store.updateSigningKey(active.record.kid, { retire_at: now.toISOString() })
    await this.#reload()
  }

  async sign(
    use: TokenUse,
    sellerId: string,
    ttlSeconds: number,
    tripId?: string,
    family?: string | null,
    apiKeyHash?: string,
  ): Promise<string> {
    // Another instance may have rotated: look again now and then (not on the request's way).
    if (this.clock.now().getTime() - this.#loadedAt > RELOAD_MS) void this.#reload().catch(() => {})
    let key = this.#active()
    if (!key) {
      await this.ensureSigningKey()
      key = this.#active()
    }
    if (!key) throw new ProblemError('internal', 'no signing key')
    const now = Math.floor(this.clock.now().getTime() / 1000)
    const jwt = new SignJWT({
      token_use: use,
      sid: sellerId,
      ...(family ? { fam: family } : {}),
      ...(apiKeyHash ? { akh: apiKeyHash } : {}),
    })
      .setProtectedHeader({ alg: ALG, kid: key.record.kid, typ: 'JWT' })
      .setIssuer(this.#issuer)
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
        throw new ProblemError(
          'token_expired',
          'The token has expired. Refresh the access token with POST /v2.2/refresh_token.',
        )
      }
      return known
    }
    const claims = await this.#verify(token)
    this.#verified.set(token, claims)
    return claims
  }

  async #verify(token: string): Promise<TokenClaims> {
    try {
      // `exp` is a required claim: jose checks it only when present, and a token without one would never expire.
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const kid = header.kid ?? ''
          if (!this.#keys.has(kid) && this.clock.now().getTime() - this.#loadedAt > UNKNOWN_KID_RELOAD_MS)
            await this.#reload()
          const k = this.#keys.get(kid)
          if (!k) throw new ProblemError('unauthorized', 'The token was signed by an unknown key.')
          return k.publicKey
        },
        { algorithms: [ALG], issuer: this.#issuer, requiredClaims: ['exp'], currentDate: this.clock.now() },
      )
      const claims = payload as TokenClaims
      if (
        (claims.token_use !== 'trip_access' && claims.token_use !== 'trip_creation') ||
        typeof claims.sid !== 'string'
      ) {
        throw new ProblemError('unauthorized', 'The token is not a service token.')
      }
      return claims
    } catch (e) {
      if (e instanceof ProblemError) throw e
      if (e instanceof errors.JWTExpired)
        throw new ProblemError(
          'token_expired',
          'The token has expired. Refresh the access token with POST /v2.2/refresh_token.',
        )
      throw new ProblemError('unauthorized', 'The token is not valid.')
    }
  }

  /** The public keys that may have signed a live token: active ones, and retired ones until their tokens expire. */
  async jwks(): Promise<{ keys: JsonWebKey[] }> {
    await this.#reload()
    const now = this.clock.now().getTime()
    return {
      keys: [...this.#keys.values()]
        .filter(
          (k) =>
            k.record.retire_at === null ||
            Date.parse(k.record.retire_at) + this.opts.maxTokenTtl * 1000 + RELOAD_MS > now,
        )
        .map((k) => k.record.public_jwk),
    }
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
        const records = await this.store.listSigningKeys()
        for (const record of records) {
          const known = this.#keys.get(record.kid)
          // A known key keeps its imported keys; its record may have changed (retired, sealed).
          if (known) {
            known.record = record
            continue
          }
          this.#keys.set(record.kid, {
            record,
            privateKey: (await importJWK(
              (await this.#privateJwk(record)) as Parameters<typeof importJWK>[0],
              ALG,
            )) as CryptoKey,
            publicKey: (await importJWK(record.public_jwk as Parameters<typeof importJWK>[0], ALG)) as CryptoKey,
          })
        }
        const stored = new Set(records.map((r) => r.kid))
        for (const kid of [...this.#keys.keys()]) if (!stored.has(kid)) this.#keys.delete(kid)
        this.#loadedAt = this.clock.now().getTime()
      } finally {
        this.#loading = null
      }
    })()
    return this.#loading
  }

  async #privateJwk(record: SigningKeyRecord): Promise<JsonWebKey> {
    if (!isSealed(record.private_jwk)) return record.private_jwk
    if (!this.#sealer)
      throw new SigningKeySecretError(
        `The signing keys are sealed, and SIGNING_KEY_SECRET is not set: set it to the secret they were sealed with.`,
      )
    try {
      return JSON.parse(await this.#sealer.unseal(record.private_jwk, record.kid)) as JsonWebKey
    } catch {
      throw new SigningKeySecretError(
        `Signing key ${record.kid} cannot be unsealed: SIGNING_KEY_SECRET is not the secret it was sealed with.`,
      )
    }
  }

  /** The private JWK's JSON sealed, its kid as additional data (only called with a secret). */
  #seal(jwk: JsonWebKey, kid: string): Promise<SealedJwk> {
    return this.#sealer!.seal(JSON.stringify(jwk), kid)
  }

  /** Keys stored in the clear (before a secret was set) are sealed in place. */
  async #sealStoredKeys(): Promise<void> {
    let sealed = false
    for (const k of this.#keys.values()) {
      if (isSealed(k.record.private_jwk)) continue
      await this.store.updateSigningKey(k.record.kid, {
        private_jwk: await this.#seal(k.record.private_jwk, k.record.kid),
      })
      sealed = true
    }
    if (sealed) await this.#reload()
  }
}
