/**
 * Cancelling purchased extras (docs/decisions.md "After-sale"): the airline's quote (`to_cancel`), its
 * confirmation, the job per order, the sandbox airline's refund rules and flight 9005, the webhooks; and
 * the bad input: an item not ordered, not yours, already cancelled, a quote expired, two confirms at once,
 * a worker that dies after the airline answered.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, bearer, body, assertProblem, type Built, type CreatedTrip } from '../helpers/build.ts'
import {
  readSearch,
  checkedBag,
  seats,
  productsOf,
  addItems,
  fulfill,
  fulfillRequest,
  createTripOnFlight,
  readTrip,
  itemWhere,
} from '../helpers/flows.ts'
import { createTrip } from '../helpers/build.ts'
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { defaultConfig } from '../../core/core.ts'
import type { Supplier } from '../../core/ports/supplier.ts'
import type { WebhookSender } from '../../core/ports/webhook-sender.ts'

const HOUR = 3_600_000

/** Webhooks recorded as a seller's endpoint would receive them. */
function recorder() {
  const got: Array<{ event_name: string; cancellation_id?: string; data: any }> = []
  const sender: WebhookSender = {
    async send(_t, raw) {
      got.push(JSON.parse(raw))
      return 200
    },
  }
  return { got, sender }
}

interface Booked {
  trip: CreatedTrip
  bag: string
  seat: string
  priority?: string
}

