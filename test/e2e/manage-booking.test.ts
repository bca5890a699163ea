/**
 * Managing a booking in the demo checkout (examples/seller-checkout), after its confirmation: `npm start`'s
 * server as a real process on a fresh SQLite file, the page in Chromium, the widgets from the built SDK (run
 * `npm run build` first; `npm test` does). The traveller books a bag and a seat, opens "Manage booking",
 * sees what cancelling each would refund, cancels the bag, adds another bag to the booked trip and pays for
 * it; the shop's backend holds the API key throughout (the page never sends one). Each step is checked as
 * the traveller sees it (texts, focus, the live region) and against the API's own view of the trip.
 *
 * Screenshots of each state, at 1200 and 375 px wide, go to the folder the run prints (SVC_E2E_SCREENSHOTS
 * names one to keep them).
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core'
import type { RunningServer } from '../helpers/process.ts'
import { axeViolations, eventually, expectText, watchPage } from './support/browser.ts'
import { startDemo, type Demo } from './support/demo.ts'
import { patience } from '../helpers/patience.ts'

const TEST_TIMEOUT = patience(180_000)
const DESKTOP: BrowserContextOptions = {
  locale: 'en-GB',
  timezoneId: 'Europe/London',
  viewport: { width: 1200, height: 900 },
}

let server: RunningServer
let browser: Browser
let shots: string
let demo: Demo | undefined

before(async () => {
  demo = await startDemo('manage')
  ;({ server, browser, shots } = demo)
})

after(() => demo?.stop())

// ---------------------------------------------------------------- the traveller's moves

interface Session {
  page: Page
  problems: string[]
  fromShop: string[]
}

/** The bag widget's "add one 23 kg checked bag" button for a passenger on the journey leaving `from`, in `within`. */
function bagButton(page: Page, within: string, from: string, passenger: string): Locator {
  const journey = page
    .locator(`${within} svc-bag-upsell .journey`)
    .filter({ has: page.getByRole('heading', { name: new RegExp(`^${from} →`) }) })
  return journey.getByRole('button', { name: new RegExp(`^Add one (Checked|Hold) bag\\W+23 kg for ${passenger}$`) })
}

const summary = (page: Page) => page.getByRole('complementary', { name: 'Booking summary' })
const summaryLines = (page: Page, text: RegExp) => summary(page).getByRole('listitem').filter({ hasText: text })

/** Opens the seat card, picks a window seat for Passenger 2 on the outbound flight, closes it; the seat's code. */
async function chooseSeat(page: Page): Promise<string> {
  const seats = page.locator('#seats')
  await seats.getByRole('button', { name: 'Choose seats' }).click()
  await seats.getByRole('grid').waitFor()
  await seats.getByRole('radio', { name: /Passenger 2/ }).click()
  const seat = seats
    .getByRole('button', { name: /^Seat \d+[A-K], window/ })
    .and(page.locator('[aria-disabled="false"]'))
    .first()
  const code = /^Seat (\d+[A-K])/.exec((await seat.getAttribute('aria-label'))!)![1]!
  await seat.scrollIntoViewIfNeeded()
  await seat.click()
  await eventually(
    `seat ${code} in the booking summary`,
    async () => (await summaryLines(page, new RegExp(`Seat ${code}`)).count()) === 1,
  )
  await seats.getByRole('button', { name: 'Done' }).click()
  await seats.getByRole('grid').waitFor({ state: 'hidden' })
  return code
}

/** Priority boarding for Passenger 1 on the outbound flight, from its card. */
async function addPriorityBoarding(page: Page) {
  const card = page.locator('#more-extras')
  await card.getByRole('button', { name: 'Add priority boarding' }).click()
  await card.getByRole('switch', { name: /^Priority boarding for Passenger 1, London/ }).click()
  await eventually(
    'priority boarding in the booking summary',
    async () => (await summaryLines(page, /Priority boarding/).count()) === 1,
  )
  await card.getByRole('button', { name: 'Done' }).click()
}

