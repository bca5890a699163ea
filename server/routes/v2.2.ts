/**
 * The v2.2 API: one Fastify route per entry of the core's operation table, answered by the core's request
 * pipeline (core/api/dispatch.ts), so this host and the offline sandbox expose the same paths, rules,
 * schemas and answers. What is left here is Fastify's part: routing, reading the body, writing the reply.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { operations } from '../../core/api/operations.ts'
import { admit, dispatch } from '../../core/api/dispatch.ts'
import { EventStream, Rendered } from '../../core/shared/rendered.ts'
import { Readable } from 'node:stream'
import type { Core, Principal } from '../../core/core.ts'
import { securityFor } from '../plugins/openapi.ts'
import { responsesFor, schemaNames } from '../docs/openapi.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the route's auth hook; null for public operations or when no credentials were sent. */
    principal: Principal | null
  }
}

// Documentation only: the core checks the key's form, so the sandbox words a bad key the same way.
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        '1 to 255 visible ASCII characters. Makes a retry safe: a repeated key with the same body returns the first response (with `Idempotent-Replayed: true`), or 409 `idempotency_in_progress` with Retry-After while the first request still runs (retry then); with a different body, 422.',
    }),
  ),
})

export interface V22Options {
  core: Core
}

/**
 * The Authorization header as the sandbox's `fetch` sees it: repeated lines joined with ", ". Node keeps
 * only the first line in `req.headers`, which would let a second credential pass unseen (a proxy in front
 * may have judged that one); joined, the core refuses the pair on both hosts.
 */
function authorizationOf(req: FastifyRequest): string | undefined {
  const raw = req.raw.rawHeaders
  let values: string[] | undefined
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') (values ??= []).push(raw[i + 1]!)
  }
  return values && values.length > 1 ? values.join(', ') : req.headers.authorization
}

/** A request header as the pipeline reads it: one value (Node joins repeated custom headers with ", "). */
function headerOf(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name]
  return typeof value === 'string' ? value : undefined
}

interface RouteTypes {
  Params: Record<string, string>
  Querystring: Record<string, unknown>
}

/** The core validates each request once, in the pipeline; the route's schemas are there for the OpenAPI document. */
const validatedByTheCore = () => () => true

export async function v22Routes(app: FastifyInstance, { core }: V22Options) {
  app.decorateRequest('principal', null)
  // Open event streams would hold app.close() forever: they end first, and their clients reconnect elsewhere.
  app.addHook('preClose', () => core.context.live.close())

  for (const op of operations) {
    const schema: Record<string, unknown> = {
      operationId: op.id,
      summary: op.summary,
      tags: op.tags,
      security: securityFor(op.auth),
      response: responsesFor(op),
    }
    if (op.description) schema.description = op.description
    if (op.params) schema.params = op.params
    if (op.query) schema.querystring = op.query
    // Named schemas as `$ref`s, for the document only: the core validates the body with op.body itself.
    if (op.body) schema.body = schemaNames.document(op.body)
    if (op.idempotent) schema.headers = IdempotencyHeaders

    app.route<RouteTypes>({
      method: op.method,
      url: op.path,
      schema,
      validatorCompiler: validatedByTheCore,
      // Events are written as they come: compressing them would hold each back until a block filled. A
      // stream's lifetime is no latency: server/metrics.ts counts it but does not time it.
      ...(op.eventStream ? { compress: false as const, config: { stream: true } } : {}),
      // Credentials are checked before the body is even parsed, and after the rate limiter (onRequest), so
      // failed guesses still count.
      preParsing: async (req) => {
        req.principal = await admit(core, op, authorizationOf(req), req.params, req.headers.origin)
      },
      handler: async (req, reply) => {
        const res = await dispatch(core, op, req.principal, {
          params: req.params,
          query: req.query,
          header: (name) => headerOf(req, name),
          body: req.body,
        })
        reply.headers(res.headers)
        if (res.body instanceof EventStream) return sendEvents(reply, res.status, res.body)
        if (res.body instanceof Rendered) return reply.sendRendered(res.status, res.body)
        return res.body === null ? reply.code(res.status).send() : reply.code(res.status).send(res.body)
      },
    })
  }
}

/** Writes an event stream as its events come; the client going away (or the host closing) ends it. */
function sendEvents(reply: FastifyReply, status: number, events: EventStream): FastifyReply {
  const abort = new AbortController()
  reply.raw.once('close', () => abort.abort())
  // The connection ends with the stream. A stream ends when its client reconnects elsewhere or the host
  // closes, so there is no next request to keep it for; and a closing host would otherwise wait out the
  // keep-alive timeout of a connection its stream left idle after the host stopped closing idle ones.
  return reply
    .code(status)
    .header('connection', 'close')
    .send(Readable.from(events.open(abort.signal), { objectMode: false }))
}
