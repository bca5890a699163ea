/**
 * The service as a process: opens the database, makes sure a signing key and (for demos) a sandbox seller
 * exist, runs the job worker in-process (unless WORKER=off), and serves the API until SIGINT/SIGTERM, when
 * it stops accepting requests, finishes those in flight and the job in hand, and closes the database.
 * `server/main.ts` runs it alone; the demo checkout's entry (examples/seller-checkout/main.ts, `npm start`)
 * runs it with the demo's page and backend registered on the same app through `ServeHooks`.
 */
import { buildApp } from './app.ts'
import { loadConfigOrExit, type ServerConfig } from './config.ts'
import { startCore } from './bootstrap.ts'
import { logSupplierCalls, startWorker, type Worker } from './worker.ts'
import { Metrics } from './metrics.ts'
import type { FastifyInstance } from 'fastify'
import type { Core } from '../core/core.ts'
import type { Store } from '../core/ports/store.ts'

export interface DemoSeller {
  name: string
  apiKey: string
  created: boolean
}

/** What a page served beside the API (the demo checkout) learns once the server listens. */
export interface Listening {
  core: Core
  store: Store
  /** The sandbox seller this start made or was given (SVC_DEMO_API_KEY), if any. */
  demo: DemoSeller | null
  /** The origins a browser reaches this server by, for sellers whose pages this server serves. */
  ownOrigins: string[]
  /** How this process calls itself over HTTP, as a seller's backend calls the API. */
  loopbackBase: string
}

/** How another entry adds to the server: routes before it listens, wiring once it does. */
export interface ServeHooks {
  /** Adds to the app before it listens (the demo's routes). Also a line for the start banner. */
  register?(app: FastifyInstance): Promise<void>
  listening?(ctx: Listening): Promise<void>
  /** Banner lines about what the hooks added, e.g. `Demo  http://…/`. */
  banner?(base: string): string[]
}

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
    const { seller } = await core.createSeller({
      name: 'Demo seller',
      origins: ownOrigins,
      sandbox: true,
      apiKey: config.demoApiKey,
    })
    return { name: seller.name, apiKey: config.demoApiKey, created: true }
  }
  if ((await core.sellerCount()) > 0) return null
  const { seller, apiKey } = await core.createSeller({ name: 'Demo seller', origins: ownOrigins, sandbox: true })
  return { name: seller.name, apiKey, created: true }
}

/** How a browser reaches this server: 0.0.0.0 and :: are bind-all addresses, not something to open. */
function publicBase(config: ServerConfig): string {
  const host = ['0.0.0.0', '::', '[::]'].includes(config.host)
    ? 'localhost'
    : config.host.includes(':')
      ? `[${config.host}]`
      : config.host
  return `http://${host}:${config.port}`
}

/** How this process calls itself (the demo's backend calls the API over HTTP, as a seller's would). */
function loopbackBase(config: ServerConfig): string {
  const host =
    config.host === '0.0.0.0'
      ? '127.0.0.1'
      : ['::', '[::]'].includes(config.host)
        ? '[::1]'
        : config.host.includes(':')
          ? `[${config.host}]`
          : config.host
  return `http://${host}:${config.port}`
}

function banner(config: ServerConfig, demo: DemoSeller | null, extra: string[]): string {
  const base = publicBase(config)
  const lines = [
    '',
    '  Ancillary selling service is running',
    '',
    ...extra,
    `  API        ${base}/v2.2`,
    `  Docs       ${base}/docs`,
    `  OpenAPI    ${base}/v2.2/openapi.json`,
    `  Health     ${base}/healthz`,
    `  Metrics    ${base}/metrics ${config.metricsToken ? '(Bearer METRICS_TOKEN)' : '(open to all who reach it: set METRICS_TOKEN in production)'}`,
    `  Worker     ${config.worker ? 'in this process (WORKER=off to run it apart: npm run worker)' : 'off here (WORKER=off): run npm run worker'}`,
    ...(config.signingKeySecret
      ? []
      : ['  Keys       token signing keys are stored unencrypted: set SIGNING_KEY_SECRET in production']),
    ...(!config.worker && ['memory:', 'sqlite::memory:'].includes(config.databaseUrl)
      ? ['  Warning    an in-process database with WORKER=off: no worker can reach its jobs (checks stay checking)']
      : []),
  ]
  if (demo) {
    lines.push(
      '',
      `  Sandbox seller "${demo.name}"${demo.created ? ' (just created)' : ''}`,
      `  API key    ${demo.apiKey}`,
      `  Try it     curl -u '${demo.apiKey}:' -X POST ${base}/v2.2/authorize`,
    )
    if (demo.created && !config.demoApiKey)
      lines.push('  The key is shown once; keep it. `npm run seller -- create` makes more sellers.')
  } else {
    // A key is printed only when a seller is made: on later starts, say how to get one.
    lines.push(
      '',
      '  API key    each is shown once, when made; for a new sandbox seller and its key:',
      `             npm run seller -- create --name "My shop" --origin ${base} --sandbox`,
      '             (or set SVC_DEMO_API_KEY to a key of your choice before npm start)',
    )
  }
  lines.push('')
  return lines.join('\n')
}

export async function serve(hooks: ServeHooks = {}): Promise<void> {
  const config = loadConfigOrExit()

  // Made before the core, so the store the core is built on counts its errors for GET /metrics.
  const metrics = new Metrics()
  const { store, core } = await startCore(config, metrics)

  const app = await buildApp({
    core,
    store,
    metrics,
    ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
    logger: { level: config.logLevel },
    rateLimit: { max: config.rateLimitMax, timeWindow: config.rateLimitWindowMs },
    // A hop count becomes proxy-addr's own form: trust the first n hops.
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (
            (hops) => (_addr: string, i: number) =>
              i < hops
          )(config.trustProxy)
        : config.trustProxy,
  })
  await hooks.register?.(app)
  await app.listen({ port: config.port, host: config.host })
  const address = app.server.address()
  if (config.port === 0 && address && typeof address === 'object') config.port = address.port
  // After listen, so the demo sellers' own origins name the real port (PORT=0 picks one).
  const ownOrigins = [
    ...new Set([`http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`, publicBase(config)]),
  ]
  const demo = await ensureDemoSeller(core, config, ownOrigins)
  await hooks.listening?.({ core, store, demo, ownOrigins, loopbackBase: loopbackBase(config) })
  // Its requests' supplier calls and its worker's, one line each (a worker run apart logs its own).
  logSupplierCalls(core, app.log.child({ component: 'supplier' }))
  // After listen: a server that cannot bind has no business taking jobs.
  const worker: Worker | null = config.worker
    ? startWorker({
        core,
        log: app.log.child({ component: 'worker' }),
        searchConcurrency: config.supplierSearchConcurrency,
      })
    : null
  console.log(banner(config, demo, hooks.banner?.(publicBase(config)) ?? []))

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
  process.on('SIGINT', (s) => {
    void stop(s)
  })
  process.on('SIGTERM', (s) => {
    void stop(s)
  })
}
