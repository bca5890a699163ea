/**
 * Sellers, their API keys and their suppliers (docs/decisions.md "Real supply: a supplier per seller"), kept in
 * memory for a short while: every request names one, and they change rarely, from the operator CLI
 * (`npm run seller`), maybe in another process. Whatever the CLI changes holds on every instance within
 * SELLER_TTL_MS: a seller, its origins and each API key (with its expiry) are read from the store again at
 * most that long after they were last read, so a revoked key stops working everywhere within 10 s.
 */
import { LRUCache } from 'lru-cache'
import type { ApiKeyRecord, SellerRecord, SellerSupplier } from '../ports/records.ts'
import { ProblemError } from '../shared/errors.ts'
import { sha256Hex } from '../shared/crypto.ts'
import { Sealer } from '../shared/sealing.ts'
import type { Ports } from './dependencies.ts'

/**
 * How long what was read from the store is trusted: a seller (its origins, its supplier), an API key's
 * seller and expiry, a seller's unsealed credentials. The CLI changes them, maybe in another process.
 */
const SELLER_TTL_MS = 10_000
/** The longest a rotated key may keep working (a year). */
const MAX_GRACE_HOURS = 24 * 365
/** What a seller sells from when none is chosen: the sandbox airline (a live seller must choose another). */
const DEFAULT_SUPPLIER: SellerSupplier = { name: 'sandbox', credentials: null }

/** A supplier for a seller, by name, with the seller's credentials for it (in the clear: they are sealed here). */
export interface SupplierChoice { name: string; credentials?: string }

export interface NewSeller {
  name: string
  origins: string[]
  sandbox: boolean
  /** The first API key (the demo hosts give their own); a new random one by default. */
  apiKey?: string
  /** Default: the sandbox airline, without credentials. */
  supplier?: SupplierChoice
}

/**
 * What an update changes. Origins removed must be the seller's; a supplier is checked as at creation (the
 * same supplier without new credentials keeps the ones it has).
 */
export interface SellerChange { addOrigins?: string[]; removeOrigins?: string[]; supplier?: SupplierChoice }

/** An API key as shown to the operator: never the key, nor its hash. */
export interface KeyInfo { prefix: string; created_at: string; expires_at: string | null }

export interface RotatedKey {
  /** The new key, to be shown once. */
  apiKey: string
  prefix: string
  /** When the keys that worked before stop working (now plus the grace period). */
  graceUntil: string
  /** Those keys, each with its expiry now (an earlier one it had is kept). */
  previous: KeyInfo[]
}

export interface RevokedKeys {
  /** Keys that worked, or would have until a later time, and expire now. */
  revoked: KeyInfo[]
  /** Keys named that had already expired: unchanged. */
  alreadyExpired: KeyInfo[]
  /** Without a prefix: the newest key, which stays. */
  kept: KeyInfo | null
}

export interface SellerListing { seller: SellerRecord; keys: KeyInfo[] }

const keyInfo = (k: ApiKeyRecord): KeyInfo => ({ prefix: k.prefix, created_at: k.created_at, expires_at: k.expires_at })
const works = (k: ApiKeyRecord, now: string) => k.expires_at === null || k.expires_at > now
/**
 * The one key of a seller that `given` names: the whole key, or its prefix as listed (or the start of it).
 * None, or several, is an error that says so.
 */
function findKey(sellerId: string, keys: ApiKeyRecord[], given: string): ApiKeyRecord {
  const whole = keys.find((k) => k.key_hash === sha256Hex(given))
  if (whole) return whole
  const found = given ? keys.filter((k) => k.prefix.startsWith(given) || given.startsWith(k.prefix)) : []
  const listed = keys.map((k) => k.prefix).join(', ') || 'none'
  if (found.length === 0) throw new ProblemError('not_found', `Seller ${sellerId} has no API key with prefix ${given} (its keys: ${listed}).`)
  if (found.length > 1) {
    throw new ProblemError('validation_error', `Prefix ${given} names ${found.length} keys of seller ${sellerId} (${found.map((k) => `${k.prefix} created ${k.created_at}`).join(', ')}): give the whole prefix, or the whole key.`)
  }
  return found[0]!
}

/** Sealed credentials belong to one seller and one supplier: sealed for another, they do not unseal. */
const credentialsAad = (sellerId: string, supplier: string) => `supplier:${sellerId}:${supplier}`

