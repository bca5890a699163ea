/**
 * First control: how long a traveller waits, from navigation, until the first bag "add" (+) button is
 * enabled and visible, on a minimal seller page in Chromium against the real service on loopback, and how
 * many bytes of offers the page fetched for it (the search reads, transferred and decoded).
 *
 *   npm run build && node --import tsx bench/first-control.ts     BENCH_RUNS=15 by default
 *
 * Each run: a trip made as a seller's backend makes it (`POST /v2.2/trip` with the API key), then a fresh
 * browser context (empty cache, as a first visit) opens the seller's page with the trip id and access token
 * in its URL. The page loads svc.min.js from the service (`/javascript/v2.2/svc.min.js`, so `npm run build`
 * first), calls `Svc.init` and `Svc.showUpsell` for bags, and notes `performance.now()` (milliseconds since
 * navigation) in the first animation frame where an enabled, visible "+" is inside the widget's shadow
 * roots. One warm-up run per service is not counted. Figures only, no pass or fail.
 *
 * BENCH_BEFORE=<another checkout, built> adds that checkout's service and SDK, run by run alternately with
 * this one, for a before/after measured side by side (bench/servers/service.ts serves BENCH_ROOT).
 */
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { chromium, type Browser, type Request } from 'playwright-core'
import { defaultTripRequest } from '../mock-server/fixtures.ts'
import { serve, type Served } from './lib/servers.ts'
import { kib, median, spread } from './lib/stats.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--no-first-run',
]

export interface FirstControlRun {
  /** performance.now() in the page when the first "+" was enabled and visible. */
  ms: number
  /** Bytes of the search reads' bodies as they crossed the wire (compressed), and decoded. */
  offersTransferred: number
  offersDecoded: number
  /** `product_types` of each search read (`*` when the page read everything). */
  searches: string[]
}

export interface FirstControlResult {
  label: string
  runs: FirstControlRun[]
}

interface Target {
  label: string
  root: string
  served?: Served
}

/**
 * A seller's checkout page, as small as one can be: the SDK's script tag from the service, init with the
 * trip from the URL (the seller's backend put it there), the bag widget, and the in-page stopwatch.
 */
function sellerPage(apiUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout</title></head>
<body><main><h1>Your trip</h1><section id="bags"></section></main>
<script>
  // Polls once per frame: the first frame that has an enabled, visible "+" is when a traveller can add a bag.
  function firstPlus() {
    const upsell = document.querySelector('#bags svc-upsell')
    const bags = upsell && upsell.shadowRoot && upsell.shadowRoot.querySelector('svc-bag-upsell')
    const buttons = bags && bags.shadowRoot ? bags.shadowRoot.querySelectorAll('[part~="stepper"] button:last-of-type') : []
    for (const b of buttons) {
      const box = b.getBoundingClientRect()
      if (b.getAttribute('aria-disabled') === 'false' && box.width > 0 && box.height > 0 && b.checkVisibility()) return b
    }
    return null
  }
  function frame() {
    if (firstPlus()) window.__firstControl = performance.now()
    else requestAnimationFrame(frame)
  }
  requestAnimationFrame(frame)
</script>
<script src="${apiUrl}/javascript/v2.2/svc.min.js"></script>
<script>
  const q = new URLSearchParams(location.search)
  Svc.init({ tripId: q.get('trip'), tripAccessToken: q.get('token'), onBasketChange() {} })
    .then(() => Svc.showUpsell({ container: 'bags', display: 'embedded', allowProducts: ['bags'] }))
    .catch((e) => { window.__benchError = String(e && e.message || e) })
</script>
</body></html>`
}

/** Serves `/<index>/` = the seller page for target `index` (its API URL is known only once it started). */
function pageServer(targets: Target[]): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const index = Number(/^\/(\d+)\//.exec(req.url ?? '')?.[1])
    const api = targets[index]?.served?.url
    if (!api) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(sellerPage(api))
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      resolve({ server, origin: `http://127.0.0.1:${port}` })
    }),
  )
}

