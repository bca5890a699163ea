/**
 * What the BUILT SDK downloads of the offers, as a seller's page uses it (svc.min.js by a script tag,
 * against the real API): `Svc.init` reads trip and basket only, `Svc.showUpsell` reads the offers of the
 * products it shows (`?product_types=`), and each type once however many widgets show it. A full search
 * with its seat maps is ~450 KB of JSON; the bag widget must get by with 15 KB.
 */
import { expect } from '@esm-bundle/chai'
import type { SvcApi } from '../../sdk/index.ts'
import { BUNDLE, container, enabledPlus, loadScript, rejection, trip, upsellIn, waitFor } from './bundle.ts'

const OFFERS_BUDGET = 15_000

let Svc: SvcApi

before(async () => {
  await loadScript(BUNDLE)
  Svc = window.Svc
})

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
