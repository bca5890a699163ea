/**
 * Webhooks (docs/decisions.md "Fulfillment"): subscriptions over HTTP, and deliveries to a real receiver on
 * 127.0.0.1: which events arrive, their headers and signatures (checked with docs/webhooks.md's own snippet),
 * retries with backoff under one event_id, a receiver that never answers, and who may see or delete a
 * subscription.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import {
  build,
  basic,
  bearer,
  body,
  assertProblem,
  createTrip,
  legacyLiveSeller,
  type Built,
  type CreatedTrip,
} from '../helpers/build.ts'
import {
  readSearch,
  checkedBag,
  seats,
  readBasket,
  readTrip,
  addItems,
  fulfill,
  fulfillRequest,
} from '../helpers/flows.ts'
import {
  startReceiver,
  deadTarget,
  verifyWebhook,
  readmeVerifier,
  type Receiver,
  type Delivery,
} from '../helpers/webhooks.ts'
import { defaultConfig } from '../../core/core.ts'

type Verify = typeof verifyWebhook

async function subscribe(t: Built, target: string, event_name: string, apiKey = t.apiKey) {
  return t.app.inject({
    method: 'POST',
    url: '/v2.2/callback_subscription',
    headers: { authorization: basic(apiKey) },
    payload: { delivery_method: 'http', target, event_name },
  })
}

async function subscribed(t: Built, target: string, event_name: string) {
  const res = await subscribe(t, target, event_name)
  assert.equal(res.statusCode, 201, res.body)
  return body<{ subscription_id: string; secret: string; target: string; event_name: string }>(res)
}

/** A trip with a bag for p1 and a seat for p2, fulfilled; returns the fulfillment id. */
async function fulfilledTrip(t: Built, ancillaries = true): Promise<{ trip: CreatedTrip; fulfillment_id: string }> {
  const trip = await createTrip(t)
  if (ancillaries) {
    const search = await readSearch(t, trip)
    await addItems(t, trip, [
      { product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' },
      { product_id: seats(search, 'p2')[0]!.product_id, passenger_id: 'p2' },
    ])
  }
  const res = await fulfill(t, trip, fulfillRequest(trip, (await readBasket(t, trip)).trip_state_hash))
  assert.equal(res.statusCode, 202, res.body)
  return { trip, fulfillment_id: body(res).fulfillment_id }
}

/** Asserts a delivery's headers and its signature, with the typed helper and with docs/webhooks.md's snippet. */
function assertSigned(d: Delivery, secret: string, now: Date, readme: Verify) {
  assert.match(String(d.headers['content-type']), /^application\/json/)
  assert.equal(d.headers['svc-event-id'], d.body.event_id)
  assert.equal(d.headers['svc-event-name'], d.body.event_name)
  const signature = String(d.headers['svc-signature'])
  assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/)
  assert.ok(verifyWebhook(secret, signature, d.raw, now.getTime()), 'verifies with the test helper')
  assert.ok(readme(secret, signature, d.raw, now.getTime()), "verifies with docs/webhooks.md's snippet")
}

