/**
 * The demo seller checkout (examples/seller-checkout) as a traveller uses it: `npm start`'s server as a real
 * process on a fresh SQLite file, the page in Chromium, the widgets from the built SDK (run `npm run build`
 * first; `npm test` does). Each test clicks and types through the page, checks what the traveller sees,
 * and ends with the API's own view of the trip, read through the shop's backend.
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core'
import type { RunningServer } from '../helpers/process.ts'
import { axeViolations, eventually, expectText, watchPage } from './support/browser.ts'
import { startDemo, type Demo } from './support/demo.ts'
import { patience } from '../helpers/patience.ts'

const TEST_TIMEOUT = patience(150_000)
// A traveller in the UK, as the shop (and its en-GB trip) expects.
const UK: BrowserContextOptions = { locale: 'en-GB', timezoneId: 'Europe/London' }
const PHONE: BrowserContextOptions = {
  ...UK,
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 2,
}
const DESKTOP: BrowserContextOptions = { ...UK, viewport: { width: 1280, height: 900 } }

let server: RunningServer
let browser: Browser
let shots: string
let demo: Demo | undefined

before(async () => {
  demo = await startDemo('checkout')
  ;({ server, browser, shots } = demo)
})

after(() => demo?.stop())

// ---------------------------------------------------------------- the traveller's moves

interface Session {
  context: BrowserContext
  page: Page
  problems: string[]
  fromShop: string[]
  tap: (l: Locator) => Promise<void>
}

/** How a test sets the page up before it opens: `setup` runs on the fresh profile, `ready` says the page is usable. */
interface Opening {
  setup?: (context: BrowserContext) => Promise<void>
  ready?: (page: Page) => Locator
}

/** A fresh browser profile on the checkout page, recording what the shop's backend sent the page. */
async function openCheckout(options: BrowserContextOptions, opening: Opening = {}): Promise<Session> {
  const context = await browser.newContext(options)
  context.setDefaultTimeout(20_000)
  await opening.setup?.(context)
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
  await page.goto(`${server.base}/`)
  // The page starts a normal checkout by itself: the widgets appear once the trip has loaded.
  await (opening.ready?.(page) ?? bagButton(page, 'London', 'Passenger 1')).waitFor()
  const tap = options.hasTouch ? (l: Locator) => l.tap() : (l: Locator) => l.click()
  return { context, page, problems, fromShop, tap }
}

/** Another scenario, as a tester picks it: open the demo panel, choose, start a new checkout. */
async function chooseScenario(s: Session, name: RegExp, flight: string) {
  await s.tap(s.page.getByText('Demo: sandbox scenario'))
  await s.page.getByRole('radio', { name }).check()
  await s.tap(s.page.getByRole('button', { name: 'Start a new checkout' }))
  await expectText(s.page.getByRole('region', { name: 'Your flights' }), new RegExp(`BA ${flight}\\b`))
  await bagButton(s.page, 'London', 'Passenger 1').waitFor()
}

/** The "add one 23 kg checked bag" button of a passenger on the journey leaving `from`. */
function bagButton(page: Page, from: string, passenger: string): Locator {
  const journey = page
    .locator('svc-bag-upsell .journey')
    .filter({ has: page.getByRole('heading', { name: new RegExp(`^${from} →`) }) })
  // The widget speaks the trip's en-GB ("Hold bag"); the API names the item "Checked bag 23 kg".
  return journey.getByRole('button', { name: new RegExp(`^Add one (Checked|Hold) bag\\W+23 kg for ${passenger}$`) })
}

const summary = (page: Page) => page.getByRole('complementary', { name: 'Booking summary' })
const summaryLines = (page: Page, text: RegExp) => summary(page).getByRole('listitem').filter({ hasText: text })

async function addOutboundBags(s: Session) {
  await s.tap(bagButton(s.page, 'London', 'Passenger 1'))
  await eventually(
    'one bag in the booking summary',
    async () => (await summaryLines(s.page, /Checked bag/).count()) === 1,
  )
  await s.tap(bagButton(s.page, 'London', 'Passenger 2'))
  await eventually(
    'two bags in the booking summary',
    async () => (await summaryLines(s.page, /Checked bag/).count()) === 2,
  )
}

