/**
 * How far PUT basket is from the least it could do: the service's PUT basket (SQLite) beside the same
 * requests to bench/servers/floor.ts (Fastify, the body parsed, the trip document's JSON written to SQLite
 * batched per turn, a basket's JSON answered, one log line), each divided by a bare Fastify hello-world
 * measured in the same round. The floor's document and answer are a real PUT's, taken from the service first.
 *
 *   npm run bench -- floor     BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 as for `api`
 */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { load, roundResults, SCENARIOS, seedTrips } from './api-load.ts'
import { serve } from './lib/servers.ts'
import { median, spread } from './lib/stats.ts'

const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

export async function floor(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-floor-'))
  const put = SCENARIOS.find((s) => s.name === 'PUT basket')!
  const serviceUrl = `sqlite:${join(dir, 'service.db')}`
  try {
    // A real PUT's trip document (as the store keeps it) and answer.
    const s = await serve('service', { env: { DATABASE_URL: serviceUrl } })
    try {
      const [t] = await seedTrips(s)
      const res = await fetch(`${s.url}/v2.2/trip/${t!.id}/basket`, { method: 'PUT', headers: { authorization: t!.bearer, 'content-type': 'application/json' }, body: t!.baskets[0] })
      if (res.status !== 200) throw new Error(`PUT basket answered ${res.status}`)
      writeFileSync(join(dir, 'answer.json'), await res.text())
    } finally {
      await s.stop()
    }
    const db = new Database(serviceUrl.slice('sqlite:'.length), { readonly: true })
    writeFileSync(join(dir, 'doc.json'), (db.prepare('SELECT doc FROM trips ORDER BY updated_at DESC LIMIT 1').get() as { doc: string }).doc)
    db.close()

    const { results, record } = roundResults()
    for (let round = 1; round <= rounds; round++) {
      const bare = await serve('bare')
      const baseline = await load(bare.url, {})
      await bare.stop()
      record('bare Fastify hello-world', baseline, baseline.rps)
      const service = await serve('service', { env: { DATABASE_URL: serviceUrl } })
      try {
        const trips = await seedTrips(service)
        record('service · PUT basket (SQLite)', await load(service.url, put.options(service, trips), service), baseline.rps)
        const least = await serve('floor', { env: { FLOOR_DOC: join(dir, 'doc.json'), FLOOR_ANSWER: join(dir, 'answer.json'), FLOOR_DB: join(dir, `floor-${round}.db`) } })
        try {
          record('floor · the same PUTs', await load(least.url, put.options(least, trips)), baseline.rps)
        } finally {
          await least.stop()
        }
      } finally {
        await service.stop()
      }
      console.error(`round ${round}: ${[...results].map(([k, r]) => `${k} ${Math.round(r.samples.at(-1)!.rps)}`).join(', ')} req/s`)
    }

    const rps = (k: string) => median(results.get(k)!.samples.map((x) => x.rps))
    console.log(`\nPUT basket against its floor: ${rounds} rounds; ratio = req/s ÷ bare Fastify's in the same round (median, lowest–highest)`)
    console.table([...results].map(([scenario, r]) => ({
      scenario,
      'req/s': Math.round(median(r.samples.map((x) => x.rps))),
      ratio: spread(r.ratios),
      // The event loop is the bottleneck of both: one second over the requests it answered.
      'µs a request': Math.round(1e6 / median(r.samples.map((x) => x.rps))),
      'p99 ms': median(r.samples.map((x) => x.p99)),
      errors: r.samples.reduce((n, x) => n + x.errors, 0),
    })))
    const gap = 1e6 / rps('service · PUT basket (SQLite)') - 1e6 / rps('floor · the same PUTs')
    console.log(`the service's own work beyond the floor: ~${Math.round(gap)} µs a PUT (its rules, authentication, hooks; see \`npm run bench -- profile "PUT basket"\`)`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await floor()
