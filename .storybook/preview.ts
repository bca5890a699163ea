/**
 * Every story: the elements registered, every translation loaded (the SDK would fetch them; stories have
 * no server), controls and docs from custom-elements.json, and axe failing a story's test on any
 * violation.
 */
import type { Preview } from '@storybook/web-components-vite'
import { setCustomElementsManifest } from '@storybook/web-components-vite'
import manifest from '../custom-elements.json'
import '../components/index.ts'
import { addLocale } from '../components/i18n/index.ts'
import type { Strings } from '../components/i18n/index.ts'

setCustomElementsManifest(manifest)

const tables = import.meta.glob<{ default: Strings }>('../components/i18n/locales/*.ts', { eager: true })
for (const [path, table] of Object.entries(tables)) addLocale(path.replace(/^.*\/(.*)\.ts$/, '$1'), table.default)

const preview: Preview = {
  parameters: {
    layout: 'padded',
    controls: { expanded: true, sort: 'requiredFirst' },
    a11y: {
      test: 'error',
      options: { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] } },
    },
  },
  tags: ['autodocs'],
}

export default preview
