/**
 * After booking, "New extras": the bags added since (on the same trip, not paid for yet), their total, the
 * button that pays for them, and what that payment is doing or why it did not go through.
 */
import { badge, lineName } from './booking-summary.ts'
import { $, codeLine, h, nullAsText, spinnerLine } from './dom.ts'
import { itemContext, money } from './format.ts'
import { isNewExtra, items, state, statusOf, sumOf } from './state.ts'
import type { CallbackBasketItem, Problem } from './types.ts'

function newExtraLine(item: CallbackBasketItem): HTMLLIElement {
  return h(
    'li',
    { class: `line line-${statusOf(item)}`, 'data-item': item.basket_item_id },
    h(
      'div',
      { class: 'line-what' },
      lineName(item),
      h('span', { class: 'line-context' }, itemContext(item)),
      statusOf(item) === 'valid' ? null : badge(item),
    ),
    h('div', { class: 'line-price' }, h('span', {}, money(item.price.total))),
  )
}

/** The new extras (added since the booking, not paid), with their total and the button that pays for them. */
export function renderNewExtras(): void {
  if (state.phase !== 'manage') return
  const added = items().filter(isNewExtra)
  const box = $('new-extras')
  box.hidden = added.length === 0 && $('extras-pay-error').hidden
  $('new-extras-lines').replaceChildren(...added.map(newExtraLine))
  const total = sumOf(added)
  const button = $<HTMLButtonElement>('pay-extras')
  button.textContent = total ? `Pay for the new extras ${money(total)}` : 'Pay for the new extras'
  // A new price or an unavailable bag is decided in the widget first (accept or remove); an expired price is checked again on paying.
  button.disabled =
    !total ||
    state.manage.paying ||
    added.some((i) => ['checking', 'price_changed', 'unavailable'].includes(statusOf(i)))
  $('manage-add').setAttribute('aria-busy', state.manage.paying ? 'true' : 'false')
}

/** What paying for the new extras is doing now (none: nothing). */
export function extrasProgress(text: string | null): void {
  $('extras-pay-progress').replaceChildren(...(text ? spinnerLine(text) : []))
}

export function showExtrasPayError(what: string | undefined, p: Problem = {}): void {
  const box = $('extras-pay-error')
  box.replaceChildren(h('p', {}, what), nullAsText(p.code ? codeLine(p) : null))
  box.hidden = false
  renderNewExtras()
  box.focus()
}
