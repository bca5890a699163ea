/**
 * One seller: its keys (by prefix, with their states), origins, supplier and whether it has credentials
 * (never the credentials), its supplier's calls and times over the last hour as charts, and the seller CLI's
 * writes, each behind a confirmation dialog. A rotation's new key is shown once, in that dialog, and
 * forgotten when it closes.
 */
import { html, nothing } from 'lit'
import type { SellerView, SupplierHealth } from '../../core/application/admin.ts'
import { ConsolePage } from '../page.ts'
import { clock, when } from '../format.ts'
import type { ChartSeries } from '../chart.ts'
import '../chart.ts'

const CALLS: ChartSeries[] = [
  { key: 'ok', label: 'OK', tone: 'primary' },
  { key: 'errors', label: 'Failed', tone: 'danger' },
]
const TIMES: ChartSeries[] = [
  { key: 'p50', label: 'Median (p50)', tone: 'primary' },
  { key: 'p95', label: '95th percentile (p95)', tone: 'strong' },
]

type Action = 'rotate' | 'revoke' | 'disable' | 'enable'

const ACTIONS: Record<Action, { title: string; says: string; button: string }> = {
  rotate: {
    title: 'Rotate the API key',
    says: 'A new key is made and shown once. The keys that work now keep working for the grace period.',
    button: 'Rotate key',
  },
  revoke: {
    title: 'Revoke a key',
    says: 'This key stops working now, on every server within 10 seconds.',
    button: 'Revoke',
  },
  disable: {
    title: 'Disable the seller',
    says: "The seller's keys and trip tokens are refused (403 seller_disabled) until it is enabled.",
    button: 'Disable',
  },
  enable: { title: 'Enable the seller', says: "The seller's keys and trip tokens work again.", button: 'Enable' },
}

