import { test } from 'node:test'
import assert from 'node:assert/strict'
import { bucketed, percentile, windowEndingAt } from '../../../core/domain/time-series.ts'

const T = Date.parse('2030-01-01T12:00:00.000Z')
const at = (minutes: number) => new Date(T + minutes * 60_000).toISOString()

test('a window ends now and starts its count of widths before', () => {
  assert.deepEqual(windowEndingAt(new Date(T), 5 * 60_000, 12), { since: at(-60), widthMs: 300_000, count: 12 })
})

test('each item is in the bucket its time falls in; one at the end or after in the last; none before', () => {
  const w = windowEndingAt(new Date(T), 5 * 60_000, 12)
  const times = [at(-61), at(-60), at(-55.01), at(-55), at(-1), at(0), at(3), 'not a time']
  const b = bucketed(w, times, (t) => t)
  assert.equal(b.length, 12)
  assert.deepEqual(
    b.map((x) => x.start),
    Array.from({ length: 12 }, (_, i) => at(-60 + 5 * i)),
  )
  assert.deepEqual(b[0]!.items, [at(-60), at(-55.01)], 'the start is in, the next start is not')
  assert.deepEqual(b[1]!.items, [at(-55)])
  assert.deepEqual(b[11]!.items, [at(-1), at(0), at(3)], 'what a total since the start counts')
  assert.equal(b.flatMap((x) => x.items).length, 6)
})

test('a time in another zone falls where its instant does', () => {
  const w = windowEndingAt(new Date(T), 60 * 60_000, 24)
  const b = bucketed(w, ['2030-01-01T12:30:00+02:00'], (t) => t)
  assert.deepEqual(b[22]!.items, ['2030-01-01T12:30:00+02:00'])
})

test('nearest-rank percentiles', () => {
  assert.equal(percentile([], 50), null)
  assert.equal(percentile([7], 95), 7)
  const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  assert.equal(percentile(ten, 50), 5)
  assert.equal(percentile(ten, 95), 10)
  assert.equal(percentile(ten, 0), 1)
  assert.equal(percentile(ten, 100), 10)
})
