/**
 * A seller selling a real airline's bags and seats through Duffel, end to end over the HTTP API, against
 * the fake Duffel on loopback (test/fakes/duffel): the funnel (a trip naming Duffel's offer), the
 * hand-off into the seller's own Duffel order, bags bought after booking from the seller's balance at
 * Duffel's price, checks that re-price, cancellation quotes, Duffel's failures (429, 5xx, time-outs, a
 * purchase whose answer was lost), and a trip that does not match. The token never shows.
 */
import { describe, test, before, after, beforeEach } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, body, assertProblem, legacyLiveSeller, tripPayload, type Built } from '../helpers/build.ts'
import { fulfillRequest } from '../helpers/flows.ts'
import { createDuffelSupplier } from '../../server/suppliers/duffel/supplier.ts'
import { startFakeDuffel, seatsOf, type FakeDuffel } from '../fakes/duffel/server.ts'
import { duffelOfferFor } from '../helpers/duffel.ts'
import type { TripCreateRequest } from '../../core/schemas/trip.ts'

const SECRET = 'a-signing-key-secret-of-32-chars-or-more'

let fake: FakeDuffel
let t: Built
let apiKey: string
before(async () => {
  fake = await startFakeDuffel()
  t = await build({
    captureLogs: true,
    suppliers: [createDuffelSupplier({ baseUrl: fake.url, timeoutMs: 500 })],
    config: { signingKeySecret: SECRET, backoffBaseMs: 100, backoffCapMs: 400 },
  })
  // The fake's offers expire by the real clock: the service's clock is the real one too.
  t.clock.set(new Date())
  apiKey = (
    await t.core.createSeller({
      name: 'Duffel shop',
      origins: [],
      sandbox: true,
      supplier: { name: 'duffel', credentials: fake.token },
    })
  ).apiKey
})
after(async () => {
  await t.close()
  await fake.close()
})

const auth = () => ({ authorization: basic(apiKey) })

/** A trip request for the default sandbox trip whose tickets name `metadata` (a Duffel offer or order). */
function request(metadata: Record<string, string>, over: Partial<TripCreateRequest> = {}): TripCreateRequest {
  const p = tripPayload(t.clock.now(), over)
  return { ...p, tickets: p.tickets.map((tk) => ({ ...tk, metadata: { ...tk.metadata, ...metadata } })) }
}

/** An offer of the fake for a trip request's flights and passengers. */
const offerFor = (req: TripCreateRequest, opts: Parameters<typeof duffelOfferFor>[2] = {}) =>
  duffelOfferFor(fake, { passengers: req.passengers, journeys: req.tickets[0]!.journeys }, opts)

async function createTrip(req: TripCreateRequest) {
  const res = await t.app.inject({ method: 'POST', url: '/v2.2/trip', headers: auth(), payload: req })
  assert.equal(res.statusCode, 201, res.body)
  return body<{ trip_id: string; search_id: string; trip_access_token: string; tickets: Array<{ ticket_id: string }> }>(
    res,
  )
}

const getSearch = async (trip: { trip_id: string; search_id: string }) =>
  body<{
    status: string
    failure_reason?: string
    results: { products: Record<string, Record<string, any>>; seatmaps: any[] }
  }>(await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`, headers: auth() }))

const basket = async (trip: { trip_id: string }) =>
  body<{ trip_state_hash: string; basket: Record<string, any> }>(
    await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/basket`, headers: auth() }),
  )

const add = async (trip: { trip_id: string }, lines: Array<{ product_id: string; passenger_id: string }>) => {
  const res = await t.app.inject({
    method: 'PATCH',
    url: `/v2.2/trip/${trip.trip_id}/basket`,
    headers: auth(),
    payload: lines.map((l) => ({ ...l, quantity: 1 })),
  })
  assert.equal(res.statusCode, 200, res.body)
  return body<{ trip_state_hash: string; basket: Record<string, any> }>(res)
}

