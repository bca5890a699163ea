/**
 * `npm run seller` (server/cli/seller.ts) as the operator runs it: a real process on a throwaway SQLite file,
 * with the server's SIGNING_KEY_SECRET. Sellers with a supplier (the token sealed, never shown), origins
 * changed, keys rotated and revoked, and a running server that stops taking a revoked key within 10 s.
 * The expiry rules themselves, with a test clock, are in test/core/sellers.test.ts.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { root, startServer } from '../helpers/process.ts'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { createCore } from '../../core/core.ts'
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import { testClock, testIds } from '../helpers/build.ts'

const SECRET = 'seller-cli test secret, 32 characters at least'
const TEST_TOKEN = 'duffel_test_CLI0123456789secretTOKEN'
const LIVE_TOKEN = 'duffel_live_CLI0123456789secretTOKEN'

/** A throwaway database, and the CLI run on it with the server's environment (`env` adds or unsets variables). */
function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-seller-cli-'))
  const path = join(dir, 'svc.db')
  const env = { DATABASE_URL: `sqlite:${path}`, SIGNING_KEY_SECRET: SECRET, LOG_LEVEL: 'warn' }
  /** Runs the CLI; `input` is its standard input (none: closed at once). */
  const cli = (args: string[], over: Record<string, string | undefined> = {}, input = '') => {
    const merged: Record<string, string | undefined> = { ...process.env, ...env, ...over }
    for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k]
    return new Promise<{ status: number | null; stdout: string; stderr: string; all: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', 'server/cli/seller.ts', ...args], { cwd: root, env: merged as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 },
        (err, stdout, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr, all: stdout + stderr }))
      child.stdin?.end(input)
    })
  }
  /** Every byte the database keeps, in any of its files. */
  const bytes = () => Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))))
  return { dir, path, env, cli, bytes, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

const field = (out: string, name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(out)?.[1]

test('create with origins and a Duffel token: the token is sealed, never printed, never listed; update adds and removes origins', async () => {
  const w = workspace()
  try {
    const created = await w.cli(['create', '--name', 'Test shop', '--sandbox', '--origin', 'https://shop.example', '--origin', 'https://b.example/', '--duffel-token', TEST_TOKEN])
    assert.equal(created.status, 0, created.all)
    const id = field(created.stdout, 'seller_id')!
    assert.match(created.stdout, /supplier\s+duffel \(credentials set\)/)
    assert.match(created.stdout, /origins\s+https:\/\/shop\.example, https:\/\/b\.example\n/)
    assert.match(field(created.stdout, 'API key')!, /^svc_test_/)
    assert.ok(!created.all.includes(TEST_TOKEN), 'the token is never printed back')

    const list = await w.cli(['list'])
    assert.equal(list.status, 0, list.all)
    assert.match(list.stdout, new RegExp(`${id}  sandbox  .*Test shop\\n    supplier: duffel \\(credentials set\\)\\n    origins: https://shop\\.example, https://b\\.example\\n    key: svc_test_.{3}…  created \\S+  never expires\\n`))
    assert.ok(!list.all.includes(TEST_TOKEN), 'list never shows the token')
    assert.ok(!w.bytes().includes(TEST_TOKEN), 'the database never holds the token in the clear')

    const updated = await w.cli(['update', id, '--add-origin', 'https://c.example', '--remove-origin', 'https://shop.example'])
    assert.equal(updated.status, 0, updated.all)
    assert.match(updated.stdout, /origins\s+https:\/\/b\.example, https:\/\/c\.example\n/)
    assert.match((await w.cli(['list'])).stdout, /origins: https:\/\/b\.example, https:\/\/c\.example\n/)
    const unknown = await w.cli(['update', id, '--remove-origin', 'https://zzz.example'])
    assert.equal(unknown.status, 1)
    assert.match(unknown.stderr, /^error: https:\/\/zzz\.example is not an origin of seller \S+ \(its origins: https:\/\/b\.example, https:\/\/c\.example\)\.\n$/)

    // Another supplier's token later, on a live seller created without one.
    const live = await w.cli(['create', '--name', 'Live shop'])
    assert.equal(live.status, 0, live.all)
    assert.match(live.stdout, /supplier\s+sandbox \(no credentials\)[\s\S]*a live seller sells nothing until it has a real supplier: npm run seller -- update \S+ --duffel-token/)
    const liveId = field(live.stdout, 'seller_id')!
    // The token from standard input (`-`): out of the shell's history and the process list.
    const set = await w.cli(['update', liveId, '--duffel-token', '-'], {}, `${LIVE_TOKEN}\n`)
    assert.equal(set.status, 0, set.all)
    assert.ok(!set.all.includes(LIVE_TOKEN) && !w.bytes().includes(LIVE_TOKEN))
    assert.match((await w.cli(['list'])).stdout, new RegExp(`${liveId}  live     .*Live shop\\n    supplier: duffel \\(credentials set\\)\\n`))
  } finally {
    w.cleanup()
  }
})

test('the sealed token is the one a supplier call gets, with the server\'s secret', async () => {
  const w = workspace()
  try {
    const created = await w.cli(['create', '--name', 'Shop', '--sandbox', '--duffel-token', TEST_TOKEN])
    assert.equal(created.status, 0, created.all)
    const store = new SqliteStore(w.path)
    try {
      const core = createCore({ store, clock: testClock(), ids: testIds(), suppliers: [createSandboxSupplier()], config: { signingKeySecret: SECRET } })
      const seller = (await store.getSeller(field(created.stdout, 'seller_id')!))!
      assert.equal(seller.supplier.credentials?.sealed, 'A256GCM')
      assert.equal(await core.context.sellers.credentials(seller), TEST_TOKEN)
    } finally {
      await store.close()
    }
  } finally {
    w.cleanup()
  }
})

test('a token that does not fit the seller, or no SIGNING_KEY_SECRET, is refused with one line and nothing is created', async () => {
  const w = workspace()
  try {
    const liveWithTest = await w.cli(['create', '--name', 'Live', '--duffel-token', TEST_TOKEN])
    assert.equal(liveWithTest.status, 1)
    assert.match(liveWithTest.stderr, /^error: Supplier duffel cannot serve this live seller: .*duffel_live_.*\n$/)
    const sandboxWithLive = await w.cli(['create', '--name', 'Test', '--sandbox', '--duffel-token', LIVE_TOKEN])
    assert.equal(sandboxWithLive.status, 1)
    assert.match(sandboxWithLive.stderr, /^error: Supplier duffel cannot serve this sandbox seller: .*duffel_test_.*\n$/)
    const liveSandbox = await w.cli(['create', '--name', 'Live', '--supplier', 'sandbox'])
    assert.equal(liveSandbox.status, 1)
    assert.match(liveSandbox.stderr, /simulated offers/)
    const other = await w.cli(['create', '--name', 'X', '--sandbox', '--supplier', 'sandbox', '--duffel-token', TEST_TOKEN])
    assert.equal(other.status, 2)
    assert.match(other.stderr, /^error: --duffel-token is a token for --supplier duffel, not --supplier sandbox\n[\s\S]*Usage:/)
    for (const r of [liveWithTest, sandboxWithLive, other]) assert.ok(!r.all.includes('duffel_test_CLI') && !r.all.includes('duffel_live_CLI'), 'a refused token is not echoed either')
    assert.match((await w.cli(['list'])).stdout, /^No sellers yet/)
  } finally {
    w.cleanup()
  }
  // A database whose signing keys were never sealed (one with sealed keys does not open without the secret at all).
  const bare = workspace()
  try {
    const refused = await bare.cli(['create', '--name', 'Shop', '--sandbox', '--duffel-token', TEST_TOKEN], { SIGNING_KEY_SECRET: undefined })
    assert.equal(refused.status, 1, refused.all)
    assert.match(refused.stderr, /^error: Supplier credentials are stored sealed under SIGNING_KEY_SECRET, which is not set: set SIGNING_KEY_SECRET .*\n$/)
    assert.match((await bare.cli(['list'], { SIGNING_KEY_SECRET: undefined })).stdout, /^No sellers yet/)
    assert.ok(!bare.bytes().includes(TEST_TOKEN))
  } finally {
    bare.cleanup()
  }
})

test('usage errors of the new commands exit 2 with the usage', async () => {
  const w = workspace()
  try {
    const usage = [['update'], ['update', 'a', 'b', '--add-origin', 'https://a.example'], ['update', 'some-id'], ['update', 'some-id', '--add-origin', 'https://a.example/path'],
      ['rotate-key'], ['rotate-key', 'some-id', '--grace-hours', 'soon'], ['rotate-key', 'some-id', '--grace-hours', '-1'], ['revoke-key', 'some-id', '--prefix', ' '],
      ['create', '--name', 'X', '--duffel-token', ''], ['list', 'extra']]
    const runs = await Promise.all(usage.map((args) => w.cli(args)))
    usage.forEach((args, i) => {
      assert.equal(runs[i]!.status, 2, `${args.join(' ')}: ${runs[i]!.all}`)
      assert.match(runs[i]!.stderr, /^error: .*\n[\s\S]*Usage:[\s\S]*rotate-key SELLER_ID \[--grace-hours HOURS\]/)
    })
    const missing = await w.cli(['rotate-key', 'no-such-seller'])
    assert.equal(missing.status, 1)
    assert.equal(missing.stderr, 'error: Seller no-such-seller does not exist.\n')
  } finally {
    w.cleanup()
  }
})

test('rotate-key prints a new key and the old one works through its grace; revoke-key stops a key on a running server within 10 s', async () => {
  const w = workspace()
  try {
    const created = await w.cli(['create', '--name', 'Shop', '--sandbox'])
    assert.equal(created.status, 0, created.all)
    const id = field(created.stdout, 'seller_id')!
    const oldKey = field(created.stdout, 'API key')!
    const server = await startServer({ ...w.env, WORKER: 'off' }, { entry: 'service' })
    const authorize = async (key: string) => (await fetch(`${server.base}/v2.2/authorize`, {
      method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    })).status
    try {
      assert.equal(await authorize(oldKey), 200)

      const rotated = await w.cli(['rotate-key', id, '--grace-hours', '2'])
      assert.equal(rotated.status, 0, rotated.all)
      const newKey = field(rotated.stdout, 'API key')!
      assert.match(newKey, /^svc_test_/)
      assert.notEqual(newKey, oldKey)
      const until = /keep working until (\S+) \(2 hours\), then stop\./.exec(rotated.stdout)?.[1]
      assert.ok(until, rotated.stdout)
      assert.ok(Math.abs(Date.parse(until) - Date.now() - 2 * 3_600_000) < 60_000, until)
      assert.ok(rotated.stdout.includes(`previous keys (${oldKey.slice(0, 12)})`), rotated.stdout)
      assert.equal(await authorize(newKey), 200)
      assert.equal(await authorize(oldKey), 200, 'the old key works in its grace period')
      const list = (await w.cli(['list'])).stdout
      assert.ok(list.includes(`key: ${oldKey.slice(0, 12)}…  created`) && list.includes(`works until ${until}`), list)
      assert.ok(!list.includes(oldKey) && !list.includes(newKey), 'keys are listed by prefix only')

      // Revoked by its prefix as list shows it: the server read the key just now, and drops it within 10 s.
      const revoked = await w.cli(['revoke-key', id, '--prefix', `${oldKey.slice(0, 12)}…`])
      assert.equal(revoked.status, 0, revoked.all)
      assert.match(revoked.stdout, new RegExp(`^Revoked ${oldKey.slice(0, 12)}… \\(created \\S+\\): it stops working now, on every server within 10 seconds, and so do the trip creation tokens it issued\\.\\n`))
      // It says what stays valid, and for how long.
      assert.match(revoked.stdout, /\nTrip access tokens \(30 minutes\) and refresh tokens \(45 minutes\) keep working until they expire, each for its one trip; --end-trip-tokens ends them now\.\n$/)
      const at = Date.now()
      while (await authorize(oldKey) === 200) {
        assert.ok(Date.now() - at < 11_500, 'the revoked key still works after 10 s')
        await new Promise((r) => setTimeout(r, 250))
      }
      assert.equal(await authorize(oldKey), 401)
      assert.equal(await authorize(newKey), 200, 'the new key works on')
    } finally {
      await server.stop()
    }

    // Without a prefix: every key but the newest; once more there is nothing to revoke.
    const third = await w.cli(['rotate-key', id])
    assert.equal(third.status, 0, third.all)
    const all = await w.cli(['revoke-key', id])
    assert.equal(all.status, 0, all.all)
    assert.match(all.stdout, /^Revoked svc_test_.{3}… \(created \S+\): it stops working now/m)
    assert.match(all.stdout, new RegExp(`^Kept the newest key ${field(third.stdout, 'API key')!.slice(0, 12)}… `, 'm'))
  } finally {
    w.cleanup()
  }
})
