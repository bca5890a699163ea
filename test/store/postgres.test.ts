import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { PostgresStore } from '../../server/store/postgres.ts'
import { migrations } from '../../server/store/migrations.ts'
import { storeContract, seller, trip, job } from './contract.ts'

const url = process.env.DATABASE_URL_PG

if (!url) {
  test('postgres store contract', { skip: 'DATABASE_URL_PG not set' }, () => {})
} else {
  // Every store gets its own schema, named for this run, so runs sharing a database never collide.
  const admin = new pg.Pool({ connectionString: url, max: 2 })
  const run = `svc_test_${process.pid}_${Date.now().toString(36)}`
  const schemas: string[] = []
  const freshSchema = async () => {
    const schema = `${run}_${schemas.length + 1}`
    schemas.push(schema)
    await admin.query(`CREATE SCHEMA ${schema}`)
    return schema
  }
  const open = (schema: string) => new PostgresStore({ connectionString: url, options: `-c search_path=${schema}` })
  after(async () => {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await admin.end()
  })

  storeContract('postgres', async () => open(await freshSchema()))

  describe('postgres stores sharing one database', () => {
    test('instances migrating at once apply every migration exactly once', async () => {
      const schema = await freshSchema()
      const stores = Array.from({ length: 4 }, () => open(schema))
      try {
        await Promise.all(stores.map((s) => s.migrate()))
        const { rows } = await stores[0]!.pool.query('SELECT version FROM schema_migrations ORDER BY version')
        assert.deepEqual(rows.map((r) => r.version), migrations.map((m) => m.version))
      } finally {
        await Promise.all(stores.map((s) => s.close()))
      }
    })

    test('a claimer passes over a job another transaction holds instead of waiting for it', async () => {
      const schema = await freshSchema()
      // lock_timeout turns a claimer that waits (no SKIP LOCKED) into a failure instead of a hang.
      const s = new PostgresStore({ connectionString: url, options: `-c search_path=${schema} -c lock_timeout=2000` })
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
      const schema = await freshSchema()
      const [a, b] = [open(schema), open(schema)]
      try {
        await a.migrate()
        await a.createSeller(seller('s1'))
        await a.insertTrip(trip('t1'))
        const updates = await Promise.all([
          a.updateTrip(trip('t1', 's1', { language: 'fr' }), 1, { jobs: [job('ja')] }),
          b.updateTrip(trip('t1', 's1', { language: 'de' }), 1, { jobs: [job('jb')] }),
        ])
        assert.deepEqual([...updates].sort(), [2, null])
        assert.equal((await a.getJob('ja')) === undefined, (await b.getJob('jb')) !== undefined)

        for (let i = 0; i < 20; i++) await a.enqueueJob(job(`j${i}`))
        const now = new Date('2030-01-01T00:01:00Z')
        const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).claimJob(['fulfillment'], now, 60_000)))
        const ids = claims.flatMap((c) => (c ? [c.job_id] : []))
        assert.equal(ids.length, 21)
        assert.equal(new Set(ids).size, 21)
      } finally {
        await a.close()
        await b.close()
      }
    })
  })
}