/** Opens the seat card, picks a seat for Passenger 2 on the outbound flight (`exitRow`: one in an exit row), closes it. */
async function chooseSeat(s: Session, { exitRow = false } = {}): Promise<string> {
  const seats = s.page.locator('#seats')
  await s.tap(seats.getByRole('button', { name: 'Choose seats' }))
  await seats.getByRole('grid').waitFor()
  await s.tap(seats.getByRole('radio', { name: /Passenger 2/ }))
  const free = seats
    .getByRole('button', { name: exitRow ? /^Seat \d+[A-K]\b.*exit row/ : /^Seat \d+[A-K], window/ })
    .and(s.page.locator('[aria-disabled="false"]'))
  const seat = free.first()
  const label = (await seat.getAttribute('aria-label'))!
  const code = /^Seat (\d+[A-K])/.exec(label)![1]!
  await seat.scrollIntoViewIfNeeded()
  await s.tap(seat)
  await eventually(
    `seat ${code} in the booking summary`,
    async () => (await summaryLines(s.page, new RegExp(`Seat ${code}`)).count()) === 1,
  )
  await s.tap(seats.getByRole('button', { name: 'Done' }))
  await seats.getByRole('grid').waitFor({ state: 'hidden' })
  return code
}

const ADA = { first: 'Ada', surname: 'Lovelace', dob: '1985-12-10' }
const CHARLES = { first: 'Charles', surname: 'Babbage', dob: '1981-12-26' }
/** Born about 8 months ago: under 2 for the whole trip. */
const infant = () => ({
  first: 'Byron',
  surname: 'Lovelace',
  dob: new Date(Date.now() - 240 * 86_400_000).toISOString().slice(0, 10),
})

async function fillTravellers(s: Session, people = [ADA, CHARLES, infant()]) {
  const groups = [/^Passenger 1: adult/, /^Passenger 2: adult/, /^Passenger 3: infant/]
  for (const [i, p] of people.entries()) {
    const group = s.page.getByRole('group', { name: groups[i]! })
    await group.getByLabel('First names').pressSequentially(p.first)
    await group.getByLabel('Surname').fill(p.surname)
    await group.getByLabel('Date of birth').fill(p.dob)
  }
  await s.page.getByLabel('Email address').pressSequentially('ada@example.com')
  await s.page.getByLabel('Mobile phone').fill('+44 20 7946 0000')
}

const payButton = (page: Page) => page.getByRole('button', { name: /^Pay £[\d,]+\.\d\d$/ })

/** The total the Pay button shows, in pence. */
async function shownTotal(page: Page): Promise<number> {
  const text = await payButton(page).innerText()
  return Math.round(Number(/£([\d,.]+)/.exec(text)![1]!.replaceAll(',', '')) * 100)
}

async function pay(s: Session) {
  const button = payButton(s.page)
  await eventually('the Pay button is enabled', () => button.isEnabled())
  await s.tap(button)
}

/** The confirmation, once every order has ended: the per-order statuses and the closing summary. */
async function confirmation(s: Session, outcome: RegExp) {
  const section = s.page.getByRole('region', { name: /Thank you, your flights are booked/ })
  await section.waitFor({ timeout: patience(30_000) })
  await expectText(s.page.locator('#orders-outcome'), outcome, 60_000)
  return section
}

interface TripTruth {
  trip_id: string
  tickets: Array<{ status: string; access_details: { record_locator: string | null; ticket_number: string | null } }>
  orders: Record<
    string,
    {
      display_name: string
      status: string
      basket_item_id: string
      price: { total: { amount: number } }
      supplier_reference?: string
      failure_reason?: string
    }
  >
  basket: Record<string, { product_type: string; price: { total: { amount: number } } }>
  passengers: Array<{ first_names: string | null }>
  payment: { status: string; amount: number } | null
}

/** The API's view of the trip, read through the shop's backend with the page's own session. */
async function apiTruth(page: Page): Promise<TripTruth> {
  return page.evaluate(async () => {
    const id = sessionStorage.getItem('skyshop.checkout')
    const res = await fetch(`/demo/api/checkout/${id}/status`)
    if (!res.ok) throw new Error(`status ${res.status}`)
    return res.json()
  }) as Promise<TripTruth>
}

/** A full-page screenshot from the top (the booking summary is sticky beside the checkout). */
async function shot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true })
}

