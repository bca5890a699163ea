/**
 * <svc-console-deliveries>: webhook deliveries (GET /admin/v1/webhooks/deliveries with `query`), each with its
 * last attempt, its attempts on demand (or at once with `expand`, as the trip page shows them), and Resend,
 * asked in a dialog. A resend is a new delivery: it is shown apart (the filter may leave it out of the list)
 * and read again until it has been tried, so the operator sees how the receiver answered it. What a receiver
 * answered is shown as text in a <pre>, never as markup.
 */
import { html, nothing } from 'lit'
import type { Page } from '../../core/application/admin.ts'
import type { WebhookAttemptRecord, WebhookDeliveryRecord } from '../../core/ports/records.ts'
import { ConsolePage } from '../page.ts'
import { stamp } from '../format.ts'

/** A delivery as a list shows it: its attempts counted and the last one. */
export type DeliverySummary = Omit<WebhookDeliveryRecord, 'attempts' | 'event'> & {
  attempt_count: number
  last_attempt: WebhookAttemptRecord | null
}

/** How long a resent delivery is read again for its first attempt (the worker takes it within a second or so). */
const POLL_MS = 500
const POLL_TRIES = 30

const outcome = (a: WebhookAttemptRecord) =>
  a.status === null ? `no answer: ${a.error ?? 'unknown'}` : `HTTP ${a.status}`

