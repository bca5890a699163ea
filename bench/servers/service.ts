/**
 * The service as `npm start` runs it (info-level request logging, rate limiting, the sandbox airline), on
 * DATABASE_URL, in a process of its own so the load generator never shares its event loop. It creates a
 * sandbox seller and reports the URL and API key to the parent over IPC.
 *
 * BENCH_ROOT names another checkout to serve instead of this one (a "before" figure from an older commit
 * measured in the same run as the "after"); its buildApp/createCore signatures must match.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { join } from 'node:path'

const root = process.env.BENCH_ROOT ?? join(import.meta.dirname, '..', '..')
const databaseUrl = process.env.DATABASE_URL ?? 'sqlite::memory:'

const { buildApp } = await import(join(root, 'server/app.ts'))
const { createCore } = await import(join(root, 'core/service.ts'))
const { openStore } = await import(join(root, 'server/store/index.ts'))
const { createSandboxSupplier } = await import(join(root, 'core/supplier/sandbox/supplier.ts'))

const store = openStore(databaseUrl)
await store.migrate()
const core = createCore({
  store, supplier: createSandboxSupplier(), clock: { now: () => new Date() },
  ids: { uuid: () => randomUUID(), secret: (n: number) => randomBytes(n).toString('base64url') },
})
await core.ensureSigningKey()
const { apiKey } = await core.createSeller({ name: 'Bench', origins: [], sandbox: true })
// Production logging (info, one JSON line per request) into stdout, which the parent sends to /dev/null.
const app = await buildApp({ core, store, logger: { level: 'info' }, rateLimit: { max: 100_000_000, timeWindow: 60_000 } })
const url = await app.listen({ port: 0, host: '127.0.0.1' })
process.send?.({ ready: true, url, apiKey })
process.on('disconnect', () => { void app.close().then(() => store.close()).then(() => process.exit(0)) })
