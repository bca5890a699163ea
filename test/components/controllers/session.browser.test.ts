/**
 * The offers a view downloads, against the real API: each element asks the session for the product types
 * it shows when it gets its session (bags → `bag`, seats → `seat`...), the session reads each type once
 * with `?product_types=`, whoever asks, a failed read is the view's error with its retry, and a search
 * purged by retention (404) is searched again. A full search with its seat maps is ~450 KB; the bag widget
 * must stay within 15 KB of offers. (components/controllers/session.ts asks for its host's types; the
 * Session, client/session.ts, reads each once.)
 */
import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import type { SvcBagUpsell, SvcSeatMap } from '../../../components/index.ts'
import {
  button,
  cleanup,
  deep,
  deepAll,
  extrasOf,
  mount,
  purgedSearchFetch,
  record,
  recordingFetch,
  session,
  settle,
  textOf,
  until,
  type Recorded,
} from '../../browser/helpers.ts'
import { urlOf } from '../../../mock-server/conditions.ts'

afterEach(cleanup)

const OFFERS_BUDGET = 15_000
const plusButtons = (el: Element) =>
  deepAll<HTMLButtonElement>(el, 'button').filter(
    (b) => b.getAttribute('aria-label')?.startsWith('Add one') && b.getAttribute('aria-disabled') === 'false',
  )
const typesOf = (c: Recorded) => c.url.searchParams.get('product_types')

describe('offers per product type', function () {
  this.timeout(30_000)

  it('<svc-bag-upsell> alone on a page reads the bags only (product_types=bag, ≤ 15 KB), once', async () => {
    const f = recordingFetch()
    const s = await session({ fetch: f, offers: [] })
    expect(f.searches(), 'no offers before a view asks').to.deep.equal([])
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await until(() => plusButtons(el).length > 0, 'an enabled "+"')
    const reads = f.searches()
    expect(reads.map(typesOf)).to.deep.equal(['bag'])
    expect(reads[0]!.status).to.equal(200)
    expect(reads[0]!.bytes, `${reads[0]!.bytes} bytes of offers`).to.be.at.most(OFFERS_BUDGET)
    expect(Object.keys(s.state.search!.results.products)).to.deep.equal(['bag'])
    expect(s.state.search!.results.seatmaps).to.deep.equal([])
    expect(s.state.offers).to.deep.equal({ bag: { status: 'ready', error: null } })
  })

  it('shows the loading state until its offers are there, though trip and basket are loaded', async () => {
    let open: () => void = () => {}
    const gate = new Promise<void>((r) => {
      open = r
    })
    const s = await session({
      offers: [],
      fetch: async (input, init) => {
        if (/\/search\/[^/]+$/.test(urlOf(input).pathname)) await gate
        return window.fetch(input, init)
      },
    })
    expect(s.state.status).to.equal('ready')
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell display="card" .session=${s}></svc-bag-upsell>`)
    expect(deep(el, '[part~=card]')!.getAttribute('aria-busy')).to.equal('true')
    expect(deep(el, '[part=loading]')).to.exist
    expect(deep(el, '[part~=open-button]')).to.equal(null)
    open()
    await until(() => deep(el, '[part~=open-button]'), 'the card ready')
    expect(deep(el, '[part~=card]')!.getAttribute('aria-busy')).to.equal('false')
  })

  it('a seat map reads the seats (with their maps) when it is shown, beside bags already loaded', async () => {
    const f = recordingFetch()
    const s = await session({ fetch: f, offers: [] })
    const bags = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await until(() => plusButtons(bags).length > 0, 'the bags')
    expect(f.searches().map(typesOf)).to.deep.equal(['bag'])
    const seats = await mount<SvcSeatMap>(html`<svc-seat-map .session=${s}></svc-seat-map>`)
    await until(() => deep(seats, '[role=grid] button[data-status=available]'), 'the seat map')
    expect(f.searches().map(typesOf)).to.deep.equal(['bag', 'seat'])
    expect(Object.keys(s.state.search!.results.products).sort()).to.deep.equal(['bag', 'seat'])
    expect(s.state.search!.results.seatmaps.length).to.be.greaterThan(0)
    // The bags stay as they were.
    await settle(bags)
    expect(plusButtons(bags).length).to.be.greaterThan(0)
  })

  it('bags, seats and an upsell of both on one page read each type once', async () => {
    const f = recordingFetch()
    const s = await session({ fetch: f, offers: [] })
    const loads = record(document, 'svc-load')
    const main = await mount(html`<div>
      <svc-bag-upsell .session=${s}></svc-bag-upsell>
      <svc-seat-map .session=${s}></svc-seat-map>
      <svc-upsell .session=${s} .products=${['bags', 'seats']}></svc-upsell>
      <svc-bag-upsell display="card" .session=${s}></svc-bag-upsell>
    </div>`)
    await until(() => loads.length >= 5, 'every view loaded')
    await settle(main)
    expect(f.searches().map(typesOf).sort()).to.deep.equal(['bag', 'seat'])
  })

  it('a failed offers read: the view shows its error with "Try again" (svc-fail), and the retry loads them', async () => {
    let broken = true
    const s = await session({
      offers: [],
      fetch: async (input, init) => {
        if (broken && /\/search\/[^/]+$/.test(urlOf(input).pathname)) throw new TypeError('Failed to fetch')
        return window.fetch(input, init)
      },
    })
    const fails = record(document, 'svc-fail')
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await until(() => s.state.offers.bag?.status === 'error', 'the failed read')
    await settle(el)
    expect(s.state.status, 'trip and basket loaded').to.equal('ready')
    const alert = deep(el, '[role=alert]')!
    expect(textOf(alert)).to.contain('Extras could not be loaded.')
    expect(fails.map((e) => [e.detail.product, e.detail.error.code])).to.deep.equal([['bags', 'network']])
    broken = false
    button(alert, 'Try again')!.click()
    await until(() => plusButtons(el).length > 0, 'the bags after the retry')
    expect(deep(el, '[role=alert]')).to.equal(null)
  })

  it('a search purged by retention (404): a new search of every type, then its bags, which the basket takes', async () => {
    const purged = purgedSearchFetch()
    const f = recordingFetch(purged)
    const s = await session({ fetch: f, offers: [] })
    const first = s.state.trip!.search_id
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await until(() => plusButtons(el).length > 0, 'the bags of the new search')
    expect(purged.purged).to.equal(first)
    const posts = f.calls.filter((c) => c.method === 'POST' && c.url.pathname.endsWith('/search'))
    expect(posts, 'one new search').to.have.length(1)
    expect(s.state.trip!.search_id).to.not.equal(first)
    expect(s.state.search!.search_id).to.equal(s.state.trip!.search_id)
    expect(f.searches().map((c) => [c.status, typesOf(c)])).to.deep.equal([
      [404, 'bag'],
      [200, 'bag'],
    ])
    // Products of the new search are the trip's now: adding one works.
    plusButtons(el)[0]!.click()
    await until(() => extrasOf(s).length === 1 && !s.state.busy, 'the bag in the basket')
  })
})
