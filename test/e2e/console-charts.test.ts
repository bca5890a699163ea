/**
 * The operator console's charts end to end: `npm start`'s compiled server on a fresh SQLite file, the built
 * console (run `npm run build` first) in Chromium. The demo seller books two trips through the public API
 * (the sandbox airline's calls are its supplier calls; the worker settles the orders), and two orders of
 * other statuses hours ago are written to the store as they are. The operator signs in and sees, on the
 * seller's page, its supplier calls and times over the last hour, and on the orders page the orders of the
 * day by status: a legend in words, a summary that names the totals, and a table of the numbers that add up
 * to what the admin API counts. Each page passes axe and has no horizontal scroll at 320 px; screenshots at
 * 1200 and 320 px go to the folder the run prints (SVC_E2E_SCREENSHOTS names one).
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Locator, Page } from 'playwright-core'
import { root, startServer, type RunningServer, overHttp } from '../helpers/process.ts'
import { addItems, checkedBag, createTripOnFlight, fulfill, fulfillRequest, readSearch } from '../helpers/flows.ts'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { feedOrder, tripWithOrders } from '../store/fixtures.ts'
import { eventually, expectText, launchChromium, screenshotDir, watchPage } from './support/browser.ts'
import { checkPage, createOperatorKey, heading, signIn } from './support/console.ts'
import { patience } from '../helpers/patience.ts'

const TEST_TIMEOUT = patience(180_000)
const SELLER_KEY = 'svc_test_console_charts_key_01'

let server: RunningServer
let browser: Browser
let shots: string
let dbDir: string
let operatorKey: string

const admin = async (path: string) => {
  const res = await fetch(`${server.base}/admin/v1${path}`, { headers: { authorization: `Bearer ${operatorKey}` } })
  assert.equal(res.status, 200, await res.clone().text())
  return (await res.json()) as any
}

before(async () => {
  assert.ok(existsSync(join(root, 'dist/console/assets/console.js')), 'the console is not built: run `npm run build`')
  dbDir = mkdtempSync(join(tmpdir(), 'svc-e2e-console-charts-'))
  const DATABASE_URL = `sqlite:${join(dbDir, 'svc.db')}`
  server = await startServer({ DATABASE_URL, SVC_DEMO_API_KEY: SELLER_KEY }, { compiled: true })
  operatorKey = createOperatorKey(DATABASE_URL, 'Charts')
  browser = await launchChromium()
  shots = screenshotDir('console-charts')
})

after(async () => {
  await browser?.close()
  await server?.stop()
  if (dbDir) rmSync(dbDir, { recursive: true, force: true })
})

/** A trip of the demo seller booked with one checked bag, once its order has settled. */
async function book(): Promise<void> {
  const t = overHttp(server.base, SELLER_KEY)
  const created = await createTripOnFlight(t, '117')
  const search = await eventually('the search has products', async () => {
    const s = await readSearch(t, created)
    return Object.keys(s.results.products).length > 0 ? s : undefined
  })
  const basket = await addItems(t, created, [{ product_id: checkedBag(search!, 'p1').product_id, passenger_id: 'p1' }])
  const res = await fulfill(t, created, fulfillRequest(created, basket.trip_state_hash))
  assert.equal(res.statusCode, 202, res.body)
  await eventually('the order settled', async () => {
    const d = await admin(`/trips/${created.trip_id}`)
    return d.orders.length > 0 && d.orders.every((o: any) => o.status === 'succeeded' || o.status === 'failed')
  })
}

/** Orders of other statuses, changed hours ago, written to the store as they are (as a past day left them). */
async function pastOrders(sellerId: string): Promise<void> {
  const store = new SqliteStore(join(dbDir, 'svc.db'))
  try {
    const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString()
    for (const [id, status, hours] of [
      ['ord_chart_failed', 'failed', 3.5],
      ['ord_chart_cancelling', 'cancelling', 5.5],
    ] as const) {
      const o = feedOrder(`trip_${id}`, id, { status, updated_at: ago(hours) })
      await store.insertTrip(tripWithOrders(o.trip_id, sellerId, [o]), { orders: [o] })
    }
  } finally {
    await store.close()
  }
}

