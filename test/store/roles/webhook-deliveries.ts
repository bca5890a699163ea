/** The store contract of WebhookDeliveryStore: webhook deliveries, their attempts, pages, counts, retention. */
import assert from 'node:assert/strict'
import type { PurgeCutoffs, WebhookAttemptRecord, WebhookDeliveryRecord } from '../../../core/ports/records.ts'
import { at, iso, seller, type ContractContext } from '../fixtures.ts'

const delivery = (delivery_id: string, over: Partial<WebhookDeliveryRecord> = {}): WebhookDeliveryRecord => ({
  delivery_id,
  event_id: `e-${delivery_id}`,
  event_name: 'order_status_changed',
  subscription_id: 'w1',
  seller_id: 's1',
  trip_id: 't1',
  order_id: 'o1',
  resend_of: null,
  state: 'pending',
  created_at: iso(0),
  updated_at: iso(0),
  event: { event_id: `e-${delivery_id}`, event_name: 'order_status_changed', data: { order: { order_id: 'o1' } } },
  attempts: [],
  ...over,
})

const attempt = (n: number, over: Partial<WebhookAttemptRecord> = {}): WebhookAttemptRecord => ({
  attempt: n,
  at: iso(n),
  status: 500,
  error: null,
  duration_ms: 12,
  response_body: `boom ${n} ✓`,
  ...over,
})

const without = ({ attempts: _attempts, ...d }: WebhookDeliveryRecord) => d

