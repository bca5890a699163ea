/**
 * Every svc element, registered (each `define()` skips a tag already defined). The SDK imports this; a
 * page that uses the elements without the SDK may import it too.
 */
import './events.ts'
// The card and modal displays' frames, which svc.min.js loads only when a widget first shows one.
import './dialog-frames/dialog-frames.ts'
export { SvcModal } from './modal/modal.ts'
export { SvcPrice } from './price/price.ts'
export { SvcSpinner } from './spinner/spinner.ts'
export { SvcBagUpsell } from './bag-upsell/bag-upsell.ts'
export { SvcOptionCard, type OptionProduct } from './option-card/option-card.ts'
export { SvcSeatMap } from './seat-map/seat-map.ts'
export { SvcBasket } from './basket/basket.ts'
export { SvcUpsell } from './upsell/upsell.ts'
export { sessionContext, localeContext } from './context.ts'
export { localeFor, addLocale, formatPrice, type Locale } from './i18n/index.ts'
export { themeCss, themeSheet, tokenVars, THEME_KEYS } from './theme.ts'
