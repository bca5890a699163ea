/** core/domain/cancellation.ts called directly: quoting, confirming and finishing the cancellation of ordered items. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  confirmCancellation,
  finishCancel,
  orderOfItem,
  ordersToCancel,
  quoteView,
  withQuote,
} from '../../../core/domain/cancellation.ts'
import type { TripRecord } from '../../../core/ports/records.ts'
import {
  ISO,
  NOW,
  later,
  priceOf,
  refuses,
  ticketItem,
  tripRecord,
  withItem,
  withOrder,
} from '../../helpers/records.ts'

const refund = (amount: number) => priceOf(amount).total
const EXPIRES = later(10 * 60_000)

/** A bag (o-1) and a seat (o-2) ordered and succeeded, a priority boarding (o-3) still queued, a bag in the basket not ordered. */
function ordered(): TripRecord {
  let trip = withItem(
    withItem(
      withItem(withItem(tripRecord(), { basket_item_id: 'bag-1' }), {
        basket_item_id: 'seat-1',
        display_name: 'Seat 1A',
        product_type: 'seat',
      }),
      { basket_item_id: 'pb-1', display_name: 'Priority boarding', product_type: 'priority_boarding' },
    ),
    { basket_item_id: 'open-1' },
  )
  trip = withOrder(
    withOrder(withOrder(trip, 'bag-1', 'o-1', 'succeeded'), 'seat-1', 'o-2', 'succeeded'),
    'pb-1',
    'o-3',
    'queued',
  )
  return trip
}

/** `ordered()` with a quote for o-1 and o-2: the bag refunds 25.00, the seat refunds 10.00. */
const quoted = (trip = ordered()) =>
  withQuote(
    trip,
    ordersToCancel(trip, ['bag-1', 'seat-1']),
    [
      { order_id: 'o-1', cancellable: true, refund: refund(2500) },
      { order_id: 'o-2', cancellable: true, refund: refund(1000) },
    ],
    EXPIRES,
  )

test('orderOfItem: the latest order of the item, or none', () => {
  const trip = ordered()
  assert.equal(orderOfItem(trip, 'bag-1')!.order_id, 'o-1')
  assert.equal(orderOfItem(trip, 'open-1'), undefined)
  const again = {
    ...trip,
    orders: {
      ...trip.orders,
      'o-9': { ...trip.orders['o-1']!, order_id: 'o-9', created_at: later(1000).toISOString() },
    },
  }
  assert.equal(orderOfItem(again, 'bag-1')!.order_id, 'o-9')
})

test('ordersToCancel: the succeeded orders of the items asked for', () => {
  assert.deepEqual(
    ordersToCancel(ordered(), ['seat-1', 'bag-1']).map((o) => o.order_id),
    ['o-2', 'o-1'],
  )
})

test('ordersToCancel: an item not of the trip is not found; one not ordered or not succeeded is not cancellable', () => {
  const trip = ordered()
  const missing = refuses(() => ordersToCancel(trip, ['bag-1', 'elsewhere']), 'not_found')
  assert.deepEqual(missing.errors, [{ path: '/basket_item_ids/1', message: 'is not an item of this trip' }])
  refuses(() => ordersToCancel(trip, ['__proto__']), 'not_found')
  const refused = refuses(() => ordersToCancel(trip, ['open-1', 'pb-1', 'bag-1']), 'not_cancellable')
  assert.deepEqual(refused.errors, [
    { path: '/basket_item_ids/0', message: 'Checked bag 23 kg has not been ordered' },
    {
      path: '/basket_item_ids/1',
      message: 'Priority boarding is queued: only an order that succeeded can be cancelled',
    },
  ])
  assert.match(refused.message, /^2 items cannot be cancelled/)
  assert.match(refuses(() => ordersToCancel(trip, ['pb-1']), 'not_cancellable').message, /^An item cannot be cancelled/)
})

test('withQuote: each order as the airline answered; one it did not answer is not cancellable', () => {
  const trip = ordered()
  const q = withQuote(
    trip,
    ordersToCancel(trip, ['bag-1', 'seat-1']),
    [{ order_id: 'o-1', cancellable: false, refund: null, reason: 'non_refundable' }],
    EXPIRES,
  )
  assert.deepEqual(quoteView(q), {
    quote_expires_at: EXPIRES.toISOString(),
    to_cancel: {
      'bag-1': {
        basket_item_id: 'bag-1',
        order_id: 'o-1',
        display_name: 'Checked bag 23 kg',
        cancellable: false,
        refund: null,
        reason: 'non_refundable',
      },
      'seat-1': {
        basket_item_id: 'seat-1',
        order_id: 'o-2',
        display_name: 'Seat 1A',
        cancellable: false,
        refund: null,
        reason: 'no_answer',
      },
    },
  })
  assert.deepEqual(quoteView(quoted()).to_cancel['bag-1'], {
    basket_item_id: 'bag-1',
    order_id: 'o-1',
    display_name: 'Checked bag 23 kg',
    cancellable: true,
    refund: refund(2500),
  })
  // Cancellable without a refund stated is not cancellable: no refund is guessed.
  const noRefund = withQuote(
    trip,
    ordersToCancel(trip, ['bag-1']),
    [{ order_id: 'o-1', cancellable: true, refund: null }],
    EXPIRES,
  )
  assert.equal(quoteView(noRefund).to_cancel['bag-1']!.cancellable, false)
  assert.deepEqual(quoteView(trip), { to_cancel: {}, quote_expires_at: null })
})

