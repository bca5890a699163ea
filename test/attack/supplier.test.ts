/**
 * A misbehaving supplier: the service in front of a Duffel that hangs, answers a gigabyte, prices a bag at
 * -45.00, echoes the seller's token in its errors, redirects a purchase elsewhere, names an order
 * `../../x`, sells a seat between two reads, and is slow to answer a purchase while a second worker wants
 * the job. Nine protections keep the seller whole, each proven here on SQLite and on PostgreSQL:
 *
 *  1. one traveller cannot stall another seller's jobs (the worker's lanes, one search per trip, 10 a minute);
 *  2. never a second purchase (the lease renewed while a run goes on, checked before a purchase, noted as sent);
 *  3. bounded answers (the streamed byte cap, seat map sizes, text cut to 200 characters);
 *  4. prices and types checked (no negative or absurd price ever shown or paid);
 *  5. no supplier text with a token in a log line or a job's last error;
 *  6. redirects refused (nothing reaches the place they point at);
 *  7. ids checked before they go into a path;
 *  8. seat maps keyed by their content (a seat sold since is never offered from a stale map);
 *  9. revoked keys: their creation tokens end within 10 s, trip tokens when the seller ends them.
 *
 * How: the real API (`app.inject`) and the real job runner (the worker of server/worker.ts, or cores
 * claiming jobs the way workers do) over a SQLite file and a PostgreSQL schema, in front of the fake Duffel
 * (test/fakes/duffel) reached through `misbehavingDuffel` (test/helpers/duffel.ts), a proxy that holds,
 * rewrites or replaces Duffel's answers. Races are made by holding a request at the proxy and moving the
 * test clock, never by sleeping; every wait is `until()` with a generous limit. What is asserted is what a
 * seller sees (API answers, logs, jobs) and what Duffel counted (requests, purchases, balance), never a
 * duration.
 */
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  build,
  basic,
  bearer,
  body,
  assertProblem,
  testClock,
  testIds,
  tripPayload,
  type Built,
  type TestClock,
} from '../helpers/build.ts'
import { fulfillRequest } from '../helpers/flows.ts'
import { duffelOfferFor, misbehavingDuffel, stubDuffel, type MisbehavingDuffel } from '../helpers/duffel.ts'
import { pgSchemas, type PgSchemas } from '../helpers/pg-schemas.ts'
import { until } from '../helpers/wait.ts'
import { streamHugeAnswer, type HugeAnswer } from '../helpers/huge-answer.ts'
import { startFakeDuffel, seatsOf, type FakeDuffel } from '../fakes/duffel/server.ts'
import { createDuffelSupplier, type DuffelSupplierOptions } from '../../server/suppliers/duffel/supplier.ts'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { startWorker, type Worker, type WorkerLog } from '../../server/worker.ts'
import { createCore, type Core, type CoreConfig } from '../../core/core.ts'
import type { Store } from '../../core/ports/store.ts'
import type { Supplier } from '../../core/ports/supplier.ts'
import type { TripCreateRequest } from '../../core/schemas/trip.ts'

const SECRET = 'a-signing-key-secret-of-32-chars-or-more'
const PG_URL = process.env.DATABASE_URL_PG
// What until() waits at most, on a quiet machine: until scales it to this one (test/helpers/patience.ts).
const WAIT = 30_000
/** How many times each race of case 2 is run, each on a fresh trip. */
const RACES = 20

// ---------------------------------------------------------------- stores

type Kind = 'sqlite' | 'postgres'
const dir = mkdtempSync(join(tmpdir(), 'svc-supplier-'))
let schemas: PgSchemas | undefined
let files = 0
after(async () => {
  await schemas?.drop()
  rmSync(dir, { recursive: true, force: true })
})

/** A new, migrated store of `kind`: a SQLite file of its own, or a PostgreSQL schema of its own. */
async function openStore(kind: Kind): Promise<Store> {
  let store: Store
  if (kind === 'sqlite') store = new SqliteStore(join(dir, `svc-${++files}.db`))
  else {
    schemas ??= pgSchemas(PG_URL!, 'svc_supplier')
    store = schemas.store(await schemas.fresh())
  }
  await store.migrate()
  return store
}

/** `describe(name)` on each store; without DATABASE_URL_PG the PostgreSQL one is registered skipped. */
function onEachStore(name: string, suite: (kind: Kind) => void) {
  for (const kind of ['sqlite', 'postgres'] as const) {
    if (kind === 'postgres' && !PG_URL) test(`${name} (postgres)`, { skip: 'DATABASE_URL_PG not set' }, () => {})
    else describe(`${name} (${kind})`, () => suite(kind))
  }
}

// ---------------------------------------------------------------- the world: a store, the API, a misbehaving Duffel

interface World {
  kind: Kind
  store: Store
  fake: FakeDuffel
  /** The proxy in front of the fake that the service talks to. */
  duffel: MisbehavingDuffel
  supplier: Supplier
  config: Partial<CoreConfig>
  t: Built
  /** The Duffel seller (the fake's default token) and its Authorization header. */
  sellerId: string
  apiKey: string
  auth: { authorization: string }
  close(): Promise<void>
}

async function world(
  kind: Kind,
  opts: { supplier?: Partial<DuffelSupplierOptions>; config?: Partial<CoreConfig>; captureLogs?: boolean } = {},
): Promise<World> {
  const store = await openStore(kind)
  const fake = await startFakeDuffel()
  const duffel = await misbehavingDuffel(fake.url)
  const supplier = createDuffelSupplier({ baseUrl: duffel.url, timeoutMs: 10_000, ...opts.supplier })
  const config = { signingKeySecret: SECRET, ...opts.config }
  const t = await build({ store, suppliers: [supplier], config, captureLogs: opts.captureLogs ?? false })
  // The fake's offers expire by the real clock: the service's clock starts at the real time (and stays there unless moved).
  t.clock.set(new Date())
  const { seller, apiKey } = await t.core.createSeller({
    name: 'Duffel shop',
    origins: [],
    sandbox: true,
    supplier: { name: 'duffel', credentials: fake.token },
  })
  return {
    kind,
    store,
    fake,
    duffel,
    supplier,
    config,
    t,
    sellerId: seller.seller_id,
    apiKey,
    auth: { authorization: basic(apiKey) },
    async close() {
      duffel.reset()
      duffel.releaseAll()
      await t.close()
      await duffel.close()
      await fake.close()
      await store.close()
    },
  }
}

/** Another Duffel seller of the world, on a Duffel account (token) of its own. */
async function anotherSeller(w: World, name: string) {
  const token = `duffel_test_${name.toLowerCase().replace(/\W/g, '')}_0000000000`
  w.fake.addToken(token)
  const { seller, apiKey } = await w.t.core.createSeller({
    name,
    origins: [],
    sandbox: true,
    supplier: { name: 'duffel', credentials: token },
  })
  return { sellerId: seller.seller_id, token, auth: { authorization: basic(apiKey) } }
}

