import { html, LitElement, nothing, svg } from 'lit'
import type { BasketItem, Journey, ProductName } from '../../client/types.ts'
import { tokenVars } from '../theme.ts'
import { sharedStyles } from '../internal/styles.ts'
import { DisplayController, type ViewTexts } from '../controllers/display.ts'
import { ProductView, property } from '../internal/element.ts'
import {
  extras,
  journeyTitle,
  passengerLabel,
  price,
  productsOf,
  reasonText,
  route,
  type Product,
} from '../internal/format.ts'
import { renderValidity } from '../internal/validity.ts'
import { purchased } from '../../client/offers.ts'
import { checkIcon, icon } from '../internal/icons.ts'
import { addEnglish } from '../i18n/index.ts'
import { optionCardTexts } from '../i18n/en-US/option-card.ts'
import { styles } from './option-card.styles.ts'
// The elements its templates draw: importing this view registers them (so does its package entry, elements/svc-option-card.js).
import '../price/price.ts'

// The cards' English texts come with them (svc.min.js fetches the cards when a widget first shows one).
addEnglish(optionCardTexts)

const boardingIcon = icon(svg`<path d="M3 12h13M12 7l5 5-5 5M20 4v16"/>`)
const checkInIcon = icon(svg`<rect x="4" y="3" width="16" height="18" rx="2"/><path d="M8 12l3 3 5-6"/>`)
const upgradeIcon = icon(svg`<path d="M12 19V5M6 11l6-6 6 6"/>`)

export type OptionProduct = Extract<ProductName, 'priority_boarding' | 'automatic_check_in' | 'fare_family_upsell'>

const TEXT: Record<OptionProduct, ViewTexts> = {
  priority_boarding: {
    heading: 'priority_boarding_title',
    open: 'priority_boarding_open',
    edit: 'priority_boarding_edit',
    none: 'options_none_selected',
    empty: 'option_none_offered',
  },
  automatic_check_in: {
    heading: 'automatic_check_in_title',
    open: 'automatic_check_in_open',
    edit: 'automatic_check_in_edit',
    none: 'options_none_selected',
    empty: 'option_none_offered',
  },
  fare_family_upsell: {
    heading: 'fare_family_title',
    open: 'fare_family_open',
    edit: 'fare_family_edit',
    none: 'options_none_selected',
    empty: 'option_none_offered',
  },
}

/**
 * A simple extra chosen per journey: priority boarding and automatic check-in per passenger (a switch
 * each), or the fare-family upgrade per journey (the next families with their benefits and price, one of
 * which applies to every passenger who can have it).
 *
 * @event svc-load - The offers are visible (`{product, display}`).
 * @event svc-fail - Offers could not load (when alone), nothing is on sale (`no_products`, when alone), or a change was refused.
 * @event svc-request-close - Cancelable, before the traveller closes the dialog (`{source}`: `close-button`, `escape` or `done-button`); `preventDefault()` keeps it open.
 * @event svc-modal-close - The traveller closed the dialog.
 * @event svc-basket-change - The basket changed (only when alone on the page).
 * @csspart base - The section (embedded), or the card.
 * @csspart card - The card of the card display.
 * @csspart title - The heading.
 * @csspart summary - The card's list of chosen items.
 * @csspart total - A total line.
 * @csspart open-button - The card's button.
 * @csspart done-button - The dialog's "Done" button.
 * @csspart modal - The `<svc-modal>` (its parts exported as in `<svc-bag-upsell>`).
 * @csspart journey - One journey's section.
 * @csspart journey-title - A journey's heading.
 * @csspart row - One passenger's line.
 * @csspart switch - The add/remove switch.
 * @csspart family - One fare family on offer.
 * @csspart state - An item's validity notice.
 * @csspart loading - The skeleton while offers load.
 * @csspart error - A load or change error.
 * @csspart empty - The "not available" message.
 * @csspart live - The polite live region (visually hidden).
 * @cssproperty --svc-color-primary - Switches and buttons.
 * @cssproperty --svc-color-border - Lines and card borders.
 * @cssproperty --svc-radius - Corner radius.
 * @cssproperty --svc-space - Spacing unit.
 * @tagname svc-option-card
 */
export class SvcOptionCard extends ProductView(LitElement) {
  static override styles = [tokenVars, sharedStyles, styles]