describe('deliveries of a fulfillment', () => {
  let t: Built
  let receiver: Receiver
  let readme: Verify
  before(async () => {
    t = await build()
    receiver = await startReceiver()
    readme = await readmeVerifier()
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  test('order_status_changed (in_progress, succeeded) per order and one fulfillment_completed, each signed, each with its own event_id', async () => {
    const orders = await subscribed(t, receiver.url, 'order_status_changed')
    const completed = await subscribed(t, receiver.url, 'fulfillment_completed')
    assert.notEqual(orders.secret, completed.secret, 'each subscription has its own secret')
    const { trip, fulfillment_id } = await fulfilledTrip(t)
    await t.core.drainJobs()

    const got = await readTrip(t, trip)
    const orderIds = Object.keys(got.orders)
    assert.equal(orderIds.length, 2)
    const changes = receiver.deliveries.filter((d) => d.body.event_name === 'order_status_changed')
    const done = receiver.deliveries.filter((d) => d.body.event_name === 'fulfillment_completed')
    assert.equal(receiver.deliveries.length, changes.length + done.length)
    for (const id of orderIds) {
      const moves = changes
        .filter((d) => d.body.data.order.order_id === id)
        .map((d) => `${d.body.data.previous_status}→${d.body.data.order.status}`)
      assert.deepEqual(moves.sort(), ['in_progress→succeeded', 'queued→in_progress'], `order ${id}`)
    }
    assert.equal(changes.length, 4)
    assert.equal(done.length, 1)
    const summary = done[0]!.body
    assert.equal(summary.data.status, 'succeeded')
    assert.deepEqual(new Set(summary.data.orders.map((o: { order_id: string }) => o.order_id)), new Set(orderIds))
    assert.ok(summary.data.orders.every((o: { status: string }) => o.status === 'succeeded'))

    for (const d of receiver.deliveries) {
      assert.equal(d.body.trip_id, trip.trip_id)
      assert.equal(d.body.fulfillment_id, fulfillment_id)
      assert.ok(!Number.isNaN(Date.parse(d.body.created_at)))
      assertSigned(
        d,
        d.body.event_name === 'fulfillment_completed' ? completed.secret : orders.secret,
        t.clock.now(),
        readme,
      )
    }
    const ids = receiver.deliveries.map((d) => d.body.event_id)
    assert.equal(new Set(ids).size, ids.length, 'every event has its own event_id')
    const changed = changes.find((d) => d.body.data.order.status === 'succeeded')!
    assert.match(changed.body.data.order.supplier_reference, /^SBX/)
    assert.ok((await t.store.listJobs(['webhook'])).every((j) => j.status === 'done'))
  })

  test('a wrong secret, a changed body or an old timestamp fails verification', async () => {
    const d = receiver.deliveries[0]
    assert.ok(d, 'the previous test received deliveries')
    const secret = (await t.store.listSubscriptions(t.seller.seller_id)).find(
      (s) => s.event_name === d.body.event_name,
    )!.secret
    const signature = String(d.headers['svc-signature'])
    const now = t.clock.now().getTime()
    for (const verify of [verifyWebhook, readme]) {
      assert.equal(verify(secret, signature, d.raw, now), true)
      assert.equal(verify('whsec_not_the_secret', signature, d.raw, now), false, 'wrong secret')
      assert.equal(verify(secret, signature, d.raw.replace('"trip_id":"', '"trip_id":"x'), now), false, 'changed body')
      assert.equal(verify(secret, signature, d.raw, now + 10 * 60_000), false, 'replayed 10 minutes later')
      assert.equal(verify(secret, 't=abc,v1=00', d.raw, now), false, 'malformed header')
      assert.equal(verify(secret, signature.replace(/v1=[0-9a-f]{2}/, 'v1=zz'), d.raw, now), false, 'non-hex signature')
    }
  })
})

describe('retries', () => {
  let t: Built
  let receiver: Receiver
  let readme: Verify
  before(async () => {
    t = await build({
      config: { backoffBaseMs: 1000, backoffCapMs: 60_000, maxAttempts: { ...defaultConfig.maxAttempts, webhook: 3 } },
    })
    receiver = await startReceiver()
    readme = await readmeVerifier()
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  test('a receiver answering 500 twice gets the event on the third attempt, after 1 s and 2 s, with the same event_id each time', async () => {
    const sub = await subscribed(t, receiver.url, 'fulfillment_completed')
    receiver.answer(500, 500)
    const start = t.clock.now()
    await fulfilledTrip(t, false) // no ancillaries: fulfillment_completed at once, one delivery job

    await t.core.drainJobs()
    assert.deepEqual(
      receiver.deliveries.map((d) => d.status),
      [500],
    )
    t.clock.advance(999)
    assert.equal(await t.core.drainJobs(), 0, 'no retry before the backoff')
    t.clock.advance(1)
    await t.core.drainJobs()
    assert.deepEqual(
      receiver.deliveries.map((d) => d.status),
      [500, 500],
    )
    t.clock.advance(1999)
    assert.equal(await t.core.drainJobs(), 0, 'the second backoff is twice the first')
    t.clock.advance(1)
    await t.core.drainJobs()
    assert.deepEqual(
      receiver.deliveries.map((d) => d.status),
      [500, 500, 200],
    )

    const [a, b, c] = receiver.deliveries as [Delivery, Delivery, Delivery]
    assert.ok(
      a.body.event_id && a.body.event_id === b.body.event_id && b.body.event_id === c.body.event_id,
      'one event, delivered at least once',
    )
    assert.equal(a.raw, c.raw, 'the same body each time')
    assert.equal(
      Number(/t=(\d+)/.exec(String(c.headers['svc-signature']))![1]),
      Math.floor(start.getTime() / 1000) + 3,
      'each attempt is signed when sent',
    )
    for (const d of receiver.deliveries) assertSigned(d, sub.secret, t.clock.now(), readme)
    const [job] = await t.store.listJobs(['webhook'])
    assert.equal(job!.status, 'done')
    assert.equal(job!.attempts, 3)
    t.clock.advance(60_000)
    assert.equal(await t.core.drainJobs(), 0)
    assert.equal(receiver.deliveries.length, 3, 'nothing after the success')
  })

  test('a receiver down for every attempt: its jobs end `dead`; the orders, other subscriptions and later trips are unaffected', async () => {
    const before = new Set((await t.store.listJobs(['webhook'])).map((j) => j.job_id))
    const down = await subscribed(t, await deadTarget(), 'order_status_changed')
    receiver.deliveries.length = 0
    const { trip } = await fulfilledTrip(t)
    for (const step of [0, 1000, 2000]) {
      t.clock.advance(step)
      await t.core.drainJobs()
    }
    const jobs = (await t.store.listJobs(['webhook'])).filter((j) => !before.has(j.job_id))
    const toDown = jobs.filter(
      (j) => (j.payload as { subscription_id: string }).subscription_id === down.subscription_id,
    )
    assert.equal(toDown.length, 4, 'two moves for each of two orders')
    for (const j of toDown) {
      assert.equal(j.status, 'dead')
      assert.equal(j.attempts, 3)
      assert.ok(j.last_error, 'the failure is recorded')
    }
    assert.ok(
      Object.values((await readTrip(t, trip)).orders).every((o: any) => o.status === 'succeeded'),
      'the orders succeeded regardless',
    )
    assert.equal(
      receiver.deliveries.filter((d) => d.body.trip_id === trip.trip_id).length,
      1,
      'the working subscription got its fulfillment_completed',
    )
    assert.equal(jobs.filter((j) => j.status === 'pending').length, 0)

    // The service goes on: another trip fulfills and is delivered.
    const next = await fulfilledTrip(t, false)
    await t.core.drainJobs()
    assert.ok(receiver.deliveries.some((d) => d.body.trip_id === next.trip.trip_id))
  })
})

describe('subscriptions', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('POST → 201 with the secret once; GET lists without secrets; DELETE → 204 removes it and its pending deliveries', async () => {
    const receiver = await startReceiver()
    try {
      const res = await subscribe(t, receiver.url, 'fulfillment_completed')
      assert.equal(res.statusCode, 201, res.body)
      const sub = body(res)
      assert.deepEqual(Object.keys(sub).sort(), [
        'created_at',
        'delivery_method',
        'event_name',
        'secret',
        'subscription_id',
        'target',
      ])
      assert.match(sub.secret, /^whsec_/)
      assert.equal(sub.target, receiver.url)
      assert.equal(sub.delivery_method, 'http')

      const list = await t.app.inject({
        method: 'GET',
        url: '/v2.2/callback_subscription',
        headers: { authorization: basic(t.apiKey) },
      })
      assert.equal(list.statusCode, 200, list.body)
      const listed = body(list).subscriptions
      assert.deepEqual(
        listed.map((s: { subscription_id: string }) => s.subscription_id),
        [sub.subscription_id],
      )
      assert.equal(listed[0].secret, undefined, 'the secret is shown only at creation')
      assert.ok(!list.body.includes(sub.secret))

      // An event raised before the DELETE is not delivered after it.
      await fulfilledTrip(t, false)
      const del = await t.app.inject({
        method: 'DELETE',
        url: `/v2.2/callback_subscription/${sub.subscription_id}`,
        headers: { authorization: basic(t.apiKey) },
      })
      assert.equal(del.statusCode, 204, del.body)
      await t.core.drainJobs()
      assert.equal(receiver.deliveries.length, 0)
      const after = await t.app.inject({
        method: 'GET',
        url: '/v2.2/callback_subscription',
        headers: { authorization: basic(t.apiKey) },
      })
      assert.deepEqual(body(after).subscriptions, [])
      assertProblem(
        await t.app.inject({
          method: 'DELETE',
          url: `/v2.2/callback_subscription/${sub.subscription_id}`,
          headers: { authorization: basic(t.apiKey) },
        }),
        404,
        'not_found',
      )
    } finally {
      await receiver.close()
    }
  })

  test('an http target is refused for a live (non-sandbox) seller, https is accepted; http is fine in sandbox', async () => {
    const live = await legacyLiveSeller(t.core)
    const before = await t.store.listSubscriptions(live.seller.seller_id)
    const p = assertProblem(
      await subscribe(t, 'http://127.0.0.1:9/hooks', 'order_status_changed', live.apiKey),
      400,
      'validation_error',
    )
    assert.deepEqual(
      p.errors?.map((e) => e.path),
      ['/target'],
    )
    assert.deepEqual(await t.store.listSubscriptions(live.seller.seller_id), before)
    assert.equal(
      (await subscribe(t, 'https://hooks.shop.example/svc', 'order_status_changed', live.apiKey)).statusCode,
      201,
    )
    assert.equal((await subscribe(t, 'http://127.0.0.1:9/hooks', 'order_status_changed')).statusCode, 201)
  })

  test('bad requests → 400: credentials in the URL, another scheme, an unknown event, another delivery method', async () => {
    for (const payload of [
      { delivery_method: 'http', target: 'https://user:pw@hooks.example/x', event_name: 'order_status_changed' },
      { delivery_method: 'http', target: 'ftp://hooks.example/x', event_name: 'order_status_changed' },
      { delivery_method: 'http', target: 'https://hooks.example/x', event_name: 'trip_created' },
      { delivery_method: 'email', target: 'https://hooks.example/x', event_name: 'order_status_changed' },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2.2/callback_subscription',
        headers: { authorization: basic(t.apiKey) },
        payload,
      })
      assertProblem(res, 400, 'validation_error')
    }
  })

  test('another seller neither sees nor deletes your subscription (404); access tokens may not manage subscriptions (403)', async () => {
    const mine = await subscribed(t, 'https://hooks.shop.example/mine', 'fulfillment_completed')
    const other = await t.otherSeller()
    const theirs = await t.app.inject({
      method: 'GET',
      url: '/v2.2/callback_subscription',
      headers: { authorization: basic(other.apiKey) },
    })
    assert.deepEqual(body(theirs).subscriptions, [])
    assertProblem(
      await t.app.inject({
        method: 'DELETE',
        url: `/v2.2/callback_subscription/${mine.subscription_id}`,
        headers: { authorization: basic(other.apiKey) },
      }),
      404,
      'not_found',
    )
    assert.ok(
      (await t.store.listSubscriptions(t.seller.seller_id)).some((s) => s.subscription_id === mine.subscription_id),
      'still there',
    )

    const trip = await createTrip(t)
    assertProblem(
      await t.app.inject({
        method: 'GET',
        url: '/v2.2/callback_subscription',
        headers: { authorization: bearer(trip.trip_access_token) },
      }),
      403,
      'forbidden',
    )
    assertProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v2.2/callback_subscription',
        headers: { authorization: bearer(trip.trip_access_token) },
        payload: { delivery_method: 'http', target: 'https://evil.example/x', event_name: 'order_status_changed' },
      }),
      403,
      'forbidden',
    )
  })
})
