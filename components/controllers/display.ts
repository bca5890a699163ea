/**
 * The frame of a product view (bags, seats, the option cards), by its host's `display`:
 * - `embedded`: the panel inline, under its heading;
 * - `card`: a compact summary (what is selected, the total, items needing action) and a button that
 *   opens the panel in a dialog;
 * - `modal`: the panel in a dialog opened on mount (`show()` opens it again after the traveller closed it);
 * - `framed`: only the panel, for a parent that frames several views in one dialog (`<svc-upsell>`).
 * Every state is visible in every display: loading (skeleton, aria-busy), load error with "Try again",
 * nothing offered, refused change, and each item's validity. The card and modal displays are drawn by
 * ../dialog-frames/dialog-frames.ts (the card, the dialog and `<svc-modal>`), which svc.min.js fetches the first time a
 * view is shown in one of them (./dialog.ts, ../internal/lazy.ts): until it is there the view shows its
 * loading state as a section, and if it cannot load, its error state.
 *
 * Events: `svc-load` once the offers are visible, `svc-fail` on a load error (when alone on the page; in
 * `<svc-upsell>` the root reports it once) or when nothing is offered, `svc-request-close` (cancelable)
 * before the "Done" button closes the dialog, `svc-modal-close` when the dialog closes.
 */
import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit'
import { SvcError } from '../../client/errors.ts'
import type { Session } from '../../client/session.ts'
import type { BasketItem, Display, ProductName } from '../../client/types.ts'
import { extras, isOffered, PRODUCT_TYPE } from '../internal/format.ts'
import { purchased } from '../../client/offers.ts'
import { renderLoadError, renderLoading } from '../internal/frame.ts'
import { emit } from '../internal/element.ts'
import type { Lazy } from '../internal/lazy.ts'
import type { SvcModal } from '../modal/modal.component.ts'
import { dialogFrames, type Framed } from './dialog.ts'
import { SessionController } from './session.ts'
import type { Strings } from '../i18n/index.ts'

/** The card and modal displays' frames and `<svc-modal>` (`<svc-upsell>`'s dialog too), loaded the first time one is shown. */
export const DIALOG: Lazy = {
  name: 'the dialog',
  ready: () => !!dialogFrames(),
  load: () => import('../dialog-frames/dialog-frames.ts'),
}

type Host = ReactiveControllerHost &
  HTMLElement & {
    display: Display
    framed: boolean
    session: Session | undefined
    locale: string | undefined
    renderRoot: HTMLElement | DocumentFragment
  }

/** Keys of a view's texts in the locale tables. */
export type ViewTexts = Record<'heading' | 'open' | 'edit' | 'none' | 'empty', keyof Strings>

/** What a product view fills the frame with. */
export interface ViewSpec {
  /** The `allowProducts` name the view sells, used in events. */
  product(): ProductName
  /** The keys of its heading, the card's button before and after a choice, and its "nothing chosen" / "nothing on sale" texts. */
  texts(): ViewTexts
  /** The panel once the offers are loaded. */
  panel(): unknown
  icon?(): TemplateResult
  /** Whether anything of this kind is on sale to someone on this trip (by default: the search offers it). */
  offered?(): boolean
  /** Moves focus to the options of an item after "Choose another" (by default the first `[data-options]`). */
  focusOptions?(item: BasketItem): void
}

/**
 * A product view composes this one controller: it brings the view's session (with the offers of its
 * product), its locale and its basket changes, and frames the view's panel in its display.
 */
export class DisplayController implements ReactiveController, Framed {
  readonly #session: SessionController
  readonly #host: Host
  readonly #spec: ViewSpec
  #display: Display | undefined
  #framed: boolean | undefined
  #loadedAs: Display | null = null
  #failedWith: SvcError | null = null
  #emptyReported = false
  /** The dialog of the card and modal displays is open. */
  #open = false

