/**
 * The browser SDK's script (`/javascript/v2.2/svc.min.js`, built by rollup behind ./chunk-loader.ts):
 * registers `<svc-upsell>` and its bag view, and puts the `Svc` object on `window` at once. The seat map,
 * the option cards and the card and modal displays are its chunks, fetched beside it when first shown.
 *
 * ```html
 * <script src="https://svc.example/javascript/v2.2/svc.min.js" integrity="sha384-..." crossorigin="anonymous"></script>
 * <script>
 *   await Svc.init({ tripId, tripAccessToken, onBasketChange: ({ basket }) => render(basket) })
 *   await Svc.showUpsell({ container: 'extras', display: 'embedded', allowProducts: ['bags'] })
 * </script>
 * ```
 */
// The widget and what its first view needs; the seat map, option cards and dialog come on demand
// (components/internal/lazy.ts), each from its own file beside this one.
import '../components/upsell/upsell.ts'
import { createSvc, type SvcApi } from './svc.ts'

export type { SvcApi, CreateSvcOptions, UpsellElementProps } from './svc.ts'
export type {
  InitOptions,
  TripInitOptions,
  SandboxInitOptions,
  ShowUpsellOptions,
  EventCallbacks,
  BasketChange,
  CallbackBasketItem,
  ValidityState,
  WidgetEvent,
  WidgetFailure,
  Display,
  ProductName,
  Theme,
  Basket,
  BasketItem,
} from './types.ts'
export type { SvcError, SvcErrorCode } from '../client/errors.ts'
export type { SvcSandbox, SandboxTripRequest, SvcSandboxGlobal } from './sandbox.ts'

declare global {
  interface Window {
    /** The ancillaries SDK (set by `svc.min.js`). */
    Svc: SvcApi
  }
}

// Read now: `document.currentScript` is only set while this script's top level runs. Its origin is the
// default API address, since the API serves the script.
const script = document.currentScript
const scriptUrl = script instanceof HTMLScriptElement && script.src ? script.src : null

if (window.Svc) {
  // A second copy (the tag twice, or a tag and a bundled copy) would orphan the first one's widgets.
  console.warn('Svc: the SDK was loaded twice; the first copy stays in charge.')
} else {
  window.Svc = createSvc({ scriptUrl })
}
