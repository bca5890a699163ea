/**
 * The offline sandbox example (examples/sandbox) in Debian's Chromium with the network unplugged, from
 * the built SDK (`npm run build` first; `npm test` does):
 *
 * - opened from disk (file://): every request that is not a file is aborted and recorded, and the
 *   browser is offline as well;
 * - from a plain static server: every request to another origin is aborted and recorded, and the server
 *   sees static files only (no /v2.2 call: the widget is answered in the page);
 * - from a static server with MSW's worker at its root (`npx msw init`): the page's own
 *   `fetch('/v2.2/...')` is answered by the sandbox too, still with the browser offline.
 *
 * Each asserts what the traveller sees (the widget, the bag in the seller's basket list, a scenario)
 * and that the list of requests that tried to leave is empty.
 */
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { serveStatic, type StaticServer } from '../../scripts/static-server.ts'
import { patience } from '../helpers/patience.ts'

const root = join(import.meta.dirname, '..', '..')
const PAGE = 'examples/sandbox/index.html'
const TIMEOUT = patience(30_000)

let browser: Browser

before(async () => {
  for (const f of ['svc.min.js', 'svc-sandbox.min.js']) {
    assert.ok(
      existsSync(join(root, 'dist/javascript/v2.2', f)),
      `dist/javascript/v2.2/${f} is missing: run \`npm run build\` first`,
    )
  }
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
})

after(async () => {
  await browser?.close()
})

interface Guarded {
  page: Page
  outside: string[]
  errors: string[]
}

/**
 * A fresh page (its own storage) whose requests pass only when `inPage` says they stay: the rest are
 * aborted as if the cable were out, and recorded. Without `inPage` nothing is intercepted (interception
 * would bypass a service worker); every request is still recorded by URL.
 */
async function openPage(inPage?: (url: string) => boolean): Promise<Guarded & { requests: string[] }> {
  const context = await browser.createBrowserContext()
  const page = await context.newPage()
  page.setDefaultTimeout(TIMEOUT)
  const outside: string[] = []
  const requests: string[] = []
  const errors: string[] = []
  if (inPage) await page.setRequestInterception(true)
  page.on('request', (r) => {
    const url = r.url()
    requests.push(url)
    if (!inPage) return
    // data: and blob: never leave the page.
    if (/^(data|blob):/.test(url) || inPage(url)) void r.continue()
    else {
      outside.push(url)
      void r.abort('internetdisconnected')
    }
  })
  page.on('pageerror', (e) => errors.push(String(e)))
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  return { page, outside, errors, requests }
}

/**
 * The guard is real: a request to the outside is recorded and never answered. (A navigation, since the
 * example's own Content-Security-Policy already refuses a fetch to another origin before it is sent.)
 */
async function guardWorks(page: Page, outside: string[]) {
  await assert.rejects(page.goto('https://api.example.com/v2.2/trip'), /ERR_INTERNET_DISCONNECTED/)
  assert.deepEqual(outside, ['https://api.example.com/v2.2/trip'])
}

/** Clicks the first "+" of a bag that can still be added, inside the bag widget (through shadow roots). */
async function addBag(page: Page) {
  await page.waitForFunction(() => {
    const bags = document.querySelector('#bags svc-upsell')?.shadowRoot?.querySelector('svc-bag-upsell')
    const plus = Array.from(
      bags?.shadowRoot?.querySelectorAll<HTMLButtonElement>('[part="stepper"] button:last-of-type') ?? [],
    ).find((b) => b.getAttribute('aria-disabled') === 'false')
    plus?.click()
    return Boolean(plus)
  })
}

/** The page is ready: the trip shown, both widgets loaded. */
async function ready(page: Page) {
  await page.waitForSelector('body[data-ready="true"]')
  const shown = await page.evaluate(() => ({
    bags: Boolean(document.querySelector('#bags svc-upsell')?.shadowRoot?.querySelector('svc-bag-upsell')),
    seats: Boolean(document.querySelector('#seats svc-upsell')),
    itinerary: document.querySelector('#itinerary')?.textContent ?? '',
    basket: Array.from(document.querySelectorAll('#basket-list li')).map((li) => li.getAttribute('data-type')),
  }))
  assert.ok(shown.bags, 'the bag widget rendered')
  assert.ok(shown.seats, 'the seat card rendered')
  assert.match(shown.itinerary, /London \(LHR\) → New York City \(JFK\)/)
  assert.ok(shown.basket.includes('ticket'), `the seller's basket lists the ticket (${shown.basket.join(', ')})`)
}

const basketState = (page: Page) =>
  page.$$eval('#basket-list li', (lis) =>
    lis.map((li) => `${li.getAttribute('data-type')}:${li.getAttribute('data-state')}`),
  )

/** The traveller adds a bag; the seller's own basket list (onBasketChange) shows it, valid, with a total. */
async function addBagAndSeeIt(page: Page) {
  const totalBefore = await page.$eval('#basket-total', (e) => e.textContent)
  await addBag(page)
  await page.waitForSelector('#basket-list li[data-type="bag"][data-state="valid"]')
  const totalAfter = await page.$eval('#basket-total', (e) => e.textContent)
  assert.notEqual(totalAfter, totalBefore, 'the total includes the bag')
  assert.match(totalAfter ?? '', /€\s?\d/)
}

