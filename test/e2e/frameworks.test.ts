/**
 * The React and Vue examples (examples/react, examples/vue) as a seller builds and runs them, from the packed
 * package (run `npm run build` first; `npm test` does):
 *
 * - each example is copied into a temp dir with its own package.json, whose `svc-ancillaries` is the
 *   tarball `npm run pack:browser` makes (checked, so the READMEs' commands stay right); its other
 *   dependencies and the package's are linked from the repo's node_modules, then `npm install --offline`
 *   unpacks the tarball (as test/e2e/package.test.ts does: npm finds every other dependency satisfied);
 * - `npm run build` there is the example's own script: the type check (tsc with svc-ancillaries/types/react,
 *   vue-tsc with svc-ancillaries/types/vue, both over the templates) and Vite's production build. A
 *   development build too (`NODE_ENV=development vite build --mode development`): React's StrictMode runs
 *   each effect twice only there, and React and Vue say what is wrong in the console only there;
 * - each build is served from its own origin, which the seller lists (`npm run seller -- create --origin`,
 *   before the service starts), with the real service (compiled) on a fresh SQLite file; the test is the
 *   seller's backend: it creates the trip with the API key and gives the page its id and access token.
 *
 * In Chromium, for each framework and build: the bag widget shows its offers and the component hears
 * `svc-load`; the price the widget shows beside a bag (the text its `<svc-price>` draws in its shadow root,
 * which stays empty unless the example's one import registers that element too) is the price the API's
 * search asks for that bag; "+" for a passenger adds a bag, and the total the component keeps in its own
 * state (from `svc-basket-change`) is the API's basket, read with the API key; one event stream is open, as the service
 * counts them (`svc_live_streams`), however many effects ran; "Leave checkout" unmounts the component, the
 * element leaves the page, every stream the page opened was aborted and the service has none open; and
 * nothing was logged as an error or warning. A token the API refuses reaches the component as `svc-fail`.
 */
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import type { Browser, Page } from 'playwright-core'
import { root, startServer, type RunningServer } from '../helpers/process.ts'
import { serveStatic, type StaticServer } from '../../scripts/static-server.ts'
import { defaultTripRequest } from '../../mock-server/fixtures.ts'
import { eventually, expectText, launchChromium, screenshotDir } from './support/browser.ts'
import { patience } from '../helpers/patience.ts'

const run = promisify(execFile)
const repoModules = realpathSync(join(root, 'node_modules'))
const PACKAGE = join(root, 'dist', 'svc-ancillaries')
const FRAMEWORKS = ['react', 'vue'] as const
const BUILDS = ['production', 'development'] as const
type Framework = (typeof FRAMEWORKS)[number]
type Build = (typeof BUILDS)[number]

interface PackageJson {
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
}

let tmp: string
let dbDir: string
let server: RunningServer
let browser: Browser
let apiKey: string
/** Where each build's page is photographed once its bag offers show their prices (SVC_E2E_SCREENSHOTS names it). */
let shots: string
const sites = new Map<string, StaticServer>()
const site = (framework: Framework, build: Build) => sites.get(`${framework}/${build}`)!

const npm = (args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...env, npm_config_update_notifier: 'false' },
    maxBuffer: 16 << 20,
  })
const readJson = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T
const withoutNodeEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_ENV'))

/** The example as a seller's project: its files in a temp dir, its dependencies installed, the tarball unpacked. */
async function install(framework: Framework, tarball: string): Promise<string> {
  const dir = join(tmp, framework)
  // What a developer's own install or build left in the example is not part of it.
  cpSync(join(root, 'examples', framework), dir, {
    recursive: true,
    filter: (f) => !/(^|\/)(node_modules|dist|package-lock\.json)$/.test(f),
  })
  const pkg = readJson<PackageJson>(join(dir, 'package.json'))
  assert.equal(
    pkg.dependencies?.['svc-ancillaries'],
    `file:../../${basename(tarball)}`,
    `examples/${framework}/package.json must install the tarball \`npm run pack:browser\` makes at the repo root`,
  )
  const packaged = readJson<PackageJson>(join(PACKAGE, 'package.json'))
  const linked = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...packaged.dependencies }).filter(
    (d) => d !== 'svc-ancillaries',
  )
  for (const dep of linked) {
    assert.ok(
      existsSync(join(repoModules, dep)),
      `examples/${framework} needs ${dep}: add it to the repo's devDependencies`,
    )
    mkdirSync(dirname(join(dir, 'node_modules', dep)), { recursive: true })
    // Their own dependencies resolve from the repo's node_modules, through the link.
    symlinkSync(join(repoModules, dep), join(dir, 'node_modules', dep), 'dir')
  }
  await npm(['install', '--offline', '--ignore-scripts', tarball], dir)
  return dir
}

