/** What every operation of the service works with: the ports, and the caches this process keeps over them. */
import { TokenService } from './jwt.ts'
import type { WebhookSender } from '../ports/webhook-sender.ts'
import { defaultConfig, type CoreDeps } from './config.ts'
import type { Ports } from './dependencies.ts'
import { Sellers } from './sellers.ts'
import { SearchCache } from './search-cache.ts'
import { TripCache } from './trip-cache.ts'
import { LiveTrips } from './live.ts'
import { Observers } from './observe.ts'
import { SupplierCalls } from './supplier-calls.ts'

export interface Context extends Ports {
  readonly sellers: Sellers
  readonly searches: SearchCache
  readonly trips: TripCache
  readonly live: LiveTrips
  /** Who the host has asked to be told of the core's work (job outcomes). */
  readonly observers: Observers
  /** The supplier calls of trips not stored yet (every supplier of `suppliers` records its calls there). */
  readonly supplierCalls: SupplierCalls
  /** This process (this core), as it names itself where it holds something others may take over. */
  readonly instance: string
}

/** The context over the host's ports; which adapter fills each is the composition root's choice (core/core.ts). */
export function createContext(deps: CoreDeps & { webhooks: WebhookSender }): Context {
  const config = { ...defaultConfig, ...deps.config }
  const tokens = new TokenService(deps.store, deps.clock, deps.ids, {
    issuer: config.issuer,
    secret: config.signingKeySecret,
    rotationDays: config.signingKeyRotationDays,
    maxTokenTtl: Math.max(config.accessTokenTtl, config.creationTokenTtl),
  })
  const observers = new Observers()
  const supplierCalls = new SupplierCalls({ store: deps.store, clock: deps.clock }, observers)
  const ports: Ports = {
    config,
    store: deps.store,
    suppliers: new Map(deps.suppliers.map((x) => [x.name, supplierCalls.recorded(x)])),
    clock: deps.clock,
    ids: deps.ids,
    webhooks: deps.webhooks,
    tokens,
  }
  const searches = new SearchCache(ports)
  const trips = new TripCache(ports, searches, supplierCalls)
  const live = new LiveTrips(ports, trips, config.live.pollMs)
  // A write here wakes this process's streams on the trip at once; other processes learn it from the store.
  trips.onWrite((tripId) => live.changed(tripId))
  return {
    ...ports,
    sellers: new Sellers(ports),
    searches,
    trips,
    live,
    observers,
    supplierCalls,
    instance: deps.ids.uuid(),
  }
}