/** A worker's core beside the API's, on the same store and Duffel: what `npm run worker` runs, with its own clock if given. */
const workerCore = (w: World, clock: TestClock = w.t.clock): Core =>
  createCore({ store: w.store, suppliers: [w.supplier], clock, ids: testIds(), config: w.config })

/** A worker log that keeps every line as JSON text. */
function captureLog(): WorkerLog & { lines: string[] } {
  const lines: string[] = []
  const line = (level: string) => (obj: object, msg: string) => {
    lines.push(JSON.stringify({ level, ...obj, msg }))
  }
  return { lines, debug: line('debug'), info: line('info'), warn: line('warn') }
}

// ---------------------------------------------------------------- the seller's steps over HTTP

/** The default trip (two adults and a lap infant, LHR ⇄ JFK) whose tickets name `metadata` (a Duffel offer or order). */
function tripRequest(
  w: World,
  metadata: Record<string, string>,
  over: Partial<TripCreateRequest> = {},
): TripCreateRequest {
  const p = tripPayload(w.t.clock.now(), over)
  return { ...p, tickets: p.tickets.map((tk) => ({ ...tk, metadata: { ...tk.metadata, ...metadata } })) }
}

/** A fake Duffel offer for the trip's flights and passengers (of the world's seller unless `token` says). */
const offerFor = (w: World, opts: Parameters<typeof duffelOfferFor>[2] = {}) => {
  const req = tripPayload(w.t.clock.now())
  return duffelOfferFor(w.fake, { passengers: req.passengers, journeys: req.tickets[0]!.journeys }, opts)
}

async function createTrip(w: World, req: TripCreateRequest, auth = w.auth) {
  const res = await w.t.app.inject({ method: 'POST', url: '/v2.2/trip', headers: auth, payload: req })
  assert.equal(res.statusCode, 201, res.body)
  return body(res)
}

async function readSearch(w: World, tripId: string, searchId: string, auth = w.auth) {
  const res = await w.t.app.inject({ method: 'GET', url: `/v2.2/trip/${tripId}/search/${searchId}`, headers: auth })
  assert.equal(res.statusCode, 200, res.body)
  return body(res)
}

async function readTrip(w: World, tripId: string, auth = w.auth) {
  const res = await w.t.app.inject({ method: 'GET', url: `/v2.2/trip/${tripId}`, headers: auth })
  assert.equal(res.statusCode, 200, res.body)
  return body(res)
}

async function readBasket(w: World, tripId: string, auth = w.auth) {
  const res = await w.t.app.inject({ method: 'GET', url: `/v2.2/trip/${tripId}/basket`, headers: auth })
  assert.equal(res.statusCode, 200, res.body)
  return body(res)
}

/** The search once its job has ended (run by this test's drain, or by a worker running beside it). */
async function endedSearch(
  w: World,
  tripId: string,
  searchId: string,
  opts: { drain?: boolean; auth?: { authorization: string } } = {},
) {
  return until(`search ${searchId} to end`, WAIT, async () => {
    if (opts.drain !== false) await w.t.core.drainJobs(['supplier_search'])
    const s = await readSearch(w, tripId, searchId, opts.auth)
    return s.status === 'in_progress' ? undefined : s
  })
}

const checkedBag = (search: any, pid = 'p1') =>
  Object.values<any>(search.results.products.bag ?? {}).find(
    (p) => p.product_details.checked && p.price_and_availability[pid]?.available,
  )

async function addToBasket(w: World, tripId: string, productId: string, passengerId = 'p1', auth = w.auth) {
  return w.t.app.inject({
    method: 'PATCH',
    url: `/v2.2/trip/${tripId}/basket`,
    headers: auth,
    payload: [{ product_id: productId, passenger_id: passengerId, quantity: 1 }],
  })
}

/**
 * A trip after booking: a Duffel order that sells bags after booking, a trip naming it, a checked bag for
 * p1 in its basket, and the fulfill that queues the bag's order (its job not run yet).
 */
async function bagAfterBooking(w: World) {
  const { offer } = offerFor(w)
  const { order } = w.fake.bookOrder(offer.id, { postBookingBags: true })
  const trip = await createTrip(w, tripRequest(w, { duffel_order_id: order.id }, { search: { bag: { search: true } } }))
  const search = await endedSearch(w, trip.trip_id, trip.search_id)
  assert.equal(search.status, 'success', JSON.stringify(search))
  const added = await addToBasket(w, trip.trip_id, checkedBag(search).product_id)
  assert.equal(added.statusCode, 200, added.body)
  const res = await w.t.app.inject({
    method: 'POST',
    url: `/v2.2/trip/${trip.trip_id}/fulfill`,
    headers: w.auth,
    payload: fulfillRequest(trip, body(added).trip_state_hash),
  })
  assert.equal(res.statusCode, 202, res.body)
  return { order, trip, item: Object.values<any>(body(added).basket).find((i) => i.product_type === 'bag') }
}

/** The trip's one order (the bag's), as the seller reads it. */
const theOrder = async (w: World, tripId: string) => {
  const orders = Object.values<any>((await readTrip(w, tripId)).orders)
  assert.equal(orders.length, 1, JSON.stringify(orders))
  return orders[0]
}

/** Purchases sent to Duffel for an order (POST …/services the fake received) and units of bags it holds now. */
const purchasesSent = (w: World, orderId: string) =>
  w.fake.requests.filter((r) => r.method === 'POST' && r.path === `/air/orders/${orderId}/services`).length
const bagsHeld = (w: World, orderId: string) =>
  w.fake
    .order(orderId)
    .order.services.filter((s) => s.type === 'baggage')
    .reduce((n, s) => n + s.quantity, 0)
/** The seller's Duffel balance, in pence. */
const balance = (w: World, token = w.fake.token) => Math.round(Number(w.fake.balance(token).amount) * 100)

