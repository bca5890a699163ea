/**
 * Where the traveller is: the step the progress bar marks (Extras, Travellers, Payment, Booked, Manage),
 * and the phase the checkout is in, which locks the extras and the form while a payment is on its way.
 */
import { $ } from './dom.ts'
import { updatePayButton } from './booking-summary.ts'
import { state, type Phase } from './state.ts'
import { lockExtras } from './widgets.ts'

export type Step = 'extras' | 'travellers' | 'pay' | 'done' | 'manage'

export function setStep(step: Step): void {
  for (const li of document.querySelectorAll<HTMLElement>('.steps li')) {
    if (li.dataset['step'] === step) li.setAttribute('aria-current', 'step')
    else li.removeAttribute('aria-current')
  }
}

export function setPhase(phase: Phase): void {
  state.phase = phase
  lockExtras(phase === 'paying' || phase === 'paid' || phase === 'blocked' || phase === 'manage')
  $('checkout-form').classList.toggle('busy', phase === 'paying')
  $('checkout-form').setAttribute('aria-busy', phase === 'paying' ? 'true' : 'false')
  updatePayButton()
}
