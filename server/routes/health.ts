/**
 * Probes for orchestrators: `/healthz` says the process answers (restart it if not), `/readyz` says it
 * can serve traffic because the database answers (take it out of the load balancer if not).
 */
import type { FastifyInstance } from 'fastify'
import { ProblemError } from '../../core/shared/errors.ts'
import type { Store } from '../../core/ports/store.ts'

export interface HealthOptions {
  store: Store
}

export async function healthRoutes(app: FastifyInstance, { store }: HealthOptions) {
  const hidden = { schema: { hide: true }, logLevel: 'warn' as const }

  app.get('/healthz', hidden, async () => ({ status: 'ok' }))

  app.get('/readyz', hidden, async (req) => {
    try {
      await store.ping()
    } catch (err) {
      req.log.warn({ err }, 'store ping failed')
      throw new ProblemError('unavailable', 'The database does not answer.')
    }
    return { status: 'ok' }
  })
}
