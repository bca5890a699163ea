/**
 * svc.min.js's chunks as a seller's page meets them: the BUILT bundle (`npm run build`) loaded by a script
 * tag, against the real API. The seat map, the option cards and the card/modal displays are files of their
 * own (dist/javascript/v2.2/chunks/), fetched the first time a widget shows them (and the trip's event
 * stream follower, once `init` follows the trip), and they run on the
 * bundle's own Lit. (A failed fetch: test/components/internal/lazy.browser.test.ts, in a page of its own.)
 */
import { expect } from '@esm-bundle/chai'
import type { BasketChange, SvcApi, WidgetEvent } from '../../sdk/index.ts'
import {
  BUNDLE,
  chunkFetches,
  container,
  enabledPlus,
  loadScript,
  spy,
  trip,
  upsellIn,
  waitFor,
} from '../browser/bundle.ts'

let Svc: SvcApi

/** The seat map inside the widget in `id`, once it shows its seats. */
function seatMapIn(id: string) {
  return waitFor(() => {
    const map = upsellIn(id)?.shadowRoot?.querySelector('svc-seat-map')
    return map?.shadowRoot?.querySelector('button[data-seat]') ? map : null
  }, `the seat map's seats in #${id}`)
}

before(async () => {
  // Every fetch counts, however many API calls the tests make before.
  performance.setResourceTimingBufferSize(100_000)
  await loadScript(BUNDLE)
  Svc = window.Svc
})