/** Runs a traveller's session; on failure, saves a screenshot and adds what the page said to the error. */
async function session(
  options: BrowserContextOptions,
  name: string,
  run: (s: Session) => Promise<void>,
  opening: Opening = {},
) {
  const s = await openCheckout(options, opening)
  try {
    await run(s)
  } catch (e) {
    const file = join(shots, `${name}-FAILED.png`)
    await s.page.screenshot({ path: file, fullPage: true }).catch(() => {})
    const said = await s.page
      .evaluate(() =>
        ['pay-progress', 'pay-error', 'review', 'extras-error', 'form-errors']
          .map((id) => `#${id}: ${document.getElementById(id)?.innerText.replace(/\s+/g, ' ') ?? ''}`)
          .join('\n'),
      )
      .catch(() => '')
    const extra = `\n  screenshot: ${file}\n  page problems: ${s.problems.join('; ') || 'none'}\n${said}`
    if (e instanceof Error) {
      e.message += extra
      // Reporters print the stack, which was written when the error was made.
      if (e.stack) e.stack += extra
    }
    throw e
  } finally {
    await s.context.close()
  }
}

/** Nothing secret reached the page, and nothing broke in it. */
function assertCleanPage(s: Session) {
  assert.deepEqual(s.problems, [], 'no page errors, CSP violations or API keys sent by the page')
  const everything = s.fromShop.join('\n')
  assert.ok(s.fromShop.length > 0, 'the page talked to the shop backend')
  assert.doesNotMatch(
    everything,
    /refresh_token|rt_[A-Za-z0-9_-]{20}|svc_(test|live)_/,
    'the page never sees a refresh token or an API key',
  )
}

async function happyPath(s: Session, name: string) {
  const { page } = s
  await expectText(
    page.getByRole('region', { name: 'Your flights' }),
    /London → New York City, return.*2 adults, 1 infant on a lap.*£1,225\.00/,
  )
  await addOutboundBags(s)
  const seat = await chooseSeat(s)
  assert.equal(await summaryLines(page, /Checked bag 23 kg/).count(), 2)
  const extras = await summaryLines(page, /Checked bag|Seat/).allInnerTexts()
  assert.equal(extras.length, 3, extras.join(' | '))
  // Grand total = ticket + extras, as the Pay button says.
  const total = await shownTotal(page)
  assert.ok(total > 122500, `total ${total} includes the extras`)
  assert.equal(
    `Pay ${await summary(page).locator('#basket-total').innerText()}`,
    await payButton(page).innerText(),
    'the summary and the Pay button agree',
  )

  // Paying with an empty form: the page explains what is missing and moves focus to the list.
  await pay(s)
  const errors = page.getByRole('alert').filter({ hasText: 'Please check these details' })
  await errors.waitFor()
  await expectText(errors, /Enter the first names of passenger 1.*Enter an email address/)
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'form-errors', 'focus moves to the error summary')
  assert.equal(
    await page
      .getByRole('group', { name: /^Passenger 1: adult/ })
      .getByLabel('First names')
      .getAttribute('aria-invalid'),
    'true',
  )

  await fillTravellers(s)
  await pay(s)
  const done = await confirmation(s, /All 3 extras confirmed by the airline/)
  await expectText(done, /Booking reference [A-Z2-9]{6}/)
  const orders = page.getByRole('list', { name: 'Your extras' }).getByRole('listitem')
  assert.equal(await orders.count(), 3)
  for (const text of await orders.allInnerTexts()) assert.match(text, /Confirmed/)
  assert.match(
    (await orders.allInnerTexts()).join('|'),
    new RegExp(`Seat ${seat}\\s+Charles Babbage · LHR → JFK\\s+Confirmed`),
  )
  await shot(page, name)

  const truth = await apiTruth(page)
  const all = Object.values(truth.orders)
  assert.equal(all.length, 3)
  assert.ok(
    all.every((o) => o.status === 'succeeded' && /^SBX/.test(o.supplier_reference ?? '')),
    JSON.stringify(all),
  )
  assert.deepEqual(
    all.map((o) => o.display_name).sort(),
    ['Checked bag 23 kg', 'Checked bag 23 kg', `Seat ${seat}`].sort(),
  )
  assert.equal(truth.tickets[0]!.status, 'booked')
  assert.match(truth.tickets[0]!.access_details.record_locator ?? '', /^[A-Z2-9]{6}$/)
  assert.match(truth.tickets[0]!.access_details.ticket_number ?? '', /^\d{13}$/)
  assert.deepEqual(
    truth.passengers.map((p) => p.first_names),
    ['Ada', 'Charles', 'Byron'],
  )
  assert.deepEqual(truth.payment && { status: truth.payment.status, amount: truth.payment.amount }, {
    status: 'captured',
    amount: total,
  })
  return truth
}

