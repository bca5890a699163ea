/**
 * A fulfill retried after a crash finishes, exactly once, with real processes: the service (its own entry,
 * under tsx) takes fulfills with an Idempotency-Key each, is SIGKILLed when half have been answered, and is
 * started again on the same database; every request is then retried with its own key and body, honouring
 * Retry-After on `409 idempotency_in_progress`, until it is answered. Each trip ends with exactly one
 * fulfillment and one order, and every retry's answer names it. On SQLite and on PostgreSQL.
 */
import { describe, test, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { startServer, type RunningServer } from '../helpers/process.ts'
import { fulfillRequest } from '../helpers/flows.ts'
import { tripPayload, type CreatedTrip } from '../helpers/build.ts'
import { patience } from '../helpers/patience.ts'

const TRIPS = 60
const API_KEY = 'svc_test_crash_retry_0123456789'
const auth = {
  authorization: `Basic ${Buffer.from(`${API_KEY}:`).toString('base64')}`,
  'content-type': 'application/json',
}

const dir = mkdtempSync(join(tmpdir(), 'svc-crash-retry-'))
const running: RunningServer[] = []
after(async () => {
  for (const s of running) await s.kill()
  rmSync(dir, { recursive: true, force: true })
})

async function start(databaseUrl: string): Promise<RunningServer> {
  // No worker: what is tested is the API's answer and what it stored, not the orders' delivery.
  const s = await startServer(
    { DATABASE_URL: databaseUrl, SVC_DEMO_API_KEY: API_KEY, WORKER: 'off', RATE_LIMIT_MAX: '100000' },
    { entry: 'service' },
  )
  running.push(s)
  return s
}

async function json(res: Response) {
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers }
}

/** A trip with a bag in its basket, and the fulfill request for it. */
async function readyTrip(base: string) {
  const trip = (
    await json(
      await fetch(`${base}/v2.2/trip`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify(tripPayload(new Date())),
      }),
    )
  ).body as CreatedTrip
  const search = (
    await json(
      await fetch(`${base}/v2.2/trip/${trip.trip_id}/search/${trip.search_id}?product_types=bag`, { headers: auth }),
    )
  ).body
  const bag = Object.values(search.results.products.bag as Record<string, any>).find(
    (p) => p.product_details.checked && p.price_and_availability.p1?.available,
  )
  const basket = await json(
    await fetch(`${base}/v2.2/trip/${trip.trip_id}/basket`, {
      method: 'PATCH',
      headers: auth,
      body: JSON.stringify([{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }]),
    }),
  )
  assert.equal(basket.status, 200, JSON.stringify(basket.body))
  return {
    trip,
    key: `charge-${trip.trip_id}`,
    body: JSON.stringify(fulfillRequest(trip, basket.body.trip_state_hash)),
  }
}

const send = (base: string, t: Awaited<ReturnType<typeof readyTrip>>) =>
  fetch(`${base}/v2.2/trip/${t.trip.trip_id}/fulfill`, {
    method: 'POST',
    headers: { ...auth, 'idempotency-key': t.key },
    body: t.body,
  })

async function crashAndRetry(databaseUrl: string) {
  const first = await start(databaseUrl)
  const trips: Array<Awaited<ReturnType<typeof readyTrip>>> = []
  for (let i = 0; i < TRIPS; i += 10)
    trips.push(...(await Promise.all(Array.from({ length: 10 }, () => readyTrip(first.base)))))

  // Every fulfill at once; the process is killed when half have been answered, the rest mid-way.
  let answered = 0
  let killed!: () => void
  const halfway = new Promise<void>((resolve) => {
    killed = resolve
  })
  const before = await Promise.all(
    trips
      .map((t) =>
        send(first.base, t)
          .then(json)
          .then(
            (r) => {
              if (++answered === TRIPS / 2) killed()
              return r
            },
            () => null,
          ),
      )
      .concat(halfway.then(() => first.kill()).then(() => null)),
  )
  assert.ok(before.filter((r) => r?.status === 202).length >= TRIPS / 2, 'half were answered before the kill')

  // Restarted on the same database: each request again, with its key and body, until it is answered.
  const second = await start(databaseUrl)
  const seen = { replayed: 0, ran: 0, waited: 0 }
  const answers = await Promise.all(
    trips.map(async (t) => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const r = await json(await send(second.base, t))
        if (r.status === 409 && r.body.code === 'idempotency_in_progress') {
          seen.waited++
          const wait = Number(r.headers.get('retry-after'))
          assert.ok(wait >= 1 && wait <= 10, `Retry-After ${wait}`)
          await new Promise((resolve) => setTimeout(resolve, wait * 1000))
          continue
        }
        assert.equal(r.status, 202, `${t.key}: ${JSON.stringify(r.body)}`)
        if (r.headers.get('idempotent-replayed') === 'true') seen.replayed++
        else seen.ran++
        return r.body.fulfillment_id as string
      }
      assert.fail(`${t.key} was never answered`)
    }),
  )

  // Exactly one fulfillment and one order per trip: the one every answer for it names.
  for (const [i, t] of trips.entries()) {
    const trip = (await json(await fetch(`${second.base}/v2.2/trip/${t.trip.trip_id}`, { headers: auth }))).body
    const orders = Object.values(trip.orders as Record<string, { fulfillment_id: string }>)
    assert.deepEqual(
      orders.map((o) => o.fulfillment_id),
      [answers[i]],
      `${t.key}: one order, of the fulfillment its retry was told`,
    )
    const before1 = before[i]
    if (before1?.status === 202)
      assert.equal(before1.body.fulfillment_id, answers[i], 'an answer given before the crash is the answer after it')
  }
  assert.equal(seen.replayed + seen.ran, TRIPS)
  assert.ok(seen.replayed >= TRIPS / 2, `the answered half replays (${JSON.stringify(seen)})`)
  await second.stop()
  return seen
}

describe('a fulfill retried after the server was SIGKILLed mid-fulfill runs once', () => {
  test('SQLite', { timeout: patience(120_000) }, async (t) => {
    t.diagnostic(JSON.stringify(await crashAndRetry(`sqlite:${join(dir, 'svc.db')}`)))
  })

  const pgUrl = process.env.DATABASE_URL_PG
  test(
    'PostgreSQL',
    {
      timeout: patience(120_000),
      skip: pgUrl ? false : 'DATABASE_URL_PG not set (npm run test:node starts PostgreSQL when it is installed)',
    },
    async (t) => {
      const name = `svc_crash_${process.pid}`
      const admin = new pg.Client({ connectionString: pgUrl })
      await admin.connect()
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name}`)
        await admin.query(`CREATE DATABASE ${name}`)
        const url = new URL(pgUrl!)
        url.pathname = `/${name}`
        t.diagnostic(JSON.stringify(await crashAndRetry(url.toString())))
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {})
        await admin.end()
      }
    },
  )
})
