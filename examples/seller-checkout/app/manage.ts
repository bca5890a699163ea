/**
 * "Manage your booking": the booking's facts, the extras bought (each of which may be cancelled), and the
 * bag widget on the same trip for bags added now. The trip is read again every second while an order moves,
 * and what moved is said aloud.
 */
import { tripStatus } from './api.ts'
import { renderBasket } from './booking-summary.ts'
import { CancelFlow } from './cancel.ts'
import { $, announce, h, spinnerLine } from './dom.ts'
import { money, orderLabel, passengerName } from './format.ts'
import { renderNewExtras } from './new-extras.ts'
import { renderPurchased } from './purchased.ts'
import { asCallbackBasket, loadedTrip, state, VIEW_KEY } from './state.ts'
import { setPhase, setStep } from './steps.ts'
import type { DemoTrip, Order } from './types.ts'
import { MANAGE_WIDGETS, openWidgets, showExtrasError } from './widgets.ts'
import { sdk } from './sdk.ts'

const cancel = new CancelFlow({ apply: applyTrip, refresh: refreshTrip })

/** Orders still moving: the airline is booking or cancelling them (awaiting_ticketing waits on the shop, not the airline). */
const moving = (o: Order) => o.status === 'queued' || o.status === 'in_progress' || o.status === 'cancelling'

/** Opens the manage step: the extras bought, with their cancellation, and the bag widget on the same trip. */
export async function showManage(): Promise<void> {
  clearTimeout(state.ordersTimer)
  setPhase('manage')
  setStep('manage')
  sessionStorage.setItem(VIEW_KEY, 'manage')
  $('checkout-form').hidden = true
  $('extras').hidden = true
  $('confirmation').hidden = true
  $('manage').hidden = false
  state.basket = asCallbackBasket(loadedTrip().basket)
  renderBasket()
  renderManageFacts()
  renderNewExtras()
  $('manage-title').focus()
  await loadManage()
  void openWidgets(MANAGE_WIDGETS).catch((err) => showExtrasError(err, 'manage-extras-error'))
}

/** Reads the trip as it is now (an order may have moved since the confirmation), showing that it is loading. */
async function loadManage(): Promise<void> {
  const status = $('manage-status')
  const list = $('purchased')
  list.setAttribute('aria-busy', 'true')
  list.replaceChildren()
  status.replaceChildren(h('p', { class: 'progress' }, ...spinnerLine('Loading your booking…')))
  try {
    const trip = await tripStatus(loadedTrip().trip_id)
    status.replaceChildren()
    applyTrip(trip)
  } catch (err) {
    const retry = h(
      'button',
      {
        type: 'button',
        class: 'btn secondary small',
        onclick: () => {
          void loadManage().then(() => $('manage-title').focus())
        },
      },
      'Try again',
    )
    status.replaceChildren(
      h(
        'div',
        { class: 'notice error' },
        h('p', {}, `Your booking could not be loaded: ${(err as Error).message}`),
        h('div', { class: 'actions' }, retry),
      ),
    )
  } finally {
    list.removeAttribute('aria-busy')
  }
}

/** What became of an order since the last read, in words; null when nothing worth saying changed. */
function orderNews(o: Order, was: Order['status'] | undefined): string | null {
  if (!was || was === o.status) return null
  const name = orderLabel(o)
  if (o.status === 'cancelled')
    return `${name} cancelled. ${o.refund ? `${money(o.refund)} refunded to your card.` : 'No refund.'}`
  if (was === 'cancelling' && o.status === 'succeeded')
    return `The airline did not cancel ${name}: ${o.cancellation_failure_reason ?? 'no reason given'}. Nothing was refunded.`
  if (o.status === 'succeeded') return `${name} confirmed by the airline.`
  if (o.status === 'failed')
    return `The airline could not book ${name}. We are refunding ${money(o.price.total)} to your card.`
  return null
}

/** Takes the trip as the backend read it: re-renders, says what moved, and keeps reading while orders move. */
export function applyTrip(trip: DemoTrip): void {
  const before = loadedTrip().orders ?? {}
  state.trip = trip
  state.basket = asCallbackBasket(trip.basket)
  renderBasket()
  const said: string[] = []
  for (const o of Object.values(trip.orders)) {
    const news = orderNews(o, before[o.order_id]?.status)
    if (news) said.push(news)
  }
  if (said.length) announce(said.join(' '))
  renderManage()
  followOrders()
}

async function refreshTrip(): Promise<void> {
  try {
    applyTrip(await tripStatus(loadedTrip().trip_id))
  } catch {
    /* the next action reads it again */
  }
}

function followOrders(): void {
  clearTimeout(state.manage.timer)
  if (state.phase !== 'manage' || !Object.values(loadedTrip().orders).some(moving)) return
  state.manage.timer = setTimeout(async () => {
    try {
      applyTrip(await tripStatus(loadedTrip().trip_id))
    } catch {
      followOrders() // a missed read is tried again
    }
  }, 1000)
}

function renderManage(): void {
  renderManageFacts()
  renderPurchased(cancel)
  renderNewExtras()
}

function renderManageFacts(): void {
  const trip = loadedTrip()
  const paid = [trip.payment, ...(trip.extra_payments ?? [])].filter((p) => p?.status === 'captured')
  const refunded = Object.values(trip.orders).filter((o) => o.status === 'cancelled' && o.refund)
  const m = paid[0]
  const sum = <T>(list: T[], f: (x: T) => number) => list.reduce((n, x) => n + f(x), 0)
  $('manage-lead').replaceChildren(
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Booking reference'),
      h('dd', { class: 'locator' }, trip.tickets[0]!.access_details.record_locator ?? ''),
      h('dt', {}, 'Travellers'),
      h('dd', {}, trip.passengers.map((p, i) => passengerName(p.passenger_id) || `Passenger ${i + 1}`).join(', ')),
      m
        ? [
            h('dt', {}, 'Paid'),
            h(
              'dd',
              {},
              sdk().formatPrice(
                sum(paid, (p) => p!.amount),
                m.decimal_places,
                m.currency,
              ),
            ),
          ]
        : null,
      refunded.length
        ? [
            h('dt', {}, 'Refunded'),
            h(
              'dd',
              { 'data-refunded': '' },
              sdk().formatPrice(
                sum(refunded, (o) => o.refund!.amount),
                refunded[0]!.refund!.decimal_places,
                refunded[0]!.refund!.currency,
              ),
            ),
          ]
        : null,
    ),
  )
}
