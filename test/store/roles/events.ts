/**
 * The store contract of TripEventStore (a trip's timeline): entries appended by the trip write they record,
 * in the same transaction (none when the write is refused or fails), read oldest first a page at a time,
 * supplier calls kept to MAX_SUPPLIER_CALLS per trip, and deleted with their trip by retention.
 */
import assert from 'node:assert/strict'
import { MAX_SUPPLIER_CALLS, type TripEventInput, type TripEventKind } from '../../../core/ports/records.ts'
import { at, iso, job, search, seller, trip, type ContractContext } from '../fixtures.ts'

const ev = (trip_id: string, kind: TripEventKind, n: number, detail: Record<string, unknown> = {}): TripEventInput => ({
  trip_id,
  seller_id: 's1',
  at: iso(n),
  kind,
  detail: { n, ...detail },
})
const call = (trip_id: string, n: number) =>
  ev(trip_id, 'supplier_call', n, { method: 'GET', path: '/air/offers/off_1', status: 200, outcome: 'ok' })

export function eventsContract({ it, withTrip }: ContractContext): void {
  it('a trip write appends its entries with it, oldest first, with their fields as given', async (s) => {
    await s.createSeller(seller('s1'))
    await s.insertTrip(trip('t1'), { events: [ev('t1', 'trip_created', 1, { currency: 'EUR' })] })
    assert.equal(
      await s.updateTrip(trip('t1', 's1', { language: 'fr' }), 1, { events: [ev('t1', 'basket_changed', 2)] }),
      2,
    )
    // A plain write of a batch, and one that carries jobs.
    assert.deepEqual(
      await s.updateTrips([{ trip: trip('t1'), expectedVersion: 2, events: [ev('t1', 'validity_checked', 3)] }]),
      [3],
    )
    await s.updateTrip(trip('t1'), 3, {
      jobs: [job('j1')],
      events: [ev('t1', 'fulfill_accepted', 4), ev('t1', 'order_status', 5)],
    })
    await s.putSearch(search('se1', { status: 'failed' }), [], [ev('t1', 'search_ended', 6)])
    const all = await s.listTripEvents('t1', { limit: 50 })
    assert.deepEqual(
      all.map((e) => [e.kind, e.detail.n]),
      [
        ['trip_created', 1],
        ['basket_changed', 2],
        ['validity_checked', 3],
        ['fulfill_accepted', 4],
        ['order_status', 5],
        ['search_ended', 6],
      ],
    )
    assert.deepEqual(all[0], {
      seq: all[0]!.seq,
      trip_id: 't1',
      seller_id: 's1',
      at: iso(1),
      kind: 'trip_created',
      detail: { n: 1, currency: 'EUR' },
    })
    assert.ok(
      all.every((e, i) => i === 0 || e.seq > all[i - 1]!.seq),
      'seq ascends',
    )
  })

  it('a refused or failed write appends nothing', async (s) => {
    await withTrip(s)
    assert.equal(await s.updateTrip(trip('t1'), 7, { events: [ev('t1', 'basket_changed', 1)] }), null)
    assert.deepEqual(
      await s.updateTrips([{ trip: trip('t1'), expectedVersion: 9, events: [ev('t1', 'basket_changed', 2)] }]),
      [null],
    )
    // A batch where one write is refused: only the other's entry.
    await s.insertTrip(trip('t2'))
    assert.deepEqual(
      await s.updateTrips([
        { trip: trip('t1'), expectedVersion: 5, events: [ev('t1', 'basket_changed', 3)] },
        { trip: trip('t2'), expectedVersion: 1, events: [ev('t2', 'basket_changed', 4)] },
      ]),
      [null, 2],
    )
    // A write whose effects cannot be stored (a job id taken) fails whole, entries included.
    await s.enqueueJob(job('dup'))
    await assert.rejects(s.updateTrip(trip('t1'), 1, { jobs: [job('dup')], events: [ev('t1', 'fulfill_accepted', 5)] }))
    await assert.rejects(s.insertTrip(trip('t2'), { events: [ev('t2', 'trip_created', 6)] }), 'a trip id taken')
    assert.deepEqual(await s.listTripEvents('t1', { limit: 50 }), [])
    assert.deepEqual(
      (await s.listTripEvents('t2', { limit: 50 })).map((e) => e.detail.n),
      [4],
    )
  })

  it('pages by seq, and by kind', async (s) => {
    await withTrip(s)
    const events = Array.from({ length: 5 }, (_, i) => (i % 2 ? call('t1', i) : ev('t1', 'basket_changed', i)))
    await s.updateTrip(trip('t1'), 1, { events })
    const first = await s.listTripEvents('t1', { limit: 2 })
    assert.deepEqual(
      first.map((e) => e.detail.n),
      [0, 1],
    )
    const next = await s.listTripEvents('t1', { limit: 2, after: first[1]!.seq })
    assert.deepEqual(
      next.map((e) => e.detail.n),
      [2, 3],
    )
    assert.deepEqual(
      (await s.listTripEvents('t1', { limit: 9, kind: 'supplier_call' })).map((e) => e.detail.n),
      [1, 3],
    )
    assert.deepEqual(await s.listTripEvents('nope', { limit: 9 }), [])
    assert.deepEqual(
      (await s.listSupplierCallsSince('s1', iso(2), 9)).map((e) => e.detail.n),
      [3],
    )
    assert.deepEqual(await s.listSupplierCallsSince('s2', iso(0), 9), [])
  })

  it(`keeps a trip's latest ${MAX_SUPPLIER_CALLS} supplier calls, and every other entry`, async (s) => {
    await withTrip(s)
    await s.updateTrip(trip('t1'), 1, { events: [ev('t1', 'basket_changed', 0)] })
    const calls = Array.from({ length: MAX_SUPPLIER_CALLS - 10 }, (_, i) => call('t1', i + 1))
    await s.updateTrip(trip('t1'), 2, { events: calls })
    await s.updateTrip(trip('t1'), 3, { events: Array.from({ length: 15 }, (_, i) => call('t1', 1000 + i)) })
    await s.appendTripEvents([call('t1', 2000), call('ghost', 1)])
    const kept = await s.listTripEvents('t1', { limit: 1000, kind: 'supplier_call' })
    assert.equal(kept.length, MAX_SUPPLIER_CALLS)
    assert.equal(kept[0]!.detail.n, 7, 'the oldest went')
    assert.equal(kept.at(-1)!.detail.n, 2000)
    assert.equal((await s.listTripEvents('t1', { limit: 1000, kind: 'basket_changed' })).length, 1)
    assert.deepEqual(await s.listTripEvents('ghost', { limit: 9 }), [], "a trip's that does not exist is not stored")
  })

  it('retention deletes the entries with their trip', async (s) => {
    await s.createSeller(seller('s1'))
    await s.insertTrip(trip('old'), { events: [ev('old', 'trip_created', 1)] })
    await s.insertTrip(trip('kept', 's1', { created_at: iso(100) }), { events: [ev('kept', 'trip_created', 2)] })
    await s.appendTripEvents([call('old', 3)])
    const cut = at(50)
    const counts = await s.purge({
      tripsBefore: cut,
      searchesBefore: cut,
      seatMapsBefore: cut,
      tokensBefore: cut,
      idempotencyBefore: cut,
      jobsBefore: cut,
      signingKeysBefore: cut,
      deliveriesBefore: cut,
    })
    assert.equal(counts.trips, 1)
    assert.deepEqual(await s.listTripEvents('old', { limit: 9 }), [])
    assert.equal((await s.listTripEvents('kept', { limit: 9 })).length, 1)
  })
}
