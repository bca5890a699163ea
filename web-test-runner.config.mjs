// Browser tests in Debian's Chromium (no browser download): components, the SDK from its built bundle,
// against the real API started here. Run with `npm run test:browser` (tsx loads our TypeScript).
import { esbuildPlugin } from '@web/dev-server-esbuild'
import { chromeLauncher } from '@web/test-runner-chrome'
import { startTestApi } from './test/browser/api-fixture.ts'

import { createServer } from 'node:net'
import { readFile } from 'node:fs/promises'
import { join, normalize } from 'node:path'

/** A free port, so several test runs on one machine never collide; the API allows exactly this origin. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = srv.address()
        srv.close(() => resolve(port))
      })
  })
const PORT = Number(process.env.WTR_PORT) || (await freePort())
const api = await startTestApi(`http://localhost:${PORT}`)

/**
 * The built SDK (dist/javascript/) byte for byte, as the service serves it: not through the esbuild
 * transform below, which would rewrite it (and a chunk no longer matched the integrity its name carries).
 */
const builtSdk = async (ctx, next) => {
  if (!ctx.path.startsWith('/dist/javascript/') || !/\.js$/.test(ctx.path)) return next()
  const file = normalize(join(import.meta.dirname, ctx.path))
  if (!file.startsWith(join(import.meta.dirname, 'dist', 'javascript'))) return next()
  const body = await readFile(file).catch(() => null)
  if (!body) return next()
  ctx.type = 'text/javascript'
  ctx.set('Cache-Control', 'no-store')
  ctx.body = body
}

/**
 * A chunk outage for test/components/internal/lazy.browser.test.ts: under /__outage/ the repo is served as at /,
 * except that after GET /__fixture/chunks?fail=1 every request for svc.min.js's chunks there fails with a
 * 503, after ?delay=400 they are answered 400 ms late, and after ?tamper=1 their bytes are not the ones
 * built (a statement more at the end), as from a compromised CDN (GET /__fixture/chunks: as usual). The
 * page loads svc.min.js from /__outage/dist/..., so its chunk URLs are its own: never ones another test
 * file's page has in the browser's cache.
 */
const OUTAGE = '/__outage/'
let chunks = { fail: false, delay: 0, tamper: false }
const chunkOutage = async (ctx, next) => {
  if (!ctx.path.startsWith(OUTAGE)) return next()
  ctx.url = ctx.url.slice(OUTAGE.length - 1)
  if (!ctx.path.startsWith('/dist/javascript/v2.2/chunks/')) return next()
  if (chunks.delay) await new Promise((r) => setTimeout(r, chunks.delay))
  if (chunks.fail) {
    ctx.status = 503
    ctx.body = 'chunk outage (test fixture)'
    return
  }
  await next()
  if (chunks.tamper && ctx.status === 200) {
    const parts = []
    if (typeof ctx.body === 'string' || Buffer.isBuffer(ctx.body)) parts.push(Buffer.from(ctx.body))
    else for await (const part of ctx.body) parts.push(Buffer.from(part))
    ctx.body = Buffer.concat([...parts, Buffer.from('\n;window.__tampered = true\n')])
    ctx.remove('etag')
  }
}

/** GET /__fixture/trip?flight=9001&accessTtl=5 → { baseUrl, tripId, accessToken, refreshToken } */
const fixtures = {
  name: 'svc-fixtures',
  async serve(ctx) {
    if (ctx.path === '/__fixture/chunks') {
      const q = new URLSearchParams(ctx.querystring)
      chunks = { fail: q.get('fail') === '1', delay: Number(q.get('delay')) || 0, tamper: q.get('tamper') === '1' }
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
      ...(q.booked === 'true' ? { booked: true } : {}),
    }
    return { body: JSON.stringify(await api.createTrip(opts)), type: 'application/json' }
  },
  async serverStop() {
    await api.close()
  },
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
  files: process.env.WTR_FILES ? process.env.WTR_FILES.split(',') : ['test/**/*.browser.test.ts'],
  port: PORT,
  hostname: 'localhost',
  nodeResolve: true,
  concurrency: 1,
  testsFinishTimeout: 5 * 60_000,
  testFramework: { config: { timeout: 15_000 } },
  middleware: [strictCsp, chunkOutage, builtSdk],
  plugins: [
    fixtures,
    // es2022 keeps our legacy decorators transformed (esnext would hand them to Chromium raw).
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }),
  ],
  browsers: [
    chromeLauncher({
      launchOptions: {
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
      },
    }),
  ],
}
