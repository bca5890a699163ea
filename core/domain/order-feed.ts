/**
 * The orders feed (GET /v2.2/orders, docs/decisions.md "After-sale"): what a seller reconciles its books with.
 *
 * Orders live in their trip's document; the store keeps beside it one row per order, as the feed shows it,
 * written in the same transaction as the trip (TripEffects.orders). Each write that creates or changes
 * orders gives them its seller's next change numbers, and the feed lists orders by that number.
 *
 * Why a number and not (updated_at, order_id), which the design names: updated_at is the clock of the
 * instance that wrote, read before its transaction commits. Two writers can commit in the other order
 * than their clocks say (or their clocks disagree), and a client that has paged past 10:00:05 would then
 * never see a change stamped 10:00:04 that committed after it read. The change number is taken from a
 * per-seller counter inside the write's transaction (the counter's row stays locked until commit), so
 * numbers follow commit order: a change never lands behind a cursor already handed out. Within a write,
 * and wherever the clocks agree, number order is (updated_at, order_id) order.
 */
import { base64url } from 'jose'
import type { Order, OrderFeedItem, TripRecord } from '../ports/records.ts'
import { ORDER_STATUSES, type OrderStatus } from '../schemas/trip.ts'
import { ProblemError } from '../shared/errors.ts'
import { sha256Hex } from '../shared/crypto.ts'
import { own } from '../shared/safe-maps.ts'

/** An order as the feed shows it: with its trip and what kind of product it booked. */
export function feedItem(trip: TripRecord, order: Order): OrderFeedItem {
  const item = own(trip.basket, order.basket_item_id)
  // An order is made from a basket item, which stays (read-only) once ordered; without it there is no
  // product type to report, and leaving the order out of the feed would be the one thing it must not do.
  if (!item || item.product_type === 'ticket')
    throw new Error(`order ${order.order_id} names no ancillary of trip ${trip.trip_id}`)
  return {
    order_id: order.order_id,
    trip_id: trip.trip_id,
    basket_item_id: order.basket_item_id,
    display_name: order.display_name,
    product_type: item.product_type,
    price: order.price,
    status: order.status,
    ...(order.failure_reason ? { failure_reason: order.failure_reason } : {}),
    ...(order.supplier_reference ? { supplier_reference: order.supplier_reference } : {}),
    ...(order.supplier_refs ? { supplier_refs: order.supplier_refs } : {}),
    ...(order.refund ? { refund: order.refund } : {}),
    updated_at: order.updated_at,
  }
}

/**
 * The orders of `after` that are new or differ from `before`, as the feed shows them, by updated_at then
 * order_id: the order in which the store numbers them. Rules return a new object for an order they move
 * and keep the others, so most are passed over by identity.
 */
export function changedOrders(before: TripRecord | undefined, after: TripRecord): OrderFeedItem[] {
  const changed: OrderFeedItem[] = []
  for (const [id, order] of Object.entries(after.orders)) {
    const was = before ? own(before.orders, id) : undefined
    if (was === order || (was !== undefined && JSON.stringify(was) === JSON.stringify(order))) continue
    changed.push(feedItem(after, order))
  }
  return changed.sort((a, b) =>
    a.updated_at < b.updated_at
      ? -1
      : a.updated_at > b.updated_at
        ? 1
        : a.order_id < b.order_id
          ? -1
          : a.order_id > b.order_id
            ? 1
            : 0,
  )
}

// ---------------------------------------------------------------- cursors

/** Where a page of the feed ended, and the filters it was read with. */
export interface FeedPosition {
  /** The change number of the last order of the page (0 before the first). */
  seq: number
  status: OrderStatus | null
  /** Canonical ISO (toISOString), or null. */
  since: string | null
}

const CURSOR_VERSION = 1

/**
 * A cursor's checksum: it names the seller, so one seller's cursor is refused for another, and a cursor
 * edited by hand is refused rather than read as some other place. Not a secret: all a forged cursor could
 * do is start the caller's own feed elsewhere, which `updated_since` does anyway.
 */
const checksum = (sellerId: string, body: string) => sha256Hex(`svc orders cursor\n${sellerId}\n${body}`).slice(0, 16)

/** The opaque cursor of a position: base64url of the version, the position and its checksum. */
export function writeCursor(sellerId: string, pos: FeedPosition): string {
  const body = JSON.stringify([CURSOR_VERSION, pos.seq, pos.status, pos.since])
  return base64url.encode(`${body}.${checksum(sellerId, body)}`)
}

const badCursor = () =>
  new ProblemError(
    'validation_error',
    'The query string is invalid: /cursor is not a cursor this API gave you (pass next_cursor exactly as it came, with the same API key).',
    [{ path: '/cursor', message: 'is not a cursor this API gave you' }],
  )

/** The position a cursor names; a cursor that is not one of ours, or another seller's, is a 400. */
export function readCursor(sellerId: string, cursor: string): FeedPosition {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(cursor))
  } catch {
    throw badCursor()
  }
  const dot = text.lastIndexOf('.')
  const body = text.slice(0, dot)
  if (dot < 0 || text.slice(dot + 1) !== checksum(sellerId, body)) throw badCursor()
  let v: unknown
  try {
    v = JSON.parse(body)
  } catch {
    throw badCursor()
  }
  if (!Array.isArray(v) || v.length !== 4 || v[0] !== CURSOR_VERSION) throw badCursor()
  const [, seq, status, since] = v as unknown[]
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) throw badCursor()
  if (status !== null && !ORDER_STATUSES.includes(status as OrderStatus)) throw badCursor()
  if (since !== null && (typeof since !== 'string' || canonicalSince(since) !== since)) throw badCursor()
  return { seq, status: status as OrderStatus | null, since: since as string | null }
}

/** The latest instant every store keeps as it is (SQLite compares ISO text: a year past 9999 would not sort). */
const LATEST = Date.parse('9999-12-31T23:59:59.999Z')

/** `updated_since` as an instant in canonical form, or null when it names none (a leap second, a year past 9999). */
export function canonicalSince(since: string): string | null {
  const t = Date.parse(since)
  return Number.isFinite(t) && t <= LATEST ? new Date(t).toISOString() : null
}
