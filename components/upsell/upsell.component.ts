import { html, LitElement, type PropertyValues } from 'lit'
import { SvcError } from '../../client/errors.ts'
import { PRODUCT_NAMES, type Display, type ProductName, type Theme } from '../../client/types.ts'
import { adoptTheme, tokenVars } from '../theme.ts'
import { sharedStyles } from '../internal/styles.ts'
import { emit, property, state, TripElement } from '../internal/element.ts'
import { renderLoadError, renderLoading } from '../internal/frame.ts'
import { isOffered, PRODUCT_TYPE } from '../internal/format.ts'
import { lazyElement, lazyState, loadLazy, type Lazy } from '../internal/lazy.ts'
import { SessionController } from '../controllers/session.ts'
import { DIALOG } from '../controllers/display.ts'
import { dialogFrames } from '../controllers/dialog.ts'
import { styles } from './upsell.styles.ts'
import '../price/price.ts'
import '../spinner/spinner.ts'
import '../bag-upsell/bag-upsell.ts'

/**
 * The views that come when first shown (svc.min.js fetches each from its own file; ../internal/lazy.ts):
 * the bag view is in the script itself, for the first bag control.
 */
const OPTION_CARD = lazyElement('svc-option-card', () => import('../option-card/option-card.ts'))
const LAZY_VIEW: Partial<Record<ProductName, Lazy>> = {
  seats: lazyElement('svc-seat-map', () => import('../seat-map/seat-map.ts')),
  priority_boarding: OPTION_CARD,
  automatic_check_in: OPTION_CARD,
  fare_family_upsell: OPTION_CARD,
}

/**
 * The widget `Svc.showUpsell` mounts: one view per product type that is both asked for and on sale on
 * this trip, in one display. It provides the session and the locale to every view (context), carries
 * `lang` and `dir`, applies the seller's theme, and is where the page hears about the basket.
 * A view whose element has not arrived yet shows the loading state in its place (the others show
 * meanwhile), and its error state, reported as `svc-fail` for its product, if it cannot load.
 *
 * In `card` and `embedded` display each product is its own card or section; in `modal` display one dialog
 * opened on mount holds them all.
 *
 * @event svc-basket-change - The basket changed: an item added or removed, or its validity or price changed (`{basket}` with `validity.state`).
 * @event svc-load - A product's offers are visible (`{product, display}`), once per product.
 * @event svc-fail - The trip could not load (once per product asked for), nothing asked for is on sale (`no_products`), or a change was refused.
 * @event svc-request-close - Cancelable, before the traveller closes a dialog (`{source}`: `close-button`, `escape` or `done-button`); `preventDefault()` keeps it open.
 * @event svc-modal-close - The traveller closed a dialog (`{product, display}`; in modal display once per product shown).
 * @csspart base - The list of product views (card and embedded displays).
 * @csspart modal - The dialog of the modal display (its parts exported as `dialog`, `header`, `dialog-title`, `close-button`, `body`, `footer`).
 * @csspart section - A product's section in the modal display.
 * @csspart loading - The skeleton while the trip and the offers of its products load.
 * @csspart error - The load error.
 * @csspart empty - The "no extras on this flight" message.
 * @csspart total - The dialog's total line.
 * @csspart done-button - The dialog's "Done" button.
 * @cssproperty --svc-color-text - Text colour (theme `textPrimary`); every `--svc-*` token of the theme applies to all views inside.
 * @cssproperty --svc-color-primary - Buttons, switches and steppers (theme `primary`).
 * @cssproperty --svc-space - Spacing unit (theme `spacing`).
 * @cssproperty --svc-color-on-primary - Text on primary buttons (theme `primaryText`).
 * @cssproperty --svc-color-warning - Price changes and expiring items (theme `warning`).
 * @cssproperty --svc-color-danger - Errors and unavailable items (theme `danger`).
 * @cssproperty --svc-font - Font family (theme `font`).
 * @cssproperty --svc-focus-ring - The focus ring, a box-shadow (theme `focusRing`).
 * @tagname svc-upsell
 */
export class SvcUpsell extends TripElement(LitElement) {
  static override styles = [tokenVars, sharedStyles, styles]

