/**
 * Each element entry of the built package (dist/svc-ancillaries/elements/<tag>.js; run `npm run build`
 * first), loaded ALONE in a document of its own, as docs/sdk.md's light way has a seller's app import it:
 * the package's index for `Session` and `ApiClient` (which registers no element), then that one entry. Every
 * entry gets a fresh frame (test/browser/fixtures/element-entry.html), so its custom element registry holds
 * only what that entry registered; in one shared document an element registered by an earlier entry, or by
 * the test page, would hide a missing registration, which is how `<svc-bag-upsell>` came to show empty
 * `<svc-price>` tags in a fresh Vite app while every other test passed.
 *
 * The element is rendered with a real trip (the runner's fixture API) in every display it has, with items in
 * the basket of each product it sells, their prices changed (so the validity notices with their prices
 * render too); then nothing inside it, through every shadow root, may be a custom element its frame does not
 * define, and every price must show its text: what scripts/rollup/element-registrations.mjs makes each
 * entry import (the tags its templates render), checked on the built package.
 */
import { expect } from '@esm-bundle/chai'
import type * as Package from '../../../sdk/esm.ts'
import type { Session } from '../../../client/session.ts'
import type { BasketView } from '../../../client/api.ts'
import type { BasketItem } from '../../../client/types.ts'
import { rewriteJson, urlOf } from '../../../mock-server/conditions.ts'
import { fixture, productFor, until } from '../../browser/helpers.ts'

/** The package's entries, one per element (test/scripts/rollup/element-entries.test.ts pins the same list in the sources). */
const ENTRIES = [
  'svc-bag-upsell',
  'svc-basket',
  'svc-modal',
  'svc-option-card',
  'svc-price',
  'svc-seat-map',
  'svc-spinner',
  'svc-upsell',
] as const
type Tag = (typeof ENTRIES)[number]
const PACKAGE = '/dist/svc-ancillaries'

interface Frame {
  win: Window & typeof globalThis
  doc: Document
  main: HTMLElement
  pkg: typeof Package
}

const frames: HTMLIFrameElement[] = []
afterEach(() => {
  for (const f of frames.splice(0)) f.remove()
})

/** A fresh document with the package's index and the entry of `tag`, and nothing else, loaded. */
async function frameWith(tag: Tag): Promise<Frame> {
  const frame = document.createElement('iframe')
  frame.style.inlineSize = '1000px'
  frame.style.blockSize = '800px'
  const loaded = new Promise((r) => frame.addEventListener('load', r, { once: true }))
  frame.src = `/test/browser/fixtures/element-entry.html?${new URLSearchParams({ entry: tag, tags: ENTRIES.join(',') })}`
  document.body.append(frame)
  frames.push(frame)
  await loaded
  const win = frame.contentWindow as Window &
    typeof globalThis & { entryLoaded: Promise<{ pkg: typeof Package; definedByIndex: string[] }> }
  const { pkg, definedByIndex } = await win.entryLoaded
  // Else an element would count as the entry's when the index had registered it.
  expect(definedByIndex, 'elements the package index registered by itself').to.deep.equal([])
  expect(win.customElements.get(tag), `${tag} after its own entry`).to.not.equal(undefined)
  return { win, doc: frame.contentDocument!, main: frame.contentDocument!.querySelector('main')!, pkg }
}

/** Every element under `root`, through shadow roots (and `root`'s own). */
function deepElements(root: Element | ShadowRoot): Element[] {
  const out: Element[] = []
  const walk = (node: Element | ShadowRoot) => {
    for (const el of Array.from(node.querySelectorAll('*'))) {
      out.push(el)
      if (el.shadowRoot) walk(el.shadowRoot)
    }
  }
  if ('shadowRoot' in root && root.shadowRoot) walk(root.shadowRoot)
  walk(root)
  return out
}

/**
 * The basket as the API would have it after a check that found every extra's price changed: each extra
 * `price_changed` with the price it had (a tenth lower), so each view also draws its validity notice.
 */
