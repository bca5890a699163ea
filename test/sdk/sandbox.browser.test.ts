/**
 * Sandbox mode as a seller's page uses it: the BUILT bundles (`npm run build` → svc.min.js, which loads
 * svc-sandbox.min.js from its own folder on `Svc.init({ sandbox: true })`), with no backend: the fixture
 * API the test runner starts is never called (no request to it, nor to any /v2.2 address: every call
 * is answered in the page). Trips come from `Svc.sandbox.createTrip`, the scenarios from its `flight`.
 */
import { expect } from '@esm-bundle/chai'
import type { BasketChange, SvcApi } from '../../sdk/index.ts'
import type { SvcSandboxGlobal } from '../../sdk/sandbox.ts'
import type { SandboxInternals } from '../../mock-server/sandbox.ts'
import {
  BUNDLE,
  SANDBOX_BUNDLE,
  bagsIn,
  container,
  enabledPlus as enabledPlusApi,
  loadScript,
  rejection,
  sleep,
  spy,
  track,
  upsellIn,
  waitFor as waitForApi,
} from '../browser/bundle.ts'

/** Every resource the page fetched over the network (scripts, fetch calls), from before the SDK loaded. */
const network: string[] = []
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) network.push(e.name)
}).observe({ type: 'resource' })
/** Every call through the page's `fetch` (the sandbox's fallback for what its handlers do not answer). */
const fetched: string[] = []
const pageFetch = window.fetch
window.fetch = (input, init) => {
  fetched.push(String(input instanceof Request ? input.url : input))
  return pageFetch(input, init)
}

/** Requests that would have left the page for an API: another origin, or any /v2.2 address. */
const apiRequests = (urls: string[]) =>
  urls.filter(
    (u) =>
      new URL(u, location.href).origin !== location.origin || new URL(u, location.href).pathname.startsWith('/v2.2'),
  )

/** The sandbox answers in the page, but its first load parses a large bundle: wait longer than against the API. */
const waitFor = <T>(fn: () => T | null | undefined | false, what: string, timeout = 10_000) =>
  waitForApi(fn, what, timeout)
const enabledPlus = (container: string, doc: Document = document) => enabledPlusApi(container, doc, 10_000)

/** The first element matching `selector` under `root`, through shadow roots. */
function deep(root: Element | ShadowRoot, selector: string): HTMLElement | null {
  for (const el of Array.from(root.querySelectorAll<HTMLElement>('*'))) {
    if (el.matches(selector)) return el
    const inner = el.shadowRoot && deep(el.shadowRoot, selector)
    if (inner) return inner
  }
  return root instanceof Element && root.shadowRoot ? deep(root.shadowRoot, selector) : null
}

const button = (root: Element, text: string) =>
  Array.from(root.querySelectorAll('button')).find((b) => b.textContent?.includes(text)) ?? null

let Svc: SvcApi

const sandboxGlobal = () => window.SvcSandbox as SvcSandboxGlobal

before(async () => {
  localStorage.removeItem('svc-sandbox')
  localStorage.removeItem('svc-sandbox:trip')
  await loadScript(BUNDLE)
  Svc = window.Svc
})

