/**
 * `npm run seller` (server/cli/seller.ts) as the operator runs it: a real process on a throwaway SQLite file,
 * with the server's SIGNING_KEY_SECRET. Sellers with a supplier (the token sealed, never shown), origins
 * changed, keys rotated and revoked, and a running server that stops taking a revoked key within 10 s.
 * The expiry rules themselves, with a test clock, are in test/core/application/sellers.test.ts.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { root, startServer } from '../../helpers/process.ts'
import { SqliteStore } from '../../../server/store/sqlite.ts'
import { createCore } from '../../../core/core.ts'
import { createSandboxSupplier } from '../../../core/adapters/sandbox-airline/adapter.ts'
import { testClock, testIds } from '../../helpers/build.ts'
import { trip as storeTrip } from '../../store/fixtures.ts'
import type { SellerRecord, TripRecord } from '../../../core/ports/records.ts'
import { patience } from '../../helpers/patience.ts'

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
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', 'server/cli/seller.ts', ...args],
        { cwd: root, env: merged as NodeJS.ProcessEnv, encoding: 'utf8', timeout: patience(60_000) },
        (err, stdout, stderr) =>
          resolve({
            status: err ? (typeof err.code === 'number' ? err.code : null) : 0,
            stdout,
            stderr,
            all: stdout + stderr,
          }),
      )
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
    const created = await w.cli([
      'create',
      '--name',
      'Test shop',
      '--sandbox',
      '--origin',
      'https://shop.example',
      '--origin',
      'https://b.example/',
      '--duffel-token',
      TEST_TOKEN,
    ])
    assert.equal(created.status, 0, created.all)
    const id = field(created.stdout, 'seller_id')!
    assert.match(created.stdout, /supplier\s+duffel \(credentials set\)/)
    assert.match(created.stdout, /origins\s+https:\/\/shop\.example, https:\/\/b\.example\n/)
    assert.match(field(created.stdout, 'API key')!, /^svc_test_/)
    assert.ok(!created.all.includes(TEST_TOKEN), 'the token is never printed back')

    const list = await w.cli(['list'])
    assert.equal(list.status, 0, list.all)
    assert.match(
      list.stdout,
      new RegExp(
        `${id}  sandbox  .*Test shop\\n    supplier: duffel \\(credentials set\\)\\n    origins: https://shop\\.example, https://b\\.example\\n    key: svc_test_.{3}…  active   created \\S+  never expires\\n`,
      ),
    )
    assert.ok(!list.all.includes(TEST_TOKEN), 'list never shows the token')
    assert.ok(!w.bytes().includes(TEST_TOKEN), 'the database never holds the token in the clear')

    const updated = await w.cli([
      'update',
      id,
      '--add-origin',
      'https://c.example',
      '--remove-origin',
      'https://shop.example',
    ])
    assert.equal(updated.status, 0, updated.all)
    assert.match(updated.stdout, /origins\s+https:\/\/b\.example, https:\/\/c\.example\n/)
    assert.match((await w.cli(['list'])).stdout, /origins: https:\/\/b\.example, https:\/\/c\.example\n/)
    const unknown = await w.cli(['update', id, '--remove-origin', 'https://zzz.example'])
    assert.equal(unknown.status, 1)
    assert.match(
      unknown.stderr,
      /^error: https:\/\/zzz\.example is not an origin of seller \S+ \(its origins: https:\/\/b\.example, https:\/\/c\.example\)\.\n$/,
    )

    // A live seller, its token from standard input (`-`): out of the shell's history and the process list.
    const live = await w.cli(['create', '--name', 'Live shop', '--duffel-token', '-'], {}, `${LIVE_TOKEN}\n`)
    assert.equal(live.status, 0, live.all)
    assert.match(live.stdout, /supplier\s+duffel \(credentials set\)/)
    assert.ok(!live.all.includes(LIVE_TOKEN) && !w.bytes().includes(LIVE_TOKEN))
    const liveId = field(live.stdout, 'seller_id')!
    assert.match(
      (await w.cli(['list'])).stdout,
      new RegExp(`${liveId}  live     .*Live shop\\n    supplier: duffel \\(credentials set\\)\\n`),
    )
    // A new token for it, the same way.
    const set = await w.cli(['update', liveId, '--duffel-token', '-'], {}, `${LIVE_TOKEN}2\n`)
    assert.equal(set.status, 0, set.all)
    assert.ok(!set.all.includes(LIVE_TOKEN) && !w.bytes().includes(LIVE_TOKEN))
  } finally {
    w.cleanup()
  }
})

test("the sealed token is the one a supplier call gets, with the server's secret", async () => {
  const w = workspace()
  try {
    const created = await w.cli(['create', '--name', 'Shop', '--sandbox', '--duffel-token', TEST_TOKEN])
    assert.equal(created.status, 0, created.all)
    const store = new SqliteStore(w.path)
    try {
      const core = createCore({
        store,
        clock: testClock(),
        ids: testIds(),
        suppliers: [createSandboxSupplier()],
        config: { signingKeySecret: SECRET },
      })
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
    assert.match(
      sandboxWithLive.stderr,
      /^error: Supplier duffel cannot serve this sandbox seller: .*duffel_test_.*\n$/,
    )
    const liveSandbox = await w.cli(['create', '--name', 'Live', '--supplier', 'sandbox'])
    assert.equal(liveSandbox.status, 1)
    assert.match(liveSandbox.stderr, /simulated offers/)
    const other = await w.cli([
      'create',
      '--name',
      'X',
      '--sandbox',
      '--supplier',
      'sandbox',
      '--duffel-token',
      TEST_TOKEN,
    ])
    assert.equal(other.status, 2)
    assert.match(
      other.stderr,
      /^error: --duffel-token is a token for --supplier duffel, not --supplier sandbox\n[\s\S]*Usage:/,
    )
    for (const r of [liveWithTest, sandboxWithLive, other])
      assert.ok(
        !r.all.includes('duffel_test_CLI') && !r.all.includes('duffel_live_CLI'),
        'a refused token is not echoed either',
      )
    assert.match((await w.cli(['list'])).stdout, /^No sellers yet/)
  } finally {
    w.cleanup()
  }
  // A database whose signing keys were never sealed (one with sealed keys does not open without the secret at all).
  const bare = workspace()
  try {
    const refused = await bare.cli(['create', '--name', 'Shop', '--sandbox', '--duffel-token', TEST_TOKEN], {
      SIGNING_KEY_SECRET: undefined,
    })
    assert.equal(refused.status, 1, refused.all)
    assert.match(
      refused.stderr,
      /^error: Supplier credentials are stored sealed under SIGNING_KEY_SECRET, which is not set: set SIGNING_KEY_SECRET .*\n$/,
    )
    assert.match((await bare.cli(['list'], { SIGNING_KEY_SECRET: undefined })).stdout, /^No sellers yet/)
    assert.ok(!bare.bytes().includes(TEST_TOKEN))
  } finally {
    bare.cleanup()
  }
})

test('usage errors of the new commands exit 2 with the usage', async () => {
  const w = workspace()
  try {
    const usage = [
      ['update'],
      ['update', 'a', 'b', '--add-origin', 'https://a.example'],
      ['update', 'some-id'],
      ['update', 'some-id', '--add-origin', 'https://a.example/path'],
      ['rotate-key'],
      ['rotate-key', 'some-id', '--grace-hours', 'soon'],
      ['rotate-key', 'some-id', '--grace-hours', '-1'],
      ['revoke-key', 'some-id', '--prefix', ' '],
      ['create', '--name', 'X', '--duffel-token', ''],
      ['list', 'extra'],
      ['show'],
      ['show', 'a', 'b'],
      ['disable'],
      ['enable', 'a', 'b'],
      ['update', 'some-id', '--force'],
      ['update', 'some-id', '--add-origin', 'https://a.example', '--force'],
      ['list', '--jsn'],
      ['disable', 'some-id', '--force'],
    ]
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
    const authorize = async (key: string) =>
      (
        await fetch(`${server.base}/v2.2/authorize`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
        })
      ).status
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
      assert.ok(
        list.includes(`key: ${oldKey.slice(0, 12)}…  grace    created`) && list.includes(`works until ${until}`),
        list,
      )
      assert.ok(!list.includes(oldKey) && !list.includes(newKey), 'keys are listed by prefix only')

      // Revoked by its prefix as list shows it: the server read the key just now, and drops it within 10 s.
      const revoked = await w.cli(['revoke-key', id, '--prefix', `${oldKey.slice(0, 12)}…`])
      assert.equal(revoked.status, 0, revoked.all)
      assert.match(
        revoked.stdout,
        new RegExp(
          `^Revoked ${oldKey.slice(0, 12)}… \\(created \\S+\\): it stops working now, on every server within 10 seconds, and so do the trip creation tokens it issued\\.\\n`,
        ),
      )
      // It says what stays valid, and for how long.
      assert.match(
        revoked.stdout,
        /\nTrip access tokens \(30 minutes\) and refresh tokens \(45 minutes\) keep working until they expire, each for its one trip; --end-trip-tokens ends them now\.\n$/,
      )
      const at = Date.now()
      while ((await authorize(oldKey)) === 200) {
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

test('refusals name what to do: a live seller without a real supplier, a Duffel token by the rule it breaks', async () => {
  const w = workspace()
  try {
    const live = await w.cli(['create', '--name', 'Live'])
    assert.equal(live.status, 1, live.all)
    assert.equal(
      live.stderr,
      "error: A live seller needs a real supplier: the sandbox airline sells simulated offers and cannot serve live trips. Pass the real supplier and the seller's own token for it, e.g. --supplier duffel --duffel-token duffel_live_… (--duffel-token - reads it from standard input); only a sandbox seller (--sandbox) may start without one.\n",
    )

    // Duffel's rules, each named when it is the one broken; the token is never echoed.
    const refusals: Array<[string, string]> = [
      [
        'duffel_test_walk',
        'Too short: a Duffel access token is at least 20 characters (duffel_test_ and at least 8 more); this one has 16.',
      ],
      [
        'duffel_test_0123456789 abcdef',
        'After duffel_test_ a Duffel access token has only letters, digits, _ and -; this one has another character (the 23rd of the token, e.g. a space or a quote pasted with it).',
      ],
      [
        'duffel_0123456789abcdefghij',
        'A Duffel access token starts with duffel_test_ or duffel_live_; this one does not.',
      ],
    ]
    for (const [token, why] of refusals) {
      const r = await w.cli(['create', '--name', 'Test', '--sandbox', '--duffel-token', '-'], {}, token)
      assert.equal(r.status, 1, r.all)
      assert.equal(r.stderr, `error: Supplier duffel cannot serve this sandbox seller: ${why}\n`)
      assert.ok(!r.all.includes(token))
    }
    // The shortest token the rules allow is taken.
    const shortest = await w.cli(
      ['create', '--name', 'Test', '--sandbox', '--duffel-token', '-'],
      {},
      'duffel_test_walk1234',
    )
    assert.equal(shortest.status, 0, shortest.all)
    assert.equal((await w.cli(['list', '--json'])).stdout.match(/"seller_id"/g)?.length, 1, 'only that one was created')
  } finally {
    w.cleanup()
  }
})

test('show and list --json: a seller as it is (live or sandbox, disabled or not, supplier, origins, keys by state), never a secret', async () => {
  const w = workspace()
  try {
    const created = await w.cli([
      'create',
      '--name',
      'Shop "one"',
      '--sandbox',
      '--origin',
      'https://shop.example',
      '--duffel-token',
      TEST_TOKEN,
    ])
    assert.equal(created.status, 0, created.all)
    const id = field(created.stdout, 'seller_id')!
    const first = field(created.stdout, 'API key')!
    const rotated = await w.cli(['rotate-key', id, '--grace-hours', '0'])
    const second = field(rotated.stdout, 'API key')!
    const third = field((await w.cli(['rotate-key', id, '--grace-hours', '2'])).stdout, 'API key')!
    const revoked = await w.cli(['revoke-key', id, '--prefix', second.slice(0, 12)])
    assert.equal(revoked.status, 0, revoked.all)
    const p = (k: string) => k.slice(0, 12)

    const shown = await w.cli(['show', id])
    assert.equal(shown.status, 0, shown.all)
    assert.match(
      shown.stdout,
      new RegExp(
        [
          'Seller "Shop "one"" \\(sandbox\\)',
          `  seller_id    ${id}`,
          '  created      \\S+',
          '  status       enabled',
          '  supplier     duffel \\(credentials set\\)',
          '  origins      https://shop\\.example',
          '  keys',
          `    ${p(first)}…  expired  created \\S+  expired \\S+`,
          `    ${p(second)}…  revoked  created \\S+  revoked \\S+`,
          `    ${p(third)}…  active   created \\S+  never expires`,
          '',
        ].join('\\n'),
      ),
    )
    // The same keys in the list: a revoked key says so, apart from an expired one (rotated with no grace).
    const list = (await w.cli(['list'])).stdout
    assert.ok(
      list.includes(`key: ${p(first)}…  expired  created`) && list.includes(`key: ${p(second)}…  revoked  created`),
      list,
    )

    await w.cli(['disable', id])
    assert.match(
      (await w.cli(['show', id])).stdout,
      new RegExp(
        `  status       DISABLED since \\S+: its API keys and trip tokens are refused \\(403 seller_disabled\\); npm run seller -- enable ${id} undoes it\\n`,
      ),
    )
    assert.match(
      (await w.cli(['list'])).stdout,
      new RegExp(`${id}  sandbox  \\S+  Shop "one"  \\(DISABLED since \\S+\\)\\n`),
    )

    const json = await w.cli(['list', '--json'])
    assert.equal(json.status, 0, json.all)
    const sellers = JSON.parse(json.stdout) as Array<Record<string, any>>
    assert.equal(sellers.length, 1)
    const s = sellers[0]!
    assert.deepEqual(Object.keys(s), [
      'seller_id',
      'name',
      'sandbox',
      'created_at',
      'disabled',
      'disabled_at',
      'supplier',
      'kept_tokens',
      'origins',
      'trip_tokens_after',
      'keys',
    ])
    assert.deepEqual(
      [s.seller_id, s.name, s.sandbox, s.disabled, s.supplier, s.kept_tokens, s.origins, s.trip_tokens_after],
      [id, 'Shop "one"', true, true, { name: 'duffel', credentials_set: true }, [], ['https://shop.example'], null],
    )
    assert.ok(!Number.isNaN(Date.parse(s.disabled_at)))
    assert.deepEqual(
      s.keys.map((k: Record<string, unknown>) => [k.prefix, k.state, k.revoked_at === null]),
      [
        [p(first), 'expired', true],
        [p(second), 'revoked', false],
        [p(third), 'active', true],
      ],
    )
    assert.deepEqual(Object.keys(s.keys[0]), ['prefix', 'state', 'created_at', 'expires_at', 'revoked_at'])
    for (const out of [json.stdout, shown.stdout, list]) {
      for (const secret of [TEST_TOKEN, first, second, third])
        assert.ok(!out.includes(secret), 'never a token or a key')
      assert.ok(!/A256GCM|"iv"|key_hash/.test(out), 'nor a sealed value or a hash')
    }

    assert.equal((await w.cli(['list', '--json'], {}, '')).status, 0)
    const missing = await w.cli(['show', 'no-such-seller'])
    assert.equal(missing.status, 1)
    assert.equal(missing.stderr, 'error: Seller no-such-seller does not exist.\n')
  } finally {
    w.cleanup()
  }
  const empty = workspace()
  try {
    assert.equal((await empty.cli(['list', '--json'])).stdout, '[]\n')
  } finally {
    empty.cleanup()
  }
})

/** Trips of a seller written into the CLI's database, as the server would have stored them. */
async function seedTrips(path: string, trips: TripRecord[], legacy: SellerRecord[] = []): Promise<void> {
  const store = new SqliteStore(path)
  try {
    for (const s of legacy) await store.createSeller(s)
    for (const t of trips) await store.insertTrip(t)
  } finally {
    await store.close()
  }
}
/** A trip departing in 30 days with a bag not yet ordered (not yet fulfilled), or with it ordered and succeeded. */
const tripOn = (id: string, sellerId: string, supplier: string, done = false): TripRecord =>
  storeTrip(id, sellerId, {
    supplier,
    journeys: [
      { journey_id: 'j1', segments: [{ departure_time: new Date(Date.now() + 30 * 86_400_000).toISOString() }] },
    ],
    basket: { b1: { basket_item_id: 'b1', product_type: 'bag', ...(done ? { order_id: 'o1' } : {}) } },
    orders: done ? { o1: { order_id: 'o1', status: 'succeeded' } } : {},
  } as unknown as Partial<TripRecord>)

