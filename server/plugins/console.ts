/**
 * The operator console (`/console`): the page `npm run build:console` writes to dist/console/ (the Lit
 * elements of console/), and its sessions. An operator signs in with an operator key once
 * (`POST /console/session`, the key in a JSON body); the answer sets an HttpOnly, SameSite=Strict cookie
 * holding only the session's secret (core/application/console-sessions.ts), and gives the page the CSRF
 * token its writes carry as `X-CSRF-Token`. The admin API (server/admin/routes.ts) then takes that cookie
 * instead of `Authorization: Bearer`, with the key's limits. The key never reaches the cookie or the page.
 *
 * The page is served by the service itself (no CDN: it works offline) under a strict CSP: scripts and styles
 * of this origin only (Lit's styles are constructed stylesheets, which CSP does not block), never framed.
 * Deep links (`/console/trips/…`) answer the same HTML; the page routes with the history API.
 */
import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Core } from '../../core/core.ts'
import {
  CONSOLE_SESSION_MS,
  closeConsoleSession,
  consoleSession,
  openConsoleSession,
  type ConsoleSession,
} from '../../core/application/console-sessions.ts'
import { ProblemError } from '../../core/shared/errors.ts'
import { ERROR_CODES, problemTypeUri } from '../../core/shared/errors.ts'
import { PROBLEM_CONTENT_TYPE } from '../../core/api/dispatch.ts'
import { packageDist } from './sdk-static.ts'

export const CONSOLE_COOKIE = 'svc_console'
export const CSRF_HEADER = 'x-csrf-token'

/** The page's policy: nothing but this origin's own script, styles and API; no plugin, no frame, no <base>. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/** The files of dist/console/assets/ the page loads: a name, never a path. */
const ASSET = /^[A-Za-z0-9_-]+\.js(\.map)?$/

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Operator console</title>
<script type="module" src="/console/assets/console.js"></script>
</head>
<body>
<svc-console></svc-console>
<noscript>The operator console needs JavaScript.</noscript>
</body>
</html>
`

export interface ConsolePluginOptions {
  core: Core
  /** The build output folder (holding console/assets/console.js); default `<repo>/dist`. */
  distDir?: string
}

/** The value of the cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined
  }
  return undefined
}

/** The console session a request's cookie names (401 when there is none, or it ended). */
export const sessionOf = (core: Core, req: FastifyRequest): Promise<ConsoleSession> =>
  consoleSession(core.context, readCookie(req.headers.cookie, CONSOLE_COOKIE))

/**
 * The cookie's attributes: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it),
 * Path=/ (the admin API is under /admin), Secure when the request came over https (as Fastify reads it:
 * the socket, or `X-Forwarded-Proto` from a proxy TRUST_PROXY names).
 */
function cookie(req: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = req.protocol === 'https' ? '; Secure' : ''
  return `${CONSOLE_COOKIE}=${value}; Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; SameSite=Strict${secure}`
}

/** Headers of every console answer: never framed, never sniffed, never cached by a shared cache. */
function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cross-origin-resource-policy', 'same-origin')
}

/** What the page may know of a session: who it acts as, its limits, its CSRF token and its end. */
const sessionBody = (s: ConsoleSession) => ({
  operator: { name: s.operator.name, seller_id: s.operator.seller_id, read_only: s.operator.read_only },
  csrf_token: s.csrf_token,
  expires_at: s.expires_at,
})

export async function consolePlugin(app: FastifyInstance, opts: ConsolePluginOptions) {
  const { core } = opts
  const dir = join(opts.distDir ?? packageDist(), 'console', 'assets')
  // Not in the OpenAPI document, outside the API's per-origin CORS (the page is same-origin only).
  const route = { schema: { hide: true }, config: { cors: false as const } }
  const files = { rateLimit: false as const, cors: false as const }

  const page = async (_req: FastifyRequest, reply: FastifyReply) =>
    pageHeaders(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(PAGE)
  app.get('/console', { ...route, config: files }, page)
  app.get('/console/*', { ...route, config: files }, page)

  const cache = new Map<string, { mtimeMs: number; body: Buffer; etag: string }>()
  app.get<{ Params: { file: string } }>('/console/assets/:file', { ...route, config: files }, async (req, reply) => {
    const name = req.params.file
    const path = join(dir, name)
    const st = ASSET.test(name) ? await stat(path).catch(() => null) : null
    if (!st?.isFile()) {
      if (name === 'console.js') return notBuilt(req, reply)
      throw new ProblemError('not_found', `There is no console asset ${name}.`)
    }
    let hit = cache.get(name)
    if (!hit || hit.mtimeMs !== st.mtimeMs) {
      const body = await readFile(path)
      hit = { mtimeMs: st.mtimeMs, body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` }
      cache.set(name, hit)
    }
    // Named by what they are, not their content: a browser asks again each time, and a 304 costs no body.
    pageHeaders(reply).header('cache-control', 'no-cache').header('etag', hit.etag)
    if (req.headers['if-none-match'] === hit.etag) return reply.code(304).send()
    return reply.type(name.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8').send(hit.body)
  })

  app.post('/console/session', route, async (req, reply) => {
    // Signing in is for the console's own page: a browser sends Origin with a POST, and another site's page
    // signing a visitor in with a key of its choosing (login CSRF) is refused here.
    const origin = req.headers.origin
    if (origin !== undefined && origin !== `${req.protocol}://${req.host}`)
      throw new ProblemError('forbidden', 'Sign in from the console itself (/console).')
    const body = req.body as { operator_key?: unknown } | undefined
    if (typeof body?.operator_key !== 'string' || body.operator_key.length === 0 || body.operator_key.length > 200)
      throw new ProblemError('validation_error', 'Send {"operator_key": "svc_op_…"} as JSON.')
    const { secret, session } = await openConsoleSession(core.context, body.operator_key)
    return pageHeaders(reply)
      .header('cache-control', 'no-store')
      .header('set-cookie', cookie(req, secret, CONSOLE_SESSION_MS / 1000))
      .code(201)
      .send(sessionBody(session))
  })

  app.get('/console/session', route, async (req, reply) => {
    const session = await sessionOf(core, req)
    return pageHeaders(reply).header('cache-control', 'no-store').send(sessionBody(session))
  })

  // Signing out needs no CSRF token: another site making the browser sign out does no harm, and SameSite
  // keeps the cookie from its requests anyway.
  app.delete('/console/session', route, async (req, reply) => {
    await closeConsoleSession(core.context, readCookie(req.headers.cookie, CONSOLE_COOKIE))
    return pageHeaders(reply)
      .header('cache-control', 'no-store')
      .header('set-cookie', cookie(req, '', 0))
      .code(204)
      .send()
  })
}

function notBuilt(req: FastifyRequest, reply: FastifyReply) {
  req.log.warn('operator console requested but not built')
  return pageHeaders(reply)
    .code(503)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .header('cache-control', 'no-store')
    .send({
      type: problemTypeUri('unavailable'),
      title: ERROR_CODES.unavailable.title,
      status: 503,
      detail: 'The operator console is not built on this server: run `npm run build` (or `npm run build:console`).',
      code: 'unavailable',
      request_id: req.id,
    })
}
