/**
 * `npm run operator` (server/cli/operator.ts) as the operator runs it: a real process on a throwaway SQLite
 * file. A key printed once and kept only as its hash, listed without it, limited to a seller that must
 * exist, revoked by prefix or id; usage errors exit 2, refusals 1.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { root } from '../../helpers/process.ts'
import { SqliteStore } from '../../../server/store/sqlite.ts'
import { seller } from '../../store/fixtures.ts'
import { patience } from '../../helpers/patience.ts'

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-operator-cli-'))
  const path = join(dir, 'svc.db')
  const cli = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'server/cli/operator.ts', ...args],
        {
          cwd: root,
          env: { ...process.env, DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'warn' },
          encoding: 'utf8',
          timeout: patience(60_000),
        },
        (err, stdout, stderr) =>
          resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
      ).stdin?.end()
    })
  const bytes = () => Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))))
  return { dir, path, cli, bytes, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

test('create prints a key once (kept as its hash), list shows it without the key, revoke stops it', async () => {
  const w = workspace()
  try {
    const created = await w.cli(['create', '--name', 'On-call'])
    assert.equal(created.status, 0, created.stderr)
    const key = /key\s+(svc_op_\S+)/.exec(created.stdout)?.[1]
    assert.ok(key, created.stdout)
    assert.ok(!w.bytes().includes(Buffer.from(key)), 'the key is not in the database')

    const listed = await w.cli(['list', '--json'])
    assert.equal(listed.status, 0, listed.stderr)
    const keys = JSON.parse(listed.stdout) as Array<Record<string, unknown>>
    assert.equal(keys.length, 1)
    assert.deepEqual(
      {
        name: keys[0]!.name,
        seller_id: keys[0]!.seller_id,
        read_only: keys[0]!.read_only,
        revoked_at: keys[0]!.revoked_at,
      },
      { name: 'On-call', seller_id: null, read_only: false, revoked_at: null },
    )
    assert.equal(keys[0]!.prefix, key.slice(0, 14))
    assert.equal(keys[0]!.key_hash, undefined)
    assert.ok(!listed.stdout.includes(key))
    const text = await w.cli(['list'])
    assert.match(text.stdout, /On-call.*every seller.*read-write.*active/)
    assert.ok(!text.stdout.includes(key))

    // The stored key authenticates until it is revoked (the admin API reads it: test/api/admin.test.ts).
    const revoked = await w.cli(['revoke', `${String(keys[0]!.prefix)}…`])
    assert.equal(revoked.status, 0, revoked.stderr)
    assert.match(revoked.stdout, /Revoked operator key "On-call"/)
    assert.match((await w.cli(['list'])).stdout, /REVOKED/)
    const again = await w.cli(['revoke', String(keys[0]!.key_id)])
    assert.equal(again.status, 1)
    assert.match(again.stderr, /revoked already/)
  } finally {
    w.cleanup()
  }
})

test('a key limited to a seller, read-only; an unknown seller is refused; usage errors exit 2', async () => {
  const w = workspace()
  try {
    const store = new SqliteStore(w.path)
    await store.migrate()
    await store.createSeller(seller('s1'))
    await store.close()

    const limited = await w.cli(['create', '--name', 'Shop desk', '--seller', 's1', '--read-only'])
    assert.equal(limited.status, 0, limited.stderr)
    assert.match(limited.stdout, /seller\s+s1/)
    assert.match(limited.stdout, /read-only/)
    const [k] = JSON.parse((await w.cli(['list', '--json'])).stdout) as Array<Record<string, unknown>>
    assert.equal(k!.seller_id, 's1')
    assert.equal(k!.read_only, true)

    const unknown = await w.cli(['create', '--name', 'x', '--seller', 'ghost'])
    assert.equal(unknown.status, 1)
    assert.match(unknown.stderr, /Seller ghost does not exist/)
    for (const args of [['create'], ['create', '--name', 'x', '--colour', 'red'], ['revoke'], ['frobnicate']]) {
      const r = await w.cli(args)
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
      assert.match(r.stderr, /Usage:/)
    }
    const none = await w.cli(['revoke', 'svc_op_nothing'])
    assert.equal(none.status, 1)
    assert.match(none.stderr, /no operator key/)
  } finally {
    w.cleanup()
  }
})
