/**
 * The demo as `npm start` runs it, for one e2e file: the compiled service on a fresh SQLite file (no
 * SVC_DEMO_API_KEY unless given: the first start creates the demo seller, and the demo checkout uses its
 * key), a Chromium, and a folder for the file's screenshots.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { root, startServer, type RunningServer } from '../../helpers/process.ts'
import { launchChromium, screenshotDir } from './browser.ts'

export interface Demo {
  server: RunningServer
  browser: Browser
  shots: string
  stop(): Promise<void>
}

export async function startDemo(name: string, env: Record<string, string> = {}): Promise<Demo> {
  assert.ok(
    existsSync(join(root, 'dist/javascript/v2.2/svc.min.js')),
    'the browser SDK is not built: run `npm run build` first',
  )
  const dbDir = mkdtempSync(join(tmpdir(), `svc-e2e-${name}-`))
  const server = await startServer({ DATABASE_URL: `sqlite:${join(dbDir, 'svc.db')}`, ...env }, { compiled: true })
  const browser = await launchChromium()
  return {
    server,
    browser,
    shots: screenshotDir(name),
    async stop() {
      await browser.close()
      await server.stop()
      rmSync(dbDir, { recursive: true, force: true })
    },
  }
}
