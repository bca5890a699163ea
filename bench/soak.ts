/**
 * `npm run bench -- soak [--rate=400] [--seconds=300] [--warmup=30]`: a steady load on the service as
 * `npm start` runs it (compiled, SQLite file, the worker in-process, info logging to /dev/null) and its
 * memory every 15 s: resident set (the kernel's VmRSS), V8 heap used and external memory (from /metrics).
 * The load is what a seller's traffic looks like over a fixed pool of 20 trips: baskets read, replaced with
 * one of two baskets in turn (every PUT writes), a bag added and removed again, the trip read, and a few new
 * trips. What counts is the growth after the warm-up: a service whose memory levels off grows little.
 *
 * Target: 400 req/s for 300 s grows RSS less than 40 MB after a 30 s warm-up, with no errors. It prints
 * whether it held, and exits non-zero when it did not (so a CI job may run it). Needs `npm run build:server`.
 * BENCH_BEFORE=<another checkout, built> soaks that checkout's service first, in the same run, for a before
 * and after side by side.
 */
import autocannon from 'autocannon'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultTripRequest } from '../mock-server/fixtures.ts'

const root = join(import.meta.dirname, '..')
const SAMPLE_MS = 15_000
const TRIPS = 20
const TARGET_GROWTH_MB = 40

const option = (name: string, fallback: number) => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`))
  const v = Number(arg ? arg.slice(name.length + 3) : fallback)
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`)
  return v
}

interface Sample {
  at: number
  rss: number
  anon: number
  file: number
  heap: number
  external: number
}

const MB = 1024 * 1024
const mb = (bytes: number) => (bytes / MB).toFixed(0)
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`

/** Starts the compiled service (dist/node/server/main.js of `checkout`) on a fresh SQLite file, with a sandbox seller of a known key. */
async function start(checkout: string, dir: string, apiKey: string) {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/node/server/main.js'], {
    cwd: checkout,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`,
      SVC_DEMO_API_KEY: apiKey,
      RATE_LIMIT_MAX: '1000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  // The banner names the port; the request log after it goes nowhere, as to /dev/null (but is still written).
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      if (out === null) return
      out += String(c)
      const m = /API\s+(http:\/\/127\.0\.0\.1:\d+)\/v2\.2/.exec(out)
      if (m) {
        resolve(m[1]!)
        out = null as unknown as string
      }
    })
    child.once('exit', (code) => reject(new Error(`the service exited with ${code} before it listened:\n${out}`)))
  })
  return { url, child }
}