async function fillTravellers(page: Page) {
  const infantBorn = new Date(Date.now() - 240 * 86_400_000).toISOString().slice(0, 10)
  const people = [
    ['Ada', 'Lovelace', '1985-12-10'],
    ['Charles', 'Babbage', '1981-12-26'],
    ['Byron', 'Lovelace', infantBorn],
  ] as const
  for (const [i, [first, surname, dob]] of people.entries()) {
    const group = page.getByRole('group', { name: new RegExp(`^Passenger ${i + 1}: `) })
    await group.getByLabel('First names').fill(first)
    await group.getByLabel('Surname').fill(surname)
    await group.getByLabel('Date of birth').fill(dob)
  }
  await page.getByLabel('Email address').fill('ada@example.com')
  await page.getByLabel('Mobile phone').fill('+44 20 7946 0000')
}

/** Books the trip as it stands (travellers, pay) and waits for the confirmation to say every extra is confirmed. */
async function book(page: Page, extras: number) {
  await fillTravellers(page)
  const pay = page.getByRole('button', { name: /^Pay £[\d,]+\.\d\d$/ })
  await eventually('the Pay button is enabled', () => pay.isEnabled())
  await pay.click()
  await page.getByRole('region', { name: /Thank you, your flights are booked/ }).waitFor({ timeout: patience(30_000) })
  await expectText(
    page.locator('#orders-outcome'),
    new RegExp(`All ${extras} extras? confirmed by the airline`),
    60_000,
  )
}

const manage = (page: Page) => page.getByRole('region', { name: 'Manage your booking' })
/** One bought extra's line in the manage step, by its visible text (name and whom it is for). */
const purchased = (page: Page, text: RegExp) =>
  page.getByRole('list', { name: 'Extras you bought' }).getByRole('listitem').filter({ hasText: text })
const focusedText = (page: Page) =>
  page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText.replace(/\s+/g, ' ') ?? '')
/** What the page's live region last said (announce() writes it 50 ms later). */
const announced = (page: Page, pattern: RegExp) => expectText(page.locator('#announcer'), pattern)

interface TripTruth {
  orders: Record<
    string,
    {
      display_name: string
      status: string
      basket_item_id: string
      price: { total: { amount: number } }
      refund?: { amount: number; currency: string }
      cancellation_failure_reason?: string
    }
  >
  basket: Record<
    string,
    { product_type: string; order_id?: string; order_status?: string; product_details: { passenger_id?: string } }
  >
  payment: { status: string; amount: number } | null
  extra_payments: Array<{ status: string; amount: number; basket_item_ids: string[] }>
}

/** The API's view of the trip, read through the shop's backend with the page's own session. */
async function apiTruth(page: Page): Promise<TripTruth> {
  return page.evaluate(async () => {
    const res = await fetch(`/demo/api/checkout/${sessionStorage.getItem('skyshop.checkout')}/status`)
    if (!res.ok) throw new Error(`status ${res.status}`)
    return res.json()
  }) as Promise<TripTruth>
}

/** The page at 1200 px and at 375 px wide (full page, from the top), then back to the desktop size. */
async function shoot(page: Page, name: string) {
  for (const width of [1200, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 900 })
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      `${name}: no sideways scrolling at ${width} px`,
    )
    await page.evaluate(() => window.scrollTo(0, 0))
    await page.screenshot({ path: join(shots, `manage-${name}-${width}.png`), fullPage: true })
  }
  await page.setViewportSize(DESKTOP.viewport!)
}