/** The chart's table as text, rows of cells, header first (opening its "Show the numbers"). */
async function numbers(chart: Locator): Promise<string[][]> {
  await chart.getByText('Show the numbers').click()
  const table = chart.getByRole('region', { name: /the numbers/ }).locator('table')
  await table.waitFor()
  return table
    .locator('tr')
    .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent!.trim())))
}

/** The sum of a table's column `name` (numbers written with thousands separators; a dash is none). */
const columnSum = (rows: string[][], name: string) => {
  const i = rows[0]!.indexOf(name)
  assert.ok(i > 0, `a column ${name} in ${rows[0]!.join(', ')}`)
  return rows.slice(1).reduce((n, r) => n + (Number(r[i]!.replace(/,/g, '')) || 0), 0)
}

test(
  'the seller page charts its supplier calls and times, the orders page the day by status',
  { timeout: TEST_TIMEOUT },
  async () => {
    await book()
    await book()
    const sellerId = (await admin('/sellers')).data[0].seller_id as string
    await pastOrders(sellerId)
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, locale: 'en-GB' })
    const page: Page = await context.newPage()
    const { problems } = watchPage(page)
    try {
      await signIn(page, server.base, operatorKey)

      // The seller: its supplier calls and times of the last hour.
      await page.locator(`a[href="/console/sellers/${sellerId}"]`).click()
      await page.getByRole('heading', { level: 2, name: 'Supplier, last hour' }).waitFor()
      const health = await admin(`/sellers/${sellerId}/supplier-health`)
      assert.ok(health.calls > 0, 'booking made supplier calls')
      const calls = page.locator('svc-console-chart').filter({ hasText: 'Supplier calls per 5 minutes' })
      await expectText(calls.getByRole('list', { name: 'Legend' }), /^OK Failed$/)
      const callsImg = calls.getByRole('img')
      assert.match(
        (await callsImg.getAttribute('aria-label'))!,
        new RegExp(
          `^Supplier calls per 5 minutes \\(UTC\\), 12 bars from .* Totals: OK ${health.calls - health.errors}, Failed ${health.errors} calls\\.`,
        ),
      )
      assert.ok((await calls.locator('rect.bar').count()) >= 1, 'bars drawn')
      const callRows = await numbers(calls)
      assert.equal(callRows.length, 13, 'a header and 12 five-minute rows')
      assert.equal(columnSum(callRows, 'OK') + columnSum(callRows, 'Failed'), health.calls)
      const times = page.locator('svc-console-chart').filter({ hasText: 'Supplier time per 5 minutes' })
      await expectText(times.getByRole('list', { name: 'Legend' }), /^Median \(p50\) 95th percentile \(p95\)$/)
      assert.match(
        (await times.getByRole('img').getAttribute('aria-label'))!,
        /Median \(p50\) highest \d[\d,]* ms at \d\d:\d\d/,
      )
      await checkPage(page, shots, 'seller-charts')

      // Orders: the day by status, the two booked now and the two written hours ago.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Orders' }).click()
      await heading(page, 'Orders').waitFor()
      const day = page.locator('svc-console-chart').filter({ hasText: 'Orders by status, last 24 hours' })
      await expectText(day.getByRole('list', { name: 'Legend' }), /^Succeeded Failed Cancelling$/)
      assert.match(
        (await day.getByRole('img').getAttribute('aria-label'))!,
        /24 bars from \d\d:\d\d to \d\d:\d\d\. Totals: Succeeded 2, Failed 1, Cancelling 1 orders\./,
      )
      assert.equal(await day.locator('rect.bar').count(), 3, 'one bar part per status per hour with orders')
      const dayRows = await numbers(day)
      assert.equal(dayRows.length, 25)
      assert.deepEqual(
        ['Succeeded', 'Failed', 'Cancelling'].map((s) => columnSum(dayRows, s)),
        [2, 1, 1],
      )
      const byHour = await admin('/orders/by-hour')
      assert.equal(byHour.orders, 4)
      await checkPage(page, shots, 'orders-charts')
      assert.deepEqual(problems, [], 'no page error and no CSP violation')
    } catch (e) {
      await page.screenshot({ path: join(shots, 'console-charts-failure.png'), fullPage: true }).catch(() => {})
      throw e
    } finally {
      await context.close()
    }
  },
)
