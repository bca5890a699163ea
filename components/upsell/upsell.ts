import { define } from '../internal/element.ts'
import { SvcUpsell } from './upsell.component.ts'

export { SvcUpsell }
define('svc-upsell', SvcUpsell)

declare global {
  interface HTMLElementTagNameMap {
    'svc-upsell': SvcUpsell
  }
}