/** `npm run build` (type check, then the production build in dist/), and a development build in dist-dev/. */
async function buildBoth(dir: string): Promise<Record<Build, string>> {
  await npm(['run', 'build'], dir, withoutNodeEnv()).catch((e: { stdout: string; stderr: string }) =>
    assert.fail(`npm run build in examples/${basename(dir)}:\n${e.stdout}${e.stderr}`),
  )
  // What `NODE_ENV=development vite build --mode development` makes: React's and Vue's development builds.
  await run(
    process.execPath,
    [
      join(dir, 'node_modules/vite/bin/vite.js'),
      'build',
      '--mode',
      'development',
      '--outDir',
      'dist-dev',
      '--logLevel',
      'warn',
    ],
    { cwd: dir, env: { ...process.env, NODE_ENV: 'development' } },
  )
  return { production: join(dir, 'dist'), development: join(dir, 'dist-dev') }
}

before(
  async () => {
    assert.ok(existsSync(join(PACKAGE, 'package.json')), 'dist/svc-ancillaries is missing: run `npm run build` first')
    tmp = mkdtempSync(join(tmpdir(), 'svc-frameworks-'))
    const { stdout } = await npm(['pack', PACKAGE, '--json', '--ignore-scripts', '--pack-destination', tmp], root)
    const tarball = join(tmp, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename)
    const built = await Promise.all(
      FRAMEWORKS.map(async (f) => [f, await buildBoth(await install(f, tarball))] as const),
    )
    for (const [framework, dirs] of built) {
      for (const build of BUILDS) sites.set(`${framework}/${build}`, await serveStatic(dirs[build]))
    }

    // The seller lists the origins its pages are served from; then the service starts on that database.
    dbDir = mkdtempSync(join(tmpdir(), 'svc-e2e-frameworks-'))
    const env = { ...process.env, DATABASE_URL: `sqlite:${join(dbDir, 'svc.db')}` }
    const origins = [...sites.values()].flatMap((s) => ['--origin', s.origin])
    const created = await run(
      process.execPath,
      [join(root, 'dist/node/server/cli/seller.js'), 'create', '--name', 'Framework examples', '--sandbox', ...origins],
      { cwd: root, env },
    )
    apiKey = /API key\s+(\S+)/.exec(created.stdout)?.[1] ?? assert.fail(`no API key in:\n${created.stdout}`)
    server = await startServer({ DATABASE_URL: env.DATABASE_URL }, { compiled: true, entry: 'service' })
    browser = await launchChromium()
    shots = screenshotDir('frameworks')
  },
  { timeout: patience(180_000) },
)

after(async () => {
  await browser?.close()
  await server?.stop()
  await Promise.all([...sites.values()].map((s) => s.close()))
  for (const dir of [tmp, dbDir]) if (dir) rmSync(dir, { recursive: true, force: true })
})

// ---------------------------------------------------------------- the seller's backend, and the service's view

