/**
 * Sellers, their API keys and their suppliers (docs/decisions.md "Real supply: a supplier per seller"), kept in
 * memory for a short while: every request names one, and they change rarely, from the operator CLI
 * (`npm run seller`), maybe in another process. Whatever the CLI changes holds on every instance within
 * SELLER_TTL_MS: a seller, its origins and each API key (with its expiry) are read from the store again at
 * most that long after they were last read, so a revoked key, or a disabled seller, stops working everywhere
 * within 10 s.
 */
import { LRUCache } from 'lru-cache'
import type { ApiKeyRecord, SealedSecret, SellerRecord, SellerSupplier, TripRecord } from '../ports/records.ts'
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
export interface SupplierChoice {
  name: string
  credentials?: string
}

export interface NewSeller {
  name: string
  origins: string[]
  sandbox: boolean
  /** The first API key (the demo hosts give their own); a new random one by default. */
  apiKey?: string
  /** Default: the sandbox airline, without credentials (a sandbox seller's only: a live seller must name one). */
  supplier?: SupplierChoice
}

/**
 * What an update changes. Origins removed must be the seller's; a supplier is checked as at creation (the
 * same supplier without new credentials keeps the ones it has; one the seller has a kept token of takes it
 * up again). Switching supplier keeps the one left's sealed credentials (`kept_credentials`) unless
 * `removeToken`, which removes every token of a supplier the seller does not sell from after the update.
 * A switch, or a removal, is refused while the seller has trips not yet fulfilled on what it leaves
 * (`notYetFulfilled`), unless `force`.
 */
export interface SellerChange {
  addOrigins?: string[]
  removeOrigins?: string[]
  supplier?: SupplierChoice
  removeToken?: boolean
  force?: boolean
}

/** What an update did, beside the seller it left. */
export interface UpdatedSeller {
  seller: SellerRecord
  /**
   * With `force`: the trips not yet fulfilled the switch (or removal) went ahead despite, on the suppliers
   * left (each still served by its supplier, with a kept token if it has one); null when there were none,
   * or the supplier did not change.
   */
  unfinished: UnfinishedTrips | null
}

/**
 * Trips not yet fulfilled (`notYetFulfilled`) of a seller: how many, the first few ids, on which suppliers,
 * and which of those suppliers the change leaves unable to serve them (a token they need gone).
 */
export interface UnfinishedTrips {
  count: number
  tripIds: string[]
  suppliers: string[]
  stranded: string[]
}

/** An API key as shown to the operator: never the key, nor its hash. */
export interface KeyInfo {
  prefix: string
  created_at: string
  expires_at: string | null
}

/**
 * What a key is now: `active` (never expires), `grace` (rotated away, works until its `expires_at`),
 * `revoked` (stopped by revoke-key at `revoked_at`) or `expired` (its grace period ended).
 */
export type KeyState = 'active' | 'grace' | 'revoked' | 'expired'

/** A key as listed: with its state, and when it was revoked (null unless `revoked`). */
export interface ListedKey extends KeyInfo {
  state: KeyState
  revoked_at: string | null
}

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

export interface SellerListing {
  seller: SellerRecord
  keys: ListedKey[]
}

/** Whether `disable` or `enable` changed the seller (false: it was so already), and the seller now. */
export interface SellerSwitch {
  seller: SellerRecord
  changed: boolean
}

const keyInfo = (k: ApiKeyRecord): KeyInfo => ({ prefix: k.prefix, created_at: k.created_at, expires_at: k.expires_at })
const works = (k: ApiKeyRecord, now: string) => k.expires_at === null || k.expires_at > now
/** A key's state at `now` (a revocation is recorded; an expiry alone is a grace period's end). */
function keyState(k: ApiKeyRecord, now: string): KeyState {
  if (k.revoked_at !== undefined) return 'revoked'
  return k.expires_at === null ? 'active' : k.expires_at > now ? 'grace' : 'expired'
}
const listedKey = (k: ApiKeyRecord, now: string): ListedKey => ({
  ...keyInfo(k),
  state: keyState(k, now),
  revoked_at: k.revoked_at ?? null,
})

/** Order statuses after which the supplier has nothing left to do for the order (unless it is cancelled later). */
const FINAL_ORDER_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled'])

