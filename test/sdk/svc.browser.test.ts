/**
 * The browser SDK as a seller's page uses it: the BUILT bundle (`npm run build` → dist/javascript/v2.2/
 * svc.min.js) loaded by a script tag, against the real API the test runner started (`/__fixture/trip`
 * creates a trip as a seller's backend would). The bundle is served here by the test runner, not by the
 * API, so every init passes `baseUrl`.
 *
 * In this one page, in order: the global before any init; the widgets in the traveller's language (first, as a
 * locale table loads once per page); init, showUpsell, a strict CSP, another provider; the offers the SDK
 * downloads; and a trip whose airline is a remote API still searching.
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
} from '../browser/bundle.ts'
import type { Strings } from '../../components/i18n/index.ts'
import { enUS } from '../../components/i18n/en-US.ts'
import deDE from '../../components/i18n/locales/de-DE.ts'
import arSA from '../../components/i18n/locales/ar-SA.ts'
import jaJP from '../../components/i18n/locales/ja-JP.ts'
import plPL from '../../components/i18n/locales/pl-PL.ts'
import ptPT from '../../components/i18n/locales/pt-PT.ts'
import itIT from '../../components/i18n/locales/it-IT.ts'
import { axe, deep, deepAll, textOf, until } from '../browser/helpers.ts'
import { remoteTrip } from '../browser/remote.ts'

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

// The widgets in the traveller's language, as a seller's page gets them: the BUILT bundle (which holds
// en-US only) fetches `locales/<tag>.json` from its own folder (here the test runner serves dist/) for
// the trip's language or the `locale` option, before the widgets mount; a locale we have no table for
// keeps English texts with its own number formats; a table that cannot be fetched falls back to English
// with a console warning.
type UpsellEl = HTMLElement & { updateComplete: Promise<boolean> }

let shown = 0

/** Opens a trip in `language` (and `locale` when given) and shows the bags embedded; returns the bag view. */
async function bags(language: string, locale?: string): Promise<{ upsell: UpsellEl; view: HTMLElement }> {
  const f = await trip({ language })
  await Svc.init({
    tripId: f.tripId,
    tripAccessToken: f.accessToken,
    baseUrl: f.baseUrl,
    onBasketChange: () => {},
    ...(locale ? { locale } : {}),
  })
  const box = container(`bags-${++shown}`)
  await Svc.showUpsell({ container: box.id, display: 'embedded', allowProducts: ['bags'] })
  const upsell = box.querySelector('svc-upsell') as UpsellEl
  const view = await until(() => deep<HTMLElement>(upsell, 'svc-bag-upsell'), 'the bag view')
  await until(() => deep(view, 'svc-price')?.shadowRoot?.textContent?.trim(), 'a price')
  return { upsell, view }
}

const title = (view: HTMLElement) => deep(view, 'h2')!.textContent!.trim()
const firstPrice = (view: HTMLElement) => deep(view, 'svc-price')!.shadowRoot!.textContent!.trim()
const localeRequests = () =>
  performance
    .getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname)
    .filter((p) => p.includes('/locales/'))

/** console.warn, recorded while `fn` runs. */
async function warnings(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = []
  const original = console.warn
  console.warn = (...args: unknown[]) => {
    seen.push(args.map(String).join(' '))
  }
  try {
    await fn()
  } finally {
    console.warn = original
  }
  return seen
}