/** A traveller's session; on failure, a screenshot and what the page said are added to the error. */
async function session(name: string, run: (s: Session) => Promise<void>) {
  const context = await browser.newContext(DESKTOP)
  context.setDefaultTimeout(20_000)
  const page = await context.newPage()
  const { problems } = watchPage(page)
  const fromShop: string[] = []
  page.on('response', (r) => {
    if (r.url().includes('/demo/api/'))
      void r.text().then(
        (t) => fromShop.push(t),
        () => {},
      )
  })
  page.on('request', (r) => {
    if (/^basic /i.test(r.headers()['authorization'] ?? '')) problems.push(`the page sent an API key to ${r.url()}`)
  })
  try {
    await page.goto(`${server.base}/`)
    await bagButton(page, '#bags', 'London', 'Passenger 1').waitFor()
    await run({ page, problems, fromShop })
    assert.deepEqual(problems, [], 'no page errors, CSP violations or API keys sent by the page')
    assert.doesNotMatch(
      fromShop.join('\n'),
      /refresh_token|svc_(test|live)_/,
      'the page never sees a refresh token or an API key',
    )
  } catch (e) {
    const file = join(shots, `${name}-FAILED.png`)
    await page.screenshot({ path: file, fullPage: true }).catch(() => {})
    const said = await page
      .evaluate(() =>
        ['manage-status', 'purchased', 'new-extras', 'extras-pay-error', 'manage-extras-error', 'announcer']
          .map((id) => `#${id}: ${document.getElementById(id)?.innerText.replace(/\s+/g, ' ') ?? ''}`)
          .join('\n'),
      )
      .catch(() => '')
    const extra = `\n  screenshot: ${file}\n  page problems: ${problems.join('; ') || 'none'}\n${said}`
    if (e instanceof Error) {
      e.message += extra
      if (e.stack) e.stack += extra
    }
    throw e
  } finally {
    await context.close()
  }
}

// ---------------------------------------------------------------- the tests

