/**
 * The few calls of Duffel's API (api.duffel.com, version v2) the adapter makes, over fetch: the base URL
 * is DUFFEL_API_URL (tests point it at a fake on loopback), every call has a time-out (SUPPLIER_TIMEOUT_MS),
 * the seller's token goes in the Authorization header and nowhere else (never in an error or a log line).
 *
 * Duffel's answers are `{ data }`; its refusals are its error envelope `{ errors: [{ type, code, title,
 * message }], meta: { request_id, status } }`, which become a `DuffelError` with what the adapter needs to
 * map it to a reason (core/ports/supplier-errors.ts): the status, Duffel's code and its request id.
 *
 * The official client (@duffel/api) is used for its types only: it takes its token once per client and has
 * no time-out of its own, where every call here is one seller's with a bound on how long it may take.
 */
import type { ApiResponseError } from './types.ts'
import { SupplierError } from '../../../core/ports/supplier-errors.ts'

export const DUFFEL_API_VERSION = 'v2'

export interface DuffelClientOptions {
  /** e.g. https://api.duffel.com */
  baseUrl: string
  /** Every call is aborted after this long: a search then fails with `supplier_timeout`, a booking is `unknown`. */
  timeoutMs: number
}

/** A refusal of Duffel's, as its error envelope said it. */
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
  constructor(readonly timedOut: boolean, message: string) {
    super(message)
    this.name = 'DuffelNoAnswer'
  }
}

export interface DuffelClient {
  get<T>(token: string, path: string): Promise<T>
  post<T>(token: string, path: string, data: unknown): Promise<T>
}

export function createDuffelClient(opts: DuffelClientOptions): DuffelClient {
  const base = opts.baseUrl.replace(/\/+$/, '')
  async function call<T>(token: string, method: 'GET' | 'POST', path: string, data?: unknown): Promise<T> {
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
        signal: AbortSignal.timeout(opts.timeoutMs),
      })
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')
      throw new DuffelNoAnswer(timedOut, timedOut ? `Duffel did not answer ${method} ${path} within ${opts.timeoutMs} ms` : `Duffel could not be reached for ${method} ${path}`)
    }
    let body: unknown
    try {
      body = await res.json()
    } catch {
      // A body cut short after the headers: whatever Duffel did, the answer is lost.
      if (res.ok) throw new DuffelNoAnswer(false, `Duffel's answer to ${method} ${path} was cut short`)
      body = undefined
    }
    if (res.ok && body && typeof body === 'object' && 'data' in body) return (body as { data: T }).data
    const envelope = body as { errors?: ApiResponseError[]; meta?: { request_id?: string } } | undefined
    const first = envelope?.errors?.[0]
    const retryAfter = Number(res.headers.get('retry-after'))
    throw new DuffelError(
      res.status, first?.code ?? `http_${res.status}`,
      `Duffel refused ${method} ${path}: ${res.status} ${first?.title ?? res.statusText}${first?.message ? ` (${first.message})` : ''}`,
      envelope?.meta?.request_id, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
    )
  }
  return {
    get: (token, path) => call(token, 'GET', path),
    post: (token, path, data) => call(token, 'POST', path, data),
  }
}

/** Duffel codes that mean what a trip names there no longer exists to be sold (an expired or booked offer). */
const GONE = new Set(['offer_no_longer_available', 'offer_expired', 'not_found', 'order_not_found'])

/**
 * What a failed call means for a seller (core/ports/supplier-errors.ts): overload and outages may pass (retried
 * with backoff), a refusal will not. The message keeps Duffel's request id (for Duffel's support), never the token.
 */
export function supplierErrorOf(e: unknown): SupplierError {
  if (e instanceof SupplierError) return e
  if (e instanceof DuffelNoAnswer) return new SupplierError(e.timedOut ? 'supplier_timeout' : 'supplier_unavailable', e.message)
  if (e instanceof DuffelError) {
    const said = `${e.message}${e.requestId ? ` [Duffel request ${e.requestId}]` : ''}`
    if (e.status === 429 || e.status >= 500) return new SupplierError('supplier_unavailable', said, { retryAfterMs: e.retryAfterMs })
    if (e.status === 404 || GONE.has(e.code)) return new SupplierError('not_found', said)
    return new SupplierError('supplier_refused', said)
  }
  return new SupplierError('supplier_unavailable', e instanceof Error ? e.message : String(e))
}
