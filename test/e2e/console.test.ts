/**
 * The operator console (/console) end to end: `npm start`'s compiled server on a fresh SQLite file, the built
 * console (run `npm run build` first) in Chromium. A seller makes a trip through the public API and fulfills
 * it (so its ticket has a record locator and it has an order); an operator key is made with
 * `npm run operator -- create`. The operator signs in, finds the trip by its record locator, reads its page,
 * rotates the seller's key and sees the new key once, retries a dead job, filters orders, and signs out.
 * Every page passes axe and has no horizontal scroll at 320 px. Text from data is text: a passenger named
 * `<img src=x onerror=alert(1)>` (a trip written to the store directly, since the API's name rules refuse
 * it), an operator key so named, and a dead job's error of that text all show as those characters.
 *
 * Screenshots of each page, at 1200 and 320 px, go to the folder the run prints (SVC_E2E_SCREENSHOTS names one).
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { root, startServer, type RunningServer, overHttp } from '../helpers/process.ts'
import { basic, type CreatedTrip } from '../helpers/build.ts'
import { addItems, checkedBag, createTripOnFlight, fulfill, fulfillRequest, readSearch } from '../helpers/flows.ts'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { job, trip } from '../store/fixtures.ts'
import { axeViolations, eventually, expectText, launchChromium, screenshotDir, watchPage } from './support/browser.ts'
import { checkPage, createOperatorKey, heading } from './support/console.ts'
import { patience } from '../helpers/patience.ts'

const TEST_TIMEOUT = patience(180_000)
const SELLER_KEY = 'svc_test_console_e2e_key_000001'
const HOSTILE = '<img src=x onerror=alert(1)>'

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
  dbDir = mkdtempSync(join(tmpdir(), 'svc-e2e-console-'))
  const DATABASE_URL = `sqlite:${join(dbDir, 'svc.db')}`
  server = await startServer({ DATABASE_URL, SVC_DEMO_API_KEY: SELLER_KEY }, { compiled: true })
  operatorKey = createOperatorKey(DATABASE_URL, `Ops ${HOSTILE}`)
  browser = await launchChromium()
  shots = screenshotDir('console')
})

after(async () => {
  await browser?.close()
  await server?.stop()
  if (dbDir) rmSync(dbDir, { recursive: true, force: true })
})

/** A fulfilled trip of the demo seller (one checked bag), once its order has settled; the trip. */
async function bookedTrip(): Promise<CreatedTrip> {
  const t = overHttp(server.base, SELLER_KEY)
  const created = await createTripOnFlight(t, '117')
  // The sandbox airline answers a search at once; a worker may still be writing it when the trip is created.
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
  return created
}

/** A trip and a dead job written to the store as they are (what the API's rules would never let in). */
async function hostileRecords(sellerId: string): Promise<{ tripId: string; jobId: string }> {
  const store = new SqliteStore(join(dbDir, 'svc.db'))
  try {
    const now = new Date().toISOString()
    const passenger = {
      passenger_id: 'p1',
      type: 'adult' as const,
      on_lap_of: null,
      first_names: HOSTILE,
      surname: 'Lovelace',
      date_of_birth: null,
      gender: null,
      title: null,
      metadata: {},
      loyalty_programs: [],
      identity_documents: [],
    }
    await store.insertTrip(
      trip('trip_console_hostile', sellerId, { created_at: now, updated_at: now, passengers: [passenger] }),
    )
    // A kind no worker runs, so a retry leaves it pending (due) for the page to show, not dead again at once.
    await store.enqueueJob(
      job('job_console_dead', {
        kind: 'console_e2e_probe',
        status: 'dead',
        attempts: 3,
        max_attempts: 3,
        last_error: HOSTILE,
        payload: {},
      }),
    )
    return { tripId: 'trip_console_hostile', jobId: 'job_console_dead' }
  } finally {
    await store.close()
  }
}

