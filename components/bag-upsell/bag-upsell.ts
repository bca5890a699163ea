import { SvcBagUpsell } from './bag-upsell.component.ts'

export { SvcBagUpsell }
SvcBagUpsell.define('svc-bag-upsell')

declare global {
  interface HTMLElementTagNameMap { 'svc-bag-upsell': SvcBagUpsell }
}
