/**
 * The trip session of an element, and the traveller's changes to its basket.
 *
 * The session is the element's own (a `session` property, which the SDK sets), else the nearest one
 * provided above by context, so a view works the same inside `<svc-upsell>` and alone on a seller's page.
 * The controller re-renders the host on every session change, starts loading the session and the offers
 * the host shows (the session fetches each product type once, whoever asks), hands the session down to
 * the host's parts, and lets go of it when the host leaves the page. It brings the host's locale
 * (`locale`: its own, else the provided one, else the trip's language), which it provides to the parts.
 *
 * Basket changes (state the host renders): one at a time (nothing starts while the session is busy), each
 * result announced in a polite live region, and a refused change shown with "Try again" (which re-runs
 * the same intent against the basket as it then is) and reported as `svc-fail`.
 */
import { html, nothing, type ReactiveController, type ReactiveControllerHost } from 'lit'
import { ContextConsumer, ContextProvider } from '@lit/context'
import { sessionContext } from '../context.ts'
import { asSvcError, SvcError } from '../../client/errors.ts'
import type { OffersState, ProductTypeName, Session } from '../../client/session.ts'
import type { BasketChange, BasketItem, Display, ProductName } from '../../client/types.ts'
import { extras, itemLabel, price, productNameOf, totalOf, type Amount } from '../internal/format.ts'
import type { ValidityActions } from '../internal/validity.ts'
import { emit } from '../internal/element.ts'
import { lazyState, loadLazy, type Lazy } from '../internal/lazy.ts'
import { LocaleController } from './locale.ts'

type Host = ReactiveControllerHost &
  HTMLElement & { session: Session | undefined; locale: string | undefined; display?: Display }

export interface SessionOptions {
  /** The product types (API names) whose offers the host shows; none by default. */
  offerTypes?: () => readonly ProductTypeName[]
  /** Whether the host re-dispatches the session's basket changes as `svc-basket-change`. */
  basketEvents?: () => boolean
  /** "Choose another" of an unavailable item; by default it removes the item. */
  chooseAnother?: (item: BasketItem) => Promise<boolean>
  /** Code the host cannot show itself without (the card and modal displays' frames), loaded with the session. */
  needs?: () => readonly Lazy[]
}

export interface Failure {
  error: SvcError
  retry: () => void
}

const LOADING: OffersState = { status: 'loading', error: null }
/** How long an element may wait for its session before it says it has none. */
const ORPHAN_MS = 2000
const READY: OffersState = { status: 'ready', error: null }

export class SessionController implements ReactiveController {
  readonly #host: Host
  readonly #opts: SessionOptions
  readonly #consumer: ContextConsumer<typeof sessionContext, Host>
  readonly #provider: ContextProvider<typeof sessionContext, Host>
  #subscribed: Session | undefined
  /** What the live region says (it is cleared first, so the same words are announced again). */
  #announcement = ''
  /** The last refused change, shown with "Try again". */
  #failure: Failure | null = null
  /** The host's locale (its own, else the provided one, else the trip's language), provided to its parts. */
  readonly locale: LocaleController
  /** Set when the host has been on the page a while with no session: it says so instead of loading forever. */
  #orphan: SvcError | null = null
  #orphanTimer: ReturnType<typeof setTimeout> | undefined

  constructor(host: Host, opts: SessionOptions = {}) {
    this.#host = host
    this.#opts = opts
    this.#consumer = new ContextConsumer(host, { context: sessionContext, subscribe: true })
    this.#provider = new ContextProvider(host, { context: sessionContext, initialValue: undefined })
    host.addController(this)
    this.locale = new LocaleController(host, this)
  }

  /** The session in use: the host's own, else the provided one. */
  get value(): Session | undefined {
    return this.#host.session ?? this.#consumer.value
  }

  /** True when no svc element above shares its session, so the host speaks to the page itself. */
  get standalone(): boolean {
    return !this.#consumer.value
  }

