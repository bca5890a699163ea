/**
 * <svc-console>: the console's shell. It asks the server for the session (the cookie is HttpOnly: the page
 * only learns whether there is one), shows sign-in without one, and otherwise a page per route of the
 * history API (/console/…), with a navigation and Sign out. A deep link loads the same HTML (the server's
 * wildcard route) and lands here. On every navigation, focus moves to the new page's heading.
 */
import { LitElement, css, html, nothing } from 'lit'
import { ConsoleApi, type ConsoleSessionInfo } from './api.ts'
import { pageStyles } from './styles.ts'
import type { ConsolePage } from './page.ts'
import './pages/sign-in.ts'
import './pages/sellers.ts'
import './pages/seller.ts'
import './pages/trips.ts'
import './pages/trip.ts'
import './pages/orders.ts'
import './pages/jobs.ts'
import './pages/webhooks.ts'

interface Route {
  tag: string
  title: string
  params: Record<string, string>
}

const ROUTES: Array<[RegExp, string, string]> = [
  [/^\/console\/?$/, 'svc-console-sellers', 'Sellers'],
  [/^\/console\/sellers\/?$/, 'svc-console-sellers', 'Sellers'],
  [/^\/console\/sellers\/(?<id>[^/]+)$/, 'svc-console-seller', 'Seller'],
  [/^\/console\/trips\/?$/, 'svc-console-trips', 'Find a trip'],
  [/^\/console\/trips\/(?<id>[^/]+)$/, 'svc-console-trip', 'Trip'],
  [/^\/console\/orders\/?$/, 'svc-console-orders', 'Orders'],
  [/^\/console\/jobs\/?$/, 'svc-console-jobs', 'Jobs'],
  [/^\/console\/webhooks\/?$/, 'svc-console-webhooks', 'Webhooks'],
]

function route(path: string): Route | null {
  for (const [re, tag, title] of ROUTES) {
    const m = re.exec(path)
    if (m)
      return {
        tag,
        title,
        params: Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)])),
      }
  }
  return null
}

const NAV = [
  ['/console/sellers', 'Sellers'],
  ['/console/trips', 'Trips'],
  ['/console/orders', 'Orders'],
  ['/console/jobs', 'Jobs'],
  ['/console/webhooks', 'Webhooks'],
] as const

export class SvcConsole extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host { min-height: 100vh; background: var(--_bg); }
      header {
        display: flex; flex-wrap: wrap; align-items: center; gap: var(--_space);
        padding: var(--_space) calc(var(--_space) * 2); border-bottom: 1px solid var(--_border); background: var(--_surface);
      }
      header .who { margin-inline-start: auto; display: flex; flex-wrap: wrap; align-items: center; gap: var(--_space); }
      nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 4px var(--_space); margin: 0; padding: 0; }
      nav a { display: inline-block; padding: 10px 4px; }
      nav a[aria-current='page'] { font-weight: 700; }
      .brand { font-weight: 700; margin-inline-end: var(--_space); }
      main { padding: calc(var(--_space) * 2); max-width: 60rem; margin: 0 auto; }
      .skip { position: absolute; inset-inline-start: -10000px; }
      .skip:focus { position: static; }
    `,
  ]
  static override properties = { session: { state: true }, path: { state: true }, ready: { state: true } }

  session: ConsoleSessionInfo | null = null
  path = location.pathname
  ready = false
  private api = new ConsoleApi()
  private page: { path: string; session: ConsoleSessionInfo; el: ConsolePage } | null = null

  override connectedCallback() {
    super.connectedCallback()
    this.api.onSignedOut = () => {
      this.session = null
      void this.focusPage()
    }
    window.addEventListener('popstate', this.onPop)
    this.addEventListener('click', this.onClick)
    this.addEventListener('console-navigate', (e) => this.navigate((e as CustomEvent<string>).detail))
    this.addEventListener('console-signed-in', (e) => {
      this.session = (e as CustomEvent<ConsoleSessionInfo>).detail
      void this.focusPage()
    })
    void this.api.session().then(
      (s) => {
        this.session = s
        this.ready = true
      },
      () => {
        this.ready = true
      },
    )
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    window.removeEventListener('popstate', this.onPop)
  }

  private onPop = () => {
    this.path = location.pathname
    void this.focusPage()
  }

  /** Links to /console/… change the route in place; any other link is the browser's. */
  private onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    const a = e.composedPath().find((n): n is HTMLAnchorElement => n instanceof HTMLAnchorElement)
    const href = a?.getAttribute('href')
    if (!a || !href?.startsWith('/console') || a.target) return
    e.preventDefault()
    this.navigate(href)
  }

  navigate(path: string) {
    if (path !== location.pathname) history.pushState(null, '', path)
    this.path = new URL(path, location.href).pathname
    void this.focusPage()
  }

  private async focusPage() {
    await this.updateComplete
    const page = this.renderRoot.querySelector('main > *') as ConsolePage | null
    await page?.focusHeading?.()
  }

  private async signOut() {
    await this.api.signOut().catch(() => {})
    this.session = null
    history.pushState(null, '', '/console')
    this.path = '/console'
    await this.focusPage()
  }

  protected override updated() {
    const r = route(this.path)
    document.title = `${this.session ? (r?.title ?? 'Not found') : 'Sign in'} · Operator console`
  }

  private renderPage() {
    if (!this.session) return html`<svc-console-sign-in .api=${this.api}></svc-console-sign-in>`
    const r = route(this.path)
    if (!r) return html`<h1 tabindex="-1">Not found</h1><p>There is no such page. <a href="/console">Sellers</a></p>`
    // One element per route, made afresh when the route changes (a new seller's page loads its seller), and
    // kept while it does not (the shell re-renders for other reasons).
    if (this.page?.path !== this.path || this.page.session !== this.session) {
      const el = document.createElement(r.tag) as ConsolePage
      el.api = this.api
      el.session = this.session
      el.params = r.params
      this.page = { path: this.path, session: this.session, el }
    }
    return this.page.el
  }

  override render() {
    if (!this.ready) return html`<main><p role="status">Loading…</p></main>`
    // The navigation's section of this page: /console/sellers/x is in Sellers.
    const section = `/console/${this.path.split('/')[2] || 'sellers'}`
    return html`<a class="skip" href="#main" @click=${(e: Event) => {
      e.preventDefault()
      void this.focusPage()
    }}>Skip to content</a>
      <header>
        <span class="brand">Operator console</span>
        ${
          this.session
            ? html`<nav aria-label="Console">
                <ul>
                  ${NAV.filter(
                    // The job queue is every seller's: a key of one seller is refused it (403), so no link.
                    ([href]) => href !== '/console/jobs' || this.session!.operator.seller_id === null,
                  ).map(
                    ([href, label]) =>
                      html`<li>
                        <a href=${href} aria-current=${href === section ? 'page' : nothing}
                          >${label}</a
                        >
                      </li>`,
                  )}
                </ul>
              </nav>
              <div class="who">
                <span
                  >${this.session.operator.name}${this.session.operator.read_only ? ' (read-only)' : ''}${
                    this.session.operator.seller_id ? ` · seller ${this.session.operator.seller_id}` : ''
                  }</span
                >
                <button @click=${this.signOut}>Sign out</button>
              </div>`
            : nothing
        }
      </header>
      <main id="main">${this.renderPage()}</main>`
  }
}
customElements.define('svc-console', SvcConsole)