  readonly #trip: SessionController = new SessionController(this, {
    offerTypes: () => this.#requested().map((n) => PRODUCT_TYPE[n]),
    basketEvents: () => true,
    // The card and modal displays open dialogs: the widget waits for their frames, as for the trip.
    needs: () => (this.display === 'embedded' ? [] : [DIALOG]),
  })
  #failedWith: SvcError | null = null
  /** The element load error reported for each product, so each is reported once. */
  readonly #viewFailures = new Map<ProductName, SvcError>()
  #emptyReported = false

  @state() private dialogOpen = false

  /** `card`, `embedded` or `modal`: one display for every product of this instance. */
  @property({ reflect: true }) display: Display = 'embedded'
  /** Product types to show, if on sale (`bags`, `seats`, `priority_boarding`, `automatic_check_in`, `fare_family_upsell`). */
  @property({ attribute: false }) products: ProductName[] = [...PRODUCT_NAMES]
  /** The seller's theme; mapped onto the `--svc-*` tokens. */
  @property({ attribute: false }) theme: Theme | undefined

  private get l() {
    return this.#trip.locale.l
  }

  protected override willUpdate(changed: PropertyValues) {
    if (changed.has('display')) this.dialogOpen = this.display === 'modal'
    // The elements of the views to show start loading as soon as the trip's offers name them.
    if (this.#trip.value?.state.search)
      for (const n of this.visibleProducts) if (LAZY_VIEW[n]) loadLazy(LAZY_VIEW[n], this)
  }

  protected override updated(changed: PropertyValues) {
    if (changed.has('theme') && this.shadowRoot) adoptTheme(this.shadowRoot, this.theme)
    this.#report()
  }

  /** Asked for and on sale, in the canonical order. */
  get visibleProducts(): ProductName[] {
    const search = this.#trip.value?.state.search ?? null
    return this.#requested().filter((n) => isOffered(search, n))
  }

  /** The error of a product whose offers failed while others loaded (the airline gave bags, not its seat maps). */
  #failedAlone = (n: ProductName) => this.#trip.value?.state.offers[PRODUCT_TYPE[n]]?.error

  /** What the upsell shows: on sale, or failed alone (with its error in its place). */
  #shown(): ProductName[] {
    return this.#requested().filter((n) => this.visibleProducts.includes(n) || this.#failedAlone(n))
  }

  #requested(): ProductName[] {
    return PRODUCT_NAMES.filter((n) => this.products.includes(n))
  }

  #report() {
    if (!this.#trip.value) return
    const st = this.#trip.loadState
    if (st.status === 'error' && st.error && this.#failedWith !== st.error) {
      this.#failedWith = st.error
      for (const product of this.#requested())
        emit(this, 'svc-fail', { product, display: this.display, error: st.error })
    }
    if (st.status === 'ready' && this.#shown().length === 0 && !this.#emptyReported) {
      this.#emptyReported = true
      const error = new SvcError('no_products', this.l.t.no_extras)
      for (const product of this.#requested()) emit(this, 'svc-fail', { product, display: this.display, error })
    }
    if (st.status !== 'ready') return
    for (const product of this.#shown()) {
      const lazy = LAZY_VIEW[product]
      const error = this.#failedAlone(product) ?? (lazy && lazyState(lazy).error)
      if (error && this.#viewFailures.get(product) !== error) {
        this.#viewFailures.set(product, error)
        emit(this, 'svc-fail', { product, display: this.display, error })
      }
    }
  }

  /** Opens the dialog again (modal display). */
  show() {
    if (this.display === 'modal') this.dialogOpen = true
  }

  #onDialogClose = (e: Event) => {
    e.stopPropagation()
    this.dialogOpen = false
    const shown = this.visibleProducts
    for (const product of shown.length ? shown : this.#requested())
      emit(this, 'svc-modal-close', { product, display: this.display })
  }

  #onDone = () => {
    if (emit(this, 'svc-request-close', { source: 'done-button' }, true)) this.dialogOpen = false
  }

  #view(name: ProductName, framed: boolean) {
    const d = this.display
    if (this.#failedAlone(name)) return html`<div class="state-box">${renderLoadError(this.l, this.#trip.retry)}</div>`
    const lazy = LAZY_VIEW[name]
    const st = lazy ? lazyState(lazy) : null
    if (lazy && st && st.status !== 'ready') {
      return html`<div class="state-box" aria-busy=${st.status === 'loading' ? 'true' : 'false'}>
        ${st.status === 'error' ? renderLoadError(this.l, () => loadLazy(lazy, this, true)) : renderLoading(this.l)}</div>`
    }
    if (name === 'bags') return html`<svc-bag-upsell display=${d} ?framed=${framed}></svc-bag-upsell>`
    if (name === 'seats') return html`<svc-seat-map display=${d} ?framed=${framed}></svc-seat-map>`
    return html`<svc-option-card product=${name} display=${d} ?framed=${framed}></svc-option-card>`
  }

  #renderState() {
    const st = this.#trip.loadState
    if (st.status === 'loading') return html`<div class="state-box" aria-busy="true">${renderLoading(this.l)}</div>`
    if (st.status === 'error') return html`<div class="state-box">${renderLoadError(this.l, this.#trip.retry)}</div>`
    return html`<div class="empty" part="empty"><p>${this.l.t.no_extras}</p></div>`
  }

  override render() {
    const shown = this.#trip.loadState.status === 'ready' ? this.#shown() : []
    const frames = this.display === 'modal' && dialogFrames(this.renderRoot)
    // The modal display's dialog is drawn by the dialog frames; until they are here (loading, or their load
    // failed), it shows that state inline.
    if (frames) {
      return frames.upsell({
        open: this.dialogOpen,
        l: this.l,
        shown,
        view: (n, framed) => this.#view(n, framed),
        state: () => this.#renderState(),
        total: () => this.#trip.total(),
        close: this.#onDialogClose,
        done: this.#onDone,
      })
    }
    return shown.length
      ? html`<div class="views" part="base">${shown.map((n) => this.#view(n, false))}</div>`
      : this.#renderState()
  }
}
