import { html, LitElement, nothing, type CSSResultOrNative, type PropertyValues } from 'lit'
import { property, state } from 'lit/decorators.js'
import { SvcError } from '../../client/errors.ts'
import { PRODUCT_NAMES, type Display, type ProductName, type Theme } from '../../client/types.ts'
import { adoptTheme, tokenVars } from '../theme.ts'
import { sharedStyles } from '../shared/styles.ts'
import { emit, TripElement } from '../shared/element.ts'
import { renderLoadError, renderLoading } from '../shared/frame.ts'
import { isOffered, PRODUCT_TYPE } from '../shared/format.ts'
import { SessionController } from '../controllers/session.ts'
import type { Strings } from '../i18n/index.ts'
import { styles } from './upsell.styles.ts'
import '../shared/modal/modal.ts'
import '../shared/price/price.ts'
import '../shared/spinner/spinner.ts'
import '../bag-upsell/bag-upsell.ts'
import '../options/option-card.ts'
import '../seat-map/seat-map.ts'

const TITLE: Record<ProductName, keyof Strings> = {
  bags: 'bags_title',
  seats: 'seats_title',
  priority_boarding: 'priority_boarding_title',
  automatic_check_in: 'automatic_check_in_title',
  fare_family_upsell: 'fare_family_title',
}

/**
 * The widget `Svc.showUpsell` mounts: one view per product type that is both asked for and on sale on
 * this trip, in one display. It provides the session and the locale to every view (context), carries
 * `lang` and `dir`, applies the seller's theme, and is where the page hears about the basket.
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

  readonly #trip: SessionController = new SessionController(this, { offerTypes: () => this.#requested().map((n) => PRODUCT_TYPE[n]), basketEvents: () => true })
  #failedWith: SvcError | null = null
  #emptyReported = false

  @state() private dialogOpen = false

  /** `card`, `embedded` or `modal`: one display for every product of this instance. */
  @property({ reflect: true }) display: Display = 'embedded'
  /** Product types to show, if on sale (`bags`, `seats`, `priority_boarding`, `automatic_check_in`, `fare_family_upsell`). */
  @property({ attribute: false }) products: ProductName[] = [...PRODUCT_NAMES]
  /** The seller's theme; mapped onto the `--svc-*` tokens. */
  @property({ attribute: false }) theme: Theme | undefined

  private get l() { return this.#trip.locale.l }

  protected override willUpdate(changed: PropertyValues) {
    if (changed.has('display')) this.dialogOpen = this.display === 'modal'
  }

  protected override updated(changed: PropertyValues) {
    if (changed.has('theme') && this.shadowRoot) {
      const base = (this.constructor as typeof SvcUpsell).elementStyles.map((s: CSSResultOrNative) => (s instanceof CSSStyleSheet ? s : s.styleSheet!))
      adoptTheme(this.shadowRoot, base, this.theme)
    }
    this.#report()
  }

  /** Asked for and on sale, in the canonical order. */
  get visibleProducts(): ProductName[] {
    const search = this.#trip.value?.state.search ?? null
    return PRODUCT_NAMES.filter((n) => this.products.includes(n) && isOffered(search, n))
  }

  #requested(): ProductName[] { return PRODUCT_NAMES.filter((n) => this.products.includes(n)) }

  #report() {
    if (!this.#trip.value) return
    const st = this.#trip.loadState
    if (st.status === 'error' && st.error && this.#failedWith !== st.error) {
      this.#failedWith = st.error
      for (const product of this.#requested()) emit(this, 'svc-fail', { product, display: this.display, error: st.error })
    }
    if (st.status === 'ready' && this.visibleProducts.length === 0 && !this.#emptyReported) {
      this.#emptyReported = true
      const error = new SvcError('no_products', this.l.t.no_extras)
      for (const product of this.#requested()) emit(this, 'svc-fail', { product, display: this.display, error })
    }
  }

  /** Opens the dialog again (modal display). */
  show() { if (this.display === 'modal') this.dialogOpen = true }

  #onDialogClose = (e: Event) => {
    e.stopPropagation()
    this.dialogOpen = false
    const shown = this.visibleProducts
    for (const product of shown.length ? shown : this.#requested()) emit(this, 'svc-modal-close', { product, display: this.display })
  }

  #onDone = () => { if (emit(this, 'svc-request-close', { source: 'done-button' }, true)) this.dialogOpen = false }

  #view(name: ProductName, framed: boolean) {
    const d = this.display
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
    const shown = this.#trip.loadState.status === 'ready' ? this.visibleProducts : []
    const body = shown.length === 0 ? this.#renderState() : nothing
    if (this.display !== 'modal') {
      return html`${shown.length ? html`<div class="views" part="base">${shown.map((n) => this.#view(n, false))}</div>` : body}`
    }
    const l = this.l
    const title = shown.length === 1 ? l.t[TITLE[shown[0]!]] : l.t.extras_title
    return html`<svc-modal part="modal" exportparts="dialog, header, title: dialog-title, close-button, body, footer"
        .open=${this.dialogOpen} .label=${title} @svc-dialog-close=${this.#onDialogClose}>
      ${this.dialogOpen ? html`
        ${shown.length === 0 ? body
          : shown.length === 1 ? this.#view(shown[0]!, true)
          : html`<div class="sections">${shown.map((n, i) => html`<section class="section" part="section" aria-labelledby="section-${i}">
              <h3 id="section-${i}">${l.t[TITLE[n]]}</h3>${this.#view(n, true)}</section>`)}</div>`}
        <div slot="footer" class="footer">
          ${shown.length ? html`<p class="total-line" part="total"><span>${l.t.total}</span><svc-price exact .amount=${this.#trip.total()}></svc-price></p>` : html`<span></span>`}
          <button type="button" class="btn primary" part="done-button" @click=${this.#onDone}>${shown.length ? l.t.done : l.t.close}</button>
        </div>` : nothing}
    </svc-modal>`
  }
}
