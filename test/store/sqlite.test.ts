import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { PostgresStore } from '../../server/store/postgres.ts'
import { openStore } from '../../server/store/index.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { migrations } from '../../server/store/migrations.ts'
import {
  BACKSTOP_PAGES,
  CheckpointThread,
  INLINE_CHECKPOINT_PAGES,
  type CheckpointResult,
} from '../../server/store/sqlite-checkpoints.ts'
import Database from 'better-sqlite3'
import { until } from '../helpers/wait.ts'
import { storeContract, seller, trip, job, type ContractOptions, type MigratableStore } from './contract.ts'
import type { TripRecord } from '../../core/ports/records.ts'

const dir = mkdtempSync(join(tmpdir(), 'svc-store-'))
after(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
// Each store in a directory that does not exist yet, so every test also checks it gets created.
const freshPath = () => join(dir, `s${++n}`, 'store.db')

const insertV1Trip = async (s: MigratableStore, t: TripRecord) => {
  ;(s as SqliteStore).db
    .prepare('INSERT INTO trips (trip_id, seller_id, version, updated_at, doc) VALUES (?, ?, 1, ?, ?)')
    .run(t.trip_id, t.seller_id, t.updated_at, JSON.stringify(t))
}
const insertV1Idempotency: ContractOptions['insertV1Idempotency'] = async (s, r) => {
  ;(s as SqliteStore).db
    .prepare('INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at) VALUES (?, ?, ?, NULL, ?)')
    .run(r.scope, r.key, r.request_hash, r.created_at)
}
const insertV1Seller: ContractOptions['insertV1Seller'] = async (s, x, k) => {
  const { db } = s as SqliteStore
  db.prepare('INSERT INTO sellers (seller_id, name, origins, sandbox, created_at) VALUES (?, ?, ?, ?, ?)').run(
    x.seller_id,
    x.name,
    JSON.stringify(x.origins),
    x.sandbox ? 1 : 0,
    x.created_at,
  )
  if (k)
    db.prepare('INSERT INTO api_keys (key_hash, seller_id, prefix, created_at) VALUES (?, ?, ?, ?)').run(
      k.key_hash,
      k.seller_id,
      k.prefix,
      k.created_at,
    )
}
const insertV1Job: ContractOptions['insertV1Job'] = async (s, j) => {
  ;(s as SqliteStore).db
    .prepare(
      `INSERT INTO jobs (job_id, kind, payload, run_at, attempts, max_attempts, locked_until, last_error, status, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      j.job_id,
      j.kind,
      JSON.stringify(j.payload),
      j.run_at,
      j.attempts,
      j.max_attempts,
      j.locked_until,
      j.last_error,
      j.status,
      j.created_at,
    )
}
storeContract('sqlite', async () => new SqliteStore(freshPath()), {
  insertV1Trip,
  insertV1Idempotency,
  insertV1Seller,
  insertV1Job,
})
storeContract('sqlite :memory:', async () => new SqliteStore(':memory:'), {
  insertV1Trip,
  insertV1Idempotency,
  insertV1Seller,
  insertV1Job,
})

describe('sqlite store on a shared file', () => {
  test('uses WAL, a busy timeout and foreign keys', async () => {
    const s = new SqliteStore(freshPath())
    try {
      assert.equal(s.db.pragma('journal_mode', { simple: true }), 'wal')
      assert.ok((s.db.pragma('busy_timeout', { simple: true }) as number) > 0)
      assert.equal(s.db.pragma('foreign_keys', { simple: true }), 1)
    } finally {
      await s.close()
    }
  })

  test('a second connection sees committed data, and optimistic conflicts hold across connections', async () => {
    const path = freshPath()
    const a = new SqliteStore(path)
    const b = new SqliteStore(path)
    try {
      await a.migrate()
      await b.migrate()
      await a.createSeller(seller('s1'))
      await a.insertTrip(trip('t1'))
      assert.deepEqual(await b.getTrip('t1'), { value: trip('t1'), version: 1 })

      assert.equal(await a.updateTrip(trip('t1', 's1', { language: 'fr' }), 1, { jobs: [job('ja')] }), 2)
      assert.equal(await b.updateTrip(trip('t1', 's1', { language: 'de' }), 1, { jobs: [job('jb')] }), null)
      assert.deepEqual(await b.getTrip('t1'), { value: trip('t1', 's1', { language: 'fr' }), version: 2 })
      assert.deepEqual(await b.getJob('ja'), job('ja'))
      assert.equal(await a.getJob('jb'), undefined)

      // A lease taken through one connection holds for the other.
      assert.equal((await b.claimJob(['fulfillment'], new Date('2030-01-01T00:00:00Z'), 60_000))?.job_id, 'ja')
      assert.equal(await a.claimJob(['fulfillment'], new Date('2030-01-01T00:00:30Z'), 60_000), undefined)
    } finally {
      await a.close()
      await b.close()
    }
  })

  test('processes migrating one new file at once each apply every migration exactly once', async () => {
    const path = freshPath()
    const script = `import { SqliteStore } from ${JSON.stringify(new URL('../../server/store/sqlite.ts', import.meta.url).href)}
      const s = new SqliteStore(${JSON.stringify(path)}); await s.migrate(); await s.close()`
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise<number | null>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
            stdio: ['ignore', 'inherit', 'inherit'],
          })
          child.on('error', reject)
          child.on('exit', resolve)
        }),
    )
    assert.deepEqual(await Promise.all(runs), [0, 0, 0, 0])
    const s = new SqliteStore(path)
    try {
      assert.deepEqual(
        s.db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all(),
        migrations.map((m) => m.version),
      )
    } finally {
      await s.close()
    }
  })
})

describe('sqlite migrations', () => {
  test('migration 1 is exactly what databases in the field ran: append a migration, never edit one', () => {
    const sha = (text: string) => createHash('sha256').update(text).digest('hex')
    assert.deepEqual(
      migrations.map((m) => m.version),
      migrations.map((_, i) => i + 1),
      'versions count up from 1',
    )
    assert.equal(sha(migrations[0]!.sqlite), '956646cd453f140cf4f2eddf8a6e23bc98d753961bfa5ac0ba1c20f17a5bdc5d')
    assert.equal(sha(migrations[0]!.postgres), 'd1c2704915d4507342b0af585a5e214dafa09644a6214f2ff3f530c12c7f2f4f')
  })

  test('a file an older release left at migration 1 gets the later ones, keeping its data', async () => {
    const path = freshPath()
    const old = new SqliteStore(path)
    try {
      await old.migrate(1)
      const { supplier: _supplier, ...v1 } = seller('s1')
      await insertV1Seller(old, v1)
      assert.deepEqual(old.db.prepare('SELECT version FROM schema_migrations').pluck().all(), [1])
      assert.throws(() => old.db.prepare('SELECT * FROM subscriptions').all(), /no such table/)
    } finally {
      await old.close()
    }
    const s = new SqliteStore(path)
    try {
      await s.migrate()
      assert.deepEqual(
        s.db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all(),
        migrations.map((m) => m.version),
      )
      assert.deepEqual(await s.listSellers(), [seller('s1')])
      assert.deepEqual(await s.listSubscriptions('s1'), [])
    } finally {
      await s.close()
    }
  })
})

describe('the WAL checkpointed on a thread of its own', () => {
  /** Resolves once `ok` holds (asked every 10 ms); fails the test after 5 s. */
  const holds = (what: string, ok: () => boolean) => until(what, 5_000, () => (ok() ? true : undefined), 10)

  test('the thread copies the WAL back; the writing connection keeps its own checkpoint for a thread that falls behind', async () => {
    const path = freshPath()
    const seen: CheckpointResult[] = []
    const s = new SqliteStore(path, { checkpointThread: { everyMs: 10, onCheckpoint: (r) => seen.push(r) } })
    try {
      assert.equal(s.db.pragma('wal_autocheckpoint', { simple: true }), BACKSTOP_PAGES)
      await s.migrate()
      await s.createSeller(seller('s1'))
      for (let i = 0; i < 20; i++) await s.insertTrip(trip(`t${i}`))
      // Far fewer pages than SQLite's own threshold (1,000): only the thread checkpoints them.
      await holds('a complete checkpoint', () => seen.some((r) => r.log > 0 && r.checkpointed === r.log))
      assert.ok(
        seen.every((r) => r.log < INLINE_CHECKPOINT_PAGES),
        JSON.stringify(seen),
      )
    } finally {
      await s.close()
    }
  })

  test('after close neither connection holds the file, its WAL is removed, and nothing written is lost', async () => {
    const path = freshPath()
    const s = new SqliteStore(path, { checkpointThread: { everyMs: 1 } })
    await s.migrate()
    await s.createSeller(seller('s1'))
    for (let i = 0; i < 50; i++) await s.insertTrip(trip(`t${i}`))
    await s.close()
    // The process's open files (Linux): none is the database, its WAL or its shared memory any more.
    const open = readdirSync('/proc/self/fd').map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`)
      } catch {
        return ''
      }
    })
    assert.deepEqual(
      open.filter((f) => f.startsWith(path)),
      [],
    )
    assert.equal(existsSync(`${path}-wal`), false)
    const again = new SqliteStore(path)
    try {
      assert.equal((again.db.prepare('SELECT count(*) AS n FROM trips').get() as { n: number }).n, 50)
    } finally {
      await again.close()
    }
  })

  test("a thread that fails leaves the writing connection checkpointing at SQLite's default again, and says so", async () => {
    const db = new Database(join(dir, `failing-${++n}.db`))
    const warnings: string[] = []
    const warned = (w: Error) => {
      warnings.push(w.message)
    }
    process.on('warning', warned)
    try {
      db.pragma('journal_mode = WAL')
      const thread = new CheckpointThread(db, join(dir, 'no such directory', 'x.db'))
      assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), BACKSTOP_PAGES)
      await holds('the fallback', () => db.pragma('wal_autocheckpoint', { simple: true }) === INLINE_CHECKPOINT_PAGES)
      await thread.stop()
      await holds('the warning', () => warnings.length > 0)
      assert.match(
        warnings[0]!,
        /SQLite checkpoints of .*x\.db are back in the writing connection: their thread failed \(.*directory does not exist/,
      )
    } finally {
      process.off('warning', warned)
      db.close()
    }
  })

  test('openStore checkpoints a file on the thread; :memory: has no WAL and no thread', async () => {
    const file = openStore(`sqlite:${join(dir, 'thread', 'z.db')}`) as SqliteStore
    const memory = openStore('sqlite::memory:') as SqliteStore
    try {
      assert.equal(file.db.pragma('wal_autocheckpoint', { simple: true }), BACKSTOP_PAGES)
      assert.equal(memory.db.pragma('wal_autocheckpoint', { simple: true }), INLINE_CHECKPOINT_PAGES)
    } finally {
      await file.close()
      await memory.close()
    }
  })
})

