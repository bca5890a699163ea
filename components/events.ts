/**
 * The DOM events of the svc elements (all `bubbles` + `composed`). The SDK bridges them to the seller's
 * callbacks; a page that imports the elements directly listens to them itself.
 */
import type { BasketChange, Display, ProductName } from '../client/types.ts'
import type { SvcError } from '../client/errors.ts'

export interface SvcLifecycleDetail {
  product: ProductName
  display: Display
}
export interface SvcFailDetail extends SvcLifecycleDetail {
  error: SvcError
}

declare global {
  interface GlobalEventHandlersEventMap {
    /** The basket changed (an item added or removed, or an item's validity or price changed). */
    'svc-basket-change': CustomEvent<BasketChange>
    /** A product view has loaded its offers and is visible. */
    'svc-load': CustomEvent<SvcLifecycleDetail>
    /** The traveller closed a product dialog. */
    'svc-modal-close': CustomEvent<SvcLifecycleDetail>
    /** A product view could not load, or a change the traveller asked for was refused. */
    'svc-fail': CustomEvent<SvcFailDetail>
  }
}

/**
 * Every svc event by name, with the type of its detail: the `svc-*` entries of GlobalEventHandlersEventMap,
 * declared above and by the elements that alone fire them (./modal/modal.ts, ./basket/basket.ts). `emit`
 * (./internal/element.ts) takes only these names, each with its own detail.
 */
export type SvcEventMap = {
  [
    K in keyof GlobalEventHandlersEventMap as K extends `svc-${string}` ? K : never
  ]: GlobalEventHandlersEventMap[K] extends CustomEvent<infer D> ? D : never
}