const readTrip = async (trip: { trip_id: string }) =>
  body<Record<string, any>>(await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}`, headers: auth() }))

const checkedBag = (search: Awaited<ReturnType<typeof getSearch>>, pid = 'p1') =>
  Object.values(search.results.products.bag ?? {}).find(
    (p) => p.product_details.checked && p.price_and_availability[pid]?.available,
  )!

const postServices = () => fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/services'))

describe('Duffel in the funnel: offers from the offer the trip names', () => {
  test('POST /v2.2/trip answers at once with the search in progress; a job ends it with bags and seat maps', async () => {
    const req = request({})
    const { offer } = offerFor(req)
    const trip = await createTrip(request({ duffel_offer_id: offer.id }))
    const pending = await getSearch(trip)
    assert.equal(pending.status, 'in_progress')
    assert.deepEqual(pending.results, { products: {}, seatmaps: [] })
    assert.ok((await t.core.drainJobs()) >= 1)
    const done = await getSearch(trip)
    assert.equal(done.status, 'success', JSON.stringify(done))
    const bags = Object.values(done.results.products.bag!)
    assert.ok(
      bags.some((b) => b.display_name === 'Checked bag 23 kg'),
      bags.map((b) => b.display_name).join(),
    )
    const bag = checkedBag(done)
    // Duffel's price, tax included, as the base; converted to the trip's currency, Duffel's kept as the original.
    assert.equal(bag.price_and_availability.p1.price.base.in_original_currency.amount, 4500)
    assert.equal(bag.price_and_availability.p1.price.base.in_original_currency.currency, 'GBP')
    assert.deepEqual(bag.price_and_availability.p1.price.taxes, [])
    assert.equal(bag.price_and_availability.p3.available, false, 'the lap infant is not sold a bag')
    assert.equal(done.results.seatmaps.length, 2, 'a seat map per segment')
    assert.ok(Object.keys(done.results.products.seat ?? {}).length > 10)
  })

  test("a bag and a seat in the basket carry Duffel's service ids for the hand-off, and are valid until the offer expires at most", async () => {
    const expires = new Date(Date.now() + 10 * 60_000).toISOString()
    const { offer, seatMaps } = offerFor(request({}), { expires_at: expires })
    const trip = await createTrip(request({ duffel_offer_id: offer.id }))
    await t.core.drainJobs()
    const search = await getSearch(trip)
    const bag = checkedBag(search)
    const seat = Object.values(search.results.products.seat!).find((s) => s.price_and_availability.p1?.available)!
    const b = await add(trip, [
      { product_id: bag.product_id, passenger_id: 'p1' },
      { product_id: seat.product_id, passenger_id: 'p1' },
    ])
    const items = Object.values(b.basket).filter((i) => i.product_type !== 'ticket')
    const offerServices = new Set([
      ...offer.available_services.map((s) => s.id),
      ...seatsOf(seatMaps).flatMap((x) => x.seat.available_services.map((s) => s.id)),
    ])
    for (const i of items) {
      assert.equal(i.supplier.name, 'duffel')
      assert.ok(
        i.supplier.service_ids.length > 0 && i.supplier.service_ids.every((id: string) => offerServices.has(id)),
        JSON.stringify(i.supplier),
      )
      assert.ok(i.validity.valid_to <= expires, `${i.validity.valid_to} is not after the offer's expiry ${expires}`)
    }
  })

  test('the hand-off: items the seller booked into its own Duffel order succeed at fulfill, and nothing is bought', async () => {
    const { offer } = offerFor(request({}))
    const trip = await createTrip(request({ duffel_offer_id: offer.id }))
    await t.core.drainJobs()
    const search = await getSearch(trip)
    const seat = Object.values(search.results.products.seat!).find((s) => s.price_and_availability.p2?.available)!
    const b = await add(trip, [
      { product_id: checkedBag(search).product_id, passenger_id: 'p1' },
      { product_id: seat.product_id, passenger_id: 'p2' },
    ])
    const handedOff = Object.values(b.basket).flatMap((i) => i.supplier?.service_ids ?? [])
    const { order } = fake.bookOrder(offer.id, { services: handedOff })
    const balance = fake.balance(fake.token)
    fake.clearRequests()
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/fulfill`,
      headers: auth(),
      payload: fulfillRequest(trip as never, b.trip_state_hash, {
        tickets: trip.tickets.map((tk) => ({
          ticket_id: tk.ticket_id,
          access_details: { record_locator: order.booking_reference, ticket_number: '1250000000001' },
          status: 'booked',
        })),
      }),
    })
    assert.equal(res.statusCode, 202, res.body)
    await t.core.drainJobs()
    const orders = Object.values((await readTrip(trip)).orders)
    assert.deepEqual(
      orders.map((o: any) => [o.status, o.supplier_reference]),
      [
        ['succeeded', order.booking_reference],
        ['succeeded', order.booking_reference],
      ],
    )
    // What the seller reconciles with in Duffel's dashboard: its order, and the services booked there (renamed ser_ at booking).
    for (const o of orders as any[]) {
      assert.equal(o.supplier_refs.order_id, order.id)
      assert.ok(
        o.supplier_refs.service_ids.length === 1 && o.supplier_refs.service_ids[0].startsWith('ser_'),
        JSON.stringify(o.supplier_refs),
      )
    }
    assert.equal(postServices().length, 0, 'nothing bought')
    assert.deepEqual(fake.balance(fake.token), balance)
  })

  test('a seat not handed off fails with seat_requires_booking; a bag not handed off is bought after booking', async () => {
    const { offer } = offerFor(request({}))
    const trip = await createTrip(request({ duffel_offer_id: offer.id }))
    await t.core.drainJobs()
    const search = await getSearch(trip)
    const seat = Object.values(search.results.products.seat!).find((s) => s.price_and_availability.p1?.available)!
    const b = await add(trip, [
      { product_id: checkedBag(search).product_id, passenger_id: 'p1' },
      { product_id: seat.product_id, passenger_id: 'p1' },
    ])
    // An airline that sells bags after booking (most do not; see "Duffel after booking").
    const { order } = fake.bookOrder(offer.id, { postBookingBags: true })
    fake.clearRequests()
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/fulfill`,
      headers: auth(),
      payload: fulfillRequest(trip as never, b.trip_state_hash, {
        tickets: trip.tickets.map((tk) => ({
          ticket_id: tk.ticket_id,
          access_details: { record_locator: order.booking_reference, ticket_number: '1250000000001' },
          status: 'booked',
        })),
      }),
    })
    assert.equal(res.statusCode, 202, res.body)
    await t.core.drainJobs()
    const orders = Object.values((await readTrip(trip)).orders).map((o: any) => [
      o.display_name.startsWith('Seat') ? 'seat' : 'bag',
      o.status,
      o.failure_reason ?? null,
    ])
    assert.deepEqual(orders.sort(), [
      ['bag', 'succeeded', null],
      ['seat', 'failed', 'seat_requires_booking'],
    ])
    assert.equal(postServices().length, 1, 'the bag, once')
  })

  test('checks re-price: the same price is valid, a moved price is price_changed, a service gone is unavailable', async () => {
    const { offer } = offerFor(request({}))
    const trip = await createTrip(request({ duffel_offer_id: offer.id }))
    await t.core.drainJobs()
    const search = await getSearch(trip)
    const b = await add(trip, [
      { product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' },
      { product_id: checkedBag(search, 'p2').product_id, passenger_id: 'p2' },
    ])
    const check = async () => {
      assert.equal(
        (await t.app.inject({ method: 'POST', url: `/v2.2/trip/${trip.trip_id}/basket/check`, headers: auth() }))
          .statusCode,
        202,
      )
      await t.core.drainJobs()
      return Object.fromEntries(
        Object.values((await basket(trip)).basket)
          .filter((i) => i.product_type === 'bag')
          .map((i) => [i.product_details.passenger_id, i.validity.status]),
      )
    }
    assert.deepEqual(await check(), { p1: 'valid', p2: 'valid' })
    const [p1, p2] = ['p1', 'p2'].map((pid) =>
      Object.values(b.basket).find((i) => i.product_type === 'bag' && i.product_details.passenger_id === pid)!,
    )
    fake.priceChange(p1.supplier.service_ids[0], '52.00')
    fake.gone(p2.supplier.service_ids[0])
    assert.deepEqual(await check(), { p1: 'price_changed', p2: 'unavailable' })
    fake.reset()
  })
})