export class Sellers {
  readonly #ports: Ports
  #origins: { at: number; set: Set<string> } | null = null
  #sellers = new LRUCache<string, { seller: SellerRecord; at: number }>({ max: 10_000 })
  /**
   * API-key hash → its seller and expiry, read from the store at most every SELLER_TTL_MS: a key's seller
   * never changes, but its expiry does (rotate-key, revoke-key). Unknown keys are not kept.
   */
  #apiKeys = new LRUCache<string, { sellerId: string; expiresAt: number | null; at: number }>({ max: 10_000 })
  /**
   * Unsealed supplier credentials, by what they were sealed as, so a supplier call does not pay HKDF and
   * AES each time; each is kept SELLER_TTL_MS at most (also in real time: the cache purges itself).
   */
  #credentials = new LRUCache<string, { value: string; at: number }>({ max: 1_000, ttl: SELLER_TTL_MS, ttlAutopurge: true })
  #sealer: Sealer | null | undefined

  constructor(ports: Ports) { this.#ports = ports }

  /**
   * A new seller and its first API key. Its supplier is checked before anything is stored: offered here,
   * and the adapter takes the credentials for a seller of this kind (a live seller never gets the sandbox
   * airline by choice); credentials are sealed under SIGNING_KEY_SECRET, and refused without it.
   */
  async create(input: NewSeller): Promise<{ seller: SellerRecord; apiKey: string }> {
    const { store, clock, ids } = this.#ports
    const apiKey = input.apiKey ?? `svc_${input.sandbox ? 'test' : 'live'}_${ids.secret(24)}`
    if (apiKey.length < 16 || /[\s:]/.test(apiKey)) throw new ProblemError('validation_error', 'An API key needs at least 16 characters and no spaces or colons.')
    const now = clock.now().toISOString()
    const sellerId = ids.uuid()
    const supplier = input.supplier ? await this.#supplier(sellerId, input.sandbox, input.supplier) : { ...DEFAULT_SUPPLIER }
    const seller: SellerRecord = {
      seller_id: sellerId, name: input.name, origins: [...new Set(input.origins.map(normaliseOrigin))], sandbox: input.sandbox, supplier, created_at: now,
    }
    await store.createSeller(seller)
    await store.addApiKey({ key_hash: sha256Hex(apiKey), seller_id: seller.seller_id, prefix: apiKey.slice(0, 12), created_at: now, expires_at: null })
    this.#origins = null
    return { seller, apiKey }
  }

  /** Changes a seller's origins and supplier; what changed holds here at once, on other instances within SELLER_TTL_MS. */
  async update(sellerId: string, change: SellerChange): Promise<SellerRecord> {
    const { store } = this.#ports
    const seller = await store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    const next: { origins?: string[]; supplier?: SellerSupplier } = {}
    if (change.addOrigins?.length || change.removeOrigins?.length) {
      const merged = [...new Set([...seller.origins, ...(change.addOrigins ?? []).map(normaliseOrigin)])]
      const remove = new Set((change.removeOrigins ?? []).map(normaliseOrigin))
      const unknown = [...remove].filter((o) => !merged.includes(o))
      if (unknown.length) {
        throw new ProblemError('validation_error', `${unknown.join(', ')} ${unknown.length === 1 ? 'is not an origin' : 'are not origins'} of seller ${sellerId} (its origins: ${seller.origins.join(', ') || 'none'}).`)
      }
      const origins = merged.filter((o) => !remove.has(o))
      if (origins.length !== seller.origins.length || origins.some((o, i) => o !== seller.origins[i])) next.origins = origins
    }
    if (change.supplier) {
      const supplier = await this.#supplier(sellerId, seller.sandbox, change.supplier, seller.supplier)
      if (supplier !== seller.supplier) next.supplier = supplier
    }
    if (next.origins || next.supplier) await store.updateSeller(sellerId, next)
    this.#origins = null
    this.#sellers.delete(sellerId)
    return { ...seller, ...next }
  }

  /**
   * The seller's credentials for its supplier, unsealed for a call to it; null when it has none. Kept
   * unsealed in memory SELLER_TTL_MS at most.
   */
  async credentials(seller: SellerRecord): Promise<string | null> {
    const sealed = seller.supplier.credentials
    if (!sealed) return null
    const aad = credentialsAad(seller.seller_id, seller.supplier.name)
    const cacheKey = `${aad}\n${sealed.iv}.${sealed.data}`
    const now = this.#ports.clock.now().getTime()
    const hit = this.#credentials.get(cacheKey)
    if (hit && now - hit.at < SELLER_TTL_MS && now >= hit.at) return hit.value
    const sealer = this.#getSealer()
    const what = `The ${seller.supplier.name} credentials of seller ${seller.seller_id}`
    if (!sealer) throw new ProblemError('internal', `${what} are sealed, and SIGNING_KEY_SECRET is not set: set it to the secret they were sealed with.`)
    let value: string
    try {
      value = await sealer.unseal(sealed, aad)
    } catch {
      throw new ProblemError('internal', `${what} cannot be unsealed: SIGNING_KEY_SECRET is not the secret they were sealed with.`)
    }
    this.#credentials.set(cacheKey, { value, at: now })
    return value
  }

  /**
   * A new API key for the seller, shown once; every key that works now keeps working `graceHours` more
   * (0: stops at once), so the seller can deploy the new one first.
   */
  async rotateKey(sellerId: string, graceHours = 24): Promise<RotatedKey> {
    if (!Number.isFinite(graceHours) || graceHours < 0 || graceHours > MAX_GRACE_HOURS) {
      throw new ProblemError('validation_error', `The grace period is a number of hours from 0 to ${MAX_GRACE_HOURS}.`)
    }
    const { store, clock } = this.#ports
    const seller = await store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    const now = clock.now()
    const current = (await store.listApiKeys(sellerId)).filter((k) => works(k, now.toISOString()))
    // The new key first: the seller is never left without one that works.
    const apiKey = await this.#issueKey(seller, now)
    const graceUntil = new Date(now.getTime() + graceHours * 3_600_000).toISOString()
    const hashes = new Set(current.map((k) => k.key_hash))
    if (hashes.size) await store.expireApiKeys(sellerId, [...hashes], graceUntil)
    for (const h of hashes) this.#apiKeys.delete(h)
    const previous = (await store.listApiKeys(sellerId)).filter((k) => hashes.has(k.key_hash)).map(keyInfo)
    return { apiKey, prefix: apiKey.slice(0, 12), graceUntil, previous }
  }

  /**
   * Makes keys stop working now: the one `prefix` names (its prefix as listed, the start of it, or the whole
   * key), or without a prefix every key but the newest. Here at once, on other instances within SELLER_TTL_MS.
   */
  async revokeKeys(sellerId: string, prefix?: string, opts: { endTripTokens?: boolean } = {}): Promise<RevokedKeys> {
    const { store, clock } = this.#ports
    const seller = await store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    const now = clock.now().toISOString()
    const keys = await store.listApiKeys(sellerId)
    let kept: ApiKeyRecord | null = null
    let targets: ApiKeyRecord[]
    if (prefix !== undefined) {
      targets = [findKey(sellerId, keys, prefix)]
    } else {
      // The newest: created last; of keys created at one instant, one that never expires (a rotation's new key).
      kept = keys.reduce<ApiKeyRecord | null>((a, k) => (!a || k.created_at > a.created_at || (k.created_at === a.created_at && k.expires_at === null) ? k : a), null)
      targets = keys.filter((k) => k !== kept)
    }
    const revoked = targets.filter((k) => works(k, now))
    if (revoked.length) await store.expireApiKeys(sellerId, revoked.map((k) => k.key_hash), now)
    for (const k of targets) this.#apiKeys.delete(k.key_hash)
    if (opts.endTripTokens) {
      // Trip tokens name no key: ending them ends every trip session of the seller, here at once, elsewhere within SELLER_TTL_MS.
      await store.updateSeller(sellerId, { trip_tokens_after: now })
      await store.revokeSellerRefreshTokens(sellerId, new Date(now))
      this.#sellers.delete(sellerId)
    }
    return {
      revoked: revoked.map((k) => ({ ...keyInfo(k), expires_at: now })),
      alreadyExpired: targets.filter((k) => !revoked.includes(k)).map(keyInfo),
      kept: kept && keyInfo(kept),
    }
  }

  /** Every seller with its keys (prefixes and expiry), oldest first. */
  async list(): Promise<SellerListing[]> {
    const { store } = this.#ports
    const sellers = await store.listSellers()
    return Promise.all(sellers.map(async (seller) => ({ seller, keys: (await store.listApiKeys(seller.seller_id)).map(keyInfo) })))
  }

  /** The seller's supplier for `choice`, checked and its credentials sealed; `current` when nothing would change. */
  async #supplier(sellerId: string, sandbox: boolean, choice: SupplierChoice, current?: SellerSupplier): Promise<SellerSupplier> {
    const { suppliers } = this.#ports
    const adapter = suppliers.get(choice.name)
    if (!adapter) {
      throw new ProblemError('validation_error', `There is no supplier "${choice.name}": this service offers ${[...suppliers.keys()].join(', ') || 'none'}.`)
    }
    // The same supplier again without new credentials keeps the ones it has (checked when they were set).
    if (choice.credentials === undefined && current?.name === choice.name && current.credentials !== null) return current
    const credentials = choice.credentials ?? null
    const problem = adapter.credentialsProblem(credentials, sandbox) ??
      (!sandbox && adapter.capabilities.simulated ? 'Its offers are simulated: it serves sandbox sellers only.' : null)
    if (problem) throw new ProblemError('validation_error', `Supplier ${choice.name} cannot serve this ${sandbox ? 'sandbox' : 'live'} seller: ${problem}`)
    if (credentials === null) return current?.name === choice.name && current.credentials === null ? current : { name: choice.name, credentials: null }
    const sealer = this.#getSealer()
    if (!sealer) {
      throw new ProblemError('validation_error', 'Supplier credentials are stored sealed under SIGNING_KEY_SECRET, which is not set: set SIGNING_KEY_SECRET (at least 32 characters, e.g. openssl rand -base64 32; the same as the server\'s) and run this again.')
    }
    return { name: choice.name, credentials: await sealer.seal(credentials, credentialsAad(sellerId, choice.name)) }
  }

