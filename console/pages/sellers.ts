/** Every seller the session's key sees, a page at a time. */
import { html } from 'lit'
import type { Page, SellerView } from '../../core/application/admin.ts'
import { ConsolePage } from '../page.ts'

export class ConsoleSellers extends ConsolePage {
  static override properties = { ...ConsolePage.properties, sellers: { state: true }, next: { state: true } }
  sellers: SellerView[] = []
  next: string | null = null

  override connectedCallback() {
    super.connectedCallback()
    void this.load()
  }

  private async load(after?: string) {
    const page = await this.run(() => this.api.get<Page<SellerView>>('/sellers', { after }))
    if (!page) return
    this.sellers = after ? [...this.sellers, ...page.data] : page.data
    this.next = page.next_after
  }

  override render() {
    return html`<h1 tabindex="-1">Sellers</h1>
      ${this.renderStatus()}
      <ul class="cards">
        ${this.sellers.map(
          (s) =>
            html`<li>
              <h3><a href="/console/sellers/${encodeURIComponent(s.seller_id)}">${s.name}</a></h3>
              <dl>
                <dt>Seller id</dt>
                <dd class="id">${s.seller_id}</dd>
                <dt>State</dt>
                <dd class="state">${s.disabled ? 'Disabled' : 'Enabled'}${s.sandbox ? ' · sandbox' : ''}</dd>
                <dt>Supplier</dt>
                <dd>${s.supplier.name}</dd>
              </dl>
            </li>`,
        )}
      </ul>
      ${this.next ? html`<p><button @click=${() => this.load(this.next!)}>More sellers</button></p>` : ''}`
  }
}
customElements.define('svc-console-sellers', ConsoleSellers)
