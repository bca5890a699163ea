/**
 * The browser SDK as a seller's page uses it: the BUILT bundle (`npm run build` → dist/javascript/v2.2/
 * svc.min.js) loaded by a script tag, against the real API the test runner started (`/__fixture/trip`
 * creates a trip as a seller's backend would). The bundle is served here by the test runner, not by the
 * API, so every init passes `baseUrl`.
 */
import { expect } from '@esm-bundle/chai'
import type { BasketChange, SvcApi, WidgetEvent, WidgetFailure } from '../../sdk/index.ts'
import {
  BUNDLE,
  bagsIn,
  container,
  enabledPlus,
  loadScript,
  rejection,
  sleep,
  spy,
  track,
  trip,
  upsellIn,
  waitFor,
} from './bundle.ts'

let Svc: SvcApi

before(async () => {
  await loadScript(BUNDLE)
  Svc = window.Svc
})

describe('the Svc global', () => {
  it('is set by the script, typed, versioned and frozen', () => {
    expect(window.Svc).to.equal(Svc)
    expect(Svc.version).to.equal('2.2')
    expect(Svc.init).to.be.a('function')
    expect(Svc.showUpsell).to.be.a('function')
    expect(Svc.formatPrice).to.be.a('function')
    expect(Object.isFrozen(Svc)).to.equal(true)
  })

  it('showUpsell before init rejects with not_initialized', async () => {
    container('early')
    const e = await rejection(Svc.showUpsell({ container: 'early', display: 'embedded' }))
    expect(e).to.be.instanceOf(Svc.SvcError)
    expect(e.code).to.equal('not_initialized')
  })

  it('formatPrice before init uses the document language', () => {
    const lang = document.documentElement.lang
    document.documentElement.lang = 'de-DE'
    try {
      expect(Svc.formatPrice(2550, 2, 'EUR')).to.equal(
        new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(25.5),
      )
    } finally {
      document.documentElement.lang = lang
    }
    expect(Svc.formatPrice(1000, 0, 'JPY')).to.equal(
      new Intl.NumberFormat(lang || 'en-US', { style: 'currency', currency: 'JPY' }).format(1000),
    )
  })

  it('formatPrice refuses nonsense with invalid_options', () => {
    expect(() => Svc.formatPrice(Number.NaN, 2, 'EUR'))
      .to.throw(Svc.SvcError)
      .with.property('code', 'invalid_options')
    expect(() => Svc.formatPrice(100, 2, 'EURO'))
      .to.throw(Svc.SvcError)
      .with.property('code', 'invalid_options')
    expect(() => Svc.formatPrice(100, -1, 'EUR'))
      .to.throw(Svc.SvcError)
      .with.property('code', 'invalid_options')
  })
})

describe('Svc.init', () => {
  it('resolves, and hands over the basket as it stands with validity.state (never status)', async () => {
    const f = await trip()
    const onBasketChange = spy<BasketChange>()
    await Svc.init({ tripId: f.tripId, tripAccessToken: f.accessToken, baseUrl: f.baseUrl, onBasketChange })
    expect(onBasketChange.calls).to.have.length(1)
    const items = Object.values(onBasketChange.calls[0]!.basket)
    expect(items.map((i) => i.product_type)).to.deep.equal(['ticket'])
    expect(items[0]!.validity).to.have.property('state', 'valid')
    expect(items[0]!.validity).not.to.have.property('status')
  })

  it('formats prices in the trip language, or the locale option', async () => {
    const f = await trip({ language: 'de-DE' })
    await Svc.init({ tripId: f.tripId, tripAccessToken: f.accessToken, baseUrl: f.baseUrl, onBasketChange: () => {} })
    expect(Svc.formatPrice(2550, 2, 'EUR')).to.equal(
      new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(25.5),
    )
    await Svc.init({
      tripId: f.tripId,
      tripAccessToken: f.accessToken,
      baseUrl: f.baseUrl,
      onBasketChange: () => {},
      locale: 'en-US',
    })
    expect(Svc.formatPrice(2550, 2, 'EUR')).to.equal('€25.50')
  })

  it('rejects invalid options with invalid_options, naming every problem', async () => {
    const e = await rejection(Svc.init({ tripId: '', onBasketChange: 42 } as never))
    expect(e).to.be.instanceOf(Svc.SvcError)
    expect(e.name).to.equal('SvcError')
    expect(e.code).to.equal('invalid_options')
    expect(e.message)
      .to.match(/tripId is required/)
      .and.match(/tripAccessToken is required/)
      .and.match(/onBasketChange must be a function/)
    const none = await rejection(Svc.init(undefined as never))
    expect(none.code).to.equal('invalid_options')
  })

  it('rejects a bad access token with unauthorized', async () => {
    const f = await trip()
    const e = await rejection(
      Svc.init({ tripId: f.tripId, tripAccessToken: 'not.a.token', baseUrl: f.baseUrl, onBasketChange: () => {} }),
    )
    expect(e.code).to.equal('unauthorized')
    expect(e.status).to.equal(401)
  })

  it('calls the API at the origin the script came from when no baseUrl is given', async () => {
    const urls: string[] = []
    const orig = window.fetch
    window.fetch = (input, init) => {
      urls.push(String(input instanceof Request ? input.url : input))
      return orig(input, init)
    }
    try {
      // The test runner, not the API, serves the bundle here, so the call fails; where it went is the point.
      await rejection(Svc.init({ tripId: 'trip-1', tripAccessToken: 'a.b.c', onBasketChange: () => {} }))
    } finally {
      window.fetch = orig
    }
    expect(urls[0]).to.equal(`${location.origin}/v2.2/trip/trip-1`)
  })
})

