/**
 * The service as `npm start` runs it (info-level request logging, rate limiting, the sandbox airline), on
 * DATABASE_URL, in a process of its own so the load generator never shares its event loop. It creates a
 * sandbox seller (whose pages may call from BENCH_ORIGINS) and reports the URL and API key to the parent
 * over IPC. BENCH_API_KEY names a seller made beforehand instead (its key is reported; none is created).
 *
 * BENCH_ROOT names another checkout to serve instead of this one (a "before" figure from an older commit
 * measured in the same run as the "after"); its buildApp/createCore signatures must match.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const root = process.env.BENCH_ROOT ?? join(import.meta.dirname, '..', '..')
const databaseUrl = process.env.DATABASE_URL ?? 'sqlite::memory:'

const { buildApp } = await import(join(root, 'server/app.ts'))
// The first path that exists: a checkout from before core/ showed its layers (c8abedb and older) has the old ones.
const module = (...paths: string[]) => import(join(root, paths.find((p) => existsSync(join(root, p))) ?? paths[0]!))
const { createCore } = await module('core/core.ts', 'core/service.ts')
const { openStore } = await import(join(root, 'server/store/index.ts'))
const { createSandboxSupplier } = await module(
  'core/adapters/sandbox-airline/adapter.ts',
  'core/supplier/sandbox/supplier.ts',
)

// DATABASE_POOL_SIZE as npm start reads it (server/config.ts), for measuring pool sizes.
// Every statement the store runs is counted (a round trip on PostgreSQL); the parent asks with 'statements'.
// A checkout whose openStore takes no onStatement never counts, and answers null.
let statements = 0
const store = openStore(databaseUrl, {
  poolSize: Number(process.env.DATABASE_POOL_SIZE) || undefined,
  onStatement: () => {
    statements++
  },
})
process.on('message', (m) => {
  if (m === 'statements') process.send?.({ statements: statements > 0 ? statements : null })
})
await store.migrate()
// `supplier` as well: a checkout from before suppliers per seller (84089b5 and older) takes its one supplier so.
const sandboxAirline = createSandboxSupplier()
const core = createCore({
  store,
  suppliers: [sandboxAirline],
  supplier: sandboxAirline,
  clock: { now: () => new Date() },
  ids: { uuid: () => randomUUID(), secret: (n: number) => randomBytes(n).toString('base64url') },
})
await core.ensureSigningKey()
// BENCH_ORIGINS: comma-separated origins of seller pages that call the API from a browser (a benchmark's own
// page, bench/first-control.ts); without it no browser origin may call.
const origins = (process.env.BENCH_ORIGINS ?? '')
  .split(',')
  .map((o) => o.trim())
  .filter(Boolean)
// BENCH_API_KEY: a seller made beforehand, whose trips are already in the database (bench/scale.ts loads
// them before the service starts); then no seller is created and that key is reported.
const apiKey: string =
  process.env.BENCH_API_KEY ?? (await core.createSeller({ name: 'Bench', origins, sandbox: true })).apiKey
// Production logging (info, one JSON line per request) into stdout, which the parent sends to /dev/null.
const app = await buildApp({
  core,
  store,
  logger: { level: 'info' },
  rateLimit: { max: 100_000_000, timeWindow: 60_000 },
})
const url = await app.listen({ port: 0, host: '127.0.0.1' })
process.send?.({ ready: true, url, apiKey })
process.on('disconnect', () => {
  void app
    .close()
    .then(() => store.close())
    .then(() => process.exit(0))
})
