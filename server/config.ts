/**
 * Server configuration from the environment. Every variable is optional; a bad value stops the server at
 * start with a message naming the variable, rather than surfacing later as a confusing runtime failure.
 *
 *   PORT                       TCP port (default 3000; 0 picks a free one)
 *   HOST                       interface to bind (default 127.0.0.1, reachable from this machine only;
 *                              set 0.0.0.0 in a container or behind a load balancer)
 *   DATABASE_URL               sqlite:PATH | postgres://… | postgresql://… | memory:  (default sqlite:./data/svc.db)
 *   SVC_DEMO_API_KEY           make sure a sandbox seller with exactly this API key exists (demos, CI)
 *   LOG_LEVEL                  fatal|error|warn|info|debug|trace|silent (default info)
 *   ACCESS_TOKEN_TTL_SECONDS   trip access token lifetime (default 1800, the spec's 30 minutes)
 *   REFRESH_TOKEN_TTL_SECONDS  refresh token lifetime (default 2700, the spec's 45 minutes)
 *   RATE_LIMIT_MAX             requests per credential per window (default 600)
 *   RATE_LIMIT_WINDOW_SECONDS  rate-limit window (default 60)
 *   TRUST_PROXY                unset/false; true; a hop count; or comma-separated proxy addresses/CIDRs.
 *                              Needed behind a load balancer so the client address (the rate-limit key
 *                              for calls without credentials) is the real one.
 *   WORKER                     on (default): run the job worker in the server process; off: run it apart
 *                              with `npm run worker` (as many as wanted, on the same DATABASE_URL)
 *   RETENTION_SEARCH_HOURS     keep searches this long, but an open trip's current one (default 24, at least 2)
 *   RETENTION_TRIP_DAYS        keep unfulfilled trips this long from their creation (default 30)
 *   RETENTION_IDEMPOTENCY_HOURS  keep Idempotency-Key records this long (default 24)
 *   RETENTION_JOB_DAYS         keep finished jobs this long (default 7)
 *   DATABASE_POOL_SIZE         PostgreSQL connections per process (default 8)
 *   SIGNING_KEY_SECRET         seals the token signing keys stored in the database (at least 32 characters);
 *                              unset, they are stored in the clear (fine on a laptop, not in production)
 *   SIGNING_KEY_ROTATION_DAYS  a new signing key every this many days (default 30)
 *   TICKETING_TIMEOUT_HOURS    orders of a trip fulfilled with is_ticketed: false fail with ticketing_timeout
 *                              when its tickets are not issued within this (default 72)
 *   METRICS_PORT               npm run worker only: serve GET /metrics, /healthz and /readyz on this port (0
 *                              picks a free one; unset: none), on HOST
 *   METRICS_TOKEN              when set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` (at least
 *                              16 visible ASCII characters); unset, /metrics is open to whoever reaches the port
 *   DUFFEL_API_URL             where Duffel's API is (default https://api.duffel.com; tests point it at a fake)
 *   SUPPLIER_TIMEOUT_MS        every call to a remote supplier (Duffel) is given up after this (default 10000, at
 *                              most 15000: a fulfill's three calls then fit in its job's 60 s lease)
 *   SUPPLIER_MAX_RESPONSE_BYTES the most bytes of a supplier's answer read (default 5242880, 5 MiB): a bigger one
 *                              is dropped as it streams in, and the part of the search it was for fails
 *   SUPPLIER_SEARCH_CONCURRENCY remote supplier searches a worker runs at once, in a lane apart from checks, orders
 *                              and webhooks (default 4); one seller holds at most half of them
 *   SUPPLIER_RECONCILE_MINUTES a purchase whose answer was lost is looked for in the supplier's order this long,
 *                              then its order fails with supplier_outcome_unknown, never bought twice (default 10)
 */

