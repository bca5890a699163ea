/**
 * GET /metrics (docs/decisions.md "Operations"): Prometheus text from prom-client with requests by route pattern
 * and status, job queue depth and outcomes, webhook delivery failures, store errors, open event streams and
 * the Node process metrics; a bearer token when METRICS_TOKEN is set; one registry per app.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { build, basic, bearer, body, assertProblem, createTrip, type Built } from '../helpers/build.ts'
import { readBasket, readSearch, checkedBag, addItems, fulfill, fulfillRequest } from '../helpers/flows.ts'
import { startReceiver, type Receiver } from '../helpers/webhooks.ts'
import { openEvents } from '../helpers/sse.ts'
import { defaultConfig } from '../../core/core.ts'

/** One sample line's value: `name{labels} value`, with the labels in the order prom-client prints them. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const inner = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')
  const head = inner ? `${name}{${inner}} ` : `${name} `
  const line = text.split('\n').find((l) => l.startsWith(head))
  return line === undefined ? undefined : Number(line.slice(head.length))
}

async function scrape(t: Built, headers: Record<string, string> = {}): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers })
  assert.equal(res.statusCode, 200, res.body)
  return res.body
}

const req = (method: string, route: string, status: number) => ({ method, route, status_code: String(status) })

describe('GET /metrics, open (no METRICS_TOKEN)', () => {
  let t: Built
  let receiver: Receiver
  before(async () => {
    t = await build()
    receiver = await startReceiver()
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  test('Prometheus text: content type, the process metrics with the svc_ prefix, no cache', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
    assert.equal(res.headers['cache-control'], 'no-store')
    assert.match(res.body, /^# HELP svc_http_requests_total /m)
    assert.match(res.body, /^# TYPE svc_http_request_duration_seconds histogram$/m)
    assert.ok((sample(res.body, 'svc_process_cpu_user_seconds_total') ?? -1) >= 0, 'process CPU')
    assert.ok(
      sample(res.body, 'svc_process_resident_memory_bytes') !== undefined ||
        sample(res.body, 'svc_nodejs_heap_size_used_bytes') !== undefined,
      'memory',
    )
    assert.match(res.body, /^svc_nodejs_eventloop_lag_seconds /m)
    assert.ok(!/^(process|nodejs)_/m.test(res.body), 'no unprefixed default metric')
  })

  test("requests by route pattern and status: 200, 404 (a route's and no route's), 401; never a raw URL", async () => {
    const trip = await createTrip(t)
    const url = `/v2.2/trip/${trip.trip_id}/basket`
    const before = await scrape(t)
    const basketOk = sample(before, 'svc_http_requests_total', req('GET', '/v2.2/trip/:trip_id/basket', 200)) ?? 0

    await readBasket(t, trip)
    await readBasket(t, trip)
    assertProblem(await t.app.inject({ method: 'GET', url }), 401, 'unauthorized')
    assertProblem(
      await t.app.inject({
        method: 'GET',
        url: '/v2.2/trip/no-such-trip/basket',
        headers: { authorization: basic(t.apiKey) },
      }),
      404,
      'not_found',
    )
    assertProblem(await t.app.inject({ method: 'GET', url: '/wp-login.php' }), 404, 'not_found')
    assertProblem(await t.app.inject({ method: 'GET', url: '/v2.2/nothing/here/either' }), 404, 'not_found')
    assertProblem(await t.app.inject({ method: 'GET', url: '/v2.2/trip/%zz/basket' }), 400, 'validation_error') // the router's own refusal

    const text = await scrape(t)
    assert.equal(sample(text, 'svc_http_requests_total', req('GET', '/v2.2/trip/:trip_id/basket', 200)), basketOk + 2)
    assert.equal(sample(text, 'svc_http_requests_total', req('GET', '/v2.2/trip/:trip_id/basket', 401)), 1)
    assert.equal(sample(text, 'svc_http_requests_total', req('GET', '/v2.2/trip/:trip_id/basket', 404)), 1)
    assert.equal(
      sample(text, 'svc_http_requests_total', req('GET', 'unmatched', 404)),
      2,
      'every unmatched URL is one label value',
    )
    assert.equal(sample(text, 'svc_http_requests_total', req('GET', 'unmatched', 400)), 1)
    assert.equal(sample(text, 'svc_http_requests_total', req('POST', '/v2.2/trip', 201)), 1)
    // The histogram, by the same labels: its count is the requests', and every observation is under +Inf.
    const labels = req('GET', '/v2.2/trip/:trip_id/basket', 200)
    assert.equal(sample(text, 'svc_http_request_duration_seconds_count', labels), basketOk + 2)
    assert.equal(sample(text, 'svc_http_request_duration_seconds_bucket', { le: '+Inf', ...labels }), basketOk + 2)
    assert.ok((sample(text, 'svc_http_request_duration_seconds_sum', labels) ?? 0) > 0)
    assert.ok((sample(text, 'svc_http_request_duration_seconds_bucket', { le: '10', ...labels }) ?? 0) >= 1)
    assert.ok(
      !text.includes(trip.trip_id) && !text.includes('no-such-trip') && !text.includes('wp-login'),
      'no raw path in a label',
    )
  })

  test('a basket check drained: svc_jobs_pending while it waits, then svc_job_runs_total succeeded', async () => {
    const trip = await createTrip(t)
    const search = await readSearch(t, trip)
    await addItems(t, trip, [{ product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' }])
    const runs = (text: string, outcome: string) =>
      sample(text, 'svc_job_runs_total', { kind: 'basket_check', outcome })
    const before = await scrape(t)
    const check = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/basket/check`,
      headers: { authorization: basic(t.apiKey) },
    })
    assert.equal(check.statusCode, 202, check.body)

    const waiting = await scrape(t)
    assert.equal(sample(waiting, 'svc_jobs_pending', { kind: 'basket_check' }), 1)
    assert.equal(sample(waiting, 'svc_jobs_pending', { kind: 'fulfill_order' }), 0, 'every kind is shown, 0 included')
    assert.equal(sample(waiting, 'svc_http_requests_total', req('POST', '/v2.2/trip/:trip_id/basket/check', 202)), 1)

    assert.equal(await t.core.drainJobs(), 1)
    const done = await scrape(t)
    assert.equal(sample(done, 'svc_jobs_pending', { kind: 'basket_check' }), 0)
    assert.equal(runs(done, 'succeeded'), runs(before, 'succeeded')! + 1)
    assert.equal(runs(done, 'retried'), 0)
    assert.equal(runs(done, 'failed'), 0)
  })

  test('a webhook the receiver refuses: a delivery failure (retried), then one given up (failed)', async () => {
    const sub = await t.app.inject({
      method: 'POST',
      url: '/v2.2/callback_subscription',
      headers: { authorization: basic(t.apiKey) },
      payload: { delivery_method: 'http', target: receiver.url, event_name: 'fulfillment_completed' },
    })
    assert.equal(sub.statusCode, 201, sub.body)
    receiver.answer(500)
    const trip = await createTrip(t)
    const res = await fulfill(t, trip, fulfillRequest(trip, (await readBasket(t, trip)).trip_state_hash))
    assert.equal(res.statusCode, 202, res.body) // no ancillaries: fulfillment_completed at once, one delivery job
    await t.core.drainJobs()
    assert.deepEqual(
      receiver.deliveries.map((d) => d.status),
      [500],
    )

    const failed = await scrape(t)
    assert.equal(sample(failed, 'svc_webhook_delivery_failures_total', { outcome: 'retried' }), 1)
    assert.equal(sample(failed, 'svc_webhook_delivery_failures_total', { outcome: 'failed' }), 0)
    assert.equal(sample(failed, 'svc_job_runs_total', { kind: 'webhook', outcome: 'retried' }), 1)
    assert.equal(sample(failed, 'svc_jobs_pending', { kind: 'webhook' }), 1, 'waiting for its retry')

    // Its last attempt fails too: given up.
    const [job] = (await t.store.listJobs(['webhook'])).filter((j) => j.status === 'pending')
    receiver.answer(...Array.from({ length: job!.max_attempts }, () => 503))
    for (let i = 0; i < job!.max_attempts && (await t.store.getJob(job!.job_id))!.status === 'pending'; i++) {
      t.clock.advance(3_600_000)
      await t.core.drainJobs()
    }
    assert.equal((await t.store.getJob(job!.job_id))!.status, 'dead')
    const dead = await scrape(t)
    assert.equal(sample(dead, 'svc_webhook_delivery_failures_total', { outcome: 'failed' }), 1)
    assert.equal(sample(dead, 'svc_webhook_delivery_failures_total', { outcome: 'retried' }), job!.max_attempts - 1)
    assert.equal(sample(dead, 'svc_job_runs_total', { kind: 'webhook', outcome: 'failed' }), 1)
    assert.equal(sample(dead, 'svc_jobs_pending', { kind: 'webhook' }), 0)
  })

  test('a store that throws: its 500 by route, and svc_store_errors_total by operation', async () => {
    const trip = await createTrip(t)
    const store = t.store
    const getTrip = store.getTrip
    const getTripsIfChanged = store.getTripsIfChanged
    const down = async () => {
      throw new Error('ECONNRESET')
    }
    store.getTrip = down
    store.getTripsIfChanged = down
    let res
    try {
      res = await t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}`,
        headers: { authorization: basic(t.apiKey) },
      })
    } finally {
      store.getTrip = getTrip
      store.getTripsIfChanged = getTripsIfChanged
    }
    assertProblem(res, 500, 'internal')
    const text = await scrape(t)
    assert.equal(sample(text, 'svc_http_requests_total', req('GET', '/v2.2/trip/:trip_id', 500)), 1)
    const errors =
      (sample(text, 'svc_store_errors_total', { operation: 'getTrip' }) ?? 0) +
      (sample(text, 'svc_store_errors_total', { operation: 'getTripsIfChanged' }) ?? 0)
    assert.ok(
      errors >= 1,
      text
        .split('\n')
        .filter((l) => l.includes('store_errors'))
        .join('\n'),
    )
  })

  test('the database not answering the queue count: the scrape still answers, without svc_jobs_pending, and counts the error', async () => {
    const count = t.store.countPendingJobs
    t.store.countPendingJobs = async () => {
      throw new Error('ECONNREFUSED')
    }
    let text
    try {
      text = await scrape(t)
    } finally {
      t.store.countPendingJobs = count
    }
    assert.equal(sample(text, 'svc_jobs_pending', { kind: 'webhook' }), undefined)
    assert.match(text, /^svc_http_requests_total\{/m)
    assert.equal(sample(text, 'svc_store_errors_total', { operation: 'countPendingJobs' }), 1)
    assert.equal(sample(await scrape(t), 'svc_jobs_pending', { kind: 'webhook' }), 0, 'back when the database is')
  })

  test('is neither rate-limited nor in the OpenAPI document', async () => {
    const limited = await build({ rateLimit: { max: 2, timeWindow: 60_000 } })
    try {
      for (let i = 0; i < 5; i++) {
        const res = await limited.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.0.0.1' })
        assert.equal(res.statusCode, 200)
        assert.equal(res.headers['ratelimit-limit'], undefined)
      }
    } finally {
      await limited.close()
    }
    const doc = body(await t.app.inject({ method: 'GET', url: '/v2.2/openapi.json' }))
    assert.equal(doc.paths['/metrics'], undefined)
    assert.ok(Object.keys(doc.paths).every((p) => p.startsWith('/v2.2/')))
  })

  test("each app has its own registry: another app's requests are not counted here", async () => {
    const other = await build()
    try {
      const mark = sample(await scrape(t), 'svc_http_requests_total', req('GET', '/healthz', 200)) ?? 0
      for (let i = 0; i < 3; i++) await other.app.inject({ method: 'GET', url: '/healthz' })
      assert.equal(sample(await scrape(other), 'svc_http_requests_total', req('GET', '/healthz', 200)), 3)
      assert.equal(sample(await scrape(t), 'svc_http_requests_total', req('GET', '/healthz', 200)) ?? 0, mark)
    } finally {
      await other.close()
    }
  })
})

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'scrape-token-0123456789abcdef'
  let t: Built
  before(async () => {
    t = await build({ metricsToken: token })
  })
  after(() => t.close())

  test('no token, a wrong one, another scheme: 401 problem+json with the request id; the right one: 200', async () => {
    for (const authorization of [
      undefined,
      bearer('wrong-token-0123456789abcdef'),
      bearer(token.slice(0, -1)),
      bearer(`${token}x`),
      basic(token),
      token,
    ]) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization ? { authorization } : {},
      })
      const p = assertProblem(res, 401, 'unauthorized')
      assert.match(p.detail, /Bearer/)
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"')
      assert.ok(!res.body.includes('svc_'), 'no figure leaks')
    }
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: bearer(token) } })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/)
    assert.equal(
      sample(res.body, 'svc_http_requests_total', req('GET', '/metrics', 401)),
      6,
      'refused scrapes are counted too',
    )
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `bearer ${token}` } }))
        .statusCode,
      200,
      'the scheme is case-insensitive',
    )
  })

  test('the token guards /metrics only', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
  })
})

describe('svc_live_streams', () => {
  let t: Built
  before(async () => {
    t = await build({ config: { live: { ...defaultConfig.live, heartbeatMs: 200 } } })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(() => t.close())

  test('counts the event streams open on this instance; a stream is counted as a request when it starts, and not timed', async () => {
    const trip = await createTrip(t)
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    assert.equal(sample(await scrape(t), 'svc_live_streams'), 0)
    const a = await openEvents(`${base}/v2.2/trip/${trip.trip_id}/events`, {
      authorization: bearer(trip.trip_access_token),
    })
    const b = await openEvents(`${base}/v2.2/trip/${trip.trip_id}/events`, {
      authorization: bearer(trip.trip_access_token),
    })
    await a.next()
    await b.next()
    const open = await scrape(t)
    assert.equal(sample(open, 'svc_live_streams'), 2)
    const events = req('GET', '/v2.2/trip/:trip_id/events', 200)
    assert.equal(sample(open, 'svc_http_requests_total', events), 2)
    assert.equal(
      sample(open, 'svc_http_request_duration_seconds_count', events),
      undefined,
      "a stream's lifetime is no latency",
    )

    // The server ends them: their token expires. (Ended by the client instead, as usually happens, the streams
    // also leave the gauge, but closing the app afterwards then takes ~70 s, as it did before /metrics existed.)
    t.clock.advance(defaultConfig.accessTokenTtl * 1000 + 1000)
    assert.ok((await a.ended()) && (await b.ended()), 'the streams ended')
    let streams: number | undefined
    for (let i = 0; i < 100 && streams !== 0; i++) {
      streams = sample(await scrape(t), 'svc_live_streams')
      if (streams !== 0) await new Promise((r) => setTimeout(r, 20))
    }
    assert.equal(streams, 0, 'ended streams are no longer counted')
  })
})

test('an observer that throws does not fail the job it is told of', async () => {
  const t = await build()
  try {
    const stop = t.core.observe({
      jobFinished: () => {
        throw new Error('observer bug')
      },
    })
    const trip = await createTrip(t)
    const search = await readSearch(t, trip)
    await addItems(t, trip, [{ product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' }])
    await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/basket/check`,
      headers: { authorization: basic(t.apiKey) },
    })
    const report = await t.core.processNextJob()
    assert.equal(report?.outcome, 'done')
    stop()
    assert.equal(
      sample(await scrape(t), 'svc_job_runs_total', { kind: 'basket_check', outcome: 'succeeded' }),
      1,
      'the other observers were still told',
    )
  } finally {
    await t.close()
  }
})
