/** The store contract of JobStore: the job queue, leased claims, retries. */
import assert from 'node:assert/strict'
import { at, iso, job, type ContractContext } from '../fixtures.ts'

export function jobsContract({ it }: ContractContext): void {
  it('a job round-trips and a due job is claimed once, with a lease', async (s) => {
    await s.enqueueJob(job('j1', { run_at: iso(10) }))
    assert.deepEqual(await s.getJob('j1'), job('j1', { run_at: iso(10) }))
    assert.equal(await s.getJob('nope'), undefined)
    await assert.rejects(s.enqueueJob(job('j1')))

    assert.equal(await s.claimJob(['fulfillment'], at(9), 30_000), undefined, 'not due yet')
    const claimed = await s.claimJob(['fulfillment'], at(10), 30_000)
    assert.deepEqual(claimed, job('j1', { run_at: iso(10), attempts: 1, locked_until: iso(40) }))
    assert.deepEqual(await s.getJob('j1'), claimed)
    assert.equal(await s.claimJob(['fulfillment'], at(10), 30_000), undefined)
  })

  it('a leased job is claimable again only once its lease lapses', async (s) => {
    await s.enqueueJob(job('j1'))
    assert.equal((await s.claimJob(['fulfillment'], at(0), 30_000))?.attempts, 1)
    assert.equal(await s.claimJob(['fulfillment'], at(29.999), 30_000), undefined)
    assert.deepEqual(
      await s.claimJob(['fulfillment'], at(30), 30_000),
      job('j1', { attempts: 2, locked_until: iso(60) }),
    )
  })

  it('completeJob finishes a job for good, once', async (s) => {
    await s.enqueueJob(job('j1'))
    const claimed = await s.claimJob(['fulfillment'], at(0), 30_000)
    assert.equal(await s.completeJob('j1', claimed!.locked_until!), true)
    assert.deepEqual(await s.getJob('j1'), job('j1', { attempts: 1, status: 'done' }))
    assert.equal(await s.claimJob(['fulfillment'], at(3600), 30_000), undefined)
    assert.equal(await s.completeJob('j1', claimed!.locked_until!), false, 'already done')
    assert.equal(await s.failJob('j1', claimed!.locked_until!, 'late', null), false, 'already done')
    assert.deepEqual(await s.getJob('j1'), job('j1', { attempts: 1, status: 'done' }))
    assert.equal(await s.completeJob('nope', iso(30)), false)
  })

  it('failJob reschedules at retryAt, or marks the job dead', async (s) => {
    await s.enqueueJob(job('j1'))
    const first = await s.claimJob(['fulfillment'], at(0), 30_000)
    assert.equal(await s.failJob('j1', first!.locked_until!, 'airline timeout', at(120)), true)
    assert.deepEqual(await s.getJob('j1'), job('j1', { attempts: 1, run_at: iso(120), last_error: 'airline timeout' }))
    assert.equal(await s.claimJob(['fulfillment'], at(119), 30_000), undefined)
    const second = await s.claimJob(['fulfillment'], at(120), 30_000)
    assert.equal(second?.attempts, 2)

    assert.equal(await s.failJob('j1', second!.locked_until!, 'rejected', null), true)
    assert.deepEqual(
      await s.getJob('j1'),
      job('j1', { attempts: 2, run_at: iso(120), last_error: 'rejected', status: 'dead' }),
    )
    assert.equal(await s.claimJob(['fulfillment'], at(86_400), 30_000), undefined)
    assert.equal(await s.completeJob('j1', second!.locked_until!), false, 'a dead job stays dead')
    assert.equal((await s.getJob('j1'))?.status, 'dead')
  })

  it('deferJob reschedules without counting the run as an attempt, under the same lease rule', async (s) => {
    await s.enqueueJob(job('j1'))
    const first = await s.claimJob(['fulfillment'], at(0), 30_000)
    assert.equal(await s.deferJob('j1', first!.locked_until!, 'waiting for the supplier', at(600)), true)
    assert.deepEqual(
      await s.getJob('j1'),
      job('j1', { attempts: 0, run_at: iso(600), last_error: 'waiting for the supplier' }),
    )
    assert.equal(await s.claimJob(['fulfillment'], at(599), 30_000), undefined)
    const second = await s.claimJob(['fulfillment'], at(600), 30_000)
    assert.equal(second?.attempts, 1, 'a wait is not an attempt')
    assert.equal(
      await s.deferJob('j1', first!.locked_until!, 'stale worker', at(900)),
      false,
      'a lapsed lease defers nothing',
    )
    assert.equal(await s.completeJob('j1', second!.locked_until!), true)
    assert.equal(await s.deferJob('j1', second!.locked_until!, 'late', at(900)), false, 'a finished job stays finished')
  })

  it('a claim with perLane is fair between lanes: the least busy lane first, none past its share; the lane is kept', async (s) => {
    for (const [id, lane, t] of [
      ['a1', 'A', 0],
      ['a2', 'A', 1],
      ['a3', 'A', 2],
      ['b1', 'B', 3],
      ['n1', undefined, 4],
    ] as const) {
      await s.enqueueJob(job(id, { kind: 'supplier_search', run_at: iso(t), ...(lane ? { lane } : {}) }))
    }
    assert.equal((await s.getJob('a1'))?.lane, 'A')
    assert.equal((await s.getJob('n1'))?.lane, undefined)
    const claim = async () => (await s.claimJob(['supplier_search'], at(10), 30_000, { perLane: 2 }))?.job_id
    assert.equal(await claim(), 'a1', 'the oldest of lanes equally idle')
    assert.equal(await claim(), 'b1', "then a lane with nothing running, before A's older jobs")
    assert.equal(await claim(), 'n1', 'a job of no lane is never held back')
    assert.equal(await claim(), 'a2')
    assert.equal(await claim(), undefined, 'A holds its share: a3 waits')
    assert.equal(
      (await s.claimJob(['supplier_search'], at(10), 30_000))?.job_id,
      'a3',
      'a claim without perLane takes it',
    )
  })

  it('claims at once never take a lane past its share (PostgreSQL: several connections at a time)', async (s) => {
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 6; i++)
        await s.enqueueJob(job(`r${round}-${i}`, { kind: 'supplier_search', run_at: iso(0), lane: `L${round}` }))
      const claimed = await Promise.all(
        Array.from({ length: 6 }, () => s.claimJob(['supplier_search'], at(10), 30_000, { perLane: 2 })),
      )
      const mine = claimed.filter((j) => j?.lane === `L${round}`)
      assert.equal(mine.length, 2, `round ${round}: ${mine.length} of lane L${round}'s jobs claimed at once`)
      // Finished, so the next round's lane is the only one with jobs to claim.
      for (const j of mine) assert.equal(await s.completeJob(j!.job_id, j!.locked_until!), true)
      for (const j of await s.listJobs(['supplier_search']))
        if (j.status === 'pending' && j.lane === `L${round}`) {
          const held = await s.claimJob(['supplier_search'], at(10), 30_000)
          if (held) await s.completeJob(held.job_id, held.locked_until!)
        }
    }
  })

  it('renewJob extends a held lease, which the job is then named by; a lapsed or stale lease renews nothing', async (s) => {
    await s.enqueueJob(job('j1'))
    const claimed = await s.claimJob(['fulfillment'], at(0), 30_000)
    assert.equal(await s.renewJob('j1', claimed!.locked_until!, at(50)), true)
    assert.equal((await s.getJob('j1'))?.locked_until, iso(50))
    assert.equal(await s.claimJob(['fulfillment'], at(40), 30_000), undefined, 'renewed: not claimable at 40 s')
    assert.equal(await s.completeJob('j1', claimed!.locked_until!), false, 'the old lease names the job no more')
    assert.equal(await s.renewJob('j1', claimed!.locked_until!, at(90)), false)
    const again = await s.claimJob(['fulfillment'], at(50), 30_000)
    assert.equal(again?.attempts, 2, 'once it lapses, another worker claims it')
    assert.equal(
      await s.renewJob('j1', iso(50), at(120)),
      false,
      'the lapsed lease cannot be renewed over the new claim',
    )
    assert.equal(await s.completeJob('j1', again!.locked_until!), true)
    assert.equal(await s.renewJob('j1', again!.locked_until!, at(200)), false, 'a finished job has no lease')
  })

  it('a worker whose lease lapsed and whose job was claimed again can neither complete nor fail it', async (s) => {
    await s.enqueueJob(job('j1'))
    const a = await s.claimJob(['fulfillment'], at(0), 30_000)
    const b = await s.claimJob(['fulfillment'], at(45), 30_000)
    assert.equal(a?.locked_until, iso(30))
    assert.equal(b?.locked_until, iso(75))
    const held = job('j1', { attempts: 2, locked_until: iso(75) })

    assert.equal(await s.completeJob('j1', a!.locked_until!), false)
    assert.equal(await s.failJob('j1', a!.locked_until!, 'stale worker', at(300)), false)
    assert.equal(await s.failJob('j1', a!.locked_until!, 'stale worker', null), false)
    assert.equal(await s.completeJob('j1', 'not a time'), false)
    assert.equal(await s.completeJob('j1', iso(74.999)), false, 'a lease matches to the millisecond')
    assert.deepEqual(await s.getJob('j1'), held, 'the stale worker changed nothing')

    // The lease compares as an instant: the same moment written with an offset still matches.
    assert.equal(await s.completeJob('j1', '2030-01-01T01:01:15+01:00'), true)
    assert.deepEqual(await s.getJob('j1'), job('j1', { attempts: 2, status: 'done' }))
  })

  it('the current lease holder fails its job even after the lapsed holder tried', async (s) => {
    await s.enqueueJob(job('j1'))
    const a = await s.claimJob(['fulfillment'], at(0), 30_000)
    const b = await s.claimJob(['fulfillment'], at(30), 30_000)
    assert.equal(await s.completeJob('j1', a!.locked_until!), false)
    assert.equal(await s.failJob('j1', b!.locked_until!, 'airline timeout', at(600)), true)
    assert.deepEqual(await s.getJob('j1'), job('j1', { attempts: 2, run_at: iso(600), last_error: 'airline timeout' }))
    // The lapsed lease of a job that was released and re-claimed is no better than any other old lease.
    const c = await s.claimJob(['fulfillment'], at(600), 30_000)
    assert.equal(await s.completeJob('j1', b!.locked_until!), false)
    assert.equal(await s.completeJob('j1', c!.locked_until!), true)
  })

  it('concurrent completions with one lease: exactly one succeeds', async (s) => {
    await s.enqueueJob(job('j1'))
    const claimed = await s.claimJob(['fulfillment'], at(0), 30_000)
    const results = await Promise.all([
      s.completeJob('j1', claimed!.locked_until!),
      s.failJob('j1', claimed!.locked_until!, 'boom', null),
      s.completeJob('j1', claimed!.locked_until!),
    ])
    assert.equal(results.filter((r) => r).length, 1, `results ${results}`)
  })

  it('listJobs lists every job of the kinds asked for, in any status, oldest first', async (s) => {
    assert.deepEqual(await s.listJobs(['fulfillment']), [])
    await s.enqueueJob(job('j3', { created_at: iso(2) }))
    await s.enqueueJob(job('j2', { created_at: iso(1), kind: 'webhook' }))
    await s.enqueueJob(job('jb', { created_at: iso(1) }))
    await s.enqueueJob(job('ja', { created_at: iso(1) }))
    await s.enqueueJob(job('j0', { created_at: iso(5), kind: 'report' }))
    // Offsets are instants too: 00:00:03+00:30 is 23:30:03Z the day before, the oldest of all.
    await s.enqueueJob(job('j9', { created_at: '2030-01-01T00:00:03+00:30', run_at: iso(10) }))

    // Claims go by run_at then job_id: j3, ja, jb (j9 is not due yet).
    const a = await s.claimJob(['fulfillment'], at(0), 30_000)
    assert.equal(a?.job_id, 'j3')
    assert.equal(await s.completeJob('j3', a!.locked_until!), true)
    const b = await s.claimJob(['fulfillment'], at(0), 30_000)
    assert.equal(b?.job_id, 'ja')
    assert.equal(await s.failJob('ja', b!.locked_until!, 'rejected', null), true)
    assert.equal((await s.claimJob(['fulfillment'], at(0), 30_000))?.job_id, 'jb')

    assert.deepEqual(await s.listJobs(['fulfillment']), [
      job('j9', { created_at: '2029-12-31T23:30:03.000Z', run_at: iso(10) }),
      job('ja', { created_at: iso(1), attempts: 1, status: 'dead', last_error: 'rejected' }),
      job('jb', { created_at: iso(1), attempts: 1, locked_until: iso(30) }),
      job('j3', { created_at: iso(2), attempts: 1, status: 'done' }),
    ])
    assert.deepEqual(
      (await s.listJobs(['webhook', 'fulfillment'])).map((j) => j.job_id),
      ['j9', 'j2', 'ja', 'jb', 'j3'],
    )
    assert.deepEqual(
      (await s.listJobs(['report'])).map((j) => j.job_id),
      ['j0'],
    )
    assert.deepEqual(await s.listJobs([]), [])
    assert.deepEqual(await s.listJobs(['other']), [])

    const listed = await s.listJobs(['report'])
    ;(listed[0]!.payload as { trip_id: string }).trip_id = 'changed'
    assert.deepEqual(await s.getJob('j0'), job('j0', { created_at: iso(5), kind: 'report' }))
  })

  it('countPendingJobs counts the pending jobs of each kind: due, leased or waiting for a retry, never finished ones', async (s) => {
    assert.deepEqual(await s.countPendingJobs(), {})
    await s.enqueueJob(job('j1'))
    await s.enqueueJob(job('j2'))
    await s.enqueueJob(job('j3', { run_at: iso(600) }))
    await s.enqueueJob(job('w1', { kind: 'webhook' }))
    await s.enqueueJob(job('w2', { kind: 'webhook' }))
    await s.enqueueJob(job('r1', { kind: 'report' }))
    assert.deepEqual(await s.countPendingJobs(), { fulfillment: 3, webhook: 2, report: 1 })

    // Leased (j1), rescheduled after a failure (w1): still pending. Done (j2), dead (w2, r1): not.
    assert.equal((await s.claimJob(['fulfillment'], at(0), 30_000))?.job_id, 'j1')
    const j2 = await s.claimJob(['fulfillment'], at(0), 30_000)
    assert.equal(await s.completeJob('j2', j2!.locked_until!), true)
    const w1 = await s.claimJob(['webhook'], at(0), 30_000)
    assert.equal(await s.failJob('w1', w1!.locked_until!, 'HTTP 500', at(120)), true)
    const w2 = await s.claimJob(['webhook'], at(0), 30_000)
    assert.equal(await s.failJob('w2', w2!.locked_until!, 'HTTP 500', null), true)
    const r1 = await s.claimJob(['report'], at(0), 30_000)
    assert.equal(await s.failJob('r1', r1!.locked_until!, 'gave up', null), true)
    assert.deepEqual(await s.countPendingJobs(), { fulfillment: 2, webhook: 1 })
  })

  it('claimJob takes only the kinds asked for, oldest run_at first', async (s) => {
    await s.enqueueJob(job('j1', { kind: 'webhook', run_at: iso(5) }))
    await s.enqueueJob(job('j2', { kind: 'fulfillment', run_at: iso(3) }))
    await s.enqueueJob(job('j3', { kind: 'fulfillment', run_at: iso(1) }))
    await s.enqueueJob(job('j4', { kind: 'report', run_at: iso(0) }))
    assert.equal(await s.claimJob([], at(10), 1000), undefined)
    assert.equal(await s.claimJob(['other'], at(10), 1000), undefined)
    assert.equal((await s.claimJob(['webhook'], at(10), 1000))?.job_id, 'j1')
    assert.equal((await s.claimJob(['fulfillment', 'webhook'], at(10), 1000))?.job_id, 'j3')
    assert.equal((await s.claimJob(['fulfillment', 'webhook'], at(10), 1000))?.job_id, 'j2')
    assert.equal(await s.claimJob(['fulfillment', 'webhook'], at(10), 1000), undefined)
    assert.equal((await s.getJob('j4'))?.attempts, 0)
  })

  it('job times come back canonical and order by instant, whatever the offset they were given in', async (s) => {
    // 00:30+02:00 is 22:30Z the day before: due before the job at 00:00Z.
    await s.enqueueJob(job('j1', { run_at: '2030-01-01T00:00:00Z', created_at: '2030-01-01T00:00:00Z' }))
    await s.enqueueJob(job('j2', { run_at: '2030-01-01T00:30:00+02:00' }))
    assert.equal((await s.getJob('j1'))?.run_at, '2030-01-01T00:00:00.000Z')
    assert.equal((await s.getJob('j1'))?.created_at, '2030-01-01T00:00:00.000Z')
    assert.equal((await s.getJob('j2'))?.run_at, '2029-12-31T22:30:00.000Z')
    assert.equal((await s.claimJob(['fulfillment'], new Date('2029-12-31T23:00:00Z'), 1000))?.job_id, 'j2')
    assert.equal(await s.claimJob(['fulfillment'], new Date('2029-12-31T23:00:00Z'), 1000), undefined)
    assert.equal(await s.completeJob('j2', new Date(Date.parse('2029-12-31T23:00:00Z') + 1000).toISOString()), true)
    assert.equal((await s.claimJob(['fulfillment'], at(0), 1000))?.job_id, 'j1')
  })

  it('concurrent claimers never get the same job', async (s) => {
    for (let i = 0; i < 5; i++) await s.enqueueJob(job(`j${i}`, { run_at: iso(i) }))
    const claims = await Promise.all(Array.from({ length: 10 }, () => s.claimJob(['fulfillment'], at(60), 30_000)))
    const ids = claims.flatMap((c) => (c ? [c.job_id] : []))
    assert.deepEqual([...ids].sort(), ['j0', 'j1', 'j2', 'j3', 'j4'])
    assert.equal(claims.filter((c) => c === undefined).length, 5)
    for (const c of claims) if (c) assert.equal(c.attempts, 1)
  })
}
