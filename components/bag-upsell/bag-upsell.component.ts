import { html, LitElement, nothing } from 'lit'
import type { BasketItem, Passenger } from '../../client/types.ts'
import { tokenVars } from '../theme.ts'
import { sharedStyles } from '../internal/styles.ts'
import { DisplayController } from '../controllers/display.ts'
import { ProductView } from '../internal/element.ts'
import {
  bagLine,
  bagName,
  bagSpec,
  extras,
  bagScope,
  journeyTitle,
  passengerLabel,
  productsOf,
  reasonText,
  severalJourneysTitle,
  type BagDetailsLike,
  type Product,
} from '../internal/format.ts'
import { renderValidity } from '../internal/validity.ts'
import { purchased } from '../../client/offers.ts'
import { bagIcon, checkIcon, minusIcon, plusIcon } from '../internal/icons.ts'
import { styles } from './bag-upsell.styles.ts'
// The elements its templates draw: importing this view registers them (so does its package entry, elements/svc-bag-upsell.js).
import '../price/price.ts'

/** How many bags the items hold. */
const bagsIn = (items: BasketItem[]) => items.reduce((n, i) => n + i.quantity, 0)

const optionsKey = (journeyId: string, passengerId: string) => `${journeyId}|${passengerId}`

/**
 * Bags per passenger per journey: what the ticket includes, and every bag on sale with its weight, size
 * and price, chosen with a quantity stepper bounded by the offer's limit. Works inside `<svc-upsell>`
 * (session and locale by context) and alone on a page with the `session` property.
 *
 * @event svc-load - The bag offers are visible (`{product: 'bags', display}`).
 * @event svc-fail - Offers could not load (when alone), no bag is on sale (`no_products`, when alone), or a change was refused.
 * @event svc-request-close - Cancelable, before the traveller closes the bag dialog (`{source}`: `close-button`, `escape` or `done-button`); `preventDefault()` keeps it open.
 * @event svc-modal-close - The traveller closed the bag dialog.
 * @event svc-basket-change - The basket changed (only when alone on the page; `<svc-upsell>` sends it otherwise).
 * @csspart base - The section (embedded), or the card.
 * @csspart card - The card of the card display.
 * @csspart title - The heading.
 * @csspart summary - The card's list of chosen bags.
 * @csspart total - A total line.
 * @csspart open-button - The card's "Add bags" / "Change bags" button.
 * @csspart done-button - The dialog's "Done" button.
 * @csspart modal - The `<svc-modal>`; its parts are exported as `dialog`, `header`, `dialog-title`, `close-button`, `body`, `footer`.
 * @csspart journey - One journey's section.
 * @csspart journey-title - A journey's heading.
 * @csspart passenger - One passenger's bags on a journey.
 * @csspart included - The allowance the ticket includes.
 * @csspart option - One bag on sale.
 * @csspart stepper - The − n + control.
 * @csspart state - An item's validity notice (also `state-checking`, `state-price-changed`, `state-unavailable`, `state-invalid`).
 * @csspart loading - The skeleton while offers load.
 * @csspart error - A load or change error.
 * @csspart empty - The "no extra bags" message.
 * @csspart live - The polite live region (visually hidden).
 * @cssproperty --svc-color-primary - Buttons and the stepper.
 * @cssproperty --svc-color-surface - Backgrounds of passengers and allowances.
 * @cssproperty --svc-color-border - Lines between options.
 * @cssproperty --svc-radius - Corner radius.
 * @cssproperty --svc-space - Spacing unit.
 * @tagname svc-bag-upsell
 */
export class SvcBagUpsell extends ProductView(LitElement) {
  static override styles = [tokenVars, sharedStyles, styles]