// ---------------------------------------------------------------- phones

/** A phone `width` CSS px wide, held upright: touch, overlay scrollbars, 2× pixels. */
const phone = (width: number, more: BrowserContextOptions = {}): BrowserContextOptions => ({
  ...UK,
  viewport: { width, height: 740 },
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 2,
  ...more,
})

/**
 * The shop's page with one change to its own script, as a seller would make it (checked to apply, so a
 * changed demo fails here rather than quietly testing something else).
 */
function rewriteApp(from: string, to: string): Opening['setup'] {
  return async (context) => {
    await context.route('**/demo/app.js', async (route) => {
      const response = await route.fetch()
      const text = await response.text()
      assert.ok(text.includes(from), `the demo's app.js no longer has ${from}`)
      await route.fulfill({ response, body: text.replace(from, to) })
    })
  }
}

/** Locale-free handles on the seat card (data attributes and parts, not texts). */
const seatCard = (page: Page) => page.locator('#seats svc-seat-map')
const seatCardReady = (page: Page) => seatCard(page).locator('[part~="open-button"]')

/** The seat widget on a phone: the page's width, what sticks out of the screen, seats under 24 px. */
interface PhoneFit {
  pageWidth: number
  screen: number
  outside: string[]
  small: string[]
  seats: number
  columns: string
}

async function phoneFit(page: Page): Promise<PhoneFit> {
  // No named inner functions: tsx would wrap them in a helper that the page does not have.
  return page.evaluate(() => {
    const screen = window.innerWidth
    const all: Element[] = []
    const roots: Array<Element | ShadowRoot> = [document.getElementById('seats')!]
    for (let root = roots.pop(); root; root = roots.pop()) {
      for (const el of Array.from(root.querySelectorAll('*'))) {
        all.push(el)
        if (el.shadowRoot) roots.push(el.shadowRoot)
      }
    }
    const seen = all.map((e) => {
      const r = e.getBoundingClientRect()
      const part = e.getAttribute('part')
      const name = `${e.localName}${part ? `[part="${part}"]` : typeof e.className === 'string' && e.className ? `.${e.className.replaceAll(' ', '.')}` : ''}${e.getAttribute('data-seat') ?? ''}`
      return { e, r, name }
    })
    const outside = seen
      .filter(({ r }) => r.width > 0 && r.height > 0 && (r.left < -0.5 || r.right > screen + 0.5))
      .map(({ r, name }) => `${name} ${Math.round(r.left)}–${Math.round(r.right)}`)
    const seats = seen.filter(({ e }) => e.matches('button[data-seat]'))
    const small = seats
      .filter(({ r }) => r.width < 24 || r.height < 24)
      .map(({ r, name }) => `${name} ${r.width.toFixed(1)} × ${r.height.toFixed(1)}`)
    const columns = all
      .filter((e) => e.matches('.colhead'))
      .map((e) => e.textContent)
      .join('')
    return { pageWidth: document.documentElement.scrollWidth, screen, outside, small, seats: seats.length, columns }
  })
}

async function assertFitsPhone(page: Page, what: string) {
  const fit = await phoneFit(page)
  assert.ok(fit.seats > 200, `${what}: the cabin is drawn (${fit.seats} seats)`)
  assert.equal(fit.columns, 'ABCDEFHJK', `${what}: every column of the 787-9`)
  assert.ok(
    fit.pageWidth <= fit.screen,
    `${what}: no sideways scrolling (page ${fit.pageWidth} px on a ${fit.screen} px screen)`,
  )
  assert.deepEqual(fit.outside, [], `${what}: nothing of the widget outside the screen`)
  assert.deepEqual(fit.small, [], `${what}: every seat a 24 × 24 px target or larger`)
}

/** Opens the seat card's dialog with a tap and waits until it has settled. */
async function openSeatDialog(s: Session) {
  await s.tap(seatCardReady(s.page))
  await seatCard(s.page).locator('[role="grid"]').waitFor()
  await seatCard(s.page)
    .locator('[part~="modal"]')
    .evaluate((m) => Promise.all((m.shadowRoot?.querySelector('dialog')?.getAnimations() ?? []).map((a) => a.finished)))
}

