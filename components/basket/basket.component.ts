import { html, LitElement, nothing } from 'lit'
import type { BasketItem } from '../../client/types.ts'
import { tokenVars } from '../theme.ts'
import { sharedStyles } from '../internal/styles.ts'
import { emit, TripElement } from '../internal/element.ts'
import { renderLoadError, renderLoading } from '../internal/frame.ts'
import { SessionController } from '../controllers/session.ts'
import { extras, itemLabel, productNameOf } from '../internal/format.ts'
import { purchased } from '../../client/offers.ts'
import { renderValidity } from '../internal/validity.ts'
import { itemContext, renderBadge, summaryStyles } from '../internal/item-summary.ts'
import { addEnglish } from '../i18n/index.ts'
import { basketTexts } from '../i18n/en-US/basket.ts'
import { styles } from './basket.styles.ts'
import '../price/price.ts'
import '../spinner/spinner.ts'

// The basket view's English texts come with it (svc.min.js has no basket view).
addEnglish(basketTexts)

/**
 * The traveller's extras as a summary a seller places beside its checkout: every item with its name,
 * passenger and journey, validity state and price, the total, and the actions each state needs
 * (accept a new price, remove, check again, choose another).
 *
 * @event svc-fail - A change the traveller asked for was refused (`{product, display: 'embedded', error}`).
 * @event svc-choose-another - The traveller removed an unavailable item to choose another (`{product}`); show that product's view.
 * @csspart base - The section.
 * @csspart title - The heading.
 * @csspart list - The list of items still to pay for.
 * @csspart purchased - The list of items an earlier fulfill bought (read-only, not in the total).
 * @csspart item - One item.
 * @csspart item-name - An item's name.
 * @csspart item-context - An item's passenger and journey.
 * @csspart badge - An item's state badge (also `badge-valid`, `badge-checking`, ...).
 * @csspart state - An item's validity notice.
 * @csspart total - The total line.
 * @csspart empty - The "no extras yet" message.
 * @csspart loading - The skeleton while the basket loads.
 * @csspart error - A load or change error.
 * @csspart live - The polite live region (visually hidden).
 * @cssproperty --svc-color-border - Lines between items.
 * @cssproperty --svc-color-surface - Background of the total.
 * @cssproperty --svc-space - Spacing unit.
 * @tagname svc-basket
 */
export class SvcBasket extends TripElement(LitElement) {
  static override styles = [tokenVars, sharedStyles, summaryStyles, styles]

  readonly #trip: SessionController = new SessionController(this, { chooseAnother: (i) => this.#chooseAnother(i) })

  private get l() {
    return this.#trip.locale.l
  }

  async #chooseAnother(item: BasketItem): Promise<boolean> {
    const removed = await this.#trip.validityActions(item).remove()
    const product = productNameOf(item.product_type)
    if (removed && product) emit(this, 'svc-choose-another', { product })
    return removed
  }

  /** An item to pay for, with its state and actions; or, `bought`, one an earlier fulfill bought (read-only). */
  #renderItem(item: BasketItem, bought = false) {
    const l = this.l
    const trip = this.#trip.value?.state.trip ?? null
    const name = itemLabel(l, item)
    const context = itemContext(l, trip, item)
    const changed = item.validity.status === 'price_changed'
    return html`<li class="item" part="item">
      <div class="line">
        <div class="what">
          <span class="name" part="item-name">${item.quantity > 1 ? l.format('times', { item: name, count: l.number(item.quantity) }) : name}</span>
          ${context ? html`<span class="context muted" part="item-context">${context}</span>` : nothing}
        </div>
        <div class="meta">
          ${bought ? html`<span class="badge ok" part="badge">${l.t.purchased}</span>` : renderBadge(l, item)}
          <svc-price .amount=${item.price.total} .previous=${changed ? item.validity.previous_price?.total : undefined}></svc-price>
        </div>
      </div>
      ${bought ? nothing : renderValidity(l, item, this.#trip.validityActions(item), this.#trip.busy, { label: `${name}, ${context}`, prices: false })}
    </li>`
  }

  override render() {
    const st = this.#trip.value?.state
    const l = this.l
    const items = extras(st?.basket ?? {})
    const bought = purchased(st?.basket ?? {})
    const loading = !st || st.status === 'loading'
    return html`<section class="view" part="base" aria-labelledby="heading" aria-busy=${loading ? 'true' : 'false'}>
      <h2 id="heading" part="title">${l.t.basket_title}</h2>
      ${this.#trip.renderLive()}
      ${this.#trip.renderFailure()}
      ${
        loading
          ? renderLoading(l)
          : st.status === 'error'
            ? renderLoadError(l, this.#trip.retry)
            : html`${bought.length ? html`<ul class="items" part="purchased" aria-label=${l.t.purchased}>${bought.map((i) => this.#renderItem(i, true))}</ul>` : nothing}
          ${
            items.length === 0
              ? html`<p class="empty-text muted" part="empty">${l.t.basket_empty}</p>`
              : // The total is what is left to pay: what an earlier fulfill bought is paid for.
                html`<ul class="items" part="list">${items.map((i) => this.#renderItem(i))}</ul>
            <p class="total-line grand" part="total"><span>${l.t.total}</span><svc-price exact .amount=${this.#trip.total(items)}></svc-price></p>`
          }`
      }
    </section>`
  }
}
