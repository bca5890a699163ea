/** The store contract of TripStore: versioned trips written with their effects, and the searches and seat maps they name. */
import assert from 'node:assert/strict'
import {
  at,
  completion,
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

export function tripsContract({ it, withTrip }: ContractContext): void {
  it('a trip round-trips at version 1 and each update bumps the version', async (s) => {
    await s.createSeller(seller('s1'))
    await s.insertTrip(trip('t1'))
    assert.deepEqual(await s.getTrip('t1'), { value: trip('t1'), version: 1 })
    assert.equal(await s.getTrip('nope'), undefined)

    const changed = trip('t1', 's1', { updated_at: iso(30), language: 'fr', search_id: 'x1' })
    assert.equal(await s.updateTrip(changed, 1), 2)
    assert.deepEqual(await s.getTrip('t1'), { value: changed, version: 2 })
    assert.equal(await s.updateTrip(trip('t1', 's1', { language: 'de' }), 2), 3)
    assert.equal((await s.getTrip('t1'))?.value.language, 'de')
  })

  it('getTripsIfChanged answers the version alone while it is the one known, else the trip', async (s) => {
    await withTrip(s)
    const one = async (version: number) => (await s.getTripsIfChanged([{ tripId: 't1', version }])).get('t1')
    assert.deepEqual(await one(1), { version: 1 })
    assert.deepEqual(await one(7), { value: trip('t1'), version: 1 })
    const changed = trip('t1', 's1', { language: 'fr', search_id: 'x9' })
    await s.updateTrip(changed, 1)
    assert.deepEqual(await one(1), { value: changed, version: 2 })
    assert.deepEqual(await one(2), { version: 2 })
    assert.deepEqual(await s.getTripsIfChanged([{ tripId: 'ghost', version: 1 }]), new Map())
  })

  it('getTripsIfChanged answers several trips in one call, each by the version known of it', async (s) => {
    await withTrip(s)
    await s.insertTrip(trip('t2'))
    await s.insertTrip(trip('t3'))
    const t2 = trip('t2', 's1', { language: 'de' })
    await s.updateTrip(t2, 1)
    const found = await s.getTripsIfChanged([
      { tripId: 't1', version: 1 },
      { tripId: 'ghost', version: 1 },
      { tripId: 't2', version: 1 },
      { tripId: 't3', version: 0 },
    ])
    assert.deepEqual(
      found,
      new Map<string, unknown>([
        ['t1', { version: 1 }],
        ['t2', { value: t2, version: 2 }],
        ['t3', { value: trip('t3'), version: 1 }],
      ]),
    )
    assert.deepEqual(await s.getTripsIfChanged([]), new Map())
  })

  it('updateTrips writes several trips in one call, each by its own version, and answers in their order', async (s) => {
    await withTrip(s)
    for (const id of ['t2', 't3', 't4']) await s.insertTrip(trip(id))
    assert.equal(await s.updateTrip(trip('t2', 's1', { language: 'it' }), 1), 2)
    const t1 = trip('t1', 's1', { language: 'fr', search_id: 'x1', updated_at: iso(30) })
    const t4 = trip('t4', 's1', { language: 'de' })
    // Not in trip_id order: the answer follows the order asked, whatever order the store writes in.
    const versions = await s.updateTrips([
      { trip: t4, expectedVersion: 1 },
      { trip: trip('t2', 's1', { language: 'es' }), expectedVersion: 1 },
      { trip: trip('t3', 's2', { language: 'nl' }), expectedVersion: 1 },
      { trip: trip('ghost'), expectedVersion: 1 },
      { trip: t1, expectedVersion: 1 },
    ])
    assert.deepEqual(versions, [2, null, null, null, 2])
    assert.deepEqual(await s.getTrip('t1'), { value: t1, version: 2 })
    assert.deepEqual(await s.getTrip('t4'), { value: t4, version: 2 })
    // A stale version, and another seller's claim, change nothing.
    assert.deepEqual(await s.getTrip('t2'), { value: trip('t2', 's1', { language: 'it' }), version: 2 })
    assert.deepEqual(await s.getTrip('t3'), { value: trip('t3'), version: 1 })
    assert.equal(await s.getTrip('ghost'), undefined)
    assert.deepEqual(await s.updateTrips([{ trip: trip('t3', 's1', { language: 'pt' }), expectedVersion: 1 }]), [2])
    assert.deepEqual(await s.updateTrips([]), [])
  })

  it('a stale or unknown trip update changes nothing and returns null', async (s) => {
    await withTrip(s)
    assert.equal(await s.updateTrip(trip('t1', 's1', { language: 'fr' }), 1), 2)
    assert.equal(await s.updateTrip(trip('t1', 's1', { language: 'de' }), 1, { jobs: [job('j1')] }), null)
    assert.deepEqual(await s.getTrip('t1'), { value: trip('t1', 's1', { language: 'fr' }), version: 2 })
    assert.equal(await s.getJob('j1'), undefined)
    assert.equal(await s.updateTrip(trip('ghost'), 1), null)
    assert.equal(await s.getTrip('ghost'), undefined)
  })

  it('a trip id is inserted once and needs a known seller', async (s) => {
    await withTrip(s)
    await assert.rejects(s.insertTrip(trip('t1', 's1', { language: 'fr' })))
    assert.deepEqual(await s.getTrip('t1'), { value: trip('t1'), version: 1 })
    await assert.rejects(s.insertTrip(trip('t2', 'ghost')))
    assert.equal(await s.getTrip('t2'), undefined)
  })

  it('two updates from the same version: exactly one wins and only its jobs are written', async (s) => {
    await withTrip(s)
    const results = await Promise.all([
      s.updateTrip(trip('t1', 's1', { language: 'fr' }), 1, { jobs: [job('ja')] }),
      s.updateTrip(trip('t1', 's1', { language: 'de' }), 1, { jobs: [job('jb')] }),
    ])
    assert.equal(results.filter((v) => v === 2).length, 1, `results ${results}`)
    assert.equal(results.filter((v) => v === null).length, 1, `results ${results}`)
    const winner = results[0] === 2 ? 'fr' : 'de'
    assert.deepEqual(await s.getTrip('t1'), { value: trip('t1', 's1', { language: winner }), version: 2 })
    assert.deepEqual(await s.getJob(winner === 'fr' ? 'ja' : 'jb'), job(winner === 'fr' ? 'ja' : 'jb'))
    assert.equal(await s.getJob(winner === 'fr' ? 'jb' : 'ja'), undefined)
  })

  it('effects are written with the trip, or not at all', async (s) => {
    await s.createSeller(seller('s1'))
    await s.insertTrip(trip('t1'), { jobs: [job('j1'), job('j2', { kind: 'webhook' })] })
    assert.deepEqual(await s.getJob('j1'), job('j1'))
    assert.deepEqual(await s.getJob('j2'), job('j2', { kind: 'webhook' }))

    // A job id that is taken fails the whole insert: no trip, and no sibling job.
    await assert.rejects(s.insertTrip(trip('t2'), { jobs: [job('j3'), job('j1')] }))
    assert.equal(await s.getTrip('t2'), undefined)
    assert.equal(await s.getJob('j3'), undefined)

    // Likewise an update: the trip keeps its version and value.
    await assert.rejects(s.updateTrip(trip('t1', 's1', { language: 'fr' }), 1, { jobs: [job('j4'), job('j2')] }))
    assert.deepEqual(await s.getTrip('t1'), { value: trip('t1'), version: 1 })
    assert.equal(await s.getJob('j4'), undefined)

    assert.equal(await s.updateTrip(trip('t1', 's1', { language: 'fr' }), 1, { jobs: [job('j4')] }), 2)
    assert.deepEqual(await s.getJob('j4'), job('j4'))
  })

  it('records are copies: changing what went in or came out changes nothing stored', async (s) => {
    const sel = seller('s1')
    await s.createSeller(sel)
    sel.origins.push('https://evil.example')
    const gotSeller = await s.getSeller('s1')
    gotSeller!.origins.push('https://evil.example')
    assert.deepEqual(await s.getSeller('s1'), seller('s1'))
    ;(await s.listSellers())[0]!.origins.push('https://evil.example')
    assert.deepEqual(await s.getSeller('s1'), seller('s1'))

    const t = trip('t1')
    await s.insertTrip(t)
    t.offer_keys.p3 = 'x'
    const got = await s.getTrip('t1')
    got!.value.markups.bag!.percentage = 99
    got!.version = 42
    assert.deepEqual(await s.getTrip('t1'), { value: trip('t1'), version: 1 })
    const next = trip('t1', 's1', { language: 'fr' })
    await s.updateTrip(next, 1)
    next.corporate_identifiers.c1!.name = 'changed'
    assert.deepEqual((await s.getTrip('t1'))?.value, trip('t1', 's1', { language: 'fr' }))

    const j = job('j1')
    await s.enqueueJob(j)
    ;(j.payload as { nested: { list: unknown[] } }).nested.list.push('x')
    ;((await s.getJob('j1'))!.payload as { nested: { list: unknown[] } }).nested.list.push('y')
    assert.deepEqual(await s.getJob('j1'), job('j1'))
    const claimed = await s.claimJob(['fulfillment'], at(0), 1000)
    ;(claimed!.payload as { trip_id: string }).trip_id = 'changed'
    assert.deepEqual((await s.getJob('j1'))?.payload, job('j1').payload)

    const se = search('x1')
    await s.putSearch(se, [seatMap('map-1')])
    se.offers.passengers.push('p9')
    ;(await s.getSearch('x1'))!.offers.products.push({} as never)
    assert.deepEqual(await s.getSearch('x1'), search('x1'))
    ;(await s.getSeatMaps(['map-1']))[0]!.decks.pop()
    assert.deepEqual(await s.getSeatMaps(['map-1']), [seatMap('map-1')])

    const response = { status: 201, body: { trip_id: 't1', list: [1] } }
    await s.reserveIdempotency(idem('k1'))
    await s.completeIdempotency(completion('k1', response))
    response.body.list.push(2)
    const existing = await s.reserveIdempotency(idem('k1'))
    ;(existing!.response!.body as { list: number[] }).list.push(3)
    assert.deepEqual((await s.reserveIdempotency(idem('k1')))?.response, {
      status: 201,
      body: { trip_id: 't1', list: [1] },
    })

    const k = signingKey('k1')
    await s.addSigningKey(k)
    k.public_jwk.x = 'changed'
    ;(await s.listSigningKeys())[0]!.public_jwk.x = 'changed'
    assert.deepEqual(await s.listSigningKeys(), [signingKey('k1')])
  })

  // ------------------------------------------------------------ searches

  it('searches round-trip, an answered search is never replaced, and each needs a known trip', async (s) => {
    await withTrip(s)
    await s.putSearch(search('x1'))
    assert.deepEqual(await s.getSearch('x1'), search('x1'))
    await s.putSearch(search('x1', { status: 'failed' }))
    assert.deepEqual(await s.getSearch('x1'), search('x1'))
    assert.equal(await s.getSearch('nope'), undefined)
    await assert.rejects(s.putSearch(search('x2', { trip_id: 'ghost' })))
    assert.equal(await s.getSearch('x2'), undefined)
  })

  it("a search in progress (a remote supplier's) takes its answer once, with a trip write or alone", async (s) => {
    await withTrip(s)
    const pending = search('x1', { status: 'in_progress', offers: { ...search('x1').offers, products: [] } })
    await s.putSearch(pending)
    assert.deepEqual(await s.getSearch('x1'), pending)
    // Its answer comes with the trip's write, in its transaction (the job that asked the supplier).
    assert.equal(await s.updateTrip(trip('t1', 's1', { search_id: 'x1' }), 1, { search: search('x1') }), 2)
    assert.deepEqual(await s.getSearch('x1'), search('x1'))
    // Answered, it stays: a job run again after a crash cannot replace it.
    assert.equal(
      await s.updateTrip(trip('t1', 's1', { search_id: 'x1' }), 2, { search: search('x1', { status: 'failed' }) }),
      3,
    )
    assert.deepEqual(await s.getSearch('x1'), search('x1'))
    // Alone (a new search that failed is only kept to be read).
    await s.putSearch(search('x2', { status: 'in_progress' }))
    await s.putSearch(search('x2', { status: 'failed' }))
    assert.equal((await s.getSearch('x2'))?.status, 'failed')
  })

  it('a seat map is stored once per key, for every search that names it', async (s) => {
    await withTrip(s)
    await s.putSearch(search('x1'), [seatMap('map-1')])
    // Another trip on the flight sends the same key: the map stored first stays.
    await s.putSearch(search('x2'), [seatMap('map-1', 'B787-9'), seatMap('map-2')])
    assert.deepEqual(
      await s.getSeatMaps(['map-2', 'map-1', 'nope']).then((ms) => ms.sort((a, b) => a.key.localeCompare(b.key))),
      [seatMap('map-1'), seatMap('map-2')],
    )
    assert.deepEqual(await s.getSeatMaps([]), [])
  })

  it('a trip write stores its search, seat maps and refresh token with it, or none of them', async (s) => {
    await s.createSeller(seller('s1'))
    const effects = {
      search: search('x1'),
      seatMaps: [seatMap('map-1')],
      refreshToken: refreshToken('r1', 'f1'),
      jobs: [job('j1')],
    }
    await s.insertTrip(trip('t1', 's1', { search_id: 'x1' }), effects)
    assert.deepEqual(await s.getTrip('t1'), { value: trip('t1', 's1', { search_id: 'x1' }), version: 1 })
    assert.deepEqual(await s.getSearch('x1'), search('x1'))
    assert.deepEqual(await s.getSeatMaps(['map-1']), [seatMap('map-1')])
    assert.equal((await s.consumeRefreshToken('r1', at(1))).status, 'ok')
    assert.deepEqual(await s.getJob('j1'), job('j1'))

    // A taken refresh token fails the whole insert: no trip, no search, no map.
    await assert.rejects(
      s.insertTrip(trip('t2'), {
        search: search('x9', { trip_id: 't2' }),
        seatMaps: [seatMap('map-9')],
        refreshToken: refreshToken('r1', 'f2', { trip_id: 't2' }),
      }),
    )
    assert.equal(await s.getTrip('t2'), undefined)
    assert.equal(await s.getSearch('x9'), undefined)
    assert.deepEqual(await s.getSeatMaps(['map-9']), [])

    // An update that lost the race stores nothing it brought.
    assert.equal(
      await s.updateTrip(trip('t1', 's1', { search_id: 'x3' }), 7, {
        search: search('x3'),
        seatMaps: [seatMap('map-3')],
      }),
      null,
    )
    assert.equal(await s.getSearch('x3'), undefined)
    assert.deepEqual(await s.getSeatMaps(['map-3']), [])
    assert.equal(
      await s.updateTrip(trip('t1', 's1', { search_id: 'x3' }), 1, {
        search: search('x3'),
        seatMaps: [seatMap('map-3')],
      }),
      2,
    )
    assert.deepEqual(await s.getSearch('x3'), search('x3'))
    assert.equal((await s.getTrip('t1'))?.value.search_id, 'x3')
  })
}
