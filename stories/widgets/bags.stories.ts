import type { Meta } from '@storybook/web-components-vite'
import { story, widgetStories, type WidgetArgs } from '../support/widget.ts'

export default {
  title: 'Widgets/Bags',
  component: 'svc-bag-upsell',
  ...widgetStories('svc-bag-upsell', ['bag'], { description: "Bags per passenger per journey: the allowance the ticket includes and every bag on sale, with a quantity stepper bounded by the offer's limit." }),
} satisfies Meta<WidgetArgs>

// card
export const CardOffers = story('card', 'offers')
export const CardLoading = story('card', 'loading')
export const CardValid = story('card', 'valid')
export const CardChecking = story('card', 'checking')
export const CardPriceChanged = story('card', 'price_changed')
export const CardUnavailable = story('card', 'unavailable')
export const CardExpired = story('card', 'expired')
export const CardError = story('card', 'error')
export const CardNoProducts = story('card', 'no_products')
export const CardOnePassenger = story('card', 'valid', { party: 'one' })
export const CardFivePassengersLapInfant = story('card', 'valid', { party: 'five' })
export const CardLongNames = story('card', 'valid', { party: 'long_names' })
export const CardRightToLeft = story('card', 'price_changed', { language: 'ar-SA' })
export const CardDarkTheme = story('card', 'price_changed', { look: 'dark' })
export const CardSellerTheme = story('card', 'valid', { look: 'seller' })

// embedded
export const EmbeddedOffers = story('embedded', 'offers')
export const EmbeddedLoading = story('embedded', 'loading')
export const EmbeddedValid = story('embedded', 'valid')
export const EmbeddedChecking = story('embedded', 'checking')
export const EmbeddedPriceChanged = story('embedded', 'price_changed')
export const EmbeddedUnavailable = story('embedded', 'unavailable')
export const EmbeddedExpired = story('embedded', 'expired')
export const EmbeddedError = story('embedded', 'error')
export const EmbeddedNoProducts = story('embedded', 'no_products')
export const EmbeddedOnePassenger = story('embedded', 'valid', { party: 'one' })
export const EmbeddedFivePassengersLapInfant = story('embedded', 'valid', { party: 'five' })
export const EmbeddedLongNames = story('embedded', 'valid', { party: 'long_names' })
export const EmbeddedRightToLeft = story('embedded', 'price_changed', { language: 'ar-SA' })
export const EmbeddedDarkTheme = story('embedded', 'price_changed', { look: 'dark' })
export const EmbeddedSellerTheme = story('embedded', 'valid', { look: 'seller' })

// modal
export const ModalOffers = story('modal', 'offers')
export const ModalLoading = story('modal', 'loading')
export const ModalValid = story('modal', 'valid')
export const ModalChecking = story('modal', 'checking')
export const ModalPriceChanged = story('modal', 'price_changed')
export const ModalUnavailable = story('modal', 'unavailable')
export const ModalExpired = story('modal', 'expired')
export const ModalError = story('modal', 'error')
export const ModalNoProducts = story('modal', 'no_products')
export const ModalOnePassenger = story('modal', 'valid', { party: 'one' })
export const ModalFivePassengersLapInfant = story('modal', 'valid', { party: 'five' })
export const ModalLongNames = story('modal', 'valid', { party: 'long_names' })
export const ModalRightToLeft = story('modal', 'price_changed', { language: 'ar-SA' })
export const ModalDarkTheme = story('modal', 'price_changed', { look: 'dark' })
export const ModalSellerTheme = story('modal', 'valid', { look: 'seller' })