describe('openStore', () => {
  test('sqlite:PATH opens a file relative to the working directory, creating its directory', async () => {
    const abs = join(dir, 'rel', 'nested', 'x.db')
    const s = openStore(`sqlite:${relative(process.cwd(), abs)}`)
    try {
      assert.ok(s instanceof SqliteStore)
      await s.migrate()
      assert.ok(existsSync(abs))
    } finally {
      await s.close()
    }
  })

  test('sqlite:ABSOLUTE, sqlite::memory:, memory: and postgres URLs', async () => {
    const stores = [
      openStore(`sqlite:${join(dir, 'abs', 'y.db')}`),
      openStore('sqlite::memory:'),
      openStore('memory:'),
      openStore('postgres://u:p@127.0.0.1:1/db'),
      openStore('postgresql://u:p@127.0.0.1:1/db'),
    ]
    try {
      assert.deepEqual(
        stores.map((s) => s.constructor),
        [SqliteStore, SqliteStore, MemoryStore, PostgresStore, PostgresStore],
      )
      assert.ok(existsSync(join(dir, 'abs', 'y.db')))
    } finally {
      for (const s of stores) await s.close()
    }
  })

  test('anything else is a clear error that hides passwords', () => {
    for (const url of ['', 'sqlite:', 'mysql://u:secret@h/db', 'memory', 'file:x.db', 'postgres:/x']) {
      assert.throws(
        () => openStore(url),
        (e: Error) => {
          assert.match(e.message, /^unsupported database URL .*expected sqlite:PATH/)
          assert.doesNotMatch(e.message, /secret/)
          return true
        },
      )
    }
  })
})
