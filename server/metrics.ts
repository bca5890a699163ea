/**
 * GET /metrics (docs/decisions.md "Operations"): the service's figures in Prometheus' text format, by prom-client.
 *
 * - Requests are counted and timed by route pattern (`/v2.2/trip/:trip_id/basket`, never the URL), method
 *   and status, so the number of series stays bounded whatever is requested; every unmatched URL is one
 *   route, `unmatched`. A request costs one counter increment and one histogram observation, nothing more.
 * - The job queue's depth is asked of the store, and the open event streams of the core, only when scraped.
 * - Job outcomes come from the core through its observer port (Core.observe); the core knows no prom-client.
 * - Store errors are counted by a decorator around the store the core is given (countStoreErrors).
 *
 * Each app has a registry of its own (tests build many apps in one process; prom-client's global default
 * registry would refuse the second). The Node process metrics (collectDefaultMetrics) describe the process,
 * not an app: they are collected once per process, in a registry of their own, and shown by every app.
 */
import { hash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { JOB_KINDS, type Core, type JobReport } from '../core/core.ts'
import type { Store } from '../core/ports/store.ts'
import { ProblemError } from '../core/shared/errors.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers with a long-lived stream (the trip's events): its lifetime is not a latency. */
    stream?: boolean
  }
}

/** Prefix of every metric of the service, the process ones included. */
export const METRICS_PREFIX = 'svc_'
/** The route label of a request no route matched (404s, 405s, the router's own refusals). */
export const UNMATCHED_ROUTE = 'unmatched'
/** Seconds. The API answers in milliseconds (docs/performance.md: GET basket p99 ~7 ms), so the low end is fine-grained. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** A scrape does not wait longer than this for the database's count of pending jobs. */
const QUEUE_QUERY_TIMEOUT_MS = 2_000

/** The job runner's outcomes as the metrics name them. */
const OUTCOMES: Record<JobReport['outcome'], string> = {
  done: 'succeeded',
  retry: 'retried',
  dead: 'failed',
  waiting: 'waiting',
  lease_lost: 'lease_lost',
}

