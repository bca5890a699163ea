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
import { createSandbox } from './sandbox.ts'

export { createSandbox, SANDBOX_API_KEY, JOB_INTERVAL_MS, randomIds } from './sandbox.ts'
export { defaultTripRequest, sandboxTripRequest } from './fixtures.ts'
export type { Sandbox, SandboxDelivery, SandboxOptions, SandboxTrip } from './types.ts'

/** The default sandbox behind `sandboxHandlers`: `sandbox.apiKey`, `sandbox.createTrip()`, `sandbox.deliveries`. */
export const sandbox = await createSandbox()

/** MSW handlers for every endpoint of the API, for `setupServer(...sandboxHandlers)`. */
export const sandboxHandlers = sandbox.handlers