/** Every `amount` in an API answer: none negative, none absurd (a bag or a seat costs less than 100,000 in any currency). */
function assertSanePrices(answer: unknown, where: string) {
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}/${i}`))
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === 'number' && /amount|price|total/.test(k))
          assert.ok(x >= 0 && x <= 10_000_000, `${where}${path}/${k} is ${x}`)
        walk(x, `${path}/${k}`)
      }
    }
  }
  walk(answer, '')
}

// ================================================================ 1

onEachStore("1. one traveller cannot stall another seller's jobs", (kind) => {
  let w: World
  let worker: Worker
  let b: Awaited<ReturnType<typeof anotherSeller>>
  before(async () => {
    // Duffel never answers seller A's calls (held at the proxy until the end); seller B's are answered at once.
    w = await world(kind, { supplier: { timeoutMs: 120_000 } })
    b = await anotherSeller(w, 'Seller B')
    w.duffel.misbehave({ match: '*', token: w.fake.token, hold: true })
    worker = startWorker({
      core: w.t.core,
      log: captureLog(),
      pollMs: 10,
      idleMs: 50,
      searchConcurrency: 4,
      retentionEveryMs: 0,
    })
  })
  after(async () => {
    w.duffel.reset()
    w.duffel.releaseAll()
    await worker.stop()
    await w.close()
  })

  const heldOfA = () => w.duffel.held.filter((h) => h.token === w.fake.token)

  const jobsOf = async (tripId: string) =>
    (await w.store.listJobs(['supplier_search'])).filter((j) => (j.payload as { trip_id: string }).trip_id === tripId)

  /** A trip of seller A made without a search, and what its traveller's browser sends to search it. */
  async function tripWithoutSearch() {
    const req = tripRequest(w, { duffel_offer_id: offerFor(w).offer.id })
    delete req.search
    const trip = await createTrip(w, req)
    assert.equal(trip.search_id, null, 'created without a search')
    const search = () =>
      w.t.app.inject({
        method: 'POST',
        url: `/v2.2/trip/${trip.trip_id}/search`,
        headers: { authorization: bearer(trip.trip_access_token) },
        payload: { bag: { search: true }, seat: { search: true } },
      })
    return { trip, search }
  }

  test('20 searches asked at once with one trip access token are one search job: every request joins it (same search_id)', async () => {
    const { trip, search } = await tripWithoutSearch()
    const asked = await Promise.all(Array.from({ length: 20 }, search))
    const jobs = await jobsOf(trip.trip_id)
    const answers = asked.map((res) =>
      res.statusCode === 201 ? body(res).search_id : `${res.statusCode} ${body(res).code}`,
    )
    const seen = [...new Set(answers)].map((a) => `${answers.filter((x) => x === a).length} × ${a}`)
    assert.equal(jobs.length, 1, `one search job for the trip, not ${jobs.length}; the 20 answers: ${seen.join(', ')}`)
    assert.deepEqual(
      seen,
      [`20 × ${(jobs[0]!.payload as { search_id: string }).search_id}`],
      'every request joined the one search',
    )
  })

  test("20 searches of one trip one after another are one search job; A's searches hang on Duffel holding half the lane; B's search and basket check complete meanwhile", async () => {
    const { trip: t1, search } = await tripWithoutSearch()
    const ids = new Set<string>()
    for (let i = 0; i < 20; i++) {
      const res = await search()
      assert.equal(res.statusCode, 201, res.body)
      ids.add(body(res).search_id)
    }
    assert.equal(ids.size, 1, `one search, not ${ids.size}`)
    assert.equal((await jobsOf(t1.trip_id)).length, 1, 'one search job')

    // Six more trips of A, each searching at creation: A has seven searches (and more) to run, Duffel answers none.
    const others = []
    for (let i = 0; i < 6; i++)
      others.push(await createTrip(w, tripRequest(w, { duffel_offer_id: offerFor(w).offer.id })))
    const searchesOfA = [
      { trip_id: t1.trip_id, search_id: [...ids][0] as string },
      ...others.map((o) => ({ trip_id: o.trip_id, search_id: o.search_id as string })),
    ]
    // The lane runs 4 searches at once; A holds its half (2) of it, and no more.
    await until(
      () => `A to hold its share of the search lane (2 calls held at Duffel; now ${heldOfA().length})`,
      WAIT,
      () => (heldOfA().length === 2 ? true : undefined),
    )

    // Seller B, meanwhile: its search runs in the free half of the lane, its basket check in the other lane.
    const bOffer = offerFor(w, { token: b.token })
    const tb = await createTrip(w, tripRequest(w, { duffel_offer_id: bOffer.offer.id }), b.auth)
    const bSearch = await endedSearch(w, tb.trip_id, tb.search_id, { drain: false, auth: b.auth })
    assert.equal(bSearch.status, 'success', JSON.stringify(bSearch).slice(0, 300))
    const added = await addToBasket(w, tb.trip_id, checkedBag(bSearch).product_id, 'p1', b.auth)
    assert.equal(added.statusCode, 200, added.body)
    assert.equal(
      (await w.t.app.inject({ method: 'POST', url: `/v2.2/trip/${tb.trip_id}/basket/check`, headers: b.auth }))
        .statusCode,
      202,
    )
    const checked = await until("B's basket check to end", WAIT, async () => {
      const items = Object.values<any>((await readBasket(w, tb.trip_id, b.auth)).basket).filter(
        (i) => i.product_type === 'bag',
      )
      return items.some((i) => i.validity.status === 'checking') ? undefined : items
    })
    assert.deepEqual(
      checked.map((i) => i.validity.status),
      ['valid'],
    )

    // ... while every search of A is still unanswered: the order of events is the proof.
    for (const s of searchesOfA) assert.equal((await readSearch(w, s.trip_id, s.search_id)).status, 'in_progress')
    assert.equal(heldOfA().length, 2, 'A still holds two searches of the lane, and no more')
    assert.ok(
      w.fake.requests.every((r) => r.token !== w.fake.token),
      "Duffel answered none of A's calls",
    )
  })

  test("a trip access token starts at most 10 searches a minute: the 11th is 429 with Retry-After; the seller's API key is not held to it", async () => {
    const offer = offerFor(w, { token: b.token })
    const req = tripRequest(w, { duffel_offer_id: offer.offer.id })
    delete req.search
    const trip = await createTrip(w, req, b.auth)
    const traveller = { authorization: bearer(trip.trip_access_token) }
    const search = () =>
      w.t.app.inject({
        method: 'POST',
        url: `/v2.2/trip/${trip.trip_id}/search`,
        headers: traveller,
        payload: { bag: { search: true } },
      })
    const started = new Set<string>()
    for (let i = 0; i < 10; i++) {
      const res = await search()
      assert.equal(res.statusCode, 201, res.body)
      started.add(body(res).search_id)
      // Each ends before the next, so each is a new search (a request while one runs joins it).
      await endedSearch(w, trip.trip_id, body(res).search_id, { drain: false, auth: traveller })
    }
    assert.equal(started.size, 10)
    const eleventh = await search()
    assertProblem(eleventh, 429, 'rate_limited')
    assert.match(String(eleventh.headers['retry-after']), /^\d+$/)
    assert.ok(Number(eleventh.headers['retry-after']) >= 1 && Number(eleventh.headers['retry-after']) <= 60)
    const bySeller = await w.t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/search`,
      headers: b.auth,
      payload: { bag: { search: true } },
    })
    assert.equal(bySeller.statusCode, 201, bySeller.body)
  })
})

// ================================================================ 2

