/**
 * What the console's end-to-end suites share: an operator key made by the operator CLI, signing in, and a page checked as
 * a person meets it (axe, no sideways scroll at 320 px, screenshots at 1200 and 320 px).
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { root } from '../../helpers/process.ts'
import { axeViolations, eventually } from './browser.ts'

/** A new operator key of every seller, made with `npm run operator -- create` on the database at `databaseUrl`. */
export function createOperatorKey(databaseUrl: string, name: string): string {
  const made = spawnSync(process.execPath, ['dist/node/server/cli/operator.js', 'create', '--name', name], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
  })
  assert.equal(made.status, 0, made.stderr)
  return /^\s+key\s+(svc_op_\S+)$/m.exec(made.stdout)![1]!
}

export const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name })

/** Signs in at `base`/console with the key, typed as a person would, and waits for the sellers page. */
export async function signIn(page: Page, base: string, operatorKey: string): Promise<void> {
  await page.goto(`${base}/console`)
  await heading(page, 'Sign in to the operator console').waitFor()
  await page.getByLabel('Operator key').fill(operatorKey)
  await page.keyboard.press('Enter')
  await heading(page, 'Sellers').waitFor()
}

/** The page as it is now: no serious axe violation, screenshots at 1200 and 320 px into `shots`, no sideways scroll at 320. */
export async function checkPage(page: Page, shots: string, name: string): Promise<void> {
  await page.setViewportSize({ width: 1200, height: 900 })
  assert.deepEqual(await axeViolations(page), [], `no serious accessibility violations on ${name}`)
  await page.screenshot({ path: join(shots, `console-${name}-1200.png`), fullPage: true })
  await page.setViewportSize({ width: 320, height: 800 })
  await eventually(`${name} fits 320 px`, () =>
    page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
  ).catch(async (e: Error) => {
    const w = await page.evaluate(() => document.documentElement.scrollWidth)
    assert.fail(`${e.message} (scrollWidth ${w})`)
  })
  assert.deepEqual(await axeViolations(page), [], `no serious accessibility violations on ${name} at 320 px`)
  await page.screenshot({ path: join(shots, `console-${name}-320.png`), fullPage: true })
  await page.setViewportSize({ width: 1200, height: 900 })
}
