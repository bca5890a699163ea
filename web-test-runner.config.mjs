// Browser tests in Debian's Chromium (no browser download): components, the SDK from its built bundle,
// against the real API started here. Run with `npm run test:browser` (tsx loads our TypeScript).
import { esbuildPlugin } from '@web/dev-server-esbuild'
import { chromeLauncher } from '@web/test-runner-chrome'
import { startTestApi } from './test/browser/api-fixture.ts'

import { createServer } from 'node:net'

/** A free port, so several test runs on one machine never collide; the API allows exactly this origin. */
const freePort = () => new Promise((resolve, reject) => {
  const srv = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
    const { port } = srv.address()
    srv.close(() => resolve(port))
  })
})
const PORT = Number(process.env.WTR_PORT) || await freePort()
const api = await startTestApi(`http://localhost:${PORT}`)

/**
 * A chunk outage for test/browser/sdk-chunks-failure.test.ts: under /__outage/ the repo is served as at /,
 * except that after GET /__fixture/chunks?fail=1 every request for svc.min.js's chunks there fails with a
 * 503, and after ?delay=400 they are answered 400 ms late (GET /__fixture/chunks: as usual). The page
 * loads svc.min.js from /__outage/dist/..., so its chunk URLs are its own: never ones another test file's
 * page has in the browser's cache.
 */
const OUTAGE = '/__outage/'
let chunks = { fail: false, delay: 0 }
const chunkOutage = async (ctx, next) => {
  if (!ctx.path.startsWith(OUTAGE)) return next()
  ctx.url = ctx.url.slice(OUTAGE.length - 1)
  if (ctx.path.startsWith('/dist/javascript/v2.2/chunks/')) {
    if (chunks.delay) await new Promise((r) => setTimeout(r, chunks.delay))
    if (chunks.fail) {
      ctx.status = 503
      ctx.body = 'chunk outage (test fixture)'
      return
    }
  }
  return next()
}

/** GET /__fixture/trip?flight=9001&accessTtl=5 → { baseUrl, tripId, accessToken, refreshToken } */
const fixtures = {
  name: 'svc-fixtures',
  async serve(ctx) {
    if (ctx.path === '/__fixture/chunks') {
      const q = new URLSearchParams(ctx.querystring)
      chunks = { fail: q.get('fail') === '1', delay: Number(q.get('delay')) || 0 }
      return { body: JSON.stringify(chunks), type: 'application/json' }
    }
    if (ctx.path !== '/__fixture/trip') return undefined
    const q = Object.fromEntries(new URLSearchParams(ctx.querystring))
    const opts = {
      ...(q.flight ? { flight: q.flight } : {}),
      ...(q.accessTtl ? { accessTtl: Number(q.accessTtl) } : {}),
      ...(q.language ? { language: q.language } : {}),
      ...(q.currency ? { currency: q.currency } : {}),
      ...(q.passengers ? { passengers: JSON.parse(q.passengers) } : {}),
      ...(q.search === 'false' ? { search: false } : {}),
    }
    return { body: JSON.stringify(await api.createTrip(opts)), type: 'application/json' }
  },
  async serverStop() { await api.close() },
}

/**
 * test/browser/fixtures/csp*.html: a seller page under a strict Content-Security-Policy header, as many
 * checkouts have; the SDK must work there (no eval, no inline script or style; Lit adopts stylesheets).
 */
const STRICT_CSP = "default-src 'self'; script-src 'self'; connect-src *; style-src 'self'"
const strictCsp = async (ctx, next) => {
  await next()
  if (/^\/test\/browser\/fixtures\/csp[^/]*\.html$/.test(ctx.path)) ctx.set('Content-Security-Policy', STRICT_CSP)
}

export default {
  files: process.env.WTR_FILES ? process.env.WTR_FILES.split(',') : ['test/browser/**/*.test.ts'],
  port: PORT,
  hostname: 'localhost',
  nodeResolve: true,
  concurrency: 1,
  testsFinishTimeout: 5 * 60_000,
  testFramework: { config: { timeout: 15_000 } },
  middleware: [strictCsp, chunkOutage],
  plugins: [
    fixtures,
    // es2022 keeps our legacy decorators transformed (esnext would hand them to Chromium raw).
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }),
  ],
  browsers: [chromeLauncher({
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  })],
}
