/**
 * Orders across sellers: a chart of the last 24 hours by status, then the orders filtered by status and
 * failure reason, a page at a time.
 */
import { html, nothing } from 'lit'
import type { OrdersByHour, Page } from '../../core/application/admin.ts'
import type { OrderFeedItem } from '../../core/ports/records.ts'
import type { OrderStatus } from '../../core/schemas/basket.ts'
import { ConsolePage } from '../page.ts'
import { clock, money, when } from '../format.ts'
import type { ChartSeries, Tone } from '../chart.ts'
import '../chart.ts'

/** Every status an order may be in (a Record, so tsc fails here when the contract adds one). */
const STATUSES: Record<OrderStatus, string> = {
  awaiting_ticketing: 'Awaiting ticketing',
  queued: 'Queued',
  in_progress: 'In progress',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelling: 'Cancelling',
  cancelled: 'Cancelled',
}

/** Each status's tone: failed red, succeeded green, the ones on their way in colours of their own. */
const TONES: Record<OrderStatus, Tone> = {
  awaiting_ticketing: 'warning',
  queued: 'muted',
  in_progress: 'primary',
  succeeded: 'success',
  failed: 'danger',
  cancelling: 'hatched',
  cancelled: 'strong',
}

type ListedOrder = OrderFeedItem & { seller_id: string }

/** The chart's series: the statuses with orders in the day (every status when none has). */
function statusSeries(byHour: OrdersByHour): ChartSeries[] {
  const all = Object.keys(STATUSES) as OrderStatus[]
  const seen = all.filter((s) => byHour.buckets.some((b) => b.counts[s] > 0))
  return (seen.length ? seen : all).map((s) => ({ key: s, label: STATUSES[s], tone: TONES[s] }))
}

export class ConsoleOrders extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    orders: { state: true },
    next: { state: true },
    byHour: { state: true },
  }
  orders: ListedOrder[] | null = null
  byHour: OrdersByHour | null = null
  next: string | null = null
  private filters: { status?: string; failure_reason?: string } = {}

  override connectedCallback() {
    super.connectedCallback()
    void this.load()
    void this.run(async () => {
      this.byHour = await this.api.get<OrdersByHour>('/orders/by-hour')
    })
  }

  private renderChart(h: OrdersByHour) {
    return html`<svc-console-chart heading="Orders by status, last 24 hours, by the hour of their last change (UTC)"
        unit="orders" .series=${statusSeries(h)} empty="No order changed in the last 24 hours."
        .buckets=${h.buckets.map((b) => ({ label: clock(b.start), values: b.counts }))}></svc-console-chart>
      ${h.truncated ? html`<p class="muted">Of the latest ${h.orders} changes only.</p>` : nothing}`
  }

  private async load(after?: string) {
    const page = await this.run(() => this.api.get<Page<ListedOrder>>('/orders', { ...this.filters, after }))
    if (!page) return
    this.orders = after ? [...(this.orders ?? []), ...page.data] : page.data
    this.next = page.next_after
  }

  private filter(e: SubmitEvent) {
    e.preventDefault()
    const form = e.target as HTMLFormElement
    const value = (n: string) => (form.elements.namedItem(n) as HTMLInputElement).value.trim() || undefined
    this.filters = { status: value('status'), failure_reason: value('failure_reason') }
    void this.load()
  }

  override render() {
    return html`<h1 tabindex="-1">Orders</h1>
      ${this.byHour ? this.renderChart(this.byHour) : nothing}
      <form class="filters" @submit=${this.filter} aria-label="Filter orders">
        <label
          >Status
          <select name="status">
            <option value="">Any</option>
            ${Object.entries(STATUSES).map(([v, label]) => html`<option value=${v}>${label}</option>`)}
          </select></label
        >
        <label
          >Failure reason
          <input name="failure_reason" pattern="[a-z0-9_]{1,64}" placeholder="e.g. price_changed" autocomplete="off"
        /></label>
        <button class="primary" type="submit">Filter</button>
      </form>
      ${this.renderStatus()}
      ${
        this.orders === null
          ? nothing
          : this.orders.length === 0
            ? html`<p>No orders match.</p>`
            : html`<ul class="cards" aria-label="Orders">
              ${this.orders.map(
                (o) =>
                  html`<li>
                    <h3>${o.display_name}</h3>
                    <dl>
                      <dt>Order</dt>
                      <dd class="id">${o.order_id}</dd>
                      <dt>Trip</dt>
                      <dd><a class="id" href="/console/trips/${encodeURIComponent(o.trip_id)}">${o.trip_id}</a></dd>
                      <dt>Seller</dt>
                      <dd class="id">${o.seller_id}</dd>
                      <dt>Status</dt>
                      <dd class="state">${o.status}${o.failure_reason ? ` (${o.failure_reason})` : ''}</dd>
                      <dt>Price</dt>
                      <dd>${money(o.price?.total)}</dd>
                      <dt>Supplier reference</dt>
                      <dd class="id">${o.supplier_reference ?? o.supplier_refs?.order_id ?? '—'}</dd>
                      <dt>Updated</dt>
                      <dd>${when(o.updated_at)}</dd>
                    </dl>
                  </li>`,
              )}
            </ul>`
      }
      ${this.next ? html`<p><button @click=${() => this.load(this.next!)}>More orders</button></p>` : ''}`
  }
}
customElements.define('svc-console-orders', ConsoleOrders)
