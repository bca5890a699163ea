/**
 * One trip's state in the page, shared by every widget instance (they differ only in what they show).
 * It loads the trip, basket and offers, applies the traveller's changes through the API, polls while items
 * are `checking`, notices items passing `valid_to`, and announces every basket change once.
 */
import type { Basket, BasketItem, CallbackBasketItem, Search, TripView } from './types.ts'
import type { ApiClient, BasketView } from './client.ts'
import { SvcError } from './errors.ts'

export type SessionStatus = 'loading' | 'ready' | 'error'

export interface SessionState {
  status: SessionStatus
  error: SvcError | null
  trip: TripView | null
  basket: Basket
  search: Search | null
  /** A change the traveller asked for is on its way to the API. */
  busy: boolean
}

export interface SessionOptions {
  /** How often to re-read the basket while items are `checking`. */
  pollMs?: number
  now?: () => number
}

const ALL_TYPES = { bag: { search: true }, seat: { search: true }, priority_boarding: { search: true }, automatic_check_in: { search: true }, fare_family_upsell: { search: true } }

/** The API's validity with `status`, as the browser callbacks name it: `state`. */
export function toCallbackBasket(basket: Basket): Record<string, CallbackBasketItem> {
  return Object.fromEntries(Object.entries(basket).map(([id, item]) => {
    const { status, ...rest } = item.validity
    return [id, { ...item, validity: { ...rest, state: status } }]
  }))
}

/** What changes for the seller: the set of items and each one's quantity, price and validity. */
const fingerprint = (b: Basket) => JSON.stringify(Object.values(b).map((i) => [i.basket_item_id, i.quantity, i.price.total.amount, i.validity.status]).sort())

export class Session extends EventTarget {
  readonly client: ApiClient
  #state: SessionState = { status: 'loading', error: null, trip: null, basket: {}, search: null, busy: false }
  #pollMs: number
  #now: () => number
  #poll: ReturnType<typeof setTimeout> | null = null
  #expiry: ReturnType<typeof setTimeout> | null = null
  #loading: Promise<void> | null = null
  #disposed = false
  /** Basket requests are numbered as they start; the basket shown is the answer to #shownSeq. */
  #seq = 0
  #shownSeq = 0
  /** Changes (PATCH, DELETE, accept, check) still waiting for their answer. */
  #inFlight = 0
  #rereadFailures = 0

  constructor(client: ApiClient, opts: SessionOptions = {}) {
    super()
    this.client = client
    this.#pollMs = opts.pollMs ?? 1000
    this.#now = opts.now ?? Date.now
  }

  get state(): SessionState { return this.#state }

  /** Loads trip, basket and offers (searching when the trip has no search yet). Safe to call repeatedly. */
  load(): Promise<void> {
    this.#loading ??= (async () => {
      try {
        const trip = await this.client.getTrip()
        const searchId = trip.search_id ?? (await this.client.startSearch(ALL_TYPES)).search_id
        const seq = ++this.#seq
        const [basket, search] = await Promise.all([this.client.getBasket(), this.client.getSearch(searchId)])
        this.#set({ status: 'ready', trip, search, error: null })
        this.#applyRead(basket, seq)
      } catch (e) {
        this.#loading = null
        this.#set({ status: 'error', error: asSvcError(e) })
        throw this.#state.error
      }
    })()
    return this.#loading
  }

  add(productId: string, passengerId: string, quantity = 1) {
    return this.#change(() => this.client.addToBasket([{ product_id: productId, passenger_id: passengerId, quantity }]))
  }

  remove(itemId: string) { return this.#change(() => this.client.removeItem(itemId)) }
  accept(itemId: string) { return this.#change(() => this.client.acceptItem(itemId)) }
  check() { return this.#change(() => this.client.checkBasket()) }

  /** Re-reads the basket (after the seller changed it from its backend, say). */
  async refresh() {
    const seq = ++this.#seq
    this.#applyRead(await this.client.getBasket(), seq)
  }

  /** Stops timers for good; the session stays readable. */
  dispose() {
    // A refresh in flight would otherwise schedule new timers after this, and keep polling for a
    // session nobody shows any more (Svc.init called again).
    this.#disposed = true
    if (this.#poll) clearTimeout(this.#poll)
    if (this.#expiry) clearTimeout(this.#expiry)
  }

  itemsOf(predicate: (item: BasketItem) => boolean): BasketItem[] {
    return Object.values(this.#state.basket).filter(predicate)
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
    if (items.some((i) => i.validity.status === 'checking')) {
      this.#poll = setTimeout(() => this.#reread(), this.#pollMs * backoff)
    }
    const next = Math.min(...items.filter((i) => i.validity.status === 'valid' || i.validity.status === 'price_changed').map((i) => Date.parse(i.validity.valid_to)))
    if (Number.isFinite(next)) {
      // Timers are capped near 24.8 days; an item's window is minutes.
      const wait = Math.min(Math.max(0, next - this.#now()) + 500 * backoff, 2 ** 31 - 1)
      this.#expiry = setTimeout(() => this.#reread(), wait)
    }
  }

  /** A timed re-read; a failed one is retried (before, one network blip stopped polling for good). */
  #reread() {
    this.refresh().then(
      () => { this.#rereadFailures = 0 },
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

export function asSvcError(e: unknown): SvcError {
  return e instanceof SvcError ? e : new SvcError('internal', e instanceof Error ? e.message : String(e), { cause: e })
}
