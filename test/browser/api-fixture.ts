/**
 * The real API for browser tests: the Fastify app over the memory store and the sandbox airline, on its
 * own port, with CORS for the test page's origin (as a seller's page would call it). The test runner
 * serves `/__fixture/trip`, which creates a trip the way a seller's backend would and hands the page
 * its id and tokens.
 *
 * A second supplier, `slow_sandbox`, is the sandbox airline behind a remote API (`capabilities.remote`): its
 * search runs in the background as Duffel's does (docs/decisions.md "Searching a remote supplier"), answering
 * after `delayMs`, or failing with `supplier_timeout`. Trips on it come from `GET {baseUrl}/__fixture/trip`
 * on the API itself (the options of `FixtureOptions.remote` as query parameters: `remote=1&delayMs=1500
 * &fail=first`), since the runner's own fixture route passes only the options it knows.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { buildApp } from '../../server/app.ts'
import { createCore } from '../../core/core.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import { SupplierError } from '../../core/ports/supplier-errors.ts'
import type { SellerRecord } from '../../core/ports/records.ts'
import type { Supplier } from '../../core/ports/supplier.ts'
import { tripPayload } from '../helpers/build.ts'
import { fulfillRequest } from '../helpers/flows.ts'
import { caller } from '../helpers/operations.ts'
import type { Core } from '../../core/core.ts'
import type { TripCreateRequest } from '../../core/schemas/trip.ts'

export interface FixtureOptions {
  /** marketing_flight_number of every segment (sandbox scenarios 9001–9004). */
  flight?: string
  /** Access-token lifetime in seconds (token renewal tests). */
  accessTtl?: number
  passengers?: TripCreateRequest['passengers']
  language?: string
  currency?: string
  /** Search every product type (default), or none. */
  search?: boolean
  /**
   * Booked already: a checked bag and priority boarding for p1 and a seat for p2 on the first flight, fulfilled
   * and their orders succeeded (what a widget opened after the sale shows as purchased).
   */
  booked?: boolean
  /**
   * The trip's seller buys from `slow_sandbox`: its search runs in the background and answers after
   * `delayMs` (the worker timer runs it within 200 ms of being due), or fails with `supplier_timeout`
   * (`fail: 'first'`: the trip's first search only, so "Try again" then finds the offers; `'always'`).
   */
  remote?: RemoteOptions
}

export interface RemoteOptions {
  delayMs?: number
  fail?: 'first' | 'always'
}

/**
 * The sandbox airline as a remote supplier (a search in the background, by a job), its behaviour per
 * seller: how long its search takes, and whether it times out.
 */
function slowSandbox(sandbox: Supplier, behaviour: Map<string, RemoteOptions>): Supplier {
  const searched = new Map<string, number>()
  return {
    ...sandbox,
    name: 'slow_sandbox',
    capabilities: { ...sandbox.capabilities, remote: true },
    async search(call, trip, types) {
      const o = behaviour.get(call.seller_id) ?? {}
      const n = (searched.get(trip.trip_id) ?? 0) + 1
      searched.set(trip.trip_id, n)
      await new Promise((r) => setTimeout(r, o.delayMs ?? 0))
      if (o.fail === 'always' || (o.fail === 'first' && n === 1))
        throw new SupplierError('supplier_timeout', 'The airline did not answer in time (test fixture).')
      return sandbox.search(call, trip, types)
    },
  }
}

