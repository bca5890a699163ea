/**
 * How far PUT basket and POST trip are from the least they could do: the service's requests (SQLite) beside
 * the same requests to bench/servers/floor.ts (Fastify, the body parsed, the same rows written to a copy of
 * the service's database, the same answers, one log line; POST also signs its access token), each divided by
 * a bare Fastify hello-world measured in the same round. What the floor writes and answers is a real PUT's
 * and a real POST's, taken from the service first.
 *
 *   npm run bench -- floor     BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 as for `api`
 *
 * BENCH_BEFORE=<another checkout> adds that checkout's service, each round, on a database of its own (its
 * own migrations), so a change is measured before and after in one run. The floor's samples are this one's.
 */
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { load, roundResults, SCENARIOS, seedTrips } from './api-load.ts'
import { serve } from './lib/servers.ts'
import { median, spread } from './lib/stats.ts'
import type { Samples } from './servers/floor.ts'

const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const SCENARIO_NAMES = ['PUT basket', 'POST trip'] as const

export async function floor(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-floor-'))
  const scenarios = SCENARIO_NAMES.map((name) => SCENARIOS.find((s) => s.name === name)!)
  const serviceFile = join(dir, 'service.db')
  const serviceUrl = `sqlite:${serviceFile}`
  const samplesFile = join(dir, 'samples.json')
  try {
    writeFileSync(samplesFile, JSON.stringify(await takeSamples(serviceUrl, serviceFile)))
    const { results, record } = roundResults()
    const before = process.env.BENCH_BEFORE
    /** The service (of `root`, this checkout if absent) under each scenario; the trips it was measured on. */
    const measureService = async (label: string, databaseUrl: string, root?: string) => {
      const service = await serve('service', { env: { DATABASE_URL: databaseUrl, BENCH_ROOT: root } })
      try {
        const trips = await seedTrips(service)
        for (const sc of scenarios)
          record(
            `${label}service · ${sc.name} (SQLite)`,
            await load(service.url, sc.options(service, trips), service),
            baseline.rps,
          )
        return trips
      } finally {
        await service.stop()
      }
    }
    let baseline: Awaited<ReturnType<typeof load>>
    for (let round = 1; round <= rounds; round++) {
      const bare = await serve('bare')
      baseline = await load(bare.url, {})
      await bare.stop()
      record('bare Fastify hello-world', baseline, baseline.rps)
      if (before) await measureService(`before · `, `sqlite:${join(dir, 'before.db')}`, before)
      const trips = await measureService('', serviceUrl)
      // The floor writes to a copy of the service's database as it is now (its WAL too, should one be left).
      const floorFile = join(dir, `floor-${round}.db`)
      copyFileSync(serviceFile, floorFile)
      if (existsSync(`${serviceFile}-wal`)) copyFileSync(`${serviceFile}-wal`, `${floorFile}-wal`)
      const least = await serve('floor', { env: { FLOOR_SAMPLES: samplesFile, FLOOR_DB: floorFile } })
      try {
        for (const sc of scenarios)
          record(`floor · ${sc.name}`, await load(least.url, sc.options(least, trips)), baseline.rps)
      } finally {
        await least.stop()
        for (const f of [floorFile, `${floorFile}-wal`, `${floorFile}-shm`]) rmSync(f, { force: true })
      }
      console.error(
        `round ${round}: ${[...results].map(([k, r]) => `${k} ${Math.round(r.samples.at(-1)!.rps)}`).join(', ')} req/s`,
      )
    }

    const us = (k: string) => 1e6 / median(results.get(k)!.samples.map((x) => x.rps))
    console.log(
      `\nPUT basket and POST trip against their floor: ${rounds} rounds; ratio = req/s ÷ bare Fastify's in the same round (median, lowest–highest)`,
    )
    console.table(
      [...results].map(([scenario, r]) => ({
        scenario,
        'req/s': Math.round(median(r.samples.map((x) => x.rps))),
        ratio: spread(r.ratios),
        // The event loop is the bottleneck of all of them: one second over the requests it answered.
        'µs a request': Math.round(1e6 / median(r.samples.map((x) => x.rps))),
        'p99 ms': median(r.samples.map((x) => x.p99)),
        errors: r.samples.reduce((n, x) => n + x.errors, 0),
      })),
    )
    for (const name of SCENARIO_NAMES) {
      const gap = us(`service · ${name} (SQLite)`) - us(`floor · ${name}`)
      console.log(
        `${name}: the service's own work beyond the floor ~${Math.round(gap)} µs a request (see \`npm run bench -- profile "${name}"\`)`,
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A real PUT's and a real POST's rows, as the service stored them, and their answers. */
async function takeSamples(serviceUrl: string, serviceFile: string): Promise<Samples> {
  const s = await serve('service', { env: { DATABASE_URL: serviceUrl } })
  let put: Samples['put']['answer'], post: Samples['post']['answer'], tripId: string
  try {
    const [t] = await seedTrips(s)
    tripId = t!.id
    put = await answer(
      await fetch(`${s.url}/v2.2/trip/${t!.id}/basket`, {
        method: 'PUT',
        headers: { authorization: t!.bearer, 'content-type': 'application/json' },
        body: t!.baskets[0],
      }),
      200,
    )
    const o = SCENARIOS.find((x) => x.name === 'POST trip')!.options(s, [])
    post = await answer(
      await fetch(o.url!, { method: 'POST', headers: o.headers as Record<string, string>, body: o.body as string }),
      201,
    )
  } finally {
    await s.stop()
  }
  const db = new Database(serviceFile, { readonly: true })
  try {
    const doc = (id: string) =>
      JSON.parse((db.prepare('SELECT doc FROM trips WHERE trip_id = ?').get(id) as { doc: string }).doc) as Record<
        string,
        unknown
      >
    const created = db.prepare('SELECT seller_id, search_id FROM trips WHERE trip_id = ?').get(post.trip_id) as {
      seller_id: string
      search_id: string
    }
    const offers = JSON.parse(
      (db.prepare('SELECT offers FROM searches WHERE search_id = ?').get(created.search_id) as { offers: string })
        .offers,
    ) as unknown
    return {
      put: { doc: doc(tripId), answer: put },
      post: { doc: doc(post.trip_id as string), offers, sellerId: created.seller_id, answer: post },
    }
  } finally {
    db.close()
  }
}

async function answer(res: Response, status: number): Promise<Record<string, unknown>> {
  if (res.status !== status) throw new Error(`${res.url} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as Record<string, unknown>
}

if (import.meta.url === `file://${process.argv[1]}`) await floor()
