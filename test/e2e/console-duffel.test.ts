/**
 * The operator console over a Duffel seller, end to end (issue 35's "Done when"): `npm run start:service`'s
 * compiled server on a fresh SQLite file, pointed at the fake Duffel (test/fakes/duffel) with DUFFEL_API_URL,
 * and the built console (`npm run build`) in Chromium. A sandbox seller whose supplier is Duffel (made with
 * `npm run seller -- create --duffel-token`) subscribes a local receiver to its webhooks, and a trip naming
 * its Duffel order buys a bag from Duffel after booking. The receiver answers 500 with markup in its body
 * until the test lets it answer 200, so the delivery fails and is retried (every 2 s and more: the webhook
 * job's backoff has no setting of its own, so the receiver, not the clock, decides when it succeeds).
 *
 * The operator signs in, finds the trip by its record locator (Duffel's booking reference), reads its
 * timeline through the purchase (the order succeeded, Duffel's order id, the supplier calls), sees the failed
 * delivery's attempts on the trip and on the Webhooks page (the receiver's `<img …>` as text), resends it
 * and sees the new delivery succeed with HTTP 200, sends a test event, rotates the seller's key, and signs
 * out. A read-only operator sees the same deliveries with no Resend. Every page passes axe and has no
 * horizontal scroll at 320 px; screenshots of each go to the folder the run prints.
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { root, startServer, type RunningServer } from '../helpers/process.ts'
import { basic, tripPayload } from '../helpers/build.ts'
import { fulfillRequest } from '../helpers/flows.ts'
import { duffelOfferFor } from '../helpers/duffel.ts'
import { startFakeDuffel, type FakeDuffel } from '../fakes/duffel/server.ts'
import { axeViolations, eventually, expectText, launchChromium, screenshotDir, watchPage } from './support/browser.ts'
import { patience } from '../helpers/patience.ts'
import { checkPage, heading, signIn } from './support/console.ts'

const TEST_TIMEOUT = patience(240_000)
const HOSTILE = '<img src=x onerror=alert(1)>'
const SECRET = 'a-signing-key-secret-of-32-chars-or-more'

let server: RunningServer
let fake: FakeDuffel
let browser: Browser
let shots: string
let dbDir: string
let env: Record<string, string>

/** A webhook receiver: 500 with markup in its body while `failing`, then 200; every event it was sent. */
const hooks = {
  failing: true,
  got: [] as Array<{ event_name: string; event_id: string }>,
  server: undefined as Server | undefined,
  url: '',
}

async function startReceiver() {
  hooks.server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      hooks.got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      if (hooks.failing) res.writeHead(500, { 'content-type': 'text/html' }).end(`Receiver down: ${HOSTILE}`)
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => hooks.server!.listen(0, '127.0.0.1', resolve))
  hooks.url = `http://127.0.0.1:${(hooks.server.address() as AddressInfo).port}/hooks`
}

/** Runs one of the operator's compiled commands on the test's database; its standard output. */
function cli(command: 'seller' | 'operator', ...args: string[]): string {
  const r = spawnSync(process.execPath, [`dist/node/server/cli/${command}.js`, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  })
  assert.equal(r.status, 0, r.stderr)
  return r.stdout
}

before(async () => {
  assert.ok(existsSync(join(root, 'dist/console/assets/console.js')), 'the console is not built: run `npm run build`')
  fake = await startFakeDuffel()
  await startReceiver()
  dbDir = mkdtempSync(join(tmpdir(), 'svc-e2e-console-duffel-'))
  env = { DATABASE_URL: `sqlite:${join(dbDir, 'svc.db')}`, SIGNING_KEY_SECRET: SECRET, DUFFEL_API_URL: fake.url }
  server = await startServer(env, { compiled: true, entry: 'service' })
  browser = await launchChromium()
  shots = screenshotDir('console-duffel')
})