  readonly #frame: DisplayController = new DisplayController(this, {
    product: () => 'bags',
    texts: () => ({
      heading: 'bags_title',
      open: 'bags_open',
      edit: 'bags_edit',
      none: 'bags_none_selected',
      empty: 'bags_none_offered',
    }),
    panel: () => this.#renderPanel(),
    icon: () => bagIcon,
    focusOptions: (item) => this.#focusOptions(item),
  })
  readonly #trip = this.#frame.session

  /** Opens the dialog (card and modal displays). */
  show() {
    this.#frame.show()
  }

  /** Closes the dialog. */
  hide() {
    this.#frame.hide()
  }

  private get l() {
    return this.#trip.locale.l
  }

  #items(productId: string, passengerId: string): BasketItem[] {
    return extras(this.#trip.value?.state.basket ?? {}).filter(
      (i) => i.product_id === productId && i.product_details['passenger_id'] === passengerId,
    )
  }

  /**
   * Sets how many of a bag a passenger has. The API merges adds into one item with a quantity and has no
   * "set quantity", so fewer means removing the item and adding the smaller quantity back. Each run reads
   * the basket as it is then, so "Try again" after a refusal does the right thing.
   */
  #setQuantity(product: Product, passengerId: string, target: number) {
    const l = this.l
    const label = bagName(l, product.product_details as BagDetailsLike)
    const before = bagsIn(this.#items(product.product_id, passengerId))
    return this.#trip.act(
      'bags',
      async (s) => {
        const items = this.#items(product.product_id, passengerId)
        const current = bagsIn(items)
        if (target === current) return
        if (target > current) return s.add(product.product_id, passengerId, target - current)
        for (const item of items) await s.remove(item.basket_item_id)
        if (target > 0) await s.add(product.product_id, passengerId, target)
      },
      () =>
        l.format(target > before ? 'announce_added' : 'announce_removed', {
          item: label,
          total: this.#trip.totalText(),
        }),
    )
  }

  #focusOptions(item: BasketItem) {
    const key = optionsKey(bagScope(item.product_details), String(item.product_details['passenger_id']))
    const group =
      Array.from(this.renderRoot.querySelectorAll<HTMLElement>('[data-options]')).find(
        (el) => el.dataset['options'] === key,
      ) ?? this.renderRoot.querySelector<HTMLElement>('[data-options]')
    group?.scrollIntoView({ block: 'nearest' })
    group?.focus()
  }

  /**
   * A section per journey with its own bags, and one per set of journeys an airline sells one bag for (a
   * whole-trip bag): listed once, under the routes it covers, priced once.
   */
  #renderPanel() {
    const st = this.#trip.value!.state
    const journeys = st.trip?.journeys ?? []
    const products = productsOf(st.search, 'bags')
    const groups = [
      ...new Set([...journeys.map((j) => j.journey_id), ...products.map((p) => bagScope(p.product_details))]),
    ]
    return html`${groups.map((key, j) => {
      const own = products.filter((p) => bagScope(p.product_details) === key)
      const covered = journeys.filter((x) => key.split('+').includes(x.journey_id))
      // Not a <section>: journey titles repeat across views, and a region landmark's name must be unique.
      return covered.length
        ? html`<div class="journey" part="journey">
        <h3 id="journey-${j}" part="journey-title">${covered.length > 1 ? severalJourneysTitle(this.l, covered) : journeyTitle(this.l, covered[0]!)}</h3>
        ${
          own.every((p) => p.included)
            ? html`<p class="muted">${this.l.t.bags_none_offered}</p>`
            : html`<ul class="passengers">${(st.trip?.passengers ?? []).map((p, i) => this.#renderPassenger(key, j, p, i, own))}</ul>`
        }
      </div>`
        : nothing
    })}`
  }

  #renderPassenger(group: string, j: number, passenger: Passenger, i: number, products: Product[]) {
    const l = this.l
    const trip = this.#trip.value!.state.trip
    const pid = passenger.passenger_id
    const id = `passenger-${j}-${i}`
    const included = products.filter((p) => p.included && p.price_and_availability[pid]?.reason === 'included')
    const forSale = products.filter((p) => !p.included)
    const bought = purchased(this.#trip.value!.state.basket).filter(
      (i) => i.product_details['passenger_id'] === pid && forSale.some((p) => p.product_id === i.product_id),
    )
    return html`<li class="passenger" part="passenger">
      <div class="passenger-head">
        <h4 id=${id}>${passengerLabel(l, trip, pid)}</h4>
        ${passenger.on_lap_of ? html`<span class="tag">${l.t.infant_on_lap}</span>` : nothing}
      </div>
      ${
        included.length || bought.length
          ? html`<ul class="included" part="included">${[
              ...included.map((p) => [p, 1, l.t.bag_included] as const),
              // Bought by an earlier fulfill: listed with the allowance, out of the steppers (which choose what is added now).
              ...bought.map(
                (i) => [forSale.find((p) => p.product_id === i.product_id), i.quantity, l.t.purchased] as const,
              ),
            ].map(([p, n, badge]) => {
              const d = p?.product_details as BagDetailsLike | undefined
              return d
                ? html`<li>${checkIcon}<span class="what">${n > 1 ? `${l.number(n)} × ` : ''}${bagLine(l, d)}</span>
          <span class="badge ok">${badge}</span></li>`
                : nothing
            })}</ul>`
          : nothing
      }
      <ul class="options" tabindex="-1" aria-labelledby=${id} data-options=${optionsKey(group, pid)}>
        ${forSale.map((p) => this.#renderOption(p, pid, bought))}
      </ul>
    </li>`
  }

  /** A bag on sale with its stepper; `bought`: the passenger's bags an earlier fulfill bought. */
  #renderOption(product: Product, passengerId: string, bought: BasketItem[]) {
    const l = this.l
    const trip = this.#trip.value!.state.trip
    const d = product.product_details as BagDetailsLike
    const offer = product.price_and_availability[passengerId]
    const items = this.#items(product.product_id, passengerId)
    const quantity = bagsIn(items)
    const name = bagName(l, d)
    const spec = bagSpec(l, d)
    const passenger = passengerLabel(l, trip, passengerId)
    const busy = this.#trip.busy
    // Bags bought earlier take their places under the offer's limit.
    const limit = (offer?.quantity_limit ?? 0) - bagsIn(bought.filter((i) => i.product_id === product.product_id))
    const canLess = !busy && quantity > 0
    const canMore = !busy && quantity < limit
    return html`<li class="option" part="option">
      <div class="info">
        <span class="name">${bagIcon}<span>${name}</span></span>
        ${spec ? html`<span class="spec muted">${spec}</span>` : nothing}
      </div>
      ${
        offer?.available && offer.price
          ? html`<div class="buy">
            <svc-price .amount=${offer.price.total}></svc-price>
            <div class="stepper" part="stepper" role="group" aria-label=${l.format('quantity_for', { item: name, passenger })}>
              <button type="button" class="step" aria-label=${l.format('decrease', { item: name, passenger })} aria-disabled=${canLess ? 'false' : 'true'}
                @click=${() => {
                  if (canLess) void this.#setQuantity(product, passengerId, quantity - 1)
                }}>${minusIcon}</button>
              <span class="count">${l.number(quantity)}</span>
              <button type="button" class="step" aria-label=${l.format('increase', { item: name, passenger })} aria-disabled=${canMore ? 'false' : 'true'}
                @click=${() => {
                  if (canMore) void this.#setQuantity(product, passengerId, quantity + 1)
                }}>${plusIcon}</button>
            </div>
            ${quantity >= limit && quantity > 0 ? html`<span class="limit muted">${l.format('bag_limit_reached', { count: l.number(limit) })}</span>` : nothing}
          </div>`
          : html`<p class="reason muted">${reasonText(l, offer?.reason)}</p>`
      }
      ${items.some((i) => i.validity.status !== 'valid') ? html`<div class="states">${items.map((i) => renderValidity(l, i, this.#trip.validityActions(i), busy, { label: `${name}, ${passenger}` }))}</div>` : nothing}
    </li>`
  }

  override render() {
    return this.#frame.render()
  }
}
