import { define } from '../internal/element.ts'
import { SvcBagUpsell } from './bag-upsell.component.ts'

export { SvcBagUpsell }
define('svc-bag-upsell', SvcBagUpsell)

declare global {
  interface HTMLElementTagNameMap {
    'svc-bag-upsell': SvcBagUpsell
  }
}
