/**
 * Request ids: every response carries `X-Request-Id`, every log line carries `request_id`, and every
 * problem body names it, so a seller's support ticket can be matched to our logs.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { acceptableRequestId } from '../../core/api/dispatch.ts'

export function genReqId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  return acceptableRequestId(incoming) ? incoming : randomUUID()
}

export const requestIdPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', async (req, reply) => {
      reply.header('x-request-id', req.id)
    })
  },
  { name: 'svc-request-id', fastify: '5.x' },
)