  readonly #frame: DisplayController = new DisplayController(this, {
    product: () => this.product,
    texts: () => TEXT[this.product],
    panel: () => this.#renderPanel(),
    icon: () =>
      this.product === 'priority_boarding'
        ? boardingIcon
        : this.product === 'automatic_check_in'
          ? checkInIcon
          : upgradeIcon,
    focusOptions: (item) => this.#focusOptions(item),
  })
  readonly #trip = this.#frame.session

  /** Which extra: `priority_boarding`, `automatic_check_in` or `fare_family_upsell`. */
  @property({ reflect: true }) product: OptionProduct = 'priority_boarding'

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

  get #heading() {
    return this.l.t[TEXT[this.product].heading]
  }

  #items(productId: string, passengerId?: string): BasketItem[] {
    return extras(this.#trip.value?.state.basket ?? {}).filter(
      (i) =>
        i.product_id === productId && (passengerId === undefined || i.product_details['passenger_id'] === passengerId),
    )
  }

  /** Bought by an earlier fulfill: shown as purchased, and not offered again. */
  #bought(productId: string, passengerId?: string): boolean {
    return purchased(this.#trip.value?.state.basket ?? {}).some(
      (i) =>
        i.product_id === productId && (passengerId === undefined || i.product_details['passenger_id'] === passengerId),
    )
  }

  #toggle(product: Product, passengerId: string, on: boolean) {
    const l = this.l
    const label = this.#heading
    return this.#trip.act(
      this.product,
      async (s) => {
        const items = this.#items(product.product_id, passengerId)
        if (on && items.length === 0) await s.add(product.product_id, passengerId, 1)
        if (!on) for (const i of items) await s.remove(i.basket_item_id)
      },
      () => l.format(on ? 'announce_added' : 'announce_removed', { item: label, total: this.#trip.totalText() }),
    )
  }

  /** One family for every passenger who can have it on the journey; the journey's other family goes. */
  #chooseFamily(journeyProducts: Product[], chosen: Product | null) {
    const l = this.l
    const label = chosen
      ? l.format('fare_family_upgrade_to', { name: String(chosen.product_details['fare_family'] ?? '') })
      : this.#heading
    return this.#trip.act(
      'fare_family_upsell',
      async (s) => {
        for (const p of journeyProducts) {
          if (p === chosen) continue
          for (const i of this.#items(p.product_id)) await s.remove(i.basket_item_id)
        }
        if (!chosen) return
        for (const [pid, offer] of Object.entries(chosen.price_and_availability)) {
          if (offer.available && this.#items(chosen.product_id, pid).length === 0)
            await s.add(chosen.product_id, pid, 1)
        }
      },
      () => l.format(chosen ? 'announce_added' : 'announce_removed', { item: label, total: this.#trip.totalText() }),
    )
  }

  #focusOptions(item: BasketItem) {
    const group =
      Array.from(this.renderRoot.querySelectorAll<HTMLElement>('[data-options]')).find(
        (el) => el.dataset['options'] === String(item.product_details['journey_id']),
      ) ?? this.renderRoot.querySelector<HTMLElement>('[data-options]')
    group?.scrollIntoView({ block: 'nearest' })
    group?.focus()
  }

  #renderPanel() {
    const st = this.#trip.value!.state
    const products = productsOf(st.search, this.product)
    return html`${(st.trip?.journeys ?? []).map((journey, j) => {
      const own = products.filter((p) => p.product_details['journey_id'] === journey.journey_id)
      return html`<div class="journey" part="journey">
        <h3 id="journey-${j}" part="journey-title">${journeyTitle(this.l, journey)}</h3>
        ${
          own.length === 0
            ? html`<p class="muted">${this.l.t.option_none_offered}</p>`
            : this.product === 'fare_family_upsell'
              ? this.#renderFamilies(journey, own)
              : this.#renderPassengers(journey, own[0]!)
        }
      </div>`
    })}`
  }

  #renderPassengers(journey: Journey, product: Product) {
    const l = this.l
    const trip = this.#trip.value!.state.trip
    const busy = this.#trip.busy
    return html`<ul class="rows" tabindex="-1" data-options=${journey.journey_id}>
      ${(trip?.passengers ?? []).map((p) => {
        const pid = p.passenger_id
        const offer = product.price_and_availability[pid]
        const items = this.#items(product.product_id, pid)
        const on = items.length > 0
        const who = passengerLabel(l, trip, pid)
        const label = l.format('option_for', { product: this.#heading, passenger: who, route: route(l, journey) })
        return html`<li class="row" part="row">
          <span class="who">${who}${p.on_lap_of ? html` <span class="tag">${l.t.infant_on_lap}</span>` : nothing}</span>
          ${
            this.#bought(product.product_id, pid)
              ? html`<span class="badge ok">${l.t.purchased}</span>`
              : offer?.available && offer.price
                ? html`<span class="buy">
                <svc-price .amount=${offer.price.total}></svc-price>
                <button type="button" role="switch" class="switch" part="switch" aria-checked=${on ? 'true' : 'false'} aria-label=${label}
                  aria-disabled=${busy ? 'true' : 'false'} @click=${() => {
                    if (!this.#trip.busy) void this.#toggle(product, pid, !on)
                  }}>
                  <span class="track" aria-hidden="true"><span class="thumb"></span></span>
                  <span class="switch-text" aria-hidden="true">${on ? l.t.option_added : l.t.add}</span>
                </button>
              </span>`
                : offer?.reason === 'included'
                  ? html`<span class="badge ok">${l.t.bag_included}</span>`
                  : html`<span class="reason muted">${reasonText(l, offer?.reason)}</span>`
          }
          ${items.some((i) => i.validity.status !== 'valid') ? html`<div class="states">${items.map((i) => renderValidity(l, i, this.#trip.validityActions(i), busy, { label }))}</div>` : nothing}
        </li>`
      })}
    </ul>`
  }

  #renderFamilies(journey: Journey, products: Product[]) {
    const l = this.l
    const busy = this.#trip.busy
    const from = products[0]?.product_details['from_fare_family']
    const bought = products.find((p) => this.#bought(p.product_id))
    const chosen = bought ?? products.find((p) => this.#items(p.product_id).length > 0) ?? null
    return html`
      ${typeof from === 'string' ? html`<p class="muted">${l.format('fare_family_current', { name: from })}</p>` : nothing}
      <ul class="families" tabindex="-1" data-options=${journey.journey_id}>
        ${products.map((p, k) => {
          const name = String(p.product_details['fare_family'] ?? p.display_name)
          const benefits = Array.isArray(p.product_details['benefits'])
            ? (p.product_details['benefits'] as unknown[]).map(String)
            : []
          const offers = Object.values(p.price_and_availability).filter((o) => o.available && o.price)
          const each = offers[0]?.price?.total
          const items = this.#items(p.product_id)
          const selected = p === chosen
          const id = `family-${journey.journey_id}-${k}`
          return html`<li class="family ${selected ? 'selected' : ''}" part="family">
            <div class="family-head">
              <h4 id=${id}>${name}</h4>
              ${selected ? html`<span class="badge ${bought ? 'ok' : 'valid'}">${bought ? l.t.purchased : l.t.fare_family_selected}</span>` : nothing}
            </div>
            ${benefits.length ? html`<ul class="benefits">${benefits.map((b) => html`<li>${checkIcon}<span>${b}</span></li>`)}</ul>` : nothing}
            ${each ? html`<p class="per">${l.format('fare_family_per_traveller', { price: price(l, each) })}</p>` : html`<p class="muted">${l.t.not_available}</p>`}
            <div class="actions">
              ${
                bought
                  ? nothing
                  : selected
                    ? html`<button type="button" class="btn" aria-disabled=${busy ? 'true' : 'false'} @click=${() => {
                        if (!this.#trip.busy) void this.#chooseFamily(products, null)
                      }}>${l.t.fare_family_keep}</button>`
                    : each
                      ? html`<button type="button" class="btn primary" aria-disabled=${busy ? 'true' : 'false'} @click=${() => {
                          if (!this.#trip.busy) void this.#chooseFamily(products, p)
                        }}>${l.format('fare_family_choose', { name })}</button>`
                      : nothing
              }
            </div>
            ${items.some((i) => i.validity.status !== 'valid') ? html`<div class="states">${items.map((i) => renderValidity(l, i, this.#trip.validityActions(i), busy, { label: name }))}</div>` : nothing}
          </li>`
        })}
      </ul>`
  }

  override render() {
    return this.#frame.render()
  }
}
