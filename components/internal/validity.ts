/**
 * What the traveller sees of an item's validity (spec: "States and transitions"), the same in every view:
 * `checking` a spinner; `price_changed` the old price struck through beside the new one, with accept and
 * remove; `unavailable` an explanation, remove and choose another; `invalid` (expired) a check again.
 */
import { html, nothing } from 'lit'
import type { Locale } from '../i18n/index.ts'
import type { BasketItem } from '../../client/types.ts'
import { price } from './format.ts'
// The elements these notices draw, registered by whichever view imports them (as ./frame.ts does its spinner).
import '../price/price.ts'
import '../spinner/spinner.ts'

export interface ValidityActions {
  accept(): Promise<boolean>
  remove(): Promise<boolean>
  check(): Promise<boolean>
  chooseAnother(): Promise<boolean>
}

const previousOf = (item: BasketItem) => item.validity.previous_price?.total

/**
 * The state block of one item, or nothing when it is valid. Buttons wait (aria-disabled, keeping focus)
 * while the session is busy with another change.
 */
export interface ValidityOptions {
  /** The item's name and context, read before the state (visually hidden unless `visibleLabel`). */
  label?: string
  /** Show the label as the notice's title (where the notice stands apart from its item, as in a card). */
  visibleLabel?: boolean
  /** Show the struck-through old price beside the new one (default true). */
  prices?: boolean
}

export function renderValidity(
  l: Locale,
  item: BasketItem,
  actions: ValidityActions,
  busy: boolean,
  opts: ValidityOptions = {},
) {
  const wait = (fn: () => Promise<boolean>) => () => {
    if (!busy) void fn()
  }
  const name = !opts.label
    ? nothing
    : opts.visibleLabel
      ? html`<span class="title">${opts.label}</span><span class="sr-only">: </span>`
      : html`<span class="sr-only">${opts.label}: </span>`
  switch (item.validity.status) {
    case 'valid':
      return nothing
    case 'checking':
      return html`<div class="state checking" part="state state-checking"><svc-spinner label=${l.t.state_checking}></svc-spinner></div>`
    case 'price_changed': {
      const before = previousOf(item)
      const now = item.price.total
      return html`<div class="notice warning state" part="state state-price-changed">
        <p>${name}${before ? l.format('state_price_changed', { old: price(l, before), new: price(l, now) }) : l.t.badge_price_changed}</p>
        ${opts.prices === false ? nothing : html`<svc-price aria-hidden="true" .amount=${now} .previous=${before}></svc-price>`}
        <div class="actions">
          <button type="button" class="btn primary" aria-disabled=${busy ? 'true' : 'false'} @click=${wait(actions.accept)}>${l.t.accept_price}</button>
          <button type="button" class="btn" aria-disabled=${busy ? 'true' : 'false'} @click=${wait(actions.remove)}>${l.t.remove}</button>
        </div>
      </div>`
    }
    case 'unavailable':
      return html`<div class="notice danger state" part="state state-unavailable">
        <p>${name}${l.t.state_unavailable}</p>
        <div class="actions">
          <button type="button" class="btn" aria-disabled=${busy ? 'true' : 'false'} @click=${wait(actions.remove)}>${l.t.remove}</button>
          <button type="button" class="btn primary" aria-disabled=${busy ? 'true' : 'false'} @click=${wait(actions.chooseAnother)}>${l.t.choose_again}</button>
        </div>
      </div>`
    case 'invalid':
      return html`<div class="notice warning state" part="state state-invalid">
        <p>${name}${l.t.state_invalid}</p>
        <div class="actions">
          <button type="button" class="btn primary" aria-disabled=${busy ? 'true' : 'false'} @click=${wait(actions.check)}>${l.t.check_again}</button>
        </div>
      </div>`
  }
}