test(
  'an operator signs in, finds a trip, rotates a key, retries a dead job and signs out',
  { timeout: TEST_TIMEOUT },
  async () => {
    const booked = await bookedTrip()
    const sellerId = (await admin('/sellers')).data[0].seller_id as string
    const hostile = await hostileRecords(sellerId)
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, locale: 'en-GB' })
    const page = await context.newPage()
    const { problems } = watchPage(page)
    const dialogs: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    try {
      // Sign in.
      await page.goto(`${server.base}/console`)
      await heading(page, 'Sign in to the operator console').waitFor()
      await checkPage(page, shots, 'sign-in')
      // By keyboard: the key typed into its labelled field, Enter submits.
      await page.getByLabel('Operator key').focus()
      await page.keyboard.type(operatorKey)
      await page.keyboard.press('Enter')
      await heading(page, 'Sellers').waitFor()
      assert.equal(await page.getByLabel('Operator key').count(), 0)
      await expectText(page.locator('header'), new RegExp(`Ops ${HOSTILE.replace(/[()]/g, '\\$&')}`))
      const cookies = await context.cookies()
      assert.ok(!JSON.stringify(cookies).includes(operatorKey), 'the key is not in a cookie')
      assert.deepEqual(
        cookies.map((c) => [c.name, c.httpOnly, c.sameSite]),
        [['svc_console', true, 'Strict']],
      )
      await page.getByRole('link', { name: 'Demo seller' }).or(page.locator('ul.cards a').first()).first().waitFor()
      await checkPage(page, shots, 'sellers')

      // Find the trip by its record locator, and read its page.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Trips' }).click()
      await heading(page, 'Find a trip').waitFor()
      await page.getByLabel('Record locator or trip id').fill('ABC120')
      await page.getByRole('button', { name: 'Find' }).click()
      await page.getByRole('link', { name: booked.trip_id }).waitFor()
      await checkPage(page, shots, 'trip-search')
      await page.getByRole('link', { name: booked.trip_id }).click()
      await heading(page, new RegExp(booked.trip_id)).waitFor()
      await expectText(page.getByRole('list', { name: 'Passengers' }), /Ada Lovelace.*Charles Babbage/)
      await expectText(page.getByRole('list', { name: 'Segments' }), /LHR → JFK/)
      await expectText(page.getByRole('list', { name: 'Basket' }), /bag/i)
      await expectText(page.getByRole('list', { name: 'Orders' }), /succeeded|failed/)
      assert.equal(new URL(page.url()).pathname, `/console/trips/${booked.trip_id}`)
      await checkPage(page, shots, 'trip')

      // Found by its id: a trip whose passenger's name is markup, shown as text, never run; then the same
      // page from a deep link (the server answers the page for any /console/… path).
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Trips' }).click()
      await page.getByLabel('Search by').selectOption('trip')
      await page.getByLabel('Record locator or trip id').fill(hostile.tripId)
      await page.keyboard.press('Enter')
      await heading(page, new RegExp(hostile.tripId)).waitFor()
      assert.equal(await page.locator('.passenger').first().innerText(), `${HOSTILE} Lovelace`)
      assert.equal(await page.locator('svc-console img').count(), 0, 'no element made from data')
      await page.goto(`${server.base}/console/trips/${hostile.tripId}`)
      await heading(page, new RegExp(hostile.tripId)).waitFor()
      assert.equal(await page.locator('.passenger').first().innerText(), `${HOSTILE} Lovelace`)

      // A seller: rotate its key, the new one shown once.
      await page.getByRole('link', { name: 'Sellers' }).click()
      await page.locator(`a[href="/console/sellers/${sellerId}"]`).click()
      await page.getByRole('button', { name: 'Rotate key' }).waitFor()
      await expectText(page.getByRole('list', { name: 'API keys' }), /active/)
      await checkPage(page, shots, 'seller')
      await page.getByRole('button', { name: 'Rotate key' }).click()
      const dialog = page.getByRole('dialog', { name: 'Rotate the API key' })
      await dialog.getByLabel('Grace period, hours').fill('1')
      await dialog.getByRole('button', { name: 'Rotate key' }).click()
      const shown = dialog.getByLabel('New API key')
      const newKey = (await shown.innerText()).trim()
      assert.match(newKey, /^svc_test_/)
      assert.deepEqual(await axeViolations(page), [], 'no serious accessibility violations in the dialog')
      await page.screenshot({ path: join(shots, 'console-rotate-dialog-1200.png') })
      // Focus is on Done, beside the key: Enter closes the dialog.
      await page.keyboard.press('Enter')
      await dialog.waitFor({ state: 'hidden' })
      await eventually(
        'the new key is gone once the dialog closes',
        async () => (await page.getByLabel('New API key').count()) === 0,
      )
      await expectText(page.getByRole('list', { name: 'API keys' }), /grace/)
      // The old key, revoked now from its own card.
      await page.getByRole('button', { name: `Revoke key ${SELLER_KEY.slice(0, 12)}…` }).click()
      const revoke = page.getByRole('dialog', { name: 'Revoke a key' })
      await revoke.getByRole('button', { name: 'Revoke' }).click()
      await revoke.waitFor({ state: 'hidden' })
      await expectText(page.getByRole('list', { name: 'API keys' }), /revoked/)
      await expectText(page.getByRole('status').filter({ hasText: 'is revoked' }), /is revoked/)
      const works = await fetch(`${server.base}/v2.2/authorize`, {
        method: 'POST',
        headers: { authorization: basic(newKey) },
      })
      assert.notEqual(works.status, 401, 'the new key works')

      // Orders, filtered.
      await page.getByRole('link', { name: 'Orders' }).click()
      await heading(page, 'Orders').waitFor()
      await page.getByRole('combobox', { name: 'Status' }).selectOption('succeeded')
      await page.getByRole('button', { name: 'Filter' }).click()
      await expectText(page.getByRole('list', { name: 'Orders' }), new RegExp(booked.trip_id))
      await checkPage(page, shots, 'orders')

      // Jobs: the dead one, retried.
      await page.getByRole('link', { name: 'Jobs' }).click()
      await heading(page, 'Jobs').waitFor()
      const dead = page.getByRole('list', { name: 'Dead jobs' })
      await expectText(dead, new RegExp(hostile.jobId))
      assert.ok((await dead.innerText()).includes(HOSTILE), "the job's error as text")
      await checkPage(page, shots, 'jobs')
      await page.getByRole('button', { name: `Retry job ${hostile.jobId}` }).click()
      await expectText(
        page.getByRole('status').filter({ hasText: 'again' }),
        new RegExp(`${hostile.jobId}.*pending again`),
      )
      await eventually('the job left the dead ones', async () => (await page.getByText('No dead jobs.').count()) === 1)
      assert.equal((await admin('/jobs/dead')).data.length, 0)

      // Sign out: back at sign-in, and the session is gone on the server.
      await page.getByRole('button', { name: 'Sign out' }).click()
      await heading(page, 'Sign in to the operator console').waitFor()
      assert.equal(await page.evaluate(async () => (await fetch('/console/session')).status), 401)
      await page.goto(`${server.base}/console/jobs`)
      await heading(page, 'Sign in to the operator console').waitFor()

      assert.deepEqual(problems, [], 'no page error and no CSP violation')
      assert.deepEqual(dialogs, [], 'no script from data ran')
    } catch (e) {
      await page.screenshot({ path: join(shots, 'console-failure.png'), fullPage: true }).catch(() => {})
      throw e
    } finally {
      await context.close()
    }
  },
)
