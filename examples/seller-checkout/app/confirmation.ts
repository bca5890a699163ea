/**
 * "Thank you, your flights are booked": the booking's facts, and the extras as the airline books them, one
 * by one; the list follows the orders (a read every second) until each is confirmed or failed.
 */
import { tripStatus } from './api.ts'
import { renderBasket } from './booking-summary.ts'
import { $, h } from './dom.ts'
import { itemContext, plural } from './format.ts'
import { asCallbackBasket, loadedTrip, state } from './state.ts'
import { setPhase, setStep } from './steps.ts'
import { ORDER_TEXT } from './texts.ts'
import type { Basket, Order } from './types.ts'
import { sdk } from './sdk.ts'

export function showConfirmation(): void {
  setPhase('paid')
  setStep('done')
  $('checkout-form').hidden = true
  $('extras').hidden = true
  const section = $('confirmation')
  section.hidden = false
  renderConfirmation()
  $('confirmation-title').focus()
  pollOrders()
}

/** One extra of the booking and where the airline is with it. */
function orderItem(o: Order, basket: Basket): HTMLLIElement {
  const item = basket[o.basket_item_id]
  const context = item ? itemContext(item) : ''
  return h(
    'li',
    { class: `order order-${o.status}`, 'data-order': o.order_id, 'data-status': o.status },
    h(
      'div',
      { class: 'order-what' },
      h('span', { class: 'line-name' }, o.display_name),
      h('span', { class: 'line-context' }, context),
    ),
    h(
      'div',
      { class: 'order-state' },
      h('span', { class: `badge badge-order-${o.status}` }, ORDER_TEXT[o.status] ?? o.status),
      o.status === 'succeeded' && o.supplier_reference
        ? h('span', { class: 'muted small' }, `Airline reference ${o.supplier_reference}`)
        : null,
      o.status === 'failed' ? h('span', { class: 'muted small' }, o.failure_reason ?? '') : null,
    ),
  )
}

function renderConfirmation(): void {
  const trip = loadedTrip()
  // The booking summary from the trip as booked (names and all), not the last widget callback.
  state.basket = asCallbackBasket(trip.basket)
  renderBasket()
  const pay = trip.payment
  const ticket = trip.tickets[0]!
  $('confirmation-lead').textContent = `We sent the details to ${trip.contact_details.email ?? 'your email'}.`
  $('confirmation-facts').replaceChildren(
    h('dt', {}, 'Booking reference'),
    h('dd', { class: 'locator' }, ticket.access_details.record_locator ?? pay?.record_locator ?? ''),
    h('dt', {}, 'E-ticket'),
    h('dd', {}, ticket.access_details.ticket_number ?? ''),
    h('dt', {}, 'Flights'),
    h('dd', {}, ticket.status === 'booked' ? 'Booked' : ticket.status),
    h('dt', {}, 'Paid'),
    h('dd', {}, pay ? `${sdk().formatPrice(pay.amount, pay.decimal_places, pay.currency)} (${pay.reference})` : ''),
  )
  const orders = Object.values(trip.orders).sort((a, b) => a.display_name.localeCompare(b.display_name))
  $('orders').replaceChildren(...orders.map((o) => orderItem(o, trip.basket)))
  if (orders.length === 0) $('orders').replaceChildren(h('li', { class: 'muted' }, 'No extras on this booking.'))
}

const ended = (o: Order) => o.status === 'succeeded' || o.status === 'failed'

/** Reads the trip every second until every order has ended (or two minutes have passed). */
function pollOrders(): void {
  clearTimeout(state.ordersTimer)
  const started = Date.now()
  const tick = async () => {
    try {
      const trip = await tripStatus(loadedTrip().trip_id)
      // The traveller moved on (managing the booking, or a new checkout) while this read was on its way.
      if (state.phase !== 'paid') return
      state.trip = trip
      renderConfirmation()
    } catch {
      /* a missed poll is retried */
    }
    if (state.phase !== 'paid') return
    const orders = Object.values(loadedTrip().orders)
    if (orders.every(ended)) return summarise(orders)
    if (Date.now() - started > 120_000) {
      $('orders-outcome').replaceChildren(
        h('p', { class: 'notice' }, 'The airline is still confirming some extras. We will email you when it has.'),
      )
      return
    }
    state.ordersTimer = setTimeout(tick, 1000)
  }
  state.ordersTimer = setTimeout(tick, 500)
}

/** How the booking ended: every extra confirmed, or which failed and what is refunded for them. */
function summarise(orders: Order[]): void {
  const failed = orders.filter((o) => o.status === 'failed')
  const out = $('orders-outcome')
  if (failed.length === 0) {
    out.replaceChildren(
      h(
        'p',
        { class: 'notice success' },
        orders.length
          ? `All ${plural(orders.length, 'extra', 'extras')} confirmed by the airline. Have a good trip!`
          : 'Your flights are booked. Have a good trip!',
      ),
    )
    return
  }
  const refund = failed.reduce((n, o) => n + o.price.total.amount, 0)
  const m = failed[0]!.price.total
  out.replaceChildren(
    h(
      'div',
      { class: 'notice error' },
      h(
        'p',
        {},
        failed.length === orders.length
          ? `The airline could not book your extras. Your flights are booked.`
          : `${plural(failed.length, 'extra', 'extras')} of ${orders.length} could not be booked by the airline. Your flights and the other extras are booked.`,
      ),
      h('p', {}, `We are refunding ${sdk().formatPrice(refund, m.decimal_places, m.currency)} to your card.`),
    ),
  )
}