test(
  'manage booking: a bag, a seat and priority boarding booked; the bag cancelled with its refund shown first, priority boarding refused with its reason; a bag added after booking, paid for, and its order confirmed',
  { timeout: TEST_TIMEOUT },
  () =>
    session('manage', async ({ page }) => {
      await bagButton(page, '#bags', 'London', 'Passenger 1').click()
      await eventually(
        'the bag in the booking summary',
        async () => (await summaryLines(page, /Checked bag/).count()) === 1,
      )
      const seat = await chooseSeat(page)
      await addPriorityBoarding(page)
      await book(page, 3)

      // The confirmation leads on to managing the booking: the step, the heading (focused), the extras bought.
      await page.getByRole('button', { name: 'Manage booking' }).click()
      await manage(page).waitFor()
      assert.equal(await page.locator('.steps li[aria-current="step"]').innerText(), 'Manage')
      assert.equal(
        await page.evaluate(() => document.activeElement?.id),
        'manage-title',
        'focus moves to the manage heading',
      )
      const bag = purchased(page, /Checked bag 23 kg.*Ada Lovelace · LHR → JFK/s)
      const seatLine = purchased(page, new RegExp(`Seat ${seat}.*Charles Babbage · LHR → JFK`, 's'))
      await expectText(bag, /Paid £71\.50.*Confirmed.*Airline reference SBX\w+.*Cancel/)
      await expectText(seatLine, /Confirmed.*Cancel/)
      await expectText(
        manage(page),
        /Booking reference [A-Z2-9]{6}.*Travellers Ada Lovelace, Charles Babbage, Byron Lovelace.*Paid £[\d,]+\.\d\d/,
      )
      await expectText(summary(page), /Your booking £[\d,]+\.\d\d/)
      await shoot(page, '1-booked')

      // What cancelling the seat would refund: less the airline's 20 % fee. The traveller keeps it.
      await seatLine.getByRole('button', { name: new RegExp(`^Cancel Seat ${seat}, Charles Babbage`) }).click()
      const seatQuote = seatLine.getByRole('group', { name: `Cancel Seat ${seat}?` })
      const seatPaid = Math.round(Number(/Paid £([\d.]+)/.exec(await seatLine.innerText())![1]) * 100)
      const seatRefund = seatPaid - Math.round(seatPaid * 0.2)
      const pounds = (pence: number) => `£${(pence / 100).toFixed(2)}`
      await expectText(
        seatQuote,
        new RegExp(
          `The airline refunds ${pounds(seatRefund).replace('.', '\\.')} to your card \\(you paid ${pounds(seatPaid).replace('.', '\\.')}; its cancellation fee is ${pounds(seatPaid - seatRefund).replace('.', '\\.')}\\)\\.`,
        ),
      )
      await seatQuote.getByRole('button', { name: /^Keep it: Seat/ }).click()
      await expectText(seatLine, /Confirmed.*Cancel/)
      assert.match(await focusedText(page), /^Cancel$/, 'Keep it returns focus to the Cancel button')

      // Priority boarding: the airline does not refund it, and the page says so instead of offering to confirm.
      const boarding = purchased(page, /Priority boarding.*Ada Lovelace/s)
      await boarding.getByRole('button', { name: /^Cancel Priority boarding/ }).click()
      const refused = boarding.getByRole('group', { name: /^Priority boarding.* cannot be cancelled$/ })
      await expectText(refused, /cannot be cancelled The airline does not refund this extra\./)
      assert.equal(await boarding.getByRole('button', { name: /^Cancel/ }).count(), 0, 'nothing to confirm')
      assert.match(await focusedText(page), /cannot be cancelled/, 'focus moves to the answer')
      await announced(page, /cannot be cancelled\. The airline does not refund this extra\./)
      await shoot(page, '2-refused-quote')
      await refused.getByRole('button', { name: /^Close: Priority boarding/ }).click()
      await expectText(boarding, /Confirmed.*Cancel/)

      // The bag: its quote (a full refund), shown before anything is cancelled, focused and announced.
      await bag.getByRole('button', { name: 'Cancel Checked bag 23 kg, Ada Lovelace · LHR → JFK' }).click()
      const quote = bag.getByRole('group', { name: 'Cancel Checked bag 23 kg?' })
      await expectText(
        quote,
        /The airline refunds £71\.50 to your card, all that you paid\. This offer holds until \d\d:\d\d\./,
      )
      await announced(
        page,
        /If you cancel Checked bag 23 kg, Ada Lovelace · LHR → JFK, the airline refunds £71\.50\. Confirm or keep it\./,
      )
      assert.match(await focusedText(page), /^Cancel Checked bag 23 kg\?/, 'focus moves to the quote')
      assert.ok(
        Object.values((await apiTruth(page)).orders).every((o) => o.status === 'succeeded'),
        'a quote cancels nothing',
      )
      assert.deepEqual(await axeViolations(page), [], 'no serious accessibility violations with a quote open')
      await shoot(page, '3-quote')

      // Confirmed: the order goes through cancelling to cancelled, with the refund the quote said.
      await quote
        .getByRole('button', { name: 'Cancel it, refund £71.50: Checked bag 23 kg, Ada Lovelace · LHR → JFK' })
        .press('Enter')
      await expectText(bag, /Cancelled £71\.50 refunded/, 30_000)
      await announced(page, /Checked bag 23 kg, Ada Lovelace · LHR → JFK cancelled\. £71\.50 refunded to your card\./)
      await expectText(manage(page), /Refunded £71\.50/)
      assert.equal(await bag.getByRole('button').count(), 0, 'nothing more to do with a cancelled extra')
      await expectText(summaryLines(page, /Checked bag 23 kg/), /Cancelled/)
      await shoot(page, '4-cancelled')

      let truth = await apiTruth(page)
      const bagOrder = Object.values(truth.orders).find((o) => o.display_name === 'Checked bag 23 kg')!
      assert.deepEqual(
        [bagOrder.status, bagOrder.refund?.amount, bagOrder.refund?.currency],
        ['cancelled', 7150, 'GBP'],
      )
      assert.equal(truth.basket[bagOrder.basket_item_id]!.order_status, 'cancelled')
      assert.equal(
        Object.values(truth.orders).find((o) => o.display_name === `Seat ${seat}`)!.status,
        'succeeded',
        'the seat was kept',
      )
      assert.equal(
        Object.values(truth.orders).find((o) => /Priority boarding/.test(o.display_name))!.status,
        'succeeded',
        'priority boarding too',
      )

      // A bag after booking: the widget again on the same trip; the new bag is "new" until paid for.
      const add = bagButton(page, '#manage-bags', 'London', 'Charles Babbage')
      await add.click()
      const added = page.getByRole('group', { name: 'New extras' })
      await expectText(added, /Checked bag 23 kg.*Charles Babbage · LHR → JFK.*£71\.50/)
      const payNew = page.getByRole('button', { name: 'Pay for the new extras £71.50' })
      await eventually('the pay button for the new bag is enabled', () => payNew.isEnabled())
      await expectText(summary(page), /New, not paid yet.*New extras to pay £71\.50/)
      assert.deepEqual(await axeViolations(page), [], 'no serious accessibility violations with a new bag to pay for')
      await shoot(page, '5-bag-added')

      await payNew.click()
      const newBag = purchased(page, /Checked bag 23 kg.*Charles Babbage · LHR → JFK/s)
      await expectText(newBag, /Confirmed.*Airline reference SBX\w+/, 30_000)
      await announced(page, /Checked bag 23 kg, Charles Babbage · LHR → JFK confirmed by the airline\./)
      await added.waitFor({ state: 'hidden' })
      assert.equal(await purchased(page, /./).count(), 4)
      await shoot(page, '6-new-bag-booked')

      truth = await apiTruth(page)
      const orders = Object.values(truth.orders)
      assert.deepEqual(
        orders
          .filter((o) => !/Priority/.test(o.display_name))
          .map((o) => [o.display_name, o.status])
          .sort(),
        [
          ['Checked bag 23 kg', 'cancelled'],
          ['Checked bag 23 kg', 'succeeded'],
          [`Seat ${seat}`, 'succeeded'],
        ].sort(),
      )
      const later = orders.find((o) => o.display_name === 'Checked bag 23 kg' && o.status === 'succeeded')!
      assert.equal(truth.basket[later.basket_item_id]!.product_details.passenger_id, 'p2')
      assert.deepEqual(
        truth.extra_payments.map((p) => [p.status, p.amount, p.basket_item_ids]),
        [['captured', 7150, [later.basket_item_id]]],
      )
      assert.equal(truth.payment?.status, 'captured')

      // A reload comes back to the manage step.
      await page.reload()
      await manage(page).waitFor()
      await expectText(
        purchased(page, /Charles Babbage · LHR → JFK.*Checked bag|Checked bag 23 kg.*Charles Babbage/s),
        /Confirmed/,
      )
    }),
)