/** A trip with a bag and a seat for p1 (and priority boarding), fulfilled, its orders succeeded. */
async function booked(t: Built, flight = '117', withPriority = false): Promise<Booked> {
  let trip = await createTripOnFlight(t, flight)
  if (withPriority) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/search`,
      headers: { authorization: basic(t.apiKey) },
      payload: { bag: { search: true }, seat: { search: true }, priority_boarding: { search: true } },
    })
    trip = { ...trip, search_id: body(res).search_id }
  }
  const search = await readSearch(t, trip)
  const lines = [
    { product_id: checkedBag(search).product_id, passenger_id: 'p1' },
    { product_id: seats(search)[0]!.product_id, passenger_id: 'p1' },
  ]
  const priority = productsOf(search, 'priority_boarding').find((p) => p.price_and_availability.p1?.available)
  if (withPriority) lines.push({ product_id: priority!.product_id, passenger_id: 'p1' })
  const basket = await addItems(t, trip, lines)
  const res = await fulfill(t, trip, fulfillRequest(trip, basket.trip_state_hash))
  assert.equal(res.statusCode, 202, res.body)
  await t.core.drainJobs()
  const id = (type: string) => itemWhere(basket, (i) => i.product_type === type).basket_item_id as string
  return { trip, bag: id('bag'), seat: id('seat'), ...(withPriority ? { priority: id('priority_boarding') } : {}) }
}

const quote = (t: Built, trip: CreatedTrip, ids: string[], auth = basic(t.apiKey)) =>
  t.app.inject({
    method: 'POST',
    url: `/v2.2/trip/${trip.trip_id}/to_cancel`,
    headers: { authorization: auth },
    payload: { basket_item_ids: ids },
  })
const confirm = (t: Built, trip: CreatedTrip, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: `/v2.2/trip/${trip.trip_id}/to_cancel/confirm`,
    headers: { authorization: basic(t.apiKey), ...headers },
  })
const orderOf = (trip: Record<string, any>, itemId: string) =>
  Object.values<any>(trip.orders).find((o) => o.basket_item_id === itemId)

describe('cancellation with refund', () => {
  let t: Built
  const hooks = recorder()
  before(async () => {
    t = await build({ webhooks: hooks.sender })
    for (const event_name of ['order_status_changed', 'cancellation_completed']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2.2/callback_subscription',
        headers: { authorization: basic(t.apiKey) },
        payload: { delivery_method: 'http', target: 'https://hooks.shop.example/svc', event_name },
      })
      assert.equal(res.statusCode, 201, res.body)
    }
  })
  after(() => t.close())

  test('quote → confirm → cancelled with refunds: a bag in full, a seat less 20 %; webhooks; the trip shows it all', async () => {
    const b = await booked(t)
    const before = await readTrip(t, b.trip)
    const paid = (id: string) => orderOf(before, id).price.total.amount as number

    const q = await quote(t, b.trip, [b.bag, b.seat])
    assert.equal(q.statusCode, 200, q.body)
    const { to_cancel, quote_expires_at } = body(q)
    assert.equal(Date.parse(quote_expires_at) - t.clock.now().getTime(), defaultConfig.cancellationQuoteTtl * 1000)
    assert.deepEqual(Object.keys(to_cancel).sort(), [b.bag, b.seat].sort())
    assert.equal(to_cancel[b.bag].cancellable, true)
    assert.equal(to_cancel[b.bag].refund.amount, paid(b.bag), 'a bag 30 days out: refunded in full')
    const seatPaid = paid(b.seat)
    assert.equal(to_cancel[b.seat].refund.amount, seatPaid - Math.round(seatPaid * 0.2), 'a seat: less the 20 % fee')
    assert.equal(to_cancel[b.bag].order_id, orderOf(before, b.bag).order_id)
    assert.deepEqual(
      body(
        await t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${b.trip.trip_id}/to_cancel`,
          headers: { authorization: basic(t.apiKey) },
        }),
      ),
      { to_cancel, quote_expires_at },
    )
    assert.deepEqual((await readTrip(t, b.trip)).to_cancel, to_cancel, "the trip's to_cancel is the quote")

    hooks.got.length = 0
    const c = await confirm(t, b.trip)
    assert.equal(c.statusCode, 202, c.body)
    const { status, cancellation_id } = body(c)
    assert.equal(status, 'queued')
    const cancelling = await readTrip(t, b.trip)
    assert.deepEqual(
      [orderOf(cancelling, b.bag).status, orderOf(cancelling, b.seat).status],
      ['cancelling', 'cancelling'],
    )
    assert.deepEqual(cancelling.to_cancel, {}, 'the quote is used up')

    await t.core.drainJobs()
    const after = await readTrip(t, b.trip)
    for (const id of [b.bag, b.seat]) {
      const o = orderOf(after, id)
      assert.equal(o.status, 'cancelled')
      assert.deepEqual(o.refund, to_cancel[id].refund, 'refunded as quoted')
      assert.equal(o.cancellation_id, cancellation_id)
    }
    const moves = hooks.got
      .filter((e) => e.event_name === 'order_status_changed')
      .map((e) => `${e.data.previous_status}→${e.data.order.status}`)
      .sort()
    assert.deepEqual(moves, [
      'cancelling→cancelled',
      'cancelling→cancelled',
      'succeeded→cancelling',
      'succeeded→cancelling',
    ])
    const done = hooks.got.filter((e) => e.event_name === 'cancellation_completed')
    assert.equal(done.length, 1)
    assert.equal(done[0]!.cancellation_id, cancellation_id)
    assert.equal(done[0]!.data.status, 'cancelled')
    assert.equal(done[0]!.data.refund_total.amount, to_cancel[b.bag].refund.amount + to_cancel[b.seat].refund.amount)

    // Already cancelled: refused, nothing changes.
    assertProblem(await quote(t, b.trip, [b.bag]), 409, 'not_cancellable')
  })

  test('non-refundable (priority boarding) and a bag within 24 h: quoted not cancellable with a reason; confirming is refused, nothing changes', async () => {
    const b = await booked(t, '117', true)
    const q = body(await quote(t, b.trip, [b.priority!, b.seat]))
    assert.deepEqual(
      [q.to_cancel[b.priority!].cancellable, q.to_cancel[b.priority!].refund, q.to_cancel[b.priority!].reason],
      [false, null, 'non_refundable'],
    )
    const before = t.snapshot()
    const p = assertProblem(await confirm(t, b.trip), 409, 'not_cancellable')
    assert.equal(p.errors![0]!.path, `/to_cancel/${b.priority}`)
    assert.deepEqual(t.snapshot(), before, 'a refused confirm changes nothing')

    // The journey leaves in 23 h: the bag is no longer refundable, the seat still is.
    const departs = Date.parse((await readTrip(t, b.trip)).journeys[0].segments[0].departure_time)
    const now = t.clock.now()
    t.clock.set(new Date(departs - 23 * HOUR))
    const late = body(await quote(t, b.trip, [b.bag, b.seat]))
    assert.deepEqual(
      [late.to_cancel[b.bag].cancellable, late.to_cancel[b.bag].reason],
      [false, 'too_close_to_departure'],
    )
    assert.equal(late.to_cancel[b.seat].cancellable, true)
    t.clock.set(now)
  })

  test('bad input: not ordered, not an item of the trip, another seller, an access token, a quote expired or missing', async () => {
    const b = await booked(t)
    const open = await createTrip(t)
    const search = await readSearch(t, open)
    const basket = await addItems(t, open, [{ product_id: checkedBag(search).product_id, passenger_id: 'p1' }])
    const unordered = itemWhere(basket, (i) => i.product_type === 'bag').basket_item_id
    const other = await t.otherSeller()
    const before = t.snapshot()
    assertProblem(await quote(t, open, [unordered]), 409, 'not_cancellable')
    const p = assertProblem(await quote(t, b.trip, ['no-such-item', b.bag]), 404, 'not_found')
    assert.equal(p.errors![0]!.path, '/basket_item_ids/0')
    assertProblem(await quote(t, b.trip, [b.bag, b.bag]), 400, 'validation_error')
    assertProblem(await quote(t, b.trip, []), 400, 'validation_error')
    assertProblem(await quote(t, b.trip, [b.bag], basic(other.apiKey)), 404, 'not_found')
    assertProblem(await quote(t, b.trip, [b.bag], bearer(b.trip.trip_access_token)), 403, 'forbidden')
    assertProblem(await confirm(t, b.trip), 409, 'not_cancellable') // no quote yet
    assert.deepEqual(t.snapshot(), before, 'refusals change nothing')

    assert.equal((await quote(t, b.trip, [b.bag])).statusCode, 200)
    t.clock.advance(defaultConfig.cancellationQuoteTtl * 1000)
    assertProblem(await confirm(t, b.trip), 409, 'quote_expired')
    t.clock.advance(-defaultConfig.cancellationQuoteTtl * 1000)
    assert.equal(orderOf(await readTrip(t, b.trip), b.bag).status, 'succeeded')
  })

  test('two confirms at once: one cancellation, one job per order; a retried confirm (Idempotency-Key) answers the same', async () => {
    const b = await booked(t)
    assert.equal((await quote(t, b.trip, [b.bag, b.seat])).statusCode, 200)
    const [x, y] = await Promise.all([confirm(t, b.trip), confirm(t, b.trip)])
    const statuses = [x.statusCode, y.statusCode].sort()
    assert.deepEqual(statuses, [202, 409], `${x.body} / ${y.body}`)
    const cancellations = Object.keys((await t.store.getTrip(b.trip.trip_id))!.value.cancellations ?? {})
    assert.equal(cancellations.length, 1)

    const again = await booked(t)
    assert.equal((await quote(t, again.trip, [again.bag])).statusCode, 200)
    const first = await confirm(t, again.trip, { 'idempotency-key': 'cancel-1' })
    const replay = await confirm(t, again.trip, { 'idempotency-key': 'cancel-1' })
    assert.equal(replay.statusCode, 202)
    assert.equal(replay.headers['idempotent-replayed'], 'true')
    assert.deepEqual(body(replay), body(first))
  })

  test('the airline refuses (9005): the orders go back to succeeded with the reason; cancellation_completed says failed', async () => {
    const b = await booked(t, '9005')
    assert.equal(
      body(await quote(t, b.trip, [b.bag])).to_cancel[b.bag].cancellable,
      true,
      'the rules allow it; the airline refuses at cancel time',
    )
    hooks.got.length = 0
    assert.equal((await confirm(t, b.trip)).statusCode, 202)
    await t.core.drainJobs()
    const o = orderOf(await readTrip(t, b.trip), b.bag)
    assert.equal(o.status, 'succeeded')
    assert.match(o.cancellation_failure_reason, /9005/)
    assert.equal(o.refund, undefined)
    assert.equal(hooks.got.find((e) => e.event_name === 'cancellation_completed')!.data.status, 'failed')
  })
})

