/**
 * The widgets in the traveller's language, as a seller's page gets them: the BUILT bundle (which holds
 * en-US only) fetches `locales/<tag>.json` from its own folder (here the test runner serves dist/) for
 * the trip's language or the `locale` option, before the widgets mount; a locale we have no table for
 * keeps English texts with its own number formats; a table that cannot be fetched falls back to English
 * with a console warning.
 */
import { expect } from '@esm-bundle/chai'
import type { SvcApi } from '../../sdk/index.ts'
import type { Strings } from '../../components/i18n/index.ts'
import { enUS } from '../../components/i18n/en-US.ts'
import deDE from '../../components/i18n/locales/de-DE.ts'
import arSA from '../../components/i18n/locales/ar-SA.ts'
import jaJP from '../../components/i18n/locales/ja-JP.ts'
import plPL from '../../components/i18n/locales/pl-PL.ts'
import ptPT from '../../components/i18n/locales/pt-PT.ts'
import itIT from '../../components/i18n/locales/it-IT.ts'
import { axe, deep, deepAll, textOf, until } from './helpers.ts'
import { BUNDLE, container, loadScript, trip } from './bundle.ts'

type UpsellEl = HTMLElement & { updateComplete: Promise<boolean> }

let Svc: SvcApi
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

before(async () => {
  await loadScript(BUNDLE)
  Svc = window.Svc
  performance.setResourceTimingBufferSize(10_000)
})

// Each test sees the requests of its own widgets (the API's polling would fill the timing buffer otherwise).
beforeEach(() => performance.clearResourceTimings())

describe("the SDK in the traveller's language", () => {
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
