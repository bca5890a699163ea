/**
 * The HTTP host of the core inside MSW. The request pipeline is the core's (core/api/dispatch.ts), as on
 * the server; this host does what Fastify does there, in the same order, so a request gets the same
 * status, headers and body from either. The order matters because one request can be wrong in several
 * ways at once:
 *
 *   route (404/405; a path segment badly encoded or over 256 characters: 400)
 *   → `admit`: credentials (401/403) → the body (415, 413, unparsable JSON: 400)
 *   → `dispatch`: path parameters, query and body against the operation's schemas (400), Idempotency-Key, the handler.
 *
 * What this host leaves out on purpose (docs/sandbox.md "What the sandbox does not copy"): rate limits,
 * CORS and per-seller origin checks, the docs, the OpenAPI document and the health probes.
 */
import { operations, type Operation } from '../core/api/operations.ts'
import { acceptableRequestId, admit, dispatch, PROBLEM_CONTENT_TYPE } from '../core/api/dispatch.ts'
import { isProblemError, ProblemError, toProblem } from '../core/shared/errors.ts'
import { parseJsonBody } from '../core/shared/json-body.ts'
import { EventStream } from '../core/shared/rendered.ts'
import type { Core } from '../core/core.ts'
import { BODY_LIMIT, MAX_PARAM_LENGTH, noRoute, paramTooLong } from '../core/api/http-rules.ts'

const BODYLESS = new Set(['GET', 'HEAD'])

interface Route {
  op: Operation
  /** Matches the raw (still percent-encoded) path; a parameter may be empty, as in the server's router. */
  pattern: RegExp
  /** The same with non-empty parameters: the paths server/plugins/errors.ts knows when it answers 405. */
  known: RegExp
  names: string[]
  /** GET routes answer HEAD too, as Fastify's `exposeHeadRoutes` does. */
  methods: string[]
}

function compile(op: Operation): Route {
  const parts = op.path.split('/')
  const names = parts.filter((part) => part.startsWith(':')).map((part) => part.slice(1))
  const source = (param: string) =>
    parts
      .map((part) => {
        if (part.startsWith(':')) return param
        return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      })
      .join('/')
  // Empty too: the server's router takes an empty segment as the parameter and its schema refuses it (400).
  const pattern = new RegExp(`^${source('([^/]*)')}$`)
  const known = new RegExp(`^${source('[^/]+')}$`)
  return { op, pattern, known, names, methods: op.method === 'GET' ? ['GET', 'HEAD'] : [op.method] }
}

export const routes: Route[] = operations.map(compile)

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

/**
 * What an MSW handler matches (origin and raw path, as MSW's "clean URL"), as a RegExp with no capturing
 * group: MSW decodes captured parameters with decodeURIComponent and fails the whole lookup with a 500
 * when one is badly encoded (`/v2.2/trip/%E0%A4%A`), where the server answers 400. This host decodes them
 * itself. `path` is an operation path (`:param` segments) or a prefix ending in `*`; `origin` is the base
 * URL, or undefined for any origin.
 */
export function handlerPattern(origin: string | undefined, path: string): RegExp {
  const host = origin === undefined ? '[a-z][a-z0-9+.-]*://[^/]+' : escape(origin)
  const rest = path
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : escape(part)))
    .join('/')
  return new RegExp(`^${host}${rest}$`)
}

/** A request id as the server makes one: the caller's when acceptable, else a fresh UUID. */
export function requestIdFor(request: Request): string {
  const incoming = request.headers.get('x-request-id')
  return acceptableRequestId(incoming) ? incoming : uuid()
}

/** A version 4 UUID from WebCrypto, in the page and in node. */
export function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  // randomUUID needs a secure context in browsers; a page served over plain http from a LAN name has none.
  const b = crypto.getRandomValues(new Uint8Array(16))
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

function problemResponse(
  err: unknown,
  requestId: string,
  method: string,
  extra: Record<string, string> = {},
): Response {
  let problem: ProblemError
  if (isProblemError(err)) {
    problem = err
  } else {
    // The server logs the cause and answers 500 without it; in the sandbox the console is the log.
    console.error('[svc sandbox] request failed', err)
    problem = new ProblemError('internal', 'Internal error')
  }
  const headers = { 'x-request-id': requestId, ...extra, ...problem.headers, 'content-type': PROBLEM_CONTENT_TYPE }
  return new Response(method === 'HEAD' ? null : JSON.stringify(toProblem(problem, requestId)), {
    status: problem.status,
    headers,
  })
}

