/**
 * What every svc element shares, as functions rather than a base class (the elements extend LitElement
 * and compose their behaviour from the controllers in ../controllers), and the reactive properties
 * several elements have, declared once as mixins. The mixins hold declarations only: what a property
 * does is in the controllers that read it.
 */
import type { LitElement, PropertyDeclaration, ReactiveElement } from 'lit'
import type { Session } from '../../client/session.ts'
import type { Display } from '../../client/types.ts'
import type { SvcEventMap } from '../events.ts'

/**
 * Lit's `@property` for what these elements use: legacy decorators (tsconfig: experimentalDecorators) on
 * fields. Lit's own also handles standard decorators and accessors, some 200 B of svc.min.js (gzip) that
 * nothing here calls. Named as Lit's, so the elements manifest (cem analyze) reads them as Lit's.
 */
export const property = (options?: PropertyDeclaration) => (proto: object, name: string) => {
  ;(proto.constructor as typeof ReactiveElement).createProperty(name, options)
}

/** Lit's `@state`: a reactive property without an attribute (createProperty drops it for `state`). */
export const state = () => property({ state: true })

/** Registers a tag once, so two bundles on one page (the SDK's IIFE and a seller's import) or a hot reload never throw. */
export function define(tag: string, ctor: CustomElementConstructor) {
  if (!customElements.get(tag)) customElements.define(tag, ctor)
}

/**
 * Dispatches a svc event that crosses shadow roots, as every svc event does; false when a listener
 * called preventDefault() on a cancelable one. The name must be one of the event map's (../events.ts),
 * and the detail that event's, so a misspelt event or a wrong detail does not compile.
 */
export function emit<K extends keyof SvcEventMap>(
  el: EventTarget,
  name: K,
  detail: SvcEventMap[K],
  cancelable = false,
): boolean {
  return el.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable }))
}

// TypeScript accepts a class as a mixin's base only with a constructor of `...args: any[]`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Constructor<T> = new (...args: any[]) => T

/** What `TripElement` adds (the mixins return their class as this type, so declarations stay emittable). */
export declare class TripProperties {
  session: Session | undefined
  locale: string | undefined
}

/** What `ProductView` adds. */
export declare class ProductViewProperties extends TripProperties {
  display: Display
  framed: boolean
}

/**
 * The `session` and `locale` properties of an element that shows a trip (read by its SessionController
 * and LocaleController).
 * @mixin
 */
export function TripElement<T extends Constructor<LitElement>>(base: T) {
  class TripElement extends base {
    /** The trip session (the SDK passes it; without it the element takes the one provided above). */
    @property({ attribute: false }) session: Session | undefined
    /** Locale tag of texts, prices and dates; by default the provider's, else the trip's language. */
    @property() locale: string | undefined
  }
  return TripElement as Constructor<TripProperties> & T
}

/**
 * The `display` and `framed` properties of a product view, over TripElement's `session` and `locale`
 * (read by its DisplayController).
 * @mixin
 */
export function ProductView<T extends Constructor<LitElement>>(base: T) {
  class ProductView extends TripElement(base) {
    /** How the view is shown: `card`, `embedded` or `modal`. */
    @property({ reflect: true }) display: Display = 'embedded'
    /** Only the panel: a parent element provides the heading and the dialog (`<svc-upsell>` in modal display). */
    @property({ type: Boolean, reflect: true }) framed = false
  }
  return ProductView as Constructor<ProductViewProperties> & T
}