test('a worker that dies after the airline cancelled: the job runs again, each order ends cancelled once, cancelled once at the airline', async () => {
  const sandbox = createSandboxSupplier()
  const ledger = new Map<string, number>() // order_id → cancellations the airline recorded
  const calls: string[] = []
  const supplier: Supplier = {
    ...sandbox,
    async cancel(call, trip, o, now) {
      calls.push(o.order.order_id)
      // The airline keeps one cancellation per order: a repeated call answers the first outcome.
      if (!ledger.has(o.order.order_id)) ledger.set(o.order.order_id, 1)
      return sandbox.cancel(call, trip, o, now)
    },
  }
  // The process "dies" right after the airline's first answer: the write of the outcome never happens.
  const store = new MemoryStore()
  let dieOnce = true
  const realUpdate = store.updateTrip.bind(store)
  store.updateTrip = async (trip, version, effects) => {
    if (dieOnce && calls.length === 1 && Object.values(trip.orders).some((o) => o.status === 'cancelled')) {
      dieOnce = false
      throw new Error('worker killed')
    }
    return realUpdate(trip, version, effects)
  }
  const hooks = recorder()
  const t = await build({
    store,
    supplier,
    webhooks: hooks.sender,
    config: { jobLeaseMs: 10, backoffBaseMs: 1, backoffCapMs: 1 },
  })
  try {
    await t.app.inject({
      method: 'POST',
      url: '/v2.2/callback_subscription',
      headers: { authorization: basic(t.apiKey) },
      payload: {
        delivery_method: 'http',
        target: 'https://hooks.shop.example/svc',
        event_name: 'order_status_changed',
      },
    })
    const b = await booked(t)
    assert.equal((await quote(t, b.trip, [b.bag, b.seat])).statusCode, 200)
    assert.equal((await confirm(t, b.trip)).statusCode, 202)
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1_000)
      await t.core.drainJobs()
    }
    const trip = await readTrip(t, b.trip)
    assert.deepEqual([orderOf(trip, b.bag).status, orderOf(trip, b.seat).status], ['cancelled', 'cancelled'])
    assert.equal(calls.length, 3, 'the interrupted order was asked again (at least once), the other once')
    assert.deepEqual([...ledger.values()], [1, 1], 'one cancellation per order at the airline')
    const toCancelled = hooks.got.filter(
      (e) => e.event_name === 'order_status_changed' && e.data.order.status === 'cancelled',
    )
    assert.equal(toCancelled.length, 2, 'one webhook per order move')
    assert.deepEqual(
      (await t.store.listJobs(['cancel_order'])).map((j) => j.status),
      ['done', 'done'],
      'no job left over',
    )
  } finally {
    await t.close()
  }
})