onEachStore('2. never a second purchase', (kind) => {
  const LEASE_MS = 300
  const RECONCILE_MS = 1_000
  let w: World
  before(async () => {
    w = await world(kind, { config: { jobLeaseMs: LEASE_MS, reconcileMs: RECONCILE_MS, reconcileWindowMs: 5_000 } })
  })
  after(() => w.close())

  /** The fulfill job of a trip, as the store has it. */
  const fulfillJob = async (tripId: string) => {
    const job = (await w.store.listJobs(['fulfill_order'])).find(
      (j) => (j.payload as { trip_id: string }).trip_id === tripId,
    )
    assert.ok(job, "the trip's fulfill job")
    return job
  }

  /**
   * The run a worker makes once it claims the job. A claim skips a job row another transaction holds
   * (PostgreSQL's SKIP LOCKED), such as the stalled run's lease renewal still in flight on a loaded machine,
   * and a worker then finds nothing this time: as a polling worker would, it asks again.
   */
  const claimed = (worker: ReturnType<typeof workerCore>) =>
    until('the job to be claimed', WAIT, async () => (await worker.processNextJob(['fulfill_order'])) ?? undefined)

  /** After a race: the order succeeded, Duffel sold the bag exactly once, and was paid for it exactly once. */
  async function boughtOnce(x: Awaited<ReturnType<typeof bagAfterBooking>>, before: number, round: number) {
    const o = await theOrder(w, x.trip.trip_id)
    assert.equal(o.status, 'succeeded', `round ${round}: ${JSON.stringify(o)}`)
    assert.equal(purchasesSent(w, x.order.id), 1, `round ${round}: purchases sent to Duffel`)
    assert.equal(bagsHeld(w, x.order.id), 1, `round ${round}: bags on the Duffel order`)
    assert.equal(before - balance(w), 4500, `round ${round}: paid once, at Duffel's price`)
  }

  test(`(a) a purchase answered after several leases: the run renews its lease, a second worker never gets the job (${RACES} races)`, async () => {
    for (let round = 1; round <= RACES; round++) {
      const x = await bagAfterBooking(w)
      const paid = balance(w)
      const [first, second] = [workerCore(w), workerCore(w)]
      w.duffel.misbehave({ match: 'POST /air/orders/*/services', hold: true, times: 1 })
      const run = first.processNextJob(['fulfill_order'])
      const [purchase] = await until('the purchase to reach Duffel', WAIT, () =>
        w.duffel.held.length ? [...w.duffel.held] : undefined,
      )
      const claimedUntil = Date.parse((await fulfillJob(x.trip.trip_id)).locked_until!)
      // Time passes by halves of the lease; after each, once the run has renewed, the second worker tries.
      for (let i = 0; i < 3; i++) {
        w.t.clock.advance(LEASE_MS / 2)
        await until('the lease to be renewed', WAIT, async () => {
          const job = await fulfillJob(x.trip.trip_id)
          return Date.parse(job.locked_until!) >= w.t.clock.now().getTime() + LEASE_MS ? true : undefined
        })
        assert.equal(
          await second.processNextJob(['fulfill_order']),
          null,
          `round ${round}: the job is still the first run's`,
        )
      }
      assert.ok(w.t.clock.now().getTime() > claimedUntil, 'the first lease alone would have lapsed')
      purchase!.release()
      assert.equal((await run)?.outcome, 'done')
      await boughtOnce(x, paid, round)
    }
  })

  test(`(b) the run stalls before buying and its lease lapses: the next worker buys, the stalled run's purchase is refused (lease_lost) (${RACES} races)`, async () => {
    for (let round = 1; round <= RACES; round++) {
      const x = await bagAfterBooking(w)
      const paid = balance(w)
      // The first worker's clock stands still: its renewals come too late, as a stalled process's would.
      const stalled = testClock(w.t.clock.now().toISOString())
      const [first, second] = [workerCore(w, stalled), workerCore(w)]
      // Held right before the purchase: reading what the order sells.
      w.duffel.misbehave({ match: 'GET /air/orders/*/available_services', hold: true, times: 1 })
      const run = first.processNextJob(['fulfill_order'])
      const [reading] = await until("the first run to read the order's services", WAIT, () =>
        w.duffel.held.length ? [...w.duffel.held] : undefined,
      )
      w.t.clock.advance(2 * LEASE_MS)
      assert.equal((await claimed(second)).outcome, 'done', `round ${round}: the second worker took the job over`)
      reading!.release()
      assert.equal((await run)?.outcome, 'lease_lost', `round ${round}: beforePurchase stopped the stalled run`)
      await boughtOnce(x, paid, round)
    }
  })

  test(`(b) the run stalls after sending the purchase: the next worker only looks (purchase_sent), the purchase lands once (${RACES} races)`, async () => {
    for (let round = 1; round <= RACES; round++) {
      const x = await bagAfterBooking(w)
      const paid = balance(w)
      const stalled = testClock(w.t.clock.now().toISOString())
      const [first, second] = [workerCore(w, stalled), workerCore(w)]
      w.duffel.misbehave({ match: 'POST /air/orders/*/services', hold: true, times: 1 })
      const run = first.processNextJob(['fulfill_order'])
      const [purchase] = await until('the purchase to reach Duffel', WAIT, () =>
        w.duffel.held.length ? [...w.duffel.held] : undefined,
      )
      w.t.clock.advance(2 * LEASE_MS)
      assert.equal((await claimed(second)).outcome, 'waiting', `round ${round}: the second worker looked and waits`)
      assert.equal(
        w.duffel.requests.filter((r) => r.method === 'POST' && r.path === `/air/orders/${x.order.id}/services`).length,
        1,
        'it sent no purchase of its own',
      )
      purchase!.release()
      assert.equal((await run)?.outcome, 'lease_lost')
      w.t.clock.advance(RECONCILE_MS)
      assert.equal((await claimed(second)).outcome, 'done')
      await boughtOnce(x, paid, round)
    }
  })

  test(`(c) the purchase's answer is lost after Duffel carried it out: later runs find it and never buy again (${RACES} races)`, async () => {
    for (let round = 1; round <= RACES; round++) {
      const x = await bagAfterBooking(w)
      const paid = balance(w)
      w.fake.lostResponseAfterPurchase()
      assert.equal(
        (await workerCore(w).processNextJob(['fulfill_order']))?.outcome,
        'waiting',
        `round ${round}: the answer was lost`,
      )
      w.t.clock.advance(RECONCILE_MS)
      assert.equal((await workerCore(w).processNextJob(['fulfill_order']))?.outcome, 'done')
      w.fake.reset()
      await boughtOnce(x, paid, round)
    }
  })

  test(`(c) the purchase fails on Duffel's side (a 500): never sent again; the order ends supplier_outcome_unknown, nothing paid (${RACES} races)`, async () => {
    for (let round = 1; round <= RACES; round++) {
      const x = await bagAfterBooking(w)
      const paid = balance(w)
      w.fake.serverError({ status: 500, match: 'POST /air/orders/*/services' })
      const o = await until('the order to end', WAIT, async () => {
        await workerCore(w).processNextJob(['fulfill_order'])
        w.t.clock.advance(RECONCILE_MS)
        const order = await theOrder(w, x.trip.trip_id)
        return order.status === 'failed' || order.status === 'succeeded' ? order : undefined
      })
      w.fake.reset()
      assert.deepEqual([o.status, o.failure_reason], ['failed', 'supplier_outcome_unknown'], `round ${round}`)
      assert.equal(
        w.duffel.requests.filter((r) => r.method === 'POST' && r.path === `/air/orders/${x.order.id}/services`).length,
        1,
        `round ${round}: sent once`,
      )
      assert.equal(bagsHeld(w, x.order.id), 0)
      assert.equal(balance(w), paid, 'nothing paid')
    }
  })
})

