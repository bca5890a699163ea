/**
 * The Fastify host of the core: builds a fully wired app without listening, so tests drive it with
 * `app.inject` and `main.ts` only adds configuration, the listener and shutdown.
 */
import './native-hash.ts'
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify'
import type { Core } from '../core/core.ts'
import type { Store } from '../core/ports/store.ts'
import { genReqId, requestIdPlugin } from './plugins/request-id.ts'
import { validationPlugin } from './plugins/validation.ts'
import { clientErrorHandler, errorsPlugin, frameworkErrorHandler } from './plugins/errors.ts'
import { BODY_LIMIT, MAX_PARAM_LENGTH } from '../core/api/http-rules.ts'
import { corsPlugin } from './plugins/cors.ts'
import { rateLimitPlugin, type RateLimitOptions } from './plugins/rate-limit.ts'
import { openapiPlugin } from './plugins/openapi.ts'
import { sdkStaticPlugin } from './plugins/sdk-static.ts'
import { compressionPlugin } from './plugins/compression.ts'
import { healthRoutes } from './routes/health.ts'
import { Metrics, metricsPlugin, UNMATCHED_ROUTE } from './metrics.ts'
import { v22Routes } from './routes/v2.2.ts'
import { adminRoutes } from './admin/routes.ts'
import { consolePlugin } from './plugins/console.ts'

export interface BuildAppOptions {
  core: Core
  store: Store
  /** false (default) for silence, true for info-level JSON lines on stdout, or pino options. */
  logger?: boolean | Record<string, unknown>
  rateLimit?: RateLimitOptions
  /** How often an instance on a shared store sends its rate-limit hits and learns the others' (ms, default 100). */
  rateLimitSyncMs?: number
  /** Fastify's `trustProxy`: set it behind a load balancer so `req.ip` (the rate-limit key) is the client's. */
  trustProxy?: FastifyServerOptions['trustProxy']
  /** Largest accepted request body in bytes (default 256 KiB). Trip payloads are a few KiB; anything near the limit is abuse. */
  bodyLimit?: number
  /** Where the built browser SDK and operator console are (default `<repo>/dist`); tests point it elsewhere. */
  sdkDistDir?: string
  /**
   * What GET /metrics shows. Give the one whose `countStoreErrors` wraps the store the core was built on, so
   * store errors are counted; a new one (without them) by default.
   */
  metrics?: Metrics
  /** When set, GET /metrics needs `Authorization: Bearer <metricsToken>` (METRICS_TOKEN); unset, it is open. */
  metricsToken?: string
}

/**
 * Secrets that must never reach a log line, wherever a serializer or a careless `log.info(obj)` puts
 * them. Fastify's default request serializer logs no headers or bodies; this is the second fence.
 * Paths are spelled out, not wildcards: a wildcard path costs ~10 µs on every log line (measured), more
 * than the rest of a request's logging, so the fence names the places a secret can be put.
 */
const SECRET_KEYS = [
  'refresh_token',
  'trip_access_token',
  'trip_creation_token',
  'apiKey',
  'api_key',
  'authorization',
  // The operator console's sign-in body (server/plugins/console.ts).
  'operator_key',
]
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'res.headers["set-cookie"]',
  ...SECRET_KEYS,
  ...['body', 'payload', 'data', 'request', 'response', 'trip', 'session', 'input'].flatMap((at) =>
    SECRET_KEYS.map((k) => `${at}.${k}`),
  ),
]

export function loggerOptions(logger: BuildAppOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false
  const base = { level: 'info', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }
  return logger === true ? base : { ...base, ...logger, redact: base.redact }
}

/**
 * One line per request, when it completes: method, path, status and time, with the request id (the label
 * every line of the request carries). Fastify's default writes two (incoming, completed), which with the
 * redaction fence above cost a quarter of a basket read; the incoming line said nothing the last one lacks.
 */
export class OneLineLog extends LogController {
  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const line = {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else reply.log.info(line, 'request completed')
  }
}

export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const metrics = opts.metrics ?? new Metrics()
  const app = Fastify({
    logger: loggerOptions(opts.logger),
    genReqId,
    requestIdHeader: false,
    // Same name as the problem body's field, so a support engineer greps one word.
    logController: new OneLineLog({ requestIdLogLabel: 'request_id' }),
    bodyLimit: opts.bodyLimit ?? BODY_LIMIT,
    trustProxy: opts.trustProxy ?? false,
    // Ids are up to 128 characters (core/schemas Id); longer segments would 404 before validation.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (err, req, reply) => {
      frameworkErrorHandler(err, req, reply)
      // The router refused these before any route or hook ran, so the metrics' onResponse hook never sees them.
      metrics.request(req.method, UNMATCHED_ROUTE, reply.statusCode, null)
    },
    clientErrorHandler,
  })

  await app.register(requestIdPlugin)
  await app.register(validationPlugin)
  // Shared by every instance when the store can (PostgreSQL); per instance otherwise.
  const add = opts.store.addRateLimitHits?.bind(opts.store)
  await app.register(rateLimitPlugin, {
    ...opts.rateLimit,
    ...(add ? { shared: { add, ...(opts.rateLimitSyncMs ? { syncMs: opts.rateLimitSyncMs } : {}) } } : {}),
  })
  await app.register(errorsPlugin, { notFoundPreHandler: app.rateLimit() })
  await app.register(metricsPlugin, {
    metrics,
    core: opts.core,
    store: opts.store,
    ...(opts.metricsToken !== undefined ? { token: opts.metricsToken } : {}),
  })
  await app.register(corsPlugin, { isAllowedOrigin: (origin) => opts.core.isAllowedOrigin(origin) })
  await app.register(compressionPlugin)
  await app.register(openapiPlugin)
  await app.register(healthRoutes, { store: opts.store })
  await app.register(sdkStaticPlugin, opts.sdkDistDir ? { distDir: opts.sdkDistDir } : {})
  await app.register(v22Routes, { core: opts.core })
  await app.register(adminRoutes, { core: opts.core })
  await app.register(consolePlugin, { core: opts.core, ...(opts.sdkDistDir ? { distDir: opts.sdkDistDir } : {}) })
  return app
}

export interface WorkerAppOptions {
  core: Core
  store: Store
  /** The worker's figures: its job runs and store errors (build the core on `metrics.countStoreErrors(store)`). */
  metrics: Metrics
  metricsToken?: string
  logger?: boolean | Record<string, unknown>
}

/**
 * What a separate worker process (`npm run worker` with METRICS_PORT) answers: GET /metrics with the job
 * runs and store errors that happen only in it, and the /healthz and /readyz probes. No API.
 */
export async function buildWorkerApp(opts: WorkerAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(opts.logger),
    genReqId,
    requestIdHeader: false,
    logController: new OneLineLog({ requestIdLogLabel: 'request_id' }),
  })
  await app.register(requestIdPlugin)
  await app.register(errorsPlugin)
  await app.register(metricsPlugin, {
    metrics: opts.metrics,
    core: opts.core,
    store: opts.store,
    ...(opts.metricsToken !== undefined ? { token: opts.metricsToken } : {}),
  })
  await app.register(healthRoutes, { store: opts.store })
  return app
}
