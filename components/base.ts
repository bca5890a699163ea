import { LitElement } from 'lit'

/**
 * Base of every svc element. `define()` registers the tag once, so two bundles on one page (the SDK's
 * IIFE and a seller's own import) or a hot reload never throw "already defined".
 */
export class SvcElement extends LitElement {
  static define(tag: string, ctor: CustomElementConstructor = this) {
    if (!customElements.get(tag)) customElements.define(tag, ctor)
  }

  /** Dispatches a `svc-` event that crosses shadow roots, as every svc event does. */
  protected emit<T>(name: `svc-${string}`, detail: T) {
    return this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }))
  }
}
