import { define } from '../internal/element.ts'
import { SvcBasket } from './basket.component.ts'
import type { ProductName } from '../../client/types.ts'

export { SvcBasket }
define('svc-basket', SvcBasket)

declare global {
  interface HTMLElementTagNameMap {
    'svc-basket': SvcBasket
  }
  interface GlobalEventHandlersEventMap {
    /** `<svc-basket>`: an unavailable item was removed so the traveller can choose another; show that product's view. */
    'svc-choose-another': CustomEvent<{ product: ProductName }>
  }
}
