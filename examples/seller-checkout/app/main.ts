/**
 * SkyShop's checkout page (the demo `npm start` serves at `/`), built into /demo/app.js: it asks its own
 * backend (/demo/api/...) for a trip, shows the ancillaries widgets with the SDK (window.Svc), mirrors the
 * trip basket in its own booking summary through onBasketChange, and pays through the backend, which holds
 * the API key. No framework: each module is one part of the page (see the first lines of each).
 */
import { renderBasket } from './booking-summary.ts'
import { $, find, h } from './dom.ts'
import { showManage } from './manage.ts'
import { renderNewExtras } from './new-extras.ts'
import { payExtras } from './pay-extras.ts'
import { onPay } from './pay.ts'
import { renderReview } from './review.ts'
import { resume, startCheckout } from './start.ts'
import { state } from './state.ts'
import { setStep } from './steps.ts'
import { fillSample } from './travellers.ts'
import type { Scenario } from './types.ts'
import { followBasket } from './widgets.ts'

/** Each change the SDK reports: the booking summary follows it, and the review or the new extras when shown. */
followBasket(({ basket }) => {
  state.basket = basket
  renderBasket()
  if (state.phase === 'review' || state.phase === 'blocked') renderReview()
  if (state.phase === 'manage') renderNewExtras()
})

/** A new checkout for the scenario, then focus on the trip it shows. */
const restart = (scenario: Scenario) => void startCheckout(scenario).then(() => $('trip-title').focus())

/** The page's own controls: the demo panel, the form and its Pay button, and the buttons after booking. */
function listen(): void {
  $('scenario-form').addEventListener('submit', (e) => {
    e.preventDefault()
    const scenario = new FormData(e.currentTarget as HTMLFormElement).get('scenario') ?? 'normal'
    $<HTMLDetailsElement>('scenario-details').open = false
    restart(String(scenario) as Scenario)
  })
  $('checkout-form').addEventListener('submit', onPay)
  $('checkout-form').addEventListener('input', (e) => {
    const input = e.target as HTMLElement
    if (input.getAttribute('aria-invalid') === 'true') {
      input.removeAttribute('aria-invalid')
      const msg = find(`${input.id}-error`)
      if (msg) msg.hidden = true
    }
    if (state.phase === 'shopping') setStep('travellers')
  })
  $('fill-sample').addEventListener('click', fillSample)
  for (const id of ['new-booking', 'manage-new-booking']) $(id).addEventListener('click', () => restart('normal'))
  $('manage-booking').addEventListener('click', () => {
    void showManage()
  })
  $('pay-extras').addEventListener('click', () => {
    void payExtras()
  })
}

function main(): void {
  if (!window.Svc) {
    $('trip-summary').replaceChildren(
      h(
        'p',
        { class: 'notice error', role: 'alert' },
        'The extras could not be loaded (the SDK script is missing). Run npm run build and reload.',
      ),
    )
    return
  }
  listen()
  void resume().then((resumed) => (resumed ? undefined : startCheckout('normal')))
}

main()
