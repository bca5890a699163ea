/**
 * Base of every svc element that shows a trip: it finds the session (a `session` property, else the
 * nearest provider above), re-renders on every session change, starts loading it and the offers it shows
 * (`offerTypes`: the session fetches each product type once, whoever asks), and hands session and
 * locale down to its own parts by context, so a view works the same inside `<svc-upsell>` and alone on
 * a seller's page. It also runs the traveller's basket changes: one at a time, announced in a live region,
 * and refused changes shown with a retry and reported as `svc-fail`.
 */
import { html, nothing, type PropertyValues } from 'lit'
import { property, state } from 'lit/decorators.js'
import { consume, ContextProvider } from '@lit/context'
import { SvcElement } from '../base.ts'
import { localeContext, sessionContext } from '../context.ts'
import { localeFor, type Locale } from '../i18n/index.ts'
import { SvcError } from '../../client/errors.ts'
import type { OffersState, ProductTypeName, Session } from '../../client/session.ts'
import type { BasketChange, BasketItem, Display, ProductName } from '../../client/types.ts'
import { extras, itemLabel, price, productNameOf, totalOf, type Amount } from './format.ts'
import type { ValidityActions } from './validity.ts'

export interface Failure { error: SvcError; retry: () => void }

export function toSvcError(e: unknown): SvcError {
  return e instanceof SvcError ? e : new SvcError('internal', e instanceof Error ? e.message : String(e), { cause: e })
}

const LOADING: OffersState = { status: 'loading', error: null }
const READY: OffersState = { status: 'ready', error: null }

export class SvcSessionElement extends SvcElement {
  #subscribed: Session | undefined
  #sessionProvider = new ContextProvider(this, { context: sessionContext, initialValue: undefined })
  #localeProvider = new ContextProvider(this, { context: localeContext, initialValue: localeFor('en-US') })

  @consume({ context: sessionContext, subscribe: true })
  @state()
  protected contextSession: Session | undefined

  @consume({ context: localeContext, subscribe: true })
  @state()
  protected contextLocale: Locale | undefined

  /** What the live region says (it is cleared first, so the same words are announced again). */
  @state() protected announcement = ''
  /** The last refused change, shown with "Try again". */
  @state() protected failure: Failure | null = null

  /** The trip session (the SDK passes it; without it the element takes the one provided above). */
  @property({ attribute: false }) session: Session | undefined
  /** Locale tag of texts, prices and dates; by default the provider's, else the trip's language. */
  @property() locale: string | undefined

  /** The session in use: this element's own, else the provided one. */
  protected get activeSession(): Session | undefined { return this.session ?? this.contextSession }

  /** True when no svc element above shares its session, so this one speaks to the page itself. */
  protected get standalone(): boolean { return !this.contextSession }

  /** The Locale in use. */
  protected get l(): Locale {
    if (this.locale) return localeFor(this.locale)
    return this.contextLocale ?? localeFor(this.activeSession?.state.trip?.language)
  }

  /** The product types (API names) whose offers this element shows; none by default. */
  protected get offerTypes(): readonly ProductTypeName[] { return [] }

  /** Trip, basket and the offers of `offerTypes` together: loading until all are there, else the error. */
  protected get loadState(): OffersState {
    const st = this.activeSession?.state
    const all = st ? [st, ...this.offerTypes.map((t) => st.offers[t] ?? LOADING)] : [LOADING]
    return all.find((o) => o.status === 'error') ?? all.find((o) => o.status === 'loading') ?? READY
  }

  /** Whether this element re-dispatches the session's basket changes as `svc-basket-change`. */
  protected get emitsBasketChanges(): boolean { return false }

  override connectedCallback() {
    super.connectedCallback()
    this.#listen(this.activeSession)
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    this.#listen(undefined)
  }

  protected override willUpdate(changed: PropertyValues) {
    super.willUpdate(changed)
    const s = this.activeSession
    this.#listen(s)
    // The offers this element shows, unless asked for already (a failed load waits for "Try again").
    const missing = this.offerTypes.filter((t) => !s?.state.offers[t])
    if (s && missing.length > 0) s.loadOffers(missing).catch(() => {})
    this.#sessionProvider.setValue(s)
    this.#localeProvider.setValue(this.l)
  }

