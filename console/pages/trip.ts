/**
 * One trip, as the admin API shows it (GET /admin/v1/trips/:trip_id): a heading, then one element per
 * section, each given the trip's answer (pages/trip-section.ts): its record, its orders, its timeline
 * (pages/trip-timeline.ts) and its webhook deliveries (pages/trip-webhooks.ts). A new section is one more
 * element in TRIP_SECTIONS: it may read `detail` or fetch its own endpoint through `api` with `tripId`.
 */
import { html, nothing, type TemplateResult } from 'lit'
import type { TripRecord } from '../../core/ports/records.ts'
import type { ConsoleApi, ConsoleSessionInfo } from '../api.ts'
import { ConsolePage } from '../page.ts'
import { money, when } from '../format.ts'
import { TripSection, type TripDetail } from './trip-section.ts'
import './trip-timeline.ts'
import './trip-webhooks.ts'

export type { TripDetail }

/** Its journeys and segments, the passengers' names, and the basket. No contact, document or card field. */
export class TripRecordSection extends TripSection {
  override render() {
    const t = this.detail?.trip
    if (!t) return nothing
    const name = (p: TripRecord['passengers'][number]) =>
      [p.title, p.first_names, p.surname].filter(Boolean).join(' ') || '(no name yet)'
    return html`<section aria-labelledby="record">
      <h2 id="record">Record</h2>
      <dl class="card">
        <dt>Seller</dt>
        <dd><a class="id" href="/console/sellers/${encodeURIComponent(t.seller_id)}">${t.seller_id}</a></dd>
        <dt>Created</dt>
        <dd>${when(t.created_at)}</dd>
        <dt>Updated</dt>
        <dd>${when(t.updated_at)}</dd>
        <dt>Record locators</dt>
        <dd>${[...new Set(t.tickets.map((k) => k.access_details.record_locator).filter(Boolean))].join(', ') || '—'}</dd>
        <dt>Supplier</dt>
        <dd>${t.supplier ?? 'sandbox'}</dd>
      </dl>
      <h3>Segments</h3>
      <ul class="cards" aria-label="Segments">
        ${t.journeys.flatMap((j) =>
          j.segments.map(
            (s) =>
              html`<li>
                <strong>${s.marketing_airline}${s.marketing_flight_number}</strong>
                ${s.departure_airport} → ${s.arrival_airport}
                <div class="muted">${s.departure_time} – ${s.arrival_time}</div>
              </li>`,
          ),
        )}
      </ul>
      <h3>Passengers</h3>
      <ul class="cards" aria-label="Passengers">
        ${t.passengers.map(
          (p) => html`<li><span class="passenger">${name(p)}</span> <span class="muted">(${p.type})</span></li>`,
        )}
      </ul>
      <h3>Basket</h3>
      <ul class="cards" aria-label="Basket">
        ${Object.values(t.basket).map(
          (b) =>
            html`<li>
              ${b.quantity} × ${b.display_name} <span class="muted">(${b.product_type})</span>
              <div>${money(b.price.total)}${b.order_status ? ` · order ${b.order_status}` : ''}</div>
            </li>`,
        )}
      </ul>
    </section>`
  }
}
customElements.define('svc-console-trip-record', TripRecordSection)

/** Its orders with the supplier's references and their statuses. */
export class TripOrdersSection extends TripSection {
  override render() {
    const orders = this.detail?.orders
    if (!orders) return nothing
    return html`<section aria-labelledby="orders">
      <h2 id="orders">Orders</h2>
      ${
        orders.length === 0
          ? html`<p>No orders.</p>`
          : html`<ul class="cards" aria-label="Orders">
            ${orders.map(
              (o) =>
                html`<li>
                  <h3>${o.display_name}</h3>
                  <dl>
                    <dt>Order</dt>
                    <dd class="id">${o.order_id}</dd>
                    <dt>Status</dt>
                    <dd class="state">${o.status}${o.failure_reason ? ` (${o.failure_reason})` : ''}</dd>
                    <dt>Price</dt>
                    <dd>${money(o.price.total)}</dd>
                    <dt>Supplier reference</dt>
                    <dd class="id">${o.supplier_reference ?? '—'}</dd>
                    <dt>Supplier order</dt>
                    <dd class="id">${o.supplier_refs?.order_id ?? '—'}</dd>
                    <dt>Supplier services</dt>
                    <dd class="id">${o.supplier_refs?.service_ids?.join(', ') || '—'}</dd>
                    <dt>Updated</dt>
                    <dd>${when(o.updated_at)}</dd>
                  </dl>
                </li>`,
            )}
          </ul>`
      }
    </section>`
  }
}
customElements.define('svc-console-trip-orders', TripOrdersSection)

type Section = (
  api: ConsoleApi,
  tripId: string,
  detail: TripDetail,
  session: ConsoleSessionInfo | null,
) => TemplateResult

/** The sections of the trip page, in order: add one here to add it to the page. */
export const TRIP_SECTIONS: Section[] = [
  (api, id, d) => html`<svc-console-trip-record .api=${api} .tripId=${id} .detail=${d}></svc-console-trip-record>`,
  (api, id, d) => html`<svc-console-trip-orders .api=${api} .tripId=${id} .detail=${d}></svc-console-trip-orders>`,
  (api, id, d) => html`<svc-console-trip-timeline .api=${api} .tripId=${id} .detail=${d}></svc-console-trip-timeline>`,
  (api, id, d, s) =>
    html`<svc-console-trip-webhooks .api=${api} .tripId=${id} .detail=${d} .session=${s}></svc-console-trip-webhooks>`,
]

export class ConsoleTrip extends ConsolePage {
  static override properties = { ...ConsolePage.properties, detail: { state: true } }
  detail: TripDetail | null = null

  override connectedCallback() {
    super.connectedCallback()
    void this.load()
  }

  private async load() {
    const d = await this.run(() => this.api.get<TripDetail>(`/trips/${encodeURIComponent(this.params.id!)}`))
    if (d) this.detail = d
  }

  override render() {
    const id = this.params.id ?? ''
    return html`<h1 tabindex="-1">Trip <span class="id">${id}</span></h1>
      ${this.renderStatus()} ${this.detail ? TRIP_SECTIONS.map((s) => s(this.api, id, this.detail!, this.session)) : nothing}`
  }
}
customElements.define('svc-console-trip', ConsoleTrip)