/** Taps the second passenger, then a free window seat of column K (the column a 375 px screen used to cut off); its code. */
async function tapSeatInColumnK(s: Session): Promise<string> {
  const card = seatCard(s.page)
  await s.tap(card.locator('[part~="passenger"]').nth(1))
  const seat = card.locator('button[data-seat$="K"][data-status="available"]').first()
  const code = (await seat.getAttribute('data-seat'))!
  await s.tap(seat)
  await eventually(
    `seat ${code} in the booking summary`,
    async () => (await summaryLines(s.page, new RegExp(`Seat ${code}`)).count()) === 1,
  )
  // The map moves on to the next passenger without a seat; the second one's chip names the seat.
  await expectText(card.locator('[part~="passenger"]').nth(1), new RegExp(code))
  return code
}

/** The dialog as the traveller sees it, then scrolled to its end (the legend), as PNGs in the screenshot folder. */
async function shootDialog(s: Session, name: string) {
  await s.page.screenshot({ path: join(shots, `${name}.png`) })
  await seatCard(s.page).locator('[part~="legend"]').scrollIntoViewIfNeeded()
  await s.page.screenshot({ path: join(shots, `${name}-legend.png`) })
}

/** Done closes the dialog, and the card lists the seat. */
async function closeSeatDialog(s: Session, code: string) {
  await s.tap(seatCard(s.page).locator('[part~="done-button"]'))
  await seatCard(s.page).locator('[role="grid"]').waitFor({ state: 'hidden' })
  await expectText(seatCard(s.page).locator('[part~="summary"]'), new RegExp(code))
}

// ---------------------------------------------------------------- the tests

test(
  '(a) two adults and a lap infant add a bag each and a seat, fill in the form, pay, and every order succeeds',
  { timeout: TEST_TIMEOUT },
  async () =>
    session(DESKTOP, 'a', async (s) => {
      assert.deepEqual(await axeViolations(s.page), [], 'no serious accessibility violations on the checkout')
      await happyPath(s, 'a-desktop-confirmation')
      assert.deepEqual(await axeViolations(s.page), [], 'no serious accessibility violations on the confirmation')
      assertCleanPage(s)
    }),
)

test(
  '(b) price change (BA 9001): pay shows the new bag prices, the traveller accepts them, pays again, and the orders succeed',
  { timeout: TEST_TIMEOUT },
  async () =>
    session(DESKTOP, 'b', async (s) => {
      const { page } = s
      await chooseScenario(s, /^Price change/, '9001')
      await addOutboundBags(s)
      const before = await shownTotal(page)
      await fillTravellers(s)
      await pay(s)

      const review = page.getByRole('region', { name: /extras need your attention/ })
      await review.waitFor({ timeout: patience(30_000) })
      await expectText(
        review,
        /Price changed The price went from £71\.50 to £85\.80\..*Price changed The price went from £71\.50 to £85\.80\./,
      )
      assert.equal(await payButton(page).isDisabled(), true, 'no paying while a price waits for a decision')
      assert.equal(await summary(page).getByText('Price changed').count(), 2, 'the booking summary flags both bags')
      await shot(page, 'b-price-changed')

      await s.tap(review.getByRole('button', { name: /^Accept the new price for Checked bag 23 kg, Ada Lovelace/ }))
      await expectText(page.locator('#review'), /One extra needs your attention/)
      await s.tap(page.getByRole('button', { name: /^Accept the new price for Checked bag 23 kg, Charles Babbage/ }))
      await expectText(page.locator('#review'), /All set.*Your total is now £1,396\.60/)
      const after = await shownTotal(page)
      assert.equal(after - before, 2 * (8580 - 7150), 'the total rises by the two increases')

      await pay(s)
      await confirmation(s, /All 2 extras confirmed by the airline/)
      await shot(page, 'b-price-change-confirmation')

      const truth = await apiTruth(page)
      const orders = Object.values(truth.orders)
      assert.deepEqual(
        orders.map((o) => [o.status, o.price.total.amount]),
        [
          ['succeeded', 8580],
          ['succeeded', 8580],
        ],
      )
      assert.equal(truth.payment?.amount, after, 'charged the accepted total')
      assertCleanPage(s)
    }),
)

