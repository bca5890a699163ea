/**
 * The job worker. Above all, across a crash, with real processes: the API (in this test process) and two
 * worker processes in turn share one SQLite file. The first worker is SIGKILLed in the middle of a booking
 * call; the second must finish every order exactly once (the airline's ledger), redoing the interrupted
 * call (at-least-once delivery to an idempotent supplier), with one webhook per order move and no job left
 * over. Then `npm run worker` as a process, and the worker loop's stop and logging.
 *
 * Last, retention through the worker, as `npm start` runs it.
 */
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build, basic, createTrip, type Built } from '../helpers/build.ts'
import { readSearch, checkedBag, seats, readBasket, addItems, fulfill, fulfillRequest } from '../helpers/flows.ts'
import { startReceiver, deadTarget, type Receiver } from '../helpers/webhooks.ts'
import { root } from '../helpers/process.ts'
import { until } from '../helpers/wait.ts'
import { openDatabase } from '../../server/bootstrap.ts'
import { logSupplierCalls, startWorker, type WorkerLog } from '../../server/worker.ts'
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import type { Store } from '../../core/ports/store.ts'
import { loadConfig } from '../../server/config.ts'
import { patience } from '../helpers/patience.ts'

const LEASE_MS = 1500
const FULFILL_DELAY_MS = 2000

const dir = mkdtempSync(join(tmpdir(), 'svc-crash-'))
const children: ChildProcess[] = []
let t: Built | undefined
let store: Store | undefined
let receiver: Receiver | undefined

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await t?.close()
  await store?.close()
  await receiver?.close()
  rmSync(dir, { recursive: true, force: true })
})

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [])

function startWorkerProcess(env: Record<string, string>): {
  child: ChildProcess
  output: () => string
  exited: Promise<unknown>
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/crash-worker.ts'], {
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
  const exited = new Promise((resolve) => child.on('exit', resolve))
  return { child, output: () => out, exited }
}