async function createTrip(s: Served): Promise<{ tripId: string; token: string }> {
  const res = await fetch(`${s.url}/v2.2/trip`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${s.apiKey}:`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(defaultTripRequest(new Date())),
  })
  if (res.status !== 201) throw new Error(`POST /v2.2/trip answered ${res.status}: ${await res.text()}`)
  const trip = (await res.json()) as { trip_id: string; trip_access_token: string }
  return { tripId: trip.trip_id, token: trip.trip_access_token }
}

async function measure(browser: Browser, pageOrigin: string, index: number, s: Served): Promise<FirstControlRun> {
  const { tripId, token } = await createTrip(s)
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    const reads: Array<Promise<{ types: string; transferred: number; decoded: number }>> = []
    page.on('requestfinished', (req: Request) => {
      const url = new URL(req.url())
      if (req.method() !== 'GET' || !/\/v2\.2\/trip\/[^/]+\/search\/[^/]+$/.test(url.pathname)) return
      reads.push(
        (async () => {
          const [sizes, body] = await Promise.all([req.sizes(), req.response().then((r) => r!.body())])
          return {
            types: url.searchParams.get('product_types') ?? '*',
            transferred: sizes.responseBodySize,
            decoded: body.length,
          }
        })(),
      )
    })
    await page.goto(`${pageOrigin}/${index}/?trip=${encodeURIComponent(tripId)}&token=${encodeURIComponent(token)}`)
    const outcome = await page.waitForFunction(
      () => {
        const w = window as unknown as { __firstControl?: number; __benchError?: string }
        return w.__firstControl ?? (w.__benchError ? { error: w.__benchError } : false)
      },
      undefined,
      { timeout: 60_000, polling: 50 },
    )
    const value = (await outcome.jsonValue()) as number | { error: string }
    if (typeof value !== 'number') throw new Error(`the page failed: ${value.error}`)
    const done = await Promise.all(reads)
    return {
      ms: value,
      offersTransferred: done.reduce((n, r) => n + r.transferred, 0),
      offersDecoded: done.reduce((n, r) => n + r.decoded, 0),
      searches: done.map((r) => r.types),
    }
  } finally {
    await context.close()
  }
}

export async function firstControl(runs = Number(process.env.BENCH_RUNS ?? 15)): Promise<FirstControlResult[]> {
  const targets: Target[] = [{ label: 'now', root: join(import.meta.dirname, '..') }]
  if (process.env.BENCH_BEFORE) targets.unshift({ label: 'before', root: process.env.BENCH_BEFORE })
  for (const t of targets) {
    if (!existsSync(join(t.root, 'dist', 'javascript', 'v2.2', 'svc.min.js'))) {
      throw new Error(`${t.root}/dist/javascript/v2.2/svc.min.js is missing: run \`npm run build\` there first`)
    }
  }
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`)

  const { server, origin } = await pageServer(targets)
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 })
  const results = targets.map((t) => ({ label: t.label, runs: [] as FirstControlRun[] }))
  try {
    for (const t of targets) {
      t.served = await serve('service', {
        env: { BENCH_ORIGINS: origin, ...(t.label === 'now' ? {} : { BENCH_ROOT: t.root }) },
      })
    }
    for (const [i, t] of targets.entries()) await measure(browser, origin, i, t.served!) // warm-up, not counted
    for (let run = 1; run <= runs; run++) {
      // Alternately, so a drift of the machine's load weighs on every target alike.
      for (const [i, t] of targets.entries()) {
        const r = await measure(browser, origin, i, t.served!)
        results[i]!.runs.push(r)
        console.error(
          `run ${run}: ${t.label} first control ${r.ms.toFixed(0)} ms, offers ${kib(r.offersTransferred)} transferred (${kib(r.offersDecoded)} decoded), reads ${r.searches.join(' | ')}`,
        )
      }
    }
  } finally {
    await browser.close()
    for (const t of targets) await t.served?.stop()
    server.close()
  }

  console.log(
    `\nFirst control: navigation → first enabled, visible bag "+" in Chromium, loopback, ${runs} runs (median, lowest–highest); a fresh context (empty cache) per run`,
  )
  console.table(
    results.map((r) => ({
      target: r.label,
      'first control': spread(
        r.runs.map((x) => x.ms),
        0,
        ' ms',
      ),
      'offers transferred': kib(median(r.runs.map((x) => x.offersTransferred))),
      'offers decoded': kib(median(r.runs.map((x) => x.offersDecoded))),
      'search reads': [...new Set(r.runs.map((x) => x.searches.join(' | ')))].join(' / '),
    })),
  )
  return results
}

if (import.meta.url === `file://${process.argv[1]}`) await firstControl()
