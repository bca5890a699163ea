/**
 * The Session's ordering rules, with a fake client whose answers the test releases by hand: a read that
 * was overtaken by a change never puts back the older basket, out-of-order change answers keep the
 * newest, busy lasts until the last change, a disposed session stops polling, and a failed poll retries.
 * And its offers, per product type on demand: only the types asked for and not loaded yet, one request per
 * call shared by concurrent callers, merged into `search`, a failed load retried, and a search purged by
 * retention (404) searched again once.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Session } from '../../client/session.ts'
import type { ApiClient, BasketView } from '../../client/api.ts'
import { SvcError } from '../../client/errors.ts'
import { until } from '../helpers/wait.ts'
import type { Basket, BasketItem, Search } from '../../client/types.ts'

const FAR = new Date(Date.now() + 3600_000).toISOString()

function item(id: string, status: BasketItem['validity']['status'] = 'valid'): BasketItem {
  const money = {
    amount: 1000,
    currency: 'EUR',
    decimal_places: 2,
    in_original_currency: { amount: 1000, currency: 'EUR', decimal_places: 2 },
  }
  return {
    basket_item_id: id,
    display_name: id,
    product_id: `p-${id}`,
    product_type: 'bag',
    quantity: 1,
    ticket_id: 't',
    benefits: [],
    price: { base: money, total: money, fees: [], markups: [], taxes: [] },
    product_details: {},
    validity: { status, valid_from: new Date().toISOString(), valid_to: FAR },
  } as unknown as BasketItem
}
const view = (...ids: string[]): BasketView => ({
  trip_state_hash: ids.join(','),
  journeys: [],
  basket: Object.fromEntries(ids.map((id) => [id, item(id)])) as Basket,
})

/** A client whose every call waits until the test resolves it. */
function fakeClient() {
  const pending: Array<{ what: string; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = []
  const call = (what: string) =>
    new Promise<never>((resolve, reject) => {
      pending.push({ what, resolve: resolve as (v: unknown) => void, reject })
    })
  const client = {
    getTrip: () =>
      Promise.resolve({
        trip_id: 't',
        search_id: 's',
        currency: 'EUR',
        language: 'en-GB',
        journeys: [],
        passengers: [],
        tickets: [],
      }),
    getSearch: () => Promise.resolve({ search_id: 's', status: 'success', results: { products: {}, seatmaps: [] } }),
    getBasket: () => call('get'),
    addToBasket: () => call('add'),
    removeItem: () => call('remove'),
    acceptItem: () => call('accept'),
    checkBasket: () => call('check'),
  } as unknown as ApiClient
  const take = (what: string) => {
    const i = pending.findIndex((p) => p.what === what)
    assert.ok(i >= 0, `no pending ${what} call (pending: ${pending.map((p) => p.what).join(', ')})`)
    return pending.splice(i, 1)[0]!
  }
  return { client, pending, take }
}

const tick = () => new Promise((r) => setTimeout(r, 0))
const ids = (s: Session) => Object.keys(s.state.basket).sort()

async function loaded(pollMs = 1000) {
  const f = fakeClient()
  const s = new Session(f.client, { pollMs })
  const changes: string[][] = []
  s.addEventListener('basket-change', (e) =>
    changes.push(Object.keys((e as CustomEvent<{ basket: Basket }>).detail.basket).sort()),
  )
  const l = s.load()
  await tick()
  f.take('get').resolve(view('ticket'))
  await l
  changes.length = 0
  return { ...f, s, changes }
}

test('a read answered after a change does not put back the basket from before the change', async () => {
  const { s, take, changes } = await loaded()
  const read = s.refresh()
  const add = s.add('p-bag', 'p1')
  await tick()
  take('add').resolve(view('ticket', 'bag'))
  await add
  take('get').resolve(view('ticket')) // the read left before the click: stale
  await read
  assert.deepEqual(ids(s), ['bag', 'ticket'])
  assert.deepEqual(changes, [['bag', 'ticket']])
  s.dispose()
})

test('a read answered while a change is on its way is not shown either', async () => {
  const { s, take, changes } = await loaded()
  const add = s.add('p-bag', 'p1')
  const read = s.refresh()
  await tick()
  take('get').resolve(view('ticket'))
  await read
  take('add').resolve(view('ticket', 'bag'))
  await add
  assert.deepEqual(ids(s), ['bag', 'ticket'])
  assert.deepEqual(changes, [['bag', 'ticket']])
  s.dispose()
})

test("two changes answered out of order: the later change's answer stays", async () => {
  const { s, pending, changes } = await loaded()
  const first = s.add('p-a', 'p1')
  const second = s.add('p-b', 'p1')
  await tick()
  const [a, b] = [pending.shift()!, pending.shift()!]
  b.resolve(view('ticket', 'a', 'b'))
  await second
  assert.equal(s.state.busy, true, 'still busy: the first change has no answer yet')
  a.resolve(view('ticket', 'a'))
  await first
  assert.equal(s.state.busy, false)
  assert.deepEqual(ids(s), ['a', 'b', 'ticket'])
  assert.deepEqual(changes, [['a', 'b', 'ticket']])
  s.dispose()
})

test('a disposed session schedules nothing, even when a read in flight answers later', async () => {
  const { s, take, pending } = await loaded(5)
  const read = s.refresh()
  s.dispose()
  await tick()
  take('get').resolve({ ...view('ticket'), basket: { x: item('x', 'checking') } })
  await read
  await new Promise((r) => setTimeout(r, 30))
  assert.equal(pending.length, 0, 'no poll after dispose')
})

test('a failed poll is retried (it used to stop polling for good)', async () => {
  const { s, take, pending } = await loaded(5)
  const check = s.check()
  await tick()
  take('check').resolve({ ...view(), basket: { x: item('x', 'checking') } })
  await check
  await new Promise((r) => setTimeout(r, 20))
  take('get').reject(new Error('offline'))
  await new Promise((r) => setTimeout(r, 40))
  assert.ok(
    pending.some((p) => p.what === 'get'),
    'polled again after the failure',
  )
  take('get').resolve({ ...view(), basket: { x: item('x', 'valid') } })
  await tick()
  assert.equal(s.state.basket.x?.validity.status, 'valid')
  s.dispose()
})

// ---------------------------------------------------------------- offers per product type

const product = (type: string, id: string) => ({
  product_id: id,
  product_type: type,
  display_name: id,
  product_details: {},
  price_and_availability: { p1: { available: true, price: null, quantity_limit: 1 } },
})
const SEATMAP = { segment_id: 'seg-1', aircraft: 'B787-9', decks: [] }

/** What the API answers for `types` of search `searchId` (seat maps only with `seat`), as the server does. */
function searchOf(searchId: string, types: readonly string[] | undefined): Search {
  const all = ['bag', 'seat', 'priority_boarding', 'automatic_check_in', 'fare_family_upsell']
  const wanted = types ?? all
  return {
    search_id: searchId,
    status: 'success',
    results: {
      products: Object.fromEntries(wanted.map((t) => [t, { [`${searchId}-${t}`]: product(t, `${searchId}-${t}`) }])),
      seatmaps: wanted.includes('seat') ? [{ ...SEATMAP, aircraft: `${searchId} B787-9` }] : [],
    },
  } as unknown as Search
}

/** A client with a trip and basket at once, and search reads the test answers by hand (or purges). */
function offersClient(o: { searchId?: string | null } = {}) {
  const reads: Array<{
    searchId: string
    types: string[] | undefined
    resolve: () => void
    reject: (e: unknown) => void
  }> = []
  const searches: string[] = []
  let purged = new Set<string>()
  let tripSearch = o.searchId === undefined ? 's1' : o.searchId
  const client = {
    getTrip: () =>
      Promise.resolve({
        trip_id: 't',
        search_id: tripSearch,
        currency: 'EUR',
        language: 'en-GB',
        journeys: [],
        passengers: [],
        tickets: [],
      }),
    getBasket: () => Promise.resolve(view('ticket')),
    startSearch: (selection: Record<string, unknown>) => {
      const id = `s${searches.length + 2}`
      searches.push(Object.keys(selection).join(','))
      tripSearch = id
      return Promise.resolve({ search_id: id, status: 'success' })
    },
    getSearch: (searchId: string, types?: readonly string[]) =>
      new Promise<Search>((resolve, reject) => {
        reads.push({
          searchId,
          types: types ? [...types] : undefined,
          reject,
          resolve: () =>
            purged.has(searchId)
              ? reject(
                  new SvcError('not_found', `Search ${searchId} does not exist for this trip.`, {
                    status: 404,
                    apiCode: 'not_found',
                  }),
                )
              : resolve(searchOf(searchId, types)),
        })
      }),
  } as unknown as ApiClient
  /** Answers every read made so far (and those they lead to), until none is left. */
  const answerAll = async () => {
    for (let i = 0; i < 10; i++) {
      await tick()
      const now = reads.splice(0)
      if (now.length === 0) return
      for (const r of now) r.resolve()
      asked.push(...now.map((r) => `${r.searchId}?${r.types?.join(',') ?? '*'}`))
    }
  }
  const asked: string[] = []
  return {
    client,
    reads,
    asked,
    searches,
    answerAll,
    purge: (id: string) => {
      purged = new Set([...purged, id])
    },
  }
}

test('load() reads trip and basket only; the offers come per product type, only those asked for', async () => {
  const f = offersClient()
  const s = new Session(f.client)
  await s.load()
  await tick()
  assert.equal(s.state.status, 'ready')
  assert.equal(s.state.search, null)
  assert.deepEqual(s.state.offers, {})
  assert.deepEqual(f.reads, [], 'no search read before a widget asks')

  const bags = s.loadOffers(['bag'])
  assert.deepEqual(s.state.offers.bag, { status: 'loading', error: null }, 'loading as soon as asked')
  await f.answerAll()
  await bags
  assert.deepEqual(f.asked, ['s1?bag'])
  assert.deepEqual(Object.keys(s.state.search!.results.products), ['bag'])
  assert.deepEqual(s.state.search!.results.seatmaps, [])
  assert.equal(s.state.offers.bag?.status, 'ready')
  assert.equal(s.state.offers.seat, undefined)

  // Seats then: only seats are read, merged beside the bags, with their seat maps.
  const seats = s.loadOffers(['bag', 'seat'])
  await f.answerAll()
  await seats
  assert.deepEqual(f.asked, ['s1?bag', 's1?seat'])
  assert.deepEqual(Object.keys(s.state.search!.results.products).sort(), ['bag', 'seat'])
  assert.equal(s.state.search!.results.seatmaps.length, 1)
  assert.equal(s.state.search!.search_id, 's1')

  // Everything loaded: nothing is read again.
  await s.loadOffers(['seat', 'bag'])
  await f.answerAll()
  assert.deepEqual(f.asked, ['s1?bag', 's1?seat'])
  s.dispose()
})

test('concurrent callers for the same types share one request; the rest is one request per call', async () => {
  const f = offersClient()
  const s = new Session(f.client)
  const a = s.loadOffers(['bag'])
  const b = s.loadOffers(['bag'])
  const c = s.loadOffers(['bag', 'seat', 'priority_boarding'])
  await f.answerAll()
  await Promise.all([a, b, c])
  assert.deepEqual(f.asked, ['s1?bag', 's1?seat,priority_boarding'])
  assert.deepEqual(Object.keys(s.state.search!.results.products).sort(), ['bag', 'priority_boarding', 'seat'])
  s.dispose()
})

test('a trip without a search: load() searches every type; the read is still narrowed', async () => {
  const f = offersClient({ searchId: null })
  const s = new Session(f.client)
  const bags = s.loadOffers(['bag'])
  await f.answerAll()
  await bags
  assert.deepEqual(f.searches, ['bag,seat,priority_boarding,automatic_check_in,fare_family_upsell'])
  assert.deepEqual(f.asked, ['s2?bag'])
  assert.equal(s.state.trip!.search_id, 's2')
  s.dispose()
})

test('a failed offers load is an error of those types only, and asking again retries it', async () => {
  const f = offersClient()
  const s = new Session(f.client)
  await s.load()
  const bags = s.loadOffers(['bag'])
  await tick()
  f.reads.shift()!.reject(new SvcError('network', 'offline'))
  await assert.rejects(bags, (e: SvcError) => e.code === 'network')
  assert.equal(s.state.status, 'ready', 'trip and basket are fine')
  assert.equal(s.state.offers.bag?.status, 'error')
  assert.equal(s.state.offers.bag?.error?.code, 'network')
  const again = s.loadOffers(['bag'])
  assert.equal(s.state.offers.bag?.status, 'loading')
  await f.answerAll()
  await again
  assert.equal(s.state.offers.bag?.status, 'ready')
  assert.deepEqual(f.asked, ['s1?bag'])
  s.dispose()
})

test('a search purged by retention (404) is searched again, once, and every loaded type re-read from it', async () => {
  const f = offersClient()
  const s = new Session(f.client)
  const bags = s.loadOffers(['bag'])
  await f.answerAll()
  await bags
  f.purge('s1')
  // Two widgets find it gone at once: one new search between them.
  const seats = s.loadOffers(['seat'])
  const boarding = s.loadOffers(['priority_boarding'])
  await f.answerAll()
  await Promise.all([seats, boarding])
  assert.deepEqual(
    f.searches,
    ['bag,seat,priority_boarding,automatic_check_in,fare_family_upsell'],
    'one new search, of every type',
  )
  assert.equal(s.state.trip!.search_id, 's2')
  assert.equal(s.state.search!.search_id, 's2')
  assert.deepEqual(Object.keys(s.state.search!.results.products).sort(), ['bag', 'priority_boarding', 'seat'])
  assert.ok(
    Object.values(s.state.search!.results.products).every((byId) =>
      Object.keys(byId).every((id) => id.startsWith('s2-')),
    ),
    'no offer of the purged search is left',
  )
  assert.equal(s.state.search!.results.seatmaps[0]!.aircraft, 's2 B787-9')
  for (const t of ['bag', 'seat', 'priority_boarding'] as const) assert.equal(s.state.offers[t]?.status, 'ready')
  s.dispose()
})

test('a new search that is gone as well is an error, not a loop', async () => {
  const f = offersClient()
  const s = new Session(f.client)
  f.purge('s1')
  f.purge('s2')
  const bags = assert.rejects(s.loadOffers(['bag']), (e: SvcError) => e.code === 'not_found')
  await f.answerAll()
  await bags
  assert.equal(f.searches.length, 1)
  assert.equal(s.state.offers.bag?.status, 'error')
  s.dispose()
})

test('offers wait for the trip: a failed load() fails them with the same error, and a retry loads both', async () => {
  let down = true
  const f = offersClient()
  const getTrip = f.client.getTrip.bind(f.client)
  ;(f.client as unknown as { getTrip: () => Promise<unknown> }).getTrip = () =>
    down ? Promise.reject(new SvcError('network', 'offline')) : getTrip()
  const s = new Session(f.client)
  await assert.rejects(s.loadOffers(['bag']), (e: SvcError) => e.code === 'network')
  assert.equal(s.state.status, 'error')
  assert.equal(s.state.offers.bag?.error, s.state.error, 'one error, reported once')
  down = false
  const retry = s.loadOffers(['bag'])
  await f.answerAll()
  await retry
  assert.equal(s.state.status, 'ready')
  assert.equal(s.state.offers.bag?.status, 'ready')
  s.dispose()
})

// ---------------------------------------------------------------- following the trip's event stream

/** A client whose event stream the test feeds; each connection is recorded with the Last-Event-ID it sent. */
function streamingClient(opts: { noStream?: boolean } = {}) {
  const f = fakeClient()
  const connections: Array<{ lastEventId: string | undefined; push(e: unknown): void; end(): void }> = []
  const searches: string[] = []
  Object.assign(f.client, {
    getTrip: () =>
      Promise.resolve({
        trip_id: 't',
        search_id: 's',
        currency: 'EUR',
        language: 'en-GB',
        journeys: [],
        passengers: [],
        tickets: [],
      }),
    getSearch: (id: string) => {
      searches.push(id)
      return Promise.resolve({
        search_id: id,
        status: 'success',
        results: { products: { bag: { [`bag-of-${id}`]: {} } }, seatmaps: [] },
      })
    },
    async *events(lastEventId: string | undefined, signal: AbortSignal) {
      if (opts.noStream) {
        const { NoEventStream } = await import('../../client/api.ts')
        throw new NoEventStream('none here')
      }
      const queue: unknown[] = []
      let wake: (() => void) | null = null
      let ended = false
      connections.push({
        lastEventId,
        push: (e) => {
          queue.push(e)
          wake?.()
        },
        end: () => {
          ended = true
          wake?.()
        },
      })
      signal.addEventListener('abort', () => {
        ended = true
        wake?.()
      })
      for (;;) {
        while (queue.length) yield queue.shift()
        if (ended) return
        await new Promise<void>((r) => {
          wake = r
        })
      }
    },
  })
  return { ...f, connections, searches }
}

async function following(opts: { noStream?: boolean } = {}) {
  const f = streamingClient(opts)
  const s = new Session(f.client, { followRetryMs: 5, followPollMs: 5 })
  const changes: string[][] = []
  s.addEventListener('basket-change', (e) =>
    changes.push(Object.keys((e as CustomEvent<{ basket: Basket }>).detail.basket).sort()),
  )
  const l = s.load()
  await tick()
  f.take('get').resolve(view('ticket'))
  await l
  changes.length = 0
  s.follow()
  // follow() loads its loop first (client/follow.ts: svc.min.js fetches it as a chunk): connected once it has.
  await import('../../client/follow.ts')
  await tick()
  return { ...f, s, changes }
}

test('follow: a basket event from elsewhere is shown and announced once; a reconnect resumes from its id', async () => {
  const { s, connections, changes } = await following()
  assert.equal(connections.length, 1)
  connections[0]!.push({ event: 'basket', id: '7', data: view('ticket', 'bag') })
  await tick()
  assert.deepEqual(ids(s), ['bag', 'ticket'])
  assert.deepEqual(changes, [['bag', 'ticket']])
  connections[0]!.push({ event: 'basket', id: '8', data: view('ticket', 'bag') })
  await tick()
  assert.deepEqual(changes, [['bag', 'ticket']], 'an unchanged basket is not announced again')
  connections[0]!.end() // the service ended it (the token expired)
  await new Promise((r) => setTimeout(r, 30))
  assert.equal(connections.length, 2)
  assert.equal(connections[1]!.lastEventId, '8')
  s.dispose()
  await tick()
  await new Promise((r) => setTimeout(r, 30))
  assert.equal(connections.length, 2, 'a disposed session does not reconnect')
})

test('follow: an event that comes while a change is on its way is set aside, and the basket read again after it', async () => {
  const { s, connections, take } = await following()
  const add = s.add('p-bag', 'p1')
  await tick()
  connections[0]!.push({ event: 'basket', id: '9', data: view('ticket', 'seat') })
  await tick()
  take('add').resolve(view('ticket', 'bag'))
  await add
  assert.deepEqual(ids(s), ['bag', 'ticket'], 'the change answered')
  take('get').resolve(view('ticket', 'bag', 'seat')) // the read after it
  await tick()
  assert.deepEqual(ids(s), ['bag', 'seat', 'ticket'], 'the change made elsewhere is not lost')
  s.dispose()
})

test('follow: a search event loads the offers shown from the new search', async () => {
  const { s, connections, searches } = await following()
  await s.loadOffers(['bag'])
  assert.deepEqual(searches, ['s'])
  connections[0]!.push({ event: 'search', id: '10', data: { search_id: 's2' } })
  await tick()
  await tick()
  assert.equal(s.state.trip!.search_id, 's2')
  await s.loadOffers(['bag'])
  assert.deepEqual(searches, ['s', 's2'])
  assert.deepEqual(Object.keys(s.state.search!.results.products.bag!), ['bag-of-s2'])
  s.dispose()
})

test('follow: where there is no event stream, the basket is polled instead', async () => {
  const { s, take, pending } = await following({ noStream: true })
  // The poll comes after the failed stream's retry: on a loaded machine, later than any fixed sleep.
  await until('the basket polled', 2_000, () => (pending.some((p) => p.what === 'get') ? true : undefined), 5)
  take('get').resolve(view('ticket', 'bag'))
  await tick()
  await tick()
  assert.deepEqual(ids(s), ['bag', 'ticket'])
  s.dispose()
})

test('follow: a hidden tab holds no stream; shown again, it reads the basket and resumes from the last event', async () => {
  const page = Object.assign(new EventTarget(), { visibilityState: 'visible' as 'visible' | 'hidden' })
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'document')
  Object.defineProperty(globalThis, 'document', { value: page, configurable: true })
  try {
    const { s, connections, take } = await following()
    connections[0]!.push({ event: 'basket', id: '5', data: view('ticket') })
    await tick()
    page.visibilityState = 'hidden'
    page.dispatchEvent(new Event('visibilitychange'))
    await new Promise((r) => setTimeout(r, 30))
    assert.equal(connections.length, 1, 'no new stream while hidden')
    page.visibilityState = 'visible'
    page.dispatchEvent(new Event('visibilitychange'))
    await tick()
    take('get').resolve(view('ticket', 'bag')) // the catch-up read
    await new Promise((r) => setTimeout(r, 30))
    assert.deepEqual(ids(s), ['bag', 'ticket'])
    assert.equal(connections.length, 2)
    assert.equal(connections[1]!.lastEventId, '5')
    s.dispose()
  } finally {
    if (saved) Object.defineProperty(globalThis, 'document', saved)
    else delete (globalThis as { document?: unknown }).document
  }
})

