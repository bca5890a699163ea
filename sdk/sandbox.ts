/**
 * Sandbox mode's hook in the SDK: `Svc.init({ sandbox: true })` and `Svc.sandbox`. Only the loader is
 * here (it is in svc.min.js, so it stays a few hundred bytes): the sandbox itself (msw, mock-server,
 * core, the airport and locale tables) is `svc-sandbox.min.js`, fetched from the SDK's own folder by a
 * `<script>` tag the first time sandbox mode is asked for (a tag works from a page opened from disk and
 * under a CSP that allows the SDK's origin), unless the page loaded it already. Without `sandbox: true`
 * nothing of it is loaded.
 *
 * The hand-over is `window.SvcSandbox.connect(hooks)` (sdk/sandbox-host.ts): the sandbox registers its
 * locale tables with this SDK's i18n (so no locale file is fetched) and answers `open`, which names the
 * trip to show and a `fetch` that the handlers answer in the page (no service worker, no network).
 */
import type { Sandbox, SandboxOptions, SandboxTrip } from '../mock-server/types.ts'
import type { TripCreateRequest } from '../core/schemas/trip.ts'
import type { Strings } from '../components/i18n/index.ts'
import type { Session } from '../client/session.ts'
import { SvcError } from '../client/errors.ts'

/** The sandbox bundle's file, beside svc.min.js. */
export const SANDBOX_FILE = 'svc-sandbox.min.js'

/** What `Svc.sandbox.createTrip` takes: a trip request's parts, and `flight` for the test scenarios. */
export type SandboxTripRequest = Partial<TripCreateRequest> & {
  /** marketing_flight_number of every segment: `9001` price change, `9002` unavailable, `9003` fulfillment fails, `9004` slow check. */
  flight?: string
}

/**
 * `Svc.sandbox`: the offline sandbox that `Svc.init({ sandbox: true })` talks to. Each call loads the
 * sandbox first when it is not loaded yet (so it may come before `Svc.init`).
 */
export interface SvcSandbox {
  /**
   * Creates a trip as a seller's backend would, in the page. `Svc.init({ sandbox: true })` without a
   * `tripId` then opens this trip (the last one created, remembered across reloads).
   */
  createTrip(request?: SandboxTripRequest): Promise<SandboxTrip>
  /** Forgets every trip and basket (and the copy kept in localStorage). Call `Svc.init` again after it. */
  reset(): Promise<void>
  /** The sandbox seller's API key (HTTP Basic, key as user name), for backend-style calls through `fetch`. */
  apiKey(): Promise<string>
  /**
   * Starts a basket check of the trip `Svc.init` opened, as a seller's backend does before charging:
   * items turn `checking`, then `valid`, `price_changed` or `unavailable`, each reported to `onBasketChange`.
   */
  checkBasket(): Promise<void>
  /** `fetch` answered by the sandbox in the page: `Svc.sandbox.fetch('/v2.2/trip/<id>', ...)`. */
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>
}

/** What the SDK lends the sandbox. */
export interface SandboxHooks {
  /** Registers a text table with this SDK's i18n. */
  addLocale(tag: string, strings: Strings): void
  /** The session of the trip `Svc.init` opened, if any. */
  session(): Session | undefined
  /** The SDK's error class, so the sandbox's errors pass `instanceof Svc.SvcError`. */
  SvcError: typeof SvcError
}

/** What `Svc.init` asks the sandbox for, and gets back. */
export interface SandboxOpenRequest {
  tripId?: string | undefined
  tripAccessToken?: string | undefined
  refreshToken?: string | undefined
}
export interface SandboxOpened {
  tripId: string
  tripAccessToken: string
  /** Renews the access token (the sandbox signs a fresh one) when the page passed no token of its own. */
  getAccessToken?: () => Promise<string>
  baseUrl: string
  fetch: typeof fetch
}

export interface SandboxConnection {
  /** The trip to show: the one named, else the last one `createTrip` made here, else a new one. */
  open(request: SandboxOpenRequest): Promise<SandboxOpened>
  api: SvcSandbox
}

/** `window.SvcSandbox`, set by svc-sandbox.min.js. */
export interface SvcSandboxGlobal {
  readonly version: '2.2'
  /** A sandbox of your own (mock-server's `createSandbox`), e.g. to run its handlers in your own worker. */
  createSandbox(options?: SandboxOptions): Sandbox | Promise<Sandbox>
  /** Connects an SDK (svc.min.js does it); the same connection for every call. */
  connect(hooks: SandboxHooks): Promise<SandboxConnection>
  /** The sandbox the SDK uses, once connected. */
  readonly sandbox?: Sandbox
  /** True once mockServiceWorker.js at the page's origin serves the handlers to the page's own fetch calls too. */
  readonly worker?: boolean
}

declare global {
  interface Window {
    SvcSandbox?: SvcSandboxGlobal
  }
}

/**
 * `Svc.sandbox` and `open` for `Svc.init`, loading svc-sandbox.min.js beside `scriptUrl` (the SDK's
 * script; the ESM build has none, so there the page loads svc-sandbox.min.js itself, before `init`).
 * Kept this small on purpose: every byte here is in svc.min.js for every seller.
 */
export function sandboxLoader(scriptUrl: string | null, hooks: SandboxHooks) {
  let connection: Promise<SandboxConnection> | undefined
  const load = () =>
    (connection ??= new Promise<void>((resolve, reject) => {
      if (window.SvcSandbox) return resolve()
      const s = document.createElement('script')
      s.src = new URL(SANDBOX_FILE, scriptUrl ?? location.href).href
      s.onload = () => resolve()
      s.onerror = () => reject(new SvcError('network', `${s.src} did not load`))
      document.head.append(s)
    }).then(() => window.SvcSandbox!.connect(hooks)))
  const api = {} as Record<keyof SvcSandbox, (...a: unknown[]) => Promise<unknown>>
  for (const k of ['createTrip', 'reset', 'apiKey', 'checkBasket', 'fetch'] as const) {
    api[k] = (...a) => load().then((c) => (c.api[k] as (...a: unknown[]) => Promise<unknown>)(...a))
  }
  return {
    api: api as unknown as SvcSandbox,
    open: (request: SandboxOpenRequest) => load().then((c) => c.open(request)),
  }
}