describe("the SDK in the traveller's language", () => {
  before(() => performance.setResourceTimingBufferSize(10_000))

  // Each test sees the requests of its own widgets (the API's polling would fill the timing buffer otherwise).
  beforeEach(() => performance.clearResourceTimings())

  it('de-DE: fetches the German table beside the script; German texts, prices with € after a decimal comma', async () => {
    const { upsell, view } = await bags('de-DE')
    expect(localeRequests()).to.include('/dist/javascript/v2.2/locales/de-DE.json')
    expect(upsell.lang).to.equal('de-DE')
    expect(upsell.dir).to.equal('ltr')
    expect(title(view)).to.contain(deDE.bags_title)
    const text = textOf(view)
    expect(text).to.contain(deDE.bag_checked).and.contain(deDE.infant_on_lap).and.contain('Fluggast 1')
    expect(text).not.to.contain(enUS.bag_checked)
    expect(firstPrice(view)).to.match(/^\d+,\d\d\s€$/)
    expect(firstPrice(view)).to.equal(
      new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(
        Number(
          firstPrice(view)
            .replace(/[^\d,]/g, '')
            .replace(',', '.'),
        ),
      ),
    )
    expect(Svc.formatPrice(2550, 2, 'EUR')).to.match(/^25,50\s€$/)
  })

  it('ar-SA: right to left on the host, Arabic texts and digits, and axe finds nothing', async () => {
    const { upsell, view } = await bags('ar-SA')
    expect(upsell.getAttribute('dir')).to.equal('rtl')
    expect(upsell.lang).to.equal('ar-SA')
    expect(getComputedStyle(deep(view, 'h2')!).direction).to.equal('rtl')
    expect(title(view)).to.contain(arSA.bags_title)
    expect(textOf(view)).to.contain(arSA.bag_checked).and.contain(arSA.infant_on_lap)
    expect(firstPrice(view)).to.match(/[٠-٩]/)
    await axe(upsell, 'ar-SA bags')
  })

  it('ja-JP renders in Japanese', async () => {
    const { view } = await bags('ja-JP')
    expect(title(view)).to.contain(jaJP.bags_title)
    expect(textOf(view)).to.contain(jaJP.bag_checked).and.contain('搭乗者1')
  })

  it('the locale option wins over the trip language, and its table loads beside the trip', async () => {
    const { upsell, view } = await bags('de-DE', 'pl-PL')
    expect(upsell.lang).to.equal('pl-PL')
    expect(title(view)).to.contain(plPL.bags_title)
    expect(textOf(view)).to.contain(plPL.bag_checked)
  })

  it('pt-BR has no table of its own: the European Portuguese one, with Brazilian number formats', async () => {
    const { upsell, view } = await bags('pt-BR')
    expect(localeRequests())
      .to.include('/dist/javascript/v2.2/locales/pt-PT.json')
      .and.not.include('/dist/javascript/v2.2/locales/pt-BR.json')
    expect(upsell.lang).to.equal('pt-BR')
    expect(title(view)).to.contain(ptPT.bags_title)
    expect(firstPrice(view)).to.equal(
      new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'EUR' }).format(
        Number(
          firstPrice(view)
            .replace(/[^\d,]/g, '')
            .replace(',', '.'),
        ),
      ),
    )
  })

  it('cs-CZ, a language we have no table for: English texts, Czech prices, nothing fetched, no warning', async () => {
    let view!: HTMLElement
    const warned = await warnings(async () => {
      view = (await bags('cs-CZ')).view
    })
    expect(warned).to.deep.equal([])
    expect(localeRequests()).to.deep.equal([])
    expect(title(view)).to.contain(enUS.bags_title)
    expect(textOf(view)).to.contain(enUS.bag_checked)
    expect(firstPrice(view)).to.match(/^\d+,\d\d\s€$/)
    expect(firstPrice(view)).to.equal(
      new Intl.NumberFormat('cs-CZ', { style: 'currency', currency: 'EUR' }).format(
        Number(
          firstPrice(view)
            .replace(/[^\d,]/g, '')
            .replace(',', '.'),
        ),
      ),
    )
  })

  it("a table that cannot be fetched: English texts, the locale's prices, one console warning, and init still resolves", async () => {
    const realFetch = window.fetch
    window.fetch = (input, init) =>
      String(input instanceof Request ? input.url : input).includes('/locales/')
        ? Promise.reject(new TypeError('Failed to fetch'))
        : realFetch(input, init)
    let view!: HTMLElement
    try {
      const warned = await warnings(async () => {
        view = (await bags('it-IT')).view
      })
      expect(warned).to.have.length(1)
      expect(warned[0]).to.match(/it-IT/)
    } finally {
      window.fetch = realFetch
    }
    expect(title(view)).to.contain(enUS.bags_title).and.not.contain(itIT.bags_title)
    expect(firstPrice(view)).to.match(/^\d+,\d\d\s€$/)
  })

  it('no `{placeholder}` reaches the page in any of these languages', async () => {
    for (const language of ['de-DE', 'ar-SA', 'ja-JP', 'pl-PL']) {
      const { view } = await bags(language)
      const labels = deepAll(view, '[aria-label]').map((e) => e.getAttribute('aria-label')!)
      expect([textOf(view), ...labels].join(' '), language).not.to.match(/[{}]/)
    }
  })
})

// Type-level: a module is a whole table (the typecheck fails here when one lacks a key).
const _tables: Strings[] = [deDE, arSA, jaJP, plPL, ptPT, itIT]
void _tables

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

// What the BUILT SDK downloads of the offers, as a seller's page uses it (svc.min.js by a script tag,
// against the real API): `Svc.init` reads trip and basket only, `Svc.showUpsell` reads the offers of the
// products it shows (`?product_types=`), and each type once however many widgets show it. A full search
// with its seat maps is ~450 KB of JSON; the bag widget must get by with 15 KB.
const OFFERS_BUDGET = 15_000

interface Call {
  method: string
  url: URL
  status: number
  bytes: number
}

