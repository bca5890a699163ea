/** core/domain/order-feed.ts called directly: the feed's view of orders, what a write changed, and its cursors. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { base64url } from 'jose'
import {
  canonicalSince,
  changedOrders,
  feedItem,
  readCursor,
  writeCursor,
  type FeedPosition,
} from '../../../core/domain/order-feed.ts'
import { sha256Hex } from '../../../core/shared/crypto.ts'
import { moveOrder } from '../../../core/domain/fulfillment.ts'
import type { TripRecord } from '../../../core/ports/records.ts'
import { ISO, later, priceOf, refuses, ticketItem, tripRecord, withItem, withOrder } from '../../helpers/records.ts'

const text = (cursor: string) => new TextDecoder().decode(base64url.decode(cursor))

const trip = (): TripRecord =>
  withOrder(
    withOrder(
      withItem(withItem(tripRecord(), { basket_item_id: 'bag-1' }), {
        basket_item_id: 'seat-1',
        display_name: 'Seat 1A',
        product_type: 'seat',
      }),
      'bag-1',
      'o-2',
      'queued',
    ),
    'seat-1',
    'o-1',
    'queued',
  )

test('feedItem: the order with its trip and product type; a refund once it has one', () => {
  const t = trip()
  assert.deepEqual(feedItem(t, t.orders['o-2']!), {
    order_id: 'o-2',
    trip_id: t.trip_id,
    basket_item_id: 'bag-1',
    display_name: 'Checked bag 23 kg',
    product_type: 'bag',
    price: priceOf(3000),
    status: 'queued',
    updated_at: ISO,
  })
  const refunded = { ...t.orders['o-1']!, status: 'cancelled' as const, refund: priceOf(900).total }
  assert.deepEqual(feedItem(t, refunded).refund, priceOf(900).total)
  assert.equal(feedItem(t, refunded).product_type, 'seat')
})

test('feedItem: an order naming no ancillary of the trip is a bug, not a row left out', () => {
  const t = trip()
  assert.throws(() => feedItem(t, { ...t.orders['o-1']!, basket_item_id: 'gone' }), /names no ancillary/)
  assert.throws(
    () => feedItem(t, { ...t.orders['o-1']!, basket_item_id: ticketItem(t).basket_item_id }),
    /names no ancillary/,
  )
})

test('changedOrders: every order of a new trip; then only those that differ, by updated_at then order_id', () => {
  const t = trip()
  assert.deepEqual(
    changedOrders(undefined, t).map((o) => o.order_id),
    ['o-1', 'o-2'],
    'same updated_at: by order_id',
  )
  assert.deepEqual(changedOrders(t, t), [])
  assert.deepEqual(
    changedOrders(t, structuredClone(t)),
    [],
    'equal orders are not changes, though not the same objects',
  )
  const moved = moveOrder(moveOrder(t, 'o-1', 'in_progress', later(2000)).trip, 'o-2', 'in_progress', later(1000)).trip
  assert.deepEqual(
    changedOrders(t, moved).map((o) => [o.order_id, o.status, o.updated_at]),
    [
      ['o-2', 'in_progress', later(1000).toISOString()],
      ['o-1', 'in_progress', later(2000).toISOString()],
    ],
  )
  const one = moveOrder(t, 'o-2', 'succeeded', later(1)).trip
  assert.deepEqual(
    changedOrders(t, one).map((o) => o.order_id),
    ['o-2'],
  )
})

test('cursors: a position written is read back by the same seller', () => {
  const positions: FeedPosition[] = [
    { seq: 0, status: null, since: null },
    { seq: 42, status: 'succeeded', since: '2026-11-22T10:00:00.000Z' },
  ]
  for (const pos of positions) assert.deepEqual(readCursor('seller-1', writeCursor('seller-1', pos)), pos)
  assert.notEqual(writeCursor('seller-1', positions[1]!), writeCursor('seller-2', positions[1]!))
})

test("cursors: another seller's, an edited or a made-up cursor is a validation error on /cursor", () => {
  const cursor = writeCursor('seller-1', { seq: 7, status: null, since: null })
  const e = refuses(() => readCursor('seller-2', cursor), 'validation_error')
  assert.deepEqual(e.errors, [{ path: '/cursor', message: 'is not a cursor this API gave you' }])
  const [body, sum] = text(cursor).split('.') as [string, string]
  assert.equal(body, '[1,7,null,null]')
  refuses(() => readCursor('seller-1', base64url.encode(`[1,8,null,null].${sum}`)), 'validation_error')
  for (const bad of ['', 'not-base64!', base64url.encode('no dot'), base64url.encode(new Uint8Array([0xff, 0xfe]))])
    refuses(() => readCursor('seller-1', bad), 'validation_error')
})

test('cursors: a cursor signed right but of another shape is refused too', () => {
  // The checksum as order-feed.ts makes it: the shape checks after it are what this test reaches.
  const signed = (body: string) =>
    base64url.encode(`${body}.${sha256Hex(`svc orders cursor\nseller-1\n${body}`).slice(0, 16)}`)
  assert.deepEqual(
    readCursor('seller-1', signed('[1,3,"failed",null]')),
    { seq: 3, status: 'failed', since: null },
    'the checksum is made as order-feed.ts makes it',
  )
  for (const body of [
    '[2,1,null,null]',
    '[1,-1,null,null]',
    '[1,1.5,null,null]',
    '[1,1,"lost",null]',
    '[1,1,null,"2026-11-22"]',
    '[1,1,null]',
    '{"seq":1}',
    'not json',
  ]) {
    refuses(() => readCursor('seller-1', signed(body)), 'validation_error')
  }
})

test('canonicalSince: an instant in canonical form, or null', () => {
  assert.equal(canonicalSince('2026-11-22T11:00:00+01:00'), '2026-11-22T10:00:00.000Z')
  assert.equal(canonicalSince('9999-12-31T23:59:59.999Z'), '9999-12-31T23:59:59.999Z')
  assert.equal(canonicalSince('+010000-01-01T00:00:00.000Z'), null)
  assert.equal(canonicalSince('yesterday'), null)
})
