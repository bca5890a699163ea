/**
 * API load benchmark: the hot paths of a seller integration on the embedded SQLite store, each against a
 * baseline measured in the same run (GET /healthz: the HTTP stack with no auth, no store), so the figures
 * compare across machines. Loopback only; every run is bounded in time.
 *
 *   npm run bench -- api          (BENCH_SECONDS=5 BENCH_CONNECTIONS=16 by default)
 */
import autocannon from 'autocannon'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes, randomUUID } from 'node:crypto'
import { buildApp } from '../server/app.ts'
import { createCore } from '../core/service.ts'
import { openStore } from '../server/store/index.ts'
import { createSandboxSupplier } from '../core/supplier/sandbox/supplier.ts'
import { tripPayload } from '../test/helpers/build.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)

export async function apiLoad() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'))
  const store = openStore(`sqlite:${join(dir, 'bench.db')}`)
  await store.migrate()
  const core = createCore({
    store, supplier: createSandboxSupplier(), clock: { now: () => new Date() },
    ids: { uuid: () => randomUUID(), secret: (n) => randomBytes(n).toString('base64url') },
  })
  await core.ensureSigningKey()
  const { seller, apiKey } = await core.createSeller({ name: 'Bench', origins: [], sandbox: true })
  const app = await buildApp({ core, store, logger: false, rateLimit: { max: 10_000_000, timeWindow: 60_000 } })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const basic = `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`

  // One trip per connection: a trip is one traveller's, so concurrent writers hit different trips.
  const trips = await Promise.all(Array.from({ length: connections }, async () => {
    const trip = await core.createTrip({ kind: 'api_key', seller }, tripPayload(new Date()))
    const search = await core.getSearch({ kind: 'api_key', seller }, trip.trip_id, trip.search_id!)
    const bag = Object.values(search.results.products.bag!).find((p) => p.product_details.checked && p.price_and_availability.p1?.available)!
    return { id: trip.trip_id, bearer: `Bearer ${trip.trip_access_token}`, body: JSON.stringify([{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }]) }
  }))
  let next = 0
  /** Gives each connection its own trip, for the per-trip scenarios. */
  const perTrip = (method: string, path: string, withBody: boolean): Partial<autocannon.Options> => ({
    url: `${url}/`,
    setupClient: (client) => {
      const t = trips[next++ % trips.length]!
      client.setRequests([{ method: method as 'GET', path: `/v2.2/trip/${t.id}${path}`, headers: { authorization: t.bearer, 'content-type': 'application/json' }, ...(withBody ? { body: t.body } : {}) }])
    },
  })

  const run = (title: string, opts: Partial<autocannon.Options>) => autocannon({ url, connections, duration: seconds, title, ...opts })
  const scenarios: Array<[string, Partial<autocannon.Options>]> = [
    ['GET /healthz (baseline)', { url: `${url}/healthz` }],
    ['GET basket (access token)', perTrip('GET', '/basket', false)],
    ['PUT basket (one bag, optimistic write)', perTrip('PUT', '/basket', true)],
    ['POST trip (with bag and seat search)', { url: `${url}/v2.2/trip`, method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: JSON.stringify(tripPayload(new Date())) }],
  ]
  const rows: Array<{ scenario: string; rps: number; p50: number; p99: number; errors: number; ratio: string }> = []
  let baseline = 0
  for (const [title, opts] of scenarios) {
    const r = await run(title, opts)
    const rps = r.requests.average
    if (!baseline) baseline = rps
    rows.push({ scenario: title, rps: Math.round(rps), p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx, ratio: `${(rps / baseline).toFixed(3)}×` })
  }
  await app.close()
  await store.close()
  rmSync(dir, { recursive: true, force: true })
  console.log(`\nAPI load on SQLite, ${connections} connections × ${seconds} s each (ratio = req/s ÷ baseline req/s in this run)`)
  console.table(rows)
  return rows
}

if (import.meta.url === `file://${process.argv[1]}`) await apiLoad()
