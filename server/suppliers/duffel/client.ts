/**
 * The few calls of Duffel's API (api.duffel.com, version v2) the adapter makes, over fetch: the base URL
 * is DUFFEL_API_URL (tests point it at a fake on loopback), every call has a time-out (SUPPLIER_TIMEOUT_MS),
 * the seller's token goes in the Authorization header and nowhere else (never in an error or a log line).
 *
 * Duffel's answers are `{ data }`; its refusals are its error envelope `{ errors: [{ type, code, title,
 * message }], meta: { request_id, status } }`, which become a `DuffelError` with what the adapter needs to
 * map it to a reason (core/ports/supplier-errors.ts): the status, Duffel's code and its request id. A
 * gateway in front of Duffel may answer an HTML page instead (a 502, a 504): that is an error of that status
 * with no code. A 429 says when to come back in `Retry-After` (seconds, or an HTTP date) or in
 * `ratelimit-reset` (an HTTP date), whichever it gives.
 *
 * The official client (@duffel/api) is used for its types only: it takes its token once per client and has
 * no time-out of its own, where every call here is one seller's with a bound on how long it may take.
 */
import { SupplierError } from '../../../core/ports/supplier-errors.ts'
import type { SupplierRequest } from '../../../core/ports/supplier.ts'

export const DUFFEL_API_VERSION = 'v2'

export interface DuffelClientOptions {
  /** e.g. https://api.duffel.com */
  baseUrl: string
  /** Every call is aborted after this long: a search then fails with `supplier_timeout`, a booking is `unknown`. */
  timeoutMs: number
  /**
   * The most bytes of an answer read (SUPPLIER_MAX_RESPONSE_BYTES, default 5 MiB), decompressed: the body is
   * read as it streams in and dropped at the limit, a `supplier_invalid_answer` (not retried: the same
   * answer would come again).
   */
  maxResponseBytes?: number
}

export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024

/** The body as text, read as it streams in; past `max` bytes the rest is not read, and the answer is refused. */
async function readCapped(res: Response, max: number, what: string): Promise<string> {
  const declared = Number(res.headers.get('content-length'))
  if (declared > max) {
    await res.body?.cancel()
    throw new SupplierError(
      'supplier_invalid_answer',
      `Duffel's answer to ${what} is ${declared} bytes, over the ${max} read`,
    )
  }
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel()
      throw new SupplierError('supplier_invalid_answer', `Duffel's answer to ${what} is over the ${max} bytes read`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** A refusal of Duffel's, as its error envelope said it (or an error page's status, with code `http_<status>`). */
export class DuffelError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message)
    this.name = 'DuffelError'
  }
}

/** A call that may or may not have reached Duffel: it timed out, or the connection broke before an answer. */
export class DuffelNoAnswer extends Error {
  constructor(
    readonly timedOut: boolean,
    message: string,
  ) {
    super(message)
    this.name = 'DuffelNoAnswer'
  }
}

export interface DuffelClient {
  /** `observe` is told of the request once it ended (core/ports/supplier.ts SupplierContext.observe). */
  get(token: string, path: string, observe?: (r: SupplierRequest) => void): Promise<unknown>
  post(token: string, path: string, data: unknown, observe?: (r: SupplierRequest) => void): Promise<unknown>
}

/** `client`, telling `observe` of each request it sends (none told without it). */
export function observed(client: DuffelClient, observe: ((r: SupplierRequest) => void) | undefined): DuffelClient {
  if (!observe) return client
  return {
    get: (token, path) => client.get(token, path, observe),
    post: (token, path, data) => client.post(token, path, data, observe),
  }
}

/** What Duffel's text may say in a log line or a stored error: bounded, and nothing shaped like a token or a key. */
export function redact(text: string): string {
  return text
    .replace(/(bearer\s+)?\b(duffel_(test|live)_|svc_)[\w-]+/gi, '[redacted]')
    .replace(/\p{Cc}+/gu, ' ')
    .slice(0, 200)
}

