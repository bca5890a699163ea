/**
 * Paying for the extras added after booking: the backend checks them with the airline, charges their
 * total and has them ordered; the orders then join the extras bought.
 */
import { payNewExtras, problemIn } from './api.ts'
import { renderBasket } from './booking-summary.ts'
import { $, announce } from './dom.ts'
import { money, orderLabel } from './format.ts'
import { applyTrip } from './manage.ts'
import { extrasProgress, renderNewExtras, showExtrasPayError } from './new-extras.ts'
import { focusCancel } from './purchased.ts'
import { asCallbackBasket, isNewExtra, items, loadedTrip, state, sumOf, type CallbackBasket } from './state.ts'
import type { Amount, DemoTrip, PayResult } from './types.ts'
import { MANAGE_WIDGETS, openWidgets, showExtrasError } from './widgets.ts'

/** Why nothing was charged, when the airline changed something about the new extras. */
function notPaidText(outcome: Exclude<PayResult['outcome'], 'paid'>): string {
  const now = sumOf(items().filter(isNewExtra))
  const texts: Record<string, string> = {
    action_needed:
      'The airline changed something about your new extras: see them above (accept a new price or remove a bag), then pay again. Nothing was charged.',
    total_changed: now
      ? `Your new extras now come to ${money(now)}. Check them, then pay again. Nothing was charged.`
      : 'Your new extras changed. Nothing was charged.',
    still_checking:
      'The airline is still checking your new extras. Please try paying again in a moment. Nothing was charged.',
  }
  return texts[outcome] ?? 'Nothing was charged; please try again.'
}

/** Why the payment was refused (nothing was charged). */
function refusedText(err: unknown): string | undefined {
  const p = problemIn(err) ?? {}
  const texts: Record<string, string | undefined> = {
    trip_state_conflict:
      'Your booking changed while you were paying. Nothing was charged; please check the new extras and try again.',
    nothing_to_pay: 'There are no new extras to pay for.',
    payment_in_progress:
      'A payment for these extras is already on its way (in another tab?). Nothing more was charged.',
    network: p.detail,
  }
  return texts[p.code ?? ''] ?? `${p.detail ?? 'Something went wrong.'} Nothing was charged; please try again.`
}

/** Paid: the orders join the extras bought, and focus goes to the first of them. */
function paid(trip: DemoTrip, total: Amount): void {
  const before = new Set(Object.keys(loadedTrip().orders))
  state.manage.paying = false
  applyTrip(trip)
  const fresh = Object.values(loadedTrip().orders).filter((o) => !before.has(o.order_id))
  announce(`Paid ${money(total)}. The airline is booking ${fresh.map(orderLabel).join(' and ') || 'your new extras'}.`)
  if (fresh[0]) focusCancel(fresh[0].basket_item_id)
}

/** Not paid: the basket as the airline left it, what to do about it, and the widget in step. */
async function notPaid(outcome: Exclude<PayResult['outcome'], 'paid'>, basket: CallbackBasket): Promise<void> {
  state.basket = basket
  renderBasket()
  showExtrasPayError(notPaidText(outcome))
  await openWidgets(MANAGE_WIDGETS).catch((err) => showExtrasError(err, 'manage-extras-error'))
}

/** Pays for the new extras: the backend checks them with the airline, charges their total and has them ordered. */
export async function payExtras(): Promise<void> {
  if (state.manage.paying) return
  const added = items().filter(isNewExtra)
  const total = sumOf(added)
  if (!total) return
  state.manage.paying = true
  $('extras-pay-error').hidden = true
  $('manage-bags').inert = true
  renderNewExtras()
  extrasProgress('Checking the new extras with the airline…')
  try {
    const result = await payNewExtras(loadedTrip().trip_id, {
      items: added.map((i) => i.basket_item_id),
      total: total.amount,
      currency: total.currency,
    })
    extrasProgress(null)
    if (result.outcome === 'paid') paid(result.trip, total)
    else await notPaid(result.outcome, asCallbackBasket(result.basket))
  } catch (err) {
    extrasProgress(null)
    showExtrasPayError(refusedText(err), problemIn(err) ?? {})
  } finally {
    state.manage.paying = false
    $('manage-bags').inert = false
    renderNewExtras()
  }
}