describe("Duffel after booking: bags from the seller's order, bought at Duffel's price", () => {
  test("a trip naming its Duffel order is offered the order's bags (no seats); fulfill buys once from the balance at Duffel's own price, never the marked-up one", async () => {
    const { offer } = offerFor(request({}))
    const { order } = fake.bookOrder(offer.id, { postBookingBags: true })
    const req = request({ duffel_order_id: order.id }, {
      search: { bag: { search: true }, seat: { search: true } },
      markups: { bag: { percentage: 20 } },
    } as Partial<TripCreateRequest>)
    const trip = await createTrip(req)
    await t.core.drainJobs()
    const search = await getSearch(trip)
    assert.equal(search.status, 'success', JSON.stringify(search))
    assert.deepEqual(search.results.seatmaps, [], 'Duffel sells no seat after booking')
    const bag = checkedBag(search)
    assert.ok(
      bag.price_and_availability.p1.price.total.amount > bag.price_and_availability.p1.price.base.amount,
      'the seller marks it up',
    )
    const b = await add(trip, [{ product_id: bag.product_id, passenger_id: 'p1' }])
    assert.ok(Object.values(b.basket).some((i) => i.supplier?.service_ids?.[0]?.startsWith('aso_')))
    const before = fake.balance(fake.token)
    fake.clearRequests()
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/v2.2/trip/${trip.trip_id}/fulfill`,
          headers: auth(),
          payload: fulfillRequest(trip as never, b.trip_state_hash),
        })
      ).statusCode,
      202,
    )
    await t.core.drainJobs()
    const [o] = Object.values((await readTrip(trip)).orders) as any[]
    assert.equal(o.status, 'succeeded', JSON.stringify(o))
    assert.equal(o.supplier_reference, order.booking_reference)
    const bought = postServices()
    assert.equal(bought.length, 1)
    assert.deepEqual((bought[0]!.body as any).data.payment, { type: 'balance', amount: '45.00', currency: 'GBP' })
    assert.equal(Number(before.amount) - Number(fake.balance(fake.token).amount), 45)
    assert.equal(fake.order(order.id).order.services.filter((s) => s.type === 'baggage').length, 1)
  })

  test("a trip made for an order booked with a bag: that bag is the booking's, so a bag of the same kind the traveller buys now is bought", async () => {
    const { offer } = offerFor(request({}))
    const handed = offer.available_services.find(
      (s) => s.type === 'baggage' && s.metadata.type === 'checked' && s.passenger_ids.includes(offer.passengers[0]!.id),
    )!
    const { order } = fake.bookOrder(offer.id, { services: [handed.id], postBookingBags: true })
    const trip = await createTrip(request({ duffel_order_id: order.id }, { search: { bag: { search: true } } }))
    await t.core.drainJobs()
    const b = await add(trip, [{ product_id: checkedBag(await getSearch(trip)).product_id, passenger_id: 'p1' }])
    fake.clearRequests()
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/v2.2/trip/${trip.trip_id}/fulfill`,
          headers: auth(),
          payload: fulfillRequest(trip as never, b.trip_state_hash),
        })
      ).statusCode,
      202,
    )
    await t.core.drainJobs()
    const [o] = Object.values((await readTrip(trip)).orders) as any[]
    assert.equal(o.status, 'succeeded', JSON.stringify(o))
    assert.equal(postServices().length, 1, "bought, not taken for the booking's bag")
    assert.equal(
      fake
        .order(order.id)
        .order.services.filter((s) => s.type === 'baggage')
        .reduce((n, s) => n + s.quantity, 0),
      2,
    )
  })

  test('a price that moved at Duffel since the traveller was charged: nothing bought, the order fails price_changed', async () => {
    const { offer } = offerFor(request({}))
    const { order, availableServices } = fake.bookOrder(offer.id, { postBookingBags: true })
    const trip = await createTrip(request({ duffel_order_id: order.id }, { search: { bag: { search: true } } }))
    await t.core.drainJobs()
    const b = await add(trip, [{ product_id: checkedBag(await getSearch(trip)).product_id, passenger_id: 'p1' }])
    const service = Object.values(b.basket).find((i) => i.product_type === 'bag')!.supplier.service_ids[0]
    assert.ok(availableServices.some((s) => s.id === service))
    fake.priceChange(service, '60.00')
    fake.clearRequests()
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/v2.2/trip/${trip.trip_id}/fulfill`,
          headers: auth(),
          payload: fulfillRequest(trip as never, b.trip_state_hash),
        })
      ).statusCode,
      202,
    )
    await t.core.drainJobs()
    const [o] = Object.values((await readTrip(trip)).orders) as any[]
    assert.deepEqual([o.status, o.failure_reason], ['failed', 'price_changed'])
    assert.equal(postServices().length, 0)
    fake.reset()
  })

  test('a purchase whose answer was lost: the order waits, the next run finds the bag on the Duffel order and buys nothing more', async () => {
    const { offer } = offerFor(request({}))
    const { order } = fake.bookOrder(offer.id, { postBookingBags: true })
    const trip = await createTrip(request({ duffel_order_id: order.id }, { search: { bag: { search: true } } }))
    await t.core.drainJobs()
    const b = await add(trip, [{ product_id: checkedBag(await getSearch(trip)).product_id, passenger_id: 'p1' }])
    fake.lostResponseAfterPurchase()
    fake.clearRequests()
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/v2.2/trip/${trip.trip_id}/fulfill`,
          headers: auth(),
          payload: fulfillRequest(trip as never, b.trip_state_hash),
        })
      ).statusCode,
      202,
    )
    await t.core.drainJobs()
    const waiting = Object.values((await readTrip(trip)).orders) as any[]
    assert.equal(waiting[0].status, 'in_progress', 'not known yet')
    // Later (the job comes back to reconcile), the order holds the bag: it is the one the traveller paid for.
    t.clock.advance(60_000)
    await t.core.drainJobs()
    const [o] = Object.values((await readTrip(trip)).orders) as any[]
    assert.equal(o.status, 'succeeded', JSON.stringify(o))
    assert.equal(postServices().length, 1, 'bought once')
    assert.equal(
      fake.order(order.id).order.services.filter((s) => s.type === 'baggage').length,
      1,
      'one bag on the Duffel order',
    )
  })

  test('cancellation: Duffel cannot cancel one service, so every quote says supplier_does_not_cancel', async () => {
    const { offer } = offerFor(request({}))
    const { order } = fake.bookOrder(offer.id, { postBookingBags: true })
    const trip = await createTrip(request({ duffel_order_id: order.id }, { search: { bag: { search: true } } }))
    await t.core.drainJobs()
    const b = await add(trip, [{ product_id: checkedBag(await getSearch(trip)).product_id, passenger_id: 'p1' }])
    await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/fulfill`,
      headers: auth(),
      payload: fulfillRequest(trip as never, b.trip_state_hash),
    })
    await t.core.drainJobs()
    const item = Object.values((await basket(trip)).basket).find((i) => i.product_type === 'bag')!
    const quote = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/to_cancel`,
      headers: auth(),
      payload: { basket_item_ids: [item.basket_item_id] },
    })
    assert.equal(quote.statusCode, 200, quote.body)
    assert.deepEqual(body(quote).to_cancel[item.basket_item_id], {
      basket_item_id: item.basket_item_id,
      order_id: item.order_id,
      display_name: item.display_name,
      cancellable: false,
      refund: null,
      reason: 'supplier_does_not_cancel',
    })
    assert.ok(
      !fake.requests.some((r) => r.path.includes('order_cancellations')),
      "Duffel's order cancellation is never called",
    )
  })
})

