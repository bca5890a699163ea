/** Finding a trip: by its id (straight to its page) or by a record locator of one of its tickets. */
import { html, nothing } from 'lit'
import type { Page, TripSummary } from '../../core/application/admin.ts'
import { ConsolePage } from '../page.ts'
import { when } from '../format.ts'

export class ConsoleTrips extends ConsolePage {
  static override properties = { ...ConsolePage.properties, found: { state: true } }
  found: TripSummary[] | null = null

  private async search(e: SubmitEvent) {
    e.preventDefault()
    const form = e.target as HTMLFormElement
    const by = (form.elements.namedItem('by') as HTMLSelectElement).value
    const value = (form.elements.namedItem('q') as HTMLInputElement).value.trim()
    if (!value) return
    if (by === 'trip') return this.go(`/console/trips/${encodeURIComponent(value)}`)
    const page = await this.run(() => this.api.get<Page<TripSummary>>('/trips', { record_locator: value }))
    if (page) this.found = page.data
  }

  override render() {
    return html`<h1 tabindex="-1">Find a trip</h1>
      <form class="filters" role="search" @submit=${this.search}>
        <label
          >Search by
          <select name="by">
            <option value="locator">Record locator</option>
            <option value="trip">Trip id</option>
          </select></label
        >
        <label>Record locator or trip id <input name="q" required autocomplete="off" spellcheck="false" /></label>
        <button class="primary" type="submit">Find</button>
      </form>
      ${this.renderStatus()}
      ${
        this.found === null
          ? nothing
          : this.found.length === 0
            ? html`<p>No trip has a ticket with that record locator.</p>`
            : html`<h2>Trips found</h2>
              <ul class="cards">
                ${this.found.map(
                  (t) =>
                    html`<li>
                      <h3><a class="id" href="/console/trips/${encodeURIComponent(t.trip_id)}">${t.trip_id}</a></h3>
                      <dl>
                        <dt>Seller</dt>
                        <dd class="id">${t.seller_id}</dd>
                        <dt>Record locators</dt>
                        <dd>${t.record_locators.join(', ') || '—'}</dd>
                        <dt>Orders</dt>
                        <dd>${t.orders}</dd>
                        <dt>Created</dt>
                        <dd>${when(t.created_at)}</dd>
                      </dl>
                    </li>`,
                )}
              </ul>`
      }`
  }
}
customElements.define('svc-console-trips', ConsoleTrips)