// ---------------------------------------------------------------- a remote supplier's search, in the background

/**
 * A trip whose search runs at a remote supplier (docs/decisions.md "Searching a remote supplier"): each search
 * reads `in_progress` until the test ends it (`succeed`, `fail`); `startSearch` (POST .../search) starts a
 * new one, itself in progress. Every read is recorded as it is answered.
 */
function remoteClient() {
  const status = new Map<string, { status: 'in_progress' | 'success' | 'failed'; failure_reason?: string }>([
    ['s1', { status: 'in_progress' }],
  ])
  const reads: string[] = []
  const started: string[] = []
  const client = {
    getTrip: () =>
      Promise.resolve({
        trip_id: 't',
        search_id: 's1',
        currency: 'EUR',
        language: 'en-GB',
        journeys: [],
        passengers: [],
        tickets: [],
      }),
    getBasket: () => Promise.resolve(view('ticket')),
    startSearch: () => {
      const id = `s${status.size + 1}`
      status.set(id, { status: 'in_progress' })
      started.push(id)
      return Promise.resolve({ search_id: id, status: 'in_progress' })
    },
    getSearch: (searchId: string, types?: readonly string[]) => {
      reads.push(searchId)
      const s = status.get(searchId)!
      return Promise.resolve(
        s.status === 'success'
          ? searchOf(searchId, types)
          : { search_id: searchId, ...s, results: { products: {}, seatmaps: [] } },
      )
    },
  } as unknown as ApiClient
  return {
    client,
    reads,
    started,
    succeed: (id: string) => status.set(id, { status: 'success' }),
    fail: (id: string, reason: string) => status.set(id, { status: 'failed', failure_reason: reason }),
  }
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))