/** Fastify's answer for a path no route takes (core/api/http-rules.ts). */
function notFound(method: string, path: string, requestId: string): Response {
  const { problem, allow } = noRoute(method, path, function* (shown) {
    for (const r of routes) if (r.known.test(shown)) yield* r.methods
  })
  return problemResponse(problem, requestId, method, allow ? { allow } : {})
}

/** The body as server/plugins/validation.ts reads it: JSON only, an empty body is no body. */
async function readBody(request: Request): Promise<unknown> {
  const contentType = request.headers.get('content-type')
  const bytes = new Uint8Array(await request.arrayBuffer())
  if (contentType === null) {
    if (bytes.length === 0) return undefined
    throw new ProblemError('unsupported_media_type', 'Send the request body as application/json.')
  }
  const mediaType = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase()
  if (mediaType !== 'application/json')
    throw new ProblemError('unsupported_media_type', 'Send the request body as application/json.')
  if (bytes.length > BODY_LIMIT) throw new ProblemError('payload_too_large', 'The request body is too large.')
  return parseJsonBody(bytes)
}

/** The path parameters, decoded as the server's router decodes them; refused as the server refuses them. */
function paramsOf(route: Route, match: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {}
  route.names.forEach((name, i) => {
    let value: string
    try {
      value = decodeURIComponent(match[i + 1]!)
    } catch {
      throw new ProblemError(
        'validation_error',
        'The request path is not valid: a segment is not properly percent-encoded.',
      )
    }
    if (value.length > MAX_PARAM_LENGTH) throw paramTooLong()
    params[name] = value
  })
  return params
}

/** The query as Fastify's parser (fast-querystring) gives it: a repeated name is an array, which a string schema refuses. */
function queryOf(search: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.create(null)
  for (const [name, value] of search) {
    const seen = query[name]
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]
  }
  return query
}

export interface Host {
  /**
   * Answers a request for the API, or undefined when it is not one (the path is not under /v2.2/, or
   * `only` is given and does not match it). `only` lets each MSW handler answer for its own operation.
   */
  handle(request: Request, only?: Operation): Promise<Response | undefined>
}

export interface HostOptions {
  core: Core
  /** Called after every request that may have changed something (any method but GET and HEAD). */
  changed?: () => void
}

export function createHost({ core, changed }: HostOptions): Host {
  async function run(
    route: Route,
    match: RegExpExecArray,
    request: Request,
    method: string,
    requestId: string,
  ): Promise<Response> {
    const { op } = route
    const params = paramsOf(route, match)
    // No origin: the sandbox answers any page (it has no CORS to enforce, see docs/sandbox.md).
    const principal = await admit(core, op, request.headers.get('authorization') ?? undefined, params, undefined)
    const body = BODYLESS.has(method) ? undefined : await readBody(request)
    const query = queryOf(new URL(request.url).searchParams)
    const res = await dispatch(core, op, principal, {
      params,
      query,
      header: (name) => request.headers.get(name) ?? undefined,
      body,
    })
    const headers = { 'x-request-id': requestId, ...res.headers }
    if (res.body instanceof EventStream)
      return new Response(method === 'HEAD' ? null : eventBody(res.body, request.signal), {
        status: res.status,
        headers,
      })
    const text = method === 'HEAD' || res.body === null ? null : typeof res.body === 'string' ? res.body : res.body.json
    return new Response(text, { status: res.status, headers })
  }

  return {
    async handle(request, only) {
      const url = new URL(request.url)
      const path = url.pathname
      if (!path.startsWith('/v2.2/')) return undefined
      const method = request.method.toUpperCase()
      let found: { route: Route; match: RegExpExecArray } | undefined
      for (const route of routes) {
        if (only && route.op !== only) continue
        if (!route.methods.includes(method)) continue
        const match = route.pattern.exec(path)
        if (match) {
          found = { route, match }
          break
        }
      }
      if (!found && only) return undefined // the catch-all handler answers
      const requestId = requestIdFor(request)
      try {
        if (!found) return notFound(method, path, requestId)
        return await run(found.route, found.match, request, method, requestId)
      } catch (e) {
        return problemResponse(e, requestId, method)
      } finally {
        // Refused requests can change state too (a reused refresh token revokes its family).
        if (!BODYLESS.has(method) && found) changed?.()
      }
    },
  }
}

/** An event stream as a response body: each event is pulled as the client reads, and ends when it cancels or aborts. */
function eventBody(events: EventStream, requestSignal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const abort = new AbortController()
  requestSignal?.addEventListener('abort', () => abort.abort(), { once: true })
  const iterator = events.open(abort.signal)[Symbol.asyncIterator]()
  const encoder = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await iterator.next()
      if (done) controller.close()
      else controller.enqueue(encoder.encode(value))
    },
    cancel() {
      abort.abort()
    },
  })
}