/** When a 429 (or a 503) says to come back: `Retry-After` (seconds or an HTTP date), else `ratelimit-reset` (an HTTP date). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  for (const name of ['retry-after', 'ratelimit-reset']) {
    const v = headers.get(name)?.trim()
    if (!v) continue
    const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now
    if (Number.isFinite(ms)) return Math.max(0, ms)
  }
  return undefined
}

export function createDuffelClient(opts: DuffelClientOptions): DuffelClient {
  const base = opts.baseUrl.replace(/\/+$/, '')
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  /**
   * A request, and what observe is told of it: its path without the query (an id Duffel may read is fine
   * in a log; a query is the caller's), its status, its time, Duffel's request id, and `ok` or the reason.
   */
  async function call(
    token: string,
    method: 'GET' | 'POST',
    path: string,
    data: unknown,
    observe: ((r: SupplierRequest) => void) | undefined,
  ): Promise<unknown> {
    if (!observe) return send(token, method, path, data, () => {})
    const started = performance.now()
    let status: number | null = null
    let requestId: string | undefined
    const seen = (res: Response) => {
      status = res.status
      requestId = res.headers.get('x-request-id')?.slice(0, 64) ?? undefined
    }
    const tell = (outcome: string) =>
      observe({
        method,
        path: path.split('?')[0]!,
        status,
        duration_ms: performance.now() - started,
        ...(requestId ? { request_id: redact(requestId) } : {}),
        outcome,
      })
    try {
      const answer = await send(token, method, path, data, seen)
      tell('ok')
      return answer
    } catch (e) {
      if (e instanceof DuffelError && e.requestId) requestId = e.requestId
      tell(supplierErrorOf(e).reason)
      throw e
    }
  }
  async function send(
    token: string,
    method: 'GET' | 'POST',
    path: string,
    data: unknown,
    seen: (res: Response) => void,
  ): Promise<unknown> {
    let res: Response
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'duffel-version': DUFFEL_API_VERSION,
          accept: 'application/json',
          ...(data === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(data === undefined ? {} : { body: JSON.stringify({ data }) }),
        // A redirect would carry the token, and a purchase's body, to wherever it points: Duffel sends none.
        redirect: 'manual',
        signal: AbortSignal.timeout(opts.timeoutMs),
      })
      seen(res)
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')
      throw new DuffelNoAnswer(
        timedOut,
        timedOut
          ? `Duffel did not answer ${method} ${path} within ${opts.timeoutMs} ms`
          : `Duffel could not be reached for ${method} ${path}`,
      )
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel()
      throw new DuffelError(
        res.status,
        'redirect_refused',
        `Duffel answered ${method} ${path} with a redirect (${res.status}), which is not followed`,
        undefined,
        undefined,
      )
    }
    let body: unknown
    try {
      body = JSON.parse(await readCapped(res, maxBytes, `${method} ${path}`))
    } catch (e) {
      if (e instanceof SupplierError) throw e
      // A body cut short after the headers: whatever Duffel did, the answer is lost.
      if (res.ok) throw new DuffelNoAnswer(false, `Duffel's answer to ${method} ${path} was cut short or is not JSON`)
      body = undefined
    }
    if (res.ok && body && typeof body === 'object' && 'data' in body) return (body as { data: unknown }).data
    if (res.ok) throw new SupplierError('supplier_invalid_answer', `Duffel's answer to ${method} ${path} has no data`)
    const envelope = body as
      | { errors?: Array<{ code?: unknown; title?: unknown; message?: unknown }>; meta?: { request_id?: unknown } }
      | undefined
    const first = Array.isArray(envelope?.errors) ? envelope.errors[0] : undefined
    const text = (v: unknown) => (typeof v === 'string' ? redact(v) : undefined)
    // What of Duffel's words may reach a log or the database: its code and request id (short), and 200
    // characters of its title and message, with anything shaped like a token taken out.
    const code = text(first?.code)?.slice(0, 64) ?? `http_${res.status}`
    const requestId = text(envelope?.meta?.request_id ?? res.headers.get('x-request-id'))?.slice(0, 64)
    const said = redact(
      [
        typeof first?.title === 'string' ? first.title : res.statusText,
        typeof first?.message === 'string' ? first.message : '',
      ]
        .filter(Boolean)
        .join(': '),
    )
    throw new DuffelError(
      res.status,
      code,
      `Duffel refused ${method} ${path}: ${res.status} ${code}${said ? ` (${said})` : ''}`,
      requestId,
      retryAfterMs(res.headers),
    )
  }
  return {
    get: (token, path, observe) => call(token, 'GET', path, undefined, observe),
    post: (token, path, data, observe) => call(token, 'POST', path, data, observe),
  }
}

/** Duffel codes that mean what a trip names there no longer exists to be sold (an expired or booked offer). */
const GONE = new Set(['offer_no_longer_available', 'offer_expired', 'not_found', 'order_not_found'])

/**
 * What a failed call means for a seller (core/ports/supplier-errors.ts): overload and outages may pass
 * (429, 5xx, `airline_error`, `airline_unknown`, error pages: retried with backoff, after the wait a 429
 * names), a refusal will not (a token Duffel does not know, a missing version header). The message keeps
 * Duffel's code and request id (for Duffel's support), never the token. Anything else thrown while reading
 * an answer (a shape no schema foresaw) is an answer not to be read, not an outage to retry.
 */
export function supplierErrorOf(e: unknown): SupplierError {
  if (e instanceof SupplierError) return e
  if (e instanceof DuffelNoAnswer)
    return new SupplierError(e.timedOut ? 'supplier_timeout' : 'supplier_unavailable', e.message)
  if (e instanceof DuffelError) {
    const said = `${e.message}${e.requestId ? ` [Duffel request ${e.requestId}]` : ''}`
    if (e.status === 429 || e.status >= 500 || e.code === 'airline_error' || e.code === 'airline_unknown') {
      return new SupplierError('supplier_unavailable', said, { retryAfterMs: e.retryAfterMs })
    }
    if (e.status === 404 || GONE.has(e.code)) return new SupplierError('not_found', said)
    return new SupplierError('supplier_refused', said)
  }
  return new SupplierError(
    'supplier_invalid_answer',
    `reading Duffel's answer failed: ${e instanceof Error ? e.message.slice(0, 200) : 'unknown error'}`,
  )
}
