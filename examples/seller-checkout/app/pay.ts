/**
 * Pay: the traveller form saved, then the backend has the airline check every price and charges exactly
 * the basket the page showed. Anything the airline changed comes back for the traveller to decide on.
 */
import { pay, problemIn, savePassengers } from './api.ts'
import { renderBasket } from './booking-summary.ts'
import { showConfirmation } from './confirmation.ts'
import { $ } from './dom.ts'
import { progress, progressLater, showPayError } from './pay-status.ts'
import { renderReview } from './review.ts'
import { asCallbackBasket, basketTotal, items, loadedTrip, state, statusOf, ticketItems } from './state.ts'
import { setPhase, setStep } from './steps.ts'
import { clearFieldErrors, fieldName, inputForPath, readForm, showFieldErrors } from './travellers.ts'
import type { PayResult, TravellerForm } from './types.ts'
import { openWidgets, showExtrasError } from './widgets.ts'

export async function onPay(event: Event): Promise<void> {
  event.preventDefault()
  if (state.phase === 'paying' || state.phase === 'paid') return
  $('pay-error').hidden = true
  const { form, errors } = readForm()
  if (errors.length) {
    showFieldErrors(errors)
    return
  }
  clearFieldErrors()
  setStep('pay')
  setPhase('paying')
  $('review').hidden = true
  try {
    await handlePayResult(await saveAndPay(form))
  } catch (err) {
    progress(null)
    setPhase('shopping')
    setStep('travellers')
    showRefusal(err)
  }
}

/** Saves the travellers, then pays for the basket as the page shows it, saying what it is doing meanwhile. */
async function saveAndPay(form: TravellerForm): Promise<PayResult> {
  const tripId = loadedTrip().trip_id
  progress('Saving traveller details…')
  state.trip = { ...loadedTrip(), ...(await savePassengers(tripId, form)) }
  progress('Checking prices and availability with the airline…')
  progressLater('Still checking: the airline is taking a little longer than usual…', 3000)
  const total = basketTotal()!
  const result = await pay(tripId, {
    items: items().map((i) => i.basket_item_id),
    total: total.amount,
    currency: total.currency,
  })
  progress(null)
  return result
}

/** A refusal: the backend's form errors beside their inputs, anything else in the Payment section. */
function showRefusal(err: unknown): void {
  const p = problemIn(err)
  if (p?.code === 'validation_error' && p.errors?.some((e) => inputForPath(e.path))) {
    showFieldErrors(p.errors.map((e) => ({ id: inputForPath(e.path), message: `${fieldName(e.path)} ${e.message}` })))
  } else {
    showPayError(err)
  }
}

async function handlePayResult(result: PayResult): Promise<void> {
  if (result.outcome === 'paid') {
    state.trip = result.trip
    showConfirmation()
    return
  }
  // The airline changed something: show the basket as the backend read it, and bring the widgets in step.
  state.basket = asCallbackBasket(result.basket)
  renderBasket()
  const blocked = ticketItems().some((i) => statusOf(i) === 'unavailable')
  setPhase(blocked ? 'blocked' : 'review')
  renderReview(result.outcome)
  $('review').hidden = false
  $('review').focus()
  if (!blocked) await openWidgets().catch(showExtrasError)
}
