import { SvcUpsell } from './upsell.component.ts'

export { SvcUpsell }
SvcUpsell.define('svc-upsell')

declare global {
  interface HTMLElementTagNameMap { 'svc-upsell': SvcUpsell }
}
