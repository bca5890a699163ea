/**
 * Bytes stored per trip: a bound that does not depend on the machine. A trip as an integration leaves it
 * (bag and seat search, a bag chosen, one token refresh) must stay within 14 KiB of SQLite pages; the
 * full search it replaced was ~475 KiB (bench/storage.ts prints the figure). It was 12 KiB before the trip's
 * timeline (trip_events, kept as long as its trip for the operator: docs/operations.md), whose five entries of
 * such a trip (created, search started and ended, its supplier call, the basket change) take ~1.7 KB with
 * their indexes; the rest measured 11.4 KB.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { perTrip } from '../../bench/storage.ts'

test('a trip costs at most 14 KiB of SQLite pages, its timeline included', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bytes-'))
  const store = new SqliteStore(join(dir, 'trips.db'))
  try {
    const bytes = await perTrip(
      store,
      async () => {
        store.db.pragma('wal_checkpoint(TRUNCATE)')
        return (
          Number(store.db.pragma('page_count', { simple: true })) *
          Number(store.db.pragma('page_size', { simple: true }))
        )
      },
      200,
    )
    assert.ok(bytes <= 14 * 1024, `${Math.round(bytes)} bytes per trip`)
    assert.ok(bytes > 2 * 1024, `${Math.round(bytes)} bytes per trip: the measurement measured nothing`)
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
