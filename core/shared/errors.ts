/**
 * The one error type of the core. Hosts (Fastify, MSW) turn it into an RFC 9457 problem+json response,
 * so the server and the sandbox answer a bad request with the same status, code and wording.
 */
export const ERROR_CODES = {
  validation_error: {
    status: 400,
    title: 'Invalid request',
    meaning:
      'The request (its body, path, query string or a header) is not what the operation takes. `errors` names every bad field at once, as a JSON pointer with what is wrong with it.',
    action: 'Correct each field `errors` names and send the request again. docs/api.md lists what each field takes.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    meaning:
      'No credentials, or credentials the service does not accept: an unknown, expired or revoked API key, a token it did not sign, or a trip session revoked because its refresh token was used twice.',
    action:
      'Send the API key (HTTP Basic, the key as the user name) from your backend, or a valid Bearer token. A revoked session needs a new one: create the trip session again (POST /v2.2/trip, or POST /v2.2/authorize).',
  },
  token_expired: {
    status: 401,
    title: 'Token expired',
    meaning: 'The Bearer token (a trip access token, or a trip creation token) has passed its expiry.',
    action:
      'Renew it: POST /v2.2/refresh_token with the refresh token (the browser SDK does this by itself), or get a new creation token.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    meaning:
      'These credentials may not do this: an access token asking to fulfill (only your backend may), a creation token doing anything but create a trip, or a page on an origin the seller does not list.',
    action:
      "Call fulfillment and after-sale operations from your backend with the API key; add the page's origin to the seller (npm run seller -- update SELLER_ID --add-origin URL).",
  },
  seller_disabled: {
    status: 403,
    title: 'Seller disabled',
    meaning:
      'The seller these credentials belong to is disabled by the operator: every request made with its API keys, trip creation tokens and trip access tokens is refused until it is enabled again. Its keys and tokens are not revoked: they work again then (those that have not expired meanwhile).',
    action:
      'Ask the operator of the service why; they enable the seller again with npm run seller -- enable SELLER_ID. Retrying does not help meanwhile.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    meaning:
      "No such trip, search, basket item, order or route for this seller. Another seller's ids are not found either, so ids leak nothing.",
    action:
      "Check the id and the path. Unfulfilled trips are deleted after RETENTION_TRIP_DAYS, and searches after RETENTION_SEARCH_HOURS (a trip's current search is kept): create the trip, or search, again.",
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    meaning: 'The path exists, but not with this method. The Allow header lists the methods it takes.',
    action: 'Use one of the methods in Allow.',
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    meaning: 'The request was not received in time (the client sent its body too slowly).',
    action: 'Send the request again.',
  },
  trip_state_conflict: {
    status: 409,
    title: 'Trip state conflict',
    meaning:
      'The trip is not in the state the request assumes: a stale trip_state_hash (the trip changed since you read it), a trip already fulfilled, nothing left to fulfill, or a trip being changed by many requests at once.',
    action:
      'Read the basket again (GET .../basket), show the traveller the final price, then fulfill with its trip_state_hash. For the other cases, the detail says what the trip is.',
  },
  idempotency_in_progress: {
    status: 409,
    title: 'Request in progress',
    meaning:
      'A request with this Idempotency-Key is still being processed (or its process died and its lease has not lapsed yet).',
    action:
      "Wait as long as Retry-After says, then send the same request, with the same key and body, again: it is answered with the first request's answer, or run if that one never finished.",
  },
  basket_not_valid: {
    status: 409,
    title: 'Basket not valid',
    meaning:
      'An item not yet ordered is not `valid` (checking, price_changed, unavailable or invalid): it cannot be fulfilled. `errors` lists the items.',
    action:
      'Check the basket (POST .../basket/check) and wait for the check; let the traveller accept a new price (POST .../basket/{id}/accept) or remove what is gone; charge the new total; then fulfill.',
  },
  basket_rule_violation: {
    status: 409,
    title: 'Basket rule violated',
    meaning:
      "The change would break a basket rule: more than the product's limit, a second seat on a flight, a seat taken, a seat for a lap infant, removing the ticket, or accepting an item that has no new price.",
    action: 'Change the request: the detail names the rule and `errors` the field.',
  },
  product_unavailable: {
    status: 409,
    title: 'Product unavailable',
    meaning:
      'The product is not available to that passenger (not offered, sold out, not for their age or type), or a basket check found it gone.',
    action: 'Choose another product, or search again (POST .../search) for current offers.',
  },
  item_ordered: {
    status: 409,
    title: 'Item already ordered',
    meaning: 'The item was ordered by a fulfill: it is read-only in the basket.',
    action:
      'To undo a purchase, cancel it (POST .../to_cancel, then .../to_cancel/confirm). To buy more, add a new item.',
  },
  not_cancellable: {
    status: 409,
    title: 'Not cancellable',
    meaning:
      'The item cannot be cancelled: its order has not succeeded, the airline does not refund it now, or its order moved since the quote.',
    action: 'Ask for a new quote (POST .../to_cancel); the quote says per item whether it is cancellable and why not.',
  },
  quote_expired: {
    status: 409,
    title: 'Cancellation quote expired',
    meaning: 'The cancellation quote passed its quote_expires_at, or was used by another confirm.',
    action: 'Ask for a new quote (POST .../to_cancel), show it, then confirm it.',
  },
  supplier_not_configured: {
    status: 409,
    title: 'Supplier not configured',
    meaning:
      "The seller has no supplier it may sell from: a live seller is never sold the sandbox airline's simulated offers, and a real supplier needs the seller's own credentials of its mode.",
    action:
      'The operator configures one: npm run seller -- update SELLER_ID --supplier duffel --duffel-token - (docs/suppliers.md).',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    meaning: 'The request body is over 256 KiB.',
    action: 'Send less: no request of the API needs that much.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    meaning: 'The request body is not JSON (Content-Type application/json).',
    action: 'Send the body as JSON, with Content-Type: application/json.',
  },
  idempotency_conflict: {
    status: 422,
    title: 'Idempotency key reused',
    meaning:
      'This Idempotency-Key was used before with another request body. It is final: the key belongs to the first request.',
    action: 'Use a new key for a new request; to retry the first one, send exactly its body.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    meaning:
      'These credentials (or this address, without credentials) sent more than RATE_LIMIT_MAX requests in the window.',
    action:
      'Wait as long as Retry-After says; the RateLimit-* headers say how many are left and when the window resets.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request headers too large',
    meaning: 'The request headers are over 16 KiB together.',
    action: 'Send fewer or shorter headers (a large cookie is the usual cause).',
  },
  internal: {
    status: 500,
    title: 'Internal error',
    meaning: "The service failed. Nothing of the cause is shown; the request_id finds it in the service's logs.",
    action: 'Retry later; if it persists, report the request_id to the operator.',
  },
  unavailable: {
    status: 503,
    title: 'Service unavailable',
    meaning: 'The service, or what it needs (the database; the SDK bundle before npm run build), is not available now.',
    action: 'Retry later; the detail says what is missing.',
  },
} as const satisfies Record<string, { status: number; title: string; meaning: string; action: string }>

export type ErrorCode = keyof typeof ERROR_CODES

export interface FieldError {
  path: string
  message: string
}

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

/**
 * A problem's `type`: its entry in the error reference the service serves (GET /docs/errors), as a URI
 * reference relative to the service (RFC 9457 §3.1.1: it resolves against the URL the request was sent to).
 */
export const problemTypeUri = (code: ErrorCode) => `/docs/errors#${code}`

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