describe('Duffel failing, and trips that do not match', () => {
  test('429 and 5xx are retried with backoff and the search succeeds; a time-out every time fails it with supplier_timeout', async () => {
    const { offer } = offerFor(request({}))
    fake.rateLimited({ times: 1, retryAfterSeconds: 1, match: 'GET /air/offers/*' })
    fake.serverError({ times: 1, match: 'GET /air/offers/*' })
    const trip = await createTrip(request({ duffel_offer_id: offer.id }, { search: { bag: { search: true } } }))
    for (let i = 0; i < 5 && (await getSearch(trip)).status === 'in_progress'; i++) {
      await t.core.drainJobs()
      t.clock.advance(1_000)
    }
    assert.equal((await getSearch(trip)).status, 'success')

    fake.timeout({ times: 3, match: 'GET /air/offers/*' })
    const slow = await createTrip(request({ duffel_offer_id: offer.id }, { search: { bag: { search: true } } }))
    for (let i = 0; i < 5 && (await getSearch(slow)).status === 'in_progress'; i++) {
      await t.core.drainJobs()
      t.clock.advance(1_000)
    }
    const failed = await getSearch(slow)
    assert.deepEqual([failed.status, failed.failure_reason], ['failed', 'supplier_timeout'])
    fake.reset()
  })

  test("an unknown or expired offer fails with not_found, a trip whose flights are not the offer's with not_matched; no 500, no simulated offer", async () => {
    const cases: Array<[Record<string, string>, Partial<TripCreateRequest>, string]> = [
      [{ duffel_offer_id: 'off_0000ThisOfferDoesNotExist' }, {}, 'not_found'],
      [
        { duffel_offer_id: offerFor(request({}), { expires_at: new Date(Date.now() - 1000).toISOString() }).offer.id },
        {},
        'not_found',
      ],
      [
        { duffel_offer_id: offerFor(request({})).offer.id },
        { passengers: [{ passenger_id: 'p1', passenger_type: 'adult' }] },
        'not_matched',
      ],
      [{}, {}, 'not_matched'],
    ]
    for (const [metadata, over, reason] of cases) {
      const trip = await createTrip(request(metadata, { search: { bag: { search: true } }, ...over }))
      await t.core.drainJobs()
      const s = await getSearch(trip)
      assert.deepEqual(
        [s.status, s.failure_reason, s.results.products],
        ['failed', reason, {}],
        JSON.stringify(metadata),
      )
    }
  })

  test("the seller's Duffel token appears in no response and no log line", async () => {
    const { offer } = offerFor(request({}))
    const trip = await createTrip(request({ duffel_offer_id: offer.id }))
    await t.core.drainJobs()
    const b = await add(trip, [{ product_id: checkedBag(await getSearch(trip)).product_id, passenger_id: 'p1' }])
    const answers = [
      JSON.stringify(await readTrip(trip)),
      JSON.stringify(b),
      JSON.stringify(await getSearch(trip)),
      (await t.app.inject({ method: 'GET', url: '/v2.2/orders', headers: auth() })).body,
    ]
    for (const a of answers) assert.ok(!a.includes(fake.token) && !a.includes('duffel_test_'), a.slice(0, 200))
    assert.ok(t.logs.length > 0 && !t.logs.some((l) => l.includes(fake.token)), 'not in the logs')
    // Nor in the store in the clear: the seller's credentials are sealed.
    const stored = JSON.stringify(t.snapshot())
    assert.ok(!stored.includes(fake.token), 'not in the database')
  })
})