export interface ServerConfig {
  port: number
  host: string
  databaseUrl: string
  demoApiKey: string | undefined
  logLevel: string
  accessTokenTtl: number | undefined
  refreshTokenTtl: number | undefined
  rateLimitMax: number
  rateLimitWindowMs: number
  trustProxy: boolean | number | string[]
  /** Run the job worker inside `npm start` (WORKER=on, the default). */
  worker: boolean
  retention: { searchHours: number; tripDays: number; idempotencyHours: number; jobDays: number }
  /** PostgreSQL pool size, when set. */
  databasePoolSize: number | undefined
  signingKeySecret: string | undefined
  signingKeyRotationDays: number
  ticketingTimeoutHours: number
  metricsPort: number | undefined
  /** What GET /metrics asks for as a bearer token; unset, it is open. */
  metricsToken: string | undefined
  /** Duffel's API, for sellers whose supplier is Duffel (DUFFEL_API_URL). */
  duffelApiUrl: string
  /** A bound on every call to a remote supplier (SUPPLIER_TIMEOUT_MS). */
  supplierTimeoutMs: number
  /** The most bytes of a supplier's answer read (SUPPLIER_MAX_RESPONSE_BYTES). */
  supplierMaxResponseBytes: number
  /** Remote supplier searches a worker runs at once (SUPPLIER_SEARCH_CONCURRENCY). */
  supplierSearchConcurrency: number
  /** How long a purchase whose answer was lost is looked for (SUPPLIER_RECONCILE_MINUTES). */
  supplierReconcileMinutes: number
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']
const DB_SCHEMES = ['sqlite:', 'postgres://', 'postgresql://', 'memory:']

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const problems: string[] = []
  const value = (name: string) => {
    const v = env[name]
    return v === undefined || v.trim() === '' ? undefined : v.trim()
  }
  const integer = (name: string, min: number, max: number): number | undefined => {
    const v = value(name)
    if (v === undefined) return undefined
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`)
      return undefined
    }
    return Number(v)
  }

  const port = integer('PORT', 0, 65535) ?? 3000
  const host = value('HOST') ?? '127.0.0.1'
  if (/[\s/]/.test(host))
    problems.push(`HOST must be an address or host name such as 127.0.0.1 or 0.0.0.0, got ${JSON.stringify(host)}`)

  const databaseUrl = value('DATABASE_URL') ?? 'sqlite:./data/svc.db'
  if (!DB_SCHEMES.some((s) => databaseUrl.startsWith(s)) || databaseUrl === 'sqlite:') {
    // Only the scheme is echoed: the rest of a database URL may hold a password.
    problems.push(
      `DATABASE_URL must start with one of ${DB_SCHEMES.join(', ')} (e.g. sqlite:./data/svc.db); got scheme ${JSON.stringify(databaseUrl.split(':')[0])}`,
    )
  }

  const demoApiKey = value('SVC_DEMO_API_KEY')
  if (demoApiKey !== undefined && (demoApiKey.length < 16 || /[\s:]/.test(demoApiKey))) {
    // The key is the Basic-auth user name, so it cannot contain a colon.
    problems.push('SVC_DEMO_API_KEY must have at least 16 characters and no spaces or colons')
  }

  const logLevel = (value('LOG_LEVEL') ?? 'info').toLowerCase()
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`)

  const DAY = 86_400
  const accessTokenTtl = integer('ACCESS_TOKEN_TTL_SECONDS', 60, DAY)
  const refreshTokenTtl = integer('REFRESH_TOKEN_TTL_SECONDS', 60, 30 * DAY)
  if ((refreshTokenTtl ?? 2700) <= (accessTokenTtl ?? 1800)) {
    problems.push(
      'REFRESH_TOKEN_TTL_SECONDS must be longer than ACCESS_TOKEN_TTL_SECONDS, or a session could not be renewed',
    )
  }

  const rateLimitMax = integer('RATE_LIMIT_MAX', 1, 1_000_000) ?? 600
  const rateLimitWindowMs = (integer('RATE_LIMIT_WINDOW_SECONDS', 1, DAY) ?? 60) * 1000

  let trustProxy: ServerConfig['trustProxy'] = false
  const tp = value('TRUST_PROXY')
  if (tp !== undefined) {
    if (tp === 'true' || tp === 'false') trustProxy = tp === 'true'
    else if (/^\d+$/.test(tp)) trustProxy = Number(tp)
    else if (/^[0-9a-fA-F.:/,\s]+$/.test(tp))
      trustProxy = tp
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    else
      problems.push(
        `TRUST_PROXY must be true, false, a hop count, or comma-separated addresses/CIDRs, got ${JSON.stringify(tp)}`,
      )
  }

