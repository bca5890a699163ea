/**
 * API load: the hot paths of a seller integration, each divided by a bare Fastify 5 hello-world measured in
 * the same round, so the ratios compare across machines and days. The service and the baseline run in
 * processes of their own; autocannon runs in this one. Every scenario is repeated (BENCH_ROUNDS) and
 * reported as the median ratio with the lowest and highest round.
 *
 *   npm run bench -- api     BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 by default
 *
 * Stores: SQLite (a file, as `npm start` uses) and PostgreSQL (a throwaway cluster, or DATABASE_URL_PG)
 * in the same run (BENCH_STORES=sqlite or postgres for one). BENCH_BEFORE=<another checkout> adds that
 * checkout's service to every round, for a before/after measured side by side.
 */
import autocannon from 'autocannon'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultTripRequest } from '../mock-server/fixtures.ts'
import { serve, type Served } from './lib/servers.ts'
import { startPg } from './lib/pg.ts'
import { median, spread } from './lib/stats.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

/** A trip, its access token, and two baskets to PUT in turn (each PUT then changes the basket: a real write). */
interface Trip {
  id: string
  bearer: string
  baskets: [string, string]
}

const basic = (apiKey: string) => `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`

/** One trip per connection, made as a seller's backend makes it: a trip is one traveller's, so writers never share one. */
export async function seedTrips(s: Served): Promise<Trip[]> {
  return Promise.all(
    Array.from({ length: connections }, async () => {
      const res = await fetch(`${s.url}/v2.2/trip`, {
        method: 'POST',
        headers: { authorization: basic(s.apiKey!), 'content-type': 'application/json' },
        body: JSON.stringify(defaultTripRequest(new Date())),
      })
      if (res.status !== 201) throw new Error(`POST trip answered ${res.status}: ${await res.text()}`)
      const trip = (await res.json()) as { trip_id: string; trip_access_token: string; search_id: string }
      const bearer = `Bearer ${trip.trip_access_token}`
      const search = (await (
        await fetch(`${s.url}/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`, {
          headers: { authorization: bearer },
        })
      ).json()) as {
        results: {
          products: {
            bag: Record<
              string,
              {
                product_id: string
                product_details: { checked?: boolean }
                price_and_availability: Record<string, { available: boolean }>
              }
            >
          }
        }
      }
      const bags = Object.values(search.results.products.bag).filter(
        (p) => p.product_details.checked && p.price_and_availability.p1?.available,
      )
      if (bags.length < 2) throw new Error('the sandbox trip offers fewer than two checked bags to p1')
      const basket = (i: number) =>
        JSON.stringify([{ product_id: bags[i]!.product_id, passenger_id: 'p1', quantity: 1 }])
      return { id: trip.trip_id, bearer, baskets: [basket(0), basket(1)] }
    }),
  )
}

type Scenario = { name: string; options: (s: Served, trips: Trip[]) => Partial<autocannon.Options> }

/** Gives each connection its own trip; a PUT sends the trip's two baskets in turn, so every PUT writes. */
const perTrip =
  (method: 'GET' | 'PUT', path: string) =>
  (s: Served, trips: Trip[]): Partial<autocannon.Options> => {
    let next = 0
    return {
      url: `${s.url}/`,
      setupClient: (client) => {
        const t = trips[next++ % trips.length]!
        const request = (body?: string) => ({
          method,
          path: `/v2.2/trip/${t.id}${path}`,
          headers: { authorization: t.bearer, 'content-type': 'application/json' },
          ...(body ? { body } : {}),
        })
        client.setRequests(method === 'PUT' ? t.baskets.map(request) : [request()])
      },
    }
  }

const ONLY = process.env.BENCH_SCENARIOS?.split(',')

export const SCENARIOS: Scenario[] = [
  { name: 'GET basket', options: perTrip('GET', '/basket') },
  { name: 'GET trip', options: perTrip('GET', '') },
  { name: 'PUT basket', options: perTrip('PUT', '/basket') },
  {
    name: 'POST trip',
    options: (s) => ({
      url: `${s.url}/v2.2/trip`,
      method: 'POST',
      headers: { authorization: basic(s.apiKey!), 'content-type': 'application/json' },
      body: JSON.stringify(defaultTripRequest(new Date())),
    }),
  },
]

/** `statements`: SQL statements per request (each a round trip on PostgreSQL), when the service counts them. */
export interface Sample {
  rps: number
  p50: number
  p99: number
  errors: number
  statements?: number
}

export async function load(url: string, opts: Partial<autocannon.Options>, s?: Served): Promise<Sample> {
  const before = s && (await statementsRun(s))
  const r = await autocannon({ url, connections, duration: seconds, ...opts })
  const after = s && (await statementsRun(s))
  const statements =
    before !== undefined && after !== undefined && r.requests.total > 0
      ? (after - before) / r.requests.total
      : undefined
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
    ...(statements !== undefined ? { statements } : {}),
  }
}