test(
  '(c) unavailable (BA 9002): the airline stops selling the flight; the page shows the flight and its bag unavailable, charges nothing, and offers another flight',
  { timeout: TEST_TIMEOUT },
  async () =>
    session(DESKTOP, 'c', async (s) => {
      const { page } = s
      await chooseScenario(s, /^Unavailable/, '9002')
      await s.tap(bagButton(page, 'London', 'Passenger 1'))
      await eventually(
        'the bag in the booking summary',
        async () => (await summaryLines(page, /Checked bag/).count()) === 1,
      )
      await fillTravellers(s)
      await pay(s)

      const review = page.getByRole('region', { name: 'Sorry, this flight can no longer be booked' })
      await review.waitFor({ timeout: patience(30_000) })
      await expectText(
        review,
        /Nothing has been charged.*Checked bag 23 kg.*Ada Lovelace.*Unavailable The airline no longer sells it/,
      )
      assert.equal(
        await summaryLines(page, /Flight LHR → JFK and return/)
          .getByText('Unavailable')
          .count(),
        1,
        'the summary marks the flight',
      )
      assert.equal(await payButton(page).count(), 0, 'no Pay button for a flight that cannot be sold')
      await shot(page, 'c-flight-unavailable')

      const truth = await apiTruth(page)
      assert.deepEqual(truth.orders, {}, 'nothing was fulfilled')
      assert.equal(truth.payment, null, 'nothing was charged')
      assert.notEqual(truth.tickets[0]!.status, 'booked')

      // Choosing again: a new search, here the same route on a flight the airline still sells.
      await s.tap(review.getByRole('button', { name: 'Choose another flight' }))
      await expectText(page.getByRole('region', { name: 'Your flights' }), /BA 117\b/)
      await bagButton(page, 'London', 'Passenger 1').waitFor()
      assertCleanPage(s)
    }),
)

test(
  '(c2) an unavailable extra: an exit-row seat for a passenger under 16 is refused at payment; removing it, the traveller pays for the rest',
  { timeout: TEST_TIMEOUT },
  async () =>
    session(DESKTOP, 'c2', async (s) => {
      const { page } = s
      await addOutboundBags(s)
      const seat = await chooseSeat(s, { exitRow: true })
      // Passenger 2 turns out to be 15 on the day of travel: old enough to fly as an adult, too young for an exit row.
      const fifteen = new Date(Date.now() - (15 * 365.25 + 60) * 86_400_000).toISOString().slice(0, 10)
      await fillTravellers(s, [ADA, { first: 'Ada', surname: 'Byron', dob: fifteen }, infant()])
      await pay(s)

      const review = page.getByRole('region', { name: 'One extra needs your attention' })
      await review.waitFor({ timeout: patience(30_000) })
      await expectText(
        review,
        new RegExp(`Seat ${seat}.*Ada Byron.*Unavailable Exit-row seats are for passengers aged 16 or over`),
      )
      await shot(page, 'c2-seat-unavailable')

      await s.tap(review.getByRole('button', { name: `Remove Seat ${seat}, Ada Byron · LHR → JFK`, exact: true }))
      await expectText(page.locator('#review'), /All set.*Your total is now £1,368\.00/)
      assert.equal(await summaryLines(page, /Seat/).count(), 0, 'the seat left the booking summary')
      await eventually(
        'focus on the Pay button',
        async () => (await page.evaluate(() => document.activeElement?.id)) === 'pay-button',
      )

      await pay(s)
      await confirmation(s, /All 2 extras confirmed by the airline/)
      const truth = await apiTruth(page)
      const orders = Object.values(truth.orders)
      assert.deepEqual(
        orders.map((o) => [o.display_name, o.status]),
        [
          ['Checked bag 23 kg', 'succeeded'],
          ['Checked bag 23 kg', 'succeeded'],
        ],
      )
      assert.ok(!Object.values(truth.basket).some((i) => i.product_type === 'seat'), 'no seat in the basket')
      assert.equal(truth.payment?.amount, 136800)
      assertCleanPage(s)
    }),
)

test(
  '(d) the same checkout on a phone (390 × 844, touch): bags, a seat, the form, pay, every order succeeds',
  { timeout: TEST_TIMEOUT },
  async () =>
    session(PHONE, 'd', async (s) => {
      const fits = () => s.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)
      assert.ok(await fits(), 'no sideways scrolling on a phone')
      await happyPath(s, 'd-phone-confirmation')
      assert.ok(await fits(), 'no sideways scrolling on the confirmation')
      await s.page.setViewportSize({ width: 360, height: 740 })
      assert.ok(await fits(), 'no sideways scrolling at 360 px either')
      assertCleanPage(s)
    }),
)

