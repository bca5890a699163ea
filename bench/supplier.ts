/**
 * `npm run bench -- supplier`: what a misbehaving supplier costs the service (docs/decisions.md "A supplier
 * is an untrusted upstream"), measured on the service in-process over a SQLite file and the fake Duffel,
 * each figure beside the way it was before in the same run:
 *
 *   1. starvation: another seller's basket check, while one seller's 20 Duffel searches run against a Duffel
 *      answering each call in SUPPLIER_BENCH_SLOW_MS (default 1500): with the worker's lanes (now), and with
 *      every job in one lane, as the worker ran them before. Target: under 2 s now.
 *   2. purchases: a bag bought after booking while two workers race its order, Duffel's purchase taking
 *      longer than the job lease (300 ms lease, 1 s purchase); purchases counted at the fake over
 *      SUPPLIER_BENCH_RACES runs (default 20). Target: exactly one each.
 *   3. memory: the process's peak resident set above idle while a search reads a 1 GB answer, with the
 *      5 MiB read limit (now) and without one (as before). Target: under 50 MB now.
 *
 * These are counts and wall times of a scenario, not throughput: no ratio to a bare server applies. Each
 * timed figure is the median of its runs, with the spread.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes, randomUUID } from 'node:crypto'
import { createCore, JOB_KINDS, type Core } from '../core/core.ts'
import { createSandboxSupplier } from '../core/adapters/sandbox-airline/adapter.ts'
import { SqliteStore } from '../server/store/sqlite.ts'
import { buildApp } from '../server/app.ts'
import { startWorker } from '../server/worker.ts'
import { createDuffelSupplier } from '../server/suppliers/duffel/supplier.ts'
import { startFakeDuffel, type FakeDuffel } from '../test/fakes/duffel/server.ts'
import { duffelOfferFor } from '../test/helpers/duffel.ts'
import { streamHugeAnswer } from '../test/helpers/huge-answer.ts'
import { defaultTripRequest } from '../mock-server/fixtures.ts'
import { fulfillRequest } from '../test/helpers/flows.ts'
import type { TripCreateRequest } from '../core/schemas/trip.ts'

const SLOW_MS = Number(process.env.SUPPLIER_BENCH_SLOW_MS ?? 1500)
const RACES = Number(process.env.SUPPLIER_BENCH_RACES ?? 20)
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`
const quiet = { debug() {}, info() {}, warn() {} }
/** One secret for every instance: two on one database must unseal each other's signing keys. */
const SECRET = randomBytes(32).toString('base64')

