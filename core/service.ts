/**
 * The application service: every operation of the API as a method over the ports. Hosts (Fastify, MSW)
 * authenticate with `authenticate`, check the operation's rule with `authorizeFor`, and call the method.
 */
import type { Clock, Ids, SellerRecord, Store, Supplier, WebhookSender } from './ports.ts'

export interface CoreConfig {
  /** Lifetimes in seconds. The spec fixes access 30 min and refresh 45 min; tests shorten them. */
  accessTokenTtl: number
  refreshTokenTtl: number
  creationTokenTtl: number
  /** How long a priced basket item stays valid (valid_to − valid_from), seconds. */
  holdWindow: number
  /** `iss` of every token. */
  issuer: string
  /** A worker holds a claimed job this long; if it dies, another worker takes the job after it. */
  jobLeaseMs: number
  /** Retries: exponential from base to cap; attempts per job kind before it is given up. */
  backoffBaseMs: number
  backoffCapMs: number
  maxAttempts: Record<JobKind, number>
  /** An Idempotency-Key reserved this long ago without an answer belonged to a process that died. */
  idempotencyStaleMs: number
  /** How long rows are kept (api.md "Retention"); the retention job deletes what is older. */
  retention: Retention
  /** Seals signing keys at rest (SIGNING_KEY_SECRET); unset, they are stored in the clear. */
  signingKeySecret?: string
  /** A signing key signs for this long, then the next one does (SIGNING_KEY_ROTATION_DAYS). */
  signingKeyRotationDays: number
}

export interface Retention {
  /** Searches, but the current search of an open trip (RETENTION_SEARCH_HOURS, at least 2). */
  searchHours: number
  /** Open (unfulfilled) trips, counted from their creation (RETENTION_TRIP_DAYS). Fulfilled trips are kept. */
  tripDays: number
  /** Idempotency records (RETENTION_IDEMPOTENCY_HOURS). */
  idempotencyHours: number
  /** Finished jobs (RETENTION_JOB_DAYS). */
  jobDays: number
}

export type JobKind = 'basket_check' | 'fulfill_order' | 'webhook'

/** What one run of the job runner did, for the worker's log (ids and outcome only, never a payload). */
export interface JobReport {
  job_id: string
  kind: string
  attempt: number
  max_attempts: number
  /** done; waiting (the supplier's answer is not ready); retry (failed, will run again); dead (given up); lease_lost. */
  outcome: 'done' | 'waiting' | 'retry' | 'dead' | 'lease_lost'
  error?: string
  retry_at?: string
}
export const JOB_KINDS: JobKind[] = ['basket_check', 'fulfill_order', 'webhook']

export const defaultConfig: CoreConfig = {
  accessTokenTtl: 30 * 60,
  refreshTokenTtl: 45 * 60,
  creationTokenTtl: 10 * 60,
  holdWindow: 30 * 60,
  issuer: 'svc',
  jobLeaseMs: 60_000,
  backoffBaseMs: 2_000,
  backoffCapMs: 10 * 60_000,
  maxAttempts: { basket_check: 5, fulfill_order: 10, webhook: 12 },
  idempotencyStaleMs: 5 * 60_000,
  retention: { searchHours: 24, tripDays: 30, idempotencyHours: 24, jobDays: 7 },
  signingKeyRotationDays: 30,
}

export interface CoreDeps {
  store: Store
  supplier: Supplier
  clock: Clock
  ids: Ids
  /** Webhook delivery; `fetch` by default. */
  webhooks?: WebhookSender
  config?: Partial<CoreConfig>
}

/** Who is calling, once credentials are verified. */
export type Principal =
  | { kind: 'api_key'; seller: SellerRecord }
  | { kind: 'creation_token'; seller: SellerRecord }
  | { kind: 'access_token'; seller: SellerRecord; trip_id: string; token: string; family: string | null }

import { LRUCache } from 'lru-cache'
import type { JobRecord, PurgeCounts, RefreshTokenRecord, SearchRecord, SubscriptionRecord, SupplierSeatMap, TripEffects, TripRecord, Versioned } from './ports.ts'
import type { OperationResult, AuthRule } from './api/operations.ts'
import { ProblemError } from './errors.ts'
import { validate } from './validate.ts'
import { canonicalJson, sha256Hex } from './crypto.ts'
import { TokenService } from './auth/tokens.ts'
import { TripCreateRequest, TripPatchRequest, SearchSelection, type ProductTypeName } from './schemas/trip.ts'
import { BasketAddRequest, BasketReplaceRequest } from './schemas/basket.ts'
import { RefreshRequest } from './schemas/auth.ts'
import { buildTrip, applyTripPatch, tripRepresentation, basketView, tripStateHash, withStateHash } from './trip.ts'
import { runSearch, selectedTypes, supplierView, SearchView, typesKey } from './search.ts'
import { Rendered } from './rendered.ts'
import * as basket from './basket.ts'
import * as validity from './validity.ts'
import { acceptFulfillment, isFulfilled, moveOrder, type RaisedEvent } from './fulfillment.ts'
import { FulfillRequest, SubscriptionRequest, type WebhookEvent } from './schemas/fulfillment.ts'
import { backoffMs, fetchSender, signatureHeader } from './webhooks.ts'
import { targetPolicy, targetRefusal } from './network.ts'

/** What a change to a trip produces: the new trip, the events it raises (stored with it as webhook jobs), and what else it stores with it. */
type Change = TripRecord | { trip: TripRecord; jobs?: JobRecord[]; events?: RaisedEvent[]; effects?: Omit<TripEffects, 'jobs'> }

const MAX_RETRIES = 8
/** How long a seller read from the store is trusted (origins change from the CLI, maybe in another process). */
const SELLER_TTL_MS = 10_000
const SEAT_MAP_RESEND_MS = 3600_000