const priceChangedFetch: typeof fetch = async (input, init) => {
  const res = await window.fetch(input, init)
  if (!/\/basket(\/[^/]+)?$/.test(urlOf(input).pathname)) return res
  return rewriteJson(res, (view: BasketView) => {
    for (const item of Object.values(view.basket) as BasketItem[]) {
      if (item.product_type === 'ticket') continue
      const total = item.price.total
      item.validity = {
        ...item.validity,
        status: 'price_changed',
        previous_price: { ...item.price, total: { ...total, amount: Math.round(total.amount * 0.9) } },
      }
    }
    return view
  })
}

type Adds = 'bag' | 'seat' | 'priority_boarding' | 'automatic_check_in'

/** A trip's Session made with the frame's own package, its offers loaded, with one item of each of `adds` for p1. */
async function tripSession(f: Frame, adds: Adds[]): Promise<Session> {
  const t = await fixture()
  const s = new f.pkg.Session(
    new f.pkg.ApiClient({
      baseUrl: t.baseUrl,
      tripId: t.tripId,
      accessToken: t.accessToken,
      refreshToken: t.refreshToken,
      fetch: priceChangedFetch,
    }),
  )
  await s.load()
  await s.loadOffers(['bag', 'seat', 'priority_boarding', 'automatic_check_in'])
  for (const type of adds) {
    const product = productFor(s, type, 'p1', (p) => type !== 'bag' || p.product_details['checked'] === true)
    await s.add(product.product_id, 'p1', 1)
  }
  return s
}

type Display = 'embedded' | 'card' | 'modal'
/** The displays of a product view and of `<svc-upsell>`: each is tried in a frame of its own. */
const DISPLAYS: Display[] = ['embedded', 'card', 'modal']

/** `tag`, with the session and its other properties set as a seller's code sets them. */
function mountView(f: Frame, tag: string, props: Record<string, unknown>) {
  const el = f.doc.createElement(tag)
  Object.assign(el, props)
  f.main.append(el)
}

/**
 * What an entry's element is given (in `display`, for the elements that have displays), and the tags that
 * must then be drawn inside the frame, so that a check over an empty render cannot pass.
 */
type Scenario = (f: Frame, display: Display) => Promise<string[]>

const SCENARIOS: Record<Tag, { displays?: Display[]; run: Scenario }> = {
  'svc-bag-upsell': {
    displays: DISPLAYS,
    run: async (f, display) => {
      mountView(f, 'svc-bag-upsell', { display, session: await tripSession(f, ['bag']) })
      return display === 'embedded' ? ['svc-price'] : ['svc-price', 'svc-modal']
    },
  },
  'svc-seat-map': {
    displays: DISPLAYS,
    run: async (f, display) => {
      mountView(f, 'svc-seat-map', { display, session: await tripSession(f, ['seat']) })
      return display === 'embedded' ? ['svc-price'] : ['svc-price', 'svc-modal']
    },
  },
  'svc-option-card': {
    displays: DISPLAYS,
    run: async (f, display) => {
      const session = await tripSession(f, ['priority_boarding', 'automatic_check_in'])
      mountView(f, 'svc-option-card', { display, session, product: 'priority_boarding' })
      mountView(f, 'svc-option-card', { display, session, product: 'automatic_check_in' })
      return display === 'embedded' ? ['svc-price'] : ['svc-price', 'svc-modal']
    },
  },
  'svc-upsell': {
    displays: DISPLAYS,
    run: async (f, display) => {
      mountView(f, 'svc-upsell', {
        display,
        session: await tripSession(f, ['bag', 'seat', 'priority_boarding', 'automatic_check_in']),
      })
      return [
        'svc-bag-upsell',
        'svc-seat-map',
        'svc-option-card',
        'svc-price',
        ...(display === 'embedded' ? [] : ['svc-modal']),
      ]
    },
  },
  'svc-basket': {
    run: async (f) => {
      mountView(f, 'svc-basket', {
        session: await tripSession(f, ['bag', 'seat', 'priority_boarding', 'automatic_check_in']),
      })
      return ['svc-price']
    },
  },
  'svc-modal': {
    run: async (f) => {
      const el = f.doc.createElement('svc-modal')
      el.innerHTML = '<p>Your extras</p><button slot="footer" type="button">Done</button>'
      Object.assign(el, { label: 'Extras', open: true })
      f.main.append(el)
      return []
    },
  },
  'svc-price': {
    run: async (f) => {
      mountView(f, 'svc-price', {
        amount: { amount: 4599, decimal_places: 2, currency: 'EUR' },
        previous: { amount: 3999, decimal_places: 2, currency: 'EUR' },
      })
      return ['svc-price']
    },
  },
  'svc-spinner': {
    run: async (f) => {
      mountView(f, 'svc-spinner', { label: 'Loading' })
      return []
    },
  },
}