/** How many statements the service's store has run so far (bench/servers/service.ts counts them); undefined when it cannot say. */
function statementsRun(s: Served): Promise<number | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      s.child.off('message', answer)
      resolve(undefined)
    }, 1_000)
    const answer = (m: unknown) => {
      if (typeof m !== 'object' || m === null || !('statements' in m)) return
      clearTimeout(timer)
      s.child.off('message', answer)
      resolve((m as { statements: number | null }).statements ?? undefined)
    }
    s.child.on('message', answer)
    s.child.send('statements')
  })
}

/** Each scenario's samples over the rounds, and each one's ratio to the bare Fastify of its own round. */
export function roundResults() {
  const results = new Map<string, { ratios: number[]; samples: Sample[] }>()
  const record = (key: string, s: Sample, baseline: number) => {
    const r = results.get(key) ?? { ratios: [], samples: [] }
    r.ratios.push(s.rps / baseline)
    r.samples.push(s)
    results.set(key, r)
  }
  return { results, record }
}

export interface Target {
  label: string
  databaseUrl: string
  root?: string
}

export async function apiLoad(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'))
  const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',')
  const pg = stores.includes('postgres') ? startPg() : null
  const targets: Target[] = []
  const roots: Array<[string, string | undefined]> = [['', undefined]]
  if (process.env.BENCH_BEFORE) roots.unshift(['before ', process.env.BENCH_BEFORE])
  for (const [prefix, root] of roots) {
    if (stores.includes('sqlite'))
      targets.push({
        label: `${prefix}SQLite`,
        databaseUrl: `sqlite:${join(dir, `${prefix.trim() || 'now'}.db`)}`,
        root,
      })
    if (pg)
      targets.push({
        label: `${prefix}PostgreSQL`,
        databaseUrl: pg.url.replace(/\/postgres$/, `/${prefix.trim() || 'now'}`),
        root,
      })
  }
  if (pg)
    for (const t of targets.filter((x) => x.label.includes('PostgreSQL')))
      await createDatabase(pg.url, t.databaseUrl.split('/').pop()!)

  const { results, record } = roundResults()
  try {
    for (let round = 1; round <= rounds; round++) {
      const bare = await serve('bare')
      const baseline = await load(bare.url, {})
      await bare.stop()
      record('bare Fastify hello-world', baseline, baseline.rps)
      console.error(`round ${round}: bare Fastify ${Math.round(baseline.rps)} req/s`)
      for (const target of targets) {
        const s = await serve('service', { env: { DATABASE_URL: target.databaseUrl, BENCH_ROOT: target.root } })
        try {
          const trips = await seedTrips(s)
          for (const sc of SCENARIOS.filter((x) => !ONLY || ONLY.includes(x.name))) {
            const sample = await load(s.url, sc.options(s, trips), s)
            record(`${target.label} · ${sc.name}`, sample, baseline.rps)
            console.error(
              `round ${round}: ${target.label} ${sc.name} ${Math.round(sample.rps)} req/s (${(sample.rps / baseline.rps).toFixed(3)}×)`,
            )
          }
        } finally {
          await s.stop()
        }
      }
    }
  } finally {
    pg?.stop()
    rmSync(dir, { recursive: true, force: true })
  }

  console.log(
    `\nAPI load: ${connections} connections, ${seconds} s per run, ${rounds} rounds; ratio = req/s ÷ bare Fastify's req/s in the same round (median, lowest–highest)`,
  )
  console.table(
    [...results].map(([scenario, r]) => ({
      scenario,
      'req/s': Math.round(median(r.samples.map((x) => x.rps))),
      ratio: spread(r.ratios),
      'p50 ms': median(r.samples.map((x) => x.p50)),
      'p99 ms': median(r.samples.map((x) => x.p99)),
      // SQL statements per request (on PostgreSQL each is a round trip); – where the service does not count them.
      'statements/req': r.samples.every((x) => x.statements !== undefined)
        ? Number(median(r.samples.map((x) => x.statements!)).toFixed(2))
        : '–',
      errors: r.samples.reduce((n, x) => n + x.errors, 0),
    })),
  )
}

async function createDatabase(adminUrl: string, name: string) {
  const { default: pgLib } = await import('pg')
  const c = new pgLib.Client({ connectionString: adminUrl })
  await c.connect()
  await c.query(`DROP DATABASE IF EXISTS "${name}"`)
  await c.query(`CREATE DATABASE "${name}"`)
  await c.end()
}

if (import.meta.url === `file://${process.argv[1]}`) await apiLoad()
