import { html, LitElement, nothing } from 'lit'
import { property } from '../internal/element.ts'
import { LocaleController } from '../controllers/locale.ts'
import type { Locale } from '../i18n/index.ts'
import { tokenVars } from '../theme.ts'
import { price, type Amount } from '../internal/format.ts'
import { styles } from './price.styles.ts'

/**
 * A price in the traveller's locale (Intl), with the old price struck through when it changed. The struck
 * price carries words for assistive technology, which does not announce `<del>` by itself.
 *
 * @csspart amount - The price (when it did not change).
 * @csspart previous - The old, struck-through price.
 * @csspart current - The new price beside the old one.
 * @cssproperty --svc-color-text-secondary - Colour of the old price.
 * @tagname svc-price
 */
export class SvcPrice extends LitElement {
  static override styles = [tokenVars, styles]

  readonly #locale = new LocaleController(this)

  /** The price to show, `{amount, decimal_places, currency}` in minor units. */
  @property({ attribute: false }) amount: Amount | undefined
  /** The price before it changed; shown struck through before `amount`. */
  @property({ attribute: false }) previous: Amount | undefined
  /** Locale when no svc element above provides one. */
  @property({ attribute: false }) locale: Locale | undefined
  /** Show zero as an amount (a total of nothing is €0.00), not as "Free" (a free seat is free). */
  @property({ type: Boolean }) exact = false

  private get l(): Locale {
    return this.#locale.l
  }

  private text(a: Amount): string {
    return a.amount === 0 && !this.exact ? this.l.t.price_free : price(this.l, a)
  }

  override render() {
    if (!this.amount) return nothing
    const now = this.text(this.amount)
    if (!this.previous || this.previous.amount === this.amount.amount) return html`<span part="amount">${now}</span>`
    const was = this.text(this.previous)
    return html`<del part="previous"><span class="sr-only">${this.l.format('price_was', { price: was })}</span><span aria-hidden="true">${was}</span></del>
      <ins part="current"><span class="sr-only">${this.l.format('price_now', { price: now })}</span><span aria-hidden="true">${now}</span></ins>`
  }
}
