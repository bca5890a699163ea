/**
 * The trip session of an element: its own (a `session` property, which the SDK sets), else the nearest
 * one provided above by context, so a view works the same inside `<svc-upsell>` and alone on a seller's
 * page. The controller re-renders the host on every session change, starts loading the session and the
 * offers the host shows (the session fetches each product type once, whoever asks), hands the session
 * down to the host's parts, and lets go of it when the host leaves the page.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import { ContextConsumer, ContextProvider } from '@lit/context'
import { sessionContext } from '../context.ts'
import type { OffersState, ProductTypeName, Session } from '../../client/session.ts'
import type { BasketChange, BasketItem } from '../../client/types.ts'
import { extras, totalOf, type Amount } from '../shared/format.ts'
import { emit } from '../shared/element.ts'

type Host = ReactiveControllerHost & HTMLElement & { session: Session | undefined }

export interface SessionOptions {
  /** The product types (API names) whose offers the host shows; none by default. */
  offerTypes?: () => readonly ProductTypeName[]
  /** Whether the host re-dispatches the session's basket changes as `svc-basket-change`. */
  basketEvents?: () => boolean
}

const LOADING: OffersState = { status: 'loading', error: null }
const READY: OffersState = { status: 'ready', error: null }

export class SessionController implements ReactiveController {
  readonly #host: Host
  readonly #opts: SessionOptions
  readonly #consumer: ContextConsumer<typeof sessionContext, Host>
  readonly #provider: ContextProvider<typeof sessionContext, Host>
  #subscribed: Session | undefined

  constructor(host: Host, opts: SessionOptions = {}) {
    this.#host = host
    this.#opts = opts
    this.#consumer = new ContextConsumer(host, { context: sessionContext, subscribe: true })
    this.#provider = new ContextProvider(host, { context: sessionContext, initialValue: undefined })
    host.addController(this)
  }

  /** The session in use: the host's own, else the provided one. */
  get value(): Session | undefined { return this.#host.session ?? this.#consumer.value }

  /** True when no svc element above shares its session, so the host speaks to the page itself. */
  get standalone(): boolean { return !this.#consumer.value }

  get #types(): readonly ProductTypeName[] { return this.#opts.offerTypes?.() ?? [] }

  /** Trip, basket and the offers the host shows together: loading until all are there, else the error. */
  get loadState(): OffersState {
    const st = this.value?.state
    const all = st ? [st, ...this.#types.map((t) => st.offers[t] ?? LOADING)] : [LOADING]
    return all.find((o) => o.status === 'error') ?? all.find((o) => o.status === 'loading') ?? READY
  }

  /** A basket change is running (nothing else starts meanwhile). */
  get busy(): boolean { return this.value?.state.busy ?? false }

  /** Extras in the basket (or `items`), and their total in the trip currency. */
  total(items: BasketItem[] = extras(this.value?.state.basket ?? {})): Amount {
    return totalOf(items, this.value?.state.trip?.currency ?? 'EUR')
  }

  /** Loads the session (and the host's offers) again after a failed load. */
  retry = () => { this.value?.loadOffers(this.#types).catch(() => {}) }

  hostConnected() { this.#listen(this.value) }

  hostDisconnected() { this.#listen(undefined) }

  hostUpdate() {
    const s = this.value
    this.#listen(s)
    // The offers the host shows, unless asked for already (a failed load waits for "Try again").
    const missing = this.#types.filter((t) => !s?.state.offers[t])
    if (s && missing.length > 0) s.loadOffers(missing).catch(() => {})
    this.#provider.setValue(s)
  }

  #listen(s: Session | undefined) {
    if (this.#subscribed === s) return
    this.#subscribed?.removeEventListener('change', this.#onChange)
    this.#subscribed?.removeEventListener('basket-change', this.#onBasketChange)
    this.#subscribed = s
    if (!s) return
    s.addEventListener('change', this.#onChange)
    s.addEventListener('basket-change', this.#onBasketChange)
    // `load()` shares one request between every element of the page; a failed load waits for "Try again".
    if (s.state.status === 'loading') s.load().catch(() => {})
  }

  #onChange = () => this.#host.requestUpdate()

  #onBasketChange = (e: Event) => {
    if (this.#opts.basketEvents?.()) emit(this.#host, 'svc-basket-change', (e as CustomEvent<BasketChange>).detail)
  }
}