  const workerValue = (value('WORKER') ?? 'on').toLowerCase()
  if (workerValue !== 'on' && workerValue !== 'off')
    problems.push(`WORKER must be on or off, got ${JSON.stringify(workerValue)}`)
  const worker = workerValue !== 'off'

  // A search names seat maps its process stored within the hour (core/core.ts), so searches must outlive that.
  const retention = {
    searchHours: integer('RETENTION_SEARCH_HOURS', 2, 24 * 365) ?? 24,
    tripDays: integer('RETENTION_TRIP_DAYS', 1, 3650) ?? 30,
    idempotencyHours: integer('RETENTION_IDEMPOTENCY_HOURS', 1, 24 * 365) ?? 24,
    jobDays: integer('RETENTION_JOB_DAYS', 1, 3650) ?? 7,
  }
  const databasePoolSize = integer('DATABASE_POOL_SIZE', 1, 1000)
  const signingKeySecret = value('SIGNING_KEY_SECRET')
  // Entropy, not a password: HKDF stretches nothing, so a short secret would be a weak key.
  if (signingKeySecret !== undefined && signingKeySecret.length < 32)
    problems.push('SIGNING_KEY_SECRET must have at least 32 characters (e.g. openssl rand -base64 32)')
  const signingKeyRotationDays = integer('SIGNING_KEY_ROTATION_DAYS', 1, 365) ?? 30
  const ticketingTimeoutHours = integer('TICKETING_TIMEOUT_HOURS', 1, 24 * 365) ?? 72
  const metricsPort = integer('METRICS_PORT', 0, 65535)
  const metricsToken = value('METRICS_TOKEN')
  // It travels in a header (no spaces or control characters), and a short one would be guessed.
  if (metricsToken !== undefined && !/^[\x21-\x7e]{16,}$/.test(metricsToken))
    problems.push(
      'METRICS_TOKEN must have at least 16 characters, all visible ASCII with no spaces (e.g. openssl rand -hex 32)',
    )

  const duffelApiUrl = value('DUFFEL_API_URL') ?? 'https://api.duffel.com'
  // A token travels to this URL: it must be a URL, and https but on this machine (a local fake, a test).
  if (!isSupplierUrl(duffelApiUrl))
    problems.push(`DUFFEL_API_URL must be an https URL (http only on localhost), got ${JSON.stringify(duffelApiUrl)}`)
  // At most a quarter of a job's lease (60 s): a fulfill's calls (the order, its services, the purchase) fit in it.
  const supplierTimeoutMs = integer('SUPPLIER_TIMEOUT_MS', 100, 15_000) ?? 10_000
  const supplierReconcileMinutes = integer('SUPPLIER_RECONCILE_MINUTES', 1, 24 * 60) ?? 10
  const supplierSearchConcurrency = integer('SUPPLIER_SEARCH_CONCURRENCY', 1, 64) ?? 4
  const supplierMaxResponseBytes =
    integer('SUPPLIER_MAX_RESPONSE_BYTES', 64 * 1024, 64 * 1024 * 1024) ?? 5 * 1024 * 1024

  if (problems.length) throw new ConfigError(problems)
  return {
    port,
    host,
    databaseUrl,
    demoApiKey,
    logLevel,
    accessTokenTtl,
    refreshTokenTtl,
    rateLimitMax,
    rateLimitWindowMs,
    trustProxy,
    worker,
    retention,
    databasePoolSize,
    signingKeySecret,
    signingKeyRotationDays,
    ticketingTimeoutHours,
    metricsPort,
    metricsToken,
    duffelApiUrl,
    supplierTimeoutMs,
    supplierMaxResponseBytes,
    supplierSearchConcurrency,
    supplierReconcileMinutes,
  }
}

function isSupplierUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (
      url.protocol === 'https:' ||
      (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
    )
  } catch {
    return false
  }
}

/** For the entry points (npm start, npm run worker): a configuration problem is a message and exit code 2, not a stack trace. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  try {
    return loadConfig(env)
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e
    console.error(e.message)
    process.exit(2)
  }
}
