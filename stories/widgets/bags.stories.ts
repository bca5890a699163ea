import type { Meta } from '@storybook/web-components-vite'
import { story, variant, widgetStories, type WidgetArgs } from '../support/widget.ts'

export default {
  title: 'Widgets/Bags',
  component: 'svc-bag-upsell',
  ...widgetStories('svc-bag-upsell', ['bag'], {
    description:
      "Bags per passenger per journey: the allowance the ticket includes and every bag on sale, with a quantity stepper bounded by the offer's limit.",
  }),
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
export const CardPurchased = story('card', 'purchased')
export const CardOnePassenger = variant('card', 'OnePassenger')
export const CardFivePassengersLapInfant = variant('card', 'FivePassengersLapInfant')
export const CardLongNames = variant('card', 'LongNames')
export const CardRightToLeft = variant('card', 'RightToLeft')
export const CardDarkTheme = variant('card', 'DarkTheme')
export const CardSellerTheme = variant('card', 'SellerTheme')

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
export const EmbeddedPurchased = story('embedded', 'purchased')
export const EmbeddedOnePassenger = variant('embedded', 'OnePassenger')
export const EmbeddedFivePassengersLapInfant = variant('embedded', 'FivePassengersLapInfant')
export const EmbeddedLongNames = variant('embedded', 'LongNames')
export const EmbeddedRightToLeft = variant('embedded', 'RightToLeft')
export const EmbeddedDarkTheme = variant('embedded', 'DarkTheme')
export const EmbeddedSellerTheme = variant('embedded', 'SellerTheme')

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
export const ModalPurchased = story('modal', 'purchased')
export const ModalOnePassenger = variant('modal', 'OnePassenger')
export const ModalFivePassengersLapInfant = variant('modal', 'FivePassengersLapInfant')
export const ModalLongNames = variant('modal', 'LongNames')
export const ModalRightToLeft = variant('modal', 'RightToLeft')
export const ModalDarkTheme = variant('modal', 'DarkTheme')
export const ModalSellerTheme = variant('modal', 'SellerTheme')
