/**
 * A view on a trip whose airline is a remote API (docs/decisions.md "Searching a remote supplier"): the trip's
 * search is `in_progress` when the view opens, and a job of the real API ends it (test/browser/remote.ts).
 * The view shows its loading state until the search has its answer (the trip's `search` event, or a poll
 * while there is no stream), then the offers, with no new session; a failed search is its error state with
 * "Try again", which searches again; and nothing is asked of the API once the view and its session are gone.
 * The waiting is client/session.ts's (a read of a running search waits for its event, its poll or dispose).
 */
import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../components/index.ts'
import { ApiClient } from '../../client/api.ts'
import { Session, type SessionOptions } from '../../client/session.ts'
import type { SvcError } from '../../client/errors.ts'
import { remoteTrip, type RemoteTrip } from '../browser/remote.ts'
import {
  axe,
  button,
  cleanup,
  deep,
  deepAll,
  isSearchRead,
  mount,
  record,
  settle,
  until,
  type Recorded,
} from '../browser/helpers.ts'
import { urlOf } from '../../mock-server/conditions.ts'

const sessions: Session[] = []

afterEach(async () => {
  for (const s of sessions.splice(0)) s.dispose()
  await cleanup()
})

/** Records every call as it starts (helpers' recordingFetch reads each body whole, which an event stream never ends). */
function calling(): typeof fetch & { calls: Recorded[]; searches(): Recorded[] } {
  const calls: Recorded[] = []
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ method: init?.method ?? 'GET', url: urlOf(input), status: 0, bytes: 0 })
    return fetch(input, init)
  }) as typeof fetch & { calls: Recorded[]; searches(): Recorded[] }
  return Object.assign(f, { calls, searches: () => calls.filter(isSearchRead) })
}

async function remoteSession(o: RemoteTrip, opts: SessionOptions = {}) {
  const f = await remoteTrip(o)
  const calls = calling()
  const s = new Session(
    new ApiClient({
      baseUrl: f.baseUrl,
      tripId: f.tripId,
      accessToken: f.accessToken,
      refreshToken: f.refreshToken,
      fetch: calls,
    }),
    { pollMs: 200, ...opts },
  )
  sessions.push(s)
  return { s, calls }
}

const isPost = (c: { method: string; url: URL }) => c.method === 'POST' && c.url.pathname.endsWith('/search')

describe('a view while a remote airline is still searching', function () {
  this.timeout(30_000)

  it('shows its loading state until the search ends, then the bags, in the same view and session', async () => {
    const { s, calls } = await remoteSession({ delayMs: 2000 }, { searchPollMs: 300 })
    const el = await mount(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    const events = record(el, 'svc-load', 'svc-fail')
    await until(() => s.state.offers.bag?.searching, 'the search found in progress')
    await settle(el)
    expect(deep(el, 'section')!.getAttribute('aria-busy')).to.equal('true')
    expect(deep(el, '[part="loading"]'), 'the spinner').not.to.equal(null)
    expect(deepAll(el, '[part="option"]')).to.have.length(0)
    expect(deep(el, '[part="empty"]'), 'not "no bags"').to.equal(null)
    await axe(el, 'searching')

    await until(() => deepAll(el, '[part="option"]').length > 0, 'the bags', 10_000)
    expect(deep(el, 'section')!.getAttribute('aria-busy')).to.equal('false')
    expect(s.state.offers.bag).to.deep.equal({ status: 'ready', error: null })
    // The one search, read while it ran and once more when it ended; no new search.
    const reads = calls.searches()
    expect(reads.length).to.be.at.least(2)
    expect(new Set(reads.map((c) => c.url.pathname)).size).to.equal(1)
    expect(calls.calls.filter(isPost)).to.have.length(0)
    expect(events.map((e) => e.type)).to.deep.equal(['svc-load'])
  })

  it("with the trip's event stream, the search event brings the offers (no poll is due)", async () => {
    const { s, calls } = await remoteSession({ delayMs: 1200 }, { searchPollMs: 20_000 })
    await s.load()
    s.follow()
    const el = await mount(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await until(() => s.state.offers.bag?.searching, 'the search found in progress')
    const started = performance.now()
    await until(() => deepAll(el, '[part="option"]').length > 0, 'the bags', 10_000)
    expect(performance.now() - started, 'long before the 20 s poll').to.be.below(6000)
    expect(calls.searches()).to.have.length(2)
  })

  it('a failed search: the error state with "Try again" and svc-fail (offers_unavailable); "Try again" searches again and shows the bags', async () => {
    const { s, calls } = await remoteSession({ delayMs: 100, fail: 'first' }, { searchPollMs: 200 })
    const el = await mount(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    const events = record<{ product: string; error: SvcError }>(el, 'svc-fail', 'svc-load')
    await until(() => deep(el, '[part="error"]'), 'the error state', 10_000)
    expect(deep(el, '[part="error"]')!.textContent).to.contain('Extras could not be loaded.')
    expect(events.map((e) => e.type)).to.deep.equal(['svc-fail'])
    const { error, product } = events[0]!.detail
    expect(product).to.equal('bags')
    expect(error.code).to.equal('offers_unavailable')
    expect(error.apiCode).to.equal('supplier_timeout')
    expect(error.message).to.contain('supplier_timeout')
    await axe(el, 'failed search')

    // Reading the failed search again would fail again: "Try again" starts a new one.
    button(el, 'Try again')!.click()
    await until(() => calls.calls.some(isPost), 'a new search')
    await until(() => deepAll(el, '[part="option"]').length > 0, 'the bags', 10_000)
    expect(calls.calls.filter(isPost)).to.have.length(1)
    expect(events.map((e) => e.type)).to.deep.equal(['svc-fail', 'svc-load'])
  })

  it('asks nothing more of the API once the view is removed and its session disposed (no timer left behind)', async () => {
    const { s, calls } = await remoteSession({ delayMs: 5000 }, { searchPollMs: 200, searchPollMaxMs: 400 })
    await s.load()
    s.follow()
    const el = await mount(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await until(() => s.state.offers.bag?.searching, 'the search found in progress')
    await until(() => calls.searches().length >= 2, 'a repeated read')
    el.remove()
    s.dispose()
    const made = calls.calls.length
    await new Promise((r) => setTimeout(r, 2500))
    expect(calls.calls.length, 'no request after dispose').to.equal(made)
    expect(s.state.offers.bag?.status, 'the disposed session stays as it was').to.equal('loading')
  })
})