describe('the offline sandbox example', { timeout: patience(180_000) }, () => {
  test('from disk (file://), offline: widget, a bag, the 9001 price change, and a reload that keeps the basket', async () => {
    const { page, outside, errors } = await openPage((url) => url.startsWith('file://'))
    await page.setOfflineMode(true)
    await page.goto(pathToFileURL(join(root, PAGE)).href)
    await ready(page)
    await addBagAndSeeIt(page)

    // The reload keeps the trip and its basket (the sandbox's store is in localStorage).
    await page.reload()
    await ready(page)
    assert.deepEqual(
      (await basketState(page)).filter((s) => s.startsWith('bag')),
      ['bag:valid'],
    )

    // Price change (9001): a new trip, a bag, a basket check → price_changed in the seller's list and the
    // widget → accept in the widget → valid, and Pay is possible.
    await page.click('button[data-flight="9001"]')
    await ready(page)
    assert.match(await page.$eval('#itinerary', (e) => e.textContent ?? ''), /BA 9001/)
    await addBagAndSeeIt(page)
    await page.click('#check')
    await page.waitForSelector('#basket-list li[data-type="bag"][data-state="price_changed"]')
    assert.match(await page.$eval('#status', (e) => e.textContent ?? ''), /price changed/i)
    assert.equal(await page.$eval('#pay', (e) => (e as HTMLButtonElement).disabled), true)
    await page.waitForFunction(() => {
      // A loop, not a nested function: tsx names those with a helper the page does not have.
      const roots: Array<Element | ShadowRoot> = [document.querySelector('#bags')!]
      while (roots.length > 0) {
        for (const el of Array.from(roots.pop()!.querySelectorAll('*'))) {
          if (el instanceof HTMLButtonElement && el.textContent?.includes('Accept new price')) {
            el.click()
            return true
          }
          if (el.shadowRoot) roots.push(el.shadowRoot)
        }
      }
      return false
    })
    await page.waitForSelector('#basket-list li[data-type="bag"][data-state="valid"]')
    assert.equal(await page.$eval('#pay', (e) => (e as HTMLButtonElement).disabled), false)

    // Unavailable (9002).
    await page.click('button[data-flight="9002"]')
    await ready(page)
    await addBagAndSeeIt(page)
    await page.click('#check')
    await page.waitForSelector('#basket-list li[data-type="bag"][data-state="unavailable"]')

    assert.deepEqual(outside, [], 'requests that tried to leave the page')
    assert.deepEqual(errors, [], 'page errors')
    await guardWorks(page, outside)
    await page.browserContext().close()
  })

  describe('from a static server', () => {
    let server: StaticServer
    before(async () => {
      server = await serveStatic(root)
    })
    after(async () => {
      await server.close()
    })

    test('every call is answered in the page: the server serves files only, nothing goes elsewhere', async () => {
      const { page, outside, errors } = await openPage((url) => new URL(url).origin === server.origin)
      await page.goto(`${server.origin}/${PAGE}`)
      await ready(page)
      await addBagAndSeeIt(page)
      await page.reload()
      await ready(page)
      assert.deepEqual(
        (await basketState(page)).filter((s) => s.startsWith('bag')),
        ['bag:valid'],
      )

      assert.deepEqual(outside, [], 'requests that tried to leave the page')
      assert.deepEqual(
        server.requests.filter((r) => / \/v2\.2\//.test(r)),
        [],
        'API calls that reached the server',
      )
      // What the server did see: the page, its files, the two bundles, and the probe for a worker (404 here).
      assert.ok(server.requests.includes('GET /dist/javascript/v2.2/svc-sandbox.min.js'))
      assert.ok(server.requests.includes('HEAD /mockServiceWorker.js'))
      assert.equal(await page.evaluate(() => window.SvcSandbox?.worker), false)
      // The 404 of the worker probe is the only console error a page without the worker shows.
      assert.deepEqual(
        errors.filter((e) => !/404/.test(e)),
        [],
        'page errors',
      )
      await guardWorks(page, outside)
      await page.browserContext().close()
    })
  })

  describe("from a static server with MSW's worker at its root", () => {
    let server: StaticServer
    before(async () => {
      server = await serveStatic(root, { worker: true })
    })
    after(async () => {
      await server.close()
    })

    test("the page's own fetch('/v2.2/...') is answered by the sandbox too, offline", async () => {
      // No interception here (it would bypass the service worker): the server's log and the page's
      // request list show where requests went.
      const { page, requests, errors } = await openPage()
      await page.goto(`${server.origin}/${PAGE}`)
      await ready(page)
      assert.equal(await page.evaluate(() => window.SvcSandbox?.worker), true, 'the MSW worker started')
      await addBagAndSeeIt(page)

      await page.setOfflineMode(true)
      const own = await page.evaluate(async () => {
        const key = await window.Svc.sandbox.apiKey()
        const { tripId } = JSON.parse(localStorage.getItem('example-sandbox:trip') ?? '{}') as { tripId: string }
        // What a seller's own page code does: a plain fetch to its own origin.
        const res = await fetch(`/v2.2/trip/${tripId}/basket`, {
          headers: { authorization: `Basic ${btoa(`${key}:`)}` },
        })
        const body = (await res.json()) as { basket: Record<string, { product_type: string }> }
        return {
          status: res.status,
          types: Object.values(body.basket)
            .map((i) => i.product_type)
            .sort(),
        }
      })
      assert.deepEqual(own, { status: 200, types: ['bag', 'ticket'] })
      await page.setOfflineMode(false)

      assert.deepEqual(
        server.requests.filter((r) => / \/v2\.2\//.test(r)),
        [],
        'API calls that reached the server',
      )
      assert.deepEqual(
        requests.filter((u) => !/^(data|blob):/.test(u) && new URL(u).origin !== server.origin),
        [],
        'requests to other origins',
      )
      assert.deepEqual(errors, [], 'page errors')
      await page.browserContext().close()
    })
  })
})
