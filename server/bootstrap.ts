/** Start-up pieces shared by the server (`main.ts`) and the seller CLI: same database, same core wiring. */
import './native-hash.ts'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { ServerConfig } from './config.ts'
import { openStore } from './store/index.ts'
import { createCore, type Core, type CoreConfig } from '../core/core.ts'
import { createSandboxSupplier } from '../core/adapters/sandbox-airline/adapter.ts'
import { webhookSender } from './webhook-sender.ts'
import { createDuffelSupplier } from './suppliers/duffel/supplier.ts'
import type { Ids } from '../core/ports/clock.ts'
import type { Store } from '../core/ports/store.ts'
import type { Metrics } from './metrics.ts'

export const systemIds: Ids = {
  uuid: () => randomUUID(),
  secret: (bytes: number) => randomBytes(bytes).toString('base64url'),
}

export function coreConfigFrom(config: ServerConfig): Partial<CoreConfig> {
  return {
    retention: config.retention,
    signingKeyRotationDays: config.signingKeyRotationDays,
    ticketingTimeoutHours: config.ticketingTimeoutHours,
    reconcileWindowMs: config.supplierReconcileMinutes * 60_000,
    ...(config.signingKeySecret ? { signingKeySecret: config.signingKeySecret } : {}),
    ...(config.accessTokenTtl !== undefined ? { accessTokenTtl: config.accessTokenTtl } : {}),
    ...(config.refreshTokenTtl !== undefined ? { refreshTokenTtl: config.refreshTokenTtl } : {}),
  }
}

/** Opens the store named by DATABASE_URL, creating the directory of a SQLite file if needed. */
export async function openDatabase(databaseUrl: string, poolSize?: number): Promise<Store> {
  if (databaseUrl.startsWith('sqlite:') && !databaseUrl.startsWith('sqlite::memory:')) {
    mkdirSync(dirname(resolve(databaseUrl.slice('sqlite:'.length))), { recursive: true })
  }
  const store = openStore(databaseUrl, { poolSize })
  await store.migrate()
  return store
}

/**
 * The production wiring of the core: wall clock, crypto-random ids, and the suppliers a seller may sell
 * from: the sandbox airline (sandbox sellers) and Duffel (each seller with its own token). With `metrics`,
 * the core is built on a store whose errors it counts (GET /metrics).
 */
export async function startCore(config: ServerConfig, metrics?: Metrics): Promise<{ store: Store; core: Core }> {
  const opened = await openDatabase(config.databaseUrl, config.databasePoolSize)
  const store = metrics ? metrics.countStoreErrors(opened) : opened
  const core = createCore({
    store,
    clock: { now: () => new Date() },
    ids: systemIds,
    config: coreConfigFrom(config),
    suppliers: [
      createSandboxSupplier(),
      createDuffelSupplier({
        baseUrl: config.duffelApiUrl,
        timeoutMs: config.supplierTimeoutMs,
        maxResponseBytes: config.supplierMaxResponseBytes,
      }),
    ],
    webhooks: webhookSender(),
  })
  await core.ensureSigningKey()
  return { store, core }
}
