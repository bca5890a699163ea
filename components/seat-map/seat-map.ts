import { define } from '../internal/element.ts'
import { SvcSeatMap } from './seat-map.component.ts'

export { SvcSeatMap }
define('svc-seat-map', SvcSeatMap)

declare global {
  interface HTMLElementTagNameMap {
    'svc-seat-map': SvcSeatMap
  }
}
