/**
 * The offline sandbox: the core of the real server, hosted by MSW handlers over an in-memory store, with
 * the sandbox airline and one fixed seller. Runs in a browser (service worker or the in-page `fetch`) and
 * in node (`setupServer` from msw/node); no Node-only module may be imported here.
 */
import { http, getResponse, type HttpHandler } from 'msw'
import { createCore, type Core } from '../core/core.ts'
import { MemoryStore, type StoredSnapshot } from '../core/adapters/memory-store.ts'
import { createSandboxSupplier } from '../core/adapters/sandbox-airline/adapter.ts'
import { operations } from '../core/api/operations.ts'
import type { Clock, Ids } from '../core/ports/clock.ts'
import type { WebhookSender } from '../core/ports/webhook-sender.ts'
import type { TripCreateRequest } from '../core/schemas/trip.ts'
import { createHost, handlerPattern, uuid, type Host } from './host.ts'
import { sandboxTripRequest } from './fixtures.ts'
import type { Sandbox, SandboxDelivery, SandboxOptions, SandboxTrip } from './types.ts'

/** The sandbox seller's API key. Fixed and public: the sandbox holds nothing worth protecting. */
export const SANDBOX_API_KEY = 'svc_test_sandbox'
export const SANDBOX_SELLER_NAME = 'Sandbox'
/** How often queued jobs (basket checks, orders, webhooks) run when `autoRunJobs` is on. */
export const JOB_INTERVAL_MS = 250
/** Where `createTrip()` sends its request when no `baseUrl` was given (the handlers match any origin then). */
const INTERNAL_ORIGIN = 'http://sandbox.invalid'
const STORAGE_VERSION = 1

const systemClock: Clock = { now: () => new Date() }

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')

/** WebCrypto randomness: the same in the page and in node. */
export const randomIds: Ids = {
  uuid,
  secret: (bytes) => base64url(crypto.getRandomValues(new Uint8Array(bytes))),
}

interface Persisted {
  version: number
  snapshot: StoredSnapshot
}

function load(storage: SandboxOptions['storage'], key: string | undefined): StoredSnapshot | undefined {
  if (!storage || !key) return undefined
  try {
    const raw = storage.getItem(key)
    if (!raw) return undefined
    const data = JSON.parse(raw) as Persisted
    return data.version === STORAGE_VERSION ? data.snapshot : undefined
  } catch {
    return undefined // unreadable (another version, or edited by hand): start afresh
  }
}

function defaultStorage(): SandboxOptions['storage'] {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage
  } catch {
    return undefined // a sandboxed iframe throws on access
  }
}

/**
 * The sandbox with its insides: the core and the store it runs on, which this repository's own tests
 * reach into (the parity and attack suites). The package's types name only `Sandbox`, so a seller's
 * tests depend on no internal type (and a frontend's type check reaches nothing of the core's services).
 */
export interface SandboxInternals extends Sandbox<HttpHandler> {
  core: Core
  store: MemoryStore
}

export async function createSandbox(options: SandboxOptions = {}): Promise<SandboxInternals> {
  const clock = options.clock ?? systemClock
  const storageKey = options.storageKey
  const storage = storageKey ? (options.storage ?? defaultStorage()) : undefined
  const baseUrl = options.baseUrl?.replace(/\/+$/, '')

  const store = new MemoryStore(load(storage, storageKey))
  const deliveries: SandboxDelivery[] = []
  const core = await startSandboxCore(options, store, clock, deliveries)
  const save = snapshotSaver(store, storage, storageKey)
  save()

  const host = createHost({ core, changed: save })
  const handlers = sandboxHandlers(host, baseUrl)
  const sandboxFetch = fetchThroughHandlers(handlers)
  const runJobs = jobRunner(core, save)
  let timer = (options.autoRunJobs ?? true) ? startJobTimer(runJobs) : undefined
  const origin = baseUrl ?? INTERNAL_ORIGIN

  return {
    handlers,
    fetch: sandboxFetch,
    core,
    store,
    apiKey: SANDBOX_API_KEY,
    deliveries,
    runJobs,

    async createTrip(request = {}): Promise<SandboxTrip> {
      return createTripThroughHost(host, origin, sandboxTripRequest(clock.now(), request))
    },

    async reset() {
      removeTrips(store)
      deliveries.length = 0
      if (storage && storageKey) storage.removeItem(storageKey)
    },

    dispose() {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      // Streams a page abandoned without cancelling them end here.
      void core.context.live.close()
    },
  }
}

/** The core over `store`, holding the sandbox seller (a store restored from storage has it already). */
async function startSandboxCore(
  options: SandboxOptions,
  store: MemoryStore,
  clock: Clock,
  deliveries: SandboxDelivery[],
): Promise<Core> {
  const core = createCore({
    store,
    suppliers: [createSandboxSupplier(options.supplier)],
    clock,
    ids: options.ids ?? randomIds,
    webhooks: recordingWebhooks(deliveries, clock),
    config: options.config,
  })
  // Same start-up order as the server (signing key, then seller), so counting ids line up with it in parity tests.
  await core.ensureSigningKey()
  if (!(await core.findSellerByApiKey(SANDBOX_API_KEY))) {
    await core.createSeller({ name: SANDBOX_SELLER_NAME, origins: [], sandbox: true, apiKey: SANDBOX_API_KEY })
  }
  return core
}

/** The sandbox has no network: webhook deliveries are recorded, and every one "succeeds". */
function recordingWebhooks(deliveries: SandboxDelivery[], clock: Clock): WebhookSender {
  return {
    async send(target, body, headers) {
      deliveries.push({
        target,
        headers: { ...headers },
        body,
        event: JSON.parse(body) as SandboxDelivery['event'],
        delivered_at: clock.now().toISOString(),
      })
      return 200
    },
  }
}