test(
  '(e) fulfillment fails (BA 9003): after payment the outbound bag fails, the return bag is booked, and the page says what is refunded',
  { timeout: TEST_TIMEOUT },
  async () =>
    session(DESKTOP, 'e', async (s) => {
      const { page } = s
      await chooseScenario(s, /^Fulfillment fails/, '9003')
      await s.tap(bagButton(page, 'London', 'Passenger 1'))
      await eventually(
        'the outbound bag in the booking summary',
        async () => (await summaryLines(page, /Checked bag/).count()) === 1,
      )
      await s.tap(bagButton(page, 'New York City', 'Passenger 1'))
      await eventually(
        'both bags in the booking summary',
        async () => (await summaryLines(page, /Checked bag/).count()) === 2,
      )
      await fillTravellers(s)
      await pay(s)

      await confirmation(
        s,
        /1 extra of 2 could not be booked by the airline\. Your flights and the other extras are booked\. We are refunding £71\.50 to your card\./,
      )
      const orders = page.getByRole('list', { name: 'Your extras' }).getByRole('listitem')
      await expectText(orders.filter({ hasText: 'LHR → JFK' }), /Not booked.*sandbox scenario 9003/)
      await expectText(orders.filter({ hasText: 'JFK → LHR' }), /Confirmed Airline reference SBX/)
      await shot(page, 'e-fulfillment-failed')

      const truth = await apiTruth(page)
      const byRoute = Object.values(truth.orders)
        .map((o) => [o.status, o.failure_reason ? 'with a reason' : o.supplier_reference ? 'with a reference' : ''])
        .sort()
      assert.deepEqual(byRoute, [
        ['failed', 'with a reason'],
        ['succeeded', 'with a reference'],
      ])
      assert.equal(truth.tickets[0]!.status, 'booked', 'the flight itself stays booked')
      assertCleanPage(s)
    }),
)

test(
  '(f) slow check (BA 9004): the page says it is still checking while the airline takes its time, then books',
  { timeout: TEST_TIMEOUT },
  async () =>
    session(DESKTOP, 'f', async (s) => {
      const { page } = s
      await chooseScenario(s, /^Slow check/, '9004')
      await s.tap(bagButton(page, 'London', 'Passenger 2'))
      await eventually(
        'the bag in the booking summary',
        async () => (await summaryLines(page, /Checked bag/).count()) === 1,
      )
      await fillTravellers(s)
      await pay(s)
      const status = page
        .getByRole('status')
        .filter({ hasText: /checking/i })
        .first()
      await expectText(status, /Checking prices and availability with the airline/, 5000)
      await expectText(status, /Still checking: the airline is taking a little longer than usual/, 10_000)
      assert.equal(await payButton(page).isDisabled(), true, 'no second payment while the first is on its way')
      await shot(page, 'f-still-checking')
      await confirmation(s, /All 1 extra confirmed by the airline/)
      const truth = await apiTruth(page)
      assert.deepEqual(
        Object.values(truth.orders).map((o) => o.status),
        ['succeeded'],
      )
      assertCleanPage(s)
    }),
)

for (const width of [320, 375]) {
  test(
    `(g) a ${width} px phone: the seat dialog fits the screen, every column A–K shown and at least 24 px; a tapped K seat reaches the booking summary`,
    { timeout: TEST_TIMEOUT },
    async () =>
      session(
        phone(width),
        `g-${width}`,
        async (s) => {
          await openSeatDialog(s)
          await assertFitsPhone(s.page, `${width} px`)
          const code = await tapSeatInColumnK(s)
          await assertFitsPhone(s.page, `${width} px, a seat chosen`)
          await shootDialog(s, `seats-${width}`)
          await closeSeatDialog(s, code)
          assert.equal(await summaryLines(s.page, /^Seat/).count(), 1)
          await expectText(summaryLines(s.page, /^Seat/), new RegExp(`Seat ${code}.*Passenger 2`))
          assert.ok(
            (await s.page.evaluate(() => document.documentElement.scrollWidth)) <= width,
            'no sideways scrolling after the dialog',
          )
          assertCleanPage(s)
        },
        { ready: seatCardReady },
      ),
  )
}

