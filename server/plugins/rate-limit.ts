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
import rateLimit from '@fastify/rate-limit'
import { ProblemError } from '../../core/errors.ts'

export interface RateLimitOptions {
  /** Requests allowed per window and key. */
  max: number
  /** Window length in milliseconds. */
  timeWindow: number
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { max: 600, timeWindow: 60_000 }

/** Operational and documentation routes: probes and humans reading docs must never be throttled away. */
const EXEMPT = (url: string | undefined) =>
  url === '/healthz' || url === '/readyz' || url === '/v2.2/openapi.json' ||
  url === '/docs' || (url?.startsWith('/docs/') ?? false)

export function rateLimitKey(req: FastifyRequest): string {
  const auth = req.headers.authorization
  if (auth) return `cred:${hash('sha256', auth, 'base64url')}`
  return `ip:${req.ip}`
}

export const rateLimitPlugin = fp<Partial<RateLimitOptions>>(async (app: FastifyInstance, opts) => {
  const max = opts.max ?? DEFAULT_RATE_LIMIT.max
  const timeWindow = opts.timeWindow ?? DEFAULT_RATE_LIMIT.timeWindow
  await app.register(rateLimit, {
    global: true,
    max,
    timeWindow,
    hook: 'onRequest',
    enableDraftSpec: true,
    keyGenerator: rateLimitKey,
    allowList: (req) => EXEMPT(req.routeOptions.url),
    errorResponseBuilder: (_req, ctx) =>
      new ProblemError('rate_limited', `Too many requests: at most ${ctx.max} per ${Math.round(timeWindow / 1000)} s. Retry in ${ctx.after}.`),
  })
}, { name: 'svc-rate-limit', fastify: '5.x' })