  constructor(host: Host, spec: ViewSpec) {
    this.#host = host
    this.#spec = spec
    const session: SessionController = (this.#session = new SessionController(host, {
      offerTypes: () => [PRODUCT_TYPE[spec.product()]],
      basketEvents: (): boolean => session.standalone,
      chooseAnother: (i) => this.#chooseAnother(i),
      needs: () => (this.#dialog ? [DIALOG] : []),
    }))
    host.addController(this)
  }

  /**
   * The trip session, the offers of the view's product loading with it; its `locale`, and the traveller's
   * basket changes (refusals reported with the view's product and display).
   */
  get session(): SessionController {
    return this.#session
  }

  hostUpdate() {
    // A new display (or framing) starts closed, except the modal display, which opens on mount.
    const { display, framed } = this.#host
    if (display !== this.#display || framed !== this.#framed) {
      this.#display = display
      this.#framed = framed
      this.#open = display === 'modal' && !framed
    }
  }

  hostUpdated() {
    this.#report()
  }

  #setOpen(open: boolean) {
    this.#open = open
    this.#host.requestUpdate()
  }

  #report() {
    const { display } = this.#host
    const session = this.#session
    const product = this.#spec.product()
    const st = session.loadState
    if (st.status === 'error' && st.error && session.standalone && this.#failedWith !== st.error) {
      this.#failedWith = st.error
      emit(this.#host, 'svc-fail', { product, display, error: st.error })
    }
    if (st.status !== 'ready') return
    if (!this.offered()) {
      if (session.standalone && !this.#emptyReported) {
        this.#emptyReported = true
        emit(this.#host, 'svc-fail', { product, display, error: new SvcError('no_products', this.text('empty')) })
      }
      return
    }
    const visible = display !== 'modal' || this.#host.framed || this.#open
    if (visible && this.#loadedAs !== display) {
      this.#loadedAs = display
      emit(this.#host, 'svc-load', { product, display })
    }
  }

  // What the dialog frames read (./dialog.ts).
  get open(): boolean {
    return this.#open
  }

  text(name: keyof ViewTexts): string {
    return this.#session.locale.l.t[this.#spec.texts()[name]]
  }

  offered(): boolean {
    return this.#spec.offered?.() ?? isOffered(this.#session.value?.state.search ?? null, this.#spec.product())
  }

  icon(): unknown {
    return this.#spec.icon?.() ?? nothing
  }

  get #dialog(): boolean {
    return !this.#host.framed && this.#host.display !== 'embedded'
  }

  /** The basket items this view sells, not yet paid for; or (`bought`) those an earlier fulfill bought. */
  items(bought = false): BasketItem[] {
    const type = PRODUCT_TYPE[this.#spec.product()]
    return (bought ? purchased : extras)(this.#session.value?.state.basket ?? {}).filter((i) => i.product_type === type)
  }

  /** "Choose another": removes the item, opens the dialog (card and modal displays), focuses the options. */
  async #chooseAnother(item: BasketItem): Promise<boolean> {
    if (!(await this.#session.validityActions(item).remove())) return false
    this.show()
    await this.#host.updateComplete
    await this.#host.renderRoot.querySelector<SvcModal>('svc-modal')?.updateComplete
    if (this.#spec.focusOptions) this.#spec.focusOptions(item)
    else this.#host.renderRoot.querySelector<HTMLElement>('[data-options]')?.focus()
    return true
  }

  /** Opens the dialog (card and modal displays). */
  show() {
    if (this.#dialog) this.#setOpen(true)
  }

  /** Closes the dialog. */
  hide() {
    this.#setOpen(false)
  }

  close = (e: Event) => {
    e.stopPropagation()
    this.#setOpen(false)
    emit(this.#host, 'svc-modal-close', { product: this.#spec.product(), display: this.#host.display })
  }

  done = () => {
    if (emit(this.#host, 'svc-request-close', { source: 'done-button' }, true)) this.hide()
  }

  /** The panel area in the session's current state. */
  body() {
    const st = this.#session.loadState
    const l = this.#session.locale.l
    if (st.status === 'loading') return renderLoading(l)
    if (st.status === 'error') return renderLoadError(l, this.#session.retry)
    if (!this.offered()) return html`<div class="empty" part="empty"><p>${this.text('empty')}</p></div>`
    return this.#spec.panel()
  }

  #renderSection() {
    const busy = this.#session.loadState.status === 'loading' ? 'true' : 'false'
    const body = html`${this.#session.renderLive()}${this.#session.renderFailure()}${this.body()}`
    if (this.#host.framed) return html`<div class="view" part="base" aria-busy=${busy}>${body}</div>`
    return html`<section class="view" part="base" aria-labelledby="heading" aria-busy=${busy}>
      <h2 id="heading" class="card-title" part="title">${this.icon()}${this.text('heading')}</h2>
      ${body}
    </section>`
  }

  /** The host's whole template in its display. */
  render() {
    const { display, framed } = this.#host
    const frames = !framed && display !== 'embedded' && dialogFrames(this.#host.renderRoot)
    // Until the dialog frames are here (loading, or their load failed), the view shows that state as a section.
    if (!frames) return this.#renderSection()
    return display === 'modal' ? frames.dialog(this) : frames.card(this)
  }
}
