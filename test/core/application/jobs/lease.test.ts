/** A job's lease held while its run goes on (core/application/jobs/lease.ts), on the memory store and a test clock. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MemoryStore } from '../../../../core/adapters/memory-store.ts'
import { JobLease, LeaseLost } from '../../../../core/application/jobs/lease.ts'
import { testClock } from '../../../helpers/build.ts'
import { job } from '../../../store/fixtures.ts'

test('a held lease is renewed from now, so a slow run keeps its job; once lost it stays lost and hold() says so', async () => {
  const store = new MemoryStore()
  const clock = testClock('2026-11-28T10:00:00.000Z')
  await store.enqueueJob(job('j1', { kind: 'fulfill_order', run_at: clock.now().toISOString() }))
  const claimed = (await store.claimJob(['fulfill_order'], clock.now(), 60_000))!
  const lease = new JobLease(store, clock, 'j1', claimed.locked_until!, 60_000)
  clock.advance(50_000)
  await lease.hold()
  assert.equal(lease.current, '2026-11-28T10:01:50.000Z', 'a minute from now')
  clock.advance(50_000)
  assert.equal(
    await store.claimJob(['fulfill_order'], clock.now(), 60_000),
    undefined,
    'past the first lease, still held',
  )
  assert.equal(await store.completeJob('j1', claimed.locked_until!), false, 'the first lease names it no more')

  clock.advance(61_000)
  assert.ok(
    await store.claimJob(['fulfill_order'], clock.now(), 60_000),
    'not renewed for a minute: another worker claims it',
  )
  assert.equal(await lease.renew(), false)
  await assert.rejects(lease.hold(), LeaseLost)
  assert.equal(await lease.renew(), false, 'lost for good')
})

test('two renewals at once are one', async () => {
  const store = new MemoryStore()
  const clock = testClock('2026-11-28T10:00:00.000Z')
  await store.enqueueJob(job('j1', { kind: 'fulfill_order', run_at: clock.now().toISOString() }))
  const claimed = (await store.claimJob(['fulfill_order'], clock.now(), 60_000))!
  const lease = new JobLease(store, clock, 'j1', claimed.locked_until!, 60_000)
  clock.advance(1_000)
  assert.deepEqual(await Promise.all([lease.renew(), lease.renew()]), [true, true])
  assert.equal(await store.completeJob('j1', lease.current), true)
})

test('the outcome is recorded under the lease a renewal under way leaves, not the one it replaces', async () => {
  const store = new MemoryStore()
  const clock = testClock('2026-11-28T10:00:00.000Z')
  await store.enqueueJob(job('j1', { kind: 'fulfill_order', run_at: clock.now().toISOString() }))
  const claimed = (await store.claimJob(['fulfill_order'], clock.now(), 60_000))!
  // The store answers a renewal only when told to: the renewal is in flight as the run ends.
  let land!: () => void
  const landed = new Promise<void>((resolve) => {
    land = resolve
  })
  const renewJob = store.renewJob.bind(store)
  store.renewJob = async (...args) => {
    const done = await renewJob(...args)
    await landed
    return done
  }
  const lease = new JobLease(store, clock, 'j1', claimed.locked_until!, 60_000)
  clock.advance(1_000)
  const renewal = lease.renew()
  const released = lease.release()
  land()
  await renewal
  assert.equal(await store.completeJob('j1', await released), true, 'completed under the renewed lease')
})

test('a clock that has not moved never shortens the lease: each renewal is a millisecond on', async () => {
  const store = new MemoryStore()
  const clock = testClock('2026-11-28T10:00:00.000Z')
  await store.enqueueJob(job('j1', { kind: 'fulfill_order', run_at: clock.now().toISOString() }))
  const claimed = (await store.claimJob(['fulfill_order'], clock.now(), 60_000))!
  const lease = new JobLease(store, clock, 'j1', claimed.locked_until!, 60_000)
  const seen = [lease.current]
  for (let i = 0; i < 3; i++) {
    await lease.renew()
    seen.push(lease.current)
  }
  assert.deepEqual(seen, [
    '2026-11-28T10:01:00.000Z',
    '2026-11-28T10:01:00.001Z',
    '2026-11-28T10:01:00.002Z',
    '2026-11-28T10:01:00.003Z',
  ])
})
