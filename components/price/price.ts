import { define } from '../internal/element.ts'
import { SvcPrice } from './price.component.ts'

export { SvcPrice }
define('svc-price', SvcPrice)

declare global {
  interface HTMLElementTagNameMap {
    'svc-price': SvcPrice
  }
}
