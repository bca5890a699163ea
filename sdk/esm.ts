/**
 * The ESM entry of the package (`svc-ancillaries`) for pages that bundle the SDK themselves. It registers
 * no element: `showUpsell` loads `<svc-upsell>` the first time it is called, so a page that builds its own
 * `Session` for one element (`svc-ancillaries/elements/svc-bag-upsell.js`) pays for nothing else.
 * `lit` and `@lit/context` stay external, so the page's own Lit is shared.
 * `createSvc()` gives the same API as `window.Svc` without touching `window` (pass `baseUrl` to `init`);
 * `init` and `showUpsell` are those of one such instance, made on first use, for a page with one trip:
 *
 *   import { init, showUpsell } from 'svc-ancillaries'
 *   await init({ baseUrl: 'https://svc.example', tripId, tripAccessToken, onBasketChange })
 *   await showUpsell({ container: 'extras', display: 'embedded' })
 *
 * `formatPrice(amount, decimalPlaces, currency, locale)` here is the pure one (the locale is an argument).
 * The element classes are exported by `svc-ancillaries/elements` (every element) and
 * `svc-ancillaries/elements/<tag>.js` (one).
 */
import { createSvc as createSvcFor, type CreateSvcOptions, type SvcApi } from './svc.ts'
import type { InitOptions, ShowUpsellOptions } from './types.ts'

export {
  Session,
  toCallbackBasket,
  type SessionState,
  type SessionStatus,
  type SessionOptions,
  type OffersState,
  type ProductTypeName,
} from '../client/session.ts'
export { ApiClient, tokenExpiry, type ClientOptions, type BasketView } from '../client/api.ts'
export { SvcError, type SvcErrorCode } from '../client/errors.ts'
export { addLocale, formatPrice, type Locale } from '../components/i18n/index.ts'
export { type SvcApi, type CreateSvcOptions, type UpsellElementProps } from './svc.ts'
export { PRODUCT_NAMES } from './types.ts'
export type * from './types.ts'

/** An SDK instance (what `window.Svc` is to the script) whose `showUpsell` loads `<svc-upsell>` when first called. */
export function createSvc(opts: CreateSvcOptions = {}): SvcApi {
  return createSvcFor({ loadElements: () => import('../components/upsell/upsell.ts'), ...opts })
}

let svc: SvcApi | undefined
/** The module's own SDK instance (what `init` and `showUpsell` use), made on first call. */
export function defaultSvc(): SvcApi {
  return (svc ??= createSvc())
}
/** `Svc.init` of the module's own instance (`defaultSvc()`): opens the trip; `baseUrl` is required. */
export function init(options: InitOptions): Promise<void> {
  return defaultSvc().init(options)
}
/** `Svc.showUpsell` of the module's own instance: shows the product selection in the element with id `container`. */
export function showUpsell(options: ShowUpsellOptions): Promise<void> {
  return defaultSvc().showUpsell(options)
}
/** `Svc.destroy` of the module's own instance: removes its widgets and closes its trip's event stream. */
export function destroy(): void {
  svc?.destroy()
}
