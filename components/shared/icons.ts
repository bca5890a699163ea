/** Decorative icons (aria-hidden): the words beside them carry the meaning. */
import { svg, html } from 'lit'

const icon = (paths: ReturnType<typeof svg>) =>
  html`<svg class="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">${paths}</svg>`

export const bagIcon = icon(svg`<rect x="5" y="7" width="14" height="13" rx="2"/><path d="M9 7V5a1 1 0 0 1 1-1h4a1 1 0 0 1 1 1v2M9 11v5M15 11v5"/>`)
export const seatIcon = icon(svg`<path d="M7 4v9a2 2 0 0 0 2 2h7M7 13h9l2 6M9 15l-2 5"/>`)
export const boardingIcon = icon(svg`<path d="M3 12h13M12 7l5 5-5 5M20 4v16"/>`)
export const checkInIcon = icon(svg`<rect x="4" y="3" width="16" height="18" rx="2"/><path d="M8 12l3 3 5-6"/>`)
export const upgradeIcon = icon(svg`<path d="M12 19V5M6 11l6-6 6 6"/>`)
export const checkIcon = icon(svg`<path d="M5 12l4 4 10-10"/>`)
export const minusIcon = icon(svg`<path d="M6 12h12"/>`)
export const plusIcon = icon(svg`<path d="M12 6v12M6 12h12"/>`)
