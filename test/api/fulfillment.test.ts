/**
 * POST /v2.2/trip/{trip_id}/fulfill (spec "Fulfillment request and response", docs/decisions.md "Fulfillment"):
 * every refusal leaves the store as it was; an accepted request books the tickets and queues one order per
 * ancillary, which the worker moves to `succeeded` (or `failed`, sandbox 9003); ordered items are final
 * (test/api/post-booking.test.ts has what a fulfilled trip still takes);
 * a retry with an Idempotency-Key replays the answer; two concurrent requests fulfill once.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import {
  build,
  basic,
  bearer,
  body,
  assertProblem,
  assertFields,
  createTrip,
  type Built,
  type CreatedTrip,
} from '../helpers/build.ts'
import {
  readSearch,
  checkedBag,
  seats,
  readBasket,
  checkBasket,
  acceptItem,
  patchTrip,
  readTrip,
  addItems,
  fulfill,
  fulfillRequest,
  itemWhere,
  createTripOnFlight,
  FULFILL_PASSENGERS,
} from '../helpers/flows.ts'
import { ACCESS_DETAILS } from '../helpers/spec-fields.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { SqliteStore } from '../../server/store/sqlite.ts'
import type { Store } from '../../core/ports/store.ts'

/** A trip with a bag for p1 and a seat for p2, every item valid; returns it with its current hash. */
async function readyTrip(t: Built, flight = '117') {
  const trip = await createTripOnFlight(t, flight)
  const search = await readSearch(t, trip)
  const basket = await addItems(t, trip, [
    { product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' },
    { product_id: seats(search, 'p2')[0]!.product_id, passenger_id: 'p2' },
  ])
  return { trip, hash: basket.trip_state_hash, basket }
}

const ancillaries = (basket: { basket: Record<string, any> }) =>
  Object.values(basket.basket).filter((i) => i.product_type !== 'ticket')

describe('fulfill: refusals change nothing', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  /** Sends the request and asserts the problem and that the store is exactly as before. */
  async function refused(
    trip: CreatedTrip,
    payload: unknown,
    status: number,
    code: string,
    headers: Record<string, string> = {},
  ) {
    const snapshot = t.snapshot()
    const p = assertProblem(await fulfill(t, trip, payload, headers), status, code)
    assert.deepEqual(t.snapshot(), snapshot, `a ${status} ${code} changed the store`)
    return p
  }

  test('a stale trip_state_hash → 409 trip_state_conflict', async () => {
    const { trip, hash } = await readyTrip(t)
    const search = await readSearch(t, trip)
    await addItems(t, trip, [{ product_id: checkedBag(search, 'p2').product_id, passenger_id: 'p2' }])
    const p = await refused(trip, fulfillRequest(trip, hash), 409, 'trip_state_conflict')
    assert.deepEqual(
      p.errors?.map((e) => e.path),
      ['/trip_state_hash'],
    )
  })

  test('an item `checking` → 409 basket_not_valid listing every such item', async () => {
    const { trip } = await readyTrip(t)
    const res = await checkBasket(t, trip)
    const checking = body(res)
    const p = await refused(trip, fulfillRequest(trip, checking.trip_state_hash), 409, 'basket_not_valid')
    assert.deepEqual(
      new Set(p.errors!.map((e) => e.path)),
      new Set(Object.keys(checking.basket).map((id) => `/basket/${id}`)),
    )
    assert.ok(
      p.errors!.every((e) => /checking$/.test(e.message)),
      JSON.stringify(p.errors),
    )
  })

  test('an item `price_changed` (9001) → 409 basket_not_valid naming that item; after accepting, fulfill succeeds', async () => {
    const { trip } = await readyTrip(t, '9001')
    await checkBasket(t, trip)
    await t.core.drainJobs()
    const basket = await readBasket(t, trip)
    const bag = itemWhere(basket, (i) => i.validity.status === 'price_changed')
    const p = await refused(trip, fulfillRequest(trip, basket.trip_state_hash), 409, 'basket_not_valid')
    assert.deepEqual(p.errors, [
      { path: `/basket/${bag.basket_item_id}`, message: `${bag.display_name} is price_changed` },
    ])

    const accepted = body(await acceptItem(t, trip, bag.basket_item_id))
    const res = await fulfill(t, trip, fulfillRequest(trip, accepted.trip_state_hash))
    assert.equal(res.statusCode, 202, res.body)
  })

  test('expired items (past valid_to) → 409 basket_not_valid listing them all', async () => {
    const { trip, basket } = await readyTrip(t)
    t.clock.advance(31 * 60_000)
    const expired = await readBasket(t, trip)
    const p = await refused(trip, fulfillRequest(trip, expired.trip_state_hash), 409, 'basket_not_valid')
    assert.deepEqual(
      new Set(p.errors!.map((e) => e.path)),
      new Set(Object.keys(basket.basket).map((id) => `/basket/${id}`)),
    )
    assert.ok(p.errors!.every((e) => /invalid$/.test(e.message)))
  })

  test('an unavailable item (9002) → 409 basket_not_valid', async () => {
    const { trip } = await readyTrip(t, '9002')
    await checkBasket(t, trip)
    await t.core.drainJobs()
    await refused(trip, fulfillRequest(trip, (await readBasket(t, trip)).trip_state_hash), 409, 'basket_not_valid')
  })

  test('a missing passenger, an unknown passenger, a wrong passenger type or an unknown ticket → 400', async () => {
    const { trip, hash } = await readyTrip(t)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ passengers: FULFILL_PASSENGERS.slice(0, 2) }, '/passengers'],
      [
        { passengers: [...FULFILL_PASSENGERS, { ...FULFILL_PASSENGERS[1]!, passenger_id: 'p9' }] },
        '/passengers/3/passenger_id',
      ],
      [
        {
          passengers: [
            FULFILL_PASSENGERS[0],
            { ...FULFILL_PASSENGERS[1]!, passenger_type: 'child' },
            FULFILL_PASSENGERS[2],
          ],
        },
        '/passengers/1/passenger_type',
      ],
      [
        {
          tickets: [
            {
              ticket_id: '00000000-0000-4000-8000-00000000dead',
              access_details: { record_locator: 'ABC123', ticket_number: '1250000000000' },
              status: 'booked',
            },
          ],
        },
        '/tickets/0/ticket_id',
      ],
      [{ tickets: [] }, '/tickets'],
      [{ trip_state_hash: 'not-a-hash' }, '/trip_state_hash'],
      [{ payment_details: {} }, '/payment_details/payment_type'],
    ]
    for (const [over, path] of cases) {
      const p = await refused(trip, fulfillRequest(trip, hash, over), 400, 'validation_error')
      assert.ok(
        p.errors?.some((e) => e.path === path),
        `${JSON.stringify(over)} → ${path}: ${JSON.stringify(p.errors)}`,
      )
    }
  })

  test('an access token → 403, a creation token → 403, another seller → 404, no credentials → 401', async () => {
    const { trip, hash } = await readyTrip(t)
    const payload = fulfillRequest(trip, hash)
    await refused(trip, payload, 403, 'forbidden', { authorization: bearer(trip.trip_access_token) })
    const auth = await t.app.inject({
      method: 'POST',
      url: '/v2.2/authorize',
      headers: { authorization: basic(t.apiKey) },
    })
    await refused(trip, payload, 403, 'forbidden', { authorization: bearer(body(auth).trip_creation_token) })
    const other = await t.otherSeller()
    await refused(trip, payload, 404, 'not_found', { authorization: basic(other.apiKey) })
    const snapshot = t.snapshot()
    const res = await t.app.inject({ method: 'POST', url: `/v2.2/trip/${trip.trip_id}/fulfill`, payload })
    assertProblem(res, 401, 'unauthorized')
    assert.deepEqual(t.snapshot(), snapshot)
  })
})

