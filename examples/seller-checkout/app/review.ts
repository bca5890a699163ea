/**
 * "Before you pay": what the airline changed when it checked the basket, item by item, with what the
 * traveller may do about each (accept a new price, remove it, choose another); re-rendered whenever the
 * basket changes. A flight no longer sold ends the checkout instead.
 */
import { acceptPrice, removeItem } from './api.ts'
import { renderBasket } from './booking-summary.ts'
import { $, announce, h, nullAsText } from './dom.ts'
import { itemContext, money } from './format.ts'
import { showPayError } from './pay-status.ts'
import { startCheckout } from './start.ts'
import {
  asCallbackBasket,
  basketTotal,
  extraItems,
  loadedTrip,
  needsAction,
  state,
  statusOf,
  ticketItems,
} from './state.ts'
import { setPhase } from './steps.ts'
import { REASONS } from './texts.ts'
import type { CallbackBasketItem, PayResult } from './types.ts'
import { openWidgets } from './widgets.ts'

type Action = 'accept' | 'remove' | 'choose-again'

/** Where the traveller picks an alternative to an item: the widget that sells its product. */
const PRODUCT_WIDGET: Record<string, string> = { bag: 'bags', seat: 'seats' }

/** The item's name and whom and which flight it is for. */
const reviewName = (item: CallbackBasketItem) =>
  h('p', { class: 'review-name' }, item.display_name, h('span', { class: 'muted' }, ` · ${itemContext(item)}`))

/** The flight itself is no longer sold: nothing can be paid; the extras lost with it are listed. */
function renderTicketGone(): void {
  $('review-title').textContent = 'Sorry, this flight can no longer be booked'
  const lost = extraItems().filter((i) => statusOf(i) === 'unavailable')
  $('review-body').replaceChildren(
    h('p', {}, 'The airline has stopped selling this flight since you chose it. Nothing has been charged.'),
    nullAsText(
      lost.length
        ? h(
            'ul',
            { class: 'review-items' },
            lost.map((i) =>
              h(
                'li',
                { class: 'review-item', 'data-item': i.basket_item_id },
                reviewName(i),
                h(
                  'p',
                  {},
                  h('span', { class: 'badge badge-unavailable' }, 'Unavailable'),
                  ' ',
                  REASONS[i.validity.reason ?? ''] ?? '',
                ),
              ),
            ),
          )
        : null,
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', class: 'btn primary', onclick: () => startCheckout('normal') },
        'Choose another flight',
      ),
    ),
  )
}

/** What the traveller must decide, item by item; re-rendered whenever the basket changes. */
export function renderReview(outcome?: PayResult['outcome']): void {
  const body = $('review-body')
  const title = $('review-title')
  if (ticketItems().some((i) => statusOf(i) === 'unavailable')) {
    renderTicketGone()
    return
  }
  const pending = needsAction()
  if (pending.length === 0) {
    title.textContent = outcome === 'total_changed' ? 'Your total has changed' : 'All set'
    const total = basketTotal()
    body.replaceChildren(
      h(
        'p',
        {},
        outcome === 'still_checking'
          ? 'The airline is still checking your extras. Please try paying again in a moment.'
          : `Your total is now ${money(total!)}. Press Pay when you are ready.`,
      ),
    )
    return
  }
  title.textContent =
    pending.length === 1 ? 'One extra needs your attention' : `${pending.length} extras need your attention`
  body.replaceChildren(
    h('p', {}, 'The airline checked your extras before payment. Please decide on these; nothing has been charged yet.'),
    h('ul', { class: 'review-items' }, pending.map(reviewItem)),
  )
}

/** A button of the review: once pressed, it waits (busy) for the backend's answer. */
function actionButton(text: string, attrs: { class: string; 'aria-label': string }, run: () => Promise<void>) {
  return h(
    'button',
    {
      type: 'button',
      ...attrs,
      onclick: (e) => {
        const btn = e.currentTarget as HTMLButtonElement
        btn.disabled = true
        btn.setAttribute('aria-busy', 'true')
        void run()
      },
    },
    text,
  )
}

function reviewItem(item: CallbackBasketItem): HTMLLIElement {
  const label = `${item.display_name}, ${itemContext(item)}`
  const remove = actionButton('Remove', { class: 'btn secondary small', 'aria-label': `Remove ${label}` }, () =>
    act('remove', item),
  )
  if (statusOf(item) === 'price_changed') {
    const prev = item.validity.previous_price?.total
    return h(
      'li',
      { class: 'review-item', 'data-item': item.basket_item_id },
      reviewName(item),
      h(
        'p',
        {},
        h('span', { class: 'badge badge-price_changed' }, 'Price changed'),
        ' ',
        prev
          ? `The price went from ${money(prev)} to ${money(item.price.total)}.`
          : `The price is now ${money(item.price.total)}.`,
      ),
      h(
        'div',
        { class: 'actions' },
        actionButton(
          `Accept ${money(item.price.total)}`,
          { class: 'btn primary small', 'aria-label': `Accept the new price for ${label}` },
          () => act('accept', item),
        ),
        remove,
      ),
    )
  }
  return h(
    'li',
    { class: 'review-item', 'data-item': item.basket_item_id },
    reviewName(item),
    h(
      'p',
      {},
      h('span', { class: 'badge badge-unavailable' }, 'Unavailable'),
      ' ',
      REASONS[item.validity.reason ?? ''] ?? 'The airline can no longer sell it.',
    ),
    h(
      'div',
      { class: 'actions' },
      remove,
      actionButton(
        'Choose another',
        { class: 'btn secondary small', 'aria-label': `Remove ${label} and choose another` },
        () => act('choose-again', item),
      ),
    ),
  )
}

/** Accept a new price or remove an item through the backend, then bring the widgets in step. */
async function act(action: Action, item: CallbackBasketItem): Promise<void> {
  const id = loadedTrip().trip_id
  try {
    const { basket } =
      action === 'accept' ? await acceptPrice(id, item.basket_item_id) : await removeItem(id, item.basket_item_id)
    state.basket = asCallbackBasket(basket)
    renderBasket()
    renderReview()
    announce(
      action === 'accept'
        ? `New price accepted for ${item.display_name}. Total ${money(basketTotal()!)}.`
        : `${item.display_name} removed. Total ${money(basketTotal()!)}.`,
    )
    if (needsAction().length === 0) setPhase('shopping')
    await openWidgets()
    if (action === 'choose-again') {
      // Let the traveller pick an alternative where that product is sold.
      const container = $(PRODUCT_WIDGET[item.product_type] ?? 'more-extras')
      container.scrollIntoView({ block: 'start', behavior: 'smooth' })
      $('extras-title').focus({ preventScroll: true })
    } else if (needsAction().length === 0) {
      $('pay-button').focus()
    } else {
      $('review').focus()
    }
  } catch (err) {
    renderReview()
    showPayError(err)
  }
}
