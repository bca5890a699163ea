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
        const [basket, search] = await Promise.all([this.client.getBasket(), this.client.getSearch(searchId)])
        this.#set({ status: 'ready', trip, search, error: null })
        this.#applyBasket(basket)
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
  async refresh() { this.#applyBasket(await this.client.getBasket()) }

  /** Stops timers; the session stays readable. */
  dispose() {
    if (this.#poll) clearTimeout(this.#poll)
    if (this.#expiry) clearTimeout(this.#expiry)
  }

  itemsOf(predicate: (item: BasketItem) => boolean): BasketItem[] {
    return Object.values(this.#state.basket).filter(predicate)
  }

  async #change(call: () => Promise<BasketView>): Promise<void> {
    this.#set({ busy: true })
    try {
      this.#applyBasket(await call())
    } finally {
      this.#set({ busy: false })
    }
  }

  #applyBasket(view: BasketView) {
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
    const items = Object.values(this.#state.basket)
    if (items.some((i) => i.validity.status === 'checking')) {
      this.#poll = setTimeout(() => { this.refresh().catch((e: unknown) => this.#set({ error: asSvcError(e) })) }, this.#pollMs)
    }
    const next = Math.min(...items.filter((i) => i.validity.status === 'valid' || i.validity.status === 'price_changed').map((i) => Date.parse(i.validity.valid_to)))
    if (Number.isFinite(next)) {
      // Timers are capped near 24.8 days; an item's window is minutes.
      const wait = Math.min(Math.max(0, next - this.#now()) + 500, 2 ** 31 - 1)
      this.#expiry = setTimeout(() => { this.refresh().catch(() => {}) }, wait)
    }
  }

  #set(patch: Partial<SessionState>) {
    this.#state = { ...this.#state, ...patch }
    this.dispatchEvent(new Event('change'))
  }
}

export function asSvcError(e: unknown): SvcError {
  return e instanceof SvcError ? e : new SvcError('internal', e instanceof Error ? e.message : String(e), { cause: e })
}