/** Writes the store to `storage` under `storageKey` (without either, it does nothing). */
function snapshotSaver(
  store: MemoryStore,
  storage: SandboxOptions['storage'],
  storageKey: string | undefined,
): () => void {
  return () => {
    if (!storage || !storageKey) return
    const data: Persisted = { version: STORAGE_VERSION, snapshot: store.snapshot() }
    // A full storage (localStorage holds about 5 MB; a trip with its search is about 10 KB, and each flight's
    // seat map about 40 KB): keep fewer, newest first. The store in memory keeps everything until the page goes.
    for (const keep of [Infinity, 3, 1]) {
      try {
        storage.setItem(
          storageKey,
          JSON.stringify(keep === Infinity ? data : { ...data, snapshot: newest(data.snapshot, keep) }),
        )
        return
      } catch (e) {
        if (keep === 1) console.warn('[svc sandbox] could not persist the sandbox state', e)
      }
    }
  }
}

/** One handler per operation, `http.<method>(<baseUrl or any origin><op.path>)`, as RegExps (see handlerPattern). */
function sandboxHandlers(host: Host, baseUrl: string | undefined): HttpHandler[] {
  const handlers: HttpHandler[] = []
  for (const op of operations) {
    const resolver = ({ request }: { request: Request }) => host.handle(request, op)
    const method = op.method.toLowerCase() as 'get' | 'post' | 'patch' | 'put' | 'delete'
    handlers.push(http[method](handlerPattern(baseUrl, op.path), resolver))
    // Fastify answers HEAD on every GET route; so does the sandbox.
    if (op.method === 'GET') handlers.push(http.head(handlerPattern(baseUrl, op.path), resolver))
  }
  // Everything else under /v2.2/: 404, or 405 with Allow, as the server answers.
  handlers.push(http.all(handlerPattern(baseUrl, '/v2.2/*'), ({ request }) => host.handle(request)))
  return handlers
}

/** A `fetch` the handlers answer; what none of them matches goes to the fetch there was when the sandbox began. */
function fetchThroughHandlers(handlers: HttpHandler[]): typeof fetch {
  const realFetch: typeof fetch = globalThis.fetch.bind(globalThis)
  return async (input, init) => {
    const request = new Request(input, init)
    const response = await getResponse(handlers, request.clone())
    return response ?? realFetch(request)
  }
}

/** Runs the due jobs and persists what they changed; a call during a run shares it rather than start another. */
function jobRunner(core: Core, save: () => void): () => Promise<number> {
  let running: Promise<number> | null = null
  return () => {
    running ??= (async () => {
      try {
        const n = await core.drainJobs()
        if (n > 0) save()
        return n
      } finally {
        running = null
      }
    })()
    return running
  }
}

function startJobTimer(runJobs: () => Promise<number>): ReturnType<typeof setInterval> {
  const timer = setInterval(() => {
    runJobs().catch((e: unknown) => console.error('[svc sandbox] job run failed', e))
  }, JOB_INTERVAL_MS)
  // In node, a sandbox must not keep the test process alive.
  ;(timer as { unref?: () => void }).unref?.()
  return timer
}

/** POST /v2.2/trip with the sandbox seller's key, straight to the host (no handler, no network). */
async function createTripThroughHost(host: Host, origin: string, trip: TripCreateRequest): Promise<SandboxTrip> {
  const res = await host.handle(
    new Request(`${origin}/v2.2/trip`, {
      method: 'POST',
      headers: { authorization: `Basic ${btoa(`${SANDBOX_API_KEY}:`)}`, 'content-type': 'application/json' },
      body: JSON.stringify(trip),
    }),
  )
  const body = (await res!.json()) as {
    trip_id: string
    trip_access_token: string
    refresh_token: string
    detail?: string
  }
  if (res!.status !== 201) throw new Error(`The sandbox refused the trip (${res!.status}): ${body.detail ?? ''}`)
  return { tripId: body.trip_id, tripAccessToken: body.trip_access_token, refreshToken: body.refresh_token }
}

/** The seller, its key and the signing keys stay (tokens the page holds then fail as unknown trips, not as forged). */
function removeTrips(store: MemoryStore) {
  store.restore({
    ...store.snapshot(),
    trips: [],
    searches: [],
    seatMaps: [],
    refreshTokens: [],
    idempotency: [],
    jobs: [],
    orders: [],
  })
}

/** The snapshot with only the `keep` most recently updated trips and what belongs to them. */
function newest(s: StoredSnapshot, keep: number): StoredSnapshot {
  const trips = [...s.trips].sort((a, b) => (a.value.updated_at < b.value.updated_at ? 1 : -1)).slice(0, keep)
  const kept = new Set(trips.map((t) => t.value.trip_id))
  const searches = s.searches.filter((x) => kept.has(x.trip_id))
  const maps = new Set(searches.flatMap((x) => x.offers.seats.map((m) => m.map)))
  return {
    ...s,
    trips,
    searches,
    seatMaps: (s.seatMaps ?? []).filter((m) => maps.has(m.key)),
    refreshTokens: s.refreshTokens.filter((x) => kept.has(x.trip_id)),
    ...(s.orders ? { orders: s.orders.filter((o) => kept.has(o.order.trip_id)) } : {}),
    jobs: s.jobs.filter((j) => {
      const p = j.payload as { trip_id?: string; event?: { trip_id?: string } }
      const tripId = p.trip_id ?? p.event?.trip_id
      return tripId === undefined || kept.has(tripId)
    }),
  }
}