describe('fulfill: success', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('202 {status: queued, fulfillment_id}; tickets `booked` with access details; one `queued` order per ancillary; the worker makes them `succeeded`', async () => {
    const { trip, hash, basket } = await readyTrip(t)
    const res = await fulfill(t, trip, fulfillRequest(trip, hash))
    assert.equal(res.statusCode, 202, res.body)
    const answer = body(res)
    assert.deepEqual(Object.keys(answer).sort(), ['fulfillment_id', 'status'])
    assert.equal(answer.status, 'queued')
    assert.match(answer.fulfillment_id, /^[0-9a-f-]{36}$/)

    const booked = await readTrip(t, trip)
    assert.equal(booked.tickets.length, 1)
    for (const ticket of booked.tickets) {
      assert.equal(ticket.status, 'booked')
      assertFields(ticket.access_details, ACCESS_DETAILS, 'access_details')
      assert.equal(ticket.access_details.record_locator, 'ABC120')
      assert.equal(ticket.access_details.ticket_number, '1250000000000')
      assert.equal(ticket.access_details.reference_name, 'Lovelace')
      assert.equal(ticket.access_details.reference_email, 'ada@example.com')
      assert.equal(ticket.access_details.ticketing_channel.record_locator, 'ABC120')
    }
    assert.equal(booked.passengers[0].first_names, 'Ada', 'the fulfill request completes the passengers')
    assert.equal(booked.contact_details.email, 'ada@example.com')
    const orders = Object.values(booked.orders) as any[]
    const wanted = ancillaries(basket)
    assert.equal(orders.length, wanted.length)
    assert.deepEqual(new Set(orders.map((o) => o.basket_item_id)), new Set(wanted.map((i) => i.basket_item_id)))
    for (const o of orders) {
      assert.equal(booked.orders[o.order_id], o, 'keyed by order_id')
      assert.equal(o.status, 'queued')
      assert.equal(o.fulfillment_id, answer.fulfillment_id)
      assert.deepEqual(o.price, basket.basket[o.basket_item_id].price, 'the order keeps the price charged')
      assert.equal(o.display_name, basket.basket[o.basket_item_id].display_name)
    }

    await t.core.drainJobs()
    const done = await readTrip(t, trip)
    for (const o of Object.values(done.orders) as any[]) {
      assert.equal(o.status, 'succeeded', o.display_name)
      assert.match(o.supplier_reference, /^SBX[A-Z2-9]{10}$/)
      assert.equal(o.failure_reason, undefined)
    }
    const jobs = await t.store.listJobs(['fulfill_order'])
    assert.equal(jobs.length, wanted.length)
    assert.ok(jobs.every((j) => j.status === 'done' && j.attempts === 1))
  })

  test('a second fulfill with nothing new to order → 409, with the stale hash and with the current one', async () => {
    const { trip, hash } = await readyTrip(t)
    assert.equal((await fulfill(t, trip, fulfillRequest(trip, hash))).statusCode, 202)
    const current = (await readBasket(t, trip)).trip_state_hash
    assert.notEqual(current, hash, 'ordering the items changed the state hash')
    for (const [h, detail] of [
      [hash, /stale/],
      [current, /Nothing to fulfill/],
    ] as const) {
      const snapshot = t.snapshot()
      const p = assertProblem(await fulfill(t, trip, fulfillRequest(trip, h)), 409, 'trip_state_conflict')
      assert.match(p.detail, detail)
      assert.deepEqual(t.snapshot(), snapshot)
    }
  })

  test('Idempotency-Key: a retry returns the same fulfillment_id and creates nothing; the key with another body → 422', async () => {
    const { trip, hash } = await readyTrip(t)
    const payload = fulfillRequest(trip, hash)
    const first = await fulfill(t, trip, payload, { 'idempotency-key': 'charge-42' })
    assert.equal(first.statusCode, 202, first.body)
    const jobs = (await t.store.listJobs(['fulfill_order'])).length
    const again = await fulfill(t, trip, payload, { 'idempotency-key': 'charge-42' })
    assert.equal(again.statusCode, 202, again.body)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.deepEqual(body(again), body(first))
    assert.equal((await t.store.listJobs(['fulfill_order'])).length, jobs, 'no second set of orders')
    assert.equal(Object.keys((await readTrip(t, trip)).orders).length, 2)
    assertProblem(
      await fulfill(
        t,
        trip,
        { ...payload, payment_details: { payment_type: 'card' } },
        { 'idempotency-key': 'charge-42' },
      ),
      422,
      'idempotency_conflict',
    )
  })

  test('after fulfillment the ordered items and the passengers are final: each change → 409, nothing changed', async () => {
    const { trip, hash, basket } = await readyTrip(t)
    assert.equal((await fulfill(t, trip, fulfillRequest(trip, hash))).statusCode, 202)
    await t.core.drainJobs()
    const bag = ancillaries(basket).find((i) => i.product_type === 'bag')!
    const snapshot = t.snapshot()
    const p = assertProblem(
      await t.app.inject({
        method: 'DELETE',
        url: `/v2.2/trip/${trip.trip_id}/basket/${bag.basket_item_id}`,
        headers: { authorization: basic(t.apiKey) },
      }),
      409,
      'item_ordered',
    )
    assert.match(p.detail, /was ordered \(order [0-9a-f-]+, succeeded\).*to_cancel/)
    assertProblem(
      await patchTrip(t, trip, { passengers: [{ passenger_id: 'p2', date_of_birth: '1990-01-01' }] }),
      409,
      'trip_state_conflict',
    )
    assertProblem(
      await patchTrip(
        t,
        trip,
        { passengers: [{ passenger_id: 'p2', date_of_birth: '1990-01-01' }] },
        bearer(trip.trip_access_token),
      ),
      409,
      'trip_state_conflict',
    )
    assert.deepEqual(t.snapshot(), snapshot)
  })

  test('a trip with no ancillaries fulfills with no orders', async () => {
    const trip = await createTrip(t)
    const res = await fulfill(t, trip, fulfillRequest(trip, (await readBasket(t, trip)).trip_state_hash))
    assert.equal(res.statusCode, 202, res.body)
    const got = await readTrip(t, trip)
    assert.deepEqual(got.orders, {})
    assert.equal(got.tickets[0].status, 'booked')
  })

  test('9003: the airline refuses the bookings → orders `failed` with a failure_reason, tickets stay `booked`', async () => {
    const { trip, hash } = await readyTrip(t, '9003')
    assert.equal((await fulfill(t, trip, fulfillRequest(trip, hash))).statusCode, 202)
    await t.core.drainJobs()
    const got = await readTrip(t, trip)
    const orders = Object.values(got.orders) as any[]
    assert.equal(orders.length, 2)
    for (const o of orders) {
      assert.equal(o.status, 'failed')
      assert.match(o.failure_reason, /rejected/)
      assert.equal(o.supplier_reference, undefined)
    }
    assert.equal(got.tickets[0].status, 'booked')
  })
})

