/**
 * CORS: browsers may call the API (with a trip access token) only from an origin some seller has
 * configured. A preflight carries no credentials, so it cannot tell which seller is asking; the
 * per-seller check happens again when the request pipeline admits the request (core/api/dispatch.ts), which sees the token.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import cors from '@fastify/cors'

export interface CorsOptions {
  isAllowedOrigin(origin: string): Promise<boolean>
}

export const corsPlugin = fp<CorsOptions>(
  async (app: FastifyInstance, opts) => {
    await app.register(cors, {
      origin: (origin: string | undefined, cb: (err: Error | null, allow: boolean) => void) => {
        // No Origin: a server-to-server call, where CORS does not apply.
        if (!origin) {
          cb(null, false)
          return
        }
        opts.isAllowedOrigin(origin).then(
          (ok) => cb(null, ok),
          (err: Error) => cb(err, false),
        )
      },
      methods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
      exposedHeaders: [
        'X-Request-Id',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
        'Idempotent-Replayed',
      ],
      // Browsers cap this (Chromium at 2 h); 10 min keeps origin removals effective soon enough.
      maxAge: 600,
      credentials: false,
      // Strict mode answers a malformed preflight in text/plain; ours stays problem+json or a plain 204.
      strictPreflight: false,
    })
  },
  { name: 'svc-cors', fastify: '5.x' },
)
