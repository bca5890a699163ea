/**
 * The live basket (docs/decisions.md "Live basket updates") in Chromium, from the built SDK: a basket check
 * started by the seller's backend, not by the page, shows in the open widget within seconds, with its
 * action (accept the new price), and reaches the seller's onBasketChange, with no new Svc.init: the
 * widget element on the page is the very one that was there before.
 * - server: the demo checkout of `npm start`; the "backend" is this test, calling the API with the API key;
 * - sandbox: the offline sandbox example; the "backend" is the page's Svc.sandbox.fetch with the sandbox's key.
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { root, startServer, type RunningServer } from '../helpers/process.ts'
import { serveStatic, type StaticServer } from '../../scripts/static-server.ts'
import { eventually, expectText, launchChromium, watchPage } from './support/browser.ts'
import { patience } from '../helpers/patience.ts'

const API_KEY = 'svc_test_live_basket_e2e_key_0001'
const SECONDS = 5_000

let server: RunningServer
let files: StaticServer
let browser: Browser
let dbDir: string

before(async () => {
  assert.ok(
    existsSync(join(root, 'dist/javascript/v2.2/svc.min.js')),
    'the browser SDK is not built: run `npm run build` first',
  )
  dbDir = mkdtempSync(join(tmpdir(), 'svc-e2e-live-'))
  server = await startServer(
    { DATABASE_URL: `sqlite:${join(dbDir, 'svc.db')}`, SVC_DEMO_API_KEY: API_KEY },
    { compiled: true },
  )
  files = await serveStatic(root)
  browser = await launchChromium()
})

after(async () => {
  await browser?.close()
  await files?.close()
  await server?.stop()
  if (dbDir) rmSync(dbDir, { recursive: true, force: true })
})

/** Marks the bag widget element, so the test can tell afterwards that it was not replaced (no re-init). */
const markWidget = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const el = document.querySelector(sel) as (Element & { __liveMark?: number }) | null
    if (!el) throw new Error(`no ${sel}`)
    el.__liveMark = 1
  }, selector)
const stillMarked = (page: Page, selector: string) =>
  page.evaluate((sel) => (document.querySelector(sel) as { __liveMark?: number } | null)?.__liveMark === 1, selector)

test(
  "server: a basket check by the seller's backend shows in the open demo checkout within seconds, no re-init",
  { timeout: patience(120_000) },
  async () => {
    const context = await browser.newContext({
      locale: 'en-GB',
      timezoneId: 'Europe/London',
      viewport: { width: 1280, height: 900 },
    })
    const page = await context.newPage()
    const { problems } = watchPage(page)
    await page.goto(`${server.base}/`)
    const firstBag = () =>
      page
        .locator('svc-bag-upsell .journey')
        .first()
        .getByRole('button', { name: /^Add one (Checked|Hold) bag\W+23 kg for Passenger 1$/ })
    // The page starts a normal checkout by itself; a scenario chosen before it has loaded would be replaced by it.
    await firstBag().waitFor({ timeout: patience(20_000) })
    // The price-change flight: its next check prices bags 20 % higher.
    await page.getByText('Demo: sandbox scenario').click()
    await page.getByRole('radio', { name: /^Price change/ }).check()
    await page.getByRole('button', { name: 'Start a new checkout' }).click()
    await expectText(page.getByRole('region', { name: 'Your flights' }), /BA 9001\b/)
    await firstBag().click()
    const summary = page.getByRole('complementary', { name: 'Booking summary' })
    await eventually(
      'the bag in the booking summary',
      async () =>
        (await summary
          .getByRole('listitem')
          .filter({ hasText: /Checked bag/ })
          .count()) === 1,
    )
    await markWidget(page, '#bags svc-upsell')

    // The seller's backend checks the basket (as before payment), with its API key, not through the page.
    const tripId = await page.evaluate(() => sessionStorage.getItem('skyshop.checkout'))
    assert.ok(tripId)
    const started = Date.now()
    const res = await fetch(`${server.base}/v2.2/trip/${tripId}/basket/check`, {
      method: 'POST',
      headers: { authorization: `Basic ${btoa(`${API_KEY}:`)}` },
    })
    assert.equal(res.status, 202, await res.text())

    // The widget shows the new price with its action, and the page's onBasketChange saw it.
    const accept = page.locator('#bags').getByRole('button', { name: /Accept new price/ })
    await accept.waitFor({ timeout: patience(3 * SECONDS) })
    await expectText(summary, /Price changed/, 3 * SECONDS)
    const took = Date.now() - started
    assert.ok(await stillMarked(page, '#bags svc-upsell'), 'the same widget element: no new Svc.init')
    console.log(`[live] server: backend check → widget shows the price change in ${took} ms`)

    // The traveller acts on it in the widget: the item is valid again at the new price.
    await accept.click()
    await eventually(
      'the summary no longer flags the bag',
      async () => (await summary.getByText('Price changed').count()) === 0,
    )
    assert.deepEqual(problems, [], 'no page errors')
    await context.close()
  },
)

test(
  'sandbox: a basket check by the "backend" (the sandbox API with its key) shows in the open widget, no re-init',
  { timeout: patience(120_000) },
  async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    const { problems } = watchPage(page)
    await page.goto(`${files.origin}/examples/sandbox/index.html`)
    await page.waitForSelector('body[data-ready="true"]')
    await page.click('button[data-flight="9001"]')
    await page.waitForSelector('body[data-ready="true"]')
    await eventually('a bag added', () =>
      page.evaluate(() => {
        const bags = document.querySelector('#bags svc-upsell')?.shadowRoot?.querySelector('svc-bag-upsell')
        const plus = Array.from(
          bags?.shadowRoot?.querySelectorAll<HTMLButtonElement>('[part="stepper"] button:last-of-type') ?? [],
        ).find((b) => b.getAttribute('aria-disabled') === 'false')
        plus?.click()
        return Boolean(plus)
      }),
    )
    await page.waitForSelector('#basket-list li[data-type="bag"][data-state="valid"]')
    await markWidget(page, '#bags svc-upsell')

    const started = Date.now()
    const status = await page.evaluate(async () => {
      const sandbox = (
        window as unknown as {
          Svc: { sandbox: { apiKey(): Promise<string>; fetch(u: string, i: RequestInit): Promise<Response> } }
        }
      ).Svc.sandbox
      const tripId = JSON.parse(localStorage.getItem('example-sandbox:trip') ?? 'null')?.tripId as string
      const res = await sandbox.fetch(`/v2.2/trip/${tripId}/basket/check`, {
        method: 'POST',
        headers: { authorization: `Basic ${btoa(`${await sandbox.apiKey()}:`)}` },
      })
      return res.status
    })
    assert.equal(status, 202)
    await page.waitForSelector('#basket-list li[data-type="bag"][data-state="price_changed"]', {
      timeout: patience(3 * SECONDS),
    })
    await page
      .locator('#bags')
      .getByRole('button', { name: /Accept new price/ })
      .waitFor({ timeout: patience(3 * SECONDS) })
    console.log(`[live] sandbox: backend check → widget shows the price change in ${Date.now() - started} ms`)
    assert.ok(await stillMarked(page, '#bags svc-upsell'), 'the same widget element: no new Svc.init')
    assert.deepEqual(problems, [], 'no page errors')
    await context.close()
  },
)