/**
 * A trip not yet fulfilled, as `npm run seller -- update --supplier` counts it: its first departure is
 * still ahead (a trip with no readable departure time counts as ahead), and it has an extra in its basket
 * not yet ordered (any item but the ticket, which is never ordered here), or an order not final (one
 * `awaiting_ticketing`, `queued`, `in_progress` or `cancelling`; `succeeded`, `failed` and `cancelled` are
 * final). Such a trip still needs its supplier: its checks, its fulfill and its orders call it.
 */
export function notYetFulfilled(trip: TripRecord, now: Date): boolean {
  const departures = trip.journeys
    .flatMap((j) => j.segments.map((seg) => Date.parse(seg.departure_time)))
    .filter((t) => !Number.isNaN(t))
  if (departures.length && Math.min(...departures) <= now.getTime()) return false
  return (
    Object.values(trip.basket).some((item) => item.product_type !== 'ticket' && item.order_id === undefined) ||
    Object.values(trip.orders).some((o) => !FINAL_ORDER_STATUSES.has(o.status))
  )
}

/** The words of `notYetFulfilled`, for the operator. */
export const NOT_YET_FULFILLED =
  'trips whose first departure is still ahead and that have an extra in the basket not yet ordered, or an order not final (awaiting_ticketing, queued, in_progress or cancelling)'
/** How many trip ids a refusal names. */
const TRIPS_NAMED = 5
/** Trips read from the store at once while looking for trips not yet fulfilled. */
const TRIPS_PAGE = 200
/**
 * The one key of a seller that `given` names: the whole key, or its prefix as listed (or the start of it).
 * None, or several, is an error that says so.
 */
function findKey(sellerId: string, keys: ApiKeyRecord[], given: string): ApiKeyRecord {
  const whole = keys.find((k) => k.key_hash === sha256Hex(given))
  if (whole) return whole
  const found = given ? keys.filter((k) => k.prefix.startsWith(given) || given.startsWith(k.prefix)) : []
  const listed = keys.map((k) => k.prefix).join(', ') || 'none'
  if (found.length === 0)
    throw new ProblemError('not_found', `Seller ${sellerId} has no API key with prefix ${given} (its keys: ${listed}).`)
  if (found.length > 1) {
    throw new ProblemError(
      'validation_error',
      `Prefix ${given} names ${found.length} keys of seller ${sellerId} (${found.map((k) => `${k.prefix} created ${k.created_at}`).join(', ')}): give the whole prefix, or the whole key.`,
    )
  }
  return found[0]!
}

