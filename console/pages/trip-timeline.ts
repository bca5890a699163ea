/**
 * The trip's timeline (GET /admin/v1/trips/:trip_id/events): each entry with its time, what happened and its
 * facts, oldest first. A few pages are read at once and the rest on "Load more", so a trip with thousands of
 * entries does not hold the page up. Every fact is data and shown as text.
 */
import { html, nothing } from 'lit'
import type { Page } from '../../core/application/admin.ts'
import type { TripEventKind, TripEventRecord } from '../../core/ports/records.ts'
import { ConsoleError } from '../api.ts'
import { minorMoney, stamp } from '../format.ts'
import { TripSection } from './trip-section.ts'

/** Entries per request (the admin API's most), and requests per load: 600 entries before "Load more". */
const PAGE = 200
const PAGES_PER_LOAD = 3

/** Every kind an entry may be (a Record, so tsc fails here when records.ts adds one). */
const LABELS: Record<TripEventKind, string> = {
  trip_created: 'Trip created',
  search_started: 'Search started',
  search_ended: 'Search ended',
  basket_changed: 'Basket changed',
  validity_checked: 'Validity checked',
  fulfill_accepted: 'Fulfillment accepted',
  order_status: 'Order status',
  cancellation: 'Cancellation',
  supplier_call: 'Supplier call',
  webhook_attempt: 'Webhook attempt',
}

type Money = { amount: number; currency: string }
interface Line {
  product_type: string
  quantity: number
  price: Money
}
interface Checked {
  basket_item_id: string
  status: string
  price: Money
  reason?: string
}
/** The fields of every kind's detail (core/domain/trip-events.ts writes them), each optional: data, not trusted. */
interface Detail {
  journeys?: number
  passengers?: number
  tickets?: number
  currency?: string
  supplier?: string
  search_id?: string
  status?: string | number | null
  failure_reason?: string
  types?: Record<string, string>
  added?: Line[]
  removed?: Line[]
  items?: number | Checked[]
  total?: Money
  fulfillment_id?: string
  order_ids?: string[]
  payment_type?: string
  order_id?: string
  from?: string
  supplier_reference?: string
  supplier_refs?: { order_id?: string; service_ids?: string[] }
  refund?: Money
  cancellation_id?: string
  method?: string
  path?: string
  duration_ms?: number
  outcome?: string
  operation?: string
  request_id?: string
}

/** `n` things, in the singular or plural. */
const count = (n: number | undefined, one: string, many = `${one}s`) => `${n ?? 0} ${n === 1 ? one : many}`

const lines = (l: Line[] | undefined) =>
  (l ?? []).map((i) => `${i.quantity} × ${i.product_type} ${minorMoney(i.price)}`).join(', ')