export class Core {
  readonly config: CoreConfig
  readonly tokens: TokenService
  readonly #store: Store
  readonly #supplier: Supplier
  readonly #clock: Clock
  readonly #ids: Ids
  readonly #webhooks: WebhookSender
  #origins: { at: number; set: Set<string> } | null = null
  /** Sellers by id and API-key hash → seller id: every request names one, and they change rarely. */
  #sellers = new LRUCache<string, { seller: SellerRecord; at: number }>({ max: 10_000 })
  #apiKeys = new LRUCache<string, string>({ max: 10_000 })
  /** Trips by id at their last known version (see #read). */
  #trips = new LRUCache<string, Versioned<TripRecord>>({ max: 5_000 })
  /** Searches never change once stored; a view also keeps its product ids and prices, worked out once. */
  #searches = new LRUCache<string, SearchView>({ max: 2_000 })
  /** Seat maps by key, shared by every trip on a flight. */
  #seatMaps = new LRUCache<string, SupplierSeatMap>({ max: 1_000 })
  /** When this process last stored each seat map: one is sent to the store at most hourly, not with every trip. */
  #seatMapsStored = new LRUCache<string, number>({ max: 10_000 })
  /** Rendered bodies (JSON and ETag) of searches and baskets, bounded by their size in characters. */
  #rendered = new LRUCache<string, Rendered>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (r) => r.json.length || 1 })

  constructor(deps: CoreDeps) {
    this.config = { ...defaultConfig, ...deps.config }
    this.#store = deps.store
    this.#supplier = deps.supplier
    this.#clock = deps.clock
    this.#ids = deps.ids
    this.#webhooks = deps.webhooks ?? fetchSender()
    this.tokens = new TokenService(deps.store, deps.clock, deps.ids, {
      issuer: this.config.issuer, secret: this.config.signingKeySecret, rotationDays: this.config.signingKeyRotationDays,
      maxTokenTtl: Math.max(this.config.accessTokenTtl, this.config.creationTokenTtl),
    })
  }

  // ------------------------------------------------------------ sellers and credentials

  ensureSigningKey() { return this.tokens.ensureSigningKey() }

  async createSeller(input: { name: string; origins: string[]; sandbox: boolean; apiKey?: string }): Promise<{ seller: SellerRecord; apiKey: string }> {
    const apiKey = input.apiKey ?? `svc_${input.sandbox ? 'test' : 'live'}_${this.#ids.secret(24)}`
    if (apiKey.length < 16 || /[\s:]/.test(apiKey)) throw new ProblemError('validation_error', 'An API key needs at least 16 characters and no spaces or colons.')
    const now = this.#clock.now().toISOString()
    const seller: SellerRecord = {
      seller_id: this.#ids.uuid(), name: input.name, origins: input.origins.map(normaliseOrigin), sandbox: input.sandbox, created_at: now,
    }
    await this.#store.createSeller(seller)
    await this.#store.addApiKey({ key_hash: sha256Hex(apiKey), seller_id: seller.seller_id, prefix: apiKey.slice(0, 12), created_at: now })
    this.#origins = null
    return { seller, apiKey }
  }

  /**
   * Issues one more API key for an existing seller (its earlier keys keep working), shown once and stored
   * as its SHA-256 like the first. `npm start` gives its demo checkout a key this way on every start.
   */
  async addApiKey(sellerId: string): Promise<string> {
    const seller = await this.#store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    const apiKey = `svc_${seller.sandbox ? 'test' : 'live'}_${this.#ids.secret(24)}`
    await this.#store.addApiKey({ key_hash: sha256Hex(apiKey), seller_id: sellerId, prefix: apiKey.slice(0, 12), created_at: this.#clock.now().toISOString() })
    return apiKey
  }

  /** The seller an API key belongs to. A key's seller never changes, so the pair is kept; unknown keys are not. */
  async findSellerByApiKey(apiKey: string): Promise<SellerRecord | undefined> {
    const keyHash = sha256Hex(apiKey)
    let sellerId = this.#apiKeys.get(keyHash)
    if (sellerId === undefined) {
      sellerId = (await this.#store.findApiKey(keyHash))?.seller_id
      if (sellerId === undefined) return undefined
      this.#apiKeys.set(keyHash, sellerId)
    }
    return this.#seller(sellerId)
  }

  /** A seller, read from the store at most every SELLER_TTL_MS. */
  async #seller(sellerId: string): Promise<SellerRecord | undefined> {
    const now = this.#clock.now().getTime()
    const hit = this.#sellers.get(sellerId)
    if (hit && now - hit.at < SELLER_TTL_MS && now >= hit.at) return hit.seller
    const seller = await this.#store.getSeller(sellerId)
    if (seller) this.#sellers.set(sellerId, { seller, at: now })
    else this.#sellers.delete(sellerId)
    return seller
  }

  async addSellerOrigins(sellerId: string, origins: string[]): Promise<void> {
    const seller = await this.#store.getSeller(sellerId)
    if (!seller) throw new ProblemError('not_found', `Seller ${sellerId} does not exist.`)
    const merged = [...new Set([...seller.origins, ...origins.map(normaliseOrigin)])]
    if (merged.length !== seller.origins.length) await this.#store.updateSellerOrigins(sellerId, merged)
    this.#origins = null
    this.#sellers.delete(sellerId)
  }

