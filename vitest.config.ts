/**
 * `npm run test:stories`: every story in stories/ runs as a test (render, its play function, then axe
 * through the a11y addon) in Debian's Chromium, driven by playwright-core (no browser download).
 */
import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { storybookTest } from '@storybook/addon-vitest/vitest-plugin'
import { playwright } from '@vitest/browser-playwright'

export default defineConfig({
  plugins: [storybookTest({ configDir: '.storybook' })],
  test: {
    name: 'storybook',
    // Story files at once: Vitest's default is one fewer than the cores, one on CI's two. Two pages at once
    // took the run from 107 s to 79–83 s there, all 226 passing (axe over the seat map is most of it).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({
        launchOptions: {
          executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
          args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
        },
      }),
      instances: [{ browser: 'chromium' }],
    },
  },
})
