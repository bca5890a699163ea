/**
 * docs/operations.md's curl examples, run as written with the real curl against `npm start`'s entry on a
 * fresh SQLite file: a seller (the demo's), an operator key made by `npm run operator -- create`'s CLI, a
 * fulfilled trip whose `fulfillment_completed` webhook reached a receiver here, and a dead job. The block's
 * variables (BASE, KEY, SELLER_ID, …) are set to those; every curl line of the block is run, must exit 0
 * (`--fail-with-body`) with a 2xx, and must answer what the check of its line expects, a write with its effect
 * seen afterwards. A line without a check here, a check without its line, or a variable the block defines
 * and this test does not set, fails: a new example cannot go untested.
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { root, startServer, type RunningServer, overHttp } from '../helpers/process.ts'
import { basic, type CreatedTrip } from '../helpers/build.ts'
import { addItems, checkedBag, createTripOnFlight, fulfill, fulfillRequest, readSearch } from '../helpers/flows.ts'
import { until } from '../helpers/wait.ts'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { job } from '../store/fixtures.ts'
import { patience } from '../helpers/patience.ts'

const SELLER_KEY = 'svc_test_ops_examples_key_0001'
const JOB_ID = 'job_docs_dead'

/** The block under "## Examples": its variable lines and its commands (continuation lines joined). */
export function examples(markdown: string): { variables: Map<string, string>; commands: string[] } {
  const section = /^## Examples\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1]
  assert.ok(section, 'docs/operations.md has an "## Examples" section')
  const blocks = [...section.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)].map((m) => m[1]!)
  assert.equal(blocks.length, 1, 'one shell block of examples')
  const variables = new Map<string, string>()
  const commands: string[] = []
  for (const line of blocks[0]!.replace(/\\\n\s*/g, '').split('\n')) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue
    const assignment = /^([A-Z_]+)=(\S*)\s*(#.*)?$/.exec(line)
    if (assignment) variables.set(assignment[1]!, assignment[2]!)
    else commands.push(line.trim())
  }
  return { variables, commands }
}

/** What a line's answer must be, by the line's method and URL as the doc writes it. */
type Check = (answer: any, v: Record<string, string>) => Promise<void> | void

let server: RunningServer
let dbDir: string
let receiver: Server
const received: any[] = []
const vars: Record<string, string> = {}

async function admin(path: string): Promise<any> {
  const res = await fetch(`${server.base}/admin/v1${path}`, { headers: { authorization: `Bearer ${vars.KEY}` } })
  assert.equal(res.status, 200, await res.clone().text())
  return res.json()
}