test('update --supplier refuses while trips are not yet fulfilled unless --force, keeps the token it leaves unless --remove-token; a live seller is never left without a real supplier', async () => {
  const w = workspace()
  try {
    const created = await w.cli(['create', '--name', 'Shop', '--sandbox', '--duffel-token', TEST_TOKEN])
    const id = field(created.stdout, 'seller_id')!
    await seedTrips(w.path, [tripOn('trip-open', id, 'duffel'), tripOn('trip-done', id, 'duffel', true)])

    const refused = await w.cli(['update', id, '--supplier', 'sandbox'])
    assert.equal(refused.status, 1, refused.all)
    assert.equal(
      refused.stderr,
      `error: Seller ${id} has 1 trip not yet fulfilled on duffel (trips whose first departure is still ahead and that have an extra in the basket not yet ordered, or an order not final (awaiting_ticketing, queued, in_progress or cancelling)): trip-open. They would stay on duffel, served with its kept token, while new trips go to sandbox. Run this again once they are fulfilled or have departed, or add --force to switch now.\n`,
    )
    assert.ok(
      (await w.cli(['show', id])).stdout.includes('  supplier     duffel (credentials set)\n'),
      'nothing changed',
    )

    const forced = await w.cli(['update', id, '--supplier', 'sandbox', '--force'])
    assert.equal(forced.status, 0, forced.all)
    assert.ok(
      forced.stdout.includes(
        '  supplier    sandbox (no credentials)\n  kept token  duffel (sealed, of a supplier it sold from before: its trips created there still use it; update --remove-token removes it)\n',
      ),
      forced.stdout,
    )
    assert.match(
      forced.stdout,
      /\n--force: 1 trip not yet fulfilled stays on duffel \(trip-open\), served with its kept token\.\n$/,
    )
    assert.ok(
      (await w.cli(['show', id])).stdout.includes('  supplier     sandbox (no credentials)\n  kept token   duffel ('),
    )
    assert.deepEqual(JSON.parse((await w.cli(['list', '--json'])).stdout)[0].kept_tokens, ['duffel'])
    assert.ok(!w.bytes().includes(TEST_TOKEN), 'kept sealed')

    // Back to Duffel without a token: the kept one is taken up again.
    const back = await w.cli(['update', id, '--supplier', 'duffel'])
    assert.equal(back.status, 0, back.all)
    assert.ok(back.stdout.includes('  supplier    duffel (credentials set)\n\nEvery server'), back.stdout)
    const nothing = await w.cli(['update', id, '--remove-token'])
    assert.equal(nothing.status, 1)
    assert.equal(
      nothing.stderr,
      `error: Seller ${id} keeps no token of a supplier it does not sell from: --remove-token has nothing to remove (the token of the supplier it sells from is replaced by giving a new one, never removed).\n`,
    )

    // Away with the token removed: the open trip would be left without it.
    const strand = await w.cli(['update', id, '--supplier', 'sandbox', '--remove-token'])
    assert.equal(strand.status, 1)
    assert.match(
      strand.stderr,
      /: trip-open\. They would stay on duffel, and duffel would have no token for them: their checks, fulfillment and orders would fail \(supplier_not_configured\)\. Run this again once they are fulfilled or have departed, or add --force to switch now\.\n$/,
    )
    const stranded = await w.cli(['update', id, '--supplier', 'sandbox', '--remove-token', '--force'])
    assert.equal(stranded.status, 0, stranded.all)
    assert.match(
      stranded.stdout,
      /\n--force: 1 trip not yet fulfilled stays on duffel \(trip-open\); duffel has no token for them any more, so their checks, fulfillment and orders there fail \(supplier_not_configured\)\.\n$/,
    )
    assert.ok(!/kept token/.test((await w.cli(['show', id])).stdout))

    // A live seller: never back to the sandbox airline; one made before live sellers needed a real supplier changes nothing until it gets one.
    const live = field((await w.cli(['create', '--name', 'Live', '--duffel-token', LIVE_TOKEN])).stdout, 'seller_id')!
    const liveBack = await w.cli(['update', live, '--supplier', 'sandbox', '--force'])
    assert.equal(liveBack.status, 1)
    assert.match(
      liveBack.stderr,
      /^error: Supplier sandbox cannot serve this live seller: The sandbox airline sells simulated offers: it serves sandbox sellers only \(a live seller needs a real supplier, e\.g\. --supplier duffel --duffel-token duffel_live_…\)\.\n$/,
    )
    await seedTrips(
      w.path,
      [],
      [
        {
          seller_id: 'legacy-live',
          name: 'Old live',
          origins: [],
          sandbox: false,
          supplier: { name: 'sandbox', credentials: null },
          created_at: '2026-01-01T00:00:00.000Z',
        },
      ],
    )
    const legacy = await w.cli(['update', 'legacy-live', '--add-origin', 'https://old.example'])
    assert.equal(legacy.status, 1)
    assert.equal(
      legacy.stderr,
      "error: Seller legacy-live is live and would be left without a real supplier: its supplier sandbox sells simulated offers and cannot serve live trips. Pass its real supplier and the seller's own token for it with this update, e.g. --supplier duffel --duffel-token duffel_live_… (--duffel-token - reads it from standard input).\n",
    )
    assert.match(
      (await w.cli(['show', 'legacy-live'])).stdout,
      /Note: a live seller sells nothing until it has a real supplier: npm run seller -- update legacy-live --duffel-token duffel_live_\.\.\./,
    )
    const fixed = await w.cli([
      'update',
      'legacy-live',
      '--add-origin',
      'https://old.example',
      '--duffel-token',
      LIVE_TOKEN,
    ])
    assert.equal(fixed.status, 0, fixed.all)
  } finally {
    w.cleanup()
  }
})

