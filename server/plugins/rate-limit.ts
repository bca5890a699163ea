/**
 * Rate limiting per credential: one seller's burst must not starve another seller behind the same
 * proxy, and an unauthenticated client is limited by its address. The key is a hash of the
 * Authorization header, so the limiter's memory never holds a secret.
 *
 * Headers follow the IETF draft (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`, and
 * `Retry-After` on a 429). The limiter runs in `onRequest`, before authentication, so failed
 * credential guesses are counted too.
 */
import { hash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import rateLimit, {
  type FastifyRateLimitOptions,
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit'
import type { RouteOptions } from 'fastify'
import { ProblemError } from '../../core/shared/errors.ts'
import type { RateLimitCount, RateLimitHits } from '../../core/ports/store.ts'

export interface RateLimitOptions {
  /** Requests allowed per window and key. */
  max: number
  /** Window length in milliseconds. */
  timeWindow: number
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { max: 600, timeWindow: 60_000 }

/** Operational and documentation routes: probes, scrapers and humans reading docs must never be throttled away. */
const EXEMPT = (url: string | undefined) =>
  url === '/healthz' ||
  url === '/readyz' ||
  url === '/metrics' ||
  url === '/v2.2/openapi.json' ||
  url === '/docs' ||
  (url?.startsWith('/docs/') ?? false)

export function rateLimitKey(req: FastifyRequest): string {
  const auth = req.headers.authorization
  if (auth) return `cred:${hash('sha256', auth, 'base64url')}`
  return `ip:${req.ip}`
}

/**
 * Counts kept for every instance in the database (Store.addRateLimitHits), without a database round trip per
 * request: each instance answers from what it last learnt of the shared count plus its own hits since, and
 * sends its hits of every key in one statement each `syncMs`. N instances thus allow the limit once, give or
 * take what they admit in one sync interval before learning of each other's hits (a burst on N instances at
 * once may pass the limit by up to N × its rate × syncMs). A per-request round trip would cost more than
 * the read it guards: it halved GET basket's throughput on PostgreSQL (bench/api-load.ts).
 */
interface Entry {
  shared: number
  pending: number
  max: number
  windowMs: number
  endsAt: number
}

export class SharedRateLimitCounter {
  /** Per key: the shared count last learnt, hits not yet sent, the limit, and when the window ends (this machine's ms). */
  readonly #keys = new Map<string, Entry>()
  readonly #timer: NodeJS.Timeout
  #flushing: Promise<void> | null = null

  constructor(
    private readonly add: (hits: ReadonlyArray<RateLimitHits>) => Promise<RateLimitCount[]>,
    private readonly onError: (err: unknown) => void,
    readonly syncMs = 100,
    /** Keys remembered at most (a flood of distinct credentials must not grow memory without bound). */
    private readonly maxKeys = 100_000,
  ) {
    this.#timer = setInterval(() => void this.flush(), syncMs).unref()
  }

  hit(key: string, windowMs: number, max: number): { count: number; ttlMs: number } {
    const now = Date.now()
    let e = this.#keys.get(key)
    if (!e || e.endsAt <= now) {
      if (!e && this.#keys.size >= this.maxKeys) this.#sweep(now, true)
      e = { shared: 0, pending: 0, max, windowMs, endsAt: now + windowMs }
      this.#keys.set(key, e)
    }
    e.pending++
    return { count: e.shared + e.pending, ttlMs: e.endsAt - now }
  }

  /**
   * Sends every key's pending hits in one statement and learns the shared counts (one flush at a time).
   * A key past half its limit is asked for even with no hit to send, so an instance that serves it rarely
   * still learns of the other instances' hits before the limit, not only after its own next hit.
   */
  flush(): Promise<void> {
    this.#flushing ??= this.#send().finally(() => {
      this.#flushing = null
    })
    return this.#flushing
  }

  async #send(): Promise<void> {
    // The entry each batch was taken from: a window that ended meanwhile started a new entry, which this answer is not about.
    const sent = new Map<string, { entry: Entry; hits: number }>()
    const batch: RateLimitHits[] = []
    const now = Date.now()
    this.#sweep(now, false)
    for (const [key, e] of this.#keys) {
      if (e.pending > 0 || (e.endsAt > now && e.shared * 2 >= e.max)) {
        sent.set(key, { entry: e, hits: e.pending })
        batch.push({ key, hits: e.pending, windowMs: e.windowMs })
      }
    }
    if (batch.length === 0) return
    let counts: RateLimitCount[]
    try {
      counts = await this.add(batch)
    } catch (err) {
      this.onError(err) // the hits stay pending and go with the next flush
      return
    }
    const learnt = Date.now()
    for (const c of counts) {
      const e = this.#keys.get(c.key)
      const batch = sent.get(c.key)
      if (!e || !batch || batch.entry !== e) continue
      e.pending = Math.max(0, e.pending - batch.hits)
      e.shared = c.count
      e.endsAt = learnt + c.ttlMs
    }
  }

  /** Forgets keys whose window ended and that have nothing to send; `full` also drops the oldest half when still full. */
  #sweep(now: number, full: boolean): void {
    for (const [key, e] of this.#keys) if (e.endsAt <= now && e.pending === 0) this.#keys.delete(key)
    if (full && this.#keys.size >= this.maxKeys) {
      let drop = this.#keys.size / 2
      for (const key of this.#keys.keys()) {
        if (drop-- <= 0) break
        this.#keys.delete(key)
      }
    }
  }

  /** Keys remembered now. */
  get size(): number {
    return this.#keys.size
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.flush()
  }
}

/**
 * @fastify/rate-limit's custom-store shape over the shared counter. A route with its own limit gets a child
 * store whose keys carry the route, as the library's own stores do, so its count is not the global one.
 */
function sharedStore(counter: SharedRateLimitCounter, prefix = ''): FastifyRateLimitStoreCtor {
  return class SharedStore implements FastifyRateLimitStore {
    constructor(readonly options: FastifyRateLimitOptions) {}
    incr(
      key: string,
      cb: (err: Error | null, r?: { current: number; ttl: number }) => void,
      timeWindow: number,
      max: number,
    ) {
      const r = counter.hit(prefix + key, timeWindow, max)
      cb(null, { current: r.count, ttl: r.ttlMs })
    }
    child(
      routeOptions: RouteOptions & { path: string; prefix: string; routeInfo?: { method?: string; url?: string } },
    ) {
      const Child = sharedStore(
        counter,
        `${prefix}${routeOptions.routeInfo?.method ?? ''}${routeOptions.routeInfo?.url ?? ''}-`,
      )
      return new Child({ ...this.options, ...routeOptions } as FastifyRateLimitOptions)
    }
  }
}

export interface SharedRateLimit {
  add: (hits: ReadonlyArray<RateLimitHits>) => Promise<RateLimitCount[]>
  /** How often each instance sends its hits and learns the others' (ms). */
  syncMs?: number
}

export const rateLimitPlugin = fp<Partial<RateLimitOptions> & { shared?: SharedRateLimit }>(
  async (app: FastifyInstance, opts) => {
    const max = opts.max ?? DEFAULT_RATE_LIMIT.max
    const timeWindow = opts.timeWindow ?? DEFAULT_RATE_LIMIT.timeWindow
    let store: FastifyRateLimitStoreCtor | undefined
    if (opts.shared) {
      // The database unreachable: requests are still counted here, and the hits are sent when it is back.
      const counter = new SharedRateLimitCounter(
        opts.shared.add,
        (err) => app.log.warn({ err }, 'rate-limit counts not shared'),
        opts.shared.syncMs,
      )
      app.addHook('onClose', () => counter.close())
      store = sharedStore(counter)
    }
    await app.register(rateLimit, {
      ...(store ? { store } : {}),
      global: true,
      max,
      timeWindow,
      hook: 'onRequest',
      enableDraftSpec: true,
      keyGenerator: rateLimitKey,
      allowList: (req) => EXEMPT(req.routeOptions.url),
      errorResponseBuilder: (_req, ctx) =>
        new ProblemError(
          'rate_limited',
          `Too many requests: at most ${ctx.max} per ${Math.round(timeWindow / 1000)} s. Retry in ${ctx.after}.`,
        ),
    })
  },
  { name: 'svc-rate-limit', fastify: '5.x' },
)
