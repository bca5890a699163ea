/**
 * What every page element of the console has: the API client and the session (set by <svc-console>), the
 * route's parameters, a loading/error state, and the heading the shell moves focus to on navigation, so a
 * keyboard or screen-reader user lands on the new page's title.
 */
import { LitElement, html, nothing } from 'lit'
import type { ConsoleApi, ConsoleSessionInfo } from './api.ts'
import { ConsoleError } from './api.ts'
import { pageStyles } from './styles.ts'

export class ConsolePage extends LitElement {
  static override styles = pageStyles
  static override properties = {
    api: { attribute: false },
    session: { attribute: false },
    params: { attribute: false },
    error: { state: true },
    loading: { state: true },
  }

  api!: ConsoleApi
  session: ConsoleSessionInfo | null = null
  params: Record<string, string> = {}
  error = ''
  loading = false

  /** Focuses the page's <h1> (tabindex=-1) once rendered. */
  async focusHeading(): Promise<void> {
    await this.updateComplete
    this.renderRoot.querySelector<HTMLElement>('h1')?.focus()
  }

  /** Runs `work`, showing its failure (a problem's detail, as text) in the page's alert. */
  protected async run<T>(work: () => Promise<T>): Promise<T | undefined> {
    this.loading = true
    this.error = ''
    try {
      return await work()
    } catch (e) {
      this.error = e instanceof ConsoleError || e instanceof Error ? e.message : String(e)
      return undefined
    } finally {
      this.loading = false
    }
  }

  protected renderStatus() {
    return html`<p role="status" class="muted">${this.loading ? 'Loading…' : nothing}</p>
      <p role="alert" class="error">${this.error || nothing}</p>`
  }

  /** Moves the page to another route of the console (the shell listens). */
  protected go(path: string) {
    this.dispatchEvent(new CustomEvent('console-navigate', { detail: path, bubbles: true, composed: true }))
  }
}
