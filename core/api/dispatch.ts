/**
 * The request pipeline, written once for both hosts (server/routes/v2.2.ts and mock-server/host.ts):
 * who is calling and whether they may, whether the request is well formed, whether it was answered
 * before (Idempotency-Key), and the answer as a response neither host has to interpret. The hosts only
 * match URLs, read bytes and write responses.
 *
 * Two steps, because the server checks credentials before it parses the body: an unauthenticated caller
 * learns nothing about what a valid body would be and costs no parsing, so 401 comes before 415, 413 and
 * unparsable JSON on both hosts. A host calls `admit`, reads the body, then calls `dispatch`.
 */
import { Type, type Static, type TSchema } from 'typebox'
import type { Answer } from '../application/idempotency.ts'
import type { Context } from '../application/context.ts'
import type { AuthRule, Principal } from '../application/principal.ts'
import { ERROR_CODES, type ErrorCode, type FieldError } from '../shared/errors.ts'
import { authenticate, authorizeFor, required } from '../application/auth.ts'
import { idempotent, type IdempotencyClaim } from '../application/idempotency.ts'
import { accepts, fieldErrors, invalid, validate } from '../shared/validate.ts'
import { EventStream, Rendered, Serialized } from '../shared/rendered.ts'

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'
export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8'

/**
 * Whether a caller's X-Request-Id is reused as the request's id: only when short and made of harmless
 * characters, since it is echoed in a header and written to logs (anything else could forge log lines or
 * split headers).
 */
export const acceptableRequestId = (incoming: unknown): incoming is string =>
  typeof incoming === 'string' && /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/.test(incoming)

/** A request as a host hands it over: path parameters decoded, query string and JSON body parsed. */
export interface RawRequest {
  params: Record<string, string>
  query: Record<string, unknown>
  header(name: string): string | undefined
  /** undefined (or null) when the request has none. */
  body: unknown
}

/**
 * What a host writes back. A `Rendered` body is serialized already (the server keeps compressed copies of
 * it); an EventStream is written as its events come, uncompressed (each must reach the client at once).
 */
export interface HostResponse {
  status: number
  headers: Record<string, string>
  /** null for 204 and 304. */
  body: string | Rendered | EventStream | null
}

/** An operation's request, validated: what its handler receives. */
export interface Input<P extends TSchema, Q extends TSchema, B extends TSchema> {
  params: Static<P>
  query: Static<Q>
  body: Static<B>
  /** A request header the operation reads as it is (Last-Event-ID); the ones the pipeline handles are its own. */
  header(name: string): string | undefined
  /** The Idempotency-Key this request holds, when it sent one: a write stores its answer with it (TripEffects.idempotency). */
  idempotency?: IdempotencyClaim
}

interface About {
  id: string
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
  /** Fastify-style path with `:param` segments. */
  path: string
  summary: string
  description?: string
  tags: string[]
  /** Response schemas by status code, for the OpenAPI document (its problems are `problemCodes`). */
  responses: Record<number, TSchema>
  /**
   * The problem codes the operation's handler answers with (core/shared/errors.ts), beyond those the request
   * pipeline gives every operation of its kind (`problemCodes` adds them). The OpenAPI document lists the
   * two per operation; the fuzz suite (test/attack/fuzz.test.ts) fails on a code it sees an operation answer
   * that this leaves out.
   */
  errors: readonly ErrorCode[]
  /** Answers with a `text/event-stream` (an EventStream body) instead of JSON. */
  eventStream?: true
  /**
   * The rules its handler checks a body by, beyond the schema, read from a body the schema refused (on the
   * parts it accepted): their errors join the schema's, so one 400 names every bad field (docs/decisions.md
   * "Drop-in, second round"). A body the schema accepts meets the same rules in the handler.
   */
  rules?: (ctx: Context, body: unknown) => FieldError[]
}