/** Whether two sets of kept credentials are the same: the same suppliers, each with the same sealed value. */
const sameKept = (a: Record<string, SealedSecret>, b: Record<string, SealedSecret>) => {
  const entries = (x: Record<string, SealedSecret>) =>
    JSON.stringify(Object.entries(x).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)))
  return entries(a) === entries(b)
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
  #credentials = new LRUCache<string, { value: string; at: number }>({
    max: 1_000,
    ttl: SELLER_TTL_MS,
    ttlAutopurge: true,
  })
  #sealer: Sealer | null | undefined

  constructor(ports: Ports) {
    this.#ports = ports
  }

  /**
   * A new seller and its first API key. Its supplier is checked before anything is stored: offered here,
   * and the adapter takes the credentials for a seller of this kind (a live seller never gets the sandbox
   * airline, by choice or by default: it names a real supplier and its token, or is refused); credentials
   * are sealed under SIGNING_KEY_SECRET, and refused without it.
   */
  async create(input: NewSeller): Promise<{ seller: SellerRecord; apiKey: string }> {
    const { store, clock, ids } = this.#ports
    const apiKey = input.apiKey ?? `svc_${input.sandbox ? 'test' : 'live'}_${ids.secret(24)}`
    if (apiKey.length < 16 || /[\s:]/.test(apiKey))
      throw new ProblemError('validation_error', 'An API key needs at least 16 characters and no spaces or colons.')
    if (!input.sandbox && !input.supplier) {
      throw new ProblemError(
        'validation_error',
        "A live seller needs a real supplier: the sandbox airline sells simulated offers and cannot serve live trips. Pass the real supplier and the seller's own token for it, e.g. --supplier duffel --duffel-token duffel_live_… (--duffel-token - reads it from standard input); only a sandbox seller (--sandbox) may start without one.",
      )
    }
    const now = clock.now().toISOString()
    const sellerId = ids.uuid()
    const supplier = input.supplier
      ? await this.#supplier(sellerId, input.sandbox, input.supplier)
      : { ...DEFAULT_SUPPLIER }
    const seller: SellerRecord = {
      seller_id: sellerId,
      name: input.name,
      origins: [...new Set(input.origins.map(normaliseOrigin))],
      sandbox: input.sandbox,
      supplier,
      created_at: now,
    }
    await store.createSeller(seller)
    await store.addApiKey({
      key_hash: sha256Hex(apiKey),
      seller_id: seller.seller_id,
      prefix: apiKey.slice(0, 12),
      created_at: now,
      expires_at: null,
    })
    this.#origins = null
    return { seller, apiKey }
  }

  /**
   * Changes a seller's origins and supplier; what changed holds here at once, on other instances within
   * SELLER_TTL_MS. A live seller is never left without a real supplier; a switch of supplier (or the removal
   * of a kept token) waits for the trips not yet fulfilled on what it leaves, unless `force`.
   */
  async update(sellerId: string, change: SellerChange): Promise<UpdatedSeller> {
    const { store } = this.#ports
    const seller = await store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    const next: { origins?: string[]; supplier?: SellerSupplier; kept_credentials?: Record<string, SealedSecret> } = {}
    if (change.addOrigins?.length || change.removeOrigins?.length) {
      const merged = [...new Set([...seller.origins, ...(change.addOrigins ?? []).map(normaliseOrigin)])]
      const remove = new Set((change.removeOrigins ?? []).map(normaliseOrigin))
      const unknown = [...remove].filter((o) => !merged.includes(o))
      if (unknown.length) {
        throw new ProblemError(
          'validation_error',
          `${unknown.join(', ')} ${unknown.length === 1 ? 'is not an origin' : 'are not origins'} of seller ${sellerId} (its origins: ${seller.origins.join(', ') || 'none'}).`,
        )
      }
      const origins = merged.filter((o) => !remove.has(o))
      if (origins.length !== seller.origins.length || origins.some((o, i) => o !== seller.origins[i]))
        next.origins = origins
    }
    const keptBefore = seller.kept_credentials ?? {}
    let kept = { ...keptBefore }
    let supplier = seller.supplier
    if (change.supplier) {
      supplier = await this.#supplier(
        sellerId,
        seller.sandbox,
        change.supplier,
        seller.supplier,
        keptBefore[change.supplier.name],
      )
      // The supplier left keeps its sealed credentials; the one taken (back) up holds its own in `supplier`.
      if (supplier.name !== seller.supplier.name && seller.supplier.credentials)
        kept[seller.supplier.name] = seller.supplier.credentials
      delete kept[supplier.name]
    }
    let removed: string[] = []
    if (change.removeToken) {
      removed = Object.keys(kept)
      if (!removed.length) {
        throw new ProblemError(
          'validation_error',
          `Seller ${sellerId} keeps no token of a supplier it does not sell from${change.supplier ? ' after this update' : ''}: --remove-token has nothing to remove (the token of the supplier it sells from is replaced by giving a new one, never removed).`,
        )
      }
      kept = {}
    }
    this.#assertRealForLive(sellerId, seller.sandbox, supplier)
    // What the change leaves: on a switch, every trip not on the new supplier (it stays on its own); on a
    // removal, the trips of the suppliers whose token goes.
    const switched = supplier.name !== seller.supplier.name
    const unfinished =
      switched || removed.length
        ? await this.#unfinishedTrips(
            sellerId,
            (name) => name !== supplier.name && (switched || removed.includes(name)),
          )
        : null
    if (unfinished) {
      // A supplier still serves them with a kept token, or when it needs none (the sandbox airline, for a sandbox seller).
      const served = (name: string) =>
        kept[name] !== undefined || this.#ports.suppliers.get(name)?.credentialsProblem(null, seller.sandbox) === null
      unfinished.stranded = unfinished.suppliers.filter((n) => !served(n))
    }
    if (unfinished && !change.force) {
      const on = unfinished.suppliers.join(' and ')
      const fate = !unfinished.stranded.length
        ? `They would stay on ${on}${unfinished.suppliers.some((n) => kept[n]) ? ', served with its kept token' : ''}, while new trips go to ${supplier.name}.`
        : `They would stay on ${on}, and ${unfinished.stranded.join(' and ')} would have no token for them: their checks, fulfillment and orders would fail (supplier_not_configured).`
      throw new ProblemError(
        'validation_error',
        `Seller ${sellerId} has ${unfinished.count} trip${unfinished.count === 1 ? '' : 's'} not yet fulfilled on ${on} (${NOT_YET_FULFILLED}): ${unfinished.tripIds.join(', ')}${unfinished.count > unfinished.tripIds.length ? ', …' : ''}. ${fate} Run this again once they are fulfilled or have departed, or add --force to ${switched ? 'switch' : 'remove the token'} now.`,
      )
    }
    if (supplier !== seller.supplier) next.supplier = supplier
    if (!sameKept(kept, keptBefore)) next.kept_credentials = kept
    if (next.origins || next.supplier || next.kept_credentials) await store.updateSeller(sellerId, next)
    this.#origins = null
    this.#sellers.delete(sellerId)
    const updated: SellerRecord = { ...seller, ...next }
    if (next.kept_credentials && !Object.keys(kept).length) delete updated.kept_credentials
    return { seller: updated, unfinished }
  }

  /**
   * Disables the seller (`disabled: true`) or enables it again. While disabled, every request made with one
   * of its API keys, trip creation tokens or trip access tokens is refused with 403 `seller_disabled`: here
   * at once, on other instances within SELLER_TTL_MS. Nothing else changes: its keys and tokens work again
   * once it is enabled (those that have not expired, nor been revoked, meanwhile).
   */
  async setDisabled(sellerId: string, disabled: boolean): Promise<SellerSwitch> {
    const { store, clock } = this.#ports
    const seller = await store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    this.#sellers.delete(sellerId)
    if ((seller.disabled_at !== undefined) === disabled) return { seller, changed: false }
    const at = disabled ? clock.now().toISOString() : null
    await store.updateSeller(sellerId, { disabled_at: at })
    const updated: SellerRecord = { ...seller }
    if (at) updated.disabled_at = at
    else delete updated.disabled_at
    return { seller: updated, changed: true }
  }

  /**
   * The seller's trips not yet fulfilled (`notYetFulfilled`) whose supplier `concerns` names, read a page at
   * a time; null when there are none. Reads every trip of the seller: the operator's question, never a request's.
   */
  async #unfinishedTrips(sellerId: string, concerns: (supplier: string) => boolean): Promise<UnfinishedTrips | null> {
    const now = this.#ports.clock.now()
    const found: UnfinishedTrips = { count: 0, tripIds: [], suppliers: [], stranded: [] }
    let after: string | undefined
    for (;;) {
      const page = await this.#ports.store.listSellerTrips(sellerId, {
        ...(after === undefined ? {} : { after }),
        limit: TRIPS_PAGE,
      })
      for (const trip of page) {
        const name = trip.supplier ?? 'sandbox'
        if (!concerns(name) || !notYetFulfilled(trip, now)) continue
        found.count++
        if (found.tripIds.length < TRIPS_NAMED) found.tripIds.push(trip.trip_id)
        if (!found.suppliers.includes(name)) found.suppliers.push(name)
      }
      if (page.length < TRIPS_PAGE) break
      after = page[page.length - 1]!.trip_id
    }
    return found.count ? found : null
  }

  /** A live seller is left with a real supplier only: one offered here whose offers are not simulated. */
  #assertRealForLive(sellerId: string, sandbox: boolean, supplier: SellerSupplier): void {
    if (sandbox) return
    const adapter = this.#ports.suppliers.get(supplier.name)
    if (adapter && !adapter.capabilities.simulated) return
    const what = adapter
      ? `its supplier ${supplier.name} sells simulated offers`
      : `its supplier "${supplier.name}" is not one this service offers`
    throw new ProblemError(
      'validation_error',
      `Seller ${sellerId} is live and would be left without a real supplier: ${what} and cannot serve live trips. Pass its real supplier and the seller's own token for it with this update, e.g. --supplier duffel --duffel-token duffel_live_… (--duffel-token - reads it from standard input).`,
    )
  }

  /**
   * The seller's credentials for a supplier (its current one by default; another it switched away from, by
   * its kept credentials), unsealed for a call to it; null when it has none. Kept unsealed in memory
   * SELLER_TTL_MS at most.
   */
  async credentials(seller: SellerRecord, supplierName: string = seller.supplier.name): Promise<string | null> {
    const sealed =
      supplierName === seller.supplier.name
        ? seller.supplier.credentials
        : (seller.kept_credentials?.[supplierName] ?? null)
    if (!sealed) return null
    const aad = credentialsAad(seller.seller_id, supplierName)
    const cacheKey = `${aad}\n${sealed.iv}.${sealed.data}`
    const now = this.#ports.clock.now().getTime()
    const hit = this.#credentials.get(cacheKey)
    if (hit && now - hit.at < SELLER_TTL_MS && now >= hit.at) return hit.value
    const sealer = this.#getSealer()
    const what = `The ${supplierName} credentials of seller ${seller.seller_id}`
    if (!sealer)
      throw new ProblemError(
        'internal',
        `${what} are sealed, and SIGNING_KEY_SECRET is not set: set it to the secret they were sealed with.`,
      )
    let value: string
    try {
      value = await sealer.unseal(sealed, aad)
    } catch {
      throw new ProblemError(
        'internal',
        `${what} cannot be unsealed: SIGNING_KEY_SECRET is not the secret they were sealed with.`,
      )
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
      kept = keys.reduce<ApiKeyRecord | null>(
        (a, k) =>
          !a || k.created_at > a.created_at || (k.created_at === a.created_at && k.expires_at === null) ? k : a,
        null,
      )
      targets = keys.filter((k) => k !== kept)
    }
    const revoked = targets.filter((k) => works(k, now))
    if (revoked.length)
      await store.revokeApiKeys(
        sellerId,
        revoked.map((k) => k.key_hash),
        now,
      )
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

  /** Every seller with its keys (prefixes, expiry and state now), oldest first. */
  async list(): Promise<SellerListing[]> {
    const { store, clock } = this.#ports
    const sellers = await store.listSellers()
    const now = clock.now().toISOString()
    return Promise.all(
      sellers.map(async (seller) => ({
        seller,
        keys: (await store.listApiKeys(seller.seller_id)).map((k) => listedKey(k, now)),
      })),
    )
  }

  /** One seller with its keys, as `list` shows each. */
  async show(sellerId: string): Promise<SellerListing> {
    const { store, clock } = this.#ports
    const seller = await store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    const now = clock.now().toISOString()
    return { seller, keys: (await store.listApiKeys(sellerId)).map((k) => listedKey(k, now)) }
  }

  /**
   * The seller's supplier for `choice`, checked and its credentials sealed; `current` when nothing would
   * change. `kept`: the seller's kept credentials for the supplier chosen, taken up again when none are given.
   */
  async #supplier(
    sellerId: string,
    sandbox: boolean,
    choice: SupplierChoice,
    current?: SellerSupplier,
    kept?: SealedSecret,
  ): Promise<SellerSupplier> {
    const { suppliers } = this.#ports
    const adapter = suppliers.get(choice.name)
    if (!adapter) {
      throw new ProblemError(
        'validation_error',
        `There is no supplier "${choice.name}": this service offers ${[...suppliers.keys()].join(', ') || 'none'}.`,
      )
    }
    // The same supplier again without new credentials keeps the ones it has (checked when they were set);
    // one switched away from before takes its kept credentials up again (the seller's mode never changes).
    if (choice.credentials === undefined && current?.name === choice.name && current.credentials !== null)
      return current
    if (choice.credentials === undefined && kept) return { name: choice.name, credentials: kept }
    const credentials = choice.credentials ?? null
    const problem =
      adapter.credentialsProblem(credentials, sandbox) ??
      (!sandbox && adapter.capabilities.simulated ? 'Its offers are simulated: it serves sandbox sellers only.' : null)
    if (problem)
      throw new ProblemError(
        'validation_error',
        `Supplier ${choice.name} cannot serve this ${sandbox ? 'sandbox' : 'live'} seller: ${problem}`,
      )
    if (credentials === null)
      return current?.name === choice.name && current.credentials === null
        ? current
        : { name: choice.name, credentials: null }
    const sealer = this.#getSealer()
    if (!sealer) {
      throw new ProblemError(
        'validation_error',
        "Supplier credentials are stored sealed under SIGNING_KEY_SECRET, which is not set: set SIGNING_KEY_SECRET (at least 32 characters, e.g. openssl rand -base64 32; the same as the server's) and run this again.",
      )
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
    await this.#ports.store.addApiKey({
      key_hash: sha256Hex(apiKey),
      seller_id: seller.seller_id,
      prefix: apiKey.slice(0, 12),
      created_at: now.toISOString(),
      expires_at: null,
    })
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
      if (!record) {
        this.#apiKeys.delete(keyHash)
        return undefined
      }
      hit = {
        sellerId: record.seller_id,
        expiresAt: record.expires_at === null ? null : Date.parse(record.expires_at),
        at: now,
      }
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

  async count(): Promise<number> {
    return (await this.#ports.store.listSellers()).length
  }

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
  try {
    return new URL(origin).origin
  } catch {
    return origin
  }
}
