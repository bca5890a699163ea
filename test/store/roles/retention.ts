/** The store contract of RetentionStore: purge, batch by batch. */
import assert from 'node:assert/strict'
import type { Store } from '../../../core/ports/store.ts'
import {
  at,
  idem,
  iso,
  job,
  refreshToken,
  search,
  seatMap,
  seller,
  signingKey,
  trip,
  type ContractContext,
} from '../fixtures.ts'

export function retentionContract({ it }: ContractContext): void {
  /** Rows of every kind on both sides of the cutoffs (all at T0 + 50 s); the purge must take exactly the old ones. */
  const retentionCase = async (s: Store, batch?: number) => {
    const fulfilled = {
      f1: {
        fulfillment_id: 'f1',
        status: 'completed' as const,
        order_ids: [],
        payment_type: 'x',
        created_at: iso(0),
        completed_at: iso(0),
      },
    }
    await s.createSeller(seller('s1'))
    const young = { created_at: iso(100) }
    // A: an open trip past its time, with its searches and tokens.
    await s.insertTrip(trip('tA', 's1', { search_id: 'sA' }), {
      search: search('sA', { trip_id: 'tA' }),
      seatMaps: [seatMap('m-old')],
      refreshToken: refreshToken('rA', 'fA', { trip_id: 'tA', expires_at: iso(999) }),
    })
    // B: a young open trip: its current search stays however old; a replaced one goes.
    await s.insertTrip(trip('tB', 's1', { ...young, search_id: 'sB1' }), {
      search: search('sB0', { trip_id: 'tB' }),
      refreshToken: refreshToken('rB', 'fB', { trip_id: 'tB', expires_at: iso(200) }),
    })
    await s.putSearch(search('sB1', { trip_id: 'tB' }), [seatMap('m-young')])
    await s.insertRefreshToken(
      refreshToken('rB-expired', 'fB', { trip_id: 'tB', expires_at: iso(10), used_at: iso(5) }),
    )
    // C: an old fulfilled trip stays; its old search goes and the trip is left without one.
    await s.insertTrip(trip('tC', 's1', { search_id: 'sC', fulfillments: fulfilled }), {
      search: search('sC', { trip_id: 'tC' }),
    })
    // D: a fulfilled trip with a young search: both stay.
    await s.insertTrip(trip('tD', 's1', { search_id: 'sD', fulfillments: fulfilled }), {
      search: search('sD', { trip_id: 'tD', created_at: iso(100) }),
    })
    // m-young is used again by a search over an hour later (a use is recorded at most hourly).
    await s.putSearch(search('sD2', { trip_id: 'tD', created_at: iso(3700) }), [seatMap('m-young')])
    await s.reserveIdempotency(idem('k-old'))
    await s.reserveIdempotency(idem('k-young', { created_at: iso(100) }))
    await s.enqueueJob(job('j-done-old'))
    await s.enqueueJob(job('j-dead-old', { kind: 'webhook' }))
    await s.enqueueJob(job('j-pending-old', { kind: 'other', run_at: iso(10_000) }))
    await s.enqueueJob(job('j-done-young', { created_at: iso(100) }))
    for (const [kind, status] of [
      ['fulfillment', 'done'],
      ['webhook', 'dead'],
      ['fulfillment', 'done'],
    ] as const) {
      const claimed = (await s.claimJob([kind], at(status === 'done' ? 100 : 0), 1000))!
      if (status === 'done') await s.completeJob(claimed.job_id, claimed.locked_until!)
      else await s.failJob(claimed.job_id, claimed.locked_until!, 'gave up', null)
    }

    // Before sD2's search, after everything else old; m-young's use moved to 3700 s.
    const cut = at(50)
    await s.addSigningKey(signingKey('key-retired-long-ago', { retire_at: iso(10) }))
    await s.addSigningKey(signingKey('key-retired-lately', { retire_at: iso(100) }))
    await s.addSigningKey(signingKey('key-active'))
    const counts = await s.purge(
      {
        tripsBefore: cut,
        searchesBefore: cut,
        seatMapsBefore: cut,
        tokensBefore: cut,
        idempotencyBefore: cut,
        jobsBefore: cut,
        signingKeysBefore: cut,
        deliveriesBefore: cut,
      },
      batch,
    )
    assert.deepEqual(counts, {
      trips: 1,
      searches: 3,
      seat_maps: 1,
      refresh_tokens: 2,
      idempotency_keys: 1,
      jobs: 2,
      signing_keys: 1,
      webhook_deliveries: 0,
      console_sessions: 0,
    })
    assert.deepEqual((await s.listSigningKeys()).map((k) => k.kid).sort(), ['key-active', 'key-retired-lately'])

    assert.equal(await s.getTrip('tA'), undefined)
    assert.equal(await s.getSearch('sA'), undefined)
    assert.equal((await s.consumeRefreshToken('rA', at(60))).status, 'unknown')
    assert.equal(await s.getSearch('sB0'), undefined)
    assert.deepEqual(
      await s.getSearch('sB1'),
      search('sB1', { trip_id: 'tB' }),
      'the current search of an open trip stays',
    )
    assert.deepEqual(await s.getTrip('tB'), { value: trip('tB', 's1', { ...young, search_id: 'sB1' }), version: 1 })
    assert.equal((await s.consumeRefreshToken('rB', at(60))).status, 'ok', 'a live token stays')
    assert.equal((await s.consumeRefreshToken('rB-expired', at(60))).status, 'unknown')
    assert.equal(await s.getSearch('sC'), undefined)
    assert.deepEqual(
      await s.getTrip('tC'),
      { value: trip('tC', 's1', { search_id: null, fulfillments: fulfilled }), version: 2 },
      'a fulfilled trip stays, without its search',
    )
    assert.deepEqual((await s.getTrip('tD'))?.value.search_id, 'sD')
    assert.ok((await s.getSearch('sD')) && (await s.getSearch('sD2')))
    assert.deepEqual(
      (await s.getSeatMaps(['m-old', 'm-young'])).map((m) => m.key),
      ['m-young'],
    )
    assert.equal(
      await s.reserveIdempotency(idem('k-old', { request_hash: 'other' })),
      null,
      'the old key is free again',
    )
    assert.ok(await s.reserveIdempotency(idem('k-young')))
    assert.equal(await s.getJob('j-done-old'), undefined)
    assert.equal(await s.getJob('j-dead-old'), undefined)
    assert.equal((await s.getJob('j-pending-old'))?.status, 'pending', 'pending jobs stay')
    assert.equal((await s.getJob('j-done-young'))?.status, 'done')

    // A second run finds nothing more.
    assert.deepEqual(
      await s.purge(
        {
          tripsBefore: cut,
          searchesBefore: cut,
          seatMapsBefore: cut,
          tokensBefore: cut,
          idempotencyBefore: at(0),
          jobsBefore: cut,
          signingKeysBefore: cut,
          deliveriesBefore: cut,
        },
        batch,
      ),
      {
        trips: 0,
        searches: 0,
        seat_maps: 0,
        refresh_tokens: 0,
        idempotency_keys: 0,
        jobs: 0,
        signing_keys: 0,
        webhook_deliveries: 0,
        console_sessions: 0,
      },
    )
  }

  it('retention purges each kind of row on time and keeps what is still needed', (s) => retentionCase(s))
  it('retention in batches of one row purges the same', (s) => retentionCase(s, 1))

  // A batch is at most `batch` rows of one kind, and a purge goes on until a batch comes back short: a full
  // last batch is followed by an empty one, not taken for the end (nor is any batch the whole purge).
  it('retention in batches: a batch that comes back full is followed by another, until none is left', async (s) => {
    const cut = at(50)
    const cutoffs = {
      tripsBefore: cut,
      searchesBefore: cut,
      seatMapsBefore: cut,
      tokensBefore: cut,
      idempotencyBefore: cut,
      jobsBefore: cut,
      signingKeysBefore: cut,
      deliveriesBefore: cut,
    }
    const none = {
      trips: 0,
      searches: 0,
      seat_maps: 0,
      refresh_tokens: 0,
      idempotency_keys: 0,
      jobs: 0,
      signing_keys: 0,
      webhook_deliveries: 0,
      console_sessions: 0,
    }
    await s.createSeller(seller('s1'))
    for (const [rows, batch] of [
      [4, 2],
      [5, 2],
      [3, 3],
      [2, 7],
    ] as const) {
      for (let i = 0; i < rows; i++) {
        await s.insertTrip(trip(`t${batch}-${rows}-${i}`))
        await s.reserveIdempotency(idem(`k${batch}-${rows}-${i}`))
        await s.addSigningKey(signingKey(`key${batch}-${rows}-${i}`, { retire_at: iso(10) }))
      }
      assert.deepEqual(
        await s.purge(cutoffs, batch),
        { ...none, trips: rows, idempotency_keys: rows, signing_keys: rows },
        `${rows} rows in batches of ${batch}`,
      )
      assert.deepEqual(await s.purge(cutoffs, batch), none)
      assert.deepEqual(await s.listSigningKeys(), [])
    }
  })
}