// ================================================================ 3

onEachStore('3. bounded answers', (kind) => {
  let w: World
  before(async () => {
    w = await world(kind)
  })
  after(() => w.close())

  test('a 1 GB answer to GET /air/offers is dropped as it streams: the search fails supplier_invalid_answer, asked once, and Duffel stopped sending early', async () => {
    let answer: HugeAnswer | undefined
    let asked = 0
    w.duffel.misbehave({
      match: 'GET /air/offers/*',
      times: 1,
      take: (_req, res) => {
        asked++
        answer = streamHugeAnswer(res)
      },
    })
    const { offer } = offerFor(w)
    const trip = await createTrip(w, tripRequest(w, { duffel_offer_id: offer.id }))
    const search = await endedSearch(w, trip.trip_id, trip.search_id)
    assert.deepEqual([search.status, search.failure_reason], ['failed', 'supplier_invalid_answer'])
    await until('the connection to close', WAIT, () => (answer?.closed ? true : undefined))
    assert.ok(answer!.sent < 64 * 1024 ** 2, `stopped reading early: ${answer!.sent} bytes were sent of a 1 GB answer`)
    // Not retried: the same answer would come again.
    w.t.clock.advance(60 * 60_000)
    await w.t.core.drainJobs()
    assert.equal(asked, 1)
    assert.equal(w.duffel.requests.filter((r) => r.path === `/air/offers/${offer.id}`).length, 1, 'asked once')
    assert.deepEqual(
      (await w.store.listJobs(['supplier_search']))
        .filter((j) => (j.payload as { trip_id: string }).trip_id === trip.trip_id)
        .map((j) => [j.status, j.attempts]),
      [['done', 1]],
    )
  })

  test('a seat map of 100,000 seats (within the byte cap) is not read: the search succeeds with bags, seats in partial_failures as supplier_invalid_answer', async () => {
    let size = 0
    w.duffel.misbehave({
      match: 'GET /air/seat_maps',
      times: 1,
      rewrite: (answer: any) => {
        const seat = (i: number) => ({ type: 'seat', designator: `${1 + (i % 200)}${'ABCDEFGHJK'[i % 10]}` })
        const rows = Array.from({ length: 200 }, () => ({
          sections: Array.from({ length: 10 }, (_, s) => ({
            elements: Array.from({ length: 50 }, (_, e) => seat(s * 50 + e)),
          })),
        }))
        const huge = {
          data: [
            { segment_id: answer.data[0].segment_id, cabins: [{ deck: 0, cabin_class: 'economy', wings: null, rows }] },
            ...answer.data.slice(1),
          ],
        }
        size = JSON.stringify(huge).length
        return huge
      },
    })
    const { offer } = offerFor(w)
    const trip = await createTrip(w, tripRequest(w, { duffel_offer_id: offer.id }))
    const search = await endedSearch(w, trip.trip_id, trip.search_id)
    assert.ok(
      size > 1024 ** 2 && size < 5 * 1024 ** 2,
      `the map (${size} bytes) is within the 5 MiB read: its seats refused it, not its bytes`,
    )
    assert.equal(search.status, 'success', JSON.stringify(search).slice(0, 300))
    assert.deepEqual(search.partial_failures, [{ product_type: 'seat', failure_reason: 'supplier_invalid_answer' }])
    assert.ok(checkedBag(search), 'bags are offered')
    assert.deepEqual(search.results.seatmaps, [])
  })

  test("a seat's notice of 10,000 characters is kept to 200; one of 200 KB (within the byte cap) is not read: seats fail alone", async () => {
    const notice = (length: number) => (answer: any) => {
      for (const map of answer.data) {
        const seat = seatsOf([map]).find((s) => s.seat.available_services.length > 0)!.seat
        seat.disclosures = [`${'Notice '.repeat(Math.ceil(length / 7))}`.slice(0, length)]
      }
      return answer
    }
    const { offer } = offerFor(w)
    w.duffel.misbehave({ match: 'GET /air/seat_maps', times: 1, rewrite: notice(10_000) })
    const trip = await createTrip(w, tripRequest(w, { duffel_offer_id: offer.id }))
    const search = await endedSearch(w, trip.trip_id, trip.search_id)
    assert.equal(search.status, 'success')
    assert.equal(search.partial_failures, undefined)
    const disclosures = search.results.seatmaps.flatMap((m: any) =>
      m.decks.flatMap((d: any) => d.rows.flatMap((r: any) => r.seats.flatMap((s: any) => s.disclosures ?? []))),
    )
    assert.ok(disclosures.length >= 2)
    for (const d of disclosures) assert.ok(d.length <= 200, `a notice of ${d.length} characters`)
    assert.ok(
      disclosures.some((d: string) => d.length === 200 && d.startsWith('Notice Notice')),
      'the long notice, cut to 200',
    )

    w.duffel.misbehave({ match: 'GET /air/seat_maps', times: 1, rewrite: notice(200 * 1024) })
    const big = await createTrip(w, tripRequest(w, { duffel_offer_id: offerFor(w).offer.id }))
    const bigSearch = await endedSearch(w, big.trip_id, big.search_id)
    assert.equal(bigSearch.status, 'success')
    assert.deepEqual(bigSearch.partial_failures, [{ product_type: 'seat', failure_reason: 'supplier_invalid_answer' }])
    assert.ok(checkedBag(bigSearch))
    const res = await w.t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${big.trip_id}/search/${big.search_id}`,
      headers: w.auth,
    })
    assert.ok(!res.body.includes('Notice Notice'), 'none of the notice is shown')
  })
})

// ================================================================ 4

onEachStore('4. prices and types checked', (kind) => {
  let w: World
  before(async () => {
    w = await world(kind)
  })
  after(() => w.close())

  /** Duffel's offer with its first baggage service changed by `change`. */
  const badBag = (change: (service: any) => void) => (answer: any) => {
    change(answer.data.available_services.find((s: any) => s.type === 'baggage'))
    return answer
  }

  for (const [name, change] of [
    [
      'a bag at "-45.00"',
      (s: any) => {
        s.total_amount = '-45.00'
      },
    ],
    [
      'a bag at "99999999.00"',
      (s: any) => {
        s.total_amount = '99999999.00'
      },
    ],
    [
      'a bag whose maximum_weight_kg is a string',
      (s: any) => {
        s.metadata.maximum_weight_kg = '23'
      },
    ],
  ] as const) {
    test(`${name}: no bag is offered (bags in partial_failures, supplier_invalid_answer), seats are, and no answer shows a negative or absurd price`, async () => {
      const { offer } = offerFor(w)
      w.duffel.misbehave({ match: `GET /air/offers/${offer.id}`, rewrite: badBag(change) })
      const trip = await createTrip(w, tripRequest(w, { duffel_offer_id: offer.id }))
      const search = await endedSearch(w, trip.trip_id, trip.search_id)
      assert.equal(search.status, 'success')
      assert.deepEqual(search.partial_failures, [{ product_type: 'bag', failure_reason: 'supplier_invalid_answer' }])
      assert.deepEqual(search.results.products.bag ?? {}, {})
      assert.ok(search.results.seatmaps.length > 0, 'seats are offered')
      // A traveller's read too, the basket and the trip: nothing priced from the bad answer anywhere.
      const traveller = { authorization: bearer(trip.trip_access_token) }
      for (const [where, answer] of [
        ['search', search],
        ['search (traveller)', await readSearch(w, trip.trip_id, trip.search_id, traveller)],
        ['basket', await readBasket(w, trip.trip_id)],
        ['trip', await readTrip(w, trip.trip_id)],
      ] as const)
        assertSanePrices(answer, where)
      w.duffel.reset()
    })
  }

  test("at fulfill, the order's bag now at a negative price: the order fails, and nothing is bought", async () => {
    const { offer } = offerFor(w)
    const { order } = w.fake.bookOrder(offer.id, { postBookingBags: true })
    const trip = await createTrip(
      w,
      tripRequest(w, { duffel_order_id: order.id }, { search: { bag: { search: true } } }),
    )
    const search = await endedSearch(w, trip.trip_id, trip.search_id)
    const added = await addToBasket(w, trip.trip_id, checkedBag(search).product_id)
    assert.equal(added.statusCode, 200, added.body)
    w.duffel.misbehave({
      match: 'GET /air/orders/*/available_services',
      rewrite: (answer: any) => ({
        ...answer,
        data: answer.data.map((s: any) => (s.type === 'baggage' ? { ...s, total_amount: '-45.00' } : s)),
      }),
    })
    const paid = balance(w)
    const res = await w.t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/fulfill`,
      headers: w.auth,
      payload: fulfillRequest(trip, body(added).trip_state_hash),
    })
    assert.equal(res.statusCode, 202, res.body)
    const o = await until('the order to end', WAIT, async () => {
      await w.t.core.drainJobs()
      const x = await theOrder(w, trip.trip_id)
      return x.status === 'failed' || x.status === 'succeeded' ? x : undefined
    })
    w.duffel.reset()
    assert.deepEqual([o.status, o.failure_reason], ['failed', 'supplier_invalid_answer'])
    assert.equal(w.duffel.requests.filter((r) => r.method === 'POST').length, 0, 'no purchase sent')
    assert.equal(balance(w), paid)
    assertSanePrices(await readTrip(w, trip.trip_id), 'trip')
  })
})

