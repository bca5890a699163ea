/** The load states every svc element shows the same way: a skeleton while loading, an error with "Try again". */
import { html } from 'lit'
import type { Locale } from '../i18n/index.ts'
import '../spinner/spinner.ts'

export function renderLoading(l: Locale) {
  return html`<div class="skeleton" part="loading">
      <div class="bar title"></div><div class="bar"></div><div class="bar block"></div><div class="bar short"></div>
      <svc-spinner label=${l.t.loading}></svc-spinner>
    </div>`
}

export function renderLoadError(l: Locale, retry: () => void) {
  return html`<div class="notice danger" role="alert" part="error">
      <p class="title">${l.t.error_load}</p>
      <div class="actions"><button type="button" class="btn" @click=${retry}>${l.t.retry}</button></div>
    </div>`
}
