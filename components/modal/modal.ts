import { define } from '../internal/element.ts'
import { SvcModal, type SvcCloseSource } from './modal.component.ts'

export { SvcModal }
define('svc-modal', SvcModal)

declare global {
  interface HTMLElementTagNameMap {
    'svc-modal': SvcModal
  }
  interface GlobalEventHandlersEventMap {
    /** `<svc-modal>` closed; the product views turn it into `svc-modal-close` with their product. */
    'svc-dialog-close': CustomEvent<Record<string, never>>
    /** Cancelable: the traveller is closing a dialog (`source` says how); `preventDefault()` keeps it open. */
    'svc-request-close': CustomEvent<{ source: SvcCloseSource }>
  }
}
