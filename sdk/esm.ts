/**
 * The ESM build (`dist/esm/index.js`) for pages that bundle the SDK themselves: importing it registers
 * every svc element; `lit` and `@lit/context` stay external peers, so the page's own Lit is shared.
 * `createSvc()` gives the same API as `window.Svc` without touching `window` (pass `baseUrl` to `init`);
 * `init` and `showUpsell` are those of one such instance, made on first use, for a page with one trip:
 *
 *   import { init, showUpsell } from 'svc-ancillaries'
 *   await init({ baseUrl: 'https://svc.example', tripId, tripAccessToken, onBasketChange })
 *   await showUpsell({ container: 'extras', display: 'embedded' })
 *
 * `formatPrice(amount, decimalPlaces, currency, locale)` here is the pure one (the locale is an argument).
 */
import { createSvc, type SvcApi } from './svc.ts'
import type { InitOptions, ShowUpsellOptions } from './types.ts'

export * from '../components/index.ts'
export { Session, toCallbackBasket, type SessionState, type SessionStatus, type SessionOptions, type OffersState, type ProductTypeName } from '../client/session.ts'
export { ApiClient, tokenExpiry, type ClientOptions, type BasketView } from '../client/api.ts'
export { SvcError, type SvcErrorCode } from '../client/errors.ts'
export { formatPrice } from '../components/i18n/index.ts'
export { createSvc, type SvcApi, type CreateSvcOptions, type UpsellElementProps } from './svc.ts'
export { PRODUCT_NAMES } from './types.ts'
export type * from './types.ts'

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
