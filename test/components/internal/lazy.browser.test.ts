/**
 * svc.min.js's chunks when the network fails them: the BUILT bundle loaded by a script tag, in a page of
 * its own (a chunk once loaded stays loaded) and from /__outage/ (web-test-runner.config.mjs), where the
 * test runner answers every chunk request with a 503 (`/__fixture/chunks?fail=1`) or late (`?delay=`). The widget shows its error state, the seller hears
 * of it (showUpsell rejects with `network`, the fail callback), and "Try again" fetches the chunk again;
 * while a chunk is on its way the widget shows its loading state. A chunk whose bytes are not the ones
 * built is refused (the integrity its name carries), as from a compromised CDN. The loading and error states
 * and their "Try again" are components/internal/lazy.ts's; the fetch and its integrity, sdk/chunk-loader.ts's.
 */
import { expect } from '@esm-bundle/chai'
import type { SvcApi, WidgetEvent, WidgetFailure } from '../../../sdk/index.ts'
import {
  BUNDLE,
  chunkFetches,
  container,
  enabledPlus,
  loadScript,
  rejection,
  spy,
  trip,
  upsellIn,
  waitFor,
} from '../../browser/bundle.ts'

let Svc: SvcApi

const chunks = (q: string) => fetch(`/__fixture/chunks?${q}`)

/** The "Try again" button of the error state (part="error") in `root`. */
const tryAgain = (root: ParentNode | null | undefined) =>
  root?.querySelector<HTMLButtonElement>('[part="error"] button') ?? null

before(async () => {
  performance.setResourceTimingBufferSize(100_000)
  await loadScript(`/__outage${BUNDLE}`)
  Svc = window.Svc
})

afterEach(async () => {
  await chunks('')
})

describe('a chunk that does not load', () => {
  it('seats: the seat view shows its error state beside the bags, showUpsell rejects with network, onSeatFail; Try again loads it', async () => {
    await chunks('fail=1')
    const f = await trip()
    const seatFails = spy<WidgetFailure>()
    const bagLoads = spy<WidgetEvent>()
    await Svc.init({
      tripId: f.tripId,
      tripAccessToken: f.accessToken,
      baseUrl: f.baseUrl,
      onBasketChange: () => {},
      onSeatFail: seatFails,
      onBagLoad: bagLoads,
    })
    container('both')
    const e = await rejection(
      Svc.showUpsell({ container: 'both', display: 'embedded', allowProducts: ['bags', 'seats'] }),
    )
    expect(e).to.be.instanceOf(Svc.SvcError)
    expect(e.code).to.equal('network')
    expect(e.message).to.match(/svc-seat-map/)
    expect(seatFails.calls).to.have.length(1)
    expect(seatFails.calls[0]!.error.code).to.equal('network')
    expect(seatFails.calls[0]!.container).to.equal('both')

    // The bag view does not wait for the seat map: it works, and the seat view's place shows the error.
    await enabledPlus('both')
    expect(bagLoads.calls).to.have.length(1)
    const root = upsellIn('both')!.shadowRoot!
    expect(root.querySelector('svc-seat-map')).to.equal(null)
    const retry = await waitFor(() => tryAgain(root), "the seat view's error state")
    expect(chunkFetches('seat-map')).to.have.length(1)

    // Try again on a slow network: the loading state, then the seat map, from a second fetch.
    await chunks('delay=600')
    retry.click()
    await waitFor(() => root.querySelector('.state-box [part="loading"]'), "the seat view's loading state")
    expect(tryAgain(root)).to.equal(null)
    await waitFor(
      () => root.querySelector('svc-seat-map')?.shadowRoot?.querySelector('button[data-seat]'),
      'the seat map',
    )
    expect(root.querySelector('.state-box')).to.equal(null)
    expect(chunkFetches('seat-map')).to.have.length(2)
  })

  it('card display: the widget shows its error state until the dialog frames load; Try again brings the card', async () => {
    await chunks('fail=1')
    const f = await trip()
    const bagFails = spy<WidgetFailure>()
    await Svc.init({
      tripId: f.tripId,
      tripAccessToken: f.accessToken,
      baseUrl: f.baseUrl,
      onBasketChange: () => {},
      onBagFail: bagFails,
    })
    container('card')
    const e = await rejection(Svc.showUpsell({ container: 'card', display: 'card', allowProducts: ['bags'] }))
    expect(e.code).to.equal('network')
    expect(bagFails.calls.map((c) => c.error.code)).to.deep.equal(['network'])
    const root = upsellIn('card')!.shadowRoot!
    const retry = await waitFor(() => tryAgain(root), "the widget's error state")
    expect(root.querySelector('[part~="card"]')).to.equal(null)

    await chunks('')
    retry.click()
    const open = await waitFor(
      () => root.querySelector('svc-bag-upsell')?.shadowRoot?.querySelector<HTMLButtonElement>('[part="open-button"]'),
      'the bag card',
    )
    open.click()
    const dialog = await waitFor(
      () =>
        root
          .querySelector('svc-bag-upsell')!
          .shadowRoot!.querySelector('svc-modal')
          ?.shadowRoot?.querySelector<HTMLDialogElement>('dialog[open]'),
      'the open dialog',
    )
    expect(dialog.open).to.equal(true)
    expect(chunkFetches('dialog-frames')).to.have.length(2)
  })

  it('a chunk whose bytes are not the ones built is refused (its integrity): the error state, and no code of it runs', async () => {
    await chunks('tamper=1')
    const f = await trip()
    await Svc.init({ tripId: f.tripId, tripAccessToken: f.accessToken, baseUrl: f.baseUrl, onBasketChange: () => {} })
    container('options')
    const e = await rejection(
      Svc.showUpsell({ container: 'options', display: 'embedded', allowProducts: ['priority_boarding'] }),
    )
    expect(e.code).to.equal('network')
    const script = document.head.querySelector<HTMLScriptElement>('script[src*="/chunks/option-card-"]')
    expect(script, "the failed chunk's tag is removed").to.equal(null)
    expect((window as unknown as { __tampered?: boolean }).__tampered).to.equal(undefined)
    expect(customElements.get('svc-option-card')).to.equal(undefined)
    const root = upsellIn('options')!.shadowRoot!
    const retry = await waitFor(() => tryAgain(root), "the option view's error state")

    await chunks('')
    retry.click()
    await waitFor(() => root.querySelector('svc-option-card'), 'the option card')
    expect((window as unknown as { __tampered?: boolean }).__tampered).to.equal(undefined)
  })
})