test('confirmCancellation: each order becomes cancelling under the cancellation, and the quote is used up', () => {
  const trip = quoted()
  const now = later(60_000)
  const r = confirmCancellation(trip, now, 'c-1')
  assert.deepEqual(r.cancellation, {
    cancellation_id: 'c-1',
    status: 'queued',
    order_ids: ['o-1', 'o-2'],
    created_at: now.toISOString(),
    completed_at: null,
  })
  assert.deepEqual(r.trip.orders['o-1'], {
    ...trip.orders['o-1']!,
    status: 'cancelling',
    cancellation_id: 'c-1',
    updated_at: now.toISOString(),
  })
  assert.equal(r.trip.orders['o-3']!.status, 'queued')
  assert.equal(r.trip.to_cancel, null)
  assert.deepEqual(r.trip.cancellations, { 'c-1': r.cancellation })
  assert.deepEqual(
    r.events.map((e) => [e.event_name, e.fulfillment_id, e.cancellation_id, e.data.previous_status]),
    [
      ['order_status_changed', 'f-1', 'c-1', 'succeeded'],
      ['order_status_changed', 'f-1', 'c-1', 'succeeded'],
    ],
  )
  refuses(() => confirmCancellation(r.trip, now, 'c-2'), 'not_cancellable')
})

test('confirmCancellation: refused without a quote, once it expired, or when an item is not cancellable or moved since', () => {
  refuses(() => confirmCancellation(ordered(), NOW, 'c-1'), 'not_cancellable')
  refuses(() => confirmCancellation(quoted(), EXPIRES, 'c-1'), 'quote_expired')
  assert.ok(confirmCancellation(quoted(), new Date(EXPIRES.getTime() - 1), 'c-1'))
  const trip = ordered()
  const partly = withQuote(
    trip,
    ordersToCancel(trip, ['bag-1', 'seat-1']),
    [{ order_id: 'o-1', cancellable: true, refund: refund(2500) }],
    EXPIRES,
  )
  const e = refuses(() => confirmCancellation(partly, NOW, 'c-1'), 'not_cancellable')
  assert.deepEqual(e.errors, [{ path: '/to_cancel/seat-1', message: 'Seat 1A is not cancellable (no_answer)' }])
  const moved = quoted()
  moved.orders = { ...moved.orders, 'o-1': { ...moved.orders['o-1']!, status: 'cancelled' } }
  assert.deepEqual(refuses(() => confirmCancellation(moved, NOW, 'c-1'), 'not_cancellable').errors, [
    { path: '/to_cancel/bag-1', message: 'Checked bag 23 kg is cancelled' },
  ])
})

test('finishCancel: the refund cancels an order; the cancellation completes with its total once none is cancelling', () => {
  const confirmed = confirmCancellation(quoted(), NOW, 'c-1').trip
  const now = later(1000)
  const one = finishCancel(confirmed, 'o-1', { ok: true, refund: refund(2500) }, now)
  assert.deepEqual(one.trip.orders['o-1'], {
    ...confirmed.orders['o-1']!,
    status: 'cancelled',
    refund: refund(2500),
    updated_at: now.toISOString(),
  })
  assert.equal(one.events.length, 1)
  assert.equal(one.trip.cancellations!['c-1']!.status, 'queued')
  const two = finishCancel(one.trip, 'o-2', { ok: false, reason: 'departed' }, now)
  assert.deepEqual(two.trip.orders['o-2'], {
    ...confirmed.orders['o-2']!,
    status: 'succeeded',
    cancellation_failure_reason: 'departed',
    updated_at: now.toISOString(),
  })
  assert.deepEqual(two.trip.cancellations!['c-1'], {
    cancellation_id: 'c-1',
    status: 'completed',
    order_ids: ['o-1', 'o-2'],
    created_at: ISO,
    completed_at: now.toISOString(),
  })
  assert.deepEqual(two.events[1], {
    event_name: 'cancellation_completed',
    cancellation_id: 'c-1',
    data: {
      status: 'partially_cancelled',
      refund_total: { amount: 2500, currency: 'EUR', decimal_places: 2 },
      orders: [
        { order_id: 'o-1', basket_item_id: 'bag-1', status: 'cancelled', refund: refund(2500) },
        { order_id: 'o-2', basket_item_id: 'seat-1', status: 'succeeded', cancellation_failure_reason: 'departed' },
      ],
    },
  })
})

test('finishCancel: all refused is a failed cancellation with no refund; all cancelled adds the refunds up', () => {
  const confirmed = confirmCancellation(quoted(), NOW, 'c-1').trip
  const refused = finishCancel(
    finishCancel(confirmed, 'o-1', { ok: false, reason: 'x' }, NOW).trip,
    'o-2',
    { ok: false, reason: 'x' },
    NOW,
  )
  assert.deepEqual([refused.events[1]!.data.status, refused.events[1]!.data.refund_total], ['failed', null])
  const done = finishCancel(
    finishCancel(confirmed, 'o-1', { ok: true, refund: refund(2500) }, NOW).trip,
    'o-2',
    { ok: true, refund: refund(1000) },
    NOW,
  )
  assert.deepEqual(
    [done.events[1]!.data.status, done.events[1]!.data.refund_total],
    ['cancelled', { amount: 3500, currency: 'EUR', decimal_places: 2 }],
  )
})

test('finishCancel: an answer for an order no longer cancelling changes nothing', () => {
  const confirmed = confirmCancellation(quoted(), NOW, 'c-1').trip
  const once = finishCancel(confirmed, 'o-1', { ok: true, refund: refund(2500) }, NOW).trip
  for (const order of ['o-1', 'o-3', 'o-9']) {
    const r = finishCancel(once, order, { ok: true, refund: refund(1) }, NOW)
    assert.equal(r.trip, once)
    assert.deepEqual(r.events, [])
  }
  assert.equal(ticketItem(once).order_id, undefined)
})