/**
 * An operation as written in the table. Its handler gets the request typed by its own schemas, and the
 * caller's principal unless the operation is public: the types say what the pipeline guarantees.
 */
export type OperationSpec<P extends TSchema, Q extends TSchema, B extends TSchema> = About & {
  params: P
  query: Q
  body: B
} & (
    | {
        /** Who may call it (core/application/auth.ts). */
        auth: Exclude<AuthRule, 'public'>
        /** Honours the Idempotency-Key header (keys are kept per seller, so only for operations with a caller). */
        idempotent?: boolean
        handler(ctx: Context, principal: Principal, input: Input<P, Q, B>): Promise<Answer>
      }
    | { auth: 'public'; idempotent?: never; handler(ctx: Context, input: Input<P, Q, B>): Promise<Answer> }
  )

/**
 * Stand-ins for the schemas an operation does not have: they accept anything and the handler does not
 * read it (a body sent to an operation without one is still parsed, so malformed JSON is refused, then
 * ignored). They validate nothing, so `Operation` and the OpenAPI document leave them out.
 */
export const NoParams = Type.Record(Type.String(), Type.String())
export const NoQuery = Type.Record(Type.String(), Type.Unknown())
export const NoBody = Type.Unknown()
/** Spread into an operation's spec, then override the schemas it has. */
export const takesNothing = { params: NoParams, query: NoQuery, body: NoBody }

/** An operation as the hosts, the OpenAPI document and the tests see it, whatever its types. */
export interface Operation extends About {
  auth: AuthRule
  idempotent: boolean
  /** The operation's own schemas; absent where it has none. */
  params?: TSchema
  query?: TSchema
  body?: TSchema
  /**
   * Validates the path parameters, then the query, then the body (an absent body is null, as Fastify
   * hands it to a validator), applies Idempotency-Key, and answers.
   */
  run(ctx: Context, principal: Principal | null, request: RawRequest): Promise<Answer>
}

const unless = (none: TSchema, schema: TSchema) => (schema === none ? undefined : schema)

/** The body typed by the operation's schema, or one `validation_error` with the schema's errors and its rules'. */
function validateBody<B extends TSchema>(
  ctx: Context,
  spec: { body: B; rules?: About['rules'] },
  body: unknown,
): Static<B> {
  if (accepts(spec.body, body)) return body as Static<B>
  const errors = fieldErrors(spec.body, body)
  const seen = new Set(errors.map((e) => `${e.path}\u0000${e.message}`))
  for (const e of spec.rules?.(ctx, body) ?? []) if (!seen.has(`${e.path}\u0000${e.message}`)) errors.push(e)
  throw invalid('request body', errors)
}

/** The one success status of an idempotent operation (what a replay answers with the kept body). */
function successStatus(responses: Record<number, TSchema>): number {
  const ok = Object.keys(responses)
    .map(Number)
    .filter((s) => s >= 200 && s < 300)
  if (ok.length !== 1) throw new Error(`an idempotent operation answers one success status, not ${ok.join(', ')}`)
  return ok[0]!
}

export function defineOperation<P extends TSchema, Q extends TSchema, B extends TSchema>(
  spec: OperationSpec<P, Q, B>,
): Operation {
  const { handler: _handler, params, query, body, ...about } = spec
  return {
    ...about,
    idempotent: spec.idempotent ?? false,
    params: unless(NoParams, params),
    query: unless(NoQuery, query),
    body: unless(NoBody, body),
    async run(ctx, principal, request) {
      const input: Input<P, Q, B> = {
        params: validate(params, request.params, 'request path'),
        query: validate(query, request.query, 'query string'),
        body: validateBody(ctx, spec, request.body ?? null),
        header: request.header,
      }
      if (spec.auth === 'public') return spec.handler(ctx, input)
      const caller = required(principal)
      if (!spec.idempotent) return spec.handler(ctx, caller, input)
      return idempotent(
        ctx,
        caller,
        spec.id,
        successStatus(spec.responses),
        request.header('idempotency-key'),
        input.body,
        (idempotency) => spec.handler(ctx, caller, { ...input, idempotency }),
      )
    },
  }
}

