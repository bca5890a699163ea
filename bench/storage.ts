/**
 * What a trip costs to keep and to read: bytes stored per trip (SQLite file pages, and PostgreSQL relation
 * sizes, over N trips made as a seller's backend makes them, with a bag in the basket and a token refresh),
 * and the size of each response a widget and a backend read, raw and compressed.
 *
 *   npm run bench -- storage      BENCH_TRIPS=1000 by default
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { randomBytes, randomUUID } from 'node:crypto'
import '../server/native-hash.ts'
import { createCore, type Core } from '../core/core.ts'
import { createSandboxSupplier } from '../core/adapters/sandbox-airline/adapter.ts'
import { SqliteStore } from '../server/store/sqlite.ts'
import { PostgresStore } from '../server/store/postgres.ts'
import { defaultTripRequest } from '../mock-server/fixtures.ts'
import type { Store } from '../core/ports/store.ts'
import { caller } from '../test/helpers/operations.ts'
import { startPg } from './lib/pg.ts'
import { kib } from './lib/stats.ts'

const N = Number(process.env.BENCH_TRIPS ?? 1000)

/**
 * A trip as a seller's integration leaves it: created with bag and seat search, one bag chosen, the token
 * refreshed once; each request answered by the operation table's pipeline, as the server answers it.
 */
export async function makeTrip(core: Core, apiKey: string) {
  const api = caller(core, { apiKey })
  const trip = await api('createTrip', { body: defaultTripRequest(new Date()) })
  const search = await api('getSearch', {
    params: { trip_id: trip.trip_id, search_id: trip.search_id! },
    query: { product_types: 'bag' },
  })
  const bag = Object.values(search.results.products.bag!).find(
    (x) => x.product_details.checked && x.price_and_availability.p1?.available,
  )!
  await api('addToBasket', {
    params: { trip_id: trip.trip_id },
    body: [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  await api('refreshToken', { body: { refresh_token: trip.refresh_token } })
  return trip
}

function coreOn(store: Store) {
  return createCore({
    store,
    suppliers: [createSandboxSupplier()],
    clock: { now: () => new Date() },
    ids: { uuid: () => randomUUID(), secret: (n) => randomBytes(n).toString('base64url') },
  })
}

/** Bytes `size()` grows by per trip over `n` trips (test/api/storage.test.ts bounds it). */
export async function perTrip(store: Store, size: () => Promise<number>, n = N): Promise<number> {
  await store.migrate()
  const core = coreOn(store)
  await core.ensureSigningKey()
  const { apiKey } = await core.createSeller({ name: 'Bench', origins: [], sandbox: true })
  await makeTrip(core, apiKey) // the flights' seat maps, stored once, are not a trip's cost
  const before = await size()
  for (let i = 0; i < n; i++) await makeTrip(core, apiKey)
  return ((await size()) - before) / n
}

export async function storage() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-storage-'))
  const rows: Array<Record<string, string | number>> = []
  try {
    const sqlite = new SqliteStore(join(dir, 'trips.db'))
    const pages = () => {
      sqlite.db.pragma('wal_checkpoint(TRUNCATE)')
      return (
        Number(sqlite.db.pragma('page_count', { simple: true })) *
        Number(sqlite.db.pragma('page_size', { simple: true }))
      )
    }
    rows.push({
      store: 'SQLite (file pages)',
      'bytes per trip': Math.round(await perTrip(sqlite, async () => pages())),
      trips: N,
    })
    await sqlite.close()

    const pg = startPg()
    if (pg) {
      const store = new PostgresStore(pg.url)
      const size = async () => {
        await store.pool.query('VACUUM ANALYZE')
        const {
          rows: [r],
        } = await store.pool.query(`SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
          JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`)
        return Number(r!.bytes)
      }
      rows.push({
        store: 'PostgreSQL (relations with indexes and TOAST)',
        'bytes per trip': Math.round(await perTrip(store, size)),
        trips: N,
      })
      await store.close()
      pg.stop()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  console.log(
    `\nStorage: bytes stored per trip over ${N} trips (created with bag and seat search, a bag chosen, the token refreshed once)`,
  )
  console.table(rows.map((r) => ({ ...r, 'KiB per trip': kib(Number(r['bytes per trip'])) })))
  await responseSizes()
}

/** The size of each response of a trip's life, as JSON and compressed the way the server sends it. */
async function responseSizes() {
  const { buildApp } = await import('../server/app.ts')
  const { MemoryStore } = await import('../core/adapters/memory-store.ts')
  const store = new MemoryStore()
  const core = coreOn(store)
  await core.ensureSigningKey()
  const { apiKey } = await core.createSeller({ name: 'Bench', origins: [], sandbox: true })
  const app = await buildApp({ core, store, logger: false })
  const basic = `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`
  const created = await app.inject({
    method: 'POST',
    url: '/v2.2/trip',
    headers: { authorization: basic },
    payload: defaultTripRequest(new Date()),
  })
  const trip = created.json() as { trip_id: string; search_id: string; trip_access_token: string }
  const bearer = `Bearer ${trip.trip_access_token}`
  const reads: Array<[string, string]> = [
    ['POST trip (response)', ''],
    ['GET search (everything)', `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`],
    [
      'GET search ?product_types=bag (the bag widget)',
      `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}?product_types=bag`,
    ],
    [
      'GET search ?product_types=seat (the seat map)',
      `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}?product_types=seat`,
    ],
    ['GET trip', `/v2.2/trip/${trip.trip_id}`],
    ['GET basket', `/v2.2/trip/${trip.trip_id}/basket`],
  ]
  const rows = []
  for (const [name, url] of reads) {
    const json = url
      ? (await app.inject({ method: 'GET', url, headers: { authorization: bearer } })).body
      : created.body
    const wire = url
      ? (await app.inject({ method: 'GET', url, headers: { authorization: bearer, 'accept-encoding': 'br, gzip' } }))
          .rawPayload.length
      : null
    rows.push({
      response: name,
      JSON: kib(json.length),
      'sent (br)': wire === null ? '' : kib(wire),
      gzip: kib(gzipSync(json).length),
      brotli: kib(brotliCompressSync(json).length),
    })
  }
  await app.close()
  console.log('\nResponse sizes (JSON; as sent to a client accepting br; and compressed for comparison)')
  console.table(rows)
}

if (import.meta.url === `file://${process.argv[1]}`) await storage()
