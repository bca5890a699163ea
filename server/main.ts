/**
 * `npm start`: opens the database, makes sure a signing key and (for demos) a sandbox seller exist, runs the
 * job worker in-process (unless WORKER=off), and serves the API until SIGINT/SIGTERM, when it stops
 * accepting requests, finishes those in flight and the job in hand, and closes the database. It also
 * serves the demo checkout (examples/seller-checkout) at `/`: a seller's page and backend using this API.
 */
import { buildApp } from './app.ts'
import { loadConfigOrExit, type ServerConfig } from './config.ts'
import { startCore } from './bootstrap.ts'
import { startWorker, type Worker } from './worker.ts'
import type { Core } from '../core/service.ts'
import type { Store } from '../core/ports.ts'
import { sellerCheckout } from '../examples/seller-checkout/backend.ts'

interface DemoSeller { name: string; apiKey: string; created: boolean }

/**
 * With SVC_DEMO_API_KEY, a sandbox seller with exactly that key exists and may call from this server's own
 * pages; without it, an empty database gets a sandbox seller so a first `npm start` is usable at once.
 */
async function ensureDemoSeller(core: Core, config: ServerConfig, ownOrigins: string[]): Promise<DemoSeller | null> {
  if (config.demoApiKey) {
    const existing = await core.findSellerByApiKey(config.demoApiKey)
    if (existing) {
      await core.addSellerOrigins(existing.seller_id, ownOrigins)
      return { name: existing.name, apiKey: config.demoApiKey, created: false }
    }
    const { seller } = await core.createSeller({ name: 'Demo seller', origins: ownOrigins, sandbox: true, apiKey: config.demoApiKey })
    return { name: seller.name, apiKey: config.demoApiKey, created: true }
  }
  if ((await core.sellerCount()) > 0) return null
  const { seller, apiKey } = await core.createSeller({ name: 'Demo seller', origins: ownOrigins, sandbox: true })
  return { name: seller.name, apiKey, created: true }
}

const DEMO_CHECKOUT_SELLER = 'Demo checkout'

/**
 * The API key the demo checkout's backend calls with: the demo seller's when this process knows it
 * (SVC_DEMO_API_KEY, or a seller just created on an empty database). Otherwise (the key was printed at an
 * earlier start) a sandbox seller "Demo checkout" (created the first time) gets a new key that lives only
 * in this process's memory: never printed, stored only as its hash, so the demo works on any database.
 */
async function demoCheckoutKey(core: Core, store: Store, demo: DemoSeller | null, ownOrigins: string[]): Promise<string> {
  if (demo) return demo.apiKey
  const existing = (await store.listSellers()).find((s) => s.sandbox && s.name === DEMO_CHECKOUT_SELLER)
  if (!existing) return (await core.createSeller({ name: DEMO_CHECKOUT_SELLER, origins: ownOrigins, sandbox: true })).apiKey
  await core.addSellerOrigins(existing.seller_id, ownOrigins)
  return core.addApiKey(existing.seller_id)
}

/** How a browser reaches this server: 0.0.0.0 and :: are bind-all addresses, not something to open. */
function publicBase(config: ServerConfig): string {
  const host = ['0.0.0.0', '::', '[::]'].includes(config.host) ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host
  return `http://${host}:${config.port}`
}

/** How this process calls itself (the demo's backend calls the API over HTTP, as a seller's would). */
function loopbackBase(config: ServerConfig): string {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : ['::', '[::]'].includes(config.host) ? '[::1]' : config.host.includes(':') ? `[${config.host}]` : config.host
  return `http://${host}:${config.port}`
}

function banner(config: ServerConfig, demo: DemoSeller | null): string {
  const base = publicBase(config)
  const lines = [
    '',
    '  Ancillary selling service is running',
    '',
    `  Demo       ${base}/  (a seller's checkout using the API and the widgets)`,
    `  API        ${base}/v2.2`,
    `  Docs       ${base}/docs`,
    `  OpenAPI    ${base}/v2.2/openapi.json`,
    `  Health     ${base}/healthz`,
    `  Worker     ${config.worker ? 'in this process (WORKER=off to run it apart: npm run worker)' : 'off here (WORKER=off): run npm run worker'}`,
    ...(config.signingKeySecret ? [] : ['  Keys       token signing keys are stored unencrypted: set SIGNING_KEY_SECRET in production']),
    ...(!config.worker && ['memory:', 'sqlite::memory:'].includes(config.databaseUrl)
      ? ['  Warning    an in-process database with WORKER=off: no worker can reach its jobs (checks stay checking)'] : []),
  ]
  if (demo) {
    lines.push(
      '',
      `  Sandbox seller "${demo.name}"${demo.created ? ' (just created)' : ''}`,
      `  API key    ${demo.apiKey}`,
      `  Try it     curl -u '${demo.apiKey}:' -X POST ${base}/v2.2/authorize`,
    )
    if (demo.created && !config.demoApiKey) lines.push('  The key is shown once; keep it. `npm run seller -- create` makes more sellers.')
  }
  lines.push('')
  return lines.join('\n')
}

async function main() {
  const config = loadConfigOrExit()

  const { store, core } = await startCore(config)

  const app = await buildApp({
    core, store,
    logger: { level: config.logLevel },
    rateLimit: { max: config.rateLimitMax, timeWindow: config.rateLimitWindowMs },
    // A hop count becomes proxy-addr's own form: trust the first n hops.
    trustProxy: typeof config.trustProxy === 'number' ? ((hops) => (_addr: string, i: number) => i < hops)(config.trustProxy) : config.trustProxy,
  })
  // The demo checkout at `/`; its backend learns the API's address and its key once the server listens.
  let demoApi: { apiBaseUrl: string; apiKey: string } | undefined
  await app.register(sellerCheckout, { apiBaseUrl: () => demoApi?.apiBaseUrl, apiKey: () => demoApi?.apiKey })
  await app.listen({ port: config.port, host: config.host })
  const address = app.server.address()
  if (config.port === 0 && address && typeof address === 'object') config.port = address.port
  // After listen, so the demo sellers' own origins name the real port (PORT=0 picks one).
  const ownOrigins = [...new Set([`http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`, publicBase(config)])]
  const demo = await ensureDemoSeller(core, config, ownOrigins)
  demoApi = { apiBaseUrl: loopbackBase(config), apiKey: await demoCheckoutKey(core, store, demo, ownOrigins) }
  // After listen: a server that cannot bind has no business taking jobs.
  const worker: Worker | null = config.worker ? startWorker({ core, log: app.log.child({ component: 'worker' }) }) : null
  console.log(banner(config, demo))

  let stopping = false
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second Ctrl-C means "now".
      process.exit(130)
    }
    stopping = true
    app.log.info({ signal }, 'shutting down')
    const force = setTimeout(() => {
      app.log.error('shutdown took longer than 10 s; exiting')
      process.exit(1)
    }, 10_000)
    force.unref()
    try {
      // The worker finishes the job in hand while the server drains its requests.
      await Promise.all([app.close(), worker?.stop()])
      await store.close()
      process.exit(0)
    } catch (err) {
      app.log.error({ err }, 'shutdown failed')
      process.exit(1)
    }
  }
  process.on('SIGINT', (s) => { void stop(s) })
  process.on('SIGTERM', (s) => { void stop(s) })
}

main().catch((err) => {
  console.error('The server could not start:', err instanceof Error ? err.message : err)
  process.exit(1)
})
