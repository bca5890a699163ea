import { SvcPrice } from './price.component.ts'

export { SvcPrice }
SvcPrice.define('svc-price')

declare global {
  interface HTMLElementTagNameMap { 'svc-price': SvcPrice }
}
