import { SvcModal } from './modal.component.ts'

export { SvcModal }
SvcModal.define('svc-modal')

declare global {
  interface HTMLElementTagNameMap { 'svc-modal': SvcModal }
  interface GlobalEventHandlersEventMap {
    /** `<svc-modal>` closed; the product views turn it into `svc-modal-close` with their product. */
    'svc-dialog-close': CustomEvent<Record<string, never>>
  }
}
