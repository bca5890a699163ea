import { SvcSeatMap } from './seat-map.component.ts'

export { SvcSeatMap }
SvcSeatMap.define('svc-seat-map')

declare global {
  interface HTMLElementTagNameMap { 'svc-seat-map': SvcSeatMap }
}
