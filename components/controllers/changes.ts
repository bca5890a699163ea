/**
 * The traveller's basket changes in an element (state the host renders; it needs no lifecycle hooks): one at a time (nothing starts while the session is busy),
 * each result announced in a polite live region, and a refused change shown with "Try again" (which re-runs
 * the same intent against the basket as it then is) and reported as `svc-fail`.
 */
import { html, nothing, type ReactiveControllerHost } from 'lit'
import { SvcError } from '../../client/errors.ts'
import type { Session } from '../../client/session.ts'
import type { BasketItem, Display, ProductName } from '../../client/types.ts'
import { itemLabel, price, productNameOf } from '../shared/format.ts'
import type { ValidityActions } from '../shared/validity.ts'
import { emit } from '../shared/element.ts'
import type { SessionController } from './session.ts'
import type { LocaleController } from './locale.ts'

type Host = ReactiveControllerHost & HTMLElement

export interface Failure { error: SvcError; retry: () => void }

export function toSvcError(e: unknown): SvcError {
  return e instanceof SvcError ? e : new SvcError('internal', e instanceof Error ? e.message : String(e), { cause: e })
}

export interface ChangesOptions {
  /** The display reported in `svc-fail`. */
  display?: () => Display
  /** "Choose another" of an unavailable item; by default it removes the item. */
  chooseAnother?: (item: BasketItem) => Promise<boolean>
}

export class ChangesController {
  readonly #host: Host
  readonly #session: SessionController
  readonly #locale: LocaleController
  readonly #opts: ChangesOptions
  /** What the live region says (it is cleared first, so the same words are announced again). */
  #announcement = ''
  /** The last refused change, shown with "Try again". */
  #failure: Failure | null = null

  constructor(host: Host, session: SessionController, locale: LocaleController, opts: ChangesOptions = {}) {
    this.#host = host
    this.#session = session
    this.#locale = locale
    this.#opts = opts
  }

  #set(announcement: string, failure = this.#failure) {
    this.#announcement = announcement
    this.#failure = failure
    this.#host.requestUpdate()
  }

  async announce(message: string) {
    this.#set('')
    await this.#host.updateComplete
    this.#set(message)
  }

  /** The basket total in words, for announcements. */
  totalText(): string { return price(this.#locale.l, this.#session.total()) }

  /** Runs one basket change; false when it was refused or could not start. */
  async act(product: ProductName | null, change: (s: Session) => Promise<void>, announce?: () => string): Promise<boolean> {
    const s = this.#session.value
    if (!s || s.state.busy) return false
    this.#set(this.#announcement, null)
    try {
      await change(s)
      if (announce) void this.announce(announce())
      return true
    } catch (e) {
      const error = toSvcError(e)
      this.#set(this.#announcement, { error, retry: () => { void this.act(product, change, announce) } })
      void this.announce(this.#locale.l.t.error_change)
      if (product) emit(this.#host, 'svc-fail', { product, display: this.#opts.display?.() ?? 'embedded', error })
      return false
    }
  }

  /** Accept / remove / check / choose another for an item's validity state, each announced. */
  validityActions(item: BasketItem): ValidityActions {
    const l = this.#locale.l
    const product = productNameOf(item.product_type)
    const label = itemLabel(l, item)
    const id = item.basket_item_id
    const remove = () => this.act(product, (s) => s.remove(id), () => l.format('announce_removed', { item: label, total: this.totalText() }))
    return {
      accept: () => this.act(product, (s) => s.accept(id), () => l.format('announce_accepted', { item: label, total: this.totalText() })),
      remove,
      check: () => this.act(product, (s) => s.check(), () => l.t.state_checking),
      chooseAnother: () => (this.#opts.chooseAnother ?? remove)(item),
    }
  }

  /** Removes an item as its "Remove" does (for a host's own "Choose another"). */
  remove(item: BasketItem): Promise<boolean> { return this.validityActions(item).remove() }

  renderLive() {
    return html`<div class="sr-only" role="status" aria-live="polite" part="live">${this.#announcement}</div>`
  }

  renderFailure() {
    const f = this.#failure
    if (!f) return nothing
    const t = this.#locale.l.t
    return html`<div class="notice danger" role="alert" part="error">
      <p>${t.error_change}</p>
      <div class="actions"><button type="button" class="btn" @click=${f.retry}>${t.retry}</button></div>
    </div>`
  }
}
