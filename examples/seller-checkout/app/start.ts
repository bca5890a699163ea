/**
 * Starting and resuming: a new checkout for a scenario (the page as it was at first, a new trip), or, after
 * a reload, the same trip again, at the step it had reached.
 */
import { startTrip, tripStatus } from './api.ts'
import { renderBasket } from './booking-summary.ts'
import { showConfirmation } from './confirmation.ts'
import { $, announce, h } from './dom.ts'
import { showManage } from './manage.ts'
import { extrasProgress } from './new-extras.ts'
import { progress } from './pay-status.ts'
import { asCallbackBasket, loadedTrip, state, STORAGE_KEY, VIEW_KEY } from './state.ts'
import { setStep } from './steps.ts'
import { SCENARIO_NAMES } from './texts.ts'
import { clearFieldErrors, renderPassengerFields } from './travellers.ts'
import { renderTrip } from './trip-summary.ts'
import type { Scenario } from './types.ts'
import { freshToken, lockExtras, openWidgets, showExtrasError } from './widgets.ts'

/** The page as it is before any trip: every step's state, timer and message cleared. */
function resetPage(): void {
  clearTimeout(state.ordersTimer)
  clearTimeout(state.manage.timer)
  state.manage.cancels.clear()
  state.manage.paying = false
  sessionStorage.removeItem(VIEW_KEY)
  state.phase = 'shopping'
  state.basket = {}
  state.token = null
  $('confirmation').hidden = true
  $('manage').hidden = true
  $('purchased').replaceChildren()
  $('manage-status').replaceChildren()
  $('extras-pay-error').hidden = true
  extrasProgress(null)
  $('orders-outcome').replaceChildren()
  $('checkout-form').hidden = false
  $('extras').hidden = false
  $('review').hidden = true
  $('pay-error').hidden = true
  progress(null)
  clearFieldErrors()
  $<HTMLFormElement>('checkout-form').reset()
  setStep('extras')
  lockExtras(false)
}

export async function startCheckout(scenario: Scenario): Promise<void> {
  resetPage()
  $('trip-summary').setAttribute('aria-busy', 'true')
  $('trip-summary').replaceChildren(h('p', { class: 'muted' }, 'Loading your trip…'))
  try {
    const { trip, trip_access_token } = await startTrip(scenario)
    state.trip = trip
    state.token = trip_access_token
    state.tokenAt = Date.now()
    sessionStorage.setItem(STORAGE_KEY, trip.trip_id)
    await showTrip()
    announce(`New checkout started: ${SCENARIO_NAMES[scenario]} scenario.`)
  } catch (err) {
    $('trip-summary').replaceChildren(
      h('p', { class: 'notice error', role: 'alert' }, `The trip could not be loaded: ${(err as Error).message}`),
    )
  }
}

/** Shows the trip at the step it has reached: the extras to choose, or once paid, its confirmation or management. */
async function showTrip(): Promise<void> {
  renderTrip()
  renderPassengerFields()
  state.basket = asCallbackBasket(loadedTrip().basket)
  renderBasket()
  if (loadedTrip().payment?.status === 'captured') {
    if (sessionStorage.getItem(VIEW_KEY) === 'manage') await showManage()
    else showConfirmation()
    return
  }
  await openWidgets().catch(showExtrasError)
}

/** A reload carries on with the same trip: the backend still knows it, and hands out a new token. */
export async function resume(): Promise<boolean> {
  const tripId = sessionStorage.getItem(STORAGE_KEY)
  if (!tripId) return false
  try {
    state.trip = await tripStatus(tripId)
    await freshToken()
    await showTrip()
    return true
  } catch {
    sessionStorage.removeItem(STORAGE_KEY)
    return false
  }
}
