/**
 * The offline sandbox for a seller's own tests (node, with msw/node) and for bundlers:
 *
 *   import { setupServer } from 'msw/node'
 *   import { sandboxHandlers, sandbox } from 'svc-ancillaries/mock-server'
 *   setupServer(...sandboxHandlers).listen()
 *
 * `sandboxHandlers` answer every endpoint of the API on any origin, over a default sandbox created when
 * this module loads (jobs run on a timer that does not keep node alive). Use `createSandbox` for one of
 * your own: another clock, a base URL, persistence, jobs run by hand.
 *
 * A browser page should import `createSandbox` from './sandbox.ts' instead, so it does not also pay for
 * this default sandbox.
 */
import type { HttpHandler } from 'msw'
import * as internal from './sandbox.ts'
import type { Ids } from '../core/ports/clock.ts'
import type { Sandbox as SandboxOf, SandboxOptions } from './types.ts'

/**
 * The sandbox, its handlers typed as MSW's. Only this entry's declarations name msw (its users install it):
 * ./types.ts, which the SDK's declarations reach too, leaves the handlers' type open.
 */
export type Sandbox = SandboxOf<HttpHandler>

// Declared here with their public types, so this module's declarations never name ./sandbox.ts, whose
// SandboxInternals reaches the whole core (and the declarations of jose and lru-cache, which the package
// does not install).
/** A sandbox of your own: another clock, a base URL, persistence, jobs run by hand (`runJobs`). */
export const createSandbox: (options?: SandboxOptions) => Promise<Sandbox> = internal.createSandbox
/** The sandbox seller's API key (Basic auth, empty password). */
export const SANDBOX_API_KEY: string = internal.SANDBOX_API_KEY
/** How often the sandbox runs its due jobs (checks, fulfillment) when `autoRunJobs` is on, ms. */
export const JOB_INTERVAL_MS: number = internal.JOB_INTERVAL_MS
/** Random ids (the default `ids`), for a sandbox with another clock but the usual ids. */
export const randomIds: Ids = internal.randomIds
export { defaultTripRequest, sandboxTripRequest } from './fixtures.ts'
export type { SandboxDelivery, SandboxOptions, SandboxTrip } from './types.ts'

/** The default sandbox behind `sandboxHandlers`: `sandbox.apiKey`, `sandbox.createTrip()`, `sandbox.deliveries`. */
export const sandbox = await createSandbox()

/** MSW handlers for every endpoint of the API, for `setupServer(...sandboxHandlers)`. */
export const sandboxHandlers = sandbox.handlers
