import type { Meta } from '@storybook/web-components-vite'
import { phoneStory, story, variant, widgetStories, type WidgetArgs } from '../support/widget.ts'

export default {
  title: 'Widgets/Seat map',
  component: 'svc-seat-map',
  ...widgetStories('svc-seat-map', ['seat'], {
    description:
      'Seat maps per flight: decks, aisles, exits and wings, a legend and price bands; one seat per passenger (a lap infant sits on a lap), chosen with a pointer or the arrow keys.',
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

// phones: every column of a wide-body cabin on the screen, seats at least 24 px (phoneStory checks it)
export const PhoneCard320 = phoneStory(320, 'card', 'valid')
export const PhoneEmbedded320 = phoneStory(320, 'embedded', 'offers')
export const PhoneModal375 = phoneStory(375, 'modal', 'valid')
export const PhoneRightToLeft320 = phoneStory(320, 'modal', 'valid', { language: 'ar-SA' })
export const PhoneDarkTheme375 = phoneStory(375, 'embedded', 'valid', { look: 'dark' })
/** An A380, ten abreast (3-4-3): still 24 px seats on a 320 px screen. */
export const PhoneTenAbreast320 = phoneStory(320, 'embedded', 'offers', { flight: '1' })
/** The A380 in a seller's 260 px column: the cabin scrolls in its own box, row numbers kept, the cut edge faded. */
export const PhoneNarrowColumn320 = phoneStory(320, 'embedded', 'offers', { flight: '1', column: '260px' })

// a real airline's map (Duffel-like, test/browser/fixtures/duffel-like-search.ts): Business then Economy on
// one deck with their own columns, missing seats as gaps, exit rows, no wing, the airline's seat notices
const REAL = { search: 'duffel_like' } as const
export const RealAirlineCard = story('card', 'offers', REAL)
export const RealAirlineEmbedded = story('embedded', 'offers', REAL)
export const RealAirlineModal = story('modal', 'offers', REAL)
/** The real airline's ten abreast (3-4-3) and four abreast (1-2-1) cabins on a 320 px phone. */
export const RealAirlinePhone320 = phoneStory(320, 'embedded', 'offers', REAL)
