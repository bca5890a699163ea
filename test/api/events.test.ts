/**
 * The trip's event stream (GET /v2.2/trip/{id}/events, docs/decisions.md "Live basket updates") over a real
 * socket: what a widget learns without asking, from changes it did not make (a backend basket check, a
 * passenger update, an item running out), how a reconnect resumes, and when a stream ends.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import {
  build,
  basic,
  bearer,
  body,
  assertProblem,
  createTrip,
  type Built,
  type CreatedTrip,
} from '../helpers/build.ts'
import {
  readSearch,
  checkedBag,
  productsOf,
  readBasket,
  checkBasket,
  addItems,
  itemWhere,
  patchTrip,
  createTripOnFlight,
} from '../helpers/flows.ts'
import { openEvents, type EventReader } from '../helpers/sse.ts'
import { defaultConfig } from '../../core/core.ts'
import { MAX_STREAMS_PER_TRIP } from '../../core/application/live.ts'

const statusesOf = (data: string) =>
  Object.values(JSON.parse(data).basket as Record<string, { product_type: string; validity: { status: string } }>)
    .filter((i) => i.product_type !== 'ticket')
    .map((i) => i.validity.status)

describe('trip events', () => {
  let t: Built
  let base: string
  const readers: EventReader[] = []
  const open = async (trip: CreatedTrip, headers: Record<string, string> = {}) => {
    const r = await openEvents(`${base}/v2.2/trip/${trip.trip_id}/events`, {
      authorization: bearer(trip.trip_access_token),
      ...headers,
    })
    readers.push(r)
    return r
  }
  /** The events every new stream starts with: the reconnect delay, then the trip's search and basket. */
  const opening = async (r: EventReader) => {
    assert.equal((await r.next()).retry, defaultConfig.live.retryMs)
    const search = await r.next()
    const basket = await r.next()
    assert.equal(search.event, 'search')
    assert.equal(basket.event, 'basket')
    return { search, basket }
  }

  before(async () => {
    t = await build({ config: { live: { heartbeatMs: 200, retryMs: defaultConfig.live.retryMs, pollMs: 1_000 } } })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  })
  after(async () => {
    for (const r of readers) r.close()
    await t.close()
  })

  test('opens with the search and the basket as GET reads them, id = the trip version', async () => {
    const trip = await createTrip(t)
    const r = await open(trip)
    assert.equal(r.response.status, 200)
    assert.match(r.response.headers.get('content-type')!, /^text\/event-stream/)
    assert.equal(r.response.headers.get('content-encoding'), null, 'never compressed')
    const { search, basket } = await opening(r)
    assert.deepEqual(JSON.parse(search.data), { search_id: trip.search_id })
    assert.deepEqual(JSON.parse(basket.data), await readBasket(t, trip))
    assert.equal(basket.id, '1')
    assert.equal(search.id, '1')
  })

  test('a basket check started by the backend (API key) shows in the stream: checking, then price_changed', async () => {
    const trip = await createTripOnFlight(t, '9001')
    await addItems(t, trip, [{ product_id: checkedBag(await readSearch(t, trip)).product_id, passenger_id: 'p1' }])
    const r = await open(trip)
    const { basket } = await opening(r)
    assert.deepEqual(statusesOf(basket.data), ['valid'])

    assert.equal((await checkBasket(t, trip, basic(t.apiKey))).statusCode, 202)
    const checking = await r.next()
    assert.equal(checking.event, 'basket')
    assert.deepEqual(statusesOf(checking.data), ['checking'])
    assert.ok(Number(checking.id) > Number(basket.id), 'each change has a newer version')

    await t.core.drainJobs()
    const changed = await r.next()
    assert.deepEqual(statusesOf(changed.data), ['price_changed'])
    assert.deepEqual(JSON.parse(changed.data), await readBasket(t, trip), 'the event is the basket as GET reads it')
  })

  test('a passenger update that changes the offers: a new search event, and the old items keep their ids', async () => {
    const trip = await createTrip(t)
    const search = await readSearch(t, trip)
    const exit = productsOf(search, 'seat').find(
      (p) =>
        (p.product_details.characteristics as string[]).includes('exit_row') && p.price_and_availability.p2?.available,
    )!
    const added = await addItems(t, trip, [{ product_id: exit.product_id, passenger_id: 'p2' }])
    const seatId = itemWhere(added, (i) => i.product_type === 'seat').basket_item_id
    const r = await open(trip)
    await opening(r)

    // Departure is 30 days after 2026-11-22: born 2012, p2 is 14, too young for an exit row.
    assert.equal(
      (await patchTrip(t, trip, { passengers: [{ passenger_id: 'p2', date_of_birth: '2012-03-04' }] })).statusCode,
      200,
    )
    const next = await r.next()
    assert.equal(next.event, 'search', 'the offers come first: the basket event that follows may name them')
    const { search_id } = JSON.parse(next.data)
    assert.notEqual(search_id, trip.search_id)
    assert.equal((await readTrip()).search_id, search_id, "the new search is the trip's")
    const fresh = await readSearch(t, { ...trip, search_id })
    assert.equal(
      fresh.results.products.seat![exit.product_id]?.price_and_availability.p2?.available,
      false,
      'the exit-row seat is not offered to p2 any more',
    )
    const basket = await r.next()
    assert.equal(basket.event, 'basket')
    assert.equal(
      JSON.parse(basket.data).basket[seatId].validity.status,
      'checking',
      'the seat bought from the old search is checked again, under its id',
    )

    await t.core.drainJobs()
    assert.equal(JSON.parse((await r.next()).data).basket[seatId].validity.status, 'unavailable')

    async function readTrip() {
      return body(
        await t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}`,
          headers: { authorization: basic(t.apiKey) },
        }),
      )
    }
  })

  test('a passenger update that changes no offer input (a name) runs no new search', async () => {
    const trip = await createTrip(t)
    const r = await open(trip)
    await opening(r)
    assert.equal(
      (await patchTrip(t, trip, { passengers: [{ passenger_id: 'p1', first_names: 'Ann Marie' }] })).statusCode,
      200,
    )
    const next = await r.next()
    assert.equal(next.event, 'basket', 'the names are in what the state hash covers, so the basket read changed')
    await r.quiet(300)
    assert.equal(
      body(
        await t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}`,
          headers: { authorization: basic(t.apiKey) },
        }),
      ).search_id,
      trip.search_id,
    )
  })

  test('Last-Event-ID of the current version resumes without the current state; an older one gets it again', async () => {
    const trip = await createTrip(t)
    const first = await open(trip)
    const { basket } = await opening(first)
    first.close()

    const resumed = await open(trip, { 'last-event-id': basket.id! })
    assert.equal((await resumed.next()).event, 'retry')
    await resumed.quiet(400) // heartbeats only
    assert.ok(resumed.comments >= 1, 'a comment line keeps an idle stream alive')
    await addItems(t, trip, [{ product_id: checkedBag(await readSearch(t, trip)).product_id, passenger_id: 'p1' }])
    const after = await resumed.next()
    assert.equal(after.event, 'basket')
    assert.equal(Number(after.id), Number(basket.id) + 1)

    const behind = await open(trip, { 'last-event-id': basket.id! })
    await behind.next() // retry
    assert.equal(
      (await behind.next()).event,
      'search',
      'a client behind gets the search again (it may have changed meanwhile)',
    )
    assert.deepEqual(JSON.parse((await behind.next()).data), JSON.parse(after.data))
  })

  test('an item passing valid_to shows as invalid with no write', async () => {
    const trip = await createTrip(t)
    const added = await addItems(t, trip, [
      { product_id: checkedBag(await readSearch(t, trip)).product_id, passenger_id: 'p1' },
    ])
    // With the API key: the hold window is as long as an access token lives, and its stream would end first.
    const r = await open(trip, { authorization: basic(t.apiKey) })
    await opening(r)
    const bag = itemWhere(added, (i) => i.product_type === 'bag')
    t.clock.set(new Date(Date.parse(bag.validity.valid_to) + 1_000))
    const expired = await r.next()
    assert.equal(expired.event, 'basket')
    assert.deepEqual(statusesOf(expired.data), ['invalid'])
    t.clock.set(new Date(Date.parse(bag.validity.valid_from)))
  })

  test('the stream ends when the access token expires; an API key may follow too', async () => {
    const trip = await createTrip(t)
    const r = await open(trip)
    await opening(r)
    t.clock.advance(defaultConfig.accessTokenTtl * 1000 + 1_000)
    assert.ok(await r.ended(2_000), 'ended at the next heartbeat after exp')
    t.clock.advance(-(defaultConfig.accessTokenTtl * 1000 + 1_000))

    const byKey = await openEvents(`${base}/v2.2/trip/${trip.trip_id}/events`, { authorization: basic(t.apiKey) })
    readers.push(byKey)
    await opening(byKey)
  })

  test("refused like any read: another seller's trip or another trip's token 404, no credentials 401", async () => {
    const trip = await createTrip(t)
    const other = await createTrip(t)
    const { apiKey } = await t.otherSeller()
    const url = `/v2.2/trip/${trip.trip_id}/events`
    assertProblem(
      await t.app.inject({ method: 'GET', url, headers: { authorization: basic(apiKey) } }),
      404,
      'not_found',
    )
    assertProblem(
      await t.app.inject({ method: 'GET', url, headers: { authorization: bearer(other.trip_access_token) } }),
      404,
      'not_found',
    )
    assertProblem(await t.app.inject({ method: 'GET', url }), 401, 'unauthorized')
  })

  test(`a trip holds at most ${MAX_STREAMS_PER_TRIP} streams per instance: one more ends the oldest`, async () => {
    const trip = await createTrip(t)
    const streams: EventReader[] = []
    for (let i = 0; i <= MAX_STREAMS_PER_TRIP; i++) {
      const r = await open(trip)
      await opening(r)
      streams.push(r)
    }
    assert.ok(await streams[0]!.ended(2_000), 'the oldest ended')
    assert.equal(await streams[1]!.ended(300), false, 'the others stay open')
  })

  test('closing the server ends open streams instead of waiting for them', async () => {
    const own = await build()
    await own.app.listen({ port: 0, host: '127.0.0.1' })
    const trip = await createTrip(own)
    const r = await openEvents(
      `http://127.0.0.1:${(own.app.server.address() as AddressInfo).port}/v2.2/trip/${trip.trip_id}/events`,
      { authorization: bearer(trip.trip_access_token) },
    )
    await opening(r)
    const started = Date.now()
    await own.close()
    assert.ok(Date.now() - started < 2_000, `closed in ${Date.now() - started} ms`)
    assert.ok(await r.ended(1_000))
  })
})

test('a client that hangs up mid-stream leaves no connection behind: the server closes at once', async () => {
  const own = await build()
  await own.app.listen({ port: 0, host: '127.0.0.1' })
  const trip = await createTrip(own)
  const r = await openEvents(
    `http://127.0.0.1:${(own.app.server.address() as AddressInfo).port}/v2.2/trip/${trip.trip_id}/events`,
    { authorization: bearer(trip.trip_access_token) },
  )
  await r.next()
  r.close()
  for (let i = 0; i < 50 && own.core.context.live.streams > 0; i++) await new Promise((res) => setTimeout(res, 20))
  const open = await new Promise<number>((res) => own.app.server.getConnections((_e, n) => res(n)))
  assert.equal(open, 0, 'the hung-up connection is closed')
  const started = Date.now()
  await own.close()
  // An open stream's socket would hold app.close() until a timeout; the hung-up one is gone.
  assert.ok(Date.now() - started < 2_000, `closed in ${Date.now() - started} ms`)
})