export async function startTestApi(pageOrigin: string) {
  const store = new MemoryStore()
  const sandbox = createSandboxSupplier()
  const behaviour = new Map<string, RemoteOptions>()
  const core = createCore({
    store,
    suppliers: [sandbox, slowSandbox(sandbox, behaviour)],
    clock: { now: () => new Date() },
    ids: { uuid: () => randomUUID(), secret: (n) => randomBytes(n).toString('base64url') },
    // A remote search that times out fails at its first try (not after minutes of backoff).
    config: {
      maxAttempts: {
        basket_check: 5,
        fulfill_order: 10,
        cancel_order: 10,
        ticketing_timeout: 10,
        webhook: 12,
        supplier_search: 1,
      },
    },
  })
  await core.ensureSigningKey()
  const { seller, apiKey } = await core.createSeller({ name: 'Browser tests', origins: [pageOrigin], sandbox: true })
  /** A seller on `slow_sandbox` per behaviour, made when first asked for. */
  const remoteSellers = new Map<string, Promise<{ seller: SellerRecord; apiKey: string }>>()
  const remoteSeller = (o: RemoteOptions) => {
    const key = `${o.delayMs ?? 0}:${o.fail ?? ''}`
    let made = remoteSellers.get(key)
    if (!made) {
      made = core
        .createSeller({
          name: `Browser tests (slow_sandbox ${key})`,
          origins: [pageOrigin],
          sandbox: true,
          supplier: { name: 'slow_sandbox' },
        })
        .then((created) => {
          behaviour.set(created.seller.seller_id, o)
          return created
        })
      remoteSellers.set(key, made)
    }
    return made
  }
  const app = await buildApp({ core, store, logger: false, rateLimit: { max: 100_000, timeWindow: 60_000 } })
  // Trips on the remote supplier, from the page (GET {baseUrl}/__fixture/trip?remote=1&delayMs=…&fail=first&…).
  app.get('/__fixture/trip', async (req) => {
    const q = req.query as Record<string, string>
    return createTrip({
      ...(q['flight'] ? { flight: q['flight'] } : {}),
      ...(q['passengers'] ? { passengers: JSON.parse(q['passengers']) as TripCreateRequest['passengers'] } : {}),
      ...(q['search'] === 'false' ? { search: false } : {}),
      ...(q['remote']
        ? {
            remote: {
              delayMs: Number(q['delayMs'] ?? 0),
              ...(q['fail'] === 'first' || q['fail'] === 'always' ? { fail: q['fail'] } : {}),
            },
          }
        : {}),
    })
  })
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  // The in-process worker of `npm start`, here as a timer: checks and fulfillment progress on their own.
  const worker = setInterval(() => {
    core.drainJobs().catch(() => {})
  }, 200)

  async function createTrip(o: FixtureOptions = {}) {
    const payload = tripPayload(new Date(), {
      search:
        o.search === false
          ? undefined
          : {
              bag: { search: true },
              seat: { search: true },
              priority_boarding: { search: true },
              automatic_check_in: { search: true },
              fare_family_upsell: { search: true },
            },
      ...(o.passengers ? { passengers: o.passengers } : {}),
      ...(o.language ? { language: o.language } : {}),
      ...(o.currency ? { currency: o.currency } : {}),
    })
    if (o.flight)
      for (const t of payload.tickets)
        for (const j of t.journeys) for (const s of j.segments) s.marketing_flight_number = o.flight
    const owner = o.remote ? await remoteSeller(o.remote) : { seller, apiKey }
    const api = caller(core, { apiKey: owner.apiKey })
    const trip = await api('createTrip', { body: payload })
    if (o.booked) await book(core, api, trip)
    const accessToken = o.accessTtl
      ? await core.tokens.sign('trip_access', owner.seller.seller_id, o.accessTtl, trip.trip_id)
      : trip.trip_access_token!
    return { baseUrl, apiKey: owner.apiKey, tripId: trip.trip_id, accessToken, refreshToken: trip.refresh_token! }
  }

  return {
    baseUrl,
    createTrip,
    async close() {
      clearInterval(worker)
      await app.close()
    },
  }
}

/** Buys a checked bag and priority boarding for p1 and a seat for p2, as a seller's backend would, and runs the orders. */
async function book(
  core: Core,
  api: ReturnType<typeof caller>,
  trip: { trip_id: string; search_id: string | null; tickets: unknown[] },
) {
  const search = await api('getSearch', { params: { trip_id: trip.trip_id, search_id: trip.search_id! } })
  const products = (type: string) => Object.values(search.results.products[type as 'bag'] ?? {})
  const forSale = (type: string, pid: string) =>
    products(type).filter((x) => !x.included && x.price_and_availability[pid]?.available)
  const bag = forSale('bag', 'p1').find((x) => x.product_details['checked'] === true)!
  const lines = [bag, forSale('priority_boarding', 'p1')[0]!].map((x) => ({
    product_id: x.product_id,
    passenger_id: 'p1',
    quantity: 1,
  }))
  lines.push({ product_id: forSale('seat', 'p2')[0]!.product_id, passenger_id: 'p2', quantity: 1 })
  const basket = await api('addToBasket', { params: { trip_id: trip.trip_id }, body: lines })
  await api('fulfill', {
    params: { trip_id: trip.trip_id },
    body: fulfillRequest(trip as never, basket.trip_state_hash),
  })
  await core.drainJobs()
}