describe('fulfill: two concurrent requests fulfill once', () => {
  const stores: Array<[string, () => Promise<Store>]> = [
    ['memory store', async () => new MemoryStore()],
    [
      'SQLite store',
      async () => {
        const s = new SqliteStore(':memory:')
        await s.migrate()
        return s
      },
    ],
  ]
  for (const [name, open] of stores) {
    test(`two concurrent fulfills of one trip (${name}): exactly one 202 and one 409; one fulfillment, one set of orders`, async () => {
      const t = await build({ store: await open() })
      try {
        const { trip, hash, basket } = await readyTrip(t)
        const payload = fulfillRequest(trip, hash)
        // Make the race certain: the first two trip writes (one per request) wait for each other, so both
        // were made from the same version and both try to write it; count the write that loses.
        let conflicts = 0
        let arrived = 0
        let release!: () => void
        const bothMade = new Promise<void>((resolve) => {
          release = resolve
        })
        const updateTrip = t.store.updateTrip.bind(t.store)
        t.store.updateTrip = async (...args) => {
          if (++arrived === 2) release()
          if (arrived <= 2) await bothMade
          const v = await updateTrip(...args)
          if (v === null) conflicts++
          return v
        }
        const answers = await Promise.all([fulfill(t, trip, payload), fulfill(t, trip, payload)])
        t.store.updateTrip = updateTrip
        assert.equal(
          conflicts,
          1,
          'both requests wrote from one version; the second write lost and was re-run on the fulfilled trip',
        )
        const codes = answers.map((r) => r.statusCode).sort()
        assert.deepEqual(codes, [202, 409], answers.map((r) => r.body).join('\n'))
        const loser = answers.find((r) => r.statusCode === 409)!
        assert.equal(body(loser).code, 'trip_state_conflict')
        const winner = body(answers.find((r) => r.statusCode === 202)!)

        const stored = (await t.store.getTrip(trip.trip_id))!.value
        assert.deepEqual(Object.keys(stored.fulfillments), [winner.fulfillment_id], 'one fulfillment')
        const orders = Object.values(stored.orders)
        assert.equal(orders.length, ancillaries(basket).length, 'one order per ancillary, once')
        assert.ok(orders.every((o) => o.fulfillment_id === winner.fulfillment_id))
        const jobs = await t.store.listJobs(['fulfill_order'])
        assert.equal(jobs.length, orders.length, 'one job per order')
        assert.deepEqual(
          new Set(jobs.map((j) => (j.payload as { order_id: string }).order_id)),
          new Set(orders.map((o) => o.order_id)),
        )

        await t.core.drainJobs()
        const done = (await t.store.getTrip(trip.trip_id))!.value
        assert.ok(Object.values(done.orders).every((o) => o.status === 'succeeded'))
      } finally {
        await t.close()
        await t.store.close()
      }
    })
  }
})
