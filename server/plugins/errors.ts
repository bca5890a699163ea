/**
 * The one place errors become responses: every failure, ours or Fastify's, leaves as an RFC 9457
 * `application/problem+json` body made by the core's `toProblem`, carrying the request id. 5xx bodies
 * never carry internals; the details go to the log instead.
 */
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { ProblemError, isProblemError, toProblem, ERROR_CODES, type ErrorCode } from '../../core/shared/errors.ts'
import { PROBLEM_CONTENT_TYPE } from '../../core/api/dispatch.ts'
import { noRoute, paramTooLong } from '../../core/api/http-rules.ts'

/** Turns anything thrown during a request into the ProblemError the client will see. */
export function asProblemError(err: unknown): ProblemError {
  if (isProblemError(err)) return err
  const e = err as Partial<FastifyError> & { validation?: Array<{ instancePath?: string; message?: string }> }
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ProblemError('validation_error', 'The request body is not valid JSON.', [
        { path: '/', message: 'is not valid JSON' },
      ])
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProblemError('validation_error', 'The request body is empty.', [{ path: '/', message: 'is required' }])
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ProblemError('validation_error', 'The Content-Length header does not match the request body.')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError('payload_too_large', 'The request body is too large.')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ProblemError('unsupported_media_type', 'Send the request body as application/json.')
    // Raised by the router before any hook runs (see `frameworkErrors` in server/app.ts).
    case 'FST_ERR_BAD_URL':
      return new ProblemError(
        'validation_error',
        'The request path is not valid: a segment is not properly percent-encoded.',
      )
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return paramTooLong()
    default:
      break
  }
  if (Array.isArray(e?.validation)) {
    // Only reachable if a route bypasses our validator compiler; keep the same shape anyway.
    const errors = e.validation.map((v) => ({ path: v.instancePath || '/', message: v.message ?? 'is invalid' }))
    return new ProblemError('validation_error', 'The request is invalid.', errors)
  }
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500
  if (status >= 500) return new ProblemError('internal', 'Internal error')
  const code: ErrorCode =
    status === 404
      ? 'not_found'
      : status === 405
        ? 'method_not_allowed'
        : status === 413
          ? 'payload_too_large'
          : status === 415
            ? 'unsupported_media_type'
            : status === 429
              ? 'rate_limited'
              : status === 401
                ? 'unauthorized'
                : status === 403
                  ? 'forbidden'
                  : 'validation_error'
  return new ProblemError(code, ERROR_CODES[code].title + '.')
}

export function sendProblem(reply: FastifyReply, problem: ProblemError, requestId: string) {
  if (problem.headers) reply.headers(problem.headers)
  return reply.code(problem.status).header('content-type', PROBLEM_CONTENT_TYPE).send(toProblem(problem, requestId))
}

/**
 * Fastify's `frameworkErrors`: the router's own refusals (a badly percent-encoded path, a path parameter
 * over `maxParamLength`) happen before any hook, so without this they leave as Fastify's bare JSON (414
 * for a long parameter) with no request id. Found by the sandbox parity suite.
 */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', req.id)
  req.log.info({ code: err.code }, 'request rejected')
  return sendProblem(reply, asProblemError(err), req.id)
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before there is a request (headers over
 * its limit, a timeout, bytes that are not HTTP) would otherwise leave as Fastify's bare JSON with no
 * request id. There is no request to take an id from, so the answer makes one, and the log line has it.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const problem =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ProblemError(
          'headers_too_large',
          'The request headers are too large (16 KiB together at most, unless the server was started with another --max-http-header-size).',
        )
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ProblemError('request_timeout', 'The request was not received in time.')
        : new ProblemError('validation_error', 'The request is not valid HTTP/1.1.')
  const requestId = randomUUID()
  this.log.info({ request_id: requestId, code: err.code }, 'request rejected by the HTTP parser')
  if (socket.writable) {
    const body = JSON.stringify(toProblem(problem, requestId))
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nConnection: close\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n\r\n${body}`,
    )
  }
  socket.destroy(err)
}

/** Route patterns seen so far, so an unknown method on a known path can answer 405 with `Allow`. */
interface KnownRoute {
  pattern: RegExp
  methods: Set<string>
}

function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((part) => {
      if (part.startsWith(':')) return '[^/]+'
      if (part === '*') return '.*'
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('/')
  return new RegExp(`^${source}$`)
}

export interface ErrorsPluginOptions {
  /** Rate-limits the not-found handler too, so probing unknown paths is not free. */
  notFoundPreHandler?: preHandlerAsyncHookHandler
}

export const errorsPlugin = fp<ErrorsPluginOptions>(
  async (app, opts) => {
    const known = new Map<string, KnownRoute>()
    app.addHook('onRoute', (route) => {
      // The CORS plugin's catch-all OPTIONS route would make every path look known.
      if (route.url === '*' || route.url === '/*') return
      const methods = Array.isArray(route.method) ? route.method : [route.method]
      const entry = known.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() }
      for (const m of methods) entry.methods.add(m.toUpperCase())
      known.set(route.url, entry)
    })

    app.setErrorHandler((err, req, reply) => {
      const problem = asProblemError(err)
      if (problem.status >= 500) {
        req.log.error({ err, code: problem.code }, 'request failed')
      } else {
        req.log.info({ code: problem.code, status: problem.status }, 'request rejected')
      }
      return sendProblem(reply, problem, req.id)
    })

    const notFound = async (req: FastifyRequest, reply: FastifyReply) => {
      const path = (req.raw.url ?? '/').split('?')[0] ?? '/'
      const method = req.raw.method ?? 'GET'
      // The CORS plugin hands a preflight to the not-found handler when it refused the origin.
      if (method === 'OPTIONS' && req.headers.origin && req.headers['access-control-request-method']) {
        return sendProblem(
          reply,
          new ProblemError('forbidden', 'This origin may not call the API from a browser.'),
          req.id,
        )
      }
      const { problem, allow } = noRoute(method, path, function* (shown) {
        for (const r of known.values()) if (r.pattern.test(shown)) yield* r.methods
      })
      if (allow) reply.header('allow', allow)
      return sendProblem(reply, problem, req.id)
    }
    if (opts.notFoundPreHandler) app.setNotFoundHandler({ preHandler: opts.notFoundPreHandler }, notFound)
    else app.setNotFoundHandler(notFound)
  },
  { name: 'svc-errors', fastify: '5.x' },
)
