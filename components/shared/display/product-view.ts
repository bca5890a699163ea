/**
 * Display handling shared by the product views (bags, seats, the option cards):
 * - `embedded`: the panel inline, under its heading;
 * - `card`: a compact summary (what is selected, the total, items needing action) and a button that
 *   opens the panel in a dialog;
 * - `modal`: the panel in a dialog opened on mount (`show()` opens it again after the traveller closed it);
 * - `framed`: only the panel, for a parent that frames several views in one dialog (`<svc-upsell>`).
 * Every state is visible in every display: loading (skeleton, aria-busy), load error with "Try again",
 * nothing offered, refused change, and each item's validity.
 *
 * Events: `svc-load` once the offers are visible, `svc-fail` on a load error (when alone on the page; in
 * `<svc-upsell>` the root reports it once) or a refused change, `svc-modal-close` when its dialog closes,
 * `svc-basket-change` when alone on the page.
 */
import { html, nothing, type PropertyValues, type TemplateResult } from 'lit'
import { property, state } from 'lit/decorators.js'
import { SvcError } from '../../../client/errors.ts'
import type { BasketItem, Display, ProductName } from '../../../client/types.ts'
import { tokenVars } from '../../theme.ts'
import { sharedStyles } from '../styles.ts'
import { SvcSessionElement } from '../session-element.ts'
import { extras, isOffered, itemContext, itemLabel, num, PRODUCT_TYPE } from '../format.ts'
import type { ProductTypeName } from '../../../client/session.ts'
import { renderBadge, renderValidity } from '../validity.ts'
import type { SvcModal } from '../modal/modal.component.ts'
import '../modal/modal.ts'
import '../price/price.ts'
import '../spinner/spinner.ts'

export abstract class SvcProductView extends SvcSessionElement {
  static override styles = [tokenVars, sharedStyles]

  #loadedAs: Display | null = null
  #failedWith: SvcError | null = null
  #emptyReported = false

  /** The dialog of the card and modal displays is open. */
  @state() protected dialogOpen = false

  /** How the view is shown: `card`, `embedded` or `modal`. */
  @property({ reflect: true }) display: Display = 'embedded'
  /** Only the panel: a parent element provides the heading and the dialog (`<svc-upsell>` in modal display). */
  @property({ type: Boolean, reflect: true }) framed = false

  /** The `allowProducts` name this view sells, used in events. */
  protected abstract get productName(): ProductName
  protected abstract get heading(): string
  protected abstract get openLabel(): string
  protected abstract get editLabel(): string
  protected abstract get noneSelectedText(): string
  protected abstract get noneOfferedText(): string
  /** The panel once the offers are loaded. */
  protected abstract renderPanel(): unknown

  protected icon(): TemplateResult | typeof nothing { return nothing }

  protected override get offerTypes(): readonly ProductTypeName[] { return [PRODUCT_TYPE[this.productName]] }
  protected override get emitsBasketChanges() { return this.standalone }
  protected override get reportedDisplay(): Display { return this.display }

  protected override willUpdate(changed: PropertyValues) {
    super.willUpdate(changed)
    if (changed.has('display') || changed.has('framed')) this.dialogOpen = this.display === 'modal' && !this.framed
  }

  protected override updated(changed: PropertyValues) {
    super.updated(changed)
    this.#report()
  }