test(
  'a worker SIGKILLed in the middle of a booking, then restarted, completes every order exactly once (ledger once per order, the killed call repeated, one webhook per order move, no job left)',
  { timeout: patience(90_000) },
  async () => {
    const dbUrl = `sqlite:${join(dir, 'svc.db')}`
    const callsFile = join(dir, 'calls.txt')
    const ledgerFile = join(dir, 'ledger.txt')
    store = await openDatabase(dbUrl)
    t = await build({ store })
    receiver = await startReceiver()

    // The API side: subscribe, build a basket of three ancillaries, fulfill. No job runs in this process.
    const sub = await t.app.inject({
      method: 'POST',
      url: '/v2.2/callback_subscription',
      headers: { authorization: basic(t.apiKey) },
      payload: { delivery_method: 'http', target: receiver.url, event_name: 'order_status_changed' },
    })
    assert.equal(sub.statusCode, 201, sub.body)
    const trip = await createTrip(t)
    const search = await readSearch(t, trip)
    await addItems(t, trip, [
      { product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' },
      { product_id: checkedBag(search, 'p2').product_id, passenger_id: 'p2' },
      { product_id: seats(search, 'p2')[0]!.product_id, passenger_id: 'p2' },
    ])
    const res = await fulfill(t, trip, fulfillRequest(trip, (await readBasket(t, trip)).trip_state_hash))
    assert.equal(res.statusCode, 202, res.body)
    const orderIds = Object.keys((await store.getTrip(trip.trip_id))!.value.orders).sort()
    assert.equal(orderIds.length, 3)

    const env = {
      DATABASE_URL: dbUrl,
      CALLS_FILE: callsFile,
      LEDGER_FILE: ledgerFile,
      JOB_LEASE_MS: String(LEASE_MS),
      FULFILL_DELAY_MS: String(FULFILL_DELAY_MS),
      LOG_LEVEL: 'debug',
      // The worker's clock must not run behind the test clock that stamped the jobs.
      CLOCK_OFFSET_MS: String(Math.max(0, t.clock.now().getTime() - Date.now())),
    }

    // First worker: killed once it is inside a booking call (the airline has booked, the answer is pending).
    const first = startWorkerProcess(env)
    const killedOrder = await until('the first booking call', 30_000, () => lines(callsFile)[0], 100)
    first.child.kill('SIGKILL')
    await first.exited
    assert.deepEqual(lines(callsFile), [killedOrder], 'killed during its first call')
    const stuck = (await store.getTrip(trip.trip_id))!.value.orders[killedOrder]!
    assert.equal(stuck.status, 'in_progress', 'the interrupted order was left in progress')

    // Second worker: takes the other jobs at once and the interrupted one when its lease lapses.
    const second = startWorkerProcess(env)
    const jobs = await until(
      'every order to end and every job to finish',
      60_000,
      async () => {
        const orders = Object.values((await store!.getTrip(trip.trip_id))!.value.orders)
        const all = await store!.listJobs(['fulfill_order', 'webhook'])
        const settled =
          orders.every((o) => o.status === 'succeeded' || o.status === 'failed') &&
          all.every((j) => j.status !== 'pending')
        return settled ? all : undefined
      },
      100,
    ).catch((e: unknown) => {
      throw new Error(`${String(e)}\nworker output:\n${second.output()}`)
    })

    const orders = (await store.getTrip(trip.trip_id))!.value.orders
    for (const id of orderIds) assert.equal(orders[id]!.status, 'succeeded', `order ${id}`)

    const ledger = lines(ledgerFile).map((l) => l.split(' ') as [string, string])
    assert.deepEqual(ledger.map(([id]) => id).sort(), orderIds, 'the airline booked each order exactly once')
    for (const [id, reference] of ledger)
      assert.equal(orders[id]!.supplier_reference, reference, 'the order keeps the booking the airline made')

    const calls = lines(callsFile)
    assert.ok(calls.length >= orderIds.length + 1, `calls ${calls.length} ≥ orders + the repeated one`)
    assert.ok(calls.filter((id) => id === killedOrder).length >= 2, 'the killed call was made again (at-least-once)')
    assert.deepEqual([...new Set(calls)].sort(), orderIds)

    const moves = (status: string) =>
      jobs
        .filter((j) => j.kind === 'webhook')
        .map(
          (j) => (j.payload as { event: { data: { order: { order_id: string; status: string } } } }).event.data.order,
        )
        .filter((o) => o.status === status)
        .map((o) => o.order_id)
        .sort()
    assert.deepEqual(
      moves('succeeded'),
      orderIds,
      "each order's order_status_changed → succeeded webhook exists exactly once",
    )
    assert.deepEqual(
      moves('in_progress'),
      orderIds,
      'and its → in_progress once: the repeated run did not move it again',
    )
    assert.ok(
      jobs.every((j) => j.status === 'done'),
      `every job done: ${JSON.stringify(jobs.map((j) => [j.kind, j.status, j.last_error]))}`,
    )
    const fulfillJob = jobs.find(
      (j) => j.kind === 'fulfill_order' && (j.payload as { order_id: string }).order_id === killedOrder,
    )!
    assert.equal(fulfillJob.attempts, 2, 'the interrupted job was claimed twice')

    // The receiver got every succeeded move (at least once; dedupe by event_id).
    const delivered = new Map(receiver.deliveries.map((d) => [d.body.event_id, d.body]))
    assert.deepEqual(
      [...delivered.values()]
        .filter((e) => e.data.order.status === 'succeeded')
        .map((e) => e.data.order.order_id)
        .sort(),
      orderIds,
    )

    // The second worker stops cleanly on SIGTERM.
    second.child.kill('SIGTERM')
    assert.equal(await second.exited, 0, second.output())
    assert.ok(!second.output().includes(t.apiKey), 'no secret in the worker log')
    assert.match(second.output(), /"msg":"job done"/)
  },
)

test(
  'npm run worker (server/worker-main.ts) runs the jobs the API queued in a shared database, shows its own job runs at METRICS_PORT, and exits 0 on SIGTERM',
  { timeout: patience(60_000) },
  async () => {
    const dbUrl = `sqlite:${join(dir, 'worker-main.db')}`
    const db = await openDatabase(dbUrl)
    const api = await build({ store: db })
    try {
      const trip = await createTrip(api)
      const search = await readSearch(api, trip)
      await addItems(api, trip, [{ product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' }])
      const res = await fulfill(api, trip, fulfillRequest(trip, (await readBasket(api, trip)).trip_state_hash))
      assert.equal(res.statusCode, 202, res.body)

      const child = spawn(process.execPath, ['--import', 'tsx', 'server/worker-main.ts'], {
        cwd: root,
        env: {
          ...process.env,
          DATABASE_URL: dbUrl,
          LOG_LEVEL: 'debug',
          METRICS_PORT: '0',
          METRICS_TOKEN: 'worker-scrape-0123456789',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      children.push(child)
      let out = ''
      child.stdout.on('data', (c) => {
        out += String(c)
      })
      child.stderr.on('data', (c) => {
        out += String(c)
      })
      const exited = new Promise((resolve) => child.on('exit', resolve))
      await until(
        'the order to succeed',
        30_000,
        async () => {
          const orders = Object.values((await db.getTrip(trip.trip_id))!.value.orders)
          return orders.length === 1 && orders[0]!.status === 'succeeded' ? true : undefined
        },
        100,
      ).catch((e: unknown) => {
        throw new Error(`${String(e)}\nworker output:\n${out}`)
      })
      // The worker's own figures: the API process never sees its job runs.
      const metricsUrl = /"url":"(http:[^"]+\/metrics)"/.exec(out)?.[1]
      assert.ok(metricsUrl, `the worker logs where its metrics are:\n${out}`)
      assert.equal((await fetch(metricsUrl)).status, 401, 'METRICS_TOKEN is asked for')
      // The order is stored succeeded a moment before the run's outcome is recorded: scrape until it is.
      const runs = await until(
        "the job run in the worker's metrics",
        10_000,
        async () => {
          const scraped = await fetch(metricsUrl, { headers: { authorization: 'Bearer worker-scrape-0123456789' } })
          assert.equal(scraped.status, 200)
          return /^svc_job_runs_total\{kind="fulfill_order",outcome="succeeded"\} (\d+)$/m.exec(
            await scraped.text(),
          )?.[1] === '1'
            ? true
            : undefined
        },
        100,
      )
      assert.equal(runs, true)
      assert.equal((await fetch(metricsUrl.replace(/metrics$/, 'readyz'))).status, 200)
      child.kill('SIGTERM')
      assert.equal(await exited, 0, out)
      const [job] = await db.listJobs(['fulfill_order'])
      assert.match(out, new RegExp(`"job_id":"${job!.job_id}".*"msg":"job done"`), 'each job is logged with its id')
      assert.match(out, /"msg":"job worker stopped"/)
      assert.ok(!out.includes(api.apiKey))
    } finally {
      await api.close()
      await db.close()
    }

    const refused = spawn(process.execPath, ['--import', 'tsx', 'server/worker-main.ts'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: 'memory:' },
    })
    children.push(refused)
    let err = ''
    refused.stderr.on('data', (c) => {
      err += String(c)
    })
    assert.equal(
      await new Promise((resolve) => refused.on('exit', resolve)),
      2,
      'an in-process database cannot be shared with a separate worker',
    )
    assert.match(err, /DATABASE_URL/)
  },
)

test(
  'startWorker: stop() lets the job in hand finish before it resolves; outcomes are logged with the job id, failures at warn',
  { timeout: patience(30_000) },
  async () => {
    let entered!: () => void
    let release!: () => void
    const inCall = new Promise<void>((resolve) => {
      entered = resolve
    })
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const sandbox = createSandboxSupplier()
    const api = await build({
      supplier: {
        ...sandbox,
        fulfill: async (...args) => {
          entered()
          await gate
          return sandbox.fulfill(...args)
        },
      },
      config: { backoffBaseMs: 60_000 },
    })
    const logs: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = []
    const log = Object.fromEntries(
      ['debug', 'info', 'warn'].map((level) => [
        level,
        (obj: Record<string, unknown>, msg: string) => {
          logs.push({ level, obj, msg })
        },
      ]),
    ) as unknown as WorkerLog
    try {
      // A subscription to a receiver that is down, so a job fails and is logged at warn.
      const sub = await api.app.inject({
        method: 'POST',
        url: '/v2.2/callback_subscription',
        headers: { authorization: basic(api.apiKey) },
        payload: { delivery_method: 'http', target: await deadTarget(), event_name: 'fulfillment_completed' },
      })
      assert.equal(sub.statusCode, 201, sub.body)
      const trip = await createTrip(api)
      const search = await readSearch(api, trip)
      await addItems(api, trip, [{ product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' }])
      assert.equal(
        (await fulfill(api, trip, fulfillRequest(trip, (await readBasket(api, trip)).trip_state_hash))).statusCode,
        202,
      )

      const unlog = logSupplierCalls(api.core, log)
      const worker = startWorker({ core: api.core, log, pollMs: 10, idleMs: 20 })
      await inCall
      let stopped = false
      const stopping = worker.stop().then(() => {
        stopped = true
      })
      await new Promise((r) => setTimeout(r, 100))
      assert.equal(stopped, false, 'stop() waits for the booking in hand')
      release()
      await stopping
      assert.equal(
        Object.values((await api.store.getTrip(trip.trip_id))!.value.orders)[0]!.status,
        'succeeded',
        'the job in hand finished',
      )

      const [job] = await api.store.listJobs(['fulfill_order'])
      // One line per outcome, with whose job it was and what about.
      const done = logs.find((l) => l.msg === 'job done' && l.obj.job_id === job!.job_id)
      assert.equal(done?.level, 'info')
      const order = Object.keys((await api.store.getTrip(trip.trip_id))!.value.orders)[0]
      assert.deepEqual(
        [done!.obj.seller_id, done!.obj.trip_id, done!.obj.order_id],
        [api.seller.seller_id, trip.trip_id, order],
      )
      // And one per supplier call, with the same fields, and no token or body.
      const called = logs.find((l) => l.msg === 'supplier call' && l.obj.operation === 'fulfill')
      assert.ok(called, 'the booking call is logged')
      assert.equal(called.level, 'info')
      assert.deepEqual(
        [called.obj.seller_id, called.obj.trip_id, called.obj.order_id, called.obj.outcome, called.obj.supplier],
        [api.seller.seller_id, trip.trip_id, order, 'ok', 'sandbox'],
      )
      assert.equal(typeof called.obj.duration_ms, 'number')
      assert.deepEqual(Object.keys(called.obj).sort(), [
        'duration_ms',
        'method',
        'operation',
        'order_id',
        'outcome',
        'path',
        'seller_id',
        'status',
        'supplier',
        'trip_id',
      ])
      unlog()
      const [hook] = await api.store.listJobs(['webhook'])
      // The worker may have stopped before the delivery job's turn; run it once to see its failure logged.
      if (hook!.attempts === 0) {
        const again = startWorker({ core: api.core, log, pollMs: 10, idleMs: 20 })
        await until(
          'the delivery attempt',
          10_000,
          async () => ((await api.store.getJob(hook!.job_id))!.attempts > 0 ? true : undefined),
          100,
        )
        await again.stop()
      }
      const warned = logs.find((l) => l.level === 'warn' && l.obj.job_id === hook!.job_id)
      assert.ok(warned, JSON.stringify(logs))
      assert.equal(warned.obj.kind, 'webhook')
      assert.ok(typeof warned.obj.error === 'string')
      const secret = (await api.store.listSubscriptions(api.seller.seller_id))[0]!.secret
      assert.ok(!JSON.stringify(logs).includes(secret), 'no webhook secret in the log')
      assert.ok(!JSON.stringify(logs).includes(api.apiKey))
      assert.equal(typeof api.store.claimJob, 'function')
      assert.ok(!Object.hasOwn(api.store, 'claimJob'), 'stop() removes the observation from the store')
    } finally {
      release()
      await api.close()
    }
  },
)

// Retention through the worker, as `npm start` runs it: the worker purges on start and then periodically,
// with the figures of the configuration; what the store purges exactly is the store contract's test.
const quiet = (lines: Array<{ msg: string; obj: object }>): WorkerLog => ({
  debug: () => {},
  info: (obj, msg) => {
    lines.push({ msg, obj })
  },
  warn: (obj, msg) => {
    lines.push({ msg, obj })
  },
})

test('the worker deletes an unfulfilled trip once RETENTION_TRIP_DAYS have passed, and keeps a younger one', async () => {
  const config = loadConfig({ RETENTION_TRIP_DAYS: '3' })
  const t = await build({ config: { retention: config.retention } })
  try {
    const old = await createTrip(t)
    t.clock.advance(2 * 86_400_000)
    const young = await createTrip(t)
    t.clock.advance(1 * 86_400_000 + 1000)
    const lines: Array<{ msg: string; obj: object }> = []
    const worker = startWorker({ core: t.core, log: quiet(lines), pollMs: 5, retentionEveryMs: 60_000 })
    for (let i = 0; i < 100 && !lines.some((l) => l.msg.startsWith('retention')); i++)
      await new Promise((r) => setTimeout(r, 10))
    await worker.stop()
    const deleted = lines.find((l) => l.msg === 'retention: expired rows deleted')
    assert.ok(deleted, JSON.stringify(lines))
    assert.equal((deleted.obj as { trips: number }).trips, 1)
    const get = (id: string) =>
      t.app.inject({ method: 'GET', url: `/v2.2/trip/${id}`, headers: { authorization: basic(t.apiKey) } })
    assert.equal((await get(old.trip_id)).statusCode, 404)
    assert.equal((await get(young.trip_id)).statusCode, 200)
  } finally {
    await t.close()
  }
})

test('retention figures come from the environment, and a search must outlive the seat-map memo', () => {
  assert.deepEqual(loadConfig({}).retention, { searchHours: 24, tripDays: 30, idempotencyHours: 24, jobDays: 7 })
  assert.deepEqual(loadConfig({ RETENTION_SEARCH_HOURS: '6', RETENTION_JOB_DAYS: '1' }).retention, {
    searchHours: 6,
    tripDays: 30,
    idempotencyHours: 24,
    jobDays: 1,
  })
  assert.throws(() => loadConfig({ RETENTION_SEARCH_HOURS: '1' }), /RETENTION_SEARCH_HOURS/)
  assert.throws(() => loadConfig({ RETENTION_TRIP_DAYS: 'soon' }), /RETENTION_TRIP_DAYS/)
})