describe('Svc.showUpsell', () => {
  async function ready(q: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
    const f = await trip(q)
    const onBasketChange = spy<BasketChange>()
    await Svc.init({ tripId: f.tripId, tripAccessToken: f.accessToken, baseUrl: f.baseUrl, onBasketChange, ...extra })
    onBasketChange.calls.length = 0 // the basket as it stood at init
    return { f, onBasketChange }
  }

  it('rejects container_not_found for a missing container', async () => {
    await ready()
    const e = await rejection(Svc.showUpsell({ container: 'nowhere', display: 'embedded' }))
    expect(e).to.be.instanceOf(Svc.SvcError)
    expect(e.code).to.equal('container_not_found')
  })

  it('rejects invalid_options for a bad display or an unknown product name', async () => {
    await ready()
    container('x')
    expect((await rejection(Svc.showUpsell({ container: 'x', display: 'popup' as never }))).code).to.equal(
      'invalid_options',
    )
    const e = await rejection(Svc.showUpsell({ container: 'x', display: 'card', allowProducts: ['bag' as never] }))
    expect(e.code).to.equal('invalid_options')
    expect(e.message).to.match(/"bag"/)
  })

  it('rejects no_products when nothing allowed is on sale', async () => {
    await ready()
    container('ff')
    const e = await rejection(
      Svc.showUpsell({ container: 'ff', display: 'embedded', allowProducts: ['fare_family_upsell'] }),
    )
    expect(e.code).to.equal('no_products')
    expect(upsellIn('ff')).to.equal(null)
  })

  it('shows the bag list; a click adds a bag and onBasketChange gets {basket} with it and validity.state', async () => {
    const onBagLoad = spy<WidgetEvent>()
    const { onBasketChange } = await ready({}, { onBagLoad })
    container('bags')
    await Svc.showUpsell({ container: 'bags', display: 'embedded', allowProducts: ['bags'] })
    expect(onBagLoad.calls).to.deep.equal([{ container: 'bags', display: 'embedded' }])
    const el = upsellIn('bags')!
    expect(el.shadowRoot!.querySelector('svc-bag-upsell')).to.not.equal(null)
    expect(el.shadowRoot!.querySelector('svc-seat-upsell, svc-seat-map')).to.equal(null)

    ;(await enabledPlus('bags')).click()
    const change = await waitFor(
      () => onBasketChange.calls.find((c) => bagsIn(c).length > 0),
      'onBasketChange with a bag',
    )
    expect(Object.keys(change)).to.deep.equal(['basket'])
    const [bag] = bagsIn(change)
    expect(bag!.validity.state).to.equal('valid')
    expect(bag!.validity).not.to.have.property('status')
    expect(bag!.display_name).to.be.a('string').and.not.equal('')
    const total = bag!.price.total
    expect(total.amount).to.be.a('number')
    expect(Svc.formatPrice(total.amount, total.decimal_places, total.currency)).to.match(/\d/)
    expect(onBasketChange.calls).to.have.length(1)
  })

  it('card and modal displays resolve; closing the dialog calls onBagModalClosed', async () => {
    const onBagLoad = spy<WidgetEvent>()
    const onBagModalClosed = spy<WidgetEvent>()
    await ready({}, { eventCallbacks: { onBagLoad, onBagModalClosed } })
    container('card')
    await Svc.showUpsell({ container: 'card', display: 'card', allowProducts: ['bags'] })
    container('modal')
    await Svc.showUpsell({ container: 'modal', display: 'modal', allowProducts: ['bags'] })
    expect(onBagLoad.calls).to.deep.equal([
      { container: 'card', display: 'card' },
      { container: 'modal', display: 'modal' },
    ])
    const modal = upsellIn('modal')!.shadowRoot!.querySelector('svc-modal') as HTMLElement & { close(): void }
    modal.close()
    await waitFor(() => onBagModalClosed.calls.length > 0, 'onBagModalClosed')
    expect(onBagModalClosed.calls).to.deep.equal([{ container: 'modal', display: 'modal' }])
  })

  it('a second showUpsell in the same container replaces the first widget', async () => {
    await ready()
    container('again')
    await Svc.showUpsell({ container: 'again', display: 'embedded', allowProducts: ['bags'] })
    const first = upsellIn('again')
    await Svc.showUpsell({ container: 'again', display: 'card', allowProducts: ['bags'] })
    const all = document.getElementById('again')!.querySelectorAll('svc-upsell')
    expect(all).to.have.length(1)
    expect(all[0]).to.not.equal(first)
    expect(all[0]!.getAttribute('display')).to.equal('card')
  })

  it('two instances share one session, and onBasketChange fires once per change', async () => {
    const onSeatLoad = spy<WidgetEvent>()
    const { onBasketChange } = await ready({}, { onSeatLoad })
    container('bag-box')
    container('seat-box')
    await Promise.all([
      Svc.showUpsell({ container: 'bag-box', display: 'embedded', allowProducts: ['bags'] }),
      Svc.showUpsell({ container: 'seat-box', display: 'embedded', allowProducts: ['seats'] }),
    ])
    expect(onSeatLoad.calls).to.deep.equal([{ container: 'seat-box', display: 'embedded' }])
    expect(upsellIn('bag-box')!.session).to.equal(upsellIn('seat-box')!.session)
    ;(await enabledPlus('bag-box')).click()
    await waitFor(() => onBasketChange.calls.length > 0, 'onBasketChange')
    await sleep(400)
    expect(onBasketChange.calls).to.have.length(1)
    expect(bagsIn(onBasketChange.calls[0]!)).to.have.length(1)
  })

  it('callbacks under eventCallbacks are used, and win over top-level ones', async () => {
    const f = await trip()
    const top = spy<BasketChange>()
    const grouped = spy<BasketChange>()
    await Svc.init({
      tripId: f.tripId,
      tripAccessToken: f.accessToken,
      baseUrl: f.baseUrl,
      onBasketChange: top,
      eventCallbacks: { onBasketChange: grouped },
    })
    container('ec')
    await Svc.showUpsell({ container: 'ec', display: 'embedded', allowProducts: ['bags'] })
    ;(await enabledPlus('ec')).click()
    await waitFor(() => grouped.calls.some((c) => bagsIn(c).length > 0), 'eventCallbacks.onBasketChange with a bag')
    expect(top.calls).to.have.length(0)
  })

  it('a callback that throws is logged and never breaks the widget', async () => {
    const errors: unknown[][] = []
    const origError = console.error
    console.error = (...a: unknown[]) => {
      errors.push(a)
    }
    try {
      const throwing = spy<BasketChange>(() => {
        throw new Error('seller bug')
      })
      const f = await trip()
      await Svc.init({
        tripId: f.tripId,
        tripAccessToken: f.accessToken,
        baseUrl: f.baseUrl,
        onBasketChange: throwing,
        onBagLoad: () => {
          throw new Error('also a bug')
        },
      })
      container('throws')
      await Svc.showUpsell({ container: 'throws', display: 'embedded', allowProducts: ['bags'] })
      ;(await enabledPlus('throws')).click()
      await waitFor(() => throwing.calls.some((c) => bagsIn(c).length === 1), 'the first bag')
      // The widget carries on: a second bag still goes in.
      ;(await enabledPlus('throws')).click()
      await waitFor(
        () => throwing.calls.some((c) => bagsIn(c).reduce((n, i) => n + i.quantity, 0) === 2),
        'the second bag',
      )
    } finally {
      console.error = origError
    }
    expect(errors.some((a) => String(a[0]).includes('onBasketChange'))).to.equal(true)
    expect(errors.some((a) => String(a[0]).includes('onBagLoad'))).to.equal(true)
  })

  it('onInvalidBasket fires when a check finds an item unavailable (flight 9002)', async () => {
    const onInvalidBasket = spy<BasketChange>()
    const { onBasketChange } = await ready({ flight: '9002' }, { onInvalidBasket })
    container('inv')
    await Svc.showUpsell({ container: 'inv', display: 'embedded', allowProducts: ['bags'] })
    ;(await enabledPlus('inv')).click()
    await waitFor(() => onBasketChange.calls.some((c) => bagsIn(c).length > 0), 'the bag')
    expect(onInvalidBasket.calls).to.have.length(0)
    await upsellIn('inv')!.session.check()
    const change = await waitFor(() => onInvalidBasket.calls.at(-1), 'onInvalidBasket', 10_000)
    expect(bagsIn(change)[0]!.validity.state).to.equal('unavailable')
    expect(onBasketChange.calls.at(-1)).to.deep.equal(change)
  })

  it("init again removes the earlier trip's widgets", async () => {
    await ready()
    container('old')
    await Svc.showUpsell({ container: 'old', display: 'embedded', allowProducts: ['bags'] })
    expect(upsellIn('old')).to.not.equal(null)
    await ready()
    expect(upsellIn('old')).to.equal(null)
  })

  it('renews an expired access token with the refresh token, and changes still succeed', async function () {
    this.timeout(20_000)
    const f = await trip({ accessTtl: '3' })
    const seen: Array<{ url: string; method: string; auth: string | null }> = []
    const orig = window.fetch
    window.fetch = (input, init) => {
      seen.push({
        url: String(input instanceof Request ? input.url : input),
        method: init?.method ?? 'GET',
        auth: new Headers(init?.headers).get('authorization'),
      })
      return orig(input, init)
    }
    try {
      const onBasketChange = spy<BasketChange>()
      await Svc.init({
        tripId: f.tripId,
        tripAccessToken: f.accessToken,
        refreshToken: f.refreshToken,
        baseUrl: f.baseUrl,
        onBasketChange,
      })
      container('renew')
      await Svc.showUpsell({ container: 'renew', display: 'embedded', allowProducts: ['bags'] })
      await sleep(4000)
      // The token the page was given has expired by now.
      const direct = await orig(`${f.baseUrl}/v2.2/trip/${f.tripId}/basket`, {
        headers: { authorization: `Bearer ${f.accessToken}` },
      })
      expect(direct.status).to.equal(401)
      ;(await enabledPlus('renew')).click()
      await waitFor(
        () => onBasketChange.calls.some((c) => bagsIn(c).length > 0),
        'the bag, added after the token expired',
      )
    } finally {
      window.fetch = orig
    }
    expect(seen.some((r) => r.method === 'POST' && r.url === `${f.baseUrl}/v2.2/refresh_token`)).to.equal(true)
    const patch = seen.filter((r) => r.method === 'PATCH' && r.url.endsWith('/basket')).at(-1)
    expect(patch?.auth).to.match(/^Bearer /)
    expect(patch?.auth).to.not.equal(`Bearer ${f.accessToken}`)
  })
})

