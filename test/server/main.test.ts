/**
 * The real entry points as processes: `npm start` (examples/seller-checkout/main.ts: the service and the demo),
 * `npm run start:service` (server/main.ts) and `npm run seller` (server/cli/seller.ts), on a throwaway SQLite file.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { root, startServer } from '../helpers/process.ts'
import { patience } from '../helpers/patience.ts'

const tsx = (script: string, args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: patience(60_000),
  })

test('npm start: serves on the configured port, keeps the demo key, and stops cleanly on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-main-'))
  const key = 'svc_test_demo_0123456789abcdef'
  // A nested path: the SQLite file's directory is created on first start.
  const metricsToken = 'scrape-0123456789abcdef'
  const server = await startServer({
    DATABASE_URL: `sqlite:${join(dir, 'nested', 'svc.db')}`,
    SVC_DEMO_API_KEY: key,
    METRICS_TOKEN: metricsToken,
  })
  try {
    assert.ok(server.output().includes(key), 'the banner shows the demo key given by env')
    const authorize = await fetch(`${server.base}/v2.2/authorize`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    })
    assert.equal(authorize.status, 200)
    assert.equal((await fetch(`${server.base}/readyz`)).status, 200)
    // GET /metrics as npm start wires it: METRICS_TOKEN asked for, the core's jobs, store and requests shown.
    assert.match(server.output(), /Metrics +http:\S+\/metrics \(Bearer METRICS_TOKEN\)/)
    assert.equal((await fetch(`${server.base}/metrics`)).status, 401)
    const metrics = await (
      await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
    ).text()
    assert.match(metrics, /^svc_http_requests_total\{method="POST",route="\/v2\.2\/authorize",status_code="200"\} 1$/m)
    assert.match(metrics, /^svc_jobs_pending\{kind="basket_check"\} 0$/m)
    assert.match(metrics, /^# TYPE svc_store_errors_total counter$/m)
    assert.match(metrics, /^svc_process_cpu_user_seconds_total /m)
    // The demo seller may call from the server's own pages.
    const preflight = await fetch(`${server.base}/v2.2/trip`, {
      method: 'OPTIONS',
      headers: { origin: `http://localhost:${server.port}`, 'access-control-request-method': 'POST' },
    })
    assert.equal(preflight.status, 204)
    assert.equal(preflight.headers.get('access-control-allow-origin'), `http://localhost:${server.port}`)
    assert.equal(await server.stop(), 0, server.output())
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('a second npm start on the same database says how to get an API key (the first printed one, once)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-main-'))
  const env = { DATABASE_URL: `sqlite:${join(dir, 'svc.db')}` }
  try {
    const first = await startServer(env)
    const key = /API key\s+(svc_test_\S+)/.exec(first.output())?.[1]
    assert.ok(key, first.output())
    assert.equal(await first.stop(), 0)
    const second = await startServer(env)
    try {
      assert.ok(!second.output().includes(key), 'the key is never printed again')
      const hint = /npm run seller -- create --name "My shop" --origin (\S+) --sandbox/.exec(second.output())
      assert.ok(hint, second.output())
      // The command it prints works as printed.
      const made = tsx('server/cli/seller.ts', ['create', '--name', 'My shop', '--origin', hint[1]!, '--sandbox'], env)
      assert.equal(made.status, 0, made.stderr)
      const newKey = /API key\s+(svc_test_\S+)/.exec(made.stdout)?.[1]
      assert.ok(newKey, made.stdout)
      const authorize = await fetch(`${second.base}/v2.2/authorize`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${newKey}:`).toString('base64')}` },
      })
      assert.equal(authorize.status, 200)
    } finally {
      await second.stop()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('npm run start:service: the API without the demo checkout', async () => {
  const server = await startServer({ DATABASE_URL: 'memory:' }, { entry: 'service' })
  try {
    assert.doesNotMatch(server.output(), /^\s+Demo\s+http/m)
    assert.equal((await fetch(`${server.base}/readyz`)).status, 200)
    assert.equal((await fetch(`${server.base}/`)).status, 404)
    assert.equal((await fetch(`${server.base}/demo/api/checkout`, { method: 'POST' })).status, 404)
  } finally {
    await server.stop()
  }
})

test('npm run seller: create prints a working key once; list shows the seller; usage errors exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'))
  try {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'svc.db')}` }
    const created = tsx(
      'server/cli/seller.ts',
      [
        'create',
        '--name',
        'Shop One',
        '--origin',
        'https://shop.example/',
        '--origin',
        'https://shop.example',
        '--sandbox',
      ],
      env,
    )
    assert.equal(created.status, 0, created.stderr)
    const key = /API key\s+(\S+)/.exec(created.stdout)?.[1]
    assert.ok(key && key.length >= 16, created.stdout)
    assert.match(created.stdout, /cannot be shown again/)

    const list = tsx('server/cli/seller.ts', ['list'], env)
    assert.equal(list.status, 0, list.stderr)
    assert.match(list.stdout, /Shop One/)
    assert.match(list.stdout, /sandbox/)
    assert.match(list.stdout, /origins: https:\/\/shop\.example\n/)
    assert.ok(!list.stdout.includes(key), 'the key is never shown again')

    for (const args of [
      ['create', '--origin', 'https://a.example'],
      ['create', '--name', 'X', '--origin', 'https://a.example/path'],
      ['create', '--name', 'X', '--bogus'],
      ['frobnicate'],
    ]) {
      const bad = tsx('server/cli/seller.ts', args, env)
      assert.equal(bad.status, 2, `${args.join(' ')}: ${bad.stdout}${bad.stderr}`)
      assert.match(bad.stderr, /error: .*\n[\s\S]*Usage:/)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