test('a search still in progress keeps its types loading (searching), is read again, backing off, and shows its offers once it succeeds', async () => {
  const f = remoteClient()
  const s = new Session(f.client, { searchPollMs: 20, searchPollMaxMs: 40 })
  const bags = s.loadOffers(['bag'])
  await wait(5)
  assert.deepEqual(s.state.offers.bag, { status: 'loading', error: null, searching: true }, 'loading, not "no offers"')
  assert.equal(s.state.search, null)
  await wait(100)
  const whileRunning = f.reads.length
  assert.ok(whileRunning >= 2 && whileRunning <= 6, `read again after 20, 30, 40, 40 ms (${whileRunning} reads)`)
  f.succeed('s1')
  await bags
  assert.deepEqual(s.state.offers.bag, { status: 'ready', error: null })
  assert.deepEqual(Object.keys(s.state.search!.results.products), ['bag'])
  assert.ok(f.reads.every((id) => id === 's1'))
  const after = f.reads.length
  await wait(80)
  assert.equal(f.reads.length, after, 'no read once it has its answer')
  s.dispose()
})

test("the trip's search event wakes a read waiting for its search at once (the poll is the fallback)", async () => {
  const f = remoteClient()
  const s = new Session(f.client, { searchPollMs: 60_000, searchPollMaxMs: 60_000 })
  let answered = () => {}
  Object.assign(f.client, {
    async *events(_last: string | undefined, signal: AbortSignal) {
      await new Promise<void>((r) => {
        answered = r
        signal.addEventListener('abort', () => r())
      })
      if (!signal.aborted) yield { event: 'search', id: '2', data: { search_id: 's1' } }
      await new Promise<void>((r) => signal.addEventListener('abort', () => r()))
    },
  })
  await s.load()
  s.follow()
  const bags = s.loadOffers(['bag'])
  await wait(10)
  assert.equal(s.state.offers.bag?.searching, true)
  assert.deepEqual(f.reads, ['s1'])
  f.succeed('s1')
  answered() // the job ended the search: the stream says so
  await bags
  assert.deepEqual(f.reads, ['s1', 's1'])
  assert.equal(s.state.offers.bag?.status, 'ready')
  s.dispose()
})