/** An entry's key facts, one short text per fact. */
function facts(kind: string, d: Detail): string[] {
  switch (kind) {
    case 'trip_created':
      return [
        `${count(d.journeys, 'journey')}, ${count(d.passengers, 'passenger')}, ${count(d.tickets, 'ticket')}`,
        `currency ${d.currency}`,
        `supplier ${d.supplier}`,
      ]
    case 'search_started':
      return [`search ${d.search_id}`]
    case 'search_ended':
      return [
        `search ${d.search_id}: ${d.status}${d.failure_reason ? ` (${d.failure_reason})` : ''}`,
        ...Object.entries(d.types ?? {}).map(([type, outcome]) => `${type}: ${outcome}`),
      ]
    case 'basket_changed':
      return [
        ...(d.added?.length ? [`added ${lines(d.added)}`] : []),
        ...(d.removed?.length ? [`removed ${lines(d.removed)}`] : []),
        `${count(typeof d.items === 'number' ? d.items : undefined, 'item')}, total ${minorMoney(d.total)}`,
      ]
    case 'validity_checked':
      return (Array.isArray(d.items) ? d.items : []).map(
        (i) => `item ${i.basket_item_id}: ${i.status}${i.reason ? ` (${i.reason})` : ''}, ${minorMoney(i.price)}`,
      )
    case 'fulfill_accepted':
      return [`fulfillment ${d.fulfillment_id}`, count(d.order_ids?.length, 'order'), `payment ${d.payment_type}`]
    case 'order_status':
      return [
        `order ${d.order_id}: ${d.from ? `${d.from} → ` : ''}${d.status}${d.failure_reason ? ` (${d.failure_reason})` : ''}`,
        ...(d.supplier_reference ? [`supplier reference ${d.supplier_reference}`] : []),
        ...(d.supplier_refs?.order_id ? [`supplier order ${d.supplier_refs.order_id}`] : []),
        ...(d.supplier_refs?.service_ids?.length
          ? [`supplier services ${d.supplier_refs.service_ids.join(', ')}`]
          : []),
        ...(d.refund ? [`refund ${minorMoney(d.refund)}`] : []),
      ]
    case 'cancellation':
      return [`cancellation ${d.cancellation_id}: ${d.status}`, `orders ${(d.order_ids ?? []).join(', ')}`]
    case 'supplier_call':
      return [
        `${d.method} ${d.path}`,
        d.status === null ? 'no answer' : `HTTP ${d.status}`,
        `${d.duration_ms} ms`,
        `outcome ${d.outcome}`,
        `during ${d.operation}`,
        ...(d.request_id ? [`supplier request ${d.request_id}`] : []),
      ]
    default:
      // A kind this console does not know yet: its facts as they are, still text.
      return Object.entries(d).map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
  }
}

/** Whether an entry tells of something that went wrong, to mark it. */
const failed = (e: TripEventRecord) =>
  (e.kind === 'supplier_call' && e.detail.outcome !== 'ok') ||
  (e.kind === 'order_status' && e.detail.status === 'failed') ||
  (e.kind === 'search_ended' && e.detail.status === 'failed')

export class TripTimelineSection extends TripSection {
  static override properties = {
    ...TripSection.properties,
    events: { state: true },
    next: { state: true },
    error: { state: true },
    loading: { state: true },
  }
  events: TripEventRecord[] | null = null
  next: string | null = null
  error = ''
  loading = false

  override connectedCallback() {
    super.connectedCallback()
    void this.load()
  }

  private async load(after?: string) {
    this.loading = true
    this.error = ''
    try {
      let cursor = after
      for (let i = 0; i < PAGES_PER_LOAD; i++) {
        const page = await this.api.get<Page<TripEventRecord>>(`/trips/${encodeURIComponent(this.tripId)}/events`, {
          limit: String(PAGE),
          after: cursor,
        })
        this.events = [...(cursor ? (this.events ?? []) : []), ...page.data]
        this.next = page.next_after
        cursor = page.next_after ?? undefined
        if (!cursor) break
      }
    } catch (e) {
      this.error = e instanceof ConsoleError || e instanceof Error ? e.message : String(e)
    } finally {
      this.loading = false
    }
  }

  override render() {
    const events = this.events
    return html`<section aria-labelledby="timeline">
      <h2 id="timeline">Timeline</h2>
      <p role="status" class="muted">${this.loading ? 'Loading the timeline…' : nothing}</p>
      <p role="alert" class="error">${this.error || nothing}</p>
      ${
        events === null
          ? nothing
          : events.length === 0
            ? html`<p>No entries.</p>`
            : html`<ol class="timeline" aria-label="Timeline">
              ${events.map(
                (e) =>
                  html`<li class=${failed(e) ? 'failed' : ''}>
                    <span class="time">${stamp(e.at)}</span>
                    <strong>${LABELS[e.kind] ?? e.kind}</strong>
                    <span>${facts(e.kind, e.detail as Detail).join(' · ')}</span>
                  </li>`,
              )}
            </ol>`
      }
      ${
        this.next && !this.loading
          ? html`<p><button @click=${() => this.load(this.next!)}>Load more</button></p>`
          : nothing
      }
    </section>`
  }
}
customElements.define('svc-console-trip-timeline', TripTimelineSection)
