/** The SDK's one error type: a fixed set of codes a seller can switch on. */
export type SvcErrorCode =
  | 'invalid_options' // init/showUpsell called with missing or wrong options
  | 'not_initialized' // showUpsell before init resolved
  | 'container_not_found' // no element with the container id
  | 'unauthorized' // the access token is invalid, or expired and could not be renewed
  | 'not_found' // the trip does not exist (for this token)
  | 'rejected' // the API refused a change (its problem `code` is in `apiCode`)
  | 'network' // the API could not be reached
  | 'no_products' // nothing of the allowed products is offered on this trip
  | 'offers_unavailable' // the airline's search failed (`apiCode`: its failure_reason, e.g. supplier_timeout)
  | 'internal'

export class SvcError extends Error {
  readonly code: SvcErrorCode
  /** The API's problem code (`basket_rule_violation`, ...) when the API refused. */
  readonly apiCode: string | undefined
  readonly status: number | undefined

  constructor(code: SvcErrorCode, message: string, opts: { apiCode?: string; status?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'SvcError'
    this.code = code
    this.apiCode = opts.apiCode
    this.status = opts.status
  }
}

/** Anything thrown, as an SvcError (`internal` unless it is one). */
export function asSvcError(e: unknown): SvcError {
  return e instanceof SvcError ? e : new SvcError('internal', e instanceof Error ? e.message : String(e), { cause: e })
}

/** The stream could not be had at all (no streaming body, or the service has no event stream): poll instead. */
export class NoEventStream extends Error {}
