import type { Meta } from '@storybook/web-components-vite'
import { story, widgetStories, type WidgetArgs } from '../support/widget.ts'

export default {
  title: 'Widgets/Bags',
  component: 'svc-bag-upsell',
  ...widgetStories('svc-bag-upsell', ['bag']),
} satisfies Meta<WidgetArgs>

export const CardOffers = story('card', 'offers')
export const EmbeddedOffers = story('embedded', 'offers')
export const ModalOffers = story('modal', 'offers')