  #report() {
    if (!this.activeSession) return
    const st = this.loadState
    if (st.status === 'error' && st.error && this.standalone && this.#failedWith !== st.error) {
      this.#failedWith = st.error
      this.emit('svc-fail', { product: this.productName, display: this.display, error: st.error })
    }
    if (st.status !== 'ready') return
    if (!this.offered()) {
      if (this.standalone && !this.#emptyReported) {
        this.#emptyReported = true
        this.emit('svc-fail', { product: this.productName, display: this.display, error: new SvcError('no_products', this.noneOfferedText) })
      }
      return
    }
    const visible = this.display !== 'modal' || this.framed || this.dialogOpen
    if (visible && this.#loadedAs !== this.display) {
      this.#loadedAs = this.display
      this.emit('svc-load', { product: this.productName, display: this.display })
    }
  }

  /** Whether anything of this kind is on sale to someone on this trip. */
  protected offered(): boolean { return isOffered(this.activeSession?.state.search ?? null, this.productName) }

  /** The basket items this view sells. */
  protected selectedItems(): BasketItem[] {
    const type = PRODUCT_TYPE[this.productName]
    return extras(this.activeSession?.state.basket ?? {}).filter((i) => i.product_type === type)
  }

  /** Moves focus to the options, after "Choose another" (views focus the options of the removed item). */
  protected focusOptions(_item: BasketItem): void {
    this.renderRoot.querySelector<HTMLElement>('[data-options]')?.focus()
  }

  protected override async chooseAnother(item: BasketItem): Promise<boolean> {
    const removed = await super.chooseAnother(item)
    if (!removed) return false
    if (!this.framed && this.display !== 'embedded') this.dialogOpen = true
    await this.updateComplete
    await this.renderRoot.querySelector<SvcModal>('svc-modal')?.updateComplete
    this.focusOptions(item)
    return true
  }

  #onDialogClose = (e: Event) => {
    e.stopPropagation()
    this.dialogOpen = false
    this.emit('svc-modal-close', { product: this.productName, display: this.display })
  }

  #open = () => { this.dialogOpen = true }
  #close = () => { this.dialogOpen = false }

  /** Opens the dialog (card and modal displays). */
  show() { if (!this.framed && this.display !== 'embedded') this.dialogOpen = true }

  /** Closes the dialog. */
  hide() { this.dialogOpen = false }

  protected get loading(): boolean { return this.loadState.status === 'loading' }

  /** The panel area in the session's current state. */
  protected renderBody() {
    const st = this.loadState
    if (st.status === 'loading') return this.renderLoading()
    if (st.status === 'error') return this.renderLoadError()
    if (!this.offered()) return html`<div class="empty" part="empty"><p>${this.noneOfferedText}</p></div>`
    return this.renderPanel()
  }

  /** Total of this view's items (the card's summary and the dialog's footer). */
  protected renderTotal() {
    return html`<p class="total-line" part="total"><span>${this.l.t.total}</span><svc-price exact .amount=${this.basketTotal(this.selectedItems())}></svc-price></p>`
  }

  protected renderSummary() {
    const items = this.selectedItems()
    if (items.length === 0) return html`<p class="muted">${this.noneSelectedText}</p>`
    const l = this.l
    const trip = this.activeSession?.state.trip ?? null
    return html`<ul class="summary" part="summary">
        ${items.map((i) => html`<li>
          <span class="what">${i.quantity > 1 ? l.format('times', { item: itemLabel(l, i), count: num(l, i.quantity) }) : itemLabel(l, i)}
            <span class="context">${itemContext(l, trip, i)}</span></span>
          <span class="actions">${i.validity.status === 'valid' ? nothing : renderBadge(l, i)}<svc-price .amount=${i.price.total} .previous=${i.validity.status === 'price_changed' ? i.validity.previous_price?.total : undefined}></svc-price></span>
        </li>`)}
      </ul>
      ${this.renderTotal()}`
  }

  protected renderFooter() {
    return html`<div slot="footer" class="footer">
      ${this.renderTotal()}
      <button type="button" class="btn primary" part="done-button" @click=${this.#close}>${this.l.t.done}</button>
    </div>`
  }

  protected renderInDialog() {
    return html`<svc-modal part="modal" exportparts="dialog, header, title: dialog-title, close-button, body, footer"
        .open=${this.dialogOpen} .label=${this.heading} @svc-dialog-close=${this.#onDialogClose}>
      ${this.dialogOpen ? html`<div class="view" aria-busy=${this.loading ? 'true' : 'false'}>${this.renderLive()}${this.renderFailure()}${this.renderBody()}</div>` : nothing}
      ${this.dialogOpen && this.loadState.status === 'ready' && this.offered() ? this.renderFooter() : nothing}
    </svc-modal>`
  }

  protected renderCard() {
    const st = this.loadState
    const offered = st.status === 'ready' && this.offered()
    const notices = offered ? this.selectedItems().filter((i) => i.validity.status !== 'valid') : []
    const l = this.l
    const trip = this.activeSession?.state.trip ?? null
    return html`<div class="card" part="card base" aria-busy=${this.loading ? 'true' : 'false'}>
        <div class="card-main">
          <h2 class="card-title" part="title">${this.icon()}${this.heading}</h2>
          ${st.status === 'loading' ? this.renderLoading()
            : st.status === 'error' ? this.renderLoadError()
            : !offered ? html`<p class="muted" part="empty">${this.noneOfferedText}</p>`
            : this.renderSummary()}
        </div>
        ${offered ? html`<button type="button" class="btn primary" part="open-button" aria-haspopup="dialog" @click=${this.#open}>
          ${this.selectedItems().length ? this.editLabel : this.openLabel}</button>` : nothing}
        ${notices.length ? html`<div class="notices">${notices.map((i) => renderValidity(l, i, this.validityActions(i), this.busy, { label: `${itemLabel(l, i)} · ${itemContext(l, trip, i)}`, visibleLabel: true, prices: false }))}</div>` : nothing}
        ${this.dialogOpen ? nothing : html`${this.renderLive()}${this.renderFailure()}`}
      </div>
      ${this.renderInDialog()}`
  }

  protected renderSection() {
    const body = html`${this.renderLive()}${this.renderFailure()}${this.renderBody()}`
    if (this.framed) return html`<div class="view" part="base" aria-busy=${this.loading ? 'true' : 'false'}>${body}</div>`
    return html`<section class="view" part="base" aria-labelledby="heading" aria-busy=${this.loading ? 'true' : 'false'}>
      <h2 id="heading" class="card-title" part="title">${this.icon()}${this.heading}</h2>
      ${body}
    </section>`
  }

  override render() {
    if (this.framed || this.display === 'embedded') return this.renderSection()
    if (this.display === 'modal') return this.renderInDialog()
    return this.renderCard()
  }
}