describe('svc.min.js and its chunks', () => {
  it('sets Svc at once; its chunk hook is a non-enumerable symbol, and no AMD global leaks', () => {
    expect(window.Svc).to.be.an('object')
    const hook = Object.getOwnPropertyDescriptor(window, Symbol.for('svc.v2.2.define'))
    expect(hook?.value).to.be.a('function')
    expect(hook?.enumerable).to.equal(false)
    expect(hook?.writable).to.equal(false)
    expect('define' in window).to.equal(false)
    expect('require' in window).to.equal(false)
    expect(chunkFetches()).to.deep.equal([])
  })

  it("bags only, embedded: the first bag control comes with no chunk fetched but the trip's event stream follower", async () => {
    const f = await trip()
    await Svc.init({ tripId: f.tripId, tripAccessToken: f.accessToken, baseUrl: f.baseUrl, onBasketChange: () => {} })
    container('bags-only')
    await Svc.showUpsell({ container: 'bags-only', display: 'embedded', allowProducts: ['bags'] })
    await enabledPlus('bags-only')
    // The minified templates keep what the page shows: the bag icon's rect and path are siblings (a
    // self-closing slash dropped from an svg`` fragment would nest the path in the rect, unseen).
    const bagRoot = upsellIn('bags-only')!.shadowRoot!.querySelector('svc-bag-upsell')!.shadowRoot!
    expect(bagRoot.querySelector('svg.icon > rect + path'), 'the bag icon as drawn').to.exist
    expect(bagRoot.querySelector('svg.icon rect > *')).to.equal(null)
    expect(customElements.get('svc-seat-map')).to.equal(undefined)
    expect(customElements.get('svc-option-card')).to.equal(undefined)
    expect(customElements.get('svc-modal')).to.equal(undefined)
    // Following the trip's changes (client/follow.ts) is no part of the first render: init fetches it beside.
    await waitFor(() => chunkFetches('follow').length > 0 || null, "the event stream's follower")
    expect(
      chunkFetches().map((p) =>
        p
          .split('/')
          .pop()!
          .replace(/-[\w-]{43}\.js$/, ''),
      ),
    ).to.deep.equal(['follow'])
  })

  it("seats: the seat map is fetched once, on the bundle's Lit, and a seat can be chosen", async () => {
    const f = await trip()
    const changes = spy<BasketChange>()
    const seatLoads = spy<WidgetEvent>()
    await Svc.init({
      tripId: f.tripId,
      tripAccessToken: f.accessToken,
      baseUrl: f.baseUrl,
      onBasketChange: changes,
      onSeatLoad: seatLoads,
    })
    container('seats')
    await Svc.showUpsell({ container: 'seats', display: 'embedded', allowProducts: ['seats'] })
    expect(seatLoads.calls).to.deep.equal([{ container: 'seats', display: 'embedded' }])
    expect(chunkFetches('seat-map')).to.have.length(1)
    expect(chunkFetches('dialog-frames')).to.deep.equal([])

    // One Lit per page: the seat map's class stands on the same LitElement and ReactiveElement as the bag
    // widget's (which are in svc.min.js), and no second Lit registered itself.
    const bases = (tag: string) => {
      const out: unknown[] = []
      for (let c = customElements.get(tag); c && c !== HTMLElement; c = Object.getPrototypeOf(c)) out.push(c)
      return out.slice(-2)
    }
    const [seatLit, seatReactive] = bases('svc-seat-map')
    const [bagLit, bagReactive] = bases('svc-bag-upsell')
    expect(seatLit).to.equal(bagLit)
    expect(seatReactive).to.equal(bagReactive)
    const w = window as unknown as { litElementVersions?: string[]; reactiveElementVersions?: string[] }
    expect(w.litElementVersions).to.have.length(1)
    expect(w.reactiveElementVersions).to.have.length(1)

    // The seat map reads the trip session from <svc-upsell> by context (the same context keys): it works.
    const map = await seatMapIn('seats')
    const free = await waitFor(
      () =>
        Array.from(
          map.shadowRoot!.querySelectorAll<HTMLButtonElement>('button[data-seat][data-status="available"]'),
        ).find((b) => !b.closest('[data-exit]')),
      'an available seat',
    )
    free.click()
    const change = await waitFor(
      () => changes.calls.find((c) => Object.values(c.basket).some((i) => i.product_type === 'seat')),
      'the seat in onBasketChange',
    )
    expect(Object.values(change.basket).filter((i) => i.product_type === 'seat')).to.have.length(1)
    // The seat map moves on to the next passenger: the seat is theirs now ("selected"), or "another passenger's".
    await waitFor(
      () =>
        map.shadowRoot!.querySelector(
          `button[data-seat="${free.dataset.seat}"]:is([data-status="selected"], [data-status="other"])`,
        ),
      'the chosen seat shown as chosen',
    )

    // A second widget with seats, in card display: the seat map is not fetched again; the card frames are.
    container('seat-card')
    await Svc.showUpsell({ container: 'seat-card', display: 'card', allowProducts: ['seats'] })
    expect(upsellIn('seat-card')!.shadowRoot!.querySelector('svc-seat-map')).to.exist
    expect(chunkFetches('seat-map')).to.have.length(1)
    expect(chunkFetches('dialog-frames')).to.have.length(1)
  })

  it('the option cards come when a widget first shows one, once', async () => {
    const f = await trip()
    await Svc.init({ tripId: f.tripId, tripAccessToken: f.accessToken, baseUrl: f.baseUrl, onBasketChange: () => {} })
    container('options')
    await Svc.showUpsell({
      container: 'options',
      display: 'embedded',
      allowProducts: ['priority_boarding', 'automatic_check_in'],
    })
    expect(upsellIn('options')!.shadowRoot!.querySelectorAll('svc-option-card')).to.have.length(2)
    expect(chunkFetches('option-card')).to.have.length(1)
  })

  it('each chunk is named by the SHA-256 of its bytes, and fetched with it as its integrity', async () => {
    const scripts = Array.from(document.head.querySelectorAll<HTMLScriptElement>('script[src*="/chunks/"]'))
    expect(
      scripts
        .map((s) =>
          new URL(s.src).pathname
            .split('/')
            .pop()!
            .replace(/-[\w-]{43}\.js$/, ''),
        )
        .sort(),
    ).to.deep.equal(['dialog-frames', 'follow', 'option-card', 'seat-map'])
    for (const s of scripts) {
      const digest = /-([\w-]{43})\.js$/.exec(s.src)![1]!
      const bytes = await (await fetch(s.src)).arrayBuffer()
      const actual = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))))
      expect(actual.replace(/=$/, ''), s.src).to.equal(digest.replace(/-/g, '+').replace(/_/g, '/'))
      expect(s.integrity).to.equal(`sha256-${actual.replace(/=$/, '')}`)
      expect(s.crossOrigin).to.equal('anonymous')
    }
  })
})
