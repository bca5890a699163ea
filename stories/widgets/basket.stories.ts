import type { Meta } from '@storybook/web-components-vite'
import { story, variant, widgetStories, type WidgetArgs } from '../support/widget.ts'

export default {
  title: 'Widgets/Basket',
  component: 'svc-basket',
  ...widgetStories('svc-basket', ['bag', 'seat', 'priority_boarding'], {
    description:
      "The traveller's extras with their validity and actions, and the total: what `onBasketChange` reports, as the widget shows it.",
    displays: false,
  }),
} satisfies Meta<WidgetArgs>
export const Offers = story('embedded', 'offers')
export const Loading = story('embedded', 'loading')
export const Valid = story('embedded', 'valid')
export const Checking = story('embedded', 'checking')
export const PriceChanged = story('embedded', 'price_changed')
export const Unavailable = story('embedded', 'unavailable')
export const Expired = story('embedded', 'expired')
// Not `Error`, which would hide the global in this module.
export const LoadError = { ...story('embedded', 'error'), name: 'Error' }
export const NoProducts = story('embedded', 'no_products')
export const Purchased = story('embedded', 'purchased')
export const OnePassenger = variant('embedded', 'OnePassenger')
export const FivePassengersLapInfant = variant('embedded', 'FivePassengersLapInfant')
export const LongNames = variant('embedded', 'LongNames')
export const RightToLeft = variant('embedded', 'RightToLeft')
export const DarkTheme = variant('embedded', 'DarkTheme')
export const SellerTheme = variant('embedded', 'SellerTheme')
