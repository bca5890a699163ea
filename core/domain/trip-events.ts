/**
 * A trip's timeline: what a write changed, as entries appended with it (TripEffects.events). They are worked
 * out from the trip before and after the write, so every way a trip changes (a request, a job, a retry)
 * records the same entries without each service naming them. Details copy named fields only (ids, amounts,
 * statuses, reasons): never a whole record, so no token, card field or passenger's document can slip in.
 */
import type {
  Order,
  SearchRecord,
  SupplierCallDetail,
  TripEventInput,
  TripEventKind,
  TripRecord,
} from '../ports/records.ts'
import type { BasketItem } from '../schemas/basket.ts'

const entry = (t: TripRecord, at: string, kind: TripEventKind, detail: Record<string, unknown>): TripEventInput => ({
  trip_id: t.trip_id,
  seller_id: t.seller_id,
  at,
  kind,
  detail,
})

const amount = (i: BasketItem) => ({ amount: i.price.total.amount, currency: i.price.total.currency })
const line = (i: BasketItem) => ({
  basket_item_id: i.basket_item_id,
  product_id: i.product_id,
  product_type: i.product_type,
  quantity: i.quantity,
  price: amount(i),
})

/** A search's outcome per product type searched: `ok`, or why it was not read. */
export function searchOutcome(s: SearchRecord): Record<string, unknown> {
  const failed = new Map((s.offers.partial_failures ?? []).map((f) => [f.product_type, f.failure_reason]))
  const types = Object.fromEntries(
    s.offers.types.map((type) => [
      type,
      s.status === 'failed' ? (s.offers.failure_reason ?? 'failed') : (failed.get(type) ?? 'ok'),
    ]),
  )
  return {
    search_id: s.search_id,
    status: s.status,
    ...(s.offers.failure_reason ? { failure_reason: s.offers.failure_reason } : {}),
    types,
  }
}

const orderDetail = (o: Order, from: Order | undefined) => ({
  order_id: o.order_id,
  basket_item_id: o.basket_item_id,
  status: o.status,
  ...(from ? { from: from.status } : {}),
  ...(o.failure_reason ? { failure_reason: o.failure_reason } : {}),
  ...(o.supplier_reference ? { supplier_reference: o.supplier_reference } : {}),
  ...(o.supplier_refs
    ? {
        supplier_refs: {
          ...(o.supplier_refs.order_id ? { order_id: o.supplier_refs.order_id } : {}),
          ...(o.supplier_refs.service_ids ? { service_ids: o.supplier_refs.service_ids } : {}),
          ...(o.supplier_refs.request_id ? { request_id: o.supplier_refs.request_id } : {}),
        },
      }
    : {}),
  ...(o.refund ? { refund: o.refund } : {}),
})

/**
 * The entries a write from `before` (null: the trip is created) to `after` records, at `at`. `search` is the
 * search the write stores, when it stores one (its outcome per product type is there, not in the trip).
 */
export function tripEvents(
  before: TripRecord | null,
  after: TripRecord,
  at: string,
  search?: SearchRecord,
): TripEventInput[] {
  const out: TripEventInput[] = []
  const e = (kind: TripEventKind, detail: Record<string, unknown>) => out.push(entry(after, at, kind, detail))
  if (!before)
    e('trip_created', {
      journeys: after.journeys.length,
      passengers: after.passengers.length,
      tickets: after.tickets.length,
      currency: after.currency,
      supplier: after.supplier ?? 'sandbox',
    })
  // A search starts when the trip names a new one (running, or answered at once), and ends with its answer.
  const started = (id: string | null | undefined) =>
    id && id !== before?.search_id && id !== before?.running_search_id ? id : undefined
  const startedId = started(after.running_search_id) ?? started(after.search_id)
  if (startedId) e('search_started', { search_id: startedId })
  if (search && search.status !== 'in_progress') e('search_ended', searchOutcome(search))

  const was = before?.basket ?? {}
  const now = after.basket
  const added = Object.values(now).filter((i) => !was[i.basket_item_id])
  const removed = Object.values(was).filter((i) => !now[i.basket_item_id])
  if (before && (added.length || removed.length)) {
    const total = Object.values(now).reduce((sum, i) => sum + i.price.total.amount, 0)
    e('basket_changed', {
      added: added.map(line),
      removed: removed.map(line),
      items: Object.keys(now).length,
      total: { amount: total, currency: after.currency },
    })
  }
  // A check's answer: the items whose validity it moved from `checking` (or from an earlier answer) to what it found.
  const checked = Object.values(now).filter((i) => {
    const old = was[i.basket_item_id]
    return old && old.validity.status !== i.validity.status && i.validity.status !== 'checking'
  })
  if (checked.length)
    e('validity_checked', {
      items: checked.map((i) => ({
        basket_item_id: i.basket_item_id,
        status: i.validity.status,
        price: amount(i),
        ...(i.validity.reason ? { reason: i.validity.reason } : {}),
      })),
    })
  for (const f of Object.values(after.fulfillments)) {
    if (!before?.fulfillments[f.fulfillment_id])
      e('fulfill_accepted', { fulfillment_id: f.fulfillment_id, order_ids: f.order_ids, payment_type: f.payment_type })
  }
  for (const o of Object.values(after.orders)) {
    const old = before?.orders[o.order_id]
    if (!old || old.status !== o.status) e('order_status', orderDetail(o, old))
  }
  for (const c of Object.values(after.cancellations ?? {})) {
    const old = before?.cancellations?.[c.cancellation_id]
    if (!old || old.status !== c.status)
      e('cancellation', { cancellation_id: c.cancellation_id, status: c.status, order_ids: c.order_ids })
  }
  return out
}

/** A supplier call as a timeline entry of its trip. */
export const supplierCallEvent = (
  trip: { trip_id: string; seller_id: string },
  at: string,
  call: SupplierCallDetail,
): TripEventInput => ({
  trip_id: trip.trip_id,
  seller_id: trip.seller_id,
  at,
  kind: 'supplier_call',
  detail: { ...call },
})
