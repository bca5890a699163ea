import { html, LitElement } from 'lit'
import { LocaleController } from '../controllers/locale.ts'
import { emit, property, state } from '../internal/element.ts'
import { tokenVars } from '../theme.ts'
import { containsDeep, deepActiveElement, tabbables } from '../internal/focus.ts'
import { styles } from './modal.styles.ts'

/** How the traveller closes a dialog: its close button, Escape, or a view's "Done" button. */
export type SvcCloseSource = 'close-button' | 'escape' | 'done-button'

/** Open dialogs; the page scrolls again when the last one closes. */
let locks = 0
let saved: { overflow: string; paddingInlineEnd: string } | null = null

function lockScroll() {
  if (locks++ > 0) return
  const root = document.documentElement
  const gutter = window.innerWidth - root.clientWidth
  saved = { overflow: root.style.overflow, paddingInlineEnd: root.style.paddingInlineEnd }
  root.style.overflow = 'hidden'
  // The scrollbar disappears with the overflow; padding keeps the page from shifting under the dialog.
  if (gutter > 0) root.style.paddingInlineEnd = `${gutter}px`
}

function unlockScroll() {
  if (locks === 0 || --locks > 0) return
  const root = document.documentElement
  root.style.overflow = saved?.overflow ?? ''
  root.style.paddingInlineEnd = saved?.paddingInlineEnd ?? ''
  saved = null
}

/**
 * A modal dialog on the native `<dialog>` (showModal): the browser makes the page inert, puts the dialog in
 * the top layer and closes it on Escape. This element adds what the native one lacks: a labelled header
 * with a close button, focus kept inside on Tab (the native dialog lets Tab leave for the browser's UI),
 * initial focus on the title, focus returned to the opener, and the page's scroll locked while open.
 *
 * @event svc-request-close - Cancelable, before the traveller closes the dialog (`{source}`: `close-button` or `escape`); `preventDefault()` keeps it open. `close()` and `open = false` close it without asking.
 * @event svc-dialog-close - The dialog closed (Escape, the close button, or `open = false`).
 * @slot - The dialog's content.
 * @slot footer - Actions and totals under the content (e.g. a "Done" button).
 * @csspart dialog - The `<dialog>` element.
 * @csspart header - The title bar.
 * @csspart title - The title.
 * @csspart close-button - The close button.
 * @csspart body - The scrolling content area.
 * @csspart footer - The area under the content.
 * @cssproperty --svc-modal-width - Largest width of the dialog (default 40rem).
 * @cssproperty --svc-color-background - Background of the dialog.
 * @tagname svc-modal
 */
export class SvcModal extends LitElement {
  static override styles = [tokenVars, styles]

  #opener: HTMLElement | null = null
  #locked = false
  /** The close button's name, in the locale provided above. */
  readonly #locale = new LocaleController(this)

  @state() private hasFooter = false

  /** Shows the dialog (modal) when true. */
  @property({ type: Boolean, reflect: true }) open = false
  /** The dialog's title, which also names it for assistive technology. */
  @property() label = ''

  override disconnectedCallback() {
    super.disconnectedCallback()
    // A dialog removed from the page is closed by the browser without a `close` event.
    if (this.#locked) {
      this.#locked = false
      unlockScroll()
    }
  }

  override updated(changed: Map<string, unknown>) {
    if (changed.has('open')) {
      if (this.open) this.#show()
      else if (this.#dialog.open) this.#dialog.close()
    }
  }

  // Getters rather than @query: the same lookup, without the decorator's code in the budgeted bundle.
  get #dialog() {
    return this.renderRoot.querySelector('dialog')!
  }
  get #titleEl() {
    return this.renderRoot.querySelector<HTMLElement>('.title')!
  }

  #show() {
    if (this.#dialog.open || !this.isConnected) return
    const active = deepActiveElement()
    this.#opener = active instanceof HTMLElement && active !== document.body ? active : null
    this.#dialog.showModal()
    if (!this.#locked) {
      this.#locked = true
      lockScroll()
    }
    // The title first: a screen reader reads where the traveller is, and Tab goes on to the controls.
    this.#titleEl.focus()
  }

  /** Asks the page first (`svc-request-close`); false when a listener called preventDefault(). */
  #mayClose(source: SvcCloseSource) {
    return emit(this, 'svc-request-close', { source }, true)
  }

  // Other close requests (a system back gesture) reach the dialog as `cancel`, prevented when the page keeps it open.
  #onCancel = (e: Event) => {
    if (!this.#mayClose('escape')) e.preventDefault()
  }

  #onClose = () => {
    if (this.#locked) {
      this.#locked = false
      unlockScroll()
    }
    this.open = false
    const opener = this.#opener
    this.#opener = null
    if (opener?.isConnected) opener.focus()
    emit(this, 'svc-dialog-close', {})
  }

  /** Tab and Shift+Tab wrap around inside the dialog (through slots and nested shadow roots); Escape asks, then closes. */
  #onKeydown = (e: KeyboardEvent) => {
    // Escape closes the dialog here rather than by the native `cancel`, which Chromium makes uncancelable
    // when there was no user activation since the last close request (the HTML close-watcher rules).
    if (e.key === 'Escape' && !e.defaultPrevented) {
      e.preventDefault()
      if (this.#mayClose('escape')) this.close()
    }
    if (e.key !== 'Tab' || e.defaultPrevented) return
    const items = tabbables(this.#dialog)
    if (items.length === 0) {
      e.preventDefault()
      return
    }
    const first = items[0]!
    const last = items[items.length - 1]!
    const active = deepActiveElement()
    const inside = items.some((el) => el === active)
    if (e.shiftKey && (active === first || !inside)) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && (active === last || !containsDeep(this.#dialog, active))) {
      e.preventDefault()
      first.focus()
    }
  }

  #onFooterChange = (e: Event) => {
    this.hasFooter = (e.target as HTMLSlotElement).assignedNodes({ flatten: true }).length > 0
  }

  /** Closes the dialog (as Escape does). */
  close() {
    this.open = false
  }

  override render() {
    const l = this.#locale.l
    return html`
      <dialog part="dialog" aria-labelledby="title" aria-modal="true" @cancel=${this.#onCancel} @close=${this.#onClose} @keydown=${this.#onKeydown}>
          <header part="header">
            <h2 id="title" class="title" part="title" tabindex="-1">${this.label}</h2>
            <button type="button" class="close" part="close-button" aria-label=${l.t.close} @click=${() => {
              if (this.#mayClose('close-button')) this.close()
            }}>
              <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path d="M6 6l12 12M18 6L6 18" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>
            </button>
          </header>
          <div class="body" part="body"><slot></slot></div>
          <footer part="footer" ?hidden=${!this.hasFooter}><slot name="footer" @slotchange=${this.#onFooterChange}></slot></footer>
      </dialog>`
  }
}