describe('sandbox mode', () => {
  it('is not loaded until asked for', () => {
    expect(window.SvcSandbox).to.equal(undefined)
    expect(network.filter((u) => u.includes('svc-sandbox'))).to.deep.equal([])
    expect(Svc.sandbox).to.be.an('object')
    expect(Object.keys(Svc.sandbox).sort()).to.deep.equal(['apiKey', 'checkBasket', 'createTrip', 'fetch', 'reset'])
  })

  it('Svc.init({sandbox: true}) with no trip and no backend: a trip in the page, the bag widget, a click adds a bag', async function () {
    this.timeout(30_000)
    const seen = network.length
    const onBasketChange = spy<BasketChange>()
    const onBagLoad = spy<unknown>()
    container('bags')
    // Not awaited: showUpsell waits for the sandbox to load and the trip to open.
    const init = Svc.init({ sandbox: true, onBasketChange, onBagLoad })
    const shown = Svc.showUpsell({ container: 'bags', display: 'embedded', allowProducts: ['bags'] })
    await init
    await shown
    expect(window.SvcSandbox?.version).to.equal('2.2')
    // The trip as it stands: the ticket, with validity.state.
    expect(Object.values(onBasketChange.calls[0]!.basket).map((i) => [i.product_type, i.validity.state])).to.deep.equal(
      [['ticket', 'valid']],
    )
    expect(onBagLoad.calls).to.have.length(1)

    ;(await enabledPlus('bags')).click()
    const change = await waitFor(
      () => onBasketChange.calls.find((c) => bagsIn(c).length > 0),
      'onBasketChange with a bag',
    )
    const [bag] = bagsIn(change)
    expect(bag!.validity.state).to.equal('valid')
    expect(
      Svc.formatPrice(bag!.price.total.amount, bag!.price.total.decimal_places, bag!.price.total.currency),
    ).to.match(/\d/)

    // Nothing left the page: the sandbox bundle and the live follower's chunk (client/follow.ts, loaded once
    // the session follows) came from beside svc.min.js, and the only other request asked this origin whether
    // it has MSW's worker (it has not: a 404, so the SDK is answered in the page). No locale file either:
    // the sandbox brings every table.
    const loaded = network.slice(seen)
    expect(apiRequests(loaded)).to.deep.equal([])
    expect(apiRequests(fetched)).to.deep.equal([])
    expect(
      loaded.map((u) => new URL(u).pathname.replace(/\/chunks\/follow-[\w-]+\.js$/, '/chunks/follow.js')).sort(),
    ).to.deep.equal(['/dist/javascript/v2.2/chunks/follow.js', SANDBOX_BUNDLE, '/mockServiceWorker.js'])
    expect(window.SvcSandbox?.worker).to.equal(false)
  })

  it("speaks the trip's or the asked locale with no locale file fetched (the sandbox brings every table)", async () => {
    const seen = network.length
    await Svc.init({ sandbox: true, locale: 'de-DE', onBasketChange: () => {} })
    container('de')
    await Svc.showUpsell({ container: 'de', display: 'embedded', allowProducts: ['bags'] })
    const bags = upsellIn('de')!.shadowRoot!.querySelector('svc-bag-upsell')!
    await waitFor(() => bags.shadowRoot?.textContent?.includes('Aufgabegepäck'), 'German texts in the bag list')
    expect(Svc.formatPrice(2550, 2, 'EUR')).to.equal(
      new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(25.5),
    )
    expect(network.slice(seen)).to.deep.equal([])
  })

  it('Svc.sandbox: the API key, backend-style calls through its fetch, and the trip it made', async () => {
    const trip = await Svc.sandbox.createTrip()
    expect(trip.tripId).to.be.a('string')
    const key = await Svc.sandbox.apiKey()
    expect(key).to.be.a('string').and.not.equal('')
    const res = await Svc.sandbox.fetch(`/v2.2/trip/${trip.tripId}`, {
      headers: { authorization: `Basic ${btoa(`${key}:`)}` },
    })
    expect(res.status).to.equal(200)
    const view = (await res.json()) as { trip_id: string; journeys: unknown[] }
    expect(view.trip_id).to.equal(trip.tripId)
    expect(view.journeys).to.have.length(2)
    // With the trip's own token too, and 401 without any.
    const own = await Svc.sandbox.fetch(`/v2.2/trip/${trip.tripId}/basket`, {
      headers: { authorization: `Bearer ${trip.tripAccessToken}` },
    })
    expect(own.status).to.equal(200)
    expect((await Svc.sandbox.fetch(`/v2.2/trip/${trip.tripId}`)).status).to.equal(401)
    expect(apiRequests(fetched)).to.deep.equal([])
  })

  it('flight 9001: check → price_changed shown in the widget → accept → valid', async function () {
    this.timeout(30_000)
    const trip = await Svc.sandbox.createTrip({ flight: '9001' })
    const onBasketChange = spy<BasketChange>()
    const onInvalidBasket = spy<BasketChange>()
    await Svc.init({
      sandbox: true,
      tripId: trip.tripId,
      tripAccessToken: trip.tripAccessToken,
      refreshToken: trip.refreshToken,
      onBasketChange,
      onInvalidBasket,
    })
    container('pc')
    await Svc.showUpsell({ container: 'pc', display: 'embedded', allowProducts: ['bags'] })
    ;(await enabledPlus('pc')).click()
    const added = await waitFor(() => onBasketChange.calls.find((c) => bagsIn(c).length > 0), 'the bag')
    const before = bagsIn(added)[0]!.price.total.amount

    await Svc.sandbox.checkBasket()
    const changed = await waitFor(() => onInvalidBasket.calls.at(-1), 'onInvalidBasket with the price change')
    const bag = bagsIn(changed)[0]!
    expect(bag.validity.state).to.equal('price_changed')
    expect(bag.price.total.amount).to.not.equal(before)
    expect(bag.validity.previous_price?.total.amount).to.equal(before)

    const el = upsellIn('pc')!
    const notice = await waitFor(
      () => deep(el, '[part~="state-price-changed"]'),
      'the price-changed notice in the widget',
    )
    ;(await waitFor(() => button(notice, 'Accept new price'), 'the accept button')).click()
    const accepted = await waitFor(
      () => onBasketChange.calls.slice(-1).find((c) => bagsIn(c)[0]?.validity.state === 'valid'),
      'the bag valid again',
    )
    expect(bagsIn(accepted)[0]!.price.total.amount).to.equal(bag.price.total.amount)
    expect(deep(el, '[part~="state-price-changed"]')).to.equal(null)
  })

  it('flight 9002: check → unavailable, reported by onInvalidBasket', async function () {
    this.timeout(30_000)
    const trip = await Svc.sandbox.createTrip({ flight: '9002' })
    const onBasketChange = spy<BasketChange>()
    const onInvalidBasket = spy<BasketChange>()
    // Only the trip id: the sandbox signs the token.
    await Svc.init({ sandbox: true, tripId: trip.tripId, onBasketChange, onInvalidBasket })
    container('un')
    await Svc.showUpsell({ container: 'un', display: 'embedded', allowProducts: ['bags'] })
    ;(await enabledPlus('un')).click()
    await waitFor(() => onBasketChange.calls.some((c) => bagsIn(c).length > 0), 'the bag')
    await Svc.sandbox.checkBasket()
    const change = await waitFor(() => onInvalidBasket.calls.at(-1), 'onInvalidBasket')
    expect(bagsIn(change)[0]!.validity.state).to.equal('unavailable')
    await waitFor(() => deep(upsellIn('un')!, '[part~="state-unavailable"]'), 'the unavailable notice in the widget')
  })

  it('an expired access token is renewed with the refresh token, in the page', async function () {
    this.timeout(20_000)
    const trip = await Svc.sandbox.createTrip()
    // The page's sandbox is the whole one (its core and store), though the SDK's types name only its public side.
    const sandbox = sandboxGlobal().sandbox as SandboxInternals
    const record = await sandbox.store.getTrip(trip.tripId)
    const short = await sandbox.core.tokens.sign('trip_access', record!.value.seller_id, 2, trip.tripId)
    const onBasketChange = spy<BasketChange>()
    await Svc.init({
      sandbox: true,
      tripId: trip.tripId,
      tripAccessToken: short,
      refreshToken: trip.refreshToken,
      onBasketChange,
    })
    container('tok')
    await Svc.showUpsell({ container: 'tok', display: 'embedded', allowProducts: ['bags'] })
    await sleep(3000)
    const expired = await Svc.sandbox.fetch(`/v2.2/trip/${trip.tripId}/basket`, {
      headers: { authorization: `Bearer ${short}` },
    })
    expect(expired.status).to.equal(401)
    ;(await enabledPlus('tok')).click()
    await waitFor(
      () => onBasketChange.calls.some((c) => bagsIn(c).length > 0),
      'the bag, added after the token expired',
    )
    expect(upsellIn('tok')!.session.client.accessToken).to.not.equal(short)
  })

  it('reset forgets every trip: the trip init opened before is gone, a new one is made', async () => {
    const trip = await Svc.sandbox.createTrip()
    await Svc.sandbox.reset()
    const gone = await rejection(Svc.init({ sandbox: true, tripId: trip.tripId, onBasketChange: () => {} }))
    expect(gone).to.be.instanceOf(Svc.SvcError)
    expect(gone.code).to.equal('not_found')
    const onBasketChange = spy<BasketChange>()
    await Svc.init({ sandbox: true, onBasketChange })
    expect(onBasketChange.calls).to.have.length(1)
    // The trip the sandbox now opens without a tripId (it remembers it in localStorage) is a new one.
    const remembered = JSON.parse(localStorage.getItem('svc-sandbox:trip') ?? 'null') as { tripId: string } | null
    expect(remembered?.tripId).to.be.a('string').and.not.equal(trip.tripId)
  })

  it('still refuses a bad option in sandbox mode', async () => {
    const e = await rejection(Svc.init({ sandbox: true, tripId: '', onBasketChange: () => {} }))
    expect(e.code).to.equal('invalid_options')
    expect(e.message).to.match(/tripId is required/)
  })
})

