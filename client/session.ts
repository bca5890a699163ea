/**
 * One trip's state in the page, shared by every widget instance (they differ only in what they show).
 * It loads the trip and basket, and the offers of each product type once a widget asks for them (a full
 * search with its seat maps is some 450 KB; the bags alone are a few KB), applies the traveller's
 * changes through the API, polls while items are `checking`, notices items passing `valid_to`, and
 * announces every basket change once.
 */
import type { Basket, BasketItem, CallbackBasketItem, Search, TripView } from './types.ts'
import { PRODUCT_TYPE_NAMES, type ProductTypeName } from '../core/schemas/product-types.ts'
import type { ApiClient, BasketView } from './api.ts'
import { SvcError, asSvcError } from './errors.ts'

export type { ProductTypeName }

export type SessionStatus = 'loading' | 'ready' | 'error'

/** Where the offers of one product type are: on their way, in `search`, or failed (`error`). */
export interface OffersState {
  status: SessionStatus
  error: SvcError | null
  /**
   * Loading, and the trip's supplier (a remote API) is still searching: the read is repeated when the
   * trip's event stream says the search has its answer, and every few seconds meanwhile.
   */
  searching?: boolean
}

export interface SessionState {
  /** Trip and basket (offers are per product type, in `offers`). */
  status: SessionStatus
  error: SvcError | null
  trip: TripView | null
  basket: Basket
  /**
   * The offers loaded so far, in the API's shape: `results.products` holds the types `offers` says are
   * ready, `results.seatmaps` is filled once `seat` is. Null until the first offers arrive.
   */
  search: Search | null
  /** Per product type asked for: its offers' load. A type never asked for has no entry. */
  offers: Partial<Record<ProductTypeName, OffersState>>
  /** A change the traveller asked for is on its way to the API. */
  busy: boolean
}

export interface SessionOptions {
  /** How often to re-read the basket while items are `checking` and the event stream is not connected. */
  pollMs?: number
  /**
   * While following (`follow()`): the reconnect delay until the service names one, and how often the
   * basket is polled where there is no event stream at all.
   */
  followRetryMs?: number
  followPollMs?: number
  /**
   * While a search is still running at a remote supplier: how soon it is read again (growing by half each
   * time, up to `searchPollMaxMs`) when no `search` event has come before.
   */
  searchPollMs?: number
  searchPollMaxMs?: number
  now?: () => number
}

/** In the API's order, so the same set of types is always the same URL (one cache entry, one ETag). */
const TYPES = PRODUCT_TYPE_NAMES
/** A search's answer that a type is not sold after booking (Duffel's most airlines): nothing to add, not an error. */
const NOT_OFFERED = 'not_offered_after_booking'
/** A search always runs for every type: only what is read of it is narrowed to what a widget shows. */
const ALL_TYPES = Object.fromEntries(TYPES.map((t) => [t, { search: true }]))
/** The airline's search could not give these offers (`reason`: its failure_reason). */
const unavailable = (reason: string) =>
  new SvcError('offers_unavailable', `The airline's offers could not be had (${reason}).`, { apiCode: reason })

/** The API's validity with `status`, as the browser callbacks name it: `state`. */
export function toCallbackBasket(basket: Basket): Record<string, CallbackBasketItem> {
  return Object.fromEntries(
    Object.entries(basket).map(([id, item]) => {
      const { status, ...rest } = item.validity
      return [id, { ...item, validity: { ...rest, state: status } }]
    }),
  )
}

/** What changes for the seller: the set of items and each one's quantity, price and validity. */
const fingerprint = (b: Basket) =>
  JSON.stringify(
    Object.values(b)
      .map((i) => [i.basket_item_id, i.quantity, i.price.total.amount, i.validity.status])
      .sort(),
  )

