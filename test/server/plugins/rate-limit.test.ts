/**
 * The rate-limit counter of instances that share a store (server/plugins/rate-limit.ts), over an in-memory
 * stand-in for the database: what it answers between syncs, what it sends, and what it keeps when the
 * database is away. The same counter on PostgreSQL is proven in test/api/postgres-instances.test.ts.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { SharedRateLimitCounter } from '../../../server/plugins/rate-limit.ts'
import type { RateLimitHits } from '../../../core/ports/store.ts'

/** A database of counts that never ends a window, recording every batch it was sent. */
function fakeDb() {
  const counts = new Map<string, number>()
  const batches: RateLimitHits[][] = []
  let down = false
  return {
    counts,
    batches,
    setDown: (v: boolean) => {
      down = v
    },
    add: async (hits: ReadonlyArray<RateLimitHits>) => {
      if (down) throw new Error('database away')
      batches.push([...hits])
      return hits.map((h) => {
        counts.set(h.key, (counts.get(h.key) ?? 0) + h.hits)
        return { key: h.key, count: counts.get(h.key)!, ttlMs: 60_000 }
      })
    },
  }
}

test('hits are answered at once from what is known, and sent in one batch per sync', async () => {
  const db = fakeDb()
  const counter = new SharedRateLimitCounter(db.add, () => {}, 60_000)
  try {
    db.counts.set('k', 7) // another instance's hits
    assert.equal(counter.hit('k', 60_000, 10).count, 1)
    assert.equal(counter.hit('k', 60_000, 10).count, 2)
    counter.hit('j', 60_000, 10)
    await counter.flush()
    assert.deepEqual(db.batches, [
      [
        { key: 'k', hits: 2, windowMs: 60_000 },
        { key: 'j', hits: 1, windowMs: 60_000 },
      ],
    ])
    assert.equal(counter.hit('k', 60_000, 10).count, 10, 'learnt 9 from the database, plus this hit')
  } finally {
    await counter.close()
  }
})

test('a key past half its limit is asked for with no hit to send; a quiet key is not', async () => {
  const db = fakeDb()
  const counter = new SharedRateLimitCounter(db.add, () => {}, 60_000)
  try {
    for (let i = 0; i < 6; i++) counter.hit('hot', 60_000, 10)
    counter.hit('quiet', 60_000, 10)
    await counter.flush()
    db.counts.set('hot', 9)
    db.counts.set('quiet', 9)
    await counter.flush()
    assert.deepEqual(db.batches[1], [{ key: 'hot', hits: 0, windowMs: 60_000 }])
    assert.equal(counter.hit('hot', 60_000, 10).count, 10)
    assert.equal(counter.hit('quiet', 60_000, 10).count, 2, 'a quiet key learns at its own next sync')
  } finally {
    await counter.close()
  }
})

test('with the database away, hits are still counted here and sent when it is back', async () => {
  const db = fakeDb()
  const errors: unknown[] = []
  const counter = new SharedRateLimitCounter(db.add, (e) => errors.push(e), 60_000)
  try {
    db.setDown(true)
    for (let i = 0; i < 3; i++) counter.hit('k', 60_000, 10)
    await counter.flush()
    assert.equal(errors.length, 1)
    assert.equal(counter.hit('k', 60_000, 10).count, 4)
    db.setDown(false)
    await counter.flush()
    assert.equal(db.counts.get('k'), 4)
  } finally {
    await counter.close()
  }
})

test('memory stays bounded under a flood of distinct keys', async () => {
  const db = fakeDb()
  const counter = new SharedRateLimitCounter(db.add, () => {}, 60_000, 1000)
  try {
    for (let i = 0; i < 10_000; i++) counter.hit(`k${i}`, 60_000, 10)
    assert.ok(counter.size <= 1000, `${counter.size} keys kept`)
  } finally {
    await counter.close()
  }
})

test('an answer about a window that ended while it was on its way leaves the new window alone', async () => {
  // The first batch is answered when the test says; later ones (close's last flush) at once, and ignored.
  let answer!: (v: { key: string; count: number; ttlMs: number }[]) => void
  let calls = 0
  const add = () =>
    calls++ === 0
      ? new Promise<{ key: string; count: number; ttlMs: number }[]>((resolve) => {
          answer = resolve
        })
      : Promise.resolve([])
  const counter = new SharedRateLimitCounter(add, () => {}, 60_000)
  try {
    for (let i = 0; i < 5; i++) counter.hit('k', 20, 10)
    const flushing = counter.flush()
    await new Promise((r) => setTimeout(r, 30)) // the 20 ms window ends before the database answers
    assert.equal(counter.hit('k', 60_000, 10).count, 1, 'a new window')
    answer([{ key: 'k', count: 5, ttlMs: 0 }])
    await flushing
    assert.equal(counter.hit('k', 60_000, 10).count, 2, "the old window's count and hits are not the new one's")
  } finally {
    await counter.close()
  }
})
