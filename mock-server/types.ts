/**
 * The offline sandbox: the API of the real server, hosted by MSW over the same core (same operation
 * table, validation, errors, tokens and state hashes) with an in-memory store. In a browser it persists
 * the store (localStorage) so a reload keeps the trip; in node it lives as long as the test.
 */
import type { Clock, Ids } from '../core/ports/clock.ts'
import type { CoreConfig } from '../core/application/config.ts'
import type { TripCreateRequest } from '../core/schemas/trip.ts'
import type { WebhookEvent } from '../core/schemas/fulfillment.ts'
import type { SandboxSupplierOptions } from '../core/adapters/sandbox-airline/adapter.ts'

export interface SandboxOptions {
  /** Where the sandbox answers; handlers match any origin when omitted. */
  baseUrl?: string
  /** Persist the store under this key (browser); nothing is persisted when omitted. */
  storageKey?: string
  /** localStorage by default in a browser. */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>
  clock?: Clock
  ids?: Ids
  /** Run queued jobs (checks, fulfillment) on a timer; default true. Tests then call `runJobs()`. */
  autoRunJobs?: boolean
  /** Access/refresh lifetimes etc., as on the server. */
  config?: Partial<CoreConfig>
  /** The sandbox airline's options: which products change price on flight 9001, how long a 9004 check lasts… */
  supplier?: SandboxSupplierOptions
}

export interface SandboxTrip {
  tripId: string
  tripAccessToken: string
  refreshToken: string
}

/** A webhook the sandbox would have POSTed: it has no network, so deliveries are recorded (and count as answered 200). */
export interface SandboxDelivery {
  /** The subscription's target URL. */
  target: string
  /** The headers a receiver would get, `svc-signature` included (verifiable with the subscription's secret). */
  headers: Record<string, string>
  /** The raw body, as signed. */
  body: string
  event: WebhookEvent
  delivered_at: string
}

/**
 * A sandbox, with its MSW handlers typed `Handler`. This file imports nothing of msw: the SDK's declarations
 * (sdk/sandbox.ts: `Svc.sandbox`, `window.SvcSandbox`) name these types, and they are in every page's type
 * check, while msw is an optional peer of the package that a page without `./mock-server` does not install
 * (under `skipLibCheck: false` an import of it would fail there). So the handlers are `unknown` here, and
 * MSW's `HttpHandler` in the `Sandbox` of the `./mock-server` entry (index.ts), whose users install msw.
 */
export interface Sandbox<Handler = unknown> {
  /** MSW handlers for every endpoint of the API, for `setupServer(...handlers)` / `setupWorker(...handlers)`. */
  handlers: Handler[]
  /** A `fetch` that answers from the handlers in the page, with no service worker and no network. */
  fetch: typeof fetch
  /** The sandbox seller's API key (Basic auth), for backend-style tests. */
  apiKey: string
  /** Webhook deliveries so far, oldest first (in memory only; `reset()` empties it). */
  deliveries: SandboxDelivery[]
  /** Runs every job that is due now (what the timer does; tests with `autoRunJobs: false` call it), and persists the result. */
  runJobs(): Promise<number>
  /** Creates a trip as a seller backend would (a default itinerary when `request` is omitted). */
  createTrip(request?: Partial<TripCreateRequest> & { flight?: string }): Promise<SandboxTrip>
  /** Forgets every trip (and the persisted copy). */
  reset(): Promise<void>
  /** Stops the job timer. */
  dispose(): void
}