/** The service in-process on a fresh SQLite file, with the sandbox airline and Duffel (its URL), and a Duffel seller. */
async function service(duffelUrl: string, token: string, config: Record<string, unknown> = {}, file?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-supplier-'))
  const store = new SqliteStore(file ?? join(dir, 'svc.db'))
  await store.migrate()
  const core = createCore({
    store,
    clock: { now: () => new Date() },
    ids: { uuid: () => randomUUID(), secret: (n) => randomBytes(n).toString('base64url') },
    suppliers: [createSandboxSupplier(), createDuffelSupplier({ baseUrl: duffelUrl, timeoutMs: 15_000 })],
    config: { signingKeySecret: SECRET, ...config },
  })
  await core.ensureSigningKey()
  const app = await buildApp({ core, store, logger: false, rateLimit: { max: 1_000_000, timeWindow: 60_000 } })
  const inject = async (method: string, url: string, key: string, payload?: unknown) => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: basic(key) },
      ...(payload === undefined ? {} : { payload: payload as object }),
    })
    return res.body ? JSON.parse(res.body) : undefined
  }
  return {
    core,
    store,
    inject,
    duffelSeller: () =>
      core.createSeller({
        name: 'Duffel seller',
        origins: [],
        sandbox: true,
        supplier: { name: 'duffel', credentials: token },
      }),
    sandboxSeller: () => core.createSeller({ name: 'Sandbox seller', origins: [], sandbox: true }),
    async close() {
      await app.close()
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const withOffer = (req: TripCreateRequest, metadata: Record<string, string>) => ({
  ...req,
  tickets: req.tickets.map((t) => ({ ...t, metadata })),
})

/** One lane for every job, as the worker ran them before the lanes. */
function oneLane(core: Core) {
  let stopping = false
  const loop = (async () => {
    while (!stopping) if (!(await core.processNextJob(JOB_KINDS))) await new Promise((r) => setTimeout(r, 20))
  })()
  return {
    stop: async () => {
      stopping = true
      await loop
    },
  }
}

async function starvation(fake: FakeDuffel, lanes: boolean): Promise<number[]> {
  const s = await service(fake.url, fake.token)
  const worker = lanes
    ? startWorker({ core: s.core, log: quiet, pollMs: 20, idleMs: 50, searchConcurrency: 4, retentionEveryMs: 0 })
    : oneLane(s.core)
  const times: number[] = []
  try {
    const a = await s.duffelSeller()
    const b = await s.sandboxSeller()
    fake.slow({ ms: SLOW_MS, match: 'GET *' })
    for (let round = 0; round < 3; round++) {
      // Seller A's travellers start 20 searches on a slow Duffel.
      for (let i = 0; i < 20; i++) {
        const req = defaultTripRequest(new Date())
        const { offer } = duffelOfferFor(fake, { passengers: req.passengers, journeys: req.tickets[0]!.journeys })
        await s.inject('POST', '/v2.2/trip', a.apiKey, withOffer(req, { duffel_offer_id: offer.id }))
      }
      // Seller B checks a basket on the sandbox airline.
      const trip = await s.inject('POST', '/v2.2/trip', b.apiKey, defaultTripRequest(new Date()))
      const search = await s.inject('GET', `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`, b.apiKey)
      const bag = Object.values(search.results.products.bag as Record<string, Product>).find(
        (p) => p.price_and_availability.p1?.available && !p.included,
      )!
      await s.inject('PATCH', `/v2.2/trip/${trip.trip_id}/basket`, b.apiKey, [
        { product_id: bag.product_id, passenger_id: 'p1', quantity: 1 },
      ])
      const started = performance.now()
      await s.inject('POST', `/v2.2/trip/${trip.trip_id}/basket/check`, b.apiKey)
      for (;;) {
        const basket = await s.inject('GET', `/v2.2/trip/${trip.trip_id}/basket`, b.apiKey)
        if (
          Object.values(basket.basket as Record<string, { validity: { status: string } }>).every(
            (i) => i.validity.status !== 'checking',
          )
        )
          break
        await new Promise((r) => setTimeout(r, 20))
      }
      times.push((performance.now() - started) / 1000)
      // The next round starts once A's searches have ended.
      while ((await s.store.countPendingJobs()).supplier_search) await new Promise((r) => setTimeout(r, 100))
    }
  } finally {
    fake.reset()
    await worker.stop()
    await s.close()
  }
  return times
}

/** A bag product as the search shows it, the parts read here. */
interface Product {
  product_id: string
  included?: boolean
  price_and_availability: Record<string, { available: boolean } | undefined>
}

async function races(fake: FakeDuffel): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-race-'))
  const file = join(dir, 'svc.db')
  const config = { jobLeaseMs: 300 }
  const one = await service(fake.url, fake.token, config, file)
  const two = await service(fake.url, fake.token, config, file)
  const counts: number[] = []
  try {
    const seller = await one.duffelSeller()
    fake.slow({ ms: 1000, match: 'POST /air/orders/*/services' })
    for (let run = 0; run < RACES; run++) {
      const req = defaultTripRequest(new Date())
      const { offer } = duffelOfferFor(fake, { passengers: req.passengers, journeys: req.tickets[0]!.journeys })
      const { order } = fake.bookOrder(offer.id, { postBookingBags: true })
      const trip = await one.inject('POST', '/v2.2/trip', seller.apiKey, {
        ...withOffer(req, { duffel_order_id: order.id }),
        search: { bag: { search: true } },
      })
      await one.core.drainJobs(['supplier_search'])
      const search = await one.inject('GET', `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`, seller.apiKey)
      const bag = Object.values(search.results.products.bag as Record<string, Product>).find(
        (p) => p.price_and_availability.p1?.available,
      )!
      const basket = await one.inject('PATCH', `/v2.2/trip/${trip.trip_id}/basket`, seller.apiKey, [
        { product_id: bag.product_id, passenger_id: 'p1', quantity: 1 },
      ])
      await one.inject(
        'POST',
        `/v2.2/trip/${trip.trip_id}/fulfill`,
        seller.apiKey,
        fulfillRequest(trip, basket.trip_state_hash),
      )
      const before = fake.order(order.id).order.services.length
      // Two workers take turns at the order as fast as they can, the purchase slower than the lease.
      const work = (s: typeof one) =>
        (async () => {
          for (let i = 0; i < 200; i++) {
            const o = Object.values(
              (await s.inject('GET', `/v2.2/trip/${trip.trip_id}`, seller.apiKey)).orders as Record<
                string,
                { status: string }
              >,
            )[0]!
            if (o.status === 'succeeded' || o.status === 'failed') return
            await s.core.processNextJob(['fulfill_order'])
            await new Promise((r) => setTimeout(r, 50))
          }
        })()
      await Promise.all([work(one), work(two)])
      counts.push(fake.order(order.id).order.services.length - before)
    }
  } finally {
    fake.reset()
    await one.close()
    await two.close()
    rmSync(dir, { recursive: true, force: true })
  }
  return counts
}

async function memory(capped: boolean): Promise<number> {
  const big = createServer((_req, res) => {
    streamHugeAnswer(res, { chunkBytes: 256 * 1024 })
  })
  await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve))
  const supplier = createDuffelSupplier({
    baseUrl: `http://127.0.0.1:${(big.address() as AddressInfo).port}`,
    timeoutMs: 120_000,
    ...(capped ? {} : { maxResponseBytes: Number.MAX_SAFE_INTEGER }),
  })
  const req = defaultTripRequest(new Date())
  const trip = {
    trip_id: 't',
    sandbox: true,
    journeys: [],
    passengers: [],
    tickets: [
      {
        ...req.tickets[0]!,
        ticket_id: 't1',
        journey_ids: [],
        basket_item_id: 'b',
        basket_item_ids: [],
        status: 'offered' as const,
        access_details: {},
        metadata: { duffel_offer_id: 'off_1' },
      },
    ],
  }
  globalThis.gc?.()
  const idle = process.memoryUsage().rss
  let peak = idle
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 5)
  await supplier
    .search({ seller_id: 's', sandbox: true, credentials: 'duffel_test_bench_0000000000' }, trip as never, ['bag'])
    .catch(() => {})
  peak = Math.max(peak, process.memoryUsage().rss)
  clearInterval(sampler)
  big.closeAllConnections()
  big.close()
  return (peak - idle) / (1024 * 1024)
}