test('a failed search is an offers_unavailable error naming its failure_reason; asking again starts a new search, which shows its offers', async () => {
  const f = remoteClient()
  const s = new Session(f.client, { searchPollMs: 10, searchPollMaxMs: 10 })
  f.fail('s1', 'supplier_timeout')
  const e = await s.loadOffers(['bag', 'seat']).then(
    () => null,
    (x: unknown) => x as SvcError,
  )
  assert.ok(e instanceof SvcError)
  assert.equal(e.code, 'offers_unavailable')
  assert.equal(e.apiCode, 'supplier_timeout')
  assert.match(e.message, /supplier_timeout/)
  assert.equal(s.state.offers.bag?.status, 'error')
  assert.equal(s.state.offers.seat?.error?.code, 'offers_unavailable')
  assert.deepEqual(f.started, [], 'a failed search is not searched again unasked')

  // "Try again" (the bag view's): reading s1 again would fail again, so s2 is searched; while it runs, loading.
  const again = s.loadOffers(['bag'])
  await wait(5)
  assert.deepEqual(f.started, ['s2'])
  assert.equal(s.state.trip!.search_id, 's2')
  assert.equal(s.state.offers.bag?.searching, true)
  f.succeed('s2')
  await again
  assert.equal(s.state.offers.bag?.status, 'ready')
  // The seats the failed search left in error come from the new search too, with no second "Try again".
  await wait(20)
  assert.equal(s.state.offers.seat?.status, 'ready')
  assert.deepEqual(f.started, ['s2'])
  assert.equal(s.state.search!.search_id, 's2')
  s.dispose()
})

