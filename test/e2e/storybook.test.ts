/**
 * The built Storybook (`npm run build-storybook`; `npm test` builds it first) as a designer opens it:
 * storybook-static/ behind a plain static server, in Debian's Chromium with every request to another
 * origin refused and recorded. The sidebar lists every widget, a story shows its state from the offline
 * sandbox, and the docs page shows the element's attributes, events and parts from custom-elements.json.
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { serveStatic, type StaticServer } from '../../scripts/static-server.ts'
import { expectText, launchChromium, screenshotDir, watchPage } from './support/browser.ts'
import { STATES } from '../../stories/support/trip.ts'
import { VARIANTS } from '../../stories/support/widget.ts'

const dir = join(import.meta.dirname, '..', '..', 'storybook-static')

let server: StaticServer
let browser: Browser
let shots: string
const leaks: string[] = []

before(async () => {
  assert.ok(existsSync(join(dir, 'index.html')), 'storybook-static/ is missing: run `npm run build-storybook` first')
  server = await serveStatic(dir)
  browser = await launchChromium()
  shots = screenshotDir('storybook')
})

after(async () => {
  await browser?.close()
  await server?.close()
})

/** A page that may only talk to the static server: anything else is aborted and listed in `leaks`. */
async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(20_000)
  await context.route('**/*', (route) => {
    const url = route.request().url()
    if (url.startsWith(server.origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue()
    leaks.push(url)
    return route.abort()
  })
  const page = await context.newPage()
  const { problems } = watchPage(page)
  await page.goto(`${server.origin}${path}`)
  return { page, problems }
}

test('the index has a story of every widget in every display, state and variant', () => {
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as {
    entries: Record<string, { type: string; title: string; name: string }>
  }
  const stories = Object.values(index.entries).filter((e) => e.type === 'story')
  const title = (s: string) =>
    s
      .split('_')
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join(' ')
  const kinds = [...STATES.map(title), ...Object.keys(VARIANTS).map((v) => v.replace(/(?<=[a-z])(?=[A-Z])/g, ' '))]
  const widgets: Record<string, string[]> = {
    'Widgets/Bags': ['Card', 'Embedded', 'Modal'],
    'Widgets/Seat map': ['Card', 'Embedded', 'Modal'],
    'Widgets/Option card': ['Card', 'Embedded', 'Modal'],
    'Widgets/Upsell': ['Card', 'Embedded', 'Modal'],
    'Widgets/Basket': [''], // one display: a list
  }
  for (const [widget, displays] of Object.entries(widgets)) {
    const names = new Set(stories.filter((s) => s.title === widget).map((s) => s.name))
    const missing = displays.flatMap((d) => kinds.map((k) => `${d} ${k}`.trim())).filter((n) => !names.has(n))
    assert.deepEqual(missing, [], `${widget}: stories missing`)
  }
})

test('the sidebar lists every widget, offline', async () => {
  const { page, problems } = await open('/')
  await expectText(
    page.locator('#storybook-explorer-menu'),
    /Introduction.*Bags.*Basket.*Option card.*Seat map.*Upsell/,
  )
  await page.screenshot({ path: join(shots, 'manager.png') })
  assert.deepEqual(problems, [])
  assert.deepEqual(leaks, [], 'requests that tried to leave the machine')
})

test('a story shows its state from the in-page sandbox: the seat map with a changed price to accept', async () => {
  const { page, problems } = await open('/iframe.html?id=widgets-seat-map--embedded-price-changed&viewMode=story')
  // Playwright's CSS locators pierce open shadow roots.
  const notice = page.locator('svc-seat-map [part~="state-price-changed"]').first()
  await expectText(notice, /price.*€.*Accept/is)
  await page.screenshot({ path: join(shots, 'seat-map-price-changed.png'), fullPage: true })
  assert.deepEqual(problems, [])
  assert.deepEqual(leaks, [])
})

test('the docs page shows what custom-elements.json says of the element: attributes, events, parts', async () => {
  const { page, problems } = await open('/iframe.html?id=widgets-bags--docs&viewMode=docs')
  const docs = page.locator('#storybook-docs')
  await expectText(docs, /Bags per passenger per journey/)
  const text = await expectText(docs, /svc-basket-change/)
  for (const word of ['display', 'locale', 'svc-load', 'svc-fail', 'open-button', '--svc-color-primary'])
    assert.match(text, new RegExp(word), word)
  await page.screenshot({ path: join(shots, 'bags-docs.png') })
  assert.deepEqual(problems, [])
  assert.deepEqual(leaks, [])
})
