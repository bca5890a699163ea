/**
 * Chromium for the end-to-end suites: Debian's /usr/bin/chromium driven by playwright-core (which never
 * downloads a browser here: it is only ever given an executablePath). Set CHROMIUM_PATH to use another.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Locator, type Page } from 'playwright-core'
import { patience } from '../../helpers/patience.ts'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

/**
 * Chromium, whose every context (and so every page: newPage makes one) waits patience(30 s) for an action or
 * a selector instead of Playwright's fixed 30 s, the limit a busy machine reaches first.
 */
export async function launchChromium(): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`)
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: patience(30_000) })
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (options) => {
    const context = await newContext(options)
    context.setDefaultTimeout(patience(30_000))
    return context
  }
  return browser
}

/**
 * A temporary folder for screenshots (never the repo); its path is printed so people can look.
 * SVC_E2E_SCREENSHOTS names a folder to use instead, to keep them where one looks (e.g. /tmp/phones).
 */
export function screenshotDir(name: string): string {
  const chosen = process.env['SVC_E2E_SCREENSHOTS']
  const dir = chosen ? join(chosen, name) : mkdtempSync(join(tmpdir(), `svc-e2e-${name}-`))
  if (chosen) mkdirSync(dir, { recursive: true })
  console.log(`# screenshots: ${dir}`)
  return dir
}

/** What went wrong in the page: uncaught errors and Content-Security-Policy violations. */
export function watchPage(page: Page): { problems: string[] } {
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`)
  })
  return { problems }
}

/** Waits until `check` returns a truthy value (polling), or fails with `what` and the last value seen. */
export async function eventually<T>(what: string, check: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  const limit = patience(timeoutMs)
  const deadline = Date.now() + limit
  let last: unknown
  for (;;) {
    try {
      last = await check()
      if (last) return last as T
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline)
      assert.fail(
        `${what}: not so after ${limit} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`,
      )
    await new Promise((r) => setTimeout(r, 150))
  }
}

/** Waits until the locator's text matches. */
export async function expectText(locator: Locator, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  let seen = '(nothing yet)'
  await eventually(
    `text of ${locator} matches ${pattern}`,
    async () => {
      seen = (await locator.innerText({ timeout: patience(2000) })).replace(/\s+/g, ' ')
      return pattern.test(seen)
    },
    timeoutMs,
  ).catch((e: Error) => assert.fail(`${e.message}\n  text was: ${seen}`))
  return seen
}

/** Serious or critical accessibility violations axe finds in the page, as `rule (count)`. */
export async function axeViolations(page: Page): Promise<string[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  await page.evaluate(source)
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: unknown,
            o: unknown,
          ): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }>
        }
      }
    ).axe
    const r = await axe.run(document, { resultTypes: ['violations'] })
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.nodes.length})`)
  })
}
