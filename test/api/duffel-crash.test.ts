/**
 * A worker killed after Duffel recorded a purchase, with real processes: the API in this process, the fake
 * Duffel in this process, and worker processes in turn on one SQLite file. The first worker buys a bag
 * after booking; Duffel applies the purchase and its answer is lost; the worker is SIGKILLed as soon as
 * Duffel has recorded it. The second worker takes the job over and finds the bag on the Duffel order: the
 * order succeeds and Duffel holds exactly one bag, bought once, paid once.
 */
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build, basic, body, tripPayload, type Built } from '../helpers/build.ts'
import { fulfillRequest } from '../helpers/flows.ts'
import { root } from '../helpers/process.ts'
import { until } from '../helpers/wait.ts'
import { openDatabase } from '../../server/bootstrap.ts'
import { createDuffelSupplier } from '../../server/suppliers/duffel/supplier.ts'
import { startFakeDuffel, type FakeDuffel } from '../fakes/duffel/server.ts'
import { duffelOfferFor } from '../helpers/duffel.ts'
import type { Store } from '../../core/ports/store.ts'
import { patience } from '../helpers/patience.ts'

const SECRET = 'a-signing-key-secret-of-32-chars-or-more'
const dir = mkdtempSync(join(tmpdir(), 'svc-duffel-crash-'))
const children: ChildProcess[] = []
let fake: FakeDuffel | undefined
let t: Built | undefined
let store: Store | undefined
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await t?.close()
  await store?.close()
  await fake?.close()
  rmSync(dir, { recursive: true, force: true })
})

function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/duffel-worker.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  child.stdout!.on('data', (c) => {
    out += String(c)
  })
  child.stderr!.on('data', (c) => {
    out += String(c)
  })
  return { child, output: () => out, exited: new Promise((resolve) => child.on('exit', resolve)) }
}

test(
  'a worker SIGKILLed after Duffel recorded the purchase: the next worker finds it, and Duffel holds one bag, paid once',
  { timeout: patience(90_000) },
  async () => {
    fake = await startFakeDuffel()
    const dbUrl = `sqlite:${join(dir, 'svc.db')}`
    store = await openDatabase(dbUrl)
    t = await build({
      store,
      suppliers: [createDuffelSupplier({ baseUrl: fake.url, timeoutMs: 2000 })],
      config: { signingKeySecret: SECRET },
    })
    t.clock.set(new Date())
    const { apiKey } = await t.core.createSeller({
      name: 'Duffel shop',
      origins: [],
      sandbox: true,
      supplier: { name: 'duffel', credentials: fake.token },
    })
    const auth = { authorization: basic(apiKey) }

    // A trip on a booked Duffel order; its search runs here (only the search job), the bag's order in the workers.
    const req = tripPayload(t.clock.now(), { search: { bag: { search: true } } })
    const offer = duffelOfferFor(fake, { passengers: req.passengers, journeys: req.tickets[0]!.journeys })
    const { order } = fake.bookOrder(offer.offer.id, { postBookingBags: true })
    req.tickets = req.tickets.map((tk) => ({ ...tk, metadata: { duffel_order_id: order.id } }))
    const trip = body(await t.app.inject({ method: 'POST', url: '/v2.2/trip', headers: auth, payload: req }))
    await t.core.drainJobs(['supplier_search'])
    const search = body(
      await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`, headers: auth }),
    )
    assert.equal(search.status, 'success', JSON.stringify(search))
    const bag = Object.values(search.results.products.bag as Record<string, any>).find(
      (p) => p.product_details.checked && p.price_and_availability.p1.available,
    )
    const basket = body(
      await t.app.inject({
        method: 'PATCH',
        url: `/v2.2/trip/${trip.trip_id}/basket`,
        headers: auth,
        payload: [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }],
      }),
    )
    const balance = Number(fake.balance(fake.token).amount)
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/v2.2/trip/${trip.trip_id}/fulfill`,
          headers: auth,
          payload: fulfillRequest(trip, basket.trip_state_hash),
        })
      ).statusCode,
      202,
    )

    const env = {
      DATABASE_URL: dbUrl,
      DUFFEL_API_URL: fake.url,
      SIGNING_KEY_SECRET: SECRET,
      JOB_LEASE_MS: '1500',
      RECONCILE_MS: '1000',
    }
    // Duffel carries the purchase out and its answer is lost; the worker is killed the moment Duffel has it.
    fake.lostResponseAfterPurchase()
    const first = startWorker(env)
    await until('Duffel to record the purchase', 30_000, () =>
      fake!.order(order.id).order.services.some((s) => s.type === 'baggage') ? true : undefined,
    )
    first.child.kill('SIGKILL')
    await first.exited
    const orderId = Object.keys((await store.getTrip(trip.trip_id))!.value.orders)[0]!
    assert.notEqual(
      (await store.getTrip(trip.trip_id))!.value.orders[orderId]!.status,
      'succeeded',
      'the killed worker had not recorded it',
    )

    const second = startWorker(env)
    const done = await until('the order to end', 30_000, async () => {
      const o = (await store!.getTrip(trip.trip_id))!.value.orders[orderId]!
      return o.status === 'succeeded' || o.status === 'failed' ? o : undefined
    }).catch((e: unknown) => {
      throw new Error(`${String(e)}\nsecond worker:\n${second.output()}\nfirst worker:\n${first.output()}`)
    })
    assert.equal(done.status, 'succeeded', JSON.stringify(done))
    assert.equal(done.supplier_reference, order.booking_reference)
    const bags = fake.order(order.id).order.services.filter((s) => s.type === 'baggage')
    assert.deepEqual(
      bags.map((s) => s.quantity),
      [1],
      'exactly one bag on the Duffel order',
    )
    assert.equal(
      fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/services')).length,
      1,
      'bought once',
    )
    assert.equal(balance - Number(fake.balance(fake.token).amount), 45, "paid once, at Duffel's price")
    second.child.kill('SIGTERM')
    await second.exited
    assert.ok(!second.output().includes(fake.token) && !first.output().includes(fake.token), 'no token in a worker log')
  },
)