test(
  'manage booking, cancellation refused (BA 9005): a lost connection is retried; the quote is confirmed, the airline refuses, the bag stays booked and nothing is refunded',
  { timeout: TEST_TIMEOUT },
  () =>
    session('refused', async ({ page }) => {
      await page.getByText('Demo: sandbox scenario').click()
      await page.getByRole('radio', { name: /^Cancellation refused/ }).check()
      await page.getByRole('button', { name: 'Start a new checkout' }).click()
      await expectText(page.getByRole('region', { name: 'Your flights' }), /BA 9005\b/)
      await bagButton(page, '#bags', 'London', 'Passenger 1').click()
      await eventually(
        'the bag in the booking summary',
        async () => (await summaryLines(page, /Checked bag/).count()) === 1,
      )
      await book(page, 1)

      await page.getByRole('button', { name: 'Manage booking' }).click()
      const bag = purchased(page, /Checked bag 23 kg.*Ada Lovelace · LHR → JFK/s)
      // The connection drops as the page asks for the quote: it says so, and asking again works.
      let dropped = 0
      await page.route('**/demo/api/checkout/*/cancellation', (route) =>
        dropped++ === 0 ? route.abort('internetdisconnected') : route.fallback(),
      )
      await bag.getByRole('button', { name: /^Cancel Checked bag 23 kg/ }).click()
      const failed = bag.getByRole('group', { name: 'The cancellation did not go through' })
      await expectText(failed, /The shop could not be reached\. Check your connection and try again\./)
      assert.match(await focusedText(page), /^The cancellation did not go through/, 'focus moves to the error')
      await shoot(page, '7-error-retry')
      await failed.getByRole('button', { name: /^Ask again: Checked bag 23 kg/ }).click()
      await bag.getByRole('button', { name: /^Cancel it, refund £71\.50: Checked bag 23 kg/ }).click()
      await expectText(
        bag,
        /Confirmed.*The airline did not cancel it: The airline refused the cancellation \(sandbox scenario 9005\)\. Nothing was refunded\..*Try cancelling again/,
        30_000,
      )
      await announced(
        page,
        /The airline did not cancel Checked bag 23 kg, Ada Lovelace · LHR → JFK: The airline refused the cancellation/,
      )
      await shoot(page, '8-airline-refused')

      const truth = await apiTruth(page)
      const order = Object.values(truth.orders)[0]!
      assert.equal(order.status, 'succeeded')
      assert.match(order.cancellation_failure_reason ?? '', /sandbox scenario 9005/)
      assert.equal(order.refund, undefined)
    }),
)