// ================================================================ 5

onEachStore('5. supplier text in logs', (kind) => {
  let w: World
  before(async () => {
    w = await world(kind, { captureLogs: true, config: { backoffBaseMs: 100, backoffCapMs: 400 } })
  })
  after(() => w.close())

  test('a Duffel error echoing "Authorization: Bearer <the seller\'s token>", 10 KB long, on a retried search: no log line nor job error holds the token, and the error stays short', async () => {
    const token = w.fake.token
    const log = captureLog()
    const echo = (authorization: string) =>
      `We received "Authorization: ${authorization}" and could not serve it. ${'Please retry later. '.repeat(520)}`
    assert.ok(echo(`Bearer ${token}`).length > 10_000)
    w.duffel.misbehave({
      match: 'GET /air/offers/*',
      answer: (_req, authorization) => ({
        status: 503,
        body: {
          errors: [
            {
              type: 'api_error',
              code: `unavailable ${authorization}`,
              title: `Unavailable for ${authorization}`,
              message: echo(authorization),
            },
          ],
          meta: { status: 503, request_id: authorization },
        },
      }),
    })
    const { offer } = offerFor(w)
    const trip = await createTrip(w, tripRequest(w, { duffel_offer_id: offer.id }))
    const worker = startWorker({
      core: w.t.core,
      log,
      pollMs: 10,
      idleMs: 50,
      searchConcurrency: 4,
      retentionEveryMs: 0,
    })
    try {
      // Each retry is due after its backoff on the test clock: the clock is moved on while the worker runs.
      const search = await until('the search to be given up', WAIT, async () => {
        w.t.clock.advance(1_000)
        const s = await readSearch(w, trip.trip_id, trip.search_id)
        return s.status === 'in_progress' ? undefined : s
      })
      assert.deepEqual([search.status, search.failure_reason], ['failed', 'supplier_unavailable'])
    } finally {
      await worker.stop()
      w.duffel.reset()
    }
    const asked = w.duffel.requests.filter((r) => r.path === `/air/offers/${offer.id}`)
    assert.equal(asked.length, 3, 'retried: three attempts')
    assert.ok(
      asked.every((r) => r.token === token),
      'the token was sent to Duffel, and echoed back',
    )
    const [job] = (await w.store.listJobs(['supplier_search'])).filter(
      (j) => (j.payload as { trip_id: string }).trip_id === trip.trip_id,
    )
    assert.equal(job!.attempts, 3)
    assert.ok(job!.last_error, 'the job kept its last error')
    assert.ok(job!.last_error!.length < 600, `last_error is ${job!.last_error!.length} characters`)
    assert.match(job!.last_error!, /503/)
    const lines = [...w.t.logs, ...log.lines]
    assert.ok(
      log.lines.some((l) => l.includes('will retry')),
      'the worker logged the retries',
    )
    for (const text of [job!.last_error!, ...lines]) {
      assert.ok(!text.includes(token), `the token in: ${text.slice(0, 300)}`)
      assert.ok(!/duffel_test_/.test(text), `a token's prefix in: ${text.slice(0, 300)}`)
    }
    assert.ok(!JSON.stringify(await readSearch(w, trip.trip_id, trip.search_id)).includes(token))
  })
})

