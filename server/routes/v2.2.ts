/**
 * The v2.2 API: one Fastify route per entry of the core's operation table, answered by the core's request
 * pipeline (core/api/dispatch.ts), so this host and the offline sandbox expose the same paths, rules,
 * schemas and answers. What is left here is Fastify's part: routing, reading the body, writing the reply.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { operations, type Operation } from '../../core/api/operations.ts'
import { admit, dispatch } from '../../core/api/dispatch.ts'
import { EventStream, Rendered } from '../../core/rendered.ts'
import { Readable } from 'node:stream'
import type { Core, Principal } from '../../core/service.ts'
import { Problem } from '../../core/schemas/problem.ts'
import { securityFor } from '../plugins/openapi.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the route's auth hook; null for public operations or when no credentials were sent. */
    principal: Principal | null
  }
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content', 304: 'Not modified: the ETag in If-None-Match is current',
  400: 'Invalid request (`validation_error`)',
  401: 'Missing, unknown or expired credentials (`unauthorized`, `token_expired`)',
  403: 'These credentials may not do this (`forbidden`)',
  404: 'No such resource for this seller (`not_found`)',
  409: 'The trip or basket does not allow this now (`trip_state_conflict`, `basket_not_valid`, `basket_rule_violation`, `product_unavailable`, `not_cancellable`, `quote_expired`), or a request with this Idempotency-Key is still running (`idempotency_in_progress`, with Retry-After)',
  413: 'Request body too large (`payload_too_large`)',
  415: 'Request body is not JSON (`unsupported_media_type`)',
  422: 'Idempotency-Key reused with a different request (`idempotency_conflict`)',
  429: 'Rate limit exceeded (`rate_limited`); see Retry-After',
  500: 'Internal error (`internal`)',
}

// Documentation only: the core checks the key's form, so the sandbox words a bad key the same way.
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({
    description: '1 to 255 visible ASCII characters. Makes a retry safe: a repeated key with the same body returns the first response (with `Idempotent-Replayed: true`), or 409 `idempotency_in_progress` with Retry-After while the first request still runs (retry then); with a different body, 422.',
  })),
})

/** Documented responses of an operation: its own success schemas plus the problems it can answer with. */
export function responsesFor(op: Operation): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [status, schema] of Object.entries(op.responses)) {
    const description = STATUS_TEXT[Number(status)] ?? 'Success'
    out[status] = status === '304' ? { description } : { description, content: { [op.eventStream ? 'text/event-stream' : 'application/json']: { schema } } }
  }
  const errors = new Set<number>([429, 500])
  if (op.body || op.params || op.query) errors.add(400)
  if (op.body) { errors.add(413); errors.add(415) }
  if (op.auth !== 'public') { errors.add(401); errors.add(403) }
  if (op.auth === 'public' && op.body) errors.add(401) // refresh: the token in the body is the credential
  if (op.params) errors.add(404)
  if (op.params && op.method !== 'GET') errors.add(409)
  if (op.idempotent) { errors.add(409); errors.add(422) }
  for (const status of [...errors].sort()) {
    out[status] = { description: STATUS_TEXT[status] ?? 'Error', content: { 'application/problem+json': { schema: Problem } } }
  }
  return out
}

export interface V22Options { core: Core }

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

interface RouteTypes { Params: Record<string, string>; Querystring: Record<string, unknown> }

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
    if (op.body) schema.body = op.body
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
        const res = await dispatch(core, op, req.principal, { params: req.params, query: req.query, header: (name) => headerOf(req, name), body: req.body })
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
  return reply.code(status).send(Readable.from(events.open(abort.signal), { objectMode: false }))
}