export class ConsoleDeliveries extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    query: { attribute: false },
    expand: { type: Boolean },
    deliveries: { state: true },
    next: { state: true },
    attempts: { state: true },
    asking: { state: true },
    resent: { state: true },
    outcome: { state: true },
  }
  /** The list's filters (seller_id, state, trip_id). */
  query: Record<string, string | undefined> = {}
  /** Every delivery's attempts shown at once (a trip's few), not on demand. */
  expand = false
  deliveries: DeliverySummary[] | null = null
  next: string | null = null
  /** The attempts read so far, by delivery. */
  attempts: Record<string, WebhookAttemptRecord[]> = {}
  /** The delivery the Resend dialog asks about. */
  asking: DeliverySummary | null = null
  /** The newest resend, read again until tried. */
  resent: WebhookDeliveryRecord | null = null
  outcome = ''

  override connectedCallback() {
    super.connectedCallback()
    void this.load()
  }

  protected override updated(changed: Map<string, unknown>) {
    // A new filter (by value: a parent's render makes a new object of the same one) reads the list again.
    const was = changed.get('query') as Record<string, string | undefined> | undefined
    if (was !== undefined && JSON.stringify(was) !== JSON.stringify(this.query)) void this.load()
  }

  /** Reads the list again (the first page, or the next one after `after`). */
  async load(after?: string) {
    const page = await this.run(() =>
      this.api.get<Page<DeliverySummary>>('/webhooks/deliveries', { ...this.query, after }),
    )
    if (!page) return
    this.deliveries = after ? [...(this.deliveries ?? []), ...page.data] : page.data
    this.next = page.next_after
    if (this.expand) await Promise.all(page.data.map((d) => this.showAttempts(d.delivery_id)))
  }

  private async showAttempts(id: string) {
    const d = await this.run(() =>
      this.api.get<WebhookDeliveryRecord>(`/webhooks/deliveries/${encodeURIComponent(id)}`),
    )
    if (d) this.attempts = { ...this.attempts, [id]: d.attempts }
  }

  private get dialog() {
    return this.renderRoot.querySelector('dialog')!
  }

  private async ask(d: DeliverySummary) {
    this.asking = d
    await this.updateComplete
    this.dialog.showModal()
  }

  private async resend(e: SubmitEvent) {
    e.preventDefault()
    const d = this.asking!
    this.dialog.close()
    const made = await this.run(() =>
      this.api.post<DeliverySummary>(`/webhooks/deliveries/${encodeURIComponent(d.delivery_id)}/resend`),
    )
    if (!made) return
    this.outcome = `Delivery ${d.delivery_id} was resent as ${made.delivery_id}: waiting for its first attempt…`
    await this.load()
    await this.follow(made.delivery_id)
  }

  /** Reads a new delivery again until it has an attempt (or gives up waiting), then the list. */
  private async follow(id: string) {
    for (let i = 0; i < POLL_TRIES; i++) {
      const d = await this.run(() =>
        this.api.get<WebhookDeliveryRecord>(`/webhooks/deliveries/${encodeURIComponent(id)}`),
      )
      if (!d) return
      this.resent = d
      if (d.attempts.length > 0) {
        const last = d.attempts.at(-1)!
        this.outcome = `Resent delivery ${id}: ${d.state} (${outcome(last)}).`
        // The page around the list may count deliveries by state (the Webhooks page's subscriptions).
        this.dispatchEvent(new CustomEvent('deliveries-changed', { bubbles: true, composed: true }))
        return this.load()
      }
      await new Promise((r) => setTimeout(r, POLL_MS))
    }
    this.outcome = `Resent delivery ${id} has not been tried yet: it is ${this.resent?.state ?? 'pending'}.`
  }

  private renderAttempts(id: string, list: WebhookAttemptRecord[]) {
    if (list.length === 0) return html`<p class="muted">Not tried yet.</p>`
    return html`<ol class="timeline" aria-label="Attempts of delivery ${id}">
      ${list.map(
        (a) =>
          html`<li>
            <strong>Attempt ${a.attempt}</strong> <span class="time">${stamp(a.at)}</span>
            <span class=${a.status !== null && a.status < 300 ? 'state ok' : 'state error'}>${outcome(a)}</span>
            · ${a.duration_ms} ms
            ${a.response_body ? html`<pre class="body">${a.response_body}</pre>` : nothing}
          </li>`,
      )}
    </ol>`
  }

  private renderDelivery(d: DeliverySummary | WebhookDeliveryRecord, readOnly: boolean) {
    const shown = 'attempts' in d ? d.attempts : this.attempts[d.delivery_id]
    const last = 'last_attempt' in d ? d.last_attempt : (d.attempts.at(-1) ?? null)
    return html`<li>
      <h3>${d.event_name} <span class="id muted">${d.delivery_id}</span></h3>
      <dl>
        <dt>State</dt>
        <dd class="state">${d.state}</dd>
        <dt>Seller</dt>
        <dd class="id">${d.seller_id}</dd>
        <dt>Subscription</dt>
        <dd class="id">${d.subscription_id}</dd>
        ${d.trip_id ? html`<dt>Trip</dt><dd><a class="id" href="/console/trips/${encodeURIComponent(d.trip_id)}">${d.trip_id}</a></dd>` : nothing}
        ${d.order_id ? html`<dt>Order</dt><dd class="id">${d.order_id}</dd>` : nothing}
        ${d.resend_of ? html`<dt>Resend of</dt><dd class="id">${d.resend_of}</dd>` : nothing}
        <dt>Created</dt>
        <dd>${stamp(d.created_at)}</dd>
        <dt>Last attempt</dt>
        <dd>${last ? `${outcome(last)} at ${stamp(last.at)}, ${last.duration_ms} ms` : 'not tried yet'}</dd>
      </dl>
      ${shown ? this.renderAttempts(d.delivery_id, shown) : nothing}
      <div class="actions">
        ${
          shown || 'attempts' in d
            ? nothing
            : html`<button @click=${() => this.showAttempts(d.delivery_id)} aria-label="Show attempts of delivery ${d.delivery_id}">
              Show attempts
            </button>`
        }
        ${
          readOnly || !('last_attempt' in d)
            ? nothing
            : html`<button @click=${() => this.ask(d)} aria-label="Resend delivery ${d.delivery_id}">Resend</button>`
        }
      </div>
    </li>`
  }

  private renderDialog() {
    const d = this.asking
    return html`<dialog aria-labelledby="resend-title" @close=${() => (this.asking = null)}>
      ${
        d
          ? html`<h2 id="resend-title">Resend the delivery</h2>
            <form @submit=${this.resend}>
              <p>Delivery <code>${d.delivery_id}</code> (${d.event_name}, ${d.state})</p>
              <p>The same event, with the same event_id, goes to the subscription again as a new delivery, signed anew.</p>
              <div class="actions">
                <button type="button" @click=${() => this.dialog.close()}>Cancel</button>
                <button type="submit" class="primary">Resend</button>
              </div>
            </form>`
          : nothing
      }
    </dialog>`
  }

  override render() {
    const readOnly = this.session?.operator.read_only ?? true
    const list = this.deliveries
    return html`${this.renderStatus()}
      <p role="status">${this.outcome || nothing}</p>
      ${
        this.resent
          ? html`<p class="muted" id="resent">Just resent:</p>
            <ul class="cards" aria-label="Resent delivery">${this.renderDelivery(this.resent, readOnly)}</ul>`
          : nothing
      }
      ${
        list === null
          ? nothing
          : list.length === 0
            ? html`<p>No deliveries.</p>`
            : html`<ul class="cards" aria-label="Deliveries">${list.map((d) => this.renderDelivery(d, readOnly))}</ul>`
      }
      ${this.next ? html`<p><button @click=${() => this.load(this.next!)}>More deliveries</button></p>` : nothing}
      ${this.renderDialog()}`
  }
}
customElements.define('svc-console-deliveries', ConsoleDeliveries)