/** Records the page's fetch calls (the SDK calls the global fetch) with each response body's size. */
function recordFetch(fail?: (url: URL) => boolean) {
  const calls: Call[] = []
  const orig = window.fetch
  window.fetch = async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input), location.href)
    if (fail?.(url)) throw new TypeError('Failed to fetch')
    const res = await orig(input, init)
    calls.push({
      method: init?.method ?? 'GET',
      url,
      status: res.status,
      bytes: (await res.clone().arrayBuffer()).byteLength,
    })
    return res
  }
  return {
    calls,
    searches: () => calls.filter((c) => c.method === 'GET' && /\/search\/[^/]+$/.test(c.url.pathname)),
    restore: () => {
      window.fetch = orig
    },
  }
}

const typesOf = (c: Call) => c.url.searchParams.get('product_types')

describe('offers the SDK downloads', function () {
  this.timeout(30_000)
  let rec: ReturnType<typeof recordFetch> | undefined
  afterEach(() => rec?.restore())

  async function init() {
    const f = await trip()
    await Svc.init({ tripId: f.tripId, tripAccessToken: f.accessToken, baseUrl: f.baseUrl, onBasketChange: () => {} })
    return f
  }

  it('init reads trip and basket, no offers; the bag widget reads product_types=bag, ≤ 15 KB, once', async () => {
    rec = recordFetch()
    await init()
    expect(rec.searches(), 'no offers before a widget').to.deep.equal([])
    container('bags-only')
    await Svc.showUpsell({ container: 'bags-only', display: 'embedded', allowProducts: ['bags'] })
    await enabledPlus('bags-only')
    const reads = rec.searches()
    expect(reads.map(typesOf)).to.deep.equal(['bag'])
    expect(reads[0]!.status).to.equal(200)
    expect(reads[0]!.bytes, `${reads[0]!.bytes} bytes of bag offers`).to.be.at.most(OFFERS_BUDGET)
    const offers = rec.searches().reduce((n, c) => n + c.bytes, 0)
    expect(offers).to.be.at.most(OFFERS_BUDGET)
  })

  it('bags, then seats, then both on one page: each type read once', async () => {
    rec = recordFetch()
    await init()
    container('page-bags')
    container('page-seats')
    container('page-both')
    await Svc.showUpsell({ container: 'page-bags', display: 'embedded', allowProducts: ['bags'] })
    expect(rec.searches().map(typesOf)).to.deep.equal(['bag'])
    await Svc.showUpsell({ container: 'page-seats', display: 'embedded', allowProducts: ['seats'] })
    await waitFor(
      () => upsellIn('page-seats')?.shadowRoot?.querySelector('svc-seat-map')?.shadowRoot?.querySelector('[role=grid]'),
      'the seat map',
    )
    expect(rec.searches().map(typesOf)).to.deep.equal(['bag', 'seat'])
    await Svc.showUpsell({ container: 'page-both', display: 'card', allowProducts: ['bags', 'seats'] })
    expect(rec.searches().map(typesOf), 'nothing read again').to.deep.equal(['bag', 'seat'])
  })

  it('two widgets shown at once share their reads', async () => {
    rec = recordFetch()
    const f = await trip()
    container('at-once-bags')
    container('at-once-seats')
    await Svc.init({ tripId: f.tripId, tripAccessToken: f.accessToken, baseUrl: f.baseUrl, onBasketChange: () => {} })
    await Promise.all([
      Svc.showUpsell({ container: 'at-once-bags', display: 'embedded', allowProducts: ['bags'] }),
      Svc.showUpsell({ container: 'at-once-seats', display: 'embedded', allowProducts: ['bags', 'seats'] }),
    ])
    expect(rec.searches().map(typesOf)).to.deep.equal(['bag', 'seat'])
  })

  it('a failed offers read rejects showUpsell with its error; a later showUpsell reads them again', async () => {
    let broken = true
    rec = recordFetch((url) => broken && /\/search\//.test(url.pathname))
    await init()
    container('offers-fail')
    const e = await rejection(
      Svc.showUpsell({ container: 'offers-fail', display: 'embedded', allowProducts: ['bags'] }),
    )
    expect(e).to.be.instanceOf(Svc.SvcError)
    expect(e.code).to.equal('network')
    expect(upsellIn('offers-fail')).to.equal(null)
    broken = false
    await Svc.showUpsell({ container: 'offers-fail', display: 'embedded', allowProducts: ['bags'] })
    await enabledPlus('offers-fail')
    expect(rec.searches().map(typesOf)).to.deep.equal(['bag'])
  })
})

// The BUILT SDK (svc.min.js by a script tag) on a trip whose airline is a remote API, as Duffel is
// (docs/decisions.md "Searching a remote supplier"; test/browser/remote.ts): the widget shows its loading
// state while the airline still searches and then the bags, with no new `Svc.init`; a failed search
// rejects `showUpsell` with `offers_unavailable`, fires `onBagFail` / `onSeatFail`, and shows the error
// state, whose "Try again" searches again and shows the offers once the airline answers.
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