  #getSealer(): Sealer | null {
    if (this.#sealer === undefined) {
      const secret = this.#ports.config.signingKeySecret
      this.#sealer = secret ? new Sealer(secret) : null
    }
    return this.#sealer
  }

  async #issueKey(seller: SellerRecord, now: Date): Promise<string> {
    const apiKey = `svc_${seller.sandbox ? 'test' : 'live'}_${this.#ports.ids.secret(24)}`
    await this.#ports.store.addApiKey({ key_hash: sha256Hex(apiKey), seller_id: seller.seller_id, prefix: apiKey.slice(0, 12), created_at: now.toISOString(), expires_at: null })
    return apiKey
  }

  /**
   * Issues one more API key for an existing seller (its earlier keys keep working), shown once and stored
   * as its SHA-256 like the first. `npm start` gives its demo checkout a key this way on every start.
   */
  async addApiKey(sellerId: string): Promise<string> {
    const { store, clock } = this.#ports
    const seller = await store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    return this.#issueKey(seller, clock.now())
  }

  /**
   * The seller an API key belongs to; undefined for an unknown or expired key. The key is read from the
   * store again at most every SELLER_TTL_MS, so a revocation or rotation made by the CLI (in another
   * process) holds on every instance within that time; its expiry holds to the millisecond.
   */
  async byApiKey(apiKey: string): Promise<SellerRecord | undefined> {
    const sellerId = await this.#keySeller(sha256Hex(apiKey))
    return sellerId === undefined ? undefined : this.get(sellerId)
  }

  /** Whether the API key of this hash works now (not revoked, not expired): what a creation token it minted needs. */
  async keyWorks(keyHash: string): Promise<boolean> {
    return (await this.#keySeller(keyHash)) !== undefined
  }

  /** The seller of the key of this hash while it works, read from the store at most every SELLER_TTL_MS. */
  async #keySeller(keyHash: string): Promise<string | undefined> {
    const now = this.#ports.clock.now().getTime()
    let hit = this.#apiKeys.get(keyHash)
    if (!hit || now - hit.at >= SELLER_TTL_MS || now < hit.at) {
      const record = await this.#ports.store.findApiKey(keyHash)
      if (!record) { this.#apiKeys.delete(keyHash); return undefined }
      hit = { sellerId: record.seller_id, expiresAt: record.expires_at === null ? null : Date.parse(record.expires_at), at: now }
      this.#apiKeys.set(keyHash, hit)
    }
    return hit.expiresAt !== null && now >= hit.expiresAt ? undefined : hit.sellerId
  }

  /** A seller, read from the store at most every SELLER_TTL_MS. */
  async get(sellerId: string): Promise<SellerRecord | undefined> {
    const now = this.#ports.clock.now().getTime()
    const hit = this.#sellers.get(sellerId)
    if (hit && now - hit.at < SELLER_TTL_MS && now >= hit.at) return hit.seller
    const seller = await this.#ports.store.getSeller(sellerId)
    if (seller) this.#sellers.set(sellerId, { seller, at: now })
    else this.#sellers.delete(sellerId)
    return seller
  }

  async addOrigins(sellerId: string, origins: string[]): Promise<void> {
    await this.update(sellerId, { addOrigins: origins })
  }

  async count(): Promise<number> { return (await this.#ports.store.listSellers()).length }

  /** CORS preflights carry no credentials, so an origin passes when any seller lists it; the real call is checked per seller. */
  async isAllowedOrigin(origin: string): Promise<boolean> {
    const now = this.#ports.clock.now().getTime()
    if (!this.#origins || now - this.#origins.at > SELLER_TTL_MS) {
      this.#origins = { at: now, set: new Set((await this.#ports.store.listSellers()).flatMap((s) => s.origins)) }
    }
    return this.#origins.set.has(normaliseOrigin(origin))
  }
}

/** `https://Shop.example:443/` → `https://shop.example`; origins compare in this form. */
export function normaliseOrigin(origin: string): string {
  try { return new URL(origin).origin } catch { return origin }
}