after(async () => {
  await browser?.close()
  await server?.stop()
  await fake?.close()
  hooks.server?.closeAllConnections()
  await new Promise((resolve) => hooks.server?.close(resolve) ?? resolve(undefined))
  if (dbDir) rmSync(dbDir, { recursive: true, force: true })
})

/** A call to the public API with the seller's key; its status and JSON body. */
async function call(apiKey: string, method: string, path: string, payload?: unknown) {
  const res = await fetch(server.base + path, {
    method,
    headers: { authorization: basic(apiKey), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  })
  const text = await res.text()
  return { status: res.status, text, body: text ? (JSON.parse(text) as any) : undefined }
}

/**
 * A Duffel seller's trip that named its Duffel order and bought a checked bag after booking, fulfilled;
 * once its order succeeded and its webhook delivery has failed at least once.
 */
async function duffelTrip(apiKey: string, operatorKey: string) {
  const sub = await call(apiKey, 'POST', '/v2.2/callback_subscription', {
    delivery_method: 'http',
    target: hooks.url,
    event_name: 'fulfillment_completed',
  })
  assert.equal(sub.status, 201, sub.text)
  const req = tripPayload(new Date())
  const { offer } = duffelOfferFor(fake, { passengers: req.passengers, journeys: req.tickets[0]!.journeys })
  const { order } = fake.bookOrder(offer.id, { postBookingBags: true })
  req.tickets = req.tickets.map((tk) => ({ ...tk, metadata: { ...tk.metadata, duffel_order_id: order.id } }))
  const trip = await call(apiKey, 'POST', '/v2.2/trip', req)
  assert.equal(trip.status, 201, trip.text)
  const t = trip.body as { trip_id: string; search_id: string; tickets: Array<{ ticket_id: string }> }
  const search = await eventually('the Duffel search ended', async () => {
    const s = (await call(apiKey, 'GET', `/v2.2/trip/${t.trip_id}/search/${t.search_id}`)).body
    return s.status === 'in_progress' ? undefined : s
  })
  assert.equal(search.status, 'success', JSON.stringify(search))
  const bag = Object.values(search.results.products.bag as Record<string, any>).find(
    (p) => p.product_details.checked && p.price_and_availability.p1?.available,
  )
  assert.ok(bag, 'Duffel offers a checked bag after booking')
  const basket = await call(apiKey, 'PATCH', `/v2.2/trip/${t.trip_id}/basket`, [
    { product_id: bag.product_id, passenger_id: 'p1', quantity: 1 },
  ])
  assert.equal(basket.status, 200, basket.text)
  const fulfilled = await call(
    apiKey,
    'POST',
    `/v2.2/trip/${t.trip_id}/fulfill`,
    fulfillRequest(t as never, basket.body.trip_state_hash, {
      tickets: t.tickets.map((tk) => ({
        ticket_id: tk.ticket_id,
        access_details: { record_locator: order.booking_reference, ticket_number: '1250000000001' },
        status: 'booked',
      })),
    }),
  )
  assert.equal(fulfilled.status, 202, fulfilled.text)
  const admin = async (path: string) => {
    const res = await fetch(`${server.base}/admin/v1${path}`, { headers: { authorization: `Bearer ${operatorKey}` } })
    assert.equal(res.status, 200)
    return (await res.json()) as any
  }
  const orders = await eventually('the Duffel order settled', async () => {
    const d = await admin(`/trips/${t.trip_id}`)
    return d.orders.length > 0 && d.orders.every((o: any) => o.status !== 'queued' && o.status !== 'in_progress')
      ? d.orders
      : undefined
  })
  assert.deepEqual(
    orders.map((o: any) => [o.status, o.supplier_refs?.order_id]),
    [['succeeded', order.id]],
  )
  const delivery = await eventually('the delivery failed', async () => {
    const l = await admin(`/webhooks/deliveries?trip_id=${t.trip_id}`)
    return l.data.find((d: any) => d.state === 'failed')
  })
  return { tripId: t.trip_id, order, deliveryId: delivery.delivery_id as string }
}

test(
  "an operator reads a Duffel trip's timeline, resends its failed webhook, rotates a key and signs out",
  { timeout: TEST_TIMEOUT },
  async () => {
    const made = cli('seller', 'create', '--name', 'Duffel shop', '--sandbox', '--duffel-token', fake.token)
    const apiKey = /API key\s+(svc_test_\S+)/.exec(made)![1]!
    const sellerId = /seller_id\s+(\S+)/.exec(made)![1]!
    const operatorKey = /^\s+key\s+(svc_op_\S+)$/m.exec(cli('operator', 'create', '--name', 'On-call'))![1]!
    const readerKey = /^\s+key\s+(svc_op_\S+)$/m.exec(cli('operator', 'create', '--name', 'Desk', '--read-only'))![1]!
    const { tripId, order, deliveryId } = await duffelTrip(apiKey, operatorKey)

    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, locale: 'en-GB' })
    const page = await context.newPage()
    const { problems } = watchPage(page)
    const dialogs: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    try {
      await signIn(page, server.base, operatorKey)

      // The trip, found by Duffel's booking reference.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Trips' }).click()
      await page.getByLabel('Record locator or trip id').fill(order.booking_reference)
      await page.getByRole('button', { name: 'Find' }).click()
      await page.getByRole('link', { name: tripId }).click()
      await heading(page, new RegExp(tripId)).waitFor()

      // Its timeline, through the purchase at Duffel.
      const timeline = page.getByRole('list', { name: 'Timeline' })
      await expectText(
        timeline,
        /Trip created 2 journeys, 3 passengers, 1 ticket · currency [A-Z]{3} · supplier duffel/,
      )
      await expectText(timeline, /Search ended .*bag: ok/)
      await expectText(timeline, /Basket changed .*added 1 × bag \d+\.\d{2} [A-Z]{3}/)
      await expectText(timeline, /Fulfillment accepted .*payment service_settlement/)
      const text = await expectText(timeline, new RegExp(`Order status .*→ succeeded.*supplier order ${order.id}`))
      assert.match(order.id, /^ord_/)
      assert.match(text, /supplier services ser_/, "the service Duffel booked, by Duffel's id")
      assert.match(
        text,
        new RegExp(`Supplier call POST /air/orders/${order.id}/services · HTTP 20\\d · \\d+ ms · outcome ok`),
      )
      assert.ok(!text.includes(fake.token), 'no supplier token')

      // Its webhook delivery: failed, each attempt's answer shown as the receiver's text.
      const trips = page.getByRole('list', { name: 'Deliveries' })
      await expectText(trips, new RegExp(`fulfillment_completed ${deliveryId} State failed`))
      const answer = page
        .getByRole('list', { name: `Attempts of delivery ${deliveryId}` })
        .locator('pre')
        .first()
      assert.equal(await answer.innerText(), `Receiver down: ${HOSTILE}`)
      assert.equal(await page.locator('svc-console img').count(), 0, 'no element made from data')
      await page.getByRole('button', { name: `Resend delivery ${deliveryId}` }).waitFor()
      await checkPage(page, shots, 'trip-duffel')

      // The Webhooks page: the seller's failed deliveries, resent once the receiver is back.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click()
      await heading(page, 'Webhooks').waitFor()
      await page.getByLabel('Seller').selectOption(sellerId)
      await page.getByLabel('State').selectOption('failed')
      await page.getByRole('button', { name: 'Filter' }).click()
      await expectText(page.getByRole('list', { name: 'Subscriptions' }), /fulfillment_completed.*failed 1/)
      const listed = page.getByRole('list', { name: 'Deliveries' })
      await expectText(listed, new RegExp(`${deliveryId}.*Last attempt HTTP 500`))
      await page.getByRole('button', { name: `Show attempts of delivery ${deliveryId}` }).click()
      const first = page.getByRole('list', { name: `Attempts of delivery ${deliveryId}` })
      await expectText(first, /Attempt 1 .*HTTP 500 · \d+ ms/)
      assert.equal(await first.locator('pre').first().innerText(), `Receiver down: ${HOSTILE}`)
      await checkPage(page, shots, 'webhooks')

      hooks.failing = false
      await page.getByRole('button', { name: `Resend delivery ${deliveryId}` }).click()
      const ask = page.getByRole('dialog', { name: 'Resend the delivery' })
      await expectText(ask, new RegExp(deliveryId))
      assert.deepEqual(await axeViolations(page), [], 'no serious accessibility violations in the dialog')
      await page.screenshot({ path: join(shots, 'console-resend-dialog-1200.png') })
      await ask.getByRole('button', { name: 'Resend' }).click()
      await ask.waitFor({ state: 'hidden' })
      const resent = page.getByRole('list', { name: 'Resent delivery' })
      const seen = await expectText(resent, /State succeeded.*Attempt 1 .*HTTP 200/)
      assert.match(seen, new RegExp(`Resend of ${deliveryId}`))
      await expectText(page.getByRole('status').filter({ hasText: 'Resent delivery' }), /succeeded \(HTTP 200\)/)
      // Counted again: the resend, and the first delivery's own retry when it came after the receiver was back.
      await expectText(page.getByRole('list', { name: 'Subscriptions' }), /succeeded [12]/)
      const sent = hooks.got.filter((e) => e.event_name === 'fulfillment_completed')
      assert.equal(new Set(sent.map((e) => e.event_id)).size, 1, 'the same event each time')
      await checkPage(page, shots, 'webhooks-resent')

      // A test event to the seller's subscription.
      await page.getByRole('button', { name: 'Send test event' }).click()
      const test = page.getByRole('dialog', { name: 'Send a test event' })
      await test.getByRole('button', { name: 'Send test event' }).click()
      await expectText(page.getByRole('status').filter({ hasText: 'test event' }), /queued as 1 delivery/)
      await eventually('the test event arrived', async () => hooks.got.some((e) => e.event_name === 'test_ping'))

      // The seller's key, rotated.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Sellers' }).click()
      await page.locator(`a[href="/console/sellers/${sellerId}"]`).click()
      await page.getByRole('button', { name: 'Rotate key' }).click()
      const rotate = page.getByRole('dialog', { name: 'Rotate the API key' })
      await rotate.getByRole('button', { name: 'Rotate key' }).click()
      assert.match((await rotate.getByLabel('New API key').innerText()).trim(), /^svc_test_/)
      await rotate.getByRole('button', { name: 'Done' }).click()
      await expectText(page.getByRole('list', { name: 'API keys' }), /grace/)

      await page.getByRole('button', { name: 'Sign out' }).click()
      await heading(page, 'Sign in to the operator console').waitFor()
      assert.equal(await page.evaluate(async () => (await fetch('/console/session')).status), 401)

      // A read-only operator: the same deliveries, and no Resend.
      await signIn(page, server.base, readerKey)
      await page.goto(`${server.base}/console/trips/${tripId}`)
      await expectText(page.getByRole('list', { name: 'Deliveries' }), new RegExp(deliveryId))
      assert.equal(await page.getByRole('button', { name: /Resend/ }).count(), 0)
      await page.goto(`${server.base}/console/webhooks`)
      await heading(page, 'Webhooks').waitFor()
      await expectText(page.getByRole('list', { name: 'Deliveries' }), /succeeded/)
      assert.equal(await page.getByRole('button', { name: /Resend|Send test event/ }).count(), 0)

      assert.deepEqual(problems, [], 'no page error and no CSP violation')
      assert.deepEqual(dialogs, [], 'no script from data ran')
    } catch (e) {
      await page.screenshot({ path: join(shots, 'console-duffel-failure.png'), fullPage: true }).catch(() => {})
      throw e
    } finally {
      await context.close()
    }
  },
)