test("disable refuses a seller's key on a running server within 10 s (403 seller_disabled); enable lets it work again", async () => {
  const w = workspace()
  try {
    const created = await w.cli(['create', '--name', 'Shop', '--sandbox'])
    const id = field(created.stdout, 'seller_id')!
    const key = field(created.stdout, 'API key')!
    const server = await startServer({ ...w.env, WORKER: 'off' }, { entry: 'service' })
    const authorize = () =>
      fetch(`${server.base}/v2.2/authorize`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
      })
    /** Waits until the key answers `status`; fails after 11.5 s. */
    const until = async (status: number) => {
      const at = Date.now()
      for (;;) {
        const res = await authorize()
        if (res.status === status) return res
        assert.ok(Date.now() - at < 11_500, `still ${res.status} after 10 s`)
        await new Promise((r) => setTimeout(r, 250))
      }
    }
    try {
      assert.equal((await authorize()).status, 200)
      const disabled = await w.cli(['disable', id])
      assert.equal(disabled.status, 0, disabled.all)
      assert.match(
        disabled.stdout,
        new RegExp(
          `^Disabled seller "Shop" \\(${id}\\) at \\S+\\.\\nOn every server within 10 seconds, every request made with its API keys, trip creation tokens or trip access tokens is refused \\(403 seller_disabled\\)\\.\\nOrders, checks and webhooks already under way go on\\. Nothing is revoked: npm run seller -- enable ${id} makes them work again\\.\\n$`,
        ),
      )
      const refused = await until(403)
      assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/)
      const problem = (await refused.json()) as { code: string; type: string }
      assert.deepEqual([problem.code, problem.type], ['seller_disabled', '/docs/errors#seller_disabled'])

      const again = await w.cli(['disable', id])
      assert.equal(again.status, 0)
      assert.match(
        again.stdout,
        new RegExp(`^The seller "Shop" \\(${id}\\) was already disabled \\(since \\S+\\): nothing changed\\.\\n$`),
      )
      const enabled = await w.cli(['enable', id])
      assert.equal(enabled.status, 0, enabled.all)
      assert.equal(
        enabled.stdout,
        `Enabled seller "Shop" (${id}): its API keys and trip tokens work again on every server within 10 seconds (those that have not expired or been revoked meanwhile).\n`,
      )
      await until(200)
      assert.equal(
        (await w.cli(['enable', id])).stdout,
        `The seller "Shop" (${id}) is not disabled: nothing changed.\n`,
      )
      const missing = await w.cli(['disable', 'no-such-seller'])
      assert.equal(missing.status, 1)
      assert.equal(missing.stderr, 'error: Seller no-such-seller does not exist.\n')
    } finally {
      await server.stop()
    }
  } finally {
    w.cleanup()
  }
})