  get #types(): readonly ProductTypeName[] {
    return this.#opts.offerTypes?.() ?? []
  }

  get #needs(): readonly Lazy[] {
    return this.#opts.needs?.() ?? []
  }

  /**
   * Trip, basket, the offers the host shows and the code it needs together: loading until all are there,
   * else the error. Offers of some types that failed while others loaded (the airline gave bags but not its
   * seat maps) do not fail the whole: the host shows those types' errors itself.
   */
  get loadState(): OffersState {
    if (!this.value && this.#orphan) return { status: 'error', error: this.#orphan }
    const st = this.value?.state
    const offers = this.#types.map((t) => st?.offers[t] ?? LOADING)
    const all = [
      ...(st
        ? [st, ...(offers.some((o) => o.status === 'ready') ? offers.filter((o) => !o.error) : offers)]
        : [LOADING]),
      ...this.#needs.map(lazyState),
    ]
    return all.find((o) => o.status === 'error') ?? all.find((o) => o.status === 'loading') ?? READY
  }

  /** A basket change is running (nothing else starts meanwhile). */
  get busy(): boolean {
    return this.value?.state.busy ?? false
  }

  /** Extras in the basket (or `items`), and their total in the trip currency. */
  total(items: BasketItem[] = extras(this.value?.state.basket ?? {})): Amount {
    return totalOf(items, this.value?.state.trip?.currency ?? 'EUR')
  }

  /** Loads the session (and the host's offers and the code it needs) again after a failed load. */
  retry = () => {
    this.value?.loadOffers(this.#types).catch(() => {})
    for (const lazy of this.#needs) loadLazy(lazy, this.#host, true)
  }

  hostConnected() {
    this.#listen(this.value)
    // An element placed by hand needs its `session` property (the SDK and <svc-upsell> give it one). Without
    // one after a moment, it reports it (svc-fail, and the console) rather than show "Loading" for ever.
    clearTimeout(this.#orphanTimer)
    this.#orphanTimer = setTimeout(() => {
      if (this.value) return
      this.#orphan = new SvcError(
        'not_initialized',
        `<${this.#host.localName}> has no session: set its session property to a Session of the trip (docs/sdk.md, "Without the Svc global").`,
      )
      console.warn(`Svc: ${this.#orphan.message}`)
      this.#host.requestUpdate()
    }, ORPHAN_MS)
  }

  hostDisconnected() {
    clearTimeout(this.#orphanTimer)
    this.#listen(undefined)
  }

  hostUpdate() {
    const s = this.value
    this.#listen(s)
    // The offers the host shows, unless asked for already (a failed load waits for "Try again").
    const missing = this.#types.filter((t) => !s?.state.offers[t])
    if (s && missing.length > 0) s.loadOffers(missing).catch(() => {})
    for (const lazy of this.#needs) loadLazy(lazy, this.#host)
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

  #set(announcement: string, failure = this.#failure) {
    this.#announcement = announcement
    this.#failure = failure
    this.#host.requestUpdate()
  }

  async #announce(message: string) {
    this.#set('')
    await this.#host.updateComplete
    this.#set(message)
  }

  /** The basket total in words, for announcements. */
  totalText(): string {
    return price(this.locale.l, this.total())
  }

  /** Runs one basket change; false when it was refused or could not start. */
  async act(
    product: ProductName | null,
    change: (s: Session) => Promise<void>,
    announce?: () => string,
  ): Promise<boolean> {
    const s = this.value
    if (!s || s.state.busy) return false
    this.#set(this.#announcement, null)
    try {
      await change(s)
      if (announce) void this.#announce(announce())
      return true
    } catch (e) {
      const error = asSvcError(e)
      this.#set(this.#announcement, {
        error,
        retry: () => {
          void this.act(product, change, announce)
        },
      })
      void this.#announce(this.locale.l.t.error_change)
      if (product) emit(this.#host, 'svc-fail', { product, display: this.#host.display ?? 'embedded', error })
      return false
    }
  }

  /** Accept / remove / check / choose another for an item's validity state, each announced. */
  validityActions(item: BasketItem): ValidityActions {
    const l = this.locale.l
    const product = productNameOf(item.product_type)
    const label = itemLabel(l, item)
    const id = item.basket_item_id
    const remove = () =>
      this.act(
        product,
        (s) => s.remove(id),
        () => l.format('announce_removed', { item: label, total: this.totalText() }),
      )
    return {
      accept: () =>
        this.act(
          product,
          (s) => s.accept(id),
          () => l.format('announce_accepted', { item: label, total: this.totalText() }),
        ),
      remove,
      check: () =>
        this.act(
          product,
          (s) => s.check(),
          () => l.t.state_checking,
        ),
      chooseAnother: () => (this.#opts.chooseAnother ?? remove)(item),
    }
  }

  /** The polite live region of the announcements. */
  renderLive() {
    return html`<div class="sr-only" role="status" aria-live="polite" part="live">${this.#announcement}</div>`
  }

  /** The last refused change, with "Try again". */
  renderFailure() {
    const f = this.#failure
    if (!f) return nothing
    const t = this.locale.l.t
    return html`<div class="notice danger" role="alert" part="error">
      <p>${t.error_change}</p>
      <div class="actions"><button type="button" class="btn" @click=${f.retry}>${t.retry}</button></div>
    </div>`
  }
}