export class Session extends EventTarget {
  readonly client: ApiClient
  #state: SessionState = {
    status: 'loading',
    error: null,
    trip: null,
    basket: {},
    search: null,
    offers: {},
    busy: false,
  }
  #pollMs: number
  #now: () => number
  #poll: ReturnType<typeof setTimeout> | null = null
  #expiry: ReturnType<typeof setTimeout> | null = null
  #loading: Promise<void> | null = null
  /** The offers request each product type is waiting for; callers asking for the same type share it. */
  #offersLoading = new Map<ProductTypeName, Promise<void>>()
  /** The new search started after the trip's search answered 404, shared by every read that found it gone. */
  #researching: Promise<string> | null = null
  #disposed = false
  /** Basket requests are numbered as they start; the basket shown is the answer to #shownSeq. */
  #seq = 0
  #shownSeq = 0
  /** Changes (PATCH, DELETE, accept, check) still waiting for their answer. */
  #inFlight = 0
  #rereadFailures = 0
  /** Following the trip's event stream (./follow.ts): how to stop, whether it is connected. */
  #following: AbortController | null = null
  #streaming = false
  /** A stream event was set aside while a change was on its way: the basket is read again after it. */
  #missed = false
  #followRetryMs: number
  #followPollMs: number
  #searchPollMs: number
  #searchPollMaxMs: number
  /** Reads waiting for a running search to end: a `search` event, their poll timer, or dispose wakes them. */
  #wakers = new Set<() => void>()
  /** Searches seen `failed`: read again they fail again, so asking again ("Try again") starts a new search. */
  #failed = new Set<string>()

  constructor(client: ApiClient, opts: SessionOptions = {}) {
    super()
    this.client = client
    this.#pollMs = opts.pollMs ?? 1000
    this.#followRetryMs = opts.followRetryMs ?? 2000
    this.#followPollMs = opts.followPollMs ?? 10_000
    this.#searchPollMs = opts.searchPollMs ?? 1000
    this.#searchPollMaxMs = opts.searchPollMaxMs ?? 8000
    this.#now = opts.now ?? Date.now
  }

  get state(): SessionState {
    return this.#state
  }

  /**
   * Loads trip and basket (starting a search, of every type, when the trip has none yet); the offers
   * come with `loadOffers`. Safe to call repeatedly; after a failure it tries again.
   */
  load(): Promise<void> {
    this.#loading ??= (async () => {
      try {
        const seq = ++this.#seq
        const [trip, basket] = await Promise.all([
          this.client
            .getTrip()
            .then(async (t) =>
              t.search_id ? t : { ...t, search_id: (await this.client.startSearch(ALL_TYPES)).search_id },
            ),
          this.client.getBasket(),
        ])
        this.#set({ status: 'ready', trip, error: null })
        this.#applyRead(basket, seq)
      } catch (e) {
        this.#loading = null
        this.#set({ status: 'error', error: asSvcError(e) })
        throw this.#state.error
      }
    })()
    return this.#loading
  }

  /**
   * Loads the offers of `types` that are not loaded or loading yet, in one request (after `load()`, which
   * it starts when needed), and merges them into `state.search`; resolves once every type asked for is
   * there, and rejects when one could not load (its `offers` entry then says `error`, and a later call
   * tries it again). Callers asking for a type already on its way share that request. A search gone from
   * the API (404: retention purges searches after a day) is replaced by a new one, once.
   */
  loadOffers(types: readonly ProductTypeName[]): Promise<void> {
    const missing = TYPES.filter(
      (t) => types.includes(t) && this.#state.offers[t]?.status !== 'ready' && !this.#offersLoading.has(t),
    )
    if (missing.length > 0) {
      const request = this.#fetchOffers(missing).finally(() => {
        for (const t of missing) this.#offersLoading.delete(t)
      })
      for (const t of missing) this.#offersLoading.set(t, request)
    }
    return Promise.all([this.load(), ...types.map((t) => this.#offersLoading.get(t))]).then(() => {})
  }

  add(productId: string, passengerId: string, quantity = 1) {
    return this.#change(() => this.client.addToBasket([{ product_id: productId, passenger_id: passengerId, quantity }]))
  }

  remove(itemId: string) {
    return this.#change(() => this.client.removeItem(itemId))
  }
  accept(itemId: string) {
    return this.#change(() => this.client.acceptItem(itemId))
  }
  check() {
    return this.#change(() => this.client.checkBasket())
  }

  /** Re-reads the basket (after the seller changed it from its backend, say). */
  async refresh() {
    const seq = ++this.#seq
    this.#applyRead(await this.client.getBasket(), seq)
  }

  /** Re-reads the basket and the trip, and with it the offers when the trip's search changed (`Svc.refresh()`). */
  async reload() {
    await this.load()
    const [trip] = await Promise.all([this.client.getTrip(), this.refresh()])
    if (trip.search_id) this.#replaceSearch(trip.search_id)
  }

  /**
   * Follows the trip's event stream, so changes made elsewhere (a backend basket check, another tab, a
   * passenger update and the new search it ran, an item running out) show without asking: basket events
   * are applied as reads, a search event loads the offers shown from the new search. A dropped stream is
   * reconnected from the last event, and the basket is read again meanwhile; where there is no stream at
   * all (an older service), the basket is polled (conditional GET, a 304 while unchanged).
   */
  follow(): void {
    if (this.#following || this.#disposed) return
    const { signal } = (this.#following = new AbortController())
    import('./follow.ts')
      .then(({ follow }) =>
        follow(
          {
            client: this.client,
            retryMs: this.#followRetryMs,
            pollMs: this.#followPollMs,
            refresh: () => this.refresh(),
            reload: () => this.reload(),
            streaming: (on) => this.#setStreaming(on),
            search: (id) => this.#replaceSearch(id),
            basket: (view) => this.#applyEvent(view),
          },
          signal,
        ),
      )
      .catch((e: unknown) =>
        console.warn(`Svc: the trip's live updates did not load (${e}); changes made elsewhere show on the next read.`),
      )
  }

  /** A basket the stream sent: shown as a read (a change on its way wins; the basket is read again after it). */
  #applyEvent(view: BasketView) {
    if (this.#inFlight > 0) {
      this.#missed = true
      return
    }
    this.#applyRead(view, ++this.#seq)
  }

  /**
   * The trip's search has its answer (a remote supplier's ended), or its offers were replaced (a passenger
   * update ran a new search): reads waiting for it go on, and the offers shown are loaded again from a new one.
   * A search that failed here never comes back (a stream reconnecting names the trip's search, which stays
   * the failed one while the search "Try again" started still runs).
   */
  #replaceSearch(searchId: string) {
    this.#wake()
    const trip = this.#state.trip
    if (!trip || trip.search_id === searchId || this.#failed.has(searchId)) return
    const shown = TYPES.filter((t) => this.#state.offers[t]?.status === 'ready')
    this.#set({
      trip: { ...trip, search_id: searchId },
      offers: { ...this.#state.offers, ...Object.fromEntries(shown.map((t) => [t, undefined])) },
    })
    // Loads of the old search still on their way follow the trip's search_id on their own (#fetchOffers).
    if (shown.length > 0) this.loadOffers(shown).catch(() => {})
  }

  #setStreaming(on: boolean) {
    if (this.#streaming === on) return
    this.#streaming = on
    this.#schedule()
  }

  /** Stops timers for good; the session stays readable. */
  dispose() {
    // A refresh in flight would otherwise schedule new timers after this, and keep polling for a
    // session nobody shows any more (Svc.init called again).
    this.#disposed = true
    this.#wake()
    this.#following?.abort()
    if (this.#poll) clearTimeout(this.#poll)
    if (this.#expiry) clearTimeout(this.#expiry)
  }

  itemsOf(predicate: (item: BasketItem) => boolean): BasketItem[] {
    return Object.values(this.#state.basket).filter(predicate)
  }

  async #fetchOffers(types: ProductTypeName[]): Promise<void> {
    this.#setOffers(types, { status: 'loading', error: null })
    try {
      await this.load()
      let search: Search | undefined
      // Until the answer is of the trip's search (another read may have replaced a purged or failed one
      // meanwhile), and says how the search ended: a remote supplier's runs in the background.
      for (let waits = 0; search?.search_id !== this.#state.trip!.search_id || search.status === 'in_progress';) {
        if (search?.status === 'in_progress' && search.search_id === this.#state.trip!.search_id) {
          this.#setOffers(types, { status: 'loading', error: null, searching: true })
          await this.#nextLook(waits++)
          if (this.#disposed)
            throw new SvcError('not_initialized', 'The session was closed while the supplier was still searching.')
        }
        let searchId = this.#state.trip!.search_id!
        // Asked again after the trip's search failed ("Try again"): the same search would fail again.
        if (this.#failed.has(searchId)) searchId = await this.#searchAgain(searchId)
        search = await this.client.getSearch(searchId, types).catch(async (e: unknown) => {
          if ((e as SvcError).status !== 404) throw e
          const fresh = await this.#searchAgain(searchId)
          // What is shown came from the search that is gone: read it again, from the new one.
          types = TYPES.filter((t) => types.includes(t) || this.#state.offers[t]?.status === 'ready')
          // A new search that is gone as well is an error, not a loop.
          return this.client.getSearch(fresh, types)
        })
      }
      if (search.status === 'failed') {
        this.#failed.add(search.search_id)
        throw unavailable(search.failure_reason ?? 'unknown')
      }
      const old = this.#state.search
      const same = old?.search_id === search.search_id
      // Offers of the old search that this read did not renew (ready meanwhile) are read again, and so are
      // those a failed search left in error (another view's "Try again" found the offers).
      const stale = TYPES.filter(
        (t) =>
          !types.includes(t) &&
          ((!same && this.#state.offers[t]?.status === 'ready') ||
            this.#state.offers[t]?.error?.code === 'offers_unavailable'),
      )
      this.#set({
        search: {
          ...search,
          results: {
            products: { ...(same ? old.results.products : {}), ...search.results.products },
            seatmaps: same && !types.includes('seat') ? old.results.seatmaps : search.results.seatmaps,
          },
        },
        offers: { ...this.#state.offers, ...Object.fromEntries(stale.map((t) => [t, undefined])) },
      })
      // Types the airline could not give while it gave others (a seat map it failed to send) show their
      // error; a type it sells none of after booking is read, with nothing to add.
      let failure: SvcError | undefined
      for (const t of types) {
        const reason = search.partial_failures?.find(
          (f) => f.product_type === t && f.failure_reason !== NOT_OFFERED,
        )?.failure_reason
        if (reason) this.#failed.add(search.search_id)
        this.#setOffers([t], {
          status: reason ? 'error' : 'ready',
          error: reason ? (failure = unavailable(reason)) : null,
        })
      }
      if (stale.length > 0) this.loadOffers(stale).catch(() => {})
      // Nothing asked for could be read: the load failed as a whole.
      if (failure && types.every((t) => this.#state.offers[t]?.status === 'error')) throw failure
    } catch (e) {
      const error = asSvcError(e)
      if (!this.#disposed) this.#setOffers(types, { status: 'error', error })
      throw error
    }
  }

  /**
   * Waits before the `n`th repeated read of a running search: until the trip's stream says a search has its
   * answer, or the poll delay (1 s, growing by half each time up to 8 s) passes, or the session is disposed.
   */
  #nextLook(n: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.#disposed) return resolve()
      const done = () => {
        clearTimeout(timer)
        this.#wakers.delete(done)
        resolve()
      }
      const timer = setTimeout(done, Math.min(this.#searchPollMs * 1.5 ** n, this.#searchPollMaxMs))
      this.#wakers.add(done)
    })
  }

  #wake() {
    for (const done of [...this.#wakers]) done()
  }

  /** Starts a new search (of every type) for a purged or failed one; every read that found it so shares it. */
  #searchAgain(stale: string): Promise<string> {
    if (this.#state.trip!.search_id !== stale) return Promise.resolve(this.#state.trip!.search_id!)
    return (this.#researching ??= this.client
      .startSearch(ALL_TYPES)
      .then(({ search_id }) => {
        this.#set({ trip: { ...this.#state.trip!, search_id } })
        return search_id
      })
      .finally(() => {
        this.#researching = null
      }))
  }

  #setOffers(types: ProductTypeName[], o: OffersState) {
    this.#set({ offers: { ...this.#state.offers, ...Object.fromEntries(types.map((t) => [t, o])) } })
  }

  async #change(call: () => Promise<BasketView>): Promise<void> {
    const seq = ++this.#seq
    this.#inFlight++
    this.#set({ busy: true })
    try {
      const view = await call()
      // Two quick changes may be answered out of order; the older answer must not undo the newer.
      if (seq > this.#shownSeq) this.#applyBasket(view, seq)
    } finally {
      this.#inFlight--
      // Busy until the last of several concurrent changes is answered, not the first.
      this.#set({ busy: this.#inFlight > 0 })
      // A poll skipped while this change was on its way must be re-armed even when the change failed.
      this.#schedule()
      if (this.#inFlight === 0 && this.#missed) {
        this.#missed = false
        this.refresh().catch(() => {})
      }
    }
  }

  /**
   * A plain read (load, poll, expiry) shows the basket only when no change is on its way and none was
   * answered since the read started: a poll answered after a click would otherwise put back the basket
   * from before the click, and onBasketChange would fire twice (item gone, item back).
   */
  #applyRead(view: BasketView, seq: number) {
    if (this.#inFlight > 0 || seq < this.#shownSeq) return
    this.#applyBasket(view, seq)
  }

  #applyBasket(view: BasketView, seq: number) {
    this.#shownSeq = seq
    const before = fingerprint(this.#state.basket)
    this.#set({ basket: view.basket })
    if (fingerprint(view.basket) !== before) {
      this.dispatchEvent(new CustomEvent('basket-change', { detail: { basket: toCallbackBasket(view.basket) } }))
    }
    this.#schedule()
  }

  /** Polls while anything is `checking`; re-reads when the next item passes its `valid_to`. */
  #schedule() {
    if (this.#poll) clearTimeout(this.#poll)
    if (this.#expiry) clearTimeout(this.#expiry)
    if (this.#disposed) return
    const items = Object.values(this.#state.basket)
    // After failed re-reads (network down), wait longer each time, up to 32 × the poll interval.
    const backoff = 2 ** Math.min(this.#rereadFailures, 5)
    // While the event stream is connected, it brings the end of a check: no polling.
    if (!this.#streaming && items.some((i) => i.validity.status === 'checking')) {
      this.#poll = setTimeout(() => this.#reread(), this.#pollMs * backoff)
    }
    const next = Math.min(
      ...items
        .filter((i) => i.validity.status === 'valid' || i.validity.status === 'price_changed')
        .map((i) => Date.parse(i.validity.valid_to)),
    )
    if (Number.isFinite(next)) {
      // Timers are capped near 24.8 days; an item's window is minutes.
      const wait = Math.min(Math.max(0, next - this.#now()) + 500 * backoff, 2 ** 31 - 1)
      this.#expiry = setTimeout(() => this.#reread(), wait)
    }
  }

  /** A timed re-read; a failed one is retried (before, one network blip stopped polling for good). */
  #reread() {
    this.refresh().then(
      () => {
        this.#rereadFailures = 0
      },
      (e: unknown) => {
        this.#rereadFailures++
        this.#set({ error: asSvcError(e) })
        this.#schedule()
      },
    )
  }

  #set(patch: Partial<SessionState>) {
    this.#state = { ...this.#state, ...patch }
    this.dispatchEvent(new Event('change'))
  }
}