test("a stream (re)connecting names the trip's failed search while the new one runs: it is not taken back", async () => {
  const f = remoteClient()
  const s = new Session(f.client, { searchPollMs: 10, searchPollMaxMs: 10 })
  f.fail('s1', 'not_matched')
  await s.loadOffers(['bag']).catch(() => {})
  const again = s.loadOffers(['bag'])
  await wait(5)
  // Svc.refresh(): the API's trip still names s1 (s2 becomes the trip's when it succeeds).
  await s.reload()
  assert.equal(s.state.trip!.search_id, 's2')
  f.succeed('s2')
  await again
  assert.equal(s.state.search!.search_id, 's2')
  s.dispose()
})

test('dispose stops reading a running search: no timer left, the load rejects, the state stays', async () => {
  const f = remoteClient()
  const s = new Session(f.client, { searchPollMs: 10, searchPollMaxMs: 10 })
  const bags = s.loadOffers(['bag'])
  await wait(35)
  s.dispose()
  const e = await bags.then(
    () => null,
    (x: unknown) => x as SvcError,
  )
  assert.equal(e?.code, 'not_initialized')
  const made = f.reads.length
  await wait(60)
  assert.equal(f.reads.length, made, 'no read after dispose')
  assert.equal(s.state.offers.bag?.status, 'loading')
})
