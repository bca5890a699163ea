/**
 * The BUILT SDK (svc.min.js by a script tag) on a trip whose airline is a remote API, as Duffel is
 * (docs/decisions.md "Searching a remote supplier"; test/browser/remote.ts): the widget shows its loading
 * state while the airline still searches and then the bags, with no new `Svc.init`; a failed search
 * rejects `showUpsell` with `offers_unavailable`, fires `onBagFail` / `onSeatFail`, and shows the error
 * state, whose "Try again" searches again and shows the offers once the airline answers.
 */
import { expect } from '@esm-bundle/chai'
import type { SvcApi, WidgetEvent, WidgetFailure } from '../../sdk/index.ts'
import { BUNDLE, container, enabledPlus, loadScript, rejection, spy, upsellIn, waitFor } from './bundle.ts'
import { remoteTrip } from './remote.ts'

let Svc: SvcApi

before(async () => {
  await loadScript(BUNDLE)
  Svc = window.Svc
})

/** A part anywhere in the widget in `id` (through the shadow roots of its views). */
function partIn(id: string, part: string): Element | null {
  const root = upsellIn(id)?.shadowRoot
  if (!root) return null
  return (
    root.querySelector(`[part~="${part}"]`) ??
    [...root.querySelectorAll('*')].map((e) => e.shadowRoot?.querySelector(`[part~="${part}"]`)).find(Boolean) ??
    null
  )
}

describe('Svc on a remote airline still searching', function () {
  this.timeout(30_000)

  it('shows the widget at once in its loading state, then the bags; onBagLoad, and showUpsell resolves', async () => {
    const f = await remoteTrip({ delayMs: 1500 })
    const onBagLoad = spy<WidgetEvent>()
    const onBagFail = spy<WidgetFailure>()
    await Svc.init({
      tripId: f.tripId,
      tripAccessToken: f.accessToken,
      refreshToken: f.refreshToken,
      baseUrl: f.baseUrl,
      onBasketChange: () => {},
      onBagLoad,
      onBagFail,
    })
    container('remote-bags')
    let settled = false
    const shown = Svc.showUpsell({ container: 'remote-bags', display: 'embedded', allowProducts: ['bags'] }).finally(
      () => {
        settled = true
      },
    )
    // The traveller sees the spinner while the airline searches, not an empty page.
    await waitFor(() => partIn('remote-bags', 'loading'), 'the loading state')
    expect(settled, 'showUpsell waits for the bags').to.equal(false)
    expect(upsellIn('remote-bags')!.shadowRoot!.querySelector('[aria-busy="true"]')).to.not.equal(null)
    await shown
    await enabledPlus('remote-bags')
    expect(onBagLoad.calls).to.deep.equal([{ container: 'remote-bags', display: 'embedded' }])
    expect(onBagFail.calls).to.deep.equal([])
  })

  it('a failed search: showUpsell rejects with offers_unavailable, onBagFail and onSeatFail fire, and "Try again" shows the offers', async () => {
    const f = await remoteTrip({ delayMs: 100, fail: 'first' })
    const onBagLoad = spy<WidgetEvent>()
    const onBagFail = spy<WidgetFailure>()
    const onSeatFail = spy<WidgetFailure>()
    await Svc.init({
      tripId: f.tripId,
      tripAccessToken: f.accessToken,
      baseUrl: f.baseUrl,
      onBasketChange: () => {},
      onBagLoad,
      onBagFail,
      onSeatFail,
    })
    container('remote-failed')
    const e = await rejection(
      Svc.showUpsell({ container: 'remote-failed', display: 'embedded', allowProducts: ['bags', 'seats'] }),
    )
    expect(e).to.be.instanceOf(Svc.SvcError)
    expect(e.code).to.equal('offers_unavailable')
    expect(e.apiCode).to.equal('supplier_timeout')
    expect(onBagFail.calls.map((c) => [c.container, c.display, c.error.code, c.error.apiCode])).to.deep.equal([
      ['remote-failed', 'embedded', 'offers_unavailable', 'supplier_timeout'],
    ])
    expect(onSeatFail.calls.map((c) => c.error.code)).to.deep.equal(['offers_unavailable'])
    expect(onBagFail.calls[0]!.error).to.be.instanceOf(Svc.SvcError)

    // The widget is there, in its error state; "Try again" runs a new search, which the airline answers.
    const error = await waitFor(() => partIn('remote-failed', 'error'), 'the error state')
    expect(error.textContent).to.contain('Extras could not be loaded.')
    const retry = [...error.querySelectorAll('button')].find((b) => b.textContent!.trim() === 'Try again')!
    retry.click()
    await enabledPlus('remote-failed', document, 10_000)
    await waitFor(() => onBagLoad.calls.length === 1, 'onBagLoad after Try again')
    expect(onBagFail.calls, 'no second failure').to.have.length(1)
  })
})