// ================================================================ 6

onEachStore('6. redirects refused', (kind) => {
  let w: World
  let elsewhere: Awaited<ReturnType<typeof stubDuffel>>
  before(async () => {
    w = await world(kind)
    // Where the redirects point: a server that must receive nothing (the token, a purchase's body).
    elsewhere = await stubDuffel({})
  })
  after(async () => {
    await elsewhere.close()
    await w.close()
  })

  const redirect = (status: number) => ({
    status,
    headers: { location: `${elsewhere.url}/air/orders/ord_elsewhere/services` },
  })

  test('a purchase answered with a 307 to another server: that server receives nothing, and the order fails unbought', async () => {
    const x = await bagAfterBooking(w)
    const paid = balance(w)
    w.duffel.misbehave({ match: 'POST /air/orders/*/services', answer: redirect(307) })
    const o = await until('the order to end', WAIT, async () => {
      await w.t.core.drainJobs()
      const order = await theOrder(w, x.trip.trip_id)
      return order.status === 'failed' || order.status === 'succeeded' ? order : undefined
    })
    w.duffel.reset()
    assert.deepEqual([o.status, o.failure_reason], ['failed', 'supplier_refused'])
    assert.equal(elsewhere.requests.length, 0, 'nothing reached the server the redirect named')
    assert.equal(purchasesSent(w, x.order.id), 0, 'the purchase never reached Duffel either')
    assert.equal(bagsHeld(w, x.order.id), 0)
    assert.equal(balance(w), paid)
  })

  test('GETs answered with a 301 (an offer) or a 302 (an order, at fulfill) are refused too, never followed', async () => {
    const { offer } = offerFor(w)
    w.duffel.misbehave({ match: `GET /air/offers/${offer.id}`, answer: redirect(301) })
    const trip = await createTrip(w, tripRequest(w, { duffel_offer_id: offer.id }))
    const search = await endedSearch(w, trip.trip_id, trip.search_id)
    assert.deepEqual([search.status, search.failure_reason], ['failed', 'supplier_refused'])
    assert.equal(w.duffel.requests.filter((r) => r.path === `/air/offers/${offer.id}`).length, 1, 'not retried')

    const x = await bagAfterBooking(w)
    w.duffel.misbehave({ match: `GET /air/orders/${x.order.id}`, answer: redirect(302) })
    const o = await until('the order to end', WAIT, async () => {
      await w.t.core.drainJobs()
      const order = await theOrder(w, x.trip.trip_id)
      return order.status === 'failed' || order.status === 'succeeded' ? order : undefined
    })
    w.duffel.reset()
    assert.deepEqual([o.status, o.failure_reason], ['failed', 'supplier_refused'])
    assert.equal(purchasesSent(w, x.order.id), 0)
    assert.equal(elsewhere.requests.length, 0, 'nothing reached the server the redirects named')
  })
})

// ================================================================ 7

onEachStore('7. ids checked before they go into a path', (kind) => {
  let w: World
  before(async () => {
    w = await world(kind)
  })
  after(() => w.close())

  test('a trip whose duffel_offer_id is "..", "../orders" or "off_x/../../y": the search fails not_found, and Duffel is asked nothing', async () => {
    for (const id of ['..', '../orders', 'off_x/../../y']) {
      const before = w.duffel.requests.length
      const trip = await createTrip(w, tripRequest(w, { duffel_offer_id: id }))
      const search = await endedSearch(w, trip.trip_id, trip.search_id)
      assert.deepEqual([search.status, search.failure_reason], ['failed', 'not_found'], id)
      assert.deepEqual(
        w.duffel.requests.slice(before).map((r) => `${r.method} ${r.path}`),
        [],
        `${id}: no request`,
      )
    }
  })

  test('an order found by its booking reference whose Duffel id is "../../x": the id goes into no path, and the order fails', async () => {
    const { offer } = offerFor(w)
    const trip = await createTrip(
      w,
      tripRequest(w, { duffel_offer_id: offer.id }, { search: { bag: { search: true } } }),
    )
    const search = await endedSearch(w, trip.trip_id, trip.search_id)
    const added = await addToBasket(w, trip.trip_id, checkedBag(search).product_id)
    assert.equal(added.statusCode, 200, added.body)
    const { order } = w.fake.bookOrder(offer.id, { postBookingBags: true })
    w.duffel.misbehave({
      match: 'GET /air/orders',
      rewrite: (answer: any) => ({ ...answer, data: answer.data.map((o: any) => ({ ...o, id: '../../x' })) }),
    })
    const before = w.duffel.requests.length
    const res = await w.t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/fulfill`,
      headers: w.auth,
      payload: fulfillRequest(trip, body(added).trip_state_hash, {
        tickets: trip.tickets.map((tk: any) => ({
          ticket_id: tk.ticket_id,
          access_details: { record_locator: order.booking_reference, ticket_number: '1250000000001' },
          status: 'booked',
        })),
      }),
    })
    assert.equal(res.statusCode, 202, res.body)
    const o = await until('the order to end', WAIT, async () => {
      await w.t.core.drainJobs()
      const x = await theOrder(w, trip.trip_id)
      return x.status === 'failed' || x.status === 'succeeded' ? x : undefined
    })
    w.duffel.reset()
    assert.deepEqual([o.status, o.failure_reason], ['failed', 'not_found'])
    const asked = w.duffel.requests.slice(before)
    assert.ok(asked.length >= 1)
    for (const r of asked) {
      assert.equal(`${r.method} ${r.path}`, 'GET /air/orders', 'nothing but the lookup by booking reference')
      assert.equal(r.query.get('booking_reference'), order.booking_reference)
    }
    assert.ok(!w.fake.requests.some((r) => r.path === '/x' || r.path.includes('..')))
  })
})

// ================================================================ 8

onEachStore('8. seat maps keyed by their content', (kind) => {
  let w: World
  before(async () => {
    w = await world(kind)
  })
  after(() => w.close())

  test('a seat sold at Duffel between two searches: the new search shows it taken, hands out none of its service ids, and its map is another map', async () => {
    const { offer } = offerFor(w)
    const trip = await createTrip(
      w,
      tripRequest(w, { duffel_offer_id: offer.id }, { search: { seat: { search: true } } }),
    )
    const first = await endedSearch(w, trip.trip_id, trip.search_id)
    assert.equal(first.status, 'success')
    const segmentId = (await readTrip(w, trip.trip_id)).journeys[0].segments[0].segment_id
    const mapOf = (search: any) => search.results.seatmaps.find((m: any) => m.segment_id === segmentId)
    const seatsIn = (map: any) => map.decks.flatMap((d: any) => d.rows.flatMap((r: any) => r.seats))
    const sold = seatsIn(mapOf(first)).find((s: any) => s.available)
    assert.ok(sold, 'a seat on sale')
    const designator = `${sold.row}${sold.column}`

    // Duffel sells that seat to someone else: its services leave the seat map.
    const duffelSegment = w.fake.offer(offer.id).offer.slices[0]!.segments[0]!.id
    const atDuffel = seatsOf(w.fake.offer(offer.id).seatMaps).find(
      (s) => s.segment_id === duffelSegment && s.seat.designator === designator,
    )!.seat
    const goneIds = atDuffel.available_services.map((s) => s.id)
    assert.ok(goneIds.length > 0)
    for (const id of goneIds) w.fake.gone(id)

    const again = await w.t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/search`,
      headers: w.auth,
      payload: { seat: { search: true } },
    })
    assert.equal(again.statusCode, 201, again.body)
    const secondId = body(again).search_id
    assert.notEqual(secondId, trip.search_id)
    const second = await endedSearch(w, trip.trip_id, secondId)
    assert.equal(second.status, 'success')
    const now = seatsIn(mapOf(second)).find((s: any) => s.row === sold.row && s.column === sold.column)
    assert.deepEqual([now.available, now.product_id], [false, null], 'taken now')
    assert.notDeepEqual(mapOf(second), mapOf(first), "the second search's seat map is not the first one's")

    // Stored apart, each under the key of what it holds: the first search still reads as Duffel answered it then.
    const [r1, r2] = [await w.store.getSearch(trip.search_id), await w.store.getSearch(secondId)]
    const keyOf = (r: any) => r.offers.seats.map((s: any) => s.map)
    assert.notDeepEqual(keyOf(r1), keyOf(r2))
    const [map2] = await w.store.getSeatMaps([r2!.offers.seats.find((s) => s.segment_id === segmentId)!.map])
    for (const id of goneIds)
      assert.ok(!JSON.stringify(map2).includes(id), `the sold seat's service ${id} is in the new map`)
    const [map1] = await w.store.getSeatMaps([r1!.offers.seats.find((s) => s.segment_id === segmentId)!.map])
    assert.ok(
      goneIds.some((id) => JSON.stringify(map1).includes(id)),
      'the first map kept what Duffel said then',
    )
    assert.deepEqual(await readSearch(w, trip.trip_id, trip.search_id), first)

    // The traveller asks for the sold seat (its product id from the first search): refused; another seat is sold with a live service id.
    const refused = await addToBasket(w, trip.trip_id, sold.product_id)
    assert.ok(refused.statusCode >= 400 && refused.statusCode < 500, `${refused.statusCode} ${refused.body}`)
    assert.ok(!Object.values<any>((await readBasket(w, trip.trip_id)).basket).some((i) => i.product_type === 'seat'))
    const other = seatsIn(mapOf(second)).find((s: any) => s.available)
    const added = await addToBasket(w, trip.trip_id, other.product_id)
    assert.equal(added.statusCode, 200, added.body)
    const item = Object.values<any>(body(added).basket).find((i) => i.product_type === 'seat')
    const live = new Set(
      seatsOf(w.fake.offer(offer.id).seatMaps)
        .flatMap((s) => s.seat.available_services.map((x) => x.id))
        .filter((id) => !goneIds.includes(id)),
    )
    assert.ok(
      item.supplier.service_ids.length > 0 && item.supplier.service_ids.every((id: string) => live.has(id)),
      JSON.stringify(item.supplier),
    )
    w.fake.reset()
  })
})