/**
 * Every problem code `op` can answer with, by status: what the hosts and this pipeline refuse a request
 * with, by what the operation takes (the order of mock-server/host.ts), then the operation's own `errors`.
 * One source for the OpenAPI document's error responses.
 */
export function problemCodes(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>()
  // Credentials, checked first (a token, even on an API-key operation, is verified before the rule: token_expired).
  if (op.auth !== 'public') codes.add('unauthorized').add('token_expired').add('forbidden').add('seller_disabled')
  // Both hosts read a body on every method but GET, whether the operation takes one or not: a body that is
  // too large, not JSON or not parsable is refused before the operation's schemas are looked at.
  const readsBody = op.method !== 'GET'
  if (readsBody) codes.add('payload_too_large').add('unsupported_media_type')
  if (readsBody || op.params || op.query || op.idempotent) codes.add('validation_error')
  // Every path parameter names something of the caller's: a trip, a search, a basket item, a subscription.
  if (op.params) codes.add('not_found')
  if (op.idempotent) codes.add('idempotency_in_progress').add('idempotency_conflict')
  for (const code of op.errors) codes.add(code)
  // Any request: the server's rate limit (the sandbox has none), and a failure of the service itself.
  codes.add('rate_limited').add('internal')
  const order = Object.keys(ERROR_CODES)
  return [...codes].sort((a, b) => ERROR_CODES[a].status - ERROR_CODES[b].status || order.indexOf(a) - order.indexOf(b))
}

/**
 * Who is calling, and may they call `op` (the matrix of docs/decisions.md). Public operations skip both: their
 * credential is in the body (refresh) or they need none (JWKS), and a client that sends its expired access
 * token out of habit must still be able to refresh. `origin` is the browser's Origin header, if any. `core` is
 * what the host holds (core/core.ts `Core`); admit and dispatch read only its context.
 */
export async function admit(
  core: { readonly context: Context },
  op: Operation,
  authorization: string | undefined,
  params: Record<string, string>,
  origin: string | undefined,
): Promise<Principal | null> {
  if (op.auth === 'public') return null
  const principal = await authenticate(core.context, authorization)
  authorizeFor(op.auth, principal, params, origin)
  return principal
}

/** Runs an admitted request and turns its answer into the response: ETag and 304, 204 without a body. */
export async function dispatch(
  core: { readonly context: Context },
  op: Operation,
  principal: Principal | null,
  request: RawRequest,
): Promise<HostResponse> {
  const answer = await op.run(core.context, principal, request)
  const headers: Record<string, string> = { ...answer.headers }
  if (answer.etag) {
    // A browser keeps the body and revalidates it with If-None-Match by itself (private: it is one trip's).
    headers.etag = answer.etag
    headers['cache-control'] = 'private, no-cache'
    if (matchesEtag(request.header('if-none-match'), answer.etag)) return { status: 304, headers, body: null }
  }
  if (answer.status === 204) return { status: 204, headers, body: null }
  if (answer.body instanceof EventStream) {
    // no-transform and X-Accel-Buffering: proxies must neither compress nor hold back the events.
    Object.assign(headers, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    })
    return { status: answer.status, headers, body: answer.body }
  }
  headers['content-type'] = JSON_CONTENT_TYPE
  return {
    status: answer.status,
    headers,
    body:
      answer.body instanceof Rendered
        ? answer.body
        : answer.body instanceof Serialized
          ? answer.body.json
          : JSON.stringify(answer.body),
  }
}

/** Whether an If-None-Match header names `etag` (weak comparison, RFC 9110 §13.1.2; `*` matches any). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  const bare = (t: string) => t.trim().replace(/^W\//, '')
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || bare(t) === bare(etag))
}
