/** Signing in: an operator key, once; the server answers with a session cookie the page never sees. */
import { html } from 'lit'
import { ConsolePage } from '../page.ts'

export class ConsoleSignIn extends ConsolePage {
  private async submit(e: SubmitEvent) {
    e.preventDefault()
    const form = e.target as HTMLFormElement
    const input = form.elements.namedItem('operator_key') as HTMLInputElement
    const session = await this.run(() => this.api.signIn(input.value.trim()))
    // The key leaves the page as soon as it is used: nothing keeps it.
    input.value = ''
    if (session)
      this.dispatchEvent(new CustomEvent('console-signed-in', { detail: session, bubbles: true, composed: true }))
  }

  override render() {
    return html`<h1 tabindex="-1">Sign in to the operator console</h1>
      <p class="muted">Use an operator key (<code>npm run operator -- create</code>). It is sent once and not kept in this page.</p>
      <form @submit=${this.submit} class="filters">
        <label
          >Operator key
          <input
            name="operator_key"
            type="password"
            autocomplete="off"
            spellcheck="false"
            required
            pattern="svc_op_.+"
            title="An operator key starts with svc_op_"
        /></label>
        <button class="primary" type="submit" ?disabled=${this.loading}>Sign in</button>
      </form>
      ${this.renderStatus()}`
  }
}
customElements.define('svc-console-sign-in', ConsoleSignIn)
