/**
 * The one error type of the core. Hosts (Fastify, MSW) turn it into an RFC 9457 problem+json response,
 * so the server and the sandbox answer a bad request with the same status, code and wording.
 */
export const ERROR_CODES = {
  validation_error: { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  token_expired: { status: 401, title: 'Token expired' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request timeout' },
  trip_state_conflict: { status: 409, title: 'Trip state conflict' },
  idempotency_in_progress: { status: 409, title: 'Request in progress' },
  basket_not_valid: { status: 409, title: 'Basket not valid' },
  basket_rule_violation: { status: 409, title: 'Basket rule violated' },
  product_unavailable: { status: 409, title: 'Product unavailable' },
  item_ordered: { status: 409, title: 'Item already ordered' },
  not_cancellable: { status: 409, title: 'Not cancellable' },
  quote_expired: { status: 409, title: 'Cancellation quote expired' },
  supplier_not_configured: { status: 409, title: 'Supplier not configured' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_conflict: { status: 422, title: 'Idempotency key reused' },
  rate_limited: { status: 429, title: 'Too many requests' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  internal: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const

export type ErrorCode = keyof typeof ERROR_CODES

export interface FieldError { path: string; message: string }

export class ProblemError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly errors: FieldError[] | undefined
  /** Response headers that go with the problem (`Retry-After` on `idempotency_in_progress`). */
  readonly headers: Record<string, string> | undefined

  constructor(code: ErrorCode, detail: string, errors?: FieldError[], headers?: Record<string, string>) {
    super(detail)
    this.name = 'ProblemError'
    this.code = code
    this.status = ERROR_CODES[code].status
    this.errors = errors
    this.headers = headers
  }
}

export const isProblemError = (e: unknown): e is ProblemError =>
  e instanceof ProblemError ||
  // A second copy of the core module (a linked package, or a bundle next to one) would defeat instanceof.
  (e instanceof Error && e.name === 'ProblemError' && 'code' in e && String(e.code) in ERROR_CODES)

export const problemTypeUri = (code: ErrorCode) => `https://docs.svc.example/problems/${code.replaceAll('_', '-')}`

/** The problem+json body for an error; 5xx never carry the internal message. */
export function toProblem(err: ProblemError, requestId?: string) {
  const internal = err.status >= 500
  return {
    type: problemTypeUri(err.code),
    title: ERROR_CODES[err.code].title,
    status: err.status,
    detail: internal ? 'The service could not complete the request. Try again later.' : err.message,
    code: err.code,
    ...(err.errors && !internal ? { errors: err.errors } : {}),
    ...(requestId ? { request_id: requestId } : {}),
  }
}

export const invalid = (path: string, message: string) =>
  new ProblemError('validation_error', `${path}: ${message}`, [{ path, message }])