let processRegistry: Registry | undefined
/** The Node process metrics, started on first use and shared by every app of the process. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry, prefix: METRICS_PREFIX })
  }
  return processRegistry
}

interface Watched {
  core: Core
  store: Store
  warn: (err: unknown, msg: string) => void
}

export class Metrics {
  readonly registry = new Registry()
  readonly #requests: Counter<'method' | 'route' | 'status_code'>
  readonly #duration: Histogram<'method' | 'route' | 'status_code'>
  readonly #jobRuns: Counter<'kind' | 'outcome'>
  readonly #webhookFailures: Counter<'outcome'>
  readonly #storeErrors: Counter<'operation'>
  readonly #pending: Gauge<'kind'>
  readonly #streams: Gauge
  #watched: Watched | null = null
  #exposed: Registry | null = null

  constructor() {
    const registers = [this.registry]
    this.#requests = new Counter({
      name: `${METRICS_PREFIX}http_requests_total`,
      registers,
      help: 'HTTP requests answered, by method, route pattern (unmatched: no route) and status code.',
      labelNames: ['method', 'route', 'status_code'],
    })
    this.#duration = new Histogram({
      name: `${METRICS_PREFIX}http_request_duration_seconds`,
      registers,
      buckets: LATENCY_BUCKETS,
      help: 'Time from receiving a request to the end of its response, by method, route pattern and status code (event streams are counted, not timed).',
      labelNames: ['method', 'route', 'status_code'],
    })
    this.#jobRuns = new Counter({
      name: `${METRICS_PREFIX}job_runs_total`,
      registers,
      help: "Job runs in this process by kind and outcome: succeeded, retried (failed, will run again), failed (given up), waiting (the airline's answer is not ready), lease_lost.",
      labelNames: ['kind', 'outcome'],
    })
    this.#webhookFailures = new Counter({
      name: `${METRICS_PREFIX}webhook_delivery_failures_total`,
      registers,
      help: 'Webhook deliveries that failed (no answer, or not 2xx) in this process: retried (will be tried again) or failed (given up).',
      labelNames: ['outcome'],
    })
    this.#storeErrors = new Counter({
      name: `${METRICS_PREFIX}store_errors_total`,
      registers,
      help: 'Errors thrown by the database store in this process, by store operation.',
      labelNames: ['operation'],
    })
    // Shown at 0 from the start: a counter series that first appears at 1 has no 0 before it, so rate() and
    // increase() would miss the first failure.
    for (const kind of JOB_KINDS)
      for (const outcome of ['succeeded', 'retried', 'failed']) this.#jobRuns.inc({ kind, outcome }, 0)
    for (const outcome of ['retried', 'failed']) this.#webhookFailures.inc({ outcome }, 0)

    this.#pending = new Gauge({
      name: `${METRICS_PREFIX}jobs_pending`,
      registers,
      help: "Jobs not finished, by kind: due, running, or waiting for a retry (all instances: it is the database's count).",
      labelNames: ['kind'],
    })
    this.#streams = new Gauge({
      name: `${METRICS_PREFIX}live_streams`,
      registers,
      help: 'Trip event streams (GET /v2.2/trip/{trip_id}/events) open on this instance.',
    })
  }

  get contentType(): string {
    return this.registry.contentType
  }

  /**
   * The store with every error it throws (or rejects with) counted under the operation's name, for the core
   * to be built on. Everything else passes through: other properties, `instanceof`, optional methods' absence.
   */
  countStoreErrors<S extends object>(store: S): S {
    const count = (operation: string) => this.#storeErrors.inc({ operation })
    const wrapped = new WeakMap<object, unknown>()
    return new Proxy(store, {
      get(target, prop) {
        // The store itself as the receiver: its getters and #private fields would refuse the proxy.
        const value: unknown = Reflect.get(target, prop)
        if (typeof value !== 'function' || typeof prop !== 'string' || prop === 'constructor') return value
        // Keyed by the function, not the name: a method replaced on the store (tests do) is wrapped anew.
        let w = wrapped.get(value)
        if (!w) {
          const fn = value as (...args: unknown[]) => unknown
          const failed = (err: unknown): never => {
            count(prop)
            throw err
          }
          w = (...args: unknown[]) => {
            let result: unknown
            try {
              result = fn.apply(target, args)
            } catch (err) {
              failed(err)
            }
            return result instanceof Promise ? result.catch(failed) : result
          }
          wrapped.set(value, w)
        }
        return w
      },
    })
  }

  /** Counts this core's job runs, and shows its store's queue and its open streams; returns the way to stop. */
  watch(core: Core, store: Store, warn: Watched['warn']): () => void {
    const watched: Watched = { core, store, warn }
    this.#watched = watched
    const stop = core.observe({ jobFinished: (r) => this.jobFinished(r) })
    return () => {
      stop()
      if (this.#watched === watched) this.#watched = null
    }
  }

  jobFinished(r: JobReport): void {
    const kind = (JOB_KINDS as string[]).includes(r.kind) ? r.kind : 'other'
    const outcome = OUTCOMES[r.outcome]
    this.#jobRuns.inc({ kind, outcome })
    if (kind === 'webhook' && (outcome === 'retried' || outcome === 'failed')) this.#webhookFailures.inc({ outcome })
  }

  /** One answered request; `seconds` is not observed for an event stream, whose lifetime is no latency. */
  request(method: string, route: string, status: number, seconds: number | null): void {
    const labels = { method, route, status_code: status }
    this.#requests.inc(labels)
    if (seconds !== null) this.#duration.observe(labels, seconds)
  }

  /** The exposition: this app's metrics and the process's, the gauges read now. */
  async render(): Promise<string> {
    // Read before the text is made (not in the gauges' collect, which runs beside the counters' output), so a
    // store error met here is in this scrape's svc_store_errors_total.
    const w = this.#watched
    if (w) {
      this.#streams.set(w.core.context.live.streams)
      await this.#countPending(w)
    }
    this.#exposed ??= Registry.merge([processMetrics(), this.registry])
    return this.#exposed.metrics()
  }

  async #countPending(w: Watched): Promise<void> {
    this.#pending.reset()
    let timer: NodeJS.Timeout | undefined
    try {
      const counts = await Promise.race([
        w.store.countPendingJobs(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${QUEUE_QUERY_TIMEOUT_MS} ms`)),
            QUEUE_QUERY_TIMEOUT_MS,
          )
        }),
      ])
      // Every kind is shown, 0 included: a series that appears only when jobs pile up is hard to alert on.
      for (const kind of JOB_KINDS) this.#pending.set({ kind }, counts[kind] ?? 0)
      for (const [kind, n] of Object.entries(counts))
        if (!(JOB_KINDS as string[]).includes(kind)) this.#pending.set({ kind }, n)
    } catch (err) {
      // Left out of this scrape rather than failing it: the other figures matter most when the database does not answer.
      w.warn(err, 'metrics: pending jobs not counted')
    } finally {
      clearTimeout(timer)
    }
  }
}

export interface MetricsPluginOptions {
  metrics: Metrics
  core: Core
  store: Store
  /** When set, GET /metrics needs `Authorization: Bearer <token>` (METRICS_TOKEN); unset, it is open. */
  token?: string
}

/** `Bearer <token>` (the scheme in any case), as a digest: compared in constant time whatever its length. */
const bearerDigest = (header: string | undefined): Buffer | null => {
  const m = header === undefined ? null : /^bearer +(\S+) *$/i.exec(header)
  return m ? hash('sha256', m[1]!, 'buffer') : null
}

export const metricsPlugin = fp<MetricsPluginOptions>(
  async (app: FastifyInstance, opts) => {
    const { metrics } = opts
    processMetrics() // the process figures (event loop lag, GC) are measured from the start, not from the first scrape
    const unwatch = metrics.watch(opts.core, opts.store, (err, msg) => app.log.warn({ err }, msg))
    app.addHook('onClose', async () => unwatch())

    // A sync hook with `done`: the cheapest kind Fastify runs. reply.elapsedTime is measured by Fastify anyway.
    app.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
      if (reply.statusCode !== 200 || req.routeOptions.config.stream !== true) {
        metrics.request(req.method, req.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime / 1000)
      }
      done()
    })
    // An event stream is counted when it starts (not timed): onResponse would see it only if it ended cleanly,
    // and a client going away (how streams end) ends it without. The hook is added to stream routes alone.
    app.addHook('onRoute', (route) => {
      if (route.config?.stream !== true) return
      const started: onSendHookHandler = (req, reply, payload, done) => {
        if (reply.statusCode === 200) metrics.request(req.method, req.routeOptions.url ?? route.url, 200, null)
        done(null, payload)
      }
      route.onSend = [...[route.onSend ?? []].flat(), started]
    })

    const expected = opts.token === undefined ? null : hash('sha256', opts.token, 'buffer')
    // Like /healthz: hidden from the OpenAPI document, exempt from the rate limit (server/plugins/rate-limit.ts),
    // and logged only when it goes wrong (a scrape every 15 s would be most of a quiet instance's log).
    app.get(
      '/metrics',
      {
        schema: { hide: true },
        logLevel: 'warn',
        onRequest: async (req, reply) => {
          if (expected === null) return
          const got = bearerDigest(req.headers.authorization)
          if (got === null || !timingSafeEqual(got, expected)) {
            reply.header('www-authenticate', 'Bearer realm="metrics"')
            throw new ProblemError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.')
          }
        },
      },
      async (_req, reply) => {
        reply.header('content-type', metrics.contentType).header('cache-control', 'no-store')
        return metrics.render()
      },
    )
  },
  { name: 'svc-metrics', fastify: '5.x' },
)
