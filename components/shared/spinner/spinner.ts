import { SvcSpinner } from './spinner.component.ts'

export { SvcSpinner }
SvcSpinner.define('svc-spinner')

declare global {
  interface HTMLElementTagNameMap { 'svc-spinner': SvcSpinner }
}
