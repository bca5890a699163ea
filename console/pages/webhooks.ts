/**
 * Webhooks: deliveries filtered by seller and state, each with its last attempt, its attempts and Resend
 * (pages/deliveries.ts); with a seller chosen, its subscriptions with their deliveries counted by state, and
 * Send test event (a test_ping to each subscription), asked in a dialog as the seller page's writes are.
 */
import { html, nothing } from 'lit'
import type { Page, SellerView } from '../../core/application/admin.ts'
import type { WebhookDeliveryState } from '../../core/ports/records.ts'
import { ConsolePage } from '../page.ts'
import { when } from '../format.ts'
import type { ConsoleDeliveries, DeliverySummary } from './deliveries.ts'
import './deliveries.ts'

/** Every state a delivery may be in (a Record, so tsc fails here when records.ts adds one). */
const STATES: Record<WebhookDeliveryState, string> = {
  failed: 'Failed (to be retried)',
  given_up: 'Given up',
  succeeded: 'Succeeded',
  pending: 'Pending',
}

interface Subscription {
  subscription_id: string
  event_name: string
  target: string
  created_at: string
  deliveries: Record<WebhookDeliveryState, number>
}

export class ConsoleWebhooks extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    sellers: { state: true },
    filters: { state: true },
    subscriptions: { state: true },
    outcome: { state: true },
  }
  sellers: SellerView[] = []
  filters: { seller_id?: string; state?: string } = {}
  subscriptions: Subscription[] | null = null
  outcome = ''

  override connectedCallback() {
    super.connectedCallback()
    void this.run(async () => {
      this.sellers = (await this.api.get<Page<SellerView>>('/sellers', { limit: '200' })).data
    })
  }

  private filter(e: SubmitEvent) {
    e.preventDefault()
    const form = e.target as HTMLFormElement
    const value = (n: string) => (form.elements.namedItem(n) as HTMLSelectElement).value || undefined
    this.filters = { seller_id: value('seller_id'), state: value('state') }
    this.outcome = ''
    this.subscriptions = null
    void this.loadSubscriptions()
  }

  private async loadSubscriptions() {
    const id = this.filters.seller_id
    if (!id) return
    const r = await this.run(() =>
      this.api.get<{ subscriptions: Subscription[] }>(`/sellers/${encodeURIComponent(id)}/webhooks`),
    )
    if (r) this.subscriptions = r.subscriptions
  }

  private get dialog() {
    return this.renderRoot.querySelector('dialog')!
  }

  private async sendTest(e: SubmitEvent) {
    e.preventDefault()
    this.dialog.close()
    const id = this.filters.seller_id!
    const r = await this.run(() =>
      this.api.post<{ deliveries: DeliverySummary[] }>(`/sellers/${encodeURIComponent(id)}/webhooks/test`, {}),
    )
    if (!r) return
    this.outcome = `A test event was queued as ${r.deliveries.length} ${r.deliveries.length === 1 ? 'delivery' : 'deliveries'}: ${r.deliveries.map((d) => d.delivery_id).join(', ')}.`
    await this.renderRoot.querySelector<ConsoleDeliveries>('svc-console-deliveries')?.load()
    await this.loadSubscriptions()
  }

  private renderSubscriptions(readOnly: boolean) {
    const subs = this.subscriptions
    if (!this.filters.seller_id || subs === null) return nothing
    return html`<h2>Subscriptions</h2>
      ${
        subs.length === 0
          ? html`<p>The seller has no webhook subscription.</p>`
          : html`<ul class="cards" aria-label="Subscriptions">
            ${subs.map(
              (s) =>
                html`<li>
                  <h3>${s.event_name} <span class="id muted">${s.subscription_id}</span></h3>
                  <dl>
                    <dt>Target</dt>
                    <dd class="id">${s.target}</dd>
                    <dt>Created</dt>
                    <dd>${when(s.created_at)}</dd>
                    <dt>Deliveries</dt>
                    <dd>${Object.entries(s.deliveries)
                      .map(([state, n]) => `${state} ${n}`)
                      .join(', ')}</dd>
                  </dl>
                </li>`,
            )}
          </ul>`
      }
      ${
        readOnly || subs.length === 0
          ? nothing
          : html`<div class="actions"><button @click=${() => this.dialog.showModal()}>Send test event</button></div>`
      }`
  }

  override render() {
    const readOnly = this.session?.operator.read_only ?? true
    return html`<h1 tabindex="-1">Webhooks</h1>
      <form class="filters" @submit=${this.filter} aria-label="Filter deliveries">
        <label
          >Seller
          <select name="seller_id">
            <option value="">Any</option>
            ${this.sellers.map((s) => html`<option value=${s.seller_id}>${s.name} (${s.seller_id})</option>`)}
          </select></label
        >
        <label
          >State
          <select name="state">
            <option value="">Any</option>
            ${Object.entries(STATES).map(([v, label]) => html`<option value=${v}>${label}</option>`)}
          </select></label
        >
        <button class="primary" type="submit">Filter</button>
      </form>
      ${this.renderStatus()}
      <p role="status">${this.outcome || nothing}</p>
      ${this.renderSubscriptions(readOnly)}
      <h2>Deliveries</h2>
      <svc-console-deliveries
        .api=${this.api}
        .session=${this.session}
        .query=${this.filters}
        @deliveries-changed=${() => this.loadSubscriptions()}
      ></svc-console-deliveries>
      <dialog aria-labelledby="test-title">
        <h2 id="test-title">Send a test event</h2>
        <form @submit=${this.sendTest}>
          <p>A test_ping event goes to each of the seller's subscriptions, each a delivery of its own.</p>
          <div class="actions">
            <button type="button" @click=${() => this.dialog.close()}>Cancel</button>
            <button type="submit" class="primary">Send test event</button>
          </div>
        </form>
      </dialog>`
  }
}
customElements.define('svc-console-webhooks', ConsoleWebhooks)