describe('under a strict Content-Security-Policy', () => {
  interface CspWindow extends Window {
    __cspViolations: Array<{ directive: string; blocked: string; sample: string; source: string }>
    __inlineScriptRan?: boolean
  }

  it('loads, shows the bags and changes the basket with no violation', async () => {
    const frame = document.createElement('iframe')
    frame.style.inlineSize = '800px'
    frame.style.blockSize = '600px'
    const loaded = new Promise((r) => frame.addEventListener('load', r, { once: true }))
    frame.src = '/test/browser/fixtures/csp.html'
    document.body.append(frame)
    track(frame)
    await loaded
    const w = frame.contentWindow as CspWindow
    const doc = frame.contentDocument!
    // The policy is in force: the page's own inline script was refused, and reported.
    expect(w.__inlineScriptRan).to.equal(undefined)
    const isDeliberate = (v: CspWindow['__cspViolations'][number]) =>
      v.directive.startsWith('script-src') && v.blocked === 'inline'
    expect(w.__cspViolations.filter(isDeliberate)).to.have.length(1)

    const f = await trip()
    const changes: BasketChange[] = []
    const failures: WidgetFailure[] = []
    await w.Svc.init({
      tripId: f.tripId,
      tripAccessToken: f.accessToken,
      baseUrl: f.baseUrl,
      onBasketChange: (c) => changes.push(c),
      onBagFail: (e) => failures.push(e),
    })
    await w.Svc.showUpsell({
      container: 'extras',
      display: 'embedded',
      allowProducts: ['bags'],
      theme: { primary: '#005f73', radius: '4px' },
    })
    const el = upsellIn('extras', doc)!
    expect(el.shadowRoot!.adoptedStyleSheets.length).to.be.greaterThan(0)
    ;(await enabledPlus('extras', doc)).click()
    await waitFor(() => changes.some((c) => bagsIn(c).length > 0), 'a bag under CSP')
    // And the dialog display, whose <dialog> and focus handling must not need anything the policy forbids,
    // and the seat map: both are chunks svc.min.js fetches from its own origin, which script-src allows.
    doc.body.insertAdjacentHTML('beforeend', '<div id="extras-modal"></div><div id="extras-seats"></div>')
    await w.Svc.showUpsell({ container: 'extras-modal', display: 'modal', allowProducts: ['bags'] })
    await w.Svc.showUpsell({ container: 'extras-seats', display: 'embedded', allowProducts: ['seats'] })
    expect(upsellIn('extras-seats', doc)!.shadowRoot!.querySelector('svc-seat-map')).to.exist
    await sleep(200)
    expect(failures).to.deep.equal([])
    expect(w.__cspViolations.filter((v) => !isDeliberate(v))).to.deep.equal([])
  })
})