const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: {
      authorization: `Basic ${btoa(`${apiKey}:`)}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (!res.ok) assert.fail(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json() as Promise<T>
}

async function newTrip(): Promise<{ trip_id: string; trip_access_token: string }> {
  return api('POST', '/v2.2/trip', defaultTripRequest(new Date()))
}

interface Money {
  amount: number
  currency: string
  decimal_places: number
}

interface ApiItem {
  product_id: string
  product_type: string
  quantity: number
  product_details: { passenger_id?: string }
  price: { total: Money }
}

/** The price the API's search asks for one product for one passenger: what the widget must show beside it. */
async function offeredPrice(tripId: string, productId: string, passengerId: string): Promise<Money> {
  const { search_id } = await api<{ search_id: string }>('GET', `/v2.2/trip/${tripId}`)
  const search = await api<{
    results: {
      products: Record<
        string,
        Record<string, { price_and_availability: Record<string, { price: { total: Money } | null }> }>
      >
    }
  }>('GET', `/v2.2/trip/${tripId}/search/${encodeURIComponent(search_id)}?product_types=bag`)
  return (
    search.results.products['bag']?.[productId]?.price_and_availability[passengerId]?.price?.total ??
    assert.fail(`the search ${search_id} has no price for ${productId} and ${passengerId}`)
  )
}

/** Trip event streams open on the service, as GET /metrics counts them. */
async function openStreams(): Promise<number> {
  const text = await (await fetch(`${server.base}/metrics`)).text()
  const line = /^svc_live_streams (\d+)$/m.exec(text)
  assert.ok(line, 'svc_live_streams is in /metrics')
  return Number(line[1])
}

/** Waits until the service has `n` event streams open (a closed connection takes it a moment to count). */
async function untilStreamsOpen(n: number, why: string) {
  let seen: number | undefined
  await eventually(why, async () => (seen = await openStreams()) === n).catch((e: Error) =>
    assert.fail(`${e.message}: ${seen} open, not ${n}`),
  )
}

// ---------------------------------------------------------------- the page

/** The page's window, with the event streams `recordEventStreams` saw. */
type Recording = Window & { svcStreams: Array<{ aborted: boolean }> }

/** Before the page's scripts: every fetch of a trip's event stream is recorded, with whether its signal aborted. */
function recordEventStreams() {
  const streams: Recording['svcStreams'] = ((window as unknown as Recording).svcStreams = [])
  const fetch = window.fetch
  window.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    if (/\/v2\.2\/trip\/[^/]+\/events$/.test(url)) {
      const stream = { aborted: Boolean(init?.signal?.aborted) }
      streams.push(stream)
      init?.signal?.addEventListener('abort', () => {
        stream.aborted = true
      })
    }
    return fetch(input, init)
  }
}

/** The page of one build for a trip, as the seller's backend hands it over (in the address, as main.ts reads it). */
async function open(framework: Framework, build: Build, trip: { trip_id: string; trip_access_token: string }) {
  const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(20_000)
  await context.addInitScript(recordEventStreams)
  const page = await context.newPage()
  const logged: string[] = []
  page.on('pageerror', (e) => logged.push(`pageerror: ${e.message}`))
  page.on('console', (m) => {
    if (m.type() !== 'error' && m.type() !== 'warning') return
    // Lit's development build announces itself, and the browser asks for an icon the examples do not have;
    // anything else React, Vue, Lit, the SDK or the browser reports is a fault.
    if (/^Lit is in dev mode/.test(m.text()) || new URL(m.location().url || 'about:blank').pathname === '/favicon.ico')
      return
    logged.push(`${m.type()}: ${m.text()} (${m.location().url})`)
  })
  const query = new URLSearchParams({ api: server.base, trip: trip.trip_id, token: trip.trip_access_token })
  await page.goto(`${site(framework, build).origin}/?${query}`)
  return { page, logged, close: () => context.close() }
}

const summary = (page: Page) => page.getByText(/^(No extras yet|Extras: .*)$/)
const streams = (page: Page) => page.evaluate(() => (window as unknown as Recording).svcStreams.map((s) => s.aborted))

/** The accessible name of the "+" of a passenger's 23 kg checked bag (named "Hold bag" in some en-GB texts). */
const addBagName = (passenger: string) => new RegExp(`^Add one (Checked|Hold) bag\\W+23 kg for ${passenger}$`)
/** That "+" on the outbound journey. */
const addBag = (page: Page, passenger: string) =>
  page
    .locator('svc-bag-upsell .journey')
    .first()
    .getByRole('button', { name: addBagName(passenger) })

/**
 * The price shown beside that bag: the text `<svc-price>` draws in its shadow root (playwright's CSS goes
 * through open shadow roots), as the traveller reads it.
 */
const bagPrice = (page: Page, passenger: string) =>
  page
    .locator('svc-bag-upsell .journey')
    .first()
    .locator('[part=option]', { has: page.getByRole('button', { name: addBagName(passenger) }) })
    .locator('svc-price [part=amount]')

const money = (amount: number, currency: string, dp: number) =>
  new Intl.NumberFormat('en-GB', {
    style: 'currency',
    currency,
    minimumFractionDigits: dp,
    maximumFractionDigits: dp,
  }).format(amount / 10 ** dp)

for (const framework of FRAMEWORKS) {
  describe(`examples/${framework}`, () => {
    for (const build of BUILDS) {
      test(
        `${build} build: offers at the API's prices, a bag in the component's state and the API's basket, one stream, and "Leave checkout" closes it`,
        { timeout: patience(60_000) },
        async () => {
          const trip = await newTrip()
          const { page, logged, close } = await open(framework, build, trip)
          try {
            await addBag(page, 'Passenger 1').waitFor()
            // svc-load reached the component: its "Loading" line is gone; its basket (the ticket alone) has no extras.
            await eventually(
              'svc-load cleared the loading line',
              async () => (await page.getByText('Loading the extras…').count()) === 0,
            )
            await expectText(summary(page), /^No extras yet$/)
            // The price the widget shows for the bag, before it is added (checked against the API's below).
            const shownPrice = await expectText(bagPrice(page, 'Passenger 1'), /\d/)
            await page.screenshot({ path: join(shots, `${framework}-${build}.png`), fullPage: true })
            // However many sessions the effects made (StrictMode makes two in development), one stream stays open.
            await untilStreamsOpen(1, 'one event stream open on the service')
            const opened = await streams(page)
            assert.equal(
              opened.filter((aborted) => !aborted).length,
              1,
              `the page's event streams (aborted or not): ${opened}`,
            )

            await addBag(page, 'Passenger 1').click()
            const shown = await expectText(summary(page), /^Extras: 1, /)
            const { basket } = await api<{ basket: Record<string, ApiItem> }>(
              'GET',
              `/v2.2/trip/${trip.trip_id}/basket`,
            )
            const extras = Object.values(basket).filter((i) => i.product_type !== 'ticket')
            assert.deepEqual(
              extras.map((i) => [i.product_type, i.product_details.passenger_id, i.quantity]),
              [['bag', 'p1', 1]],
              'the API has the bag',
            )
            const { amount, currency, decimal_places } = extras[0]!.price.total
            assert.equal(
              shown,
              `Extras: 1, ${money(amount, currency, decimal_places)}`,
              "the component shows the API's total",
            )
            // What the widget showed beside the bag is what the API's search asks for it, in the trip's locale.
            const offered = await offeredPrice(trip.trip_id, extras[0]!.product_id, 'p1')
            assert.equal(
              shownPrice,
              money(offered.amount, offered.currency, offered.decimal_places),
              "the widget shows the API's price for the bag",
            )
            assert.equal(
              await bagPrice(page, 'Passenger 1').innerText(),
              shownPrice,
              'and still does once the bag is added',
            )
            assert.equal(await openStreams(), 1, 'still one event stream')

            await page.getByRole('button', { name: 'Leave checkout' }).click()
            await page.getByText('You left the checkout.').waitFor()
            assert.equal(await page.locator('svc-bag-upsell').count(), 0, 'the element left the page')
            assert.ok(
              (await streams(page)).every((aborted) => aborted),
              'every event stream the page opened was aborted',
            )
            await untilStreamsOpen(0, 'no event stream open on the service')
            assert.deepEqual(logged, [], 'errors and warnings in the console')
          } finally {
            await close()
          }
        },
      )
    }

    test(
      'a token the API refuses: the component shows the code svc-fail gives it',
      { timeout: patience(60_000) },
      async () => {
        const { trip_id } = await newTrip()
        const { page, close } = await open(framework, 'production', { trip_id, trip_access_token: 'not-a-token' })
        try {
          await page.getByText('Something went wrong with the extras (unauthorized).').waitFor()
        } finally {
          await close()
        }
      },
    )
  })
}
