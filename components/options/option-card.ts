import { SvcOptionCard } from './option-card.component.ts'

export { SvcOptionCard }
export type { OptionProduct } from './option-card.component.ts'
SvcOptionCard.define('svc-option-card')

declare global {
  interface HTMLElementTagNameMap { 'svc-option-card': SvcOptionCard }
}