async function memory(url: string, pid: number, t0: number): Promise<Sample> {
  const metrics = await (await fetch(`${url}/metrics`)).text()
  const gauge = (name: string) =>
    Number(new RegExp(`^svc_${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN)
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024
  return {
    at: Math.round((performance.now() - t0) / 1000),
    rss: kb('VmRSS'),
    anon: kb('RssAnon'),
    file: kb('RssFile') + kb('RssShmem'),
    heap: gauge('nodejs_heap_size_used_bytes'),
    external: gauge('nodejs_external_memory_bytes'),
  }
}

interface Trip {
  id: string
  bearer: string
  baskets: [string, string]
  bag: string
}

/** A trip as a seller's backend makes it, with two baskets to alternate (two different bags for p1) and a bag to add and remove. */
async function makeTrip(url: string, apiKey: string): Promise<Trip> {
  const res = await fetch(`${url}/v2.2/trip`, {
    method: 'POST',
    headers: { authorization: basic(apiKey), 'content-type': 'application/json' },
    body: JSON.stringify(defaultTripRequest(new Date())),
  })
  if (res.status !== 201) throw new Error(`POST trip answered ${res.status}: ${await res.text()}`)
  const trip = (await res.json()) as { trip_id: string; trip_access_token: string; search_id: string }
  const bearer = `Bearer ${trip.trip_access_token}`
  const search = (await (
    await fetch(`${url}/v2.2/trip/${trip.trip_id}/search/${trip.search_id}?product_types=bag`, {
      headers: { authorization: bearer },
    })
  ).json()) as {
    results: {
      products: {
        bag: Record<string, { product_id: string; price_and_availability: Record<string, { available: boolean }> }>
      }
    }
  }
  const bags = Object.values(search.results.products.bag).filter(
    (p) => p.price_and_availability.p1?.available && p.price_and_availability.p2?.available,
  )
  if (bags.length < 2) throw new Error('the sandbox trip offers fewer than two bags to p1 and p2')
  const line = (id: string, pax: string) => JSON.stringify([{ product_id: id, passenger_id: pax, quantity: 1 }])
  return {
    id: trip.trip_id,
    bearer,
    baskets: [line(bags[0]!.product_id, 'p1'), line(bags[1]!.product_id, 'p1')],
    bag: line(bags[0]!.product_id, 'p2'),
  }
}

/**
 * One client's round over one trip (a client stays on its trip, so writes never race with another
 * client's): 10 requests, of which 2 PUTs (each a change), a PATCH and the DELETE of what it added, and
 * one client in ten also creates a trip each round.
 */
function round(apiKey: string, t: Trip, creates: boolean): autocannon.Request[] {
  const path = `/v2.2/trip/${t.id}`
  // As a browser sends them: every response that can be compressed is.
  const auth = { authorization: t.bearer, 'accept-encoding': 'gzip, deflate, br, zstd' }
  const json = { ...auth, 'content-type': 'application/json' }
  const get = (p: string): autocannon.Request => ({ method: 'GET', path: `${path}${p}`, headers: auth })
  const requests: autocannon.Request[] = [
    get('/basket'),
    { method: 'PUT', path: `${path}/basket`, headers: json, body: t.baskets[0] },
    get(''),
    get('/basket'),
    {
      // Uncompressed, to read the item's id back.
      method: 'PATCH',
      path: `${path}/basket`,
      headers: { authorization: t.bearer, 'content-type': 'application/json' },
      body: t.bag,
      // The added item's id, for the DELETE that takes it out again (the basket ends each round as it began).
      onResponse: (status, body, context) => {
        if (status !== 200) return
        const { basket } = JSON.parse(body) as {
          basket: Record<string, { basket_item_id: string; product_details: { passenger_id?: string } }>
        }
        Object.assign(context, {
          added: Object.values(basket).find((i) => i.product_details.passenger_id === 'p2')?.basket_item_id,
        })
      },
    },
    get('/basket'),
    {
      method: 'DELETE',
      path: `${path}/basket/none`,
      headers: auth,
      setupRequest: (req, context) => ({
        ...req,
        path: `${path}/basket/${String((context as { added?: string }).added)}`,
      }),
    },
    { method: 'PUT', path: `${path}/basket`, headers: json, body: t.baskets[1] },
    get(''),
    get('/basket'),
  ]
  if (creates) {
    requests[2] = {
      method: 'POST',
      path: '/v2.2/trip',
      headers: { authorization: basic(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify(defaultTripRequest(new Date())),
    }
  }
  return requests
}

export async function soak(): Promise<boolean> {
  let held = true
  if (process.env.BENCH_BEFORE)
    held = (await soakOne(process.env.BENCH_BEFORE, `before (${process.env.BENCH_BEFORE})`)) && held
  return (await soakOne(root, 'this checkout')) && held
}

async function soakOne(checkout: string, label: string): Promise<boolean> {
  const rate = option('rate', 400)
  const seconds = option('seconds', 300)
  const warmup = option('warmup', 30)
  if (!existsSync(join(checkout, 'dist/node/server/main.js')))
    throw new Error(`run \`npm run build:server\` in ${checkout} first`)
  const dir = mkdtempSync(join(tmpdir(), 'svc-soak-'))
  const apiKey = `svc_test_soak_${Date.now()}`
  const { url, child } = await start(checkout, dir, apiKey)
  try {
    const trips = await Promise.all(Array.from({ length: TRIPS }, () => makeTrip(url, apiKey)))
    const t0 = performance.now()
    const samples: Sample[] = [await memory(url, child.pid!, t0)]
    console.log(
      `\nsoak of ${label}: ${rate} req/s for ${seconds} s over ${TRIPS} trips; memory every ${SAMPLE_MS / 1000} s (MB)`,
    )
    console.log('   s    RSS  (anon  file)  heap used  external')
    const print = (s: Sample) =>
      console.log(
        `${String(s.at).padStart(4)} ${mb(s.rss).padStart(6)}  ${mb(s.anon).padStart(5)} ${mb(s.file).padStart(5)} ${mb(s.heap).padStart(10)} ${mb(s.external).padStart(9)}`,
      )
    print(samples[0]!)
    const timer = setInterval(() => {
      void memory(url, child.pid!, t0).then(
        (s) => {
          samples.push(s)
          print(s)
        },
        () => {},
      )
    }, SAMPLE_MS)
    let next = 0
    const result = await autocannon({
      url,
      connections: TRIPS,
      overallRate: rate,
      duration: seconds,
      setupClient: (client) => {
        const i = next++ % trips.length
        client.setRequests(round(apiKey, trips[i]!, i % 10 === 0))
      },
    })
    clearInterval(timer)
    const end = await memory(url, child.pid!, t0)
    samples.push(end)
    print(end)
    const base = samples.find((s) => s.at >= warmup) ?? samples[0]!
    const growth = (end.rss - base.rss) / MB
    const errors = result.errors + result.non2xx + result.timeouts
    const held = growth < TARGET_GROWTH_MB && errors === 0
    console.log(
      `\n${Math.round(result.requests.average)} req/s answered (${result.requests.total} requests, ${result.non2xx} not 2xx, ${result.errors} errors, ${result.timeouts} time-outs)`,
    )
    console.log(
      `after the ${warmup} s warm-up (from ${base.at} s): RSS ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB, heap used ${((end.heap - base.heap) / MB).toFixed(1)} MB, external ${((end.external - base.external) / MB).toFixed(1)} MB`,
    )
    console.log(
      `target: RSS grows < ${TARGET_GROWTH_MB} MB after the warm-up with no errors: ${held ? 'held' : 'MISSED'}`,
    )
    return held
  } finally {
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = (await soak()) ? 0 : 1