describe('a sandbox page under a strict CSP, reloaded', () => {
  interface FrameWindow extends Window {
    Svc: SvcApi
    __cspViolations: Array<{ directive: string; blocked: string }>
  }

  async function frameAt(src: string): Promise<HTMLIFrameElement> {
    const frame = document.createElement('iframe')
    frame.style.inlineSize = '800px'
    frame.style.blockSize = '600px'
    const loaded = new Promise((r) => frame.addEventListener('load', r, { once: true }))
    frame.src = src
    document.body.append(frame)
    track(frame)
    await loaded
    return frame
  }

  async function reload(frame: HTMLIFrameElement) {
    const loaded = new Promise((r) => frame.addEventListener('load', r, { once: true }))
    frame.contentWindow!.location.reload()
    await loaded
  }

  /** Opens the sandbox in the frame, shows the bags, and returns the basket changes. */
  async function open(frame: HTMLIFrameElement, extra: Record<string, unknown> = {}) {
    const w = frame.contentWindow as FrameWindow
    const changes: BasketChange[] = []
    await w.Svc.init({ sandbox: true, onBasketChange: (c) => changes.push(c), ...extra })
    await w.Svc.showUpsell({ container: 'extras', display: 'embedded', allowProducts: ['bags'] })
    return { w, changes }
  }

  it('the basket survives a reload (the trip init made, and one the page kept the tokens of)', async function () {
    this.timeout(40_000)
    localStorage.removeItem('svc-sandbox:trip')
    const frame = await frameAt('/test/browser/fixtures/csp-sandbox.html')

    // 1. No trip given: the sandbox makes one and remembers it.
    const first = await open(frame)
    ;(await enabledPlus('extras', frame.contentDocument!)).click()
    const withBag = await waitFor(() => first.changes.find((c) => bagsIn(c).length === 1), 'a bag in the frame')
    const bagId = bagsIn(withBag)[0]!.basket_item_id
    await reload(frame)
    const again = await open(frame)
    expect(bagsIn(again.changes[0]!).map((b) => b.basket_item_id)).to.deep.equal([bagId])

    // 2. The page keeps the trip's tokens (as a seller's page keeps what its backend handed over).
    const w = frame.contentWindow as FrameWindow
    const trip = await w.Svc.sandbox.createTrip({ flight: '9001' })
    const kept = { tripId: trip.tripId, tripAccessToken: trip.tripAccessToken, refreshToken: trip.refreshToken }
    const second = await open(frame, kept)
    ;(await enabledPlus('extras', frame.contentDocument!)).click()
    await waitFor(() => second.changes.find((c) => bagsIn(c).length === 1), 'a bag on the kept trip')
    await reload(frame)
    const restored = await open(frame, kept)
    expect(bagsIn(restored.changes[0]!)).to.have.length(1)

    // Under the policy: nothing was refused but TypeBox's probe for eval (it then validates without it).
    const refused = (frame.contentWindow as FrameWindow).__cspViolations.filter(
      (v) => !(v.directive === 'script-src' && v.blocked === 'eval'),
    )
    expect(refused).to.deep.equal([])
  })
})