/** Waits for every Lit element in the frame to finish rendering, a few rounds (a render can add elements). */
async function settle(f: Frame) {
  for (let i = 0; i < 3; i++) {
    await Promise.all(
      deepElements(f.main)
        .map((e) => (e as Element & { updateComplete?: Promise<unknown> }).updateComplete)
        .filter(Boolean),
    )
    await new Promise((r) => f.win.requestAnimationFrame(r))
  }
}

describe('the element entries of the package, each alone in its own document', () => {
  it('are the elements the package declares (custom-elements.json), each a file of its own', async () => {
    const manifest = (await (await fetch(`${PACKAGE}/custom-elements.json`)).json()) as {
      modules: Array<{ declarations?: Array<{ tagName?: string }> }>
    }
    const declared = manifest.modules
      .flatMap((m) => m.declarations ?? [])
      .map((d) => d.tagName)
      .filter(Boolean)
      .sort()
    expect(declared).to.deep.equal([...ENTRIES])
    for (const tag of ENTRIES)
      expect((await fetch(`${PACKAGE}/elements/${tag}.js`)).status, `${PACKAGE}/elements/${tag}.js`).to.equal(200)
  })

  for (const tag of ENTRIES) {
    const { displays, run } = SCENARIOS[tag]
    // A display per frame: the card and modal displays load code (the dialog frames) that registers
    // elements too, and would mend an embedded view beside them in the same document.
    for (const display of displays ?? [undefined]) {
      const as = display ? ` in ${display} display` : ''
      it(`${tag}.js registers every element ${tag} renders${as}: none inside it is undefined, and its prices show`, async function () {
        this.timeout(40_000)
        const f = await frameWith(tag)
        const expected = [tag, ...(await run(f, display ?? 'embedded'))]
        const tags = () => new Set(deepElements(f.main).map((e) => e.localName))
        // Drawn with its data: the views have loaded (no skeleton left; the card and modal displays' code and
        // a lazy view arrive as they would for a traveller), and what the scenario must draw is there.
        await until(
          () => expected.every((t) => tags().has(t)) && !deepElements(f.main).some((e) => e.matches('[part~=loading]')),
          `${expected.join(', ')} drawn, nothing loading`,
          20_000,
        ).catch((e: Error) => {
          throw new Error(`${e.message}; drawn: ${[...tags()].filter((t) => t.includes('-')).join(', ')}`)
        })
        await settle(f)
        const undefinedInside = deepElements(f.main)
          .filter((el) => el.localName.includes('-') && !f.win.customElements.get(el.localName))
          .map((el) => el.localName)
        expect([...new Set(undefinedInside)], `custom elements ${tag}.js left undefined${as}`).to.deep.equal([])
        // A price given its amount shows it (an undefined <svc-price> is an empty tag).
        const prices = deepElements(f.main).filter(
          (el) => el.localName === 'svc-price' && (el as Element & { amount?: unknown }).amount,
        )
        if (expected.includes('svc-price')) expect(prices.length, 'prices drawn').to.be.greaterThan(0)
        for (const p of prices) expect(p.shadowRoot?.textContent?.trim(), 'the text of a price').to.match(/\d|Free/)
      })
    }
  }
})
