/**
 * Retention through the worker, as `npm start` runs it: the worker purges on start and then periodically,
 * with the figures of the configuration; what the store purges exactly is the store contract's test.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { build, createTrip, basic } from '../helpers/build.ts'
import { startWorker, type WorkerLog } from '../../server/worker.ts'
import { loadConfig } from '../../server/config.ts'

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
