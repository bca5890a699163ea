/**
 * The sandbox's side of `Svc.init({ sandbox: true })` (in svc-sandbox.min.js only): one sandbox per page
 * (mock-server's handlers over the core, its store kept in localStorage under `svc-sandbox`, so a reload
 * keeps trips and baskets), connected to the SDK through `window.SvcSandbox.connect` (sdk/sandbox.ts).
 *
 * The SDK's own calls go through `sandbox.fetch`, answered in the page: that works from a page opened
 * from disk, or under any static server, with no service worker and no network. When the page is served
 * over http(s) and `/mockServiceWorker.js` is there (`npx msw init <public dir>`), the MSW worker starts
 * too, so the seller's own `fetch('/v2.2/...')` calls are answered by the same sandbox.
 */
import { setupWorker } from 'msw/browser'
import type { SandboxOptions, SandboxTrip } from '../mock-server/types.ts'
import type { SandboxInternals as Sandbox } from '../mock-server/sandbox.ts'
import type { Strings } from '../components/i18n/index.ts'
import type {
  SandboxConnection,
  SandboxHooks,
  SandboxOpenRequest,
  SandboxTripRequest,
  SvcSandbox,
  SvcSandboxGlobal,
} from './sandbox.ts'

/** Where the sandbox keeps its store (mock-server), and the trip `Svc.init` opens when given none. */
export const STORAGE_KEY = 'svc-sandbox'
export const TRIP_KEY = 'svc-sandbox:trip'
export const WORKER_URL = '/mockServiceWorker.js'

type CreateSandbox = (options?: SandboxOptions) => Sandbox | Promise<Sandbox>
type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** The address the SDK calls: the page's origin when served, else a name that never reaches a network. */
export const sandboxBase = () => (/^https?:$/.test(location.protocol) ? location.origin : 'http://sandbox.localhost')

function storage(): Storage | null {
  try {
    return window.localStorage
  } catch {
    return null // storage disabled (a sandboxed frame): the sandbox still works, it just forgets on reload
  }
}

/**
 * Starts the MSW worker when the page may have one: served over http(s), service workers available, and
 * `/mockServiceWorker.js` a script at this origin. Otherwise (a page from disk, no worker script) it
 * returns false and the SDK's calls are still answered in the page.
 */
async function startWorker(sandbox: Sandbox): Promise<boolean> {
  if (!/^https?:$/.test(location.protocol) || !('serviceWorker' in navigator)) return false
  try {
    const res = await fetch(WORKER_URL, { method: 'HEAD', cache: 'no-store' })
    // A static server answering every path with index.html is not a worker script.
    if (!res.ok || !/javascript/.test(res.headers.get('content-type') ?? '')) return false
    await setupWorker(...sandbox.handlers).start({
      serviceWorker: { url: WORKER_URL },
      quiet: true,
      onUnhandledRequest: 'bypass',
    })
    return true
  } catch (e) {
    console.warn('Svc sandbox: the service worker did not start; the SDK is answered in the page all the same.', e)
    return false
  }
}

/** `window.SvcSandbox`. */
export function sandboxGlobal(createSandbox: CreateSandbox, locales: Record<string, Strings>): SvcSandboxGlobal {
  const global: Mutable<SvcSandboxGlobal> = { version: '2.2', createSandbox, connect }
  let ready: Promise<Sandbox> | undefined

  const start = async () => {
    const sandbox = await createSandbox({ storageKey: STORAGE_KEY })
    global.sandbox = sandbox
    global.worker = await startWorker(sandbox)
    return sandbox
  }

  async function connect(hooks: SandboxHooks): Promise<SandboxConnection> {
    // Every table now, so the SDK finds the trip's texts without fetching a locale file.
    for (const [tag, table] of Object.entries(locales)) hooks.addLocale(tag, table)
    const sandbox = await (ready ??= start().catch((e: unknown) => {
      ready = undefined
      throw e
    }))
    const base = sandboxBase()
    const inPage: typeof fetch = (input, init) =>
      sandbox.fetch(input instanceof Request ? input : new URL(String(input), base).href, init)
    const store = storage()

    const remembered = (): string | undefined => {
      try {
        return (JSON.parse(store?.getItem(TRIP_KEY) ?? 'null') as SandboxTrip | null)?.tripId
      } catch {
        return undefined
      }
    }

    const createTrip = async (request?: SandboxTripRequest): Promise<SandboxTrip> => {
      const trip = await sandbox.createTrip(request)
      store?.setItem(TRIP_KEY, JSON.stringify(trip))
      return trip
    }

    /** A fresh access token for a trip of this sandbox, as the seller's backend would hand one out. */
    const tokenFor = async (tripId: string): Promise<string> => {
      const trip = await sandbox.store.getTrip(tripId)
      if (!trip)
        throw new hooks.SvcError(
          'not_found',
          `sandbox: there is no trip ${tripId} (Svc.sandbox.reset() forgets every trip).`,
        )
      return sandbox.core.tokens.sign('trip_access', trip.value.seller_id, sandbox.core.config.accessTokenTtl, tripId)
    }

    const api: SvcSandbox = {
      createTrip,
      async reset() {
        await sandbox.reset()
        store?.removeItem(TRIP_KEY)
      },
      apiKey: async () => sandbox.apiKey,
      async checkBasket() {
        const session = hooks.session()
        if (!session)
          throw new hooks.SvcError(
            'not_initialized',
            'Call Svc.init({ sandbox: true }) before Svc.sandbox.checkBasket().',
          )
        await session.check()
      },
      fetch: async (input, init) => inPage(input, init),
    }

    async function open(r: SandboxOpenRequest) {
      let tripId = r.tripId
      if (!tripId) {
        // The trip made last (createTrip, or an earlier init), while the sandbox still has it.
        const last = remembered()
        tripId = last && (await sandbox.store.getTrip(last)) ? last : (await createTrip()).tripId
      }
      const id = tripId
      // The page's own tokens as given (their expiry and refresh work as with the API); else the sandbox
      // signs one, and another whenever the SDK needs to renew it.
      if (r.tripAccessToken) return { tripId: id, tripAccessToken: r.tripAccessToken, baseUrl: base, fetch: inPage }
      const getAccessToken = () => tokenFor(id)
      return { tripId: id, tripAccessToken: await getAccessToken(), getAccessToken, baseUrl: base, fetch: inPage }
    }

    return { open, api: Object.freeze(api) }
  }

  return global
}
