import { define } from '../internal/element.ts'
import { SvcSpinner } from './spinner.component.ts'

export { SvcSpinner }
define('svc-spinner', SvcSpinner)

declare global {
  interface HTMLElementTagNameMap {
    'svc-spinner': SvcSpinner
  }
}
