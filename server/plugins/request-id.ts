/**
 * Request ids: every response carries `X-Request-Id`, every log line carries `request_id`, and every
 * problem body names it, so a seller's support ticket can be matched to our logs.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * An incoming id is reused only when it is short and made of harmless characters: it is echoed in a
 * header and written to logs, so anything else could forge log lines or split headers.
 */
const ACCEPTABLE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/

export function genReqId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  return typeof incoming === 'string' && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID()
}

export const requestIdPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id)
  })
}, { name: 'svc-request-id', fastify: '5.x' })