export async function supplierBench(): Promise<void> {
  const fake = await startFakeDuffel()
  try {
    console.log(`\nsupplier: a misbehaving Duffel (calls answered in ${SLOW_MS} ms), the service in-process on SQLite`)
    const now = await starvation(fake, true)
    const before = await starvation(fake, false)
    console.log(
      `  1. another seller's basket check with 20 Duffel searches running: ${median(now).toFixed(2)} s (${spread(now)}) with the lanes; ${median(before).toFixed(2)} s (${spread(before)}) in one lane, as before  [target < 2 s]`,
    )
    const counts = await races(fake)
    const tally = Object.entries(counts.reduce<Record<number, number>>((t, n) => ({ ...t, [n]: (t[n] ?? 0) + 1 }), {}))
      .map(([n, runs]) => `${runs} run(s) bought ${n}`)
      .join(', ')
    console.log(
      `  2. a bag's order raced by two workers, the purchase slower than the lease, ${counts.length} runs: ${tally}  [target: every run bought 1]`,
    )
    const capped = [await memory(true), await memory(true), await memory(true)]
    const uncapped = await memory(false)
    console.log(
      `  3. peak RSS above idle while reading a 1 GB answer: ${median(capped).toFixed(1)} MB (${spread(capped)}) with the 5 MiB limit; ${uncapped.toFixed(0)} MB without one, as before  [target < 50 MB]`,
    )
  } finally {
    await fake.close()
  }
}