export class ConsoleSeller extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    seller: { state: true },
    action: { state: true },
    newKey: { state: true },
    outcome: { state: true },
    keyPrefix: { state: true },
    health: { state: true },
  }
  seller: SellerView | null = null
  health: SupplierHealth | null = null
  action: Action | null = null
  /** The key a revocation names, by its prefix. */
  keyPrefix = ''
  /** The key a rotation made: shown once, in the dialog, and dropped when it closes. */
  newKey = ''
  outcome = ''

  override connectedCallback() {
    super.connectedCallback()
    void this.load()
  }

  private async load() {
    const id = encodeURIComponent(this.params.id!)
    const got = await this.run(() =>
      Promise.all([
        this.api.get<SellerView>(`/sellers/${id}`),
        this.api.get<SupplierHealth>(`/sellers/${id}/supplier-health`),
      ]),
    )
    if (got) [this.seller, this.health] = got
  }

  private renderHealth(h: SupplierHealth) {
    const buckets = h.buckets.map((b) => ({
      label: clock(b.start),
      values: { ok: b.calls - b.errors, errors: b.errors, p50: b.p50_ms, p95: b.p95_ms },
    }))
    const reasons = Object.entries(h.errors_by_reason).map(([r, n]) => `${r} ${n}`)
    return html`<h2>Supplier, last hour</h2>
      <p>
        ${h.calls} calls, ${h.errors} failed${reasons.length ? ` (${reasons.join(', ')})` : ''}${
          h.p50_ms === null ? '' : `; median ${Math.round(h.p50_ms)} ms, p95 ${Math.round(h.p95_ms!)} ms`
        }.${h.truncated ? ' Of the first 10,000 calls only.' : ''}
      </p>
      <div class="charts">
        <svc-console-chart heading="Supplier calls per ${h.bucket_minutes} minutes (UTC)" unit="calls"
          .series=${CALLS} .buckets=${buckets} empty="No supplier calls in the last hour."></svc-console-chart>
        <svc-console-chart heading="Supplier time per ${h.bucket_minutes} minutes (UTC)" unit="ms" mode="group"
          .series=${TIMES} .buckets=${buckets} empty="No calls, so no times."></svc-console-chart>
      </div>`
  }

  private get dialog() {
    return this.renderRoot.querySelector('dialog')!
  }

  private async ask(action: Action, prefix = '') {
    this.action = action
    this.keyPrefix = prefix
    this.newKey = ''
    await this.updateComplete
    this.dialog.showModal()
  }

  private close() {
    this.dialog.close()
  }

  private closed() {
    this.action = null
    this.newKey = ''
  }

  private async confirm(e: SubmitEvent) {
    e.preventDefault()
    const action = this.action!
    const id = encodeURIComponent(this.seller!.seller_id)
    const done = await this.run(async () => {
      if (action === 'rotate') {
        const grace = Number((this.renderRoot.querySelector('#grace') as HTMLInputElement).value)
        const r = await this.api.post<{ api_key: string; prefix: string }>(`/sellers/${id}/rotate-key`, {
          grace_hours: grace,
        })
        this.newKey = r.api_key
        this.outcome = `A new key ${r.prefix}… was made.`
        await this.updateComplete
        // The button that was pressed is gone: focus goes to the one way out, beside the key.
        this.renderRoot.querySelector<HTMLButtonElement>('#done')?.focus()
      } else if (action === 'revoke') {
        const r = await this.api.post<{ revoked: unknown[] }>(`/sellers/${id}/revoke-key`, { prefix: this.keyPrefix })
        this.outcome = r.revoked.length
          ? `Key ${this.keyPrefix}… is revoked.`
          : `Key ${this.keyPrefix}… was not working.`
      } else {
        await this.api.post(`/sellers/${id}/${action}`)
        this.outcome = action === 'disable' ? 'The seller is disabled.' : 'The seller is enabled.'
      }
      return true
    })
    if (!done) return this.close()
    await this.load()
    if (action !== 'rotate') this.close()
  }

  private renderDialog() {
    const a = this.action && ACTIONS[this.action]
    return html`<dialog aria-labelledby="dialog-title" @close=${this.closed}>
      ${
        a
          ? html`<h2 id="dialog-title">${a.title}</h2>
            ${
              this.newKey
                ? html`<p>The new API key, shown this once: copy it to the seller now.</p>
                  <code class="secret" aria-label="New API key">${this.newKey}</code>
                  <div class="actions"><button id="done" class="primary" @click=${this.close}>Done</button></div>`
                : html`<form @submit=${this.confirm}>
                  ${this.keyPrefix ? html`<p>Key <code>${this.keyPrefix}…</code></p>` : nothing}
                  <p>${a.says}</p>
                  ${
                    this.action === 'rotate'
                      ? html`<label
                        >Grace period, hours
                        <input id="grace" type="number" min="0" max="8760" value="24" required
                      /></label>`
                      : nothing
                  }
                  <div class="actions">
                    <button type="button" @click=${this.close}>Cancel</button>
                    <button type="submit" class=${this.action === 'enable' || this.action === 'rotate' ? 'primary' : 'danger'}>
                      ${a.button}
                    </button>
                  </div>
                </form>`
            }`
          : nothing
      }
    </dialog>`
  }

  override render() {
    const s = this.seller
    const readOnly = this.session?.operator.read_only ?? true
    return html`<h1 tabindex="-1">${s ? s.name : 'Seller'}</h1>
      ${this.renderStatus()}
      <p role="status">${this.outcome || nothing}</p>
      ${
        s
          ? html`<dl class="card">
              <dt>Seller id</dt>
              <dd class="id">${s.seller_id}</dd>
              <dt>State</dt>
              <dd class="state">${s.disabled ? `Disabled since ${when(s.disabled_at)}` : 'Enabled'}</dd>
              <dt>Mode</dt>
              <dd>${s.sandbox ? 'Sandbox' : 'Live'}</dd>
              <dt>Supplier</dt>
              <dd>${s.supplier.name} (${s.supplier.credentials_set ? 'has credentials' : 'no credentials'})</dd>
              <dt>Origins</dt>
              <dd>${s.origins.length ? s.origins.join(', ') : 'none'}</dd>
              <dt>Created</dt>
              <dd>${when(s.created_at)}</dd>
            </dl>
            ${this.health ? this.renderHealth(this.health) : nothing}
            <h2>Keys</h2>
            <ul class="cards" aria-label="API keys">
              ${s.keys.map(
                (k) =>
                  html`<li>
                    <dl>
                      <dt>Prefix</dt>
                      <dd class="id">${k.prefix}…</dd>
                      <dt>State</dt>
                      <dd class="state">${k.state}</dd>
                      <dt>Created</dt>
                      <dd>${when(k.created_at)}</dd>
                      ${k.expires_at ? html`<dt>Works until</dt><dd>${when(k.expires_at)}</dd>` : nothing}
                      ${k.revoked_at ? html`<dt>Revoked</dt><dd>${when(k.revoked_at)}</dd>` : nothing}
                    </dl>
                    ${
                      readOnly || k.state === 'revoked' || k.state === 'expired'
                        ? nothing
                        : html`<div class="actions">
                          <button class="danger" aria-label="Revoke key ${k.prefix}…" @click=${() => this.ask('revoke', k.prefix)}>
                            Revoke
                          </button>
                        </div>`
                    }
                  </li>`,
              )}
            </ul>
            ${
              readOnly
                ? html`<p class="muted">This session is read-only: it may not change the seller.</p>`
                : html`<h2>Actions</h2>
                  <div class="actions">
                    <button @click=${() => this.ask('rotate')}>Rotate key</button>
                    ${
                      s.disabled
                        ? html`<button @click=${() => this.ask('enable')}>Enable</button>`
                        : html`<button class="danger" @click=${() => this.ask('disable')}>Disable</button>`
                    }
                  </div>`
            }`
          : nothing
      }
      ${this.renderDialog()}`
  }
}
customElements.define('svc-console-seller', ConsoleSeller)
