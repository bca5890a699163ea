/**
 * The calls to this shop's own backend (/demo/api/..., ../backend.ts), which holds the API key: the page
 * only ever gets a trip id and short-lived access tokens. A refusal (problem+json) becomes a ProblemError.
 */
import type {
  Basket,
  CancelResult,
  DemoTrip,
  Expected,
  PayResult,
  Problem,
  Quote,
  Scenario,
  ShownQuote,
  TravellerForm,
} from './types.ts'

const API = '/demo/api'

export class ProblemError extends Error {
  readonly problem: Problem

  constructor(problem: Problem) {
    super(problem.detail || problem.title || 'Something went wrong.')
    this.problem = problem
  }
}

/** The refusal an error carries, if it is one (a ProblemError). */
export const problemIn = (err: unknown): Problem | undefined => (err instanceof ProblemError ? err.problem : undefined)

/** Calls this shop's backend; a refusal (problem+json) becomes a ProblemError. */
async function backend<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response
  try {
    res = await fetch(`${API}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    })
  } catch {
    throw new ProblemError({
      code: 'network',
      detail: 'The shop could not be reached. Check your connection and try again.',
    })
  }
  const data = await res.json().catch(() => ({}))
  if (!res.ok) throw new ProblemError({ status: res.status, ...data })
  return data as T
}

const checkout = (tripId: string) => `/checkout/${tripId}`

/** A new trip for the scenario, with its first access token. */
export const startTrip = (scenario: Scenario) =>
  backend<{ trip: DemoTrip; trip_access_token: string }>('POST', '/checkout', { scenario })

/** The trip as the API has it now: tickets, orders, basket. */
export const tripStatus = (tripId: string) => backend<DemoTrip>('GET', `${checkout(tripId)}/status`)

/** A fresh access token for the SDK; the backend keeps the refresh token. */
export const accessToken = (tripId: string) =>
  backend<{ trip_access_token: string }>('POST', `${checkout(tripId)}/token`)

export const savePassengers = (tripId: string, form: TravellerForm) =>
  backend<DemoTrip>('PATCH', `${checkout(tripId)}/passengers`, form)

/** Checks the basket with the airline, charges what the page showed, and has the extras booked. */
export const pay = (tripId: string, expected: Expected) =>
  backend<PayResult>('POST', `${checkout(tripId)}/pay`, { expected })

export const acceptPrice = (tripId: string, itemId: string) =>
  backend<{ basket: Basket }>('POST', `${checkout(tripId)}/accept/${itemId}`)

export const removeItem = (tripId: string, itemId: string) =>
  backend<{ basket: Basket }>('DELETE', `${checkout(tripId)}/item/${itemId}`)

/** The airline's quote for cancelling ordered extras. */
export const quoteCancellation = (tripId: string, basketItemIds: string[]) =>
  backend<Quote>('POST', `${checkout(tripId)}/cancellation`, { basket_item_ids: basketItemIds })

/** Confirms the quote the traveller saw, never another. */
export const confirmCancellation = (tripId: string, expected: ShownQuote) =>
  backend<CancelResult>('POST', `${checkout(tripId)}/cancellation/confirm`, { expected })

/** Pays for the extras added since the booking, as `pay` does for the booking. */
export const payNewExtras = (tripId: string, expected: Expected) =>
  backend<PayResult>('POST', `${checkout(tripId)}/extras/pay`, { expected })
