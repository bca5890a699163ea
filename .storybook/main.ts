/**
 * Storybook for designers: every widget in every display and state, on the offline sandbox (no server).
 * `npm run storybook` (dev, port 6006) and `npm run build-storybook` (static, storybook-static/) work
 * offline; `npm run test:stories` runs every story as a test in Debian Chromium, with an axe check.
 */
import type { StorybookConfig } from '@storybook/web-components-vite'

const config: StorybookConfig = {
  stories: ['../stories/**/*.mdx', '../stories/**/*.stories.ts'],
  addons: ['@storybook/addon-docs', '@storybook/addon-a11y', '@storybook/addon-vitest'],
  framework: { name: '@storybook/web-components-vite', options: {} },
  // No telemetry and no update check: these machines have no network beyond the registry, and a
  // designer's laptop on a plane has none at all.
  core: { disableTelemetry: true, disableWhatsNewNotifications: true },
}

export default config