  protected override updated(changed: PropertyValues) {
    super.updated(changed)
    // Alone on the page, the element carries the language and direction itself.
    if (!this.contextLocale || this.locale) {
      const l = this.l
      if (this.lang !== l.tag) this.lang = l.tag
      if (this.dir !== l.dir) this.dir = l.dir
    }
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

  #onChange = () => this.requestUpdate()

  #onBasketChange = (e: Event) => {
    if (this.emitsBasketChanges) this.emit('svc-basket-change', (e as CustomEvent<BasketChange>).detail)
  }

  /** Loads the session (and this element's offers) again after a failed load. */
  protected retryLoad = () => { this.activeSession?.loadOffers(this.offerTypes).catch(() => {}) }

  protected async announce(message: string) {
    this.announcement = ''
    await this.updateComplete
    this.announcement = message
  }

  /** Extras in the basket, and their total in the trip currency. */
  protected basketTotal(items: BasketItem[] = extras(this.activeSession?.state.basket ?? {})): Amount {
    return totalOf(items, this.activeSession?.state.trip?.currency ?? 'EUR')
  }

  protected totalText(): string { return price(this.l, this.basketTotal()) }

  /** The display reported in events. */
  protected get reportedDisplay(): Display { return 'embedded' }

  /**
   * Runs one basket change. While the session is busy nothing else starts; the result is announced, and a
   * refusal is shown with a retry (which re-runs the same intent against the basket as it then is).
   */
  protected async act(product: ProductName | null, change: (s: Session) => Promise<void>, announce?: () => string): Promise<boolean> {
    const s = this.activeSession
    if (!s || s.state.busy) return false
    this.failure = null
    try {
      await change(s)
      if (announce) void this.announce(announce())
      return true
    } catch (e) {
      const error = toSvcError(e)
      this.failure = { error, retry: () => { void this.act(product, change, announce) } }
      void this.announce(this.l.t.error_change)
      if (product) this.emit('svc-fail', { product, display: this.reportedDisplay, error })
      return false
    }
  }

  /** Accept / remove / check for an item's validity state, each announced. */
  protected validityActions(item: BasketItem): ValidityActions {
    const product = productNameOf(item.product_type)
    const label = itemLabel(this.l, item)
    const id = item.basket_item_id
    return {
      accept: () => this.act(product, (s) => s.accept(id), () => this.l.format('announce_accepted', { item: label, total: this.totalText() })),
      remove: () => this.act(product, (s) => s.remove(id), () => this.l.format('announce_removed', { item: label, total: this.totalText() })),
      check: () => this.act(product, (s) => s.check(), () => this.l.t.state_checking),
      chooseAnother: () => this.chooseAnother(item),
    }
  }

  /** "Choose another" of an unavailable item: removes it; views then lead the traveller to the options. */
  protected async chooseAnother(item: BasketItem): Promise<boolean> {
    return this.validityActions(item).remove()
  }

  protected get busy(): boolean { return this.activeSession?.state.busy ?? false }

  protected renderLive() {
    return html`<div class="sr-only" role="status" aria-live="polite" part="live">${this.announcement}</div>`
  }

  protected renderFailure() {
    if (!this.failure) return nothing
    return html`<div class="notice danger" role="alert" part="error">
      <p>${this.l.t.error_change}</p>
      <div class="actions"><button type="button" class="btn" @click=${this.failure.retry}>${this.l.t.retry}</button></div>
    </div>`
  }

  protected renderLoading() {
    return html`<div class="skeleton" part="loading">
      <div class="bar title"></div><div class="bar"></div><div class="bar block"></div><div class="bar short"></div>
      <svc-spinner label=${this.l.t.loading}></svc-spinner>
    </div>`
  }

  protected renderLoadError() {
    return html`<div class="notice danger" role="alert" part="error">
      <p class="title">${this.l.t.error_load}</p>
      <div class="actions"><button type="button" class="btn" @click=${this.retryLoad}>${this.l.t.retry}</button></div>
    </div>`
  }
}