// ================================================================ 9

onEachStore('9. revoked keys', (kind) => {
  let w: World
  let other: Built
  before(async () => {
    w = await world(kind)
    // A second instance of the server on the same database, which reads sellers and keys from its own cache.
    other = await build({ store: w.store, suppliers: [w.supplier], config: w.config })
    other.clock.set(w.t.clock.now())
  })
  after(async () => {
    await other.close()
    await w.close()
  })

  const advance = (ms: number) => {
    w.t.clock.advance(ms)
    other.clock.advance(ms)
  }

  test("a creation token minted with key K stops creating trips within 10 s of K's revocation on every instance; trip tokens keep working until the seller ends them", async () => {
    const { t } = w
    const sellerId = t.seller.seller_id
    const K = t.apiKey
    const rotated = await t.core.rotateApiKey(sellerId, 24)
    const mint = async (key: string) => {
      const res = await other.app.inject({
        method: 'POST',
        url: '/v2.2/authorize',
        headers: { authorization: basic(key) },
      })
      assert.equal(res.statusCode, 200, res.body)
      return body(res).trip_creation_token as string
    }
    const token = await mint(K)
    const create = (instance: Built, creation: string) =>
      instance.app.inject({
        method: 'POST',
        url: '/v2.2/trip',
        headers: { authorization: bearer(creation) },
        payload: tripPayload(instance.clock.now()),
      })
    const made = await create(other, token)
    assert.equal(made.statusCode, 201, made.body)
    const trip = body(made)
    const readBasketOn = (instance: Built, access: string) =>
      instance.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}/basket`,
        headers: { authorization: bearer(access) },
      })
    assert.equal((await readBasketOn(other, trip.trip_access_token)).statusCode, 200)

    // K revoked on the first instance; the second read K before, and holds to what it read 10 s at most.
    advance(1_000)
    const prefix = (await t.core.listSellers())
      .find((s) => s.seller.seller_id === sellerId)!
      .keys.find((k) => k.expires_at !== null)!.prefix
    assert.ok(K.startsWith(prefix))
    await t.core.revokeApiKeys(sellerId, prefix)
    advance(10_000)
    for (const instance of [other, t]) assertProblem(await create(instance, token), 401, 'unauthorized')
    assertProblem(
      await other.app.inject({ method: 'POST', url: '/v2.2/authorize', headers: { authorization: basic(K) } }),
      401,
      'unauthorized',
    )
    // The key that stays mints tokens that work; the trip's own tokens keep reaching their trip.
    assert.equal((await create(other, await mint(rotated.apiKey))).statusCode, 201)
    for (const instance of [other, t])
      assert.equal(
        (await readBasketOn(instance, trip.trip_access_token)).statusCode,
        200,
        'a trip access token still works',
      )

    // The seller ends every trip session: within 10 s, trip access and refresh tokens are refused everywhere.
    advance(1_000)
    await t.core.revokeApiKeys(sellerId, undefined, { endTripTokens: true })
    advance(10_000)
    for (const instance of [other, t]) {
      assertProblem(await readBasketOn(instance, trip.trip_access_token), 401, 'unauthorized')
      assertProblem(
        await instance.app.inject({
          method: 'POST',
          url: '/v2.2/refresh_token',
          payload: { refresh_token: trip.refresh_token },
        }),
        401,
        'unauthorized',
      )
    }
  })
})
