/**
 * The booking summary: the seller's own basket, which mirrors the trip basket (the SDK's onBasketChange, or
 * the backend's reads), with each item's state, the total, and the Pay button that total goes on.
 */
import { $, h } from './dom.ts'
import { itemContext, money } from './format.ts'
import {
  basketTotal,
  extraItems,
  isBooked,
  isNewExtra,
  items,
  loadedTrip,
  needsAction,
  state,
  statusOf,
  sumOf,
} from './state.ts'
import { ORDER_TEXT, STATE_TEXT } from './texts.ts'
import type { CallbackBasketItem } from './types.ts'

/** What the traveller should know about an item, if anything: its price's state, or after booking its order's. */
export function badge(item: CallbackBasketItem): HTMLSpanElement | null {
  const s = statusOf(item)
  if (state.phase === 'manage') {
    // After booking: what became of each bought extra, and which are new (not paid for yet).
    if (item.order_status && item.order_status !== 'succeeded')
      return h(
        'span',
        { class: `badge badge-order-${item.order_status}` },
        ORDER_TEXT[item.order_status] ?? item.order_status,
      )
    if (isNewExtra(item) && s === 'valid') return h('span', { class: 'badge badge-new' }, 'New, not paid yet')
  }
  if (s === 'valid') return null
  return h('span', { class: `badge badge-${s}` }, STATE_TEXT[s] ?? s)
}

/** The item's name, with its quantity when more than one. */
export const lineName = (item: CallbackBasketItem) =>
  h('span', { class: 'line-name' }, item.quantity > 1 ? `${item.display_name} × ${item.quantity}` : item.display_name)

function basketLine(item: CallbackBasketItem): HTMLLIElement {
  const prev = item.validity.previous_price?.total
  const ended = state.phase === 'manage' && ['cancelled', 'failed'].includes(item.order_status ?? '')
  return h(
    'li',
    {
      class: `line line-${statusOf(item)}${ended ? ' line-ended' : ''}`,
      'data-item': item.basket_item_id,
      'data-type': item.product_type,
    },
    h(
      'div',
      { class: 'line-what' },
      lineName(item),
      item.product_type === 'ticket'
        ? h('span', { class: 'line-context' }, `${loadedTrip().passengers.length} travellers`)
        : h('span', { class: 'line-context' }, itemContext(item)),
      badge(item),
    ),
    h(
      'div',
      { class: 'line-price' },
      prev && statusOf(item) === 'price_changed'
        ? h('s', { class: 'was' }, h('span', { class: 'visually-hidden' }, 'was '), money(prev))
        : null,
      h('span', {}, money(item.price.total)),
    ),
  )
}

export function renderBasket(): void {
  const lines = items()
    .sort((a, b) => (a.product_type === 'ticket' ? -1 : b.product_type === 'ticket' ? 1 : 0))
    .map(basketLine)
  if (extraItems().length === 0) lines.push(h('li', { class: 'line empty muted' }, 'No extras yet'))
  $('basket-lines').replaceChildren(...lines)
  const managing = state.phase === 'manage'
  const total = managing ? sumOf(items().filter(isBooked)) : basketTotal()
  $('basket-total').textContent = total ? money(total) : '–'
  $('basket-total-label').textContent = managing
    ? 'Your booking'
    : state.phase === 'paid'
      ? 'Total paid'
      : 'Total to pay'
  const added = managing ? sumOf(items().filter(isNewExtra)) : null
  $('basket-new').hidden = !added
  $('basket-new-total').textContent = added ? money(added) : ''
  updatePayButton()
}

export function updatePayButton(): void {
  const total = basketTotal()
  const button = $<HTMLButtonElement>('pay-button')
  button.textContent = total ? `Pay ${money(total)}` : 'Pay'
  button.hidden = state.phase === 'blocked'
  button.disabled =
    !total ||
    state.phase === 'paying' ||
    state.phase === 'paid' ||
    state.phase === 'blocked' ||
    needsAction().length > 0
}