/** A fulfilled trip of the demo seller (one checked bag), once its order has settled. */
async function bookedTrip(): Promise<CreatedTrip> {
  const t = overHttp(server.base, SELLER_KEY)
  const created = await createTripOnFlight(t, '117')
  // The sandbox airline answers a search at once; the worker may still be writing it when the trip is created.
  const search = await until('the search has products', 10_000, async () => {
    const s = await readSearch(t, created)
    return Object.keys(s.results.products).length > 0 ? s : undefined
  })
  const basket = await addItems(t, created, [{ product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' }])
  const res = await fulfill(t, created, fulfillRequest(created, basket.trip_state_hash))
  assert.equal(res.statusCode, 202, res.body)
  return created
}

before(async () => {
  receiver = createServer((req, res) => {
    let raw = ''
    req.on('data', (c: Buffer) => (raw += String(c)))
    req.on('end', () => {
      received.push(JSON.parse(raw))
      res.writeHead(200).end('ok')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  dbDir = mkdtempSync(join(tmpdir(), 'svc-ops-examples-'))
  const DATABASE_URL = `sqlite:${join(dbDir, 'svc.db')}`
  server = await startServer({ DATABASE_URL, SVC_DEMO_API_KEY: SELLER_KEY })
  const made = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'server/cli/operator.ts', 'create', '--name', 'Runbook'],
    { cwd: root, env: { ...process.env, DATABASE_URL }, encoding: 'utf8' },
  )
  assert.equal(made.status, 0, made.stderr)
  vars.BASE = server.base
  vars.KEY = /^\s+key\s+(svc_op_\S+)$/m.exec(made.stdout)![1]!
  vars.SELLER_ID = (await admin('/sellers')).data.find((s: any) =>
    s.keys.some((k: any) => k.prefix === SELLER_KEY.slice(0, 12)),
  ).seller_id
  const hook = await overHttp(server.base, SELLER_KEY).app.inject({
    method: 'POST',
    url: '/v2.2/callback_subscription',
    headers: { authorization: basic(SELLER_KEY) },
    payload: {
      delivery_method: 'http',
      target: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      event_name: 'fulfillment_completed',
    },
  })
  assert.equal(hook.statusCode, 201, hook.body)
  const trip = await bookedTrip()
  vars.TRIP_ID = trip.trip_id
  vars.DELIVERY_ID = await until('the webhook was delivered', 20_000, async () => {
    const found = await admin(`/webhooks/deliveries?seller_id=${vars.SELLER_ID}&state=succeeded`)
    return found.data[0]?.delivery_id as string | undefined
  })
  vars.RECORD_LOCATOR = (await admin(`/trips?seller_id=${vars.SELLER_ID}`)).data[0].record_locators[0]
  // A dead job of a kind no worker runs, so the example's retry leaves it pending, not dead again at once.
  const store = new SqliteStore(join(dbDir, 'svc.db'))
  try {
    await store.enqueueJob(
      job(JOB_ID, { kind: 'docs_example', status: 'dead', attempts: 3, max_attempts: 3, last_error: 'HTTP 503' }),
    )
  } finally {
    await store.close()
  }
  vars.JOB_ID = JOB_ID
})

after(async () => {
  await server?.stop()
  await new Promise((resolve) => receiver?.close(resolve))
  if (dbDir) rmSync(dbDir, { recursive: true, force: true })
})

const page = (a: any) => {
  assert.ok(Array.isArray(a.data), 'a page has data')
  assert.ok(a.next_after === null || typeof a.next_after === 'string', 'and next_after')
}

const CHECKS: Record<string, Check> = {
  'GET $BASE/admin/v1/sellers/$SELLER_ID': (a, v) => {
    assert.equal(a.seller_id, v.SELLER_ID)
    assert.equal(typeof a.supplier.credentials_set, 'boolean')
    assert.ok(a.keys.every((k: any) => typeof k.prefix === 'string' && typeof k.state === 'string'))
  },
  'POST $BASE/admin/v1/sellers/$SELLER_ID/rotate-key': async (a, v) => {
    assert.match(a.api_key, /^svc_test_/)
    assert.equal(a.prefix, a.api_key.slice(0, 12))
    const authorize = await fetch(`${v.BASE}/v2.2/authorize`, {
      method: 'POST',
      headers: { authorization: basic(a.api_key) },
    })
    assert.equal(authorize.status, 200, 'the new key works')
    const states = (await admin(`/sellers/${v.SELLER_ID}`)).keys.map((k: any) => k.state).sort()
    assert.deepEqual(states, ['active', 'grace'], 'the old key is in its grace period')
  },
  'GET $BASE/admin/v1/trips?record_locator=$RECORD_LOCATOR': (a, v) => {
    page(a)
    assert.deepEqual(
      a.data.map((t: any) => t.trip_id),
      [v.TRIP_ID],
    )
    assert.ok(a.data[0].record_locators.includes(v.RECORD_LOCATOR))
  },
  'GET $BASE/admin/v1/trips/$TRIP_ID': (a, v) => {
    assert.equal(a.trip.trip_id, v.TRIP_ID)
    assert.equal(typeof a.version, 'number')
    assert.equal(a.orders.length, 1)
  },
  'GET $BASE/admin/v1/orders?status=failed&failure_reason=ticketing_timeout&limit=100': (a) => {
    page(a)
    assert.deepEqual(a.data, [], "the trip's order succeeded")
  },
  'GET $BASE/admin/v1/trips/$TRIP_ID/events?limit=200': (a) => {
    page(a)
    const kinds = new Set(a.data.map((e: any) => e.kind))
    for (const kind of ['trip_created', 'basket_changed', 'fulfill_accepted', 'order_status'])
      assert.ok(kinds.has(kind), `a ${kind} entry in ${[...kinds].join(', ')}`)
  },
  'GET $BASE/admin/v1/sellers/$SELLER_ID/supplier-health': (a, v) => {
    assert.equal(a.seller_id, v.SELLER_ID)
    for (const n of ['calls', 'errors']) assert.equal(typeof a[n], 'number', n)
    assert.equal(typeof a.errors_by_reason, 'object')
    assert.equal(typeof a.truncated, 'boolean')
    assert.equal(a.buckets.length, 12)
  },
  'GET $BASE/admin/v1/orders/by-hour?seller_id=$SELLER_ID': (a, v) => {
    assert.equal(a.seller_id, v.SELLER_ID)
    assert.equal(a.buckets.length, 24)
    // The trip's order, fulfilled a moment ago, is in the last hour's bucket.
    assert.ok(a.buckets[23].counts.succeeded >= 1, JSON.stringify(a.buckets[23]))
  },
  'GET $BASE/admin/v1/jobs/dead': (a, v) => {
    page(a)
    assert.deepEqual(
      a.data.map((j: any) => [j.job_id, j.last_error]),
      [[v.JOB_ID, 'HTTP 503']],
    )
  },
  'POST $BASE/admin/v1/jobs/$JOB_ID/retry': async (a, v) => {
    assert.equal(a.job_id, v.JOB_ID)
    assert.equal(a.status, 'pending')
    assert.deepEqual((await admin('/jobs/dead')).data, [], 'no longer dead')
  },
  'GET $BASE/admin/v1/sellers/$SELLER_ID/webhooks': (a) => {
    assert.equal(a.subscriptions.length, 1)
    assert.equal(a.subscriptions[0].deliveries.succeeded, 1)
    assert.equal(a.subscriptions[0].secret, undefined, 'never its secret')
  },
  'GET $BASE/admin/v1/webhooks/deliveries?seller_id=$SELLER_ID&state=given_up': (a) => {
    page(a)
    assert.deepEqual(a.data, [], 'the receiver took it at once')
  },
  'GET $BASE/admin/v1/webhooks/deliveries/$DELIVERY_ID': (a, v) => {
    assert.equal(a.delivery_id, v.DELIVERY_ID)
    assert.equal(a.event_name, 'fulfillment_completed')
    assert.deepEqual(
      a.attempts.map((x: any) => x.status),
      [200],
    )
  },
  'POST $BASE/admin/v1/webhooks/deliveries/$DELIVERY_ID/resend': async (a, v) => {
    assert.equal(a.resend_of, v.DELIVERY_ID)
    assert.notEqual(a.delivery_id, v.DELIVERY_ID)
    await until('the resent event arrived', 20_000, () => (received.length === 2 ? true : undefined))
    assert.equal(received[1].event_id, received[0].event_id, 'the same event again')
  },
  'POST $BASE/admin/v1/sellers/$SELLER_ID/webhooks/test': async (a) => {
    assert.deepEqual(
      a.deliveries.map((d: any) => d.event_name),
      ['test_ping'],
    )
    const ping = await until('the test event arrived', 20_000, () => received.find((e) => e.event_name === 'test_ping'))
    assert.equal(ping.event_name, 'test_ping')
  },
}

/** A line's method and URL, as the doc writes them: the key of its check. */
function keyOf(command: string): string {
  const url = /"(\$BASE\/[^"]*)"/.exec(command)?.[1]
  assert.ok(url, `no "$BASE/…" URL in: ${command}`)
  return `${/\s-X\s+POST\s/.test(command) ? 'POST' : 'GET'} ${url}`
}

test("docs/operations.md's examples run as written with curl, each answering what it says", async (t) => {
  if (spawnSync('curl', ['--version']).status !== 0) return t.skip('curl is not installed')
  const { variables, commands } = examples(readFileSync(join(root, 'docs', 'operations.md'), 'utf8'))
  assert.deepEqual([...variables.keys()].sort(), Object.keys(vars).sort(), 'the block defines what this test sets')
  assert.deepEqual(
    commands.map(keyOf).sort(),
    Object.keys(CHECKS).sort(),
    'every line has a check here, and every check its line',
  )
  for (const command of commands) {
    assert.match(command, /^curl\s/, 'every line is a curl command')
    assert.match(command, /\s--fail-with-body\s/, `a reader's script notices an error: ${command}`)
    // The status on a last line of its own, after the body.
    const run = spawnSync('bash', ['-c', `${command} -w '\\n%{http_code}'`], {
      env: { ...process.env, ...vars },
      encoding: 'utf8',
      timeout: patience(30_000),
    })
    const lines = run.stdout.split('\n')
    const status = Number(lines.pop())
    assert.equal(run.status, 0, `${command}\nexit ${run.status}: ${run.stdout}${run.stderr}\n${server.output()}`)
    assert.ok(status >= 200 && status < 300, `${command}: HTTP ${status}`)
    await CHECKS[keyOf(command)]!(JSON.parse(lines.join('\n')), vars)
  }
})

test('the examples parser: variables, commands, continuation lines', () => {
  const doc = `## Examples\n\n\`\`\`sh\nBASE=http://x   # where\nKEY=k\n# a comment\ncurl -sS "$BASE/a" \\\n  -d '{}'\n\`\`\`\n\n## Next\n`
  const { variables, commands } = examples(doc)
  assert.deepEqual(Object.fromEntries(variables), { BASE: 'http://x', KEY: 'k' })
  assert.deepEqual(commands, [`curl -sS "$BASE/a" -d '{}'`])
  assert.equal(keyOf(commands[0]!), 'GET $BASE/a')
})
