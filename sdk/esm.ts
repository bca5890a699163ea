/**
 * The ESM build (`dist/esm/index.js`) for pages that bundle the SDK themselves: importing it registers
 * every svc element; `lit` and `@lit/context` stay external peers, so the page's own Lit is shared.
 * `createSvc()` gives the same API as `window.Svc` without touching `window` (pass `baseUrl` to `init`).
 */
export * from '../components/index.ts'
export { Session, toCallbackBasket, type SessionState, type SessionStatus, type SessionOptions, type OffersState, type ProductTypeName } from '../client/session.ts'
export { ApiClient, tokenExpiry, type ClientOptions, type BasketView } from '../client/api.ts'
export { SvcError, type SvcErrorCode } from '../client/errors.ts'
export { formatPrice } from '../components/i18n/index.ts'
export { createSvc, type SvcApi, type CreateSvcOptions, type UpsellElementProps } from './svc.ts'
export { PRODUCT_NAMES } from './types.ts'
export type * from './types.ts'
