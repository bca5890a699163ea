/** Decorative icons (aria-hidden): the words beside them carry the meaning. */
import { svg, html } from 'lit'

/** An icon of `paths` (the views whose icons are theirs alone keep them: svc.min.js has only what its own views show). */
export const icon = (paths: ReturnType<typeof svg>) =>
  html`<svg class="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">${paths}</svg>`

export const bagIcon = icon(
  svg`<rect x="5" y="7" width="14" height="13" rx="2"/><path d="M9 7V5a1 1 0 0 1 1-1h4a1 1 0 0 1 1 1v2M9 11v5M15 11v5"/>`,
)
export const checkIcon = icon(svg`<path d="M5 12l4 4 10-10"/>`)
export const minusIcon = icon(svg`<path d="M6 12h12"/>`)
export const plusIcon = icon(svg`<path d="M12 6v12M6 12h12"/>`)
