/**
 * What every svc element shares, as functions rather than a base class (the elements extend LitElement
 * and compose their behaviour from the controllers in ../controllers).
 */

/** Registers a tag once, so two bundles on one page (the SDK's IIFE and a seller's import) or a hot reload never throw. */
export function define(tag: string, ctor: CustomElementConstructor) {
  if (!customElements.get(tag)) customElements.define(tag, ctor)
}

/**
 * Dispatches a `svc-` event that crosses shadow roots, as every svc event does; false when a listener
 * called preventDefault() on a cancelable one.
 */
export function emit<T>(el: EventTarget, name: `svc-${string}`, detail: T, cancelable = false): boolean {
  return el.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable }))
}
