import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { PostgresStore } from '../../server/store/postgres.ts'
import { pgSchemas } from '../helpers/pg-schemas.ts'
import { migrations } from '../../server/store/migrations.ts'
import { storeContract, seller, trip, job, feedOrder, tripWithOrders, type ContractOptions } from './contract.ts'

const url = process.env.DATABASE_URL_PG

if (!url) {
  test('postgres store contract', { skip: 'DATABASE_URL_PG not set' }, () => {})
} else {
  const schemas = pgSchemas(url, 'svc_test')
  const freshSchema = () => schemas.fresh()
  const open = (schema: string) => schemas.store(schema)
  after(() => schemas.drop())
  /** Two instances (each its own pool) on one migrated schema with seller s1, closed after `run`. */
  const twoInstances = async (run: (a: PostgresStore, b: PostgresStore) => Promise<void>) => {
    const schema = await freshSchema()
    const [a, b] = [open(schema), open(schema)]
    try {
      await a.migrate()
      await a.createSeller(seller('s1'))
      await run(a, b)
    } finally {
      await a.close()
      await b.close()
    }
  }

  const insertV1Seller: ContractOptions['insertV1Seller'] = async (s, x, k) => {
    const { pool } = s as PostgresStore
    await pool.query(
      'INSERT INTO sellers (seller_id, name, origins, sandbox, created_at) VALUES ($1, $2, $3, $4, $5)',
      [x.seller_id, x.name, JSON.stringify(x.origins), x.sandbox, x.created_at],
    )
    if (k)
      await pool.query('INSERT INTO api_keys (key_hash, seller_id, prefix, created_at) VALUES ($1, $2, $3, $4)', [
        k.key_hash,
        k.seller_id,
        k.prefix,
        k.created_at,
      ])
  }

  storeContract('postgres', async () => open(await freshSchema()), {
    insertV1Seller,
    insertV1Job: async (s, j) => {
      await (s as PostgresStore).pool.query(
        `INSERT INTO jobs (job_id, kind, payload, run_at, attempts, max_attempts, locked_until, last_error, status, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
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
        ],
      )
    },
    insertV1Trip: async (s, t) => {
      await (s as PostgresStore).pool.query(
        'INSERT INTO trips (trip_id, seller_id, version, updated_at, doc) VALUES ($1, $2, 1, $3, $4)',
        [t.trip_id, t.seller_id, t.updated_at, JSON.stringify(t)],
      )
    },
    insertV1Idempotency: async (s, r) => {
      await (s as PostgresStore).pool.query(
        'INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at) VALUES ($1, $2, $3, NULL, $4)',
        [r.scope, r.key, r.request_hash, r.created_at],
      )
    },
    // Its insertTrip names the orders tables (in one statement with the trip), which migration 6 adds.
    insertPreFeedTrip: async (s, { search_id, ...doc }) => {
      await (s as PostgresStore).pool.query(
        `INSERT INTO trips (trip_id, seller_id, version, updated_at, doc, search_id, open, created_at)
        VALUES ($1, $2, 1, $3, $4, $5, $6, $7)`,
        [
          doc.trip_id,
          doc.seller_id,
          doc.updated_at,
          JSON.stringify(doc),
          search_id,
          Object.keys(doc.fulfillments).length === 0,
          doc.created_at,
        ],
      )
    },
  })

  describe('postgres stores sharing one database', () => {
    test('instances migrating at once apply every migration exactly once', async () => {
      const schema = await freshSchema()
      const stores = Array.from({ length: 4 }, () => open(schema))
      try {
        await Promise.all(stores.map((s) => s.migrate()))
        const { rows } = await stores[0]!.pool.query('SELECT version FROM schema_migrations ORDER BY version')
        assert.deepEqual(
          rows.map((r) => r.version),
          migrations.map((m) => m.version),
        )
      } finally {
        await Promise.all(stores.map((s) => s.close()))
      }
    })

    test('a schema an older release left at migration 1 gets the later ones, keeping its data', async () => {
      const schema = await freshSchema()
      const old = open(schema)
      try {
        await old.migrate(1)
        const { supplier: _supplier, ...v1 } = seller('s1')
        await insertV1Seller(old, v1)
        const { rows } = await old.pool.query('SELECT version FROM schema_migrations')
        assert.deepEqual(
          rows.map((r) => r.version),
          [1],
        )
        await assert.rejects(old.listSubscriptions('s1'), /relation "subscriptions" does not exist/)
      } finally {
        await old.close()
      }
      const stores = [open(schema), open(schema)]
      try {
        await Promise.all(stores.map((s) => s.migrate()))
        const { rows } = await stores[0]!.pool.query('SELECT version FROM schema_migrations ORDER BY version')
        assert.deepEqual(
          rows.map((r) => r.version),
          migrations.map((m) => m.version),
        )
        assert.deepEqual(await stores[1]!.listSellers(), [seller('s1')])
        assert.deepEqual(await stores[1]!.listSubscriptions('s1'), [])
      } finally {
        await Promise.all(stores.map((s) => s.close()))
      }
    })

    test("orders feed: a write of a seller's orders waits for one still holding the seller's counter, so numbers follow commit order", async () => {
      await twoInstances(async (a, b) => {
        const holder = await a.pool.connect()
        try {
          const o1 = feedOrder('t1', 'o1')
          await a.insertTrip(tripWithOrders('t1', 's1', [o1]), { orders: [o1] })
          await a.insertTrip(trip('t2'))
          // A write in flight that has taken number 2 and not committed yet (as one slowed between its
          // statement and its commit would be).
          await holder.query('BEGIN')
          await holder.query(`UPDATE order_feeds SET seq = seq + 1 WHERE seller_id = 's1'`)
          const o2 = feedOrder('t2', 'o2')
          let settled = false
          const write = b.updateTrip(tripWithOrders('t2', 's1', [o2]), 1, { orders: [o2] }).finally(() => {
            settled = true
          })
          await new Promise((r) => setTimeout(r, 300))
          assert.equal(settled, false, 'the second write waits for the counter')
          // A reader meanwhile sees neither: nothing can be committed behind the number it pages from.
          assert.deepEqual(
            (await a.listOrders('s1', { after: 0, limit: 10 })).map((e) => e.seq),
            [1],
          )
          await holder.query('COMMIT')
          assert.equal(await write, 2)
          assert.deepEqual(
            (await a.listOrders('s1', { after: 1, limit: 10 })).map((e) => [e.seq, e.order.order_id]),
            [[3, 'o2']],
          )
        } finally {
          holder.release()
        }
      })
    })

    test('a claimer passes over a job another transaction holds instead of waiting for it', async () => {
      const schema = await freshSchema()
      // lock_timeout turns a claimer that waits (no SKIP LOCKED) into a failure instead of a hang.
      const s = schemas.store(schema, { options: '-c lock_timeout=2000' })
      const holder = await s.pool.connect()
      try {
        await s.migrate()
        await s.enqueueJob(job('j0'))
        await s.enqueueJob(job('j1', { run_at: '2030-01-01T00:00:01.000Z' }))
        await holder.query('BEGIN')
        await holder.query(`SELECT * FROM jobs WHERE job_id = 'j0' FOR UPDATE`)
        assert.equal((await s.claimJob(['fulfillment'], new Date('2030-01-01T00:01:00Z'), 60_000))?.job_id, 'j1')
        assert.equal(await s.claimJob(['fulfillment'], new Date('2030-01-01T00:01:00Z'), 60_000), undefined)
      } finally {
        await holder.query('ROLLBACK')
        holder.release()
        await s.close()
      }
    })

    test('workers in separate pools claim each job once, and optimistic conflicts hold across them', async () => {
      await twoInstances(async (a, b) => {
        await a.insertTrip(trip('t1'))
        const updates = await Promise.all([
          a.updateTrip(trip('t1', 's1', { language: 'fr' }), 1, { jobs: [job('ja')] }),
          b.updateTrip(trip('t1', 's1', { language: 'de' }), 1, { jobs: [job('jb')] }),
        ])
        assert.deepEqual([...updates].sort(), [2, null])
        assert.equal((await a.getJob('ja')) === undefined, (await b.getJob('jb')) !== undefined)

        for (let i = 0; i < 20; i++) await a.enqueueJob(job(`j${i}`))
        const now = new Date('2030-01-01T00:01:00Z')
        const claims = await Promise.all(
          Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).claimJob(['fulfillment'], now, 60_000)),
        )
        const ids = claims.flatMap((c) => (c ? [c.job_id] : []))
        assert.equal(ids.length, 21)
        assert.equal(new Set(ids).size, 21)

        // A lapsed holder and the new holder finish one job at once, from either pool: only the new one counts.
        const first = await a.claimJob(['fulfillment'], new Date('2030-01-01T00:10:00Z'), 1000)
        const second = await b.claimJob(['fulfillment'], new Date('2030-01-01T00:10:01Z'), 60_000)
        assert.equal(second?.job_id, first?.job_id)
        assert.deepEqual(
          await Promise.all([
            a.completeJob(first!.job_id, first!.locked_until!),
            b.failJob(second!.job_id, second!.locked_until!, 'airline timeout', null),
          ]),
          [false, true],
        )
        assert.equal((await a.getJob(first!.job_id))?.status, 'dead')

        // Takeovers of one abandoned idempotency key from both pools: exactly one wins.
        const idem = (request_hash: string, created_at: string) => ({
          scope: 's1:POST /v2.2/trip',
          key: 'k1',
          request_hash,
          response: null,
          created_at,
          owner: `${request_hash}/r`,
          lease_until: new Date(Date.parse(created_at) + 10_000).toISOString(),
        })
        assert.equal(await a.reserveIdempotency(idem('h-dead', '2030-01-01T00:00:00.000Z')), null)
        const takeovers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 ? a : b).reserveIdempotency(
              idem(`h${i}`, '2030-01-01T00:05:00.000Z'),
              new Date('2030-01-01T00:05:00Z'),
            ),
          ),
        )
        assert.equal(takeovers.filter((r) => r === null).length, 1)
        const winner = `h${takeovers.indexOf(null)}`
        for (const r of takeovers) if (r !== null) assert.equal(r.request_hash, winner)
      })
    })
  })

  describe("postgres durability, as SQLite's", () => {
    test('a write that queues work commits synchronously in a transaction of its own; any other commits without waiting for the disk', async () => {
      const schema = await freshSchema()
      const statements: string[] = []
      const s = schemas.store(schema, { onStatement: (q) => statements.push(q.replace(/\s+/g, ' ').trim()) })
      try {
        await s.migrate()
        // The session's own setting, and the caller's options kept beside it.
        const {
          rows: [session],
        } = await s.pool.query(
          "SELECT current_setting('synchronous_commit') AS sync, current_setting('search_path') AS path",
        )
        assert.deepEqual(session, { sync: 'off', path: schema })
        await s.createSeller(seller('s1'))
        statements.length = 0
        await s.insertTrip(trip('t1'))
        assert.equal(await s.updateTrip(trip('t1', 's1', { language: 'fr' }), 1), 2)
        assert.deepEqual(
          statements.map((q) => q.split(' ').slice(0, 2).join(' ')),
          ['WITH t', 'UPDATE trips'],
        )
        statements.length = 0
        assert.equal(await s.updateTrip(trip('t1', 's1', { language: 'de' }), 2, { jobs: [job('j1')] }), 3)
        await s.enqueueJob(job('j2'))
        assert.deepEqual(
          statements.map((q) => q.split(' ').slice(0, 3).join(' ')),
          [
            'BEGIN',
            'SET LOCAL synchronous_commit',
            'WITH t AS',
            'COMMIT',
            'BEGIN',
            'SET LOCAL synchronous_commit',
            'INSERT INTO jobs',
            'COMMIT',
          ],
        )
        assert.deepEqual((await s.getJob('j1'))?.job_id, 'j1')
        assert.deepEqual((await s.getJob('j2'))?.job_id, 'j2')
      } finally {
        await s.close()
      }
    })
  })

  describe('postgres trip writes', () => {
    test('two instances writing the same trips at once, in opposite orders: each trip written once a round, never a deadlock', async () => {
      await twoInstances(async (a, b) => {
        const ids = Array.from({ length: 40 }, (_, i) => `t${String(i).padStart(2, '0')}`)
        for (const id of ids) await a.insertTrip(trip(id))
        for (let version = 1; version <= 10; version++) {
          const writes = (language: string) =>
            ids.map((id) => ({ trip: trip(id, 's1', { language }), expectedVersion: version }))
          // Each statement is conditional on the version: one of the two writes each trip, whichever locks its row
          // first. (On a table this small PostgreSQL scans it in one order for both, so the store's trip_id order
          // is not what keeps these two from a deadlock here; on a large table the rows are visited in the
          // order given, and it is.)
          const [first, second] = await Promise.all([
            a.updateTrips(writes('fr')),
            b.updateTrips(writes('de').reverse()),
          ])
          for (const [i, id] of ids.entries()) {
            const won = [first[i], second[ids.length - 1 - i]].filter((v) => v !== null)
            assert.deepEqual(won, [version + 1], `${id} at version ${version}`)
          }
        }
      })
    })

    test('plain writes of several trips are one statement, each document a parameter of its own, and a trip named twice is refused', async () => {
      const schema = await freshSchema()
      const statements: Array<{ text: string }> = []
      const s = schemas.store(schema, { onStatement: (q) => statements.push({ text: q }) })
      try {
        await s.migrate()
        await s.createSeller(seller('s1'))
        for (const id of ['t1', 't2', 't3']) await s.insertTrip(trip(id))
        statements.length = 0
        // A document with quotes and backslashes in it arrives as written.
        const t2 = trip('t2', 's1', { language: 'say "hi" \\ ok' })
        assert.deepEqual(
          await s.updateTrips([
            { trip: t2, expectedVersion: 1 },
            { trip: trip('t1', 's1', { language: 'fr' }), expectedVersion: 1 },
            { trip: trip('t3'), expectedVersion: 9 },
          ]),
          [2, 2, null],
        )
        assert.equal(statements.length, 1)
        assert.match(
          statements[0]!.text,
          // The UPDATE, then its rows' timeline entries (the last parameter) as a CTE of the same statement.
          /^WITH w AS \(UPDATE trips t .* FROM \(VALUES \(\$1::text, .*\(\$15::text, .*\$21::boolean\)\) AS u.*ev AS \(INSERT INTO trip_events .*\$22::json/s,
        )
        assert.deepEqual(await s.getTrip('t2'), { value: t2, version: 2 })
        await assert.rejects(
          s.updateTrips([
            { trip: trip('t1'), expectedVersion: 2 },
            { trip: trip('t1'), expectedVersion: 3 },
          ]),
          /a trip named twice/,
        )
        assert.equal((await s.getTrip('t1'))?.version, 2)
      } finally {
        await s.close()
      }
    })

    test('documents are stored compressed with lz4 (migration 9), where the server was built with it', async (t) => {
      const schema = await freshSchema()
      const s = open(schema)
      try {
        await s.migrate()
        const {
          rows: [lz4],
        } = await s.pool.query(
          `SELECT count(*)::int AS n FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)`,
        )
        if (lz4.n === 0) return t.skip('this PostgreSQL has no lz4')
        await s.createSeller(seller('s1'))
        // Past the ~2 KB at which PostgreSQL compresses a value.
        await s.insertTrip(trip('t1', 's1', { language: 'fr-'.repeat(2000) }))
        await s.updateTrips([{ trip: trip('t1', 's1', { language: 'de-'.repeat(2000) }), expectedVersion: 1 }])
        const { rows } = await s.pool.query(
          "SELECT pg_column_compression(doc) AS method FROM trips WHERE trip_id = 't1'",
        )
        assert.deepEqual(rows, [{ method: 'lz4' }])
      } finally {
        await s.close()
      }
    })
  })
}
