/** Sellers and their API keys, kept in memory for a short while: every request names one, and they change rarely. */
import { LRUCache } from 'lru-cache'
import type { SellerRecord } from '../ports.ts'
import { ProblemError } from '../errors.ts'
import { sha256Hex } from '../crypto.ts'
import type { Ports } from './ports.ts'

/** How long a seller read from the store is trusted (origins change from the CLI, maybe in another process). */
const SELLER_TTL_MS = 10_000

export class Sellers {
  readonly #ports: Ports
  #origins: { at: number; set: Set<string> } | null = null
  #sellers = new LRUCache<string, { seller: SellerRecord; at: number }>({ max: 10_000 })
  /** API-key hash → seller id. */
  #apiKeys = new LRUCache<string, string>({ max: 10_000 })

  constructor(ports: Ports) { this.#ports = ports }

  async create(input: { name: string; origins: string[]; sandbox: boolean; apiKey?: string }): Promise<{ seller: SellerRecord; apiKey: string }> {
    const { store, clock, ids } = this.#ports
    const apiKey = input.apiKey ?? `svc_${input.sandbox ? 'test' : 'live'}_${ids.secret(24)}`
    if (apiKey.length < 16 || /[\s:]/.test(apiKey)) throw new ProblemError('validation_error', 'An API key needs at least 16 characters and no spaces or colons.')
    const now = clock.now().toISOString()
    const seller: SellerRecord = {
      seller_id: ids.uuid(), name: input.name, origins: input.origins.map(normaliseOrigin), sandbox: input.sandbox, created_at: now,
    }
    await store.createSeller(seller)
    await store.addApiKey({ key_hash: sha256Hex(apiKey), seller_id: seller.seller_id, prefix: apiKey.slice(0, 12), created_at: now })
    this.#origins = null
    return { seller, apiKey }
  }

  /**
   * Issues one more API key for an existing seller (its earlier keys keep working), shown once and stored
   * as its SHA-256 like the first. `npm start` gives its demo checkout a key this way on every start.
   */
  async addApiKey(sellerId: string): Promise<string> {
    const { store, clock, ids } = this.#ports
    const seller = await store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    const apiKey = `svc_${seller.sandbox ? 'test' : 'live'}_${ids.secret(24)}`
    await store.addApiKey({ key_hash: sha256Hex(apiKey), seller_id: sellerId, prefix: apiKey.slice(0, 12), created_at: clock.now().toISOString() })
    return apiKey
  }

  /** The seller an API key belongs to. A key's seller never changes, so the pair is kept; unknown keys are not. */
  async byApiKey(apiKey: string): Promise<SellerRecord | undefined> {
    const keyHash = sha256Hex(apiKey)
    let sellerId = this.#apiKeys.get(keyHash)
    if (sellerId === undefined) {
      sellerId = (await this.#ports.store.findApiKey(keyHash))?.seller_id
      if (sellerId === undefined) return undefined
      this.#apiKeys.set(keyHash, sellerId)
    }
    return this.get(sellerId)
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
    const { store } = this.#ports
    const seller = await store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    const merged = [...new Set([...seller.origins, ...origins.map(normaliseOrigin)])]
    if (merged.length !== seller.origins.length) await store.updateSellerOrigins(sellerId, merged)
    this.#origins = null
    this.#sellers.delete(sellerId)
  }

  async count(): Promise<number> { return (await this.#ports.store.listSellers()).length }

  /** CORS preflights carry no credentials, so an origin passes when any seller lists it; the real call is checked per seller. */
  async isAllowedOrigin(origin: string): Promise<boolean> {
    const now = this.#ports.clock.now().getTime()
    if (!this.#origins || now - this.#origins.at > 10_000) {
      this.#origins = { at: now, set: new Set((await this.#ports.store.listSellers()).flatMap((s) => s.origins)) }
    }
    return this.#origins.set.has(normaliseOrigin(origin))
  }
}

/** `https://Shop.example:443/` → `https://shop.example`; origins compare in this form. */
export function normaliseOrigin(origin: string): string {
  try { return new URL(origin).origin } catch { return origin }
}
