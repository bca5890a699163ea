/**
 * The trip's webhook deliveries (GET /admin/v1/webhooks/deliveries?trip_id=), each with every attempt and,
 * for a session that may write, Resend (pages/deliveries.ts).
 */
import { html } from 'lit'
import { TripSection } from './trip-section.ts'
import './deliveries.ts'

export class TripWebhooksSection extends TripSection {
  override render() {
    return html`<section aria-labelledby="webhooks">
      <h2 id="webhooks">Webhooks</h2>
      <svc-console-deliveries
        expand
        .api=${this.api}
        .session=${this.session}
        .query=${{ trip_id: this.tripId, limit: '50' }}
      ></svc-console-deliveries>
    </section>`
  }
}
customElements.define('svc-console-trip-webhooks', TripWebhooksSection)