export function webhookDeliveriesContract({ it }: ContractContext): void {
  it('deliveries: the first attempt inserts, later ones append and set the state; the rest stays', async (s) => {
    await s.createSeller(seller('s1'))
    const d1 = delivery('d1')
    await s.recordWebhookAttempt(without({ ...d1, state: 'failed', updated_at: iso(1) }), attempt(1))
    assert.deepEqual(await s.getWebhookDelivery('d1'), {
      ...d1,
      state: 'failed',
      updated_at: iso(1),
      attempts: [attempt(1)],
    })
    // What a later attempt says of the delivery but its state and updated_at is not taken.
    await s.recordWebhookAttempt(
      without({ ...d1, state: 'failed', updated_at: iso(2), trip_id: 'other', created_at: iso(9) }),
      attempt(2, { status: null, error: 'connect ECONNREFUSED', response_body: null }),
    )
    await s.recordWebhookAttempt(
      without({ ...d1, state: 'succeeded', updated_at: iso(3) }),
      attempt(3, { status: 200, response_body: '' }),
    )
    const got = await s.getWebhookDelivery('d1')
    assert.deepEqual(got, {
      ...d1,
      state: 'succeeded',
      updated_at: iso(3),
      attempts: [
        attempt(1),
        attempt(2, { status: null, error: 'connect ECONNREFUSED', response_body: null }),
        attempt(3, { status: 200, response_body: '' }),
      ],
    })
    got!.attempts.pop()
    assert.equal((await s.getWebhookDelivery('d1'))!.attempts.length, 3, 'a copy')
    assert.equal(await s.getWebhookDelivery('nope'), undefined)
    await assert.rejects(s.recordWebhookAttempt(without(delivery('d9', { seller_id: 'ghost' })), attempt(1)))
  })

  it('deliveries: added once, pending; a first attempt then updates it; given up only while not ended', async (s) => {
    await s.createSeller(seller('s1'))
    const resend = delivery('d2', { resend_of: 'd1', created_at: iso(5), updated_at: iso(5) })
    assert.equal(await s.addWebhookDelivery(resend), true)
    assert.equal(await s.addWebhookDelivery({ ...resend, state: 'succeeded' }), false, 'its id is taken')
    assert.deepEqual(await s.getWebhookDelivery('d2'), resend)
    await s.recordWebhookAttempt(without({ ...resend, state: 'failed', updated_at: iso(6) }), attempt(1))
    assert.deepEqual(await s.getWebhookDelivery('d2'), {
      ...resend,
      state: 'failed',
      updated_at: iso(6),
      attempts: [attempt(1)],
    })
    assert.equal(await s.giveUpWebhookDelivery('d2', iso(7)), true)
    assert.equal((await s.getWebhookDelivery('d2'))!.state, 'given_up')
    assert.equal((await s.getWebhookDelivery('d2'))!.updated_at, iso(7))
    assert.equal(await s.giveUpWebhookDelivery('d2', iso(8)), false, 'given up once')
    assert.equal(await s.giveUpWebhookDelivery('nope', iso(8)), false)
    await s.recordWebhookAttempt(without({ ...resend, state: 'succeeded', updated_at: iso(9) }), attempt(2))
    assert.equal(await s.giveUpWebhookDelivery('d2', iso(10)), false, 'a delivery that succeeded is not given up')
  })

  it('deliveries: paged by id, filtered by seller, state, subscription and trip; counted per subscription and state', async (s) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    const rows = [
      delivery('d1', { state: 'succeeded' }),
      delivery('d2', { state: 'given_up' }),
      delivery('d3', { state: 'succeeded', subscription_id: 'w2' }),
      delivery('d4', { seller_id: 's2', subscription_id: 'v1', state: 'succeeded' }),
      delivery('d5', { state: 'succeeded', trip_id: 't2' }),
    ]
    for (const d of rows) assert.equal(await s.addWebhookDelivery(d), true)
    const ids = (l: WebhookDeliveryRecord[]) => l.map((d) => d.delivery_id)
    assert.deepEqual(ids(await s.findWebhookDeliveries({ limit: 10 })), ['d1', 'd2', 'd3', 'd4', 'd5'])
    assert.deepEqual(ids(await s.findWebhookDeliveries({ limit: 2 })), ['d1', 'd2'])
    assert.deepEqual(ids(await s.findWebhookDeliveries({ after: 'd2', limit: 2 })), ['d3', 'd4'])
    assert.deepEqual(ids(await s.findWebhookDeliveries({ sellerId: 's1', limit: 10 })), ['d1', 'd2', 'd3', 'd5'])
    assert.deepEqual(ids(await s.findWebhookDeliveries({ sellerId: 's1', state: 'succeeded', limit: 10 })), [
      'd1',
      'd3',
      'd5',
    ])
    assert.deepEqual(
      ids(
        await s.findWebhookDeliveries({
          sellerId: 's1',
          state: 'succeeded',
          subscriptionId: 'w1',
          after: 'd1',
          limit: 10,
        }),
      ),
      ['d5'],
    )
    assert.deepEqual(ids(await s.findWebhookDeliveries({ subscriptionId: 'v1', limit: 10 })), ['d4'])
    assert.deepEqual(ids(await s.findWebhookDeliveries({ sellerId: 's1', tripId: 't1', limit: 10 })), [
      'd1',
      'd2',
      'd3',
    ])
    assert.deepEqual(ids(await s.findWebhookDeliveries({ sellerId: 's1', tripId: 't1', after: 'd1', limit: 1 })), [
      'd2',
    ])
    assert.deepEqual(ids(await s.findWebhookDeliveries({ sellerId: 's1', tripId: 't2', limit: 10 })), ['d5'])
    assert.deepEqual(ids(await s.findWebhookDeliveries({ sellerId: 's2', tripId: 't2', limit: 10 })), [])
    assert.deepEqual(ids(await s.findWebhookDeliveries({ tripId: 't1', state: 'given_up', limit: 10 })), ['d2'])
    assert.deepEqual(ids(await s.findWebhookDeliveries({ state: 'failed', limit: 10 })), [])
    assert.deepEqual(await s.findWebhookDeliveries({ sellerId: 's2', limit: 10 }), [rows[3]])

    assert.deepEqual(await s.countWebhookDeliveries('s1'), [
      { subscription_id: 'w1', state: 'given_up', count: 1 },
      { subscription_id: 'w1', state: 'succeeded', count: 2 },
      { subscription_id: 'w2', state: 'succeeded', count: 1 },
    ])
    assert.deepEqual(await s.countWebhookDeliveries('ghost'), [])
  })

  it('deliveries: retention takes the ended ones created before the cutoff, never one still being tried', async (s) => {
    await s.createSeller(seller('s1'))
    for (const d of [
      delivery('old-ok', { state: 'succeeded' }),
      delivery('old-gone', { state: 'given_up' }),
      delivery('old-failed', { state: 'failed' }),
      delivery('old-pending', { state: 'pending' }),
      delivery('new-ok', { state: 'succeeded', created_at: iso(100) }),
    ])
      await s.addWebhookDelivery(d)
    const never = at(-1_000_000)
    const cutoffs: PurgeCutoffs = {
      tripsBefore: never,
      searchesBefore: never,
      seatMapsBefore: never,
      tokensBefore: never,
      idempotencyBefore: never,
      jobsBefore: never,
      signingKeysBefore: never,
      deliveriesBefore: at(50),
    }
    assert.equal((await s.purge(cutoffs)).webhook_deliveries, 2)
    const left = (await s.findWebhookDeliveries({ limit: 10 })).map((d) => d.delivery_id)
    assert.deepEqual(left, ['new-ok', 'old-failed', 'old-pending'])
  })
}