describe('coming from another provider: an element as container, and Svc.destroy', () => {
  it('showUpsell takes the container element itself; its events name that element', async () => {
    const f = await trip()
    const onBagLoad = spy<WidgetEvent>()
    await Svc.init({
      tripId: f.tripId,
      tripAccessToken: f.accessToken,
      baseUrl: f.baseUrl,
      onBasketChange: () => {},
      onBagLoad,
    })
    const host = document.createElement('section') // no id at all
    document.body.append(host)
    track(host)
    await Svc.showUpsell({ container: host, display: 'embedded', allowProducts: ['bags'] })
    expect(host.querySelectorAll('svc-upsell')).to.have.length(1)
    expect(onBagLoad.calls).to.have.length(1)
    expect(onBagLoad.calls[0]!.container).to.equal(host)
    // The same element again replaces its widget, as an id does.
    await Svc.showUpsell({ container: host, display: 'card', allowProducts: ['bags'] })
    expect(host.querySelectorAll('svc-upsell')).to.have.length(1)
    // An element not in the page is refused as a missing id is.
    const detached = document.createElement('div')
    expect((await rejection(Svc.showUpsell({ container: detached, display: 'embedded' }))).code).to.equal(
      'container_not_found',
    )
    expect((await rejection(Svc.showUpsell({ container: 42 as never, display: 'embedded' }))).code).to.equal(
      'invalid_options',
    )
  })

  it('Svc.destroy removes every widget, stops following the trip, and a later init starts afresh', async () => {
    const f = await trip()
    // The trip's event stream is a fetch: its signal says whether destroy let go of it.
    const streams: AbortSignal[] = []
    const orig = window.fetch
    window.fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/events') && init?.signal)
        streams.push(init.signal)
      return orig(input, init)
    }
    try {
      await Svc.init({ tripId: f.tripId, tripAccessToken: f.accessToken, baseUrl: f.baseUrl, onBasketChange: () => {} })
      container('d1')
      container('d2')
      await Svc.showUpsell({ container: 'd1', display: 'embedded', allowProducts: ['bags'] })
      await Svc.showUpsell({ container: 'd2', display: 'card', allowProducts: ['bags'] })
      await waitFor(() => streams.length > 0, 'the event stream')
      expect(streams.some((s) => !s.aborted)).to.equal(true)
      Svc.destroy()
      expect(upsellIn('d1')).to.equal(null)
      expect(upsellIn('d2')).to.equal(null)
      expect(streams.every((s) => s.aborted)).to.equal(true)
      const e = await rejection(Svc.showUpsell({ container: 'd1', display: 'embedded' }))
      expect(e.code).to.equal('not_initialized')
      expect(() => Svc.destroy()).not.to.throw() // twice is harmless
      await sleep(300)
      expect(streams.every((s) => s.aborted)).to.equal(true) // and nothing reconnected
    } finally {
      window.fetch = orig
    }
    // And the page can start again.
    await Svc.init({ tripId: f.tripId, tripAccessToken: f.accessToken, baseUrl: f.baseUrl, onBasketChange: () => {} })
    await Svc.showUpsell({ container: 'd1', display: 'embedded', allowProducts: ['bags'] })
    expect(upsellIn('d1')).to.not.equal(null)
  })
})