test('a live seller without a real supplier gets 409 supplier_not_configured, saying how to configure one', async () => {
  const live = await legacyLiveSeller(t.core)
  const p = assertProblem(
    await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { authorization: basic(live.apiKey) },
      payload: tripPayload(t.clock.now()),
    }),
    409,
    'supplier_not_configured',
  )
  assert.match(p.detail, /npm run seller -- update .* --supplier duffel --duffel-token/)
})

describe('Duffel as it really answers: recorded shapes, families, whole-trip bags, holds, its errors', () => {
  // The fake's offers expire by the real clock: each test starts the service's clock there again.
  beforeEach(() => {
    t.clock.set(new Date())
  })
  /** A funnel trip on an offer built with `opts`, its search ended. */
  async function funnel(opts: Parameters<typeof offerFor>[1] = {}, over: Partial<TripCreateRequest> = {}) {
    const { offer, seatMaps } = offerFor(request({}, over), opts)
    const trip = await createTrip(request({ duffel_offer_id: offer.id }, over))
    await t.core.drainJobs()
    return {
      offer,
      seatMaps,
      trip,
      search: (await getSearch(trip)) as Awaited<ReturnType<typeof getSearch>> & { partial_failures?: unknown },
    }
  }
  const fulfillWith = async (trip: Awaited<ReturnType<typeof createTrip>>, hash: string, reference: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/fulfill`,
      headers: auth(),
      payload: fulfillRequest(trip as never, hash, {
        tickets: trip.tickets.map((tk) => ({
          ticket_id: tk.ticket_id,
          access_details: { record_locator: reference, ticket_number: '1250000000001' },
          status: 'booked',
        })),
      }),
    })
    assert.equal(res.statusCode, 202, res.body)
    await t.core.drainJobs()
    return Object.values((await readTrip(trip)).orders) as any[]
  }

  test('seat maps with restricted seats (no designator), every element type and prices like "16.0": the search succeeds, a restricted seat is never on sale', async () => {
    const { offer, seatMaps, search } = await funnel()
    const elements = seatMaps.flatMap((m) =>
      m.cabins.flatMap((c) => c.rows.flatMap((r) => r.sections.flatMap((s) => s.elements))),
    )
    assert.ok(
      elements.some((e) => e.type === 'restricted_seat_general' && e.designator === null && e.disclosures === null),
      'the fake draws them as Duffel records them',
    )
    assert.ok(
      ['bassinet', 'lavatory', 'galley', 'exit_row', 'empty'].every((type) => elements.some((e) => e.type === type)),
    )
    assert.equal(search.status, 'success', JSON.stringify(search).slice(0, 300))
    assert.equal(search.partial_failures, undefined)
    const onSale = Object.values(search.results.products.seat ?? {})
    assert.ok(onSale.length > 10)
    const restricted = new Set(
      elements.filter((e) => e.type === 'restricted_seat_general' && e.designator).map((e) => e.designator),
    )
    assert.ok(onSale.every((s) => !restricted.has(`${s.product_details.row}${s.product_details.column}`)))
    // A seat priced "16.0" (one decimal, as recorded) is 16.00 to the traveller: p1 is the offer's first passenger.
    const p1 = offer.passengers[0]!.id
    const oneDecimal = elements.find(
      (e) =>
        e.type === 'seat' &&
        e.available_services.some((s) => s.passenger_id === p1 && /^\d+\.\d$/.test(s.total_amount)),
    )!
    const service = oneDecimal.available_services.find((s) => s.passenger_id === p1)!
    const priced = onSale.find((s) => `${s.product_details.row}${s.product_details.column}` === oneDecimal.designator)!
    assert.equal(
      priced.price_and_availability.p1.price.base.in_original_currency.amount,
      Math.round(Number(service.total_amount) * 100),
    )
  })

  test('the seat maps failing alone leave the bags offered, and the search says the seats failed', async () => {
    for (const fail of [
      () => fake.serverError({ times: 10, status: 503, match: 'GET /air/seat_maps' }),
      () => fake.htmlError({ times: 10, match: 'GET /air/seat_maps' }),
    ]) {
      fail()
      const { search } = await funnel()
      fake.reset()
      assert.equal(search.status, 'success', JSON.stringify(search).slice(0, 300))
      assert.deepEqual(search.partial_failures, [{ product_type: 'seat', failure_reason: 'supplier_unavailable' }])
      assert.ok(Object.keys(search.results.products.bag ?? {}).length > 0, 'the bags are there')
      assert.deepEqual(search.results.seatmaps, [])
    }
  })

  test('cancel-for-any-reason and seat services beside the baggage: only baggage is sold as bags', async () => {
    const { offer, search } = await funnel({ seatServices: true })
    assert.ok(
      offer.available_services.some((s) => s.type === 'cancel_for_any_reason') &&
        offer.available_services.some((s) => s.type === 'seat'),
    )
    const names = Object.values(search.results.products.bag!).map((b) => b.display_name)
    assert.equal(names.length, 4, 'two kinds of bag on each of two journeys')
    assert.deepEqual([...new Set(names)].sort(), ['Cabin bag 10 kg', 'Checked bag 23 kg'])
  })

  test('a bag Duffel sells for the whole trip is one product for both journeys: priced once, handed off once, bought once', async () => {
    const bags = [
      {
        type: 'checked' as const,
        total_amount: '39.99',
        maximum_quantity: 2,
        maximum_weight_kg: null,
        scope: 'trip' as const,
      },
    ]
    const { offer, trip, search } = await funnel({ bags })
    const products = Object.values(search.results.products.bag!)
    assert.equal(products.length, 1)
    const [bag] = products
    const journeys = (await readTrip(trip)).journeys.map((j: any) => j.journey_id)
    assert.deepEqual(bag.product_details.journey_ids, journeys)
    assert.equal(bag.product_details.journey_id, journeys[0])
    assert.equal(
      bag.price_and_availability.p1.price.base.in_original_currency.amount,
      3999,
      'priced once, not per journey',
    )
    const b = await add(trip, [{ product_id: bag.product_id, passenger_id: 'p1' }])
    const item = Object.values(b.basket).find((i) => i.product_type === 'bag')!
    assert.equal(item.supplier.service_ids.length, 1, 'one Duffel service')
    // Handed off into the booking: found there, nothing bought.
    const { order } = fake.bookOrder(offer.id, { services: item.supplier.service_ids })
    fake.clearRequests()
    const orders = await fulfillWith(trip, b.trip_state_hash, order.booking_reference)
    assert.deepEqual(
      orders.map((o) => o.status),
      ['succeeded'],
    )
    assert.equal(postServices().length, 0)

    // Not handed off, after booking (an airline that sells it then): bought once, covering every segment.
    const later = await funnel({ bags })
    const lb = await add(later.trip, [
      { product_id: Object.values(later.search.results.products.bag!)[0].product_id, passenger_id: 'p1' },
    ])
    const { order: booked } = fake.bookOrder(later.offer.id, { postBookingBags: true })
    const before = Number(fake.balance(fake.token).amount)
    fake.clearRequests()
    assert.deepEqual(
      (await fulfillWith(later.trip, lb.trip_state_hash, booked.booking_reference)).map((o) => o.status),
      ['succeeded'],
    )
    assert.equal(postServices().length, 1, 'bought once')
    const held = fake.order(booked.id).order.services.filter((s) => s.type === 'baggage')
    assert.equal(held.length, 1)
    assert.equal(held[0]!.segment_ids.length, booked.slices.flatMap((s) => s.segments).length, 'for every flight')
    assert.equal(Math.round((before - Number(fake.balance(fake.token).amount)) * 100), 3999, 'paid once')
  })

  test("a family Duffel searched by age (type null) matches the trip's child and infant without Duffel's ids; so does an order whose passengers carry no type", async () => {
    const req = request({}, {
      passengers: [
        { passenger_id: 'p1', passenger_type: 'adult' },
        {
          passenger_id: 'p2',
          passenger_type: 'child',
          date_of_birth: new Date(Date.now() - 7.5 * 365 * 86_400_000).toISOString().slice(0, 10),
        },
        { passenger_id: 'p3', passenger_type: 'infant', on_lap_of: 'p1' },
      ],
    } as Partial<TripCreateRequest>)
    const offer = fake.addOffer({
      passengers: [{ type: 'adult' }, { age: 7 }, { age: 1 }],
      slices: req.tickets[0]!.journeys.map((j) => ({
        segments: j.segments.map((s) => ({
          origin: s.departure_airport,
          destination: s.arrival_airport,
          departing_at: s.departure_time,
          arriving_at: s.arrival_time,
          marketing_carrier: s.marketing_airline,
          flight_number: s.marketing_flight_number,
        })),
      })),
    })
    assert.deepEqual(
      offer.offer.passengers.map((p) => [p.type, p.age]),
      [
        ['adult', null],
        [null, 7],
        [null, 1],
      ],
    )
    const trip = await createTrip({
      ...req,
      tickets: req.tickets.map((tk) => ({ ...tk, metadata: { duffel_offer_id: offer.offer.id } })),
    })
    await t.core.drainJobs()
    const search = await getSearch(trip)
    assert.equal(search.status, 'success', JSON.stringify(search).slice(0, 300))
    assert.equal(checkedBag(search, 'p2').price_and_availability.p2.available, true, 'the child is sold a bag')

    const { order } = fake.bookOrder(offer.offer.id, { passengerTypes: false, postBookingBags: true })
    assert.ok(order.passengers.every((p) => p.type === undefined || p.type === null))
    const after = await createTrip({
      ...req,
      tickets: req.tickets.map((tk) => ({ ...tk, metadata: { duffel_order_id: order.id } })),
    })
    await t.core.drainJobs()
    assert.equal((await getSearch(after)).status, 'success')
  })

  test('bags after booking are rare: an order that sells none gives a search that succeeds with nothing to add', async () => {
    const { offer } = offerFor(request({}))
    const { order } = fake.bookOrder(offer.id)
    const trip = await createTrip(request({ duffel_order_id: order.id }, { search: { bag: { search: true } } }))
    await t.core.drainJobs()
    const search = (await getSearch(trip)) as any
    assert.equal(search.status, 'success')
    assert.deepEqual(search.partial_failures, [{ product_type: 'bag', failure_reason: 'not_offered_after_booking' }])
    assert.deepEqual(search.results.products, {})
  })

  test('a hold order: its items wait in_progress and nothing is paid until Duffel shows it paid; a hold released fails them supplier_order_not_paid', async () => {
    const { offer, trip, search } = await funnel()
    const b = await add(trip, [{ product_id: checkedBag(search).product_id, passenger_id: 'p1' }])
    const { order } = fake.bookOrder(offer.id, { hold: true, postBookingBags: true })
    fake.clearRequests()
    let orders = await fulfillWith(trip, b.trip_state_hash, order.booking_reference)
    assert.deepEqual(
      orders.map((o) => o.status),
      ['in_progress'],
    )
    t.clock.advance(30 * 60_000)
    await t.core.drainJobs()
    assert.deepEqual(
      (Object.values((await readTrip(trip)).orders) as any[]).map((o) => o.status),
      ['in_progress'],
      'still waiting',
    )
    assert.equal(
      fake.requests.filter((r) => r.method === 'POST').length,
      0,
      'no payment, no purchase toward an unpaid hold',
    )
    fake.payOrder(order.id)
    t.clock.advance(10 * 60_000)
    await t.core.drainJobs()
    orders = Object.values((await readTrip(trip)).orders) as any[]
    assert.deepEqual(
      orders.map((o) => o.status),
      ['succeeded'],
      JSON.stringify(orders),
    )
    assert.equal(postServices().length, 1, 'the bag bought once the order is paid')

    t.clock.set(new Date())
    const other = await funnel()
    const ob = await add(other.trip, [{ product_id: checkedBag(other.search).product_id, passenger_id: 'p1' }])
    const { order: held } = fake.bookOrder(other.offer.id, { hold: true })
    assert.deepEqual(
      (await fulfillWith(other.trip, ob.trip_state_hash, held.booking_reference)).map((o) => o.status),
      ['in_progress'],
    )
    fake.releaseHold(held.id)
    t.clock.advance(10 * 60_000)
    await t.core.drainJobs()
    const [released] = Object.values((await readTrip(other.trip)).orders) as any[]
    assert.deepEqual(
      [released.status, released.failure_reason, released.supplier_refs],
      ['failed', 'supplier_order_not_paid', { order_id: held.id }],
    )
  })

  /** A trip on a booked order with a bag in its basket (not yet fulfilled), and a fulfill of it. */
  async function bagAfterBooking() {
    const { offer } = offerFor(request({}))
    const { order } = fake.bookOrder(offer.id, { postBookingBags: true })
    const trip = await createTrip(request({ duffel_order_id: order.id }, { search: { bag: { search: true } } }))
    await t.core.drainJobs()
    const b = await add(trip, [{ product_id: checkedBag(await getSearch(trip)).product_id, passenger_id: 'p1' }])
    const item = Object.values(b.basket).find((i) => i.product_type === 'bag')!
    return { order, trip, b, item, fulfill: () => fulfillWith(trip, b.trip_state_hash, order.booking_reference) }
  }

  test("Duffel's refusals of a purchase, by their codes: ancillary_service_not_available, insufficient_balance, payment_amount_does_not_match_order_amount", async () => {
    const gone = await bagAfterBooking()
    fake.gone(gone.item.supplier.service_ids[0], { match: 'POST /air/orders/*/services' })
    let [o] = await gone.fulfill()
    fake.reset()
    assert.deepEqual(
      [o.status, o.failure_reason, o.supplier_refs.order_id],
      ['failed', 'no_longer_offered', gone.order.id],
    )

    const moved = await bagAfterBooking()
    fake.priceChange(moved.item.supplier.service_ids[0], '52.00', { match: 'POST /air/orders/*/services' })
    ;[o] = await moved.fulfill()
    fake.reset()
    assert.deepEqual([o.status, o.failure_reason], ['failed', 'price_changed'])

    const poor = 'duffel_test_poor_seller_0000000000'
    fake.addToken(poor, { balance: '0.00' })
    const seller = await t.core.createSeller({
      name: 'Poor',
      origins: [],
      sandbox: true,
      supplier: { name: 'duffel', credentials: poor },
    })
    const { offer } = duffelOfferFor(
      fake,
      { passengers: request({}).passengers, journeys: request({}).tickets[0]!.journeys },
      { token: poor },
    )
    const { order } = fake.bookOrder(offer.id, { postBookingBags: true })
    const headers = { authorization: basic(seller.apiKey) }
    const trip = body(
      await t.app.inject({
        method: 'POST',
        url: '/v2.2/trip',
        headers,
        payload: request({ duffel_order_id: order.id }, { search: { bag: { search: true } } }),
      }),
    )
    await t.core.drainJobs()
    const search = body(
      await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`, headers }),
    )
    const bb = body(
      await t.app.inject({
        method: 'PATCH',
        url: `/v2.2/trip/${trip.trip_id}/basket`,
        headers,
        payload: [{ product_id: checkedBag(search).product_id, passenger_id: 'p1', quantity: 1 }],
      }),
    )
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/v2.2/trip/${trip.trip_id}/fulfill`,
          headers,
          payload: fulfillRequest(trip, bb.trip_state_hash),
        })
      ).statusCode,
      202,
    )
    await t.core.drainJobs()
    const [poorOrder] = Object.values(
      body(await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}`, headers })).orders,
    ) as any[]
    assert.deepEqual([poorOrder.status, poorOrder.failure_reason], ['failed', 'supplier_balance'])
  })

  test('a price that moved at Duffel: the order says the new price and its item is offered again at it; accepted, a fulfill buys it at that price', async () => {
    const x = await bagAfterBooking()
    fake.priceChange(x.item.supplier.service_ids[0], '52.00')
    const [o] = await x.fulfill()
    assert.deepEqual([o.status, o.failure_reason], ['failed', 'price_changed'])
    const now = (await basket(x.trip)).basket[x.item.basket_item_id]
    assert.equal(now.validity.status, 'price_changed')
    assert.equal(now.order_id, undefined)
    assert.equal(now.price.base.in_original_currency.amount, 5200)
    assert.deepEqual(o.current_price, now.price)
    const accepted = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${x.trip.trip_id}/basket/${x.item.basket_item_id}/accept`,
      headers: auth(),
    })
    assert.equal(accepted.statusCode, 200, accepted.body)
    fake.clearRequests()
    const again = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${x.trip.trip_id}/fulfill`,
      headers: auth(),
      payload: {
        trip_state_hash: body(accepted).trip_state_hash,
        payment_details: { payment_type: 'service_settlement' },
      },
    })
    assert.equal(again.statusCode, 202, again.body)
    await t.core.drainJobs()
    fake.reset()
    const orders = Object.values((await readTrip(x.trip)).orders) as any[]
    assert.deepEqual(orders.map((a) => a.status).sort(), ['failed', 'succeeded'])
    assert.deepEqual((postServices()[0]!.body as any).data.payment, {
      type: 'balance',
      amount: '52.00',
      currency: 'GBP',
    })
  })

  test('a purchase Duffel failed on its side (a 500 with a request id) is never sent again; after SUPPLIER_RECONCILE_MINUTES it fails supplier_outcome_unknown with the request id', async () => {
    const x = await bagAfterBooking()
    fake.serverError({ times: 1, status: 500, match: 'POST /air/orders/*/services' })
    fake.clearRequests()
    await x.fulfill()
    for (let i = 0; i < 25; i++) {
      t.clock.advance(30_000)
      await t.core.drainJobs()
    }
    const [o] = Object.values((await readTrip(x.trip)).orders) as any[]
    assert.deepEqual([o.status, o.failure_reason], ['failed', 'supplier_outcome_unknown'])
    assert.equal(o.supplier_refs.order_id, x.order.id)
    assert.match(o.supplier_refs.request_id, /\w{8,}/, "Duffel's request id, for its support")
    assert.equal(postServices().length, 1, 'sent once, never again')
    assert.equal(fake.order(x.order.id).order.services.filter((s) => s.type === 'baggage').length, 0)
  })

  test('airline_error, airline_unknown, a 504 gateway_timeout_error, an HTML 502 and a 429 with ratelimit-reset are retried, then the search succeeds', async () => {
    const { offer } = offerFor(request({}))
    for (const [fail, wait] of [
      [() => fake.airlineError({ match: 'GET /air/offers/*' }), 0],
      [() => fake.airlineError({ code: 'airline_unknown', match: 'GET /air/offers/*' }), 0],
      [() => fake.serverError({ status: 504, match: 'GET /air/offers/*' }), 0],
      [() => fake.htmlError({ status: 502, match: 'GET /air/offers/*' }), 0],
      [() => fake.rateLimited({ retryAfterSeconds: 5, match: 'GET /air/offers/*' }), 5_000],
    ] as const) {
      fail()
      const trip = await createTrip(request({ duffel_offer_id: offer.id }, { search: { bag: { search: true } } }))
      await t.core.drainJobs()
      assert.equal((await getSearch(trip)).status, 'in_progress', 'retried, not failed')
      if (wait) {
        // An HTTP date names whole seconds: the wait it gives is between wait - 1 s and wait.
        t.clock.advance(wait - 1_500)
        await t.core.drainJobs()
        assert.equal((await getSearch(trip)).status, 'in_progress', 'not before the time the 429 named')
      }
      t.clock.advance(wait ? 1_500 : 1_000)
      await t.core.drainJobs()
      assert.equal((await getSearch(trip)).status, 'success')
      fake.reset()
    }
  })

  test('a token Duffel does not know (access_token_not_found) fails the search supplier_refused at once', async () => {
    const unknown = await t.core.createSeller({
      name: 'Stale token',
      origins: [],
      sandbox: true,
      supplier: { name: 'duffel', credentials: 'duffel_test_revoked_at_duffel_0000' },
    })
    const { offer } = offerFor(request({}))
    const headers = { authorization: basic(unknown.apiKey) }
    fake.clearRequests()
    const trip = body(
      await t.app.inject({
        method: 'POST',
        url: '/v2.2/trip',
        headers,
        payload: request({ duffel_offer_id: offer.id }),
      }),
    )
    await t.core.drainJobs()
    const search = body(
      await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`, headers }),
    )
    assert.deepEqual([search.status, search.failure_reason], ['failed', 'supplier_refused'])
    assert.equal(fake.requests.filter((r) => r.path.startsWith('/air/offers/')).length, 1, 'asked once')
  })
})
