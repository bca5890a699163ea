/**
 * How a supplier call fails, whatever the supplier: the reason a seller sees (a search's `failure_reason`,
 * an order's), and whether asking again later may succeed (the jobs retry those with backoff).
 */

/** The reasons a supplier call fails, as `failure_reason` shows them (docs/decisions.md "Searching a remote supplier"). */
export const SUPPLIER_FAILURES = {
  /** The supplier did not answer within SUPPLIER_TIMEOUT_MS. */
  supplier_timeout: { retryable: true },
  /** The supplier is down, overloaded (5xx, 429) or unreachable. */
  supplier_unavailable: { retryable: true },
  /** The supplier refused the call: credentials wrong, revoked or of the wrong mode, or a request it will never take. */
  supplier_refused: { retryable: false },
  /** What the trip names at the supplier (an offer, an order) does not exist there, or no longer. */
  not_found: { retryable: false },
  /** The trip's passengers or segments are not those of what it names at the supplier. */
  not_matched: { retryable: false },
  /** The seller has no credentials for its supplier. */
  supplier_not_configured: { retryable: false },
  /**
   * The supplier answered something the service will not read: not its documented shape, or past a limit
   * (an amount not positive, a map too large). Never a price the traveller sees (docs/decisions.md "A
   * supplier is an untrusted upstream").
   */
  supplier_invalid_answer: { retryable: false },
} as const

export type SupplierFailure = keyof typeof SUPPLIER_FAILURES

export class SupplierError extends Error {
  readonly reason: SupplierFailure
  /** Asking again later may succeed. */
  readonly retryable: boolean
  /** When the supplier said to come back (a 429's Retry-After), in ms from now. */
  readonly retryAfterMs: number | undefined

  /** The message starts with the reason, so that a job's stored last error still names it. */
  constructor(reason: SupplierFailure, message: string, opts: { retryAfterMs?: number } = {}) {
    super(`${reason}: ${message}`)
    this.name = 'SupplierError'
    this.reason = reason
    this.retryable = SUPPLIER_FAILURES[reason].retryable
    this.retryAfterMs = opts.retryAfterMs
  }
}

export const isSupplierError = (e: unknown): e is SupplierError => e instanceof SupplierError

/** The reason of a supplier failure: a SupplierError's, one named at the start of an error's message (a job's stored last error), else `supplier_unavailable`. */
export function supplierFailureOf(e: unknown): SupplierFailure {
  if (isSupplierError(e)) return e.reason
  const named = e instanceof Error ? /^(\w+):/.exec(e.message)?.[1] : undefined
  return named !== undefined && Object.hasOwn(SUPPLIER_FAILURES, named)
    ? (named as SupplierFailure)
    : 'supplier_unavailable'
}
