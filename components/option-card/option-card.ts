import { define } from '../internal/element.ts'
import { SvcOptionCard } from './option-card.component.ts'

export { SvcOptionCard }
export type { OptionProduct } from './option-card.component.ts'
define('svc-option-card', SvcOptionCard)

declare global {
  interface HTMLElementTagNameMap {
    'svc-option-card': SvcOptionCard
  }
}
