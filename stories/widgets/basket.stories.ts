import type { Meta } from '@storybook/web-components-vite'
import { story, widgetStories, type WidgetArgs } from '../support/widget.ts'

export default {
  title: 'Widgets/Basket',
  component: 'svc-basket',
  ...widgetStories('svc-basket', ['bag', 'seat', 'priority_boarding'], { description: "The traveller's extras with their validity and actions, and the total: what `onBasketChange` reports, as the widget shows it.", displays: false }),
} satisfies Meta<WidgetArgs>
export const Offers = story('embedded', 'offers')
export const Loading = story('embedded', 'loading')
export const Valid = story('embedded', 'valid')
export const Checking = story('embedded', 'checking')
export const PriceChanged = story('embedded', 'price_changed')
export const Unavailable = story('embedded', 'unavailable')
export const Expired = story('embedded', 'expired')
export const Error = story('embedded', 'error')
export const NoProducts = story('embedded', 'no_products')
export const OnePassenger = story('embedded', 'valid', { party: 'one' })
export const FivePassengersLapInfant = story('embedded', 'valid', { party: 'five' })
export const LongNames = story('embedded', 'valid', { party: 'long_names' })
export const RightToLeft = story('embedded', 'price_changed', { language: 'ar-SA' })
export const DarkTheme = story('embedded', 'price_changed', { look: 'dark' })
export const SellerTheme = story('embedded', 'valid', { look: 'seller' })
