/**
 * The SDK's HTTP client for one trip: Bearer access token, renewed before it expires (by the refresh token
 * or the seller's `getAccessToken`), and API problems turned into `SvcError`s.
 */
import type { BasketChangeRequest } from '../core/schemas/basket.ts'
import type { ProductTypeName, SearchSelection } from '../core/schemas/trip.ts'
import type { BasketView, Search, TripEvent, TripView } from './types.ts'
import { NoEventStream, SvcError } from './errors.ts'

// Declared where the lazily loaded follower (./follow.ts) reads them too, so it never imports this module back.
export type { BasketView, TripEvent } from './types.ts'
export { NoEventStream } from './errors.ts'

export interface ClientOptions {
  baseUrl: string
  tripId: string
  accessToken: string
  refreshToken?: string
  getAccessToken?: () => Promise<string>
  /** Renew this long before the token expires. */
  renewAheadMs?: number
  fetch?: typeof fetch
  now?: () => number
}

/** `exp` of a JWT, read without verifying (the server verifies; we only plan the renewal). */
export function tokenExpiry(token: string): number | null {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number }
    return typeof payload.exp === 'number' ? payload.exp * 1000 : null
  } catch {
    return null
  }
}

export class ApiClient {
  readonly tripId: string
  #base: string
  #token: string
  #refresh: string | undefined
  #getAccessToken: (() => Promise<string>) | undefined
  #renewing: Promise<void> | null = null
  #ahead: number
  #fetch: typeof fetch
  #now: () => number

  constructor(o: ClientOptions) {
    this.tripId = o.tripId
    this.#base = o.baseUrl.replace(/\/$/, '')
    this.#token = o.accessToken
    this.#refresh = o.refreshToken
    this.#getAccessToken = o.getAccessToken
    this.#ahead = o.renewAheadMs ?? 60_000
    this.#fetch = o.fetch ?? ((...a) => fetch(...a))
    this.#now = o.now ?? Date.now
  }

  get accessToken() {
    return this.#token
  }

  getTrip() {
    return this.#call<TripView>('GET', '')
  }
  getBasket() {
    return this.#call<BasketView>('GET', '/basket')
  }
  startSearch(selection: SearchSelection) {
    return this.#call<{ search_id: string; status: string }>('POST', '/search', selection)
  }
  /** The search's offers; only those of `types` (seat maps only with `seat`) when given. */
  getSearch(searchId: string, types?: readonly ProductTypeName[]) {
    const only = types ? `?product_types=${types.join()}` : ''
    return this.#call<Search>('GET', `/search/${encodeURIComponent(searchId)}${only}`)
  }
  addToBasket(lines: BasketChangeRequest) {
    return this.#call<BasketView>('PATCH', '/basket', lines)
  }
  replaceBasket(lines: BasketChangeRequest) {
    return this.#call<BasketView>('PUT', '/basket', lines)
  }
  removeItem(itemId: string) {
    return this.#call<BasketView>('DELETE', `/basket/${encodeURIComponent(itemId)}`)
  }
  acceptItem(itemId: string) {
    return this.#call<BasketView>('POST', `/basket/${encodeURIComponent(itemId)}/accept`)
  }
  checkBasket() {
    return this.#call<BasketView>('POST', '/basket/check')
  }

  /** Renews the access token when it is about to expire; concurrent callers share one renewal. */
  async ensureFreshToken(): Promise<void> {
    const exp = tokenExpiry(this.#token)
    if (exp === null || exp - this.#now() > this.#ahead) return
    if (!this.#refresh && !this.#getAccessToken) return
    return this.#renewOnce()
  }

  /** One renewal at a time: concurrent callers share it. */
  #renewOnce(): Promise<void> {
    return (this.#renewing ??= this.#renew().finally(() => {
      this.#renewing = null
    }))
  }

  async #renew(): Promise<void> {
    if (this.#getAccessToken) {
      let token: unknown
      try {
        token = await this.#getAccessToken()
      } catch (cause) {
        // The seller's function failed: to the widget this is a token that could not be renewed.
        throw new SvcError('unauthorized', 'getAccessToken() failed, so the access token could not be renewed.', {
          cause,
        })
      }
      if (typeof token !== 'string' || token === '')
        throw new SvcError('unauthorized', 'getAccessToken() did not return a token.')
      this.#token = token
      return
    }
    const res = await this.#send('POST', `${this.#base}/v2.2/refresh_token`, { refresh_token: this.#refresh }, false)
    const body = (await res.json()) as { trip_access_token: string; refresh_token: string }
    this.#token = body.trip_access_token
    this.#refresh = body.refresh_token
  }

  /**
   * The trip's events as they come (docs/decisions.md "Live basket updates"), read with fetch streaming since
   * EventSource cannot send the Authorization header. Ends when the service ends the stream (the token
   * expired: the caller reconnects, with `lastEventId`) or `signal` aborts; throws NoEventStream when there
   * is no stream to be had (then poll), an SvcError when the request failed.
   */
  async *events(
    lastEventId: string | undefined,
    signal: AbortSignal,
    onRetry?: (ms: number) => void,
  ): AsyncGenerator<TripEvent> {
    const res = await this.#open(
      'GET',
      '/events',
      undefined,
      { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal,
    ).catch((e: unknown) => {
      // An older service (404, 405) or a proxy that refuses the type (406): the basket can still be polled
      // (a trip that is really gone fails those reads too, and says so).
      if (e instanceof SvcError && [404, 405, 406, 501].includes(e.status ?? 0)) throw new NoEventStream(e.message)
      throw e
    })
    if (!res.body || !/^text\/event-stream/.test(res.headers.get('content-type') ?? ''))
      throw new NoEventStream('The response is not an event stream.')
    // The reading comes with the following (./follow.ts), which a page loads only once it follows.
    yield* (await import('./follow.ts')).readEvents(res.body, signal, onRetry)
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await (await this.#open(method, path, body)).json()) as T
  }

  /** A request on the trip, its token renewed first when due, and once more when it expired anyway. */
  async #open(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<Response> {
    await this.ensureFreshToken()
    const url = `${this.#base}/v2.2/trip/${encodeURIComponent(this.tripId)}${path}`
    let res = await this.#send(method, url, body, true, headers, signal).catch((e: unknown) => e as SvcError)
    // A token that expired anyway (a sleeping laptop) is renewed once and the call retried.
    if (res instanceof SvcError && res.apiCode === 'token_expired' && (this.#refresh || this.#getAccessToken)) {
      await this.#renewOnce()
      res = await this.#send(method, url, body, true, headers, signal)
    }
    if (res instanceof SvcError) throw res
    return res
  }

  async #send(
    method: string,
    url: string,
    body: unknown,
    auth: boolean,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<Response> {
    let res: Response
    try {
      res = await this.#fetch(url, {
        method,
        headers: {
          ...headers,
          ...(auth ? { authorization: `Bearer ${this.#token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      })
    } catch (cause) {
      throw new SvcError('network', 'The ancillaries service could not be reached.', { cause })
    }
    if (res.ok) return res
    let problem: { code?: string; detail?: string } = {}
    try {
      problem = (await res.json()) as typeof problem
    } catch {
      /* not a problem body */
    }
    const code =
      res.status === 401
        ? 'unauthorized'
        : res.status === 404
          ? 'not_found'
          : res.status >= 500
            ? 'internal'
            : 'rejected'
    throw new SvcError(code, problem.detail ?? `The service answered ${res.status}.`, {
      apiCode: problem.code,
      status: res.status,
    })
  }
}