test(
  '(g) a 320 px phone in Arabic (the shop shows the widgets in ar-SA): right to left, the cabin still A to K from the left, fits, and a tap chooses a seat',
  { timeout: TEST_TIMEOUT },
  async () =>
    session(
      phone(320, { locale: 'ar-SA' }),
      'g-ar',
      async (s) => {
        assert.equal(await seatCard(s.page).evaluate((e) => getComputedStyle(e).direction), 'rtl')
        await openSeatDialog(s)
        await assertFitsPhone(s.page, '320 px, ar-SA')
        const letters = await seatCard(s.page)
          .locator('[data-row] button[data-seat]')
          .evaluateAll((bs) => {
            const row = bs.filter((b) => b.closest('[data-row]') === bs[0]!.closest('[data-row]'))
            return row.map(
              (b) => [b.getAttribute('data-seat')!.replace(/\d+/, ''), b.getBoundingClientRect().left] as const,
            )
          })
        assert.deepEqual(letters.map(([c]) => c).join(''), 'ABCDEFHJK')
        assert.ok(
          letters.every(([, x], i) => i === 0 || x > letters[i - 1]![1]),
          'A on the left, K on the right',
        )
        assert.equal(
          await seatCard(s.page)
            .locator('[part="map"]')
            .evaluate((e) => getComputedStyle(e).direction),
          'ltr',
        )
        assert.equal(
          await seatCard(s.page)
            .locator('[part~="passengers"]')
            .evaluate((e) => getComputedStyle(e).direction),
          'rtl',
        )
        const code = await tapSeatInColumnK(s)
        await assertFitsPhone(s.page, '320 px, ar-SA, a seat chosen')
        await shootDialog(s, 'seats-320-ar-SA')
        await closeSeatDialog(s, code)
        assertCleanPage(s)
      },
      { setup: rewriteApp("locale: 'en-GB'", "locale: 'ar-SA'"), ready: seatCardReady },
    ),
)

test(
  '(g) a 375 px phone in dark mode (the shop gives the widget dark colours in theme.dark): the dark tokens reach the cabin, it fits, and a tap chooses a seat',
  { timeout: TEST_TIMEOUT },
  async () =>
    session(
      phone(375, { colorScheme: 'dark' }),
      'g-dark',
      async (s) => {
        await openSeatDialog(s)
        await assertFitsPhone(s.page, '375 px, dark')
        const card = seatCard(s.page)
        // The widget's own dark palette (tokenVars) where the shop sets nothing, the shop's dark theme where it does.
        assert.equal(
          await card.locator('[part="map"]').evaluate((e) => getComputedStyle(e).backgroundColor),
          'rgb(22, 27, 34)',
        )
        assert.equal(await card.locator('.map-title').evaluate((e) => getComputedStyle(e).color), 'rgb(230, 237, 243)')
        const code = await tapSeatInColumnK(s)
        await s.tap(card.locator('[part~="passenger"]').nth(1))
        assert.equal(
          await card.locator(`button[data-seat="${code}"]`).evaluate((e) => getComputedStyle(e).backgroundColor),
          'rgb(63, 185, 80)',
          'the chosen seat in the dark success colour',
        )
        await shootDialog(s, 'seats-375-dark')
        await closeSeatDialog(s, code)
        assertCleanPage(s)
      },
      {
        // The demo itself is light only: it sets --svc-color-text (its ink) and a light primary for every colour
        // scheme, so on a dark phone the widget's dark background would meet the shop's dark ink. A shop that
        // supports dark mode gives the widget its dark colours too, as here.
        setup: rewriteApp(
          "focusRing: '#f5a623' }",
          "focusRing: '#f5a623', dark: { textPrimary: '#e6edf3', primary: '#4c8dff', primaryText: '#0d1117' } }",
        ),
        ready: seatCardReady,
      },
    ),
)

test(
  '(h) the demo as it ships, on a phone set to dark: the light-only shop keeps the widget light, readable and passing axe',
  { timeout: TEST_TIMEOUT },
  async () =>
    session(
      phone(375, { colorScheme: 'dark' }),
      'h-dark-shop',
      async (s) => {
        await openSeatDialog(s)
        const card = seatCard(s.page)
        assert.equal(
          await card.locator('[part="map"]').evaluate((e) => getComputedStyle(e).backgroundColor),
          'rgb(246, 248, 250)',
          'the light surface, not the dark one',
        )
        assert.equal(
          await card.locator('.map-title').evaluate((e) => getComputedStyle(e).color),
          'rgb(20, 33, 61)',
          "the shop's ink",
        )
        assert.deepEqual(
          await axeViolations(s.page),
          [],
          'no serious accessibility violations (colour contrast included) with the dialog open',
        )
        await shootDialog(s, 'seats-375-dark-shop')
        assertCleanPage(s)
      },
      { ready: seatCardReady },
    ),
)