  async sellerCount(): Promise<number> { return (await this.#store.listSellers()).length }

  /** CORS preflights carry no credentials, so an origin passes when any seller lists it; the real call is checked per seller. */
  async isAllowedOrigin(origin: string): Promise<boolean> {
    const now = this.#clock.now().getTime()
    if (!this.#origins || now - this.#origins.at > 10_000) {
      this.#origins = { at: now, set: new Set((await this.#store.listSellers()).flatMap((s) => s.origins)) }
    }
    return this.#origins.set.has(normaliseOrigin(origin))
  }

  /** Verifies the Authorization header: `Basic <apiKey:>` or `Bearer <jwt>`; null when there is none. */
  async authenticate(authorization: string | undefined): Promise<Principal | null> {
    if (!authorization) return null
    // Exactly `<scheme> <credential>`. Anything after the credential is refused, not ignored: a second
    // credential (or two Authorization headers, which fetch and the Fastify host join with ", ") is
    // ambiguous, and a proxy in front may have judged the other one.
    const parts = authorization.trim().split(/\s+/)
    if (parts.length > 2) throw new ProblemError('unauthorized', 'Send one credential in one Authorization header: "Basic <base64 of key:>" or "Bearer <token>".')
    const [scheme, value = ''] = parts
    if (/^basic$/i.test(scheme ?? '')) {
      let decoded: string
      try { decoded = atob(value) } catch { throw new ProblemError('unauthorized', 'The Basic credentials are not valid base64.') }
      // The contract: the key is the user name and the password is empty, so `key:` exactly (keys have no colon).
      const colon = decoded.indexOf(':')
      if (colon < 1 || colon !== decoded.length - 1) {
        throw new ProblemError('unauthorized', 'Send the API key as the Basic user name with an empty password (base64 of "<key>:").')
      }
      const seller = await this.findSellerByApiKey(decoded.slice(0, colon))
      if (!seller) throw new ProblemError('unauthorized', 'The API key is not valid.')
      return { kind: 'api_key', seller }
    }
    if (/^bearer$/i.test(scheme ?? '')) {
      const claims = await this.tokens.verify(value)
      const seller = await this.#seller(claims.sid)
      if (!seller) throw new ProblemError('unauthorized', 'The token is not valid.')
      if (claims.token_use === 'trip_creation') return { kind: 'creation_token', seller }
      if (!claims.sub) throw new ProblemError('unauthorized', 'The token is not valid.')
      return { kind: 'access_token', seller, trip_id: claims.sub, token: value, family: typeof claims.fam === 'string' ? claims.fam : null }
    }
    throw new ProblemError('unauthorized', 'Use HTTP Basic with the API key, or a Bearer token.')
  }

  /** The permission matrix of design/api.md. */
  authorizeFor(rule: AuthRule, principal: Principal | null, params: Record<string, string>, origin: string | undefined): void {
    if (rule === 'public') return
    if (!principal) throw new ProblemError('unauthorized', 'Credentials are required: HTTP Basic with the API key, or a Bearer token.')
    if (origin && principal.kind === 'api_key') {
      throw new ProblemError('forbidden', 'API keys are for server-to-server calls only; a browser must use a trip access token.')
    }
    if (origin && !principal.seller.origins.includes(normaliseOrigin(origin))) {
      throw new ProblemError('forbidden', `Origin ${origin} is not allowed for this seller.`)
    }
    const kind = principal.kind
    const allowed = rule === 'api_key' ? kind === 'api_key'
      : rule === 'creator' ? kind === 'api_key' || kind === 'creation_token'
      : kind === 'api_key' || kind === 'access_token'
    if (!allowed) {
      const what = { api_key: 'the API key', creation_token: 'a trip creation token', access_token: 'a trip access token' }[kind]
      throw new ProblemError('forbidden', `This operation cannot be done with ${what}.`)
    }
    if (principal.kind === 'access_token' && params.trip_id !== undefined && params.trip_id !== principal.trip_id) {
      throw new ProblemError('not_found', `Trip ${params.trip_id} does not exist.`)
    }
  }

  /** Replays the first answer for a repeated Idempotency-Key; the same key with another body is refused. */
  async idempotent(principal: Principal, operationId: string, key: string | undefined, body: unknown, run: () => Promise<OperationResult>): Promise<OperationResult> {
    if (key === undefined) return run()
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw new ProblemError('validation_error', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.', [{ path: 'header:Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }])
    const scope = `${principal.seller.seller_id}:${operationId}`
    const request_hash = sha256Hex(canonicalJson(body))
    const now = this.#clock.now()
    const existing = await this.#store.reserveIdempotency(
      { scope, key, request_hash, response: null, created_at: now.toISOString() },
      new Date(now.getTime() - this.config.idempotencyStaleMs))
    if (existing) {
      if (existing.request_hash !== request_hash) throw new ProblemError('idempotency_conflict', 'This Idempotency-Key was used with a different request body.')
      if (!existing.response) throw new ProblemError('idempotency_conflict', 'A request with this Idempotency-Key is still being processed; retry shortly.')
      return { ...(await this.#withFreshSession(existing.response)), headers: { 'Idempotent-Replayed': 'true' } }
    }
    try {
      const result = await run()
      await this.#store.completeIdempotency(scope, key, { status: result.status, body: withoutSessionSecrets(result.body) })
      return result
    } catch (e) {
      // A refused request changed nothing, so the key is free for a corrected retry.
      await this.#store.releaseIdempotency(scope, key)
      throw e
    }
  }

  // ------------------------------------------------------------ operations

  async authorize(p: Principal) {
    return {
      token_type: 'Bearer' as const,
      trip_creation_token: await this.tokens.sign('trip_creation', p.seller.seller_id, this.config.creationTokenTtl),
      expires_in: this.config.creationTokenTtl,
    }
  }

  async createTrip(p: Principal, body: unknown) {
    const req = validate(TripCreateRequest, body)
    const now = this.#clock.now()
    const trip = buildTrip(req, {
      sellerId: p.seller.seller_id, sandbox: p.seller.sandbox, clock: this.#clock, ids: this.#ids, holdWindow: this.config.holdWindow,
    })
    const types = selectedTypes(req.search)
    const found = types.length ? await runSearch(trip, types, { supplier: this.#supplier, clock: this.#clock, searchId: this.#ids.uuid() }) : null
    if (found) trip.search_id = found.search.search_id
    const session = this.#newSession(trip, this.#ids.uuid())
    // One transaction: the trip, its search (and the seat maps not stored yet), the session's refresh token.
    const stored = withStateHash(trip, now)
    const effects: TripEffects = { ...this.#searchEffects(found), refreshToken: session.record }
    await this.#store.insertTrip(stored, effects)
    this.#stored(effects)
    this.#keep({ value: stored, version: 1 })
    // The contract shows an empty basket in the create response; the ticket items are there from the first read.
    return tripRepresentation(stored, now, { ...(await session.tokens()), emptyBasket: true })
  }

  async getTrip(p: Principal, tripId: string) {
    const { value } = await this.#load(p, tripId)
    return tripRepresentation(value, this.#clock.now(), { trip_access_token: await this.#accessTokenFor(p, value) })
  }

  /** Passenger data changes; the items that depend on the changed passengers are checked again. */
  async patchTrip(p: Principal, tripId: string, body: unknown) {
    const patch = validate(TripPatchRequest, body)
    const trip = await this.#mutate(p, tripId, (t) => {
      if (isFulfilled(t)) throw new ProblemError('trip_state_conflict', 'The trip has been fulfilled; passengers can no longer change here.')
      const now = this.#clock.now()
      const { trip: patched, changedPassengers } = applyTripPatch(t, patch, now)
      return this.#check({ ...patched, updated_at: now.toISOString() }, validity.itemsOfPassengers(patched, changedPassengers))
    })
    return tripRepresentation(trip, this.#clock.now(), { trip_access_token: await this.#accessTokenFor(p, trip) })
  }

  /** Starts revalidating the basket in the background: items become `checking`; poll GET .../basket. */
  async checkBasket(p: Principal, tripId: string) {
    const trip = await this.#mutate(p, tripId, (t) => {
      if (isFulfilled(t)) throw new ProblemError('trip_state_conflict', 'The trip has been fulfilled; its basket is final.')
      return this.#check(t, validity.checkableItems(t))
    })
    return basketView(trip, this.#clock.now())
  }

  async acceptItem(p: Principal, tripId: string, itemId: string) {
    const trip = await this.#mutate(p, tripId, (t) => validity.acceptPrice(t, itemId, this.#clock.now()))
    return basketView(trip, this.#clock.now())
  }

  /** After the charge: books the tickets, queues an order per ancillary, answers `queued`. */
  async fulfill(p: Principal, tripId: string, body: unknown) {
    const req = validate(FulfillRequest, body)
    let fulfillment_id = ''
    await this.#mutate(p, tripId, async (t) => {
      const now = this.#clock.now()
      const r = acceptFulfillment(t, req, { now, currentHash: tripStateHash(t, now), newId: () => this.#ids.uuid() })
      fulfillment_id = r.fulfillment.fulfillment_id
      return { trip: r.trip, events: r.events, jobs: r.orders.map((o) => this.#job('fulfill_order', { trip_id: t.trip_id, order_id: o.order_id })) }
    })
    return { status: 'queued' as const, fulfillment_id }
  }

  async createSubscription(p: Principal, body: unknown) {
    const req = validate(SubscriptionRequest, body)
    const url = new URL(req.target)
    const httpAllowed = p.seller.sandbox && url.protocol === 'http:'
    if ((url.protocol !== 'https:' && !httpAllowed) || url.username || url.password) {
      throw new ProblemError('validation_error', 'The target must be an https URL without credentials (http is allowed for sandbox sellers).', [{ path: '/target', message: 'must be an https URL without credentials' }])
    }
    const refused = targetRefusal(url, targetPolicy(p.seller.sandbox))
    if (refused) {
      throw new ProblemError('validation_error', `The target must be reachable on the internet: ${refused} (loopback is allowed for sandbox sellers).`, [{ path: '/target', message: 'must not be a private, loopback or link-local address' }])
    }
    const sub: SubscriptionRecord = {
      subscription_id: this.#ids.uuid(), seller_id: p.seller.seller_id, event_name: req.event_name, delivery_method: 'http',
      target: url.toString(), secret: `whsec_${this.#ids.secret(24)}`, created_at: this.#clock.now().toISOString(),
    }
    await this.#store.addSubscription(sub)
    return { ...publicSubscription(sub), secret: sub.secret }
  }

  async listSubscriptions(p: Principal) {
    return { subscriptions: (await this.#store.listSubscriptions(p.seller.seller_id)).map(publicSubscription) }
  }

  async deleteSubscription(p: Principal, subscriptionId: string) {
    if (!(await this.#store.deleteSubscription(p.seller.seller_id, subscriptionId))) {
      throw new ProblemError('not_found', `Subscription ${subscriptionId} does not exist.`)
    }
    return null
  }

  async startSearch(p: Principal, tripId: string, body: unknown) {
    const types = selectedTypes(validate(SearchSelection, body))
    if (types.length === 0) throw new ProblemError('validation_error', 'Select at least one product type, e.g. {"bag": {"search": true}}.', [{ path: '/', message: 'no product type has search: true' }])
    const { value } = await this.#load(p, tripId)
    const found = await runSearch(value, types, { supplier: this.#supplier, clock: this.#clock, searchId: this.#ids.uuid() })
    // A search that succeeded becomes the trip's, in the transaction that stores it; a failed one is only kept to be read.
    if (found.search.status === 'success') {
      // Its offers are the airline's newer word: what earlier checks found of the products no longer holds.
      await this.#mutate(p, tripId, ({ checked_offers: _c, ...t }) => ({ trip: { ...t, search_id: found.search.search_id }, effects: this.#searchEffects(found) }))
    } else {
      await this.#store.putSearch(found.search)
    }
    return { search_id: found.search.search_id, status: found.search.status }
  }

  /** The search as the API shows it; `types` narrows the products to those types, and leaves out seat maps unless `seat` is one. */
  async getSearch(p: Principal, tripId: string, searchId: string, types?: ProductTypeName[]) {
    const { value } = await this.#load(p, tripId)
    return (await this.#searchView(value, searchId)).render(types)
  }

  /**
   * The search body rendered once (a search never changes) and kept: repeated reads of a trip's offers cost
   * a lookup. The ETag names the content, so a client's copy is revalidated with a 304.
   */
  async readSearch(p: Principal, tripId: string, searchId: string, types?: ProductTypeName[]): Promise<Rendered> {
    const { value } = await this.#load(p, tripId)
    // Keyed by the trip too: a hit skips #searchView, whose check that the search is this trip's is what
    // keeps another trip's (or seller's) search from being read under this trip's path.
    const key = `${tripId}/${searchId}/${typesKey(types)}`
    let rendered = this.#rendered.get(key)
    if (!rendered) {
      const json = JSON.stringify((await this.#searchView(value, searchId)).render(types))
      rendered = new Rendered(json, `W/"${sha256Hex(json).slice(0, 32)}"`)
      this.#rendered.set(key, rendered)
    }
    return rendered
  }

  async getBasket(p: Principal, tripId: string) {
    const { value } = await this.#load(p, tripId)
    return basketView(value, this.#clock.now())
  }

  /**
   * The basket rendered, with its ETag: the trip's version and state hash, which together change whenever
   * the body does (a write bumps the version; an item passing valid_to changes the hash). So the rendered
   * body is kept under it, and a widget polling an unchanged basket costs one small query.
   */
  async readBasket(p: Principal, tripId: string): Promise<Rendered> {
    const { value, version } = await this.#load(p, tripId)
    const now = this.#clock.now()
    const etag = `W/"${version}.${tripStateHash(value, now).slice(0, 16)}"`
    const key = `${tripId}/${etag}`
    let rendered = this.#rendered.get(key)
    if (!rendered) {
      rendered = new Rendered(JSON.stringify(basketView(value, now)), etag)
      this.#rendered.set(key, rendered)
    }
    return rendered
  }

  async addToBasket(p: Principal, tripId: string, body: unknown) {
    const lines = validate(BasketAddRequest, body)
    return this.#changeBasket(p, tripId, (t, s, ctx) => basket.addToBasket(t, s, lines, ctx))
  }

  async replaceBasket(p: Principal, tripId: string, body: unknown) {
    const lines = validate(BasketReplaceRequest, body)
    return this.#changeBasket(p, tripId, (t, s, ctx) => basket.replaceBasket(t, s, lines, ctx))
  }

  async removeFromBasket(p: Principal, tripId: string, itemId: string) {
    return this.#changeBasket(p, tripId, (t, _s, ctx) => basket.removeFromBasket(t, itemId, ctx))
  }

  async refresh(body: unknown) {
    const { refresh_token } = validate(RefreshRequest, body)
    const now = this.#clock.now()
    const r = await this.#store.consumeRefreshToken(sha256Hex(refresh_token), now)
    if (r.status === 'unknown') throw new ProblemError('unauthorized', 'The refresh token is not valid.')
    if (r.status === 'revoked') throw new ProblemError('unauthorized', 'The refresh token has been revoked.')
    // Left unused by the store, so a retry with it is refused the same way, not taken for a reuse.
    if (r.status === 'expired') throw new ProblemError('token_expired', 'The refresh token has expired.')
    if (r.status === 'reused') {
      // A used token presented again means it leaked: end the whole session, the thief's and the owner's,
      // refresh tokens and access tokens alike (the trip records the family, which every instance reads).
      await this.#store.revokeRefreshFamily(r.record.family_id, now)
      await this.#mutate(null, r.record.trip_id, (t) => (t.revoked_families ?? []).includes(r.record.family_id) ? t
        : { ...t, revoked_families: [...(t.revoked_families ?? []), r.record.family_id] }).catch((e: unknown) => {
        if (!(e instanceof ProblemError && e.code === 'not_found')) throw e
      })
      throw new ProblemError('unauthorized', 'The refresh token was already used; every token of this session is now revoked. Create the trip session again.')
    }
    const trip = await this.#read(r.record.trip_id)
    if (!trip || (trip.value.revoked_families ?? []).includes(r.record.family_id)) throw new ProblemError('unauthorized', 'The refresh token is not valid.')
    const session = this.#newSession(trip.value, r.record.family_id)
    await this.#store.insertRefreshToken(session.record)
    return { ...(await session.tokens()), expires_in: this.config.accessTokenTtl, refresh_expires_in: this.config.refreshTokenTtl }
  }

  jwks() { return this.tokens.jwks() }

  // ------------------------------------------------------------ internals

  /**
   * A session of the trip in the refresh family `familyId`: the refresh token's record, for the caller to
   * store (with the trip, when it is new), and the tokens to hand out once it is stored.
   */
  #newSession(trip: TripRecord, familyId: string): { record: RefreshTokenRecord; tokens(): Promise<{ trip_access_token: string; refresh_token: string }> } {
    const refresh_token = `rt_${this.#ids.secret(32)}`
    const record: RefreshTokenRecord = {
      token_hash: sha256Hex(refresh_token), family_id: familyId, trip_id: trip.trip_id, seller_id: trip.seller_id,
      expires_at: new Date(this.#clock.now().getTime() + this.config.refreshTokenTtl * 1000).toISOString(), used_at: null, revoked_at: null,
    }
    return {
      record,
      tokens: async () => ({ trip_access_token: await this.tokens.sign('trip_access', trip.seller_id, this.config.accessTokenTtl, trip.trip_id, familyId), refresh_token }),
    }
  }

  /**
   * What storing a search brings along: the search, and the seat maps it names that this process has not
   * stored within the hour (the store then refreshes a map's use at most hourly too, and retention only
   * removes maps unused for RETENTION_SEARCH_HOURS ≥ 2, so a map sent within the hour is still there).
   */
  #searchEffects(found: { search: SearchRecord; seatMaps: SupplierSeatMap[] } | null): TripEffects {
    if (!found) return {}
    const now = this.#clock.now().getTime()
    const seatMaps = found.seatMaps.filter((m) => {
      const at = this.#seatMapsStored.get(m.key)
      return at === undefined || now - at >= SEAT_MAP_RESEND_MS || now < at
    })
    return { search: found.search, seatMaps }
  }

  /** Notes the seat maps of a write that succeeded. */
  #stored(effects: TripEffects) {
    const now = this.#clock.now().getTime()
    for (const m of effects.seatMaps ?? []) {
      this.#seatMapsStored.set(m.key, now)
      this.#seatMaps.set(m.key, m)
    }
  }

  /**
   * Idempotency records never keep live tokens (that would undo hashing refresh tokens at rest): a replay
   * of a response that carried a session gets a new session for the same trip.
   */
  async #withFreshSession(response: { status: number; body: unknown }) {
    const body = response.body as Record<string, unknown> | null
    if (!body || typeof body !== 'object' || !('refresh_token' in body) || typeof body.trip_id !== 'string') return response
    const trip = await this.#read(body.trip_id)
    if (!trip) return response
    const session = this.#newSession(trip.value, this.#ids.uuid())
    await this.#store.insertRefreshToken(session.record)
    return { status: response.status, body: { ...body, ...(await session.tokens()) } }
  }

  /** A browser keeps the token it has (renewal is the refresh endpoint's job); a backend gets a fresh one. */
  async #accessTokenFor(p: Principal, trip: TripRecord) {
    return p.kind === 'access_token' ? p.token : this.tokens.sign('trip_access', trip.seller_id, this.config.accessTokenTtl, trip.trip_id, null)
  }

  /** The trip's search `searchId` with its seat maps, kept in memory once read (a search never changes). */
  async #searchView(trip: TripRecord, searchId: string): Promise<SearchView> {
    const hit = this.#searches.get(searchId)
    if (hit) {
      if (hit.record.trip_id !== trip.trip_id) throw new ProblemError('not_found', `Search ${searchId} does not exist for this trip.`)
      return hit
    }
    const record = await this.#store.getSearch(searchId)
    if (!record || record.trip_id !== trip.trip_id) throw new ProblemError('not_found', `Search ${searchId} does not exist for this trip.`)
    const keys = SearchView.mapKeys(record)
    const missing = keys.filter((k) => !this.#seatMaps.has(k))
    if (missing.length) for (const m of await this.#store.getSeatMaps(missing)) this.#seatMaps.set(m.key, m)
    const maps = new Map<string, SupplierSeatMap>()
    for (const k of keys) {
      const m = this.#seatMaps.get(k)
      if (!m) throw new Error(`seat map ${k} of search ${searchId} is missing from the store`)
      maps.set(k, m)
    }
    const view = new SearchView(record, trip, maps)
    if (record.status !== 'in_progress') this.#searches.set(searchId, view)
    return view
  }

  /** Loads a trip the caller may see; another seller's trip does not exist for it (404, so ids leak nothing). */
  /**
   * A trip as stored now. Trips are kept in memory by version and the store is asked only whether the
   * version moved (another instance wrote), so an unchanged trip costs no document to carry and parse.
   * Kept records are frozen: every rule returns a new trip, and one that mutated a kept copy would fail loudly.
   */
  async #read(tripId: string): Promise<Versioned<TripRecord> | undefined> {
    const kept = this.#trips.get(tripId)
    const found = kept ? await this.#store.getTripIfChanged(tripId, kept.version) : await this.#store.getTrip(tripId)
    if (!found) {
      this.#trips.delete(tripId)
      return undefined
    }
    if (!found.value) return kept
    return this.#keep({ value: found.value, version: found.version })
  }

  #keep(t: Versioned<TripRecord>): Versioned<TripRecord> {
    deepFreeze(t.value)
    this.#trips.set(t.value.trip_id, t)
    return t
  }

  async #load(p: Principal, tripId: string): Promise<Versioned<TripRecord>> {
    const t = await this.#read(tripId)
    if (!t || t.value.seller_id !== p.seller.seller_id) throw new ProblemError('not_found', `Trip ${tripId} does not exist.`)
    // Checked on the row just read, so a revocation on any instance holds for the next request everywhere.
    if (p.kind === 'access_token' && p.family !== null && t.value.revoked_families?.includes(p.family)) {
      throw new ProblemError('unauthorized', 'This session was revoked (its refresh token was used twice). Create the trip session again.')
    }
    return t
  }

  /**
   * Optimistic read-modify-write: a concurrent change makes the write fail, and the change is re-applied on
   * fresh state. The jobs a change asks for, and the webhook deliveries of the events it raises, are written
   * in the same transaction as the trip, so a change and its follow-up work are never parted.
   * Without a principal (the job runner) the trip is loaded as the system; an unchanged trip is not written.
   */
  async #mutate(p: Principal | null, tripId: string, change: (t: TripRecord) => Change | Promise<Change>): Promise<TripRecord> {
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      const loaded = p ? await this.#load(p, tripId) : await this.#read(tripId)
      if (!loaded) throw new ProblemError('not_found', `Trip ${tripId} does not exist.`)
      const result = await change(loaded.value)
      const { trip, jobs = [], events = [], effects = {} } = 'trip' in result ? result : { trip: result }
      if (trip === loaded.value) return trip
      const all = [...jobs, ...(await this.#eventJobs(trip, events))]
      // The state hash is worked out once here, for every read until an item's validity window passes.
      const stored = withStateHash(trip, this.#clock.now())
      const written: TripEffects = { ...effects, ...(all.length ? { jobs: all } : {}) }
      const version = await this.#store.updateTrip(stored, loaded.version, written)
      if (version !== null) {
        this.#stored(written)
        return this.#keep({ value: stored, version }).value
      }
    }
    throw new ProblemError('trip_state_conflict', 'The trip is being changed by other requests; retry the request.')
  }

  /** Items into `checking`, with the job that asks the supplier. */
  #check(trip: TripRecord, itemIds: string[]): Change {
    if (itemIds.length === 0) return trip
    const now = this.#clock.now()
    const check_id = this.#ids.uuid()
    return {
      trip: validity.startCheck(trip, itemIds, check_id, now),
      jobs: [this.#job('basket_check', { trip_id: trip.trip_id, check_id, started_at: now.toISOString() })],
    }
  }

  #job(kind: JobKind, payload: unknown, runAt = this.#clock.now()): JobRecord {
    return {
      job_id: this.#ids.uuid(), kind, payload, run_at: runAt.toISOString(), attempts: 0, max_attempts: this.config.maxAttempts[kind],
      locked_until: null, last_error: null, status: 'pending', created_at: this.#clock.now().toISOString(),
    }
  }

  /** One webhook job per subscription of the trip's seller to each event. */
  async #eventJobs(trip: TripRecord, events: RaisedEvent[]): Promise<JobRecord[]> {
    if (events.length === 0) return []
    const subs = await this.#store.listSubscriptions(trip.seller_id)
    const now = this.#clock.now().toISOString()
    return events.flatMap((e) => {
      const event: WebhookEvent = { event_id: this.#ids.uuid(), event_name: e.event_name, created_at: now, trip_id: trip.trip_id, fulfillment_id: e.fulfillment_id, data: e.data }
      return subs.filter((s) => s.event_name === e.event_name)
        .map((s) => this.#job('webhook', { seller_id: s.seller_id, subscription_id: s.subscription_id, event }))
    })
  }

  // ------------------------------------------------------------ retention

  /**
   * Deletes what the retention figures allow (the worker runs it periodically). Seat maps go once no search
   * can still name them: a search lives at most as long as the longer of the two windows, and names a map
   * its process stored within the hour before (see #searchEffects), so two hours of margin.
   */
  async purgeExpired(): Promise<PurgeCounts> {
    // The retention tick is also when a signing key past its rotation period is replaced.
    await this.tokens.ensureSigningKey()
    const now = this.#clock.now().getTime()
    const r = this.config.retention
    const HOUR = 3600_000
    const ago = (ms: number) => new Date(now - ms)
    return this.#store.purge({
      tripsBefore: ago(r.tripDays * 24 * HOUR),
      searchesBefore: ago(r.searchHours * HOUR),
      seatMapsBefore: ago(Math.max(r.tripDays * 24, r.searchHours) * HOUR + 2 * HOUR),
      tokensBefore: ago(0),
      idempotencyBefore: ago(r.idempotencyHours * HOUR),
      jobsBefore: ago(r.jobDays * 24 * HOUR),
      // A retired key is published until its tokens expire (core/auth/tokens.ts jwks), and then some.
      signingKeysBefore: ago(Math.max(this.config.accessTokenTtl, this.config.creationTokenTtl) * 1000 + 2 * HOUR),
    })
  }

  // ------------------------------------------------------------ the job runner

  /**
   * Claims one due job, runs it, and records the outcome under the claim's lease. Returns false when no job
   * was due. A worker that dies mid-job loses nothing: the lease lapses and another run picks the job up,
   * and every step below is safe to repeat (orders move only forward; the supplier books once per order).
   */
  async processNextJob(kinds: JobKind[] = JOB_KINDS): Promise<JobReport | null> {
    const job = await this.#store.claimJob(kinds, this.#clock.now(), this.config.jobLeaseMs)
    if (!job) return null
    const lease = job.locked_until!
    const report = (outcome: JobReport['outcome'], kept: boolean, extra: { error?: string; retry_at?: Date | null } = {}): JobReport => ({
      job_id: job.job_id, kind: job.kind, attempt: job.attempts, max_attempts: job.max_attempts,
      // A lapsed lease means another worker re-claimed the job: this run's outcome was not recorded.
      outcome: kept ? outcome : 'lease_lost',
      ...(extra.error ? { error: extra.error } : {}),
      ...(extra.retry_at ? { retry_at: extra.retry_at.toISOString() } : {}),
    })
    try {
      if (job.attempts > job.max_attempts) {
        // A previous run gave up but died before recording it.
        await this.#giveUp(job)
        return report('dead', await this.#store.failJob(job.job_id, lease, job.last_error ?? 'gave up', null), { error: job.last_error ?? 'gave up' })
      }
      const retryAt = await this.#run(job)
      if (retryAt) return report('waiting', await this.#store.failJob(job.job_id, lease, 'waiting for the supplier', retryAt), { retry_at: retryAt })
      return report('done', await this.#store.completeJob(job.job_id, lease))
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e)
      const last = job.attempts >= job.max_attempts
      if (last) await this.#giveUp(job)
      const retryAt = last ? null : new Date(this.#clock.now().getTime() + backoffMs(job.attempts, this.config.backoffBaseMs, this.config.backoffCapMs))
      return report(last ? 'dead' : 'retry', await this.#store.failJob(job.job_id, lease, error, retryAt), { error, retry_at: retryAt })
    }
  }

  /** Runs every job that is due now (tests, and hosts without a background worker). */
  async drainJobs(kinds: JobKind[] = JOB_KINDS, limit = 1000): Promise<number> {
    let n = 0
    while (n < limit && (await this.processNextJob(kinds))) n++
    return n
  }

  /** Runs a job; returns when to come back if the answer is not ready yet. */
  async #run(job: JobRecord): Promise<Date | undefined> {
    const now = this.#clock.now()
    if (job.kind === 'basket_check') {
      const { trip_id, check_id, started_at } = job.payload as { trip_id: string; check_id: string; started_at: string }
      const trip = (await this.#read(trip_id))?.value
      const items = trip ? validity.itemsOfCheck(trip, check_id) : []
      if (!trip || items.length === 0) return undefined
      const answer = await this.#supplier.recheck(supplierView(trip), items.map((item) => ({ item, offer_key: trip.offer_keys[item.product_id] })))
      // The supplier's answer takes delayMs from the start of the check; until then the items stay `checking`.
      const readyAt = answer.delayMs ? Date.parse(started_at) + answer.delayMs : 0
      if (readyAt > now.getTime()) return new Date(readyAt)
      await this.#mutate(null, trip_id, (t) => validity.finishCheck(t, check_id, answer.results, { now: this.#clock.now(), holdWindow: this.config.holdWindow }))
      return undefined
    }
    if (job.kind === 'fulfill_order') {
      const { trip_id, order_id } = job.payload as { trip_id: string; order_id: string }
      const loaded = await this.#read(trip_id)
      const order = loaded?.value.orders[order_id]
      if (!loaded || !order || order.status === 'succeeded' || order.status === 'failed') return undefined
      const trip = await this.#mutate(null, trip_id, (t) => moveOrder(t, order_id, 'in_progress', this.#clock.now()))
      const item = trip.basket[order.basket_item_id]!
      const booked = await this.#supplier.fulfill(supplierView(trip), trip.orders[order_id]!, { item, offer_key: trip.offer_keys[item.product_id] })
      await this.#mutate(null, trip_id, (t) => booked.ok
        ? moveOrder(t, order_id, 'succeeded', this.#clock.now(), { supplier_reference: booked.reference })
        : moveOrder(t, order_id, 'failed', this.#clock.now(), { failure_reason: booked.reason }))
      return undefined
    }
    if (job.kind === 'webhook') {
      const { seller_id, subscription_id, event } = job.payload as { seller_id: string; subscription_id: string; event: WebhookEvent }
      const sub = (await this.#store.listSubscriptions(seller_id)).find((s) => s.subscription_id === subscription_id)
      if (!sub) return undefined // unsubscribed since: nothing to deliver
      // Checked at every delivery: the sender resolves the name and refuses a private address then (a name
      // that pointed elsewhere when subscribed may point inside now).
      const policy = targetPolicy((await this.#seller(seller_id))?.sandbox ?? false)
      const body = JSON.stringify(event)
      const status = await this.#webhooks.send(sub.target, body, {
        'content-type': 'application/json',
        'user-agent': 'svc-webhooks/2.2',
        'svc-event-id': event.event_id,
        'svc-event-name': event.event_name,
        'svc-signature': await signatureHeader(sub.secret, body, now),
      }, policy)
      if (status < 200 || status >= 300) throw new Error(`the receiver answered HTTP ${status}`)
      return undefined
    }
    throw new Error(`unknown job kind ${job.kind}`)
  }

  /** What giving up on a job means for the trip: an order fails, a check leaves its items `invalid`. */
  async #giveUp(job: JobRecord): Promise<void> {
    const now = this.#clock.now()
    if (job.kind === 'fulfill_order') {
      const { trip_id, order_id } = job.payload as { trip_id: string; order_id: string }
      await this.#mutate(null, trip_id, (t) => moveOrder(t, order_id, 'failed', now, { failure_reason: 'The airline could not be reached to confirm this order.' }))
    } else if (job.kind === 'basket_check') {
      const { trip_id, check_id } = job.payload as { trip_id: string; check_id: string }
      await this.#mutate(null, trip_id, (t) => validity.abandonCheck(t, check_id, now))
    }
  }

  async #changeBasket(p: Principal, tripId: string, change: (t: TripRecord, s: SearchView | undefined, ctx: basket.BasketContext) => TripRecord) {
    const trip = await this.#mutate(p, tripId, async (t) => {
      const search = t.search_id ? await this.#searchView(t, t.search_id) : undefined
      return change(t, search, { now: this.#clock.now(), holdWindow: this.config.holdWindow, newId: () => this.#ids.uuid() })
    })
    return basketView(trip, this.#clock.now())
  }
}

export function createCore(deps: CoreDeps): Core { return new Core(deps) }

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

function publicSubscription(s: SubscriptionRecord) {
  return { subscription_id: s.subscription_id, delivery_method: s.delivery_method, target: s.target, event_name: s.event_name, created_at: s.created_at }
}

function withoutSessionSecrets(body: unknown): unknown {
  if (!body || typeof body !== 'object' || !('refresh_token' in body)) return body
  return { ...body, trip_access_token: null, refresh_token: null }
}

/** `https://Shop.example:443/` → `https://shop.example`; origins compare in this form. */
export function normaliseOrigin(origin: string): string {
  try { return new URL(origin).origin } catch { return origin }
}
