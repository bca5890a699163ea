import { test } from 'node:test'
import assert from 'node:assert/strict'
import { coreFixture, tripRequest } from '../../helpers/core.ts'
import { call } from '../../helpers/operations.ts'
import { ProblemError } from '../../../core/shared/errors.ts'
import { basketView, computeStateHash, tripRepresentation, tripStateHash } from '../../../core/domain/trip.ts'
import { readBasket, replaceBasket, versionEtag } from '../../../core/application/baskets.ts'
import { canonicalJson, useSha256 } from '../../../core/shared/crypto.ts'
import { hash } from 'node:crypto'

const rejects = async (p: Promise<unknown>, code: string, path?: string) => {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ProblemError, String(e))
    assert.equal(e.code, code, e.message)
    if (path)
      assert.ok(
        e.errors?.some((x) => x.path === path),
        `no error at ${path}: ${JSON.stringify(e.errors)}`,
      )
    return true
  })
}

test('createTrip builds journeys with airport and city names, tickets in the basket, and a search', async () => {
  const f = await coreFixture()
  const trip = await f.api('createTrip', { body: tripRequest(f.clock.now()) })
  assert.match(trip.trip_state_hash, /^[0-9a-f]{64}$/)
  assert.deepEqual(trip.basket, {}, 'the create response shows the basket empty, as the contract does')
  const seg = trip.journeys[0]!.segments[0]!
  assert.equal(seg.departure_city, 'LON')
  assert.equal(seg.departure_city_name, 'London')
  assert.equal(seg.arrival_city, 'NYC')
  assert.match(seg.departure_airport_name, /Heathrow/)
  assert.equal(seg.operating_airline, 'BA', 'operating defaults to marketing')
  assert.equal(trip.tickets[0]!.status, 'in_basket')
  assert.ok(trip.search_id)
  const basket = await f.api('getBasket', { params: { trip_id: trip.trip_id } })
  const ticketItem = basket.basket[trip.tickets[0]!.basket_item_id]!
  assert.equal(ticketItem.product_type, 'ticket')
  assert.equal(ticketItem.price.total.amount, 82500)
  assert.equal(ticketItem.price.markups[0]!.amount, 2500)
  assert.equal(basket.trip_state_hash, trip.trip_state_hash, 'reading changes nothing, so the hash is the same')
})

test('createTrip refuses rules a schema cannot express, listing every field', async () => {
  const f = await coreFixture()
  const now = f.clock.now()
  const bad = tripRequest(now)
  const s = bad.tickets[0]!.journeys[0]!.segments[0]!
  s.departure_airport = 'QQQ'
  s.arrival_time = new Date(Date.parse(s.departure_time) - 3600_000).toISOString()
  await rejects(
    f.api('createTrip', { body: bad }),
    'validation_error',
    '/tickets/0/journeys/0/segments/0/departure_airport',
  )
  await rejects(f.api('createTrip', { body: bad }), 'validation_error', '/tickets/0/journeys/0/segments/0/arrival_time')

  const past = tripRequest(new Date(now.getTime() - 40 * 86400_000))
  await rejects(
    f.api('createTrip', { body: past }),
    'validation_error',
    '/tickets/0/journeys/0/segments/0/departure_time',
  )

  const lap = tripRequest(now, {
    passengers: [
      { passenger_id: 'a', passenger_type: 'adult' },
      { passenger_id: 'i', passenger_type: 'infant', on_lap_of: 'nobody' },
    ],
  })
  await rejects(f.api('createTrip', { body: lap }), 'validation_error', '/passengers/1/on_lap_of')

  const price = tripRequest(now)
  price.tickets[0]!.offered_price.total = 1
  await rejects(f.api('createTrip', { body: price }), 'validation_error', '/tickets/0/offered_price/total')
  assert.equal((await f.store.listSellers()).length, 1)
})

test('the state hash is canonical: key order does not matter, content does', async () => {
  const f = await coreFixture()
  const created = await f.api('createTrip', { body: tripRequest(f.clock.now()) })
  const { value } = (await f.store.getTrip(created.trip_id))!
  const reverseKeys = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(reverseKeys)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .reverse()
              .map(([k, x]) => [k, reverseKeys(x)]),
          )
        : v
  const reordered = reverseKeys(value) as typeof value
  assert.notEqual(JSON.stringify(reordered), JSON.stringify(value))
  assert.equal(computeStateHash(reordered, f.clock.now()), computeStateHash(value, f.clock.now()))
  const changed = structuredClone(value)
  changed.passengers[0]!.first_names = 'Ada'
  assert.notEqual(computeStateHash(changed, f.clock.now()), computeStateHash(value, f.clock.now()))
})

test('the state hash of a kept (frozen) trip is the one worked out from scratch, before and after a change', async () => {
  const f = await coreFixture()
  const created = await f.api('createTrip', { body: tripRequest(f.clock.now()) })
  const search = await f.api('getSearch', { params: { trip_id: created.trip_id, search_id: created.search_id! } })
  const bag = Object.values(search.results.products.bag ?? {}).find((b) => b.price_and_availability.p1?.available)!
  await f.api('addToBasket', {
    params: { trip_id: created.trip_id },
    body: [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  const kept = (await f.core.context.trips.read(created.trip_id))!.value
  assert.ok(
    Object.isFrozen(kept.passengers) && Object.isFrozen(Object.values(kept.basket)[0]!.product_details),
    'kept trips are frozen whole',
  )
  // From scratch: the same trip as plain, unfrozen objects (nothing of it was seen before).
  const fresh = (t: typeof kept) => computeStateHash(structuredClone(t), f.clock.now())
  assert.equal(computeStateHash(kept, f.clock.now()), fresh(kept))
  assert.equal(computeStateHash(kept, f.clock.now()), kept.state_hash!.value)
  // A version that shares the kept parts and changes one: the same as from scratch, and not the old hash.
  const item = Object.values(kept.basket).find((i) => i.product_type === 'bag')!
  const next = {
    ...kept,
    basket: {
      ...kept.basket,
      [item.basket_item_id]: { ...item, product_details: { ...item.product_details, weight: 99 } },
    },
  } as typeof kept
  assert.equal(computeStateHash(next, f.clock.now()), fresh(next))
  assert.notEqual(computeStateHash(next, f.clock.now()), computeStateHash(kept, f.clock.now()))
  // What is not frozen may still change in place, so its form is never kept.
  const plain = structuredClone(kept)
  const before = computeStateHash(plain, f.clock.now())
  plain.passengers[0]!.first_names = 'Zed'
  assert.notEqual(computeStateHash(plain, f.clock.now()), before)
})

test('a basket change hashes the items it made, not the trip again: bytes hashed for the next version of a kept trip', async () => {
  const f = await coreFixture()
  const created = await f.api('createTrip', { body: tripRequest(f.clock.now()) })
  const search = await f.api('getSearch', { params: { trip_id: created.trip_id, search_id: created.search_id! } })
  const bags = Object.values(search.results.products.bag ?? {}).filter((b) => b.price_and_availability.p1?.available)
  await f.api('addToBasket', {
    params: { trip_id: created.trip_id },
    body: [{ product_id: bags[0]!.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  const kept = (await f.core.context.trips.read(created.trip_id))!.value
  const item = Object.values(kept.basket).find((i) => i.product_type === 'bag')!
  const next = {
    ...kept,
    basket: { ...kept.basket, [item.basket_item_id]: { ...item, quantity: 2 } },
  } as typeof kept
  const hashed: string[] = []
  useSha256((text) => {
    hashed.push(text)
    return hash('sha256', text, 'hex')
  })
  try {
    computeStateHash(kept, f.clock.now())
    hashed.length = 0
    computeStateHash(next, f.clock.now())
  } finally {
    useSha256((text) => hash('sha256', text, 'hex'))
  }
  const bytes = hashed.reduce((n, t) => n + t.length, 0)
  const whole = canonicalJson({ passengers: next.passengers, basket: next.basket }).length
  // The new item's form, the tickets' (a few ids) and the list of the parts' hashes: the passengers and the
  // other items are not written out or hashed again.
  assert.ok(bytes < 1_000, `${bytes} bytes hashed`)
  assert.ok(bytes * 2 < whole, `${bytes} bytes hashed of a trip whose passengers and basket are ${whole}`)
  assert.ok(!hashed.includes(canonicalJson(next.passengers)), 'the passengers are not hashed again')
})

test('the state hash is stored by every write and read back until an item passes its valid_to, then worked out again', async () => {
  const f = await coreFixture()
  const created = await f.api('createTrip', { body: tripRequest(f.clock.now()) })
  const stored = async () => (await f.store.getTrip(created.trip_id))!.value
  let t = await stored()
  const ticket = Object.values(t.basket)[0]!
  assert.deepEqual(t.state_hash, { value: computeStateHash(t, f.clock.now()), until: ticket.validity.valid_to })
  assert.equal(created.trip_state_hash, t.state_hash!.value)
  await f.api('patchTrip', {
    params: { trip_id: created.trip_id },
    body: { passengers: [{ passenger_id: 'p1', first_names: 'Ada' }] },
  })
  t = await stored()
  assert.equal(t.state_hash!.value, computeStateHash(t, f.clock.now()), 'a write stores the hash of what it wrote')
  // A stored hash is what reads answer while it holds: a tampered one shows it is not worked out again.
  const tampered = { ...t, state_hash: { value: 'f'.repeat(64), until: t.state_hash!.until } }
  assert.equal(tripStateHash(tampered, f.clock.now()), 'f'.repeat(64))
  // Past valid_to the item reads `invalid`, so the hash changes with no write at all.
  f.clock.set(new Date(Date.parse(ticket.validity.valid_to) + 1000))
  assert.equal(tripStateHash(tampered, f.clock.now()), computeStateHash(t, f.clock.now()))
  assert.notEqual(computeStateHash(t, f.clock.now()), t.state_hash!.value)
  assert.equal(
    (await f.api('getBasket', { params: { trip_id: created.trip_id } })).trip_state_hash,
    computeStateHash(t, f.clock.now()),
  )
})

test('patchTrip updates passengers and refuses unknown ones without changing anything', async () => {
  const f = await coreFixture()
  const trip = await f.api('createTrip', { body: tripRequest(f.clock.now()) })
  const updated = await f.api('patchTrip', {
    params: { trip_id: trip.trip_id },
    body: {
      passengers: [
        {
          passenger_id: 'p1',
          first_names: 'Ada',
          surname: 'Lovelace',
          date_of_birth: '1985-12-10',
          loyalty_programs: [{ airline_id: 'BA', program_name: 'Executive Club', number: '123456' }],
        },
      ],
    },
  })
  const p1 = updated.passengers.find((p) => p.passenger_id === 'p1')!
  assert.equal(p1.first_names, 'Ada')
  assert.equal(p1.loyalty_programs.length, 1)
  assert.notEqual(updated.trip_state_hash, trip.trip_state_hash)
  assert.ok(updated.trip_access_token)
  const before = await f.store.getTrip(trip.trip_id)
  await rejects(
    f.api('patchTrip', {
      params: { trip_id: trip.trip_id },
      body: { passengers: [{ passenger_id: 'zz', first_names: 'X' }] },
    }),
    'validation_error',
    '/passengers/0/passenger_id',
  )
  await rejects(
    f.api('patchTrip', {
      params: { trip_id: trip.trip_id },
      body: { passengers: [{ passenger_id: 'p3', on_lap_of: 'p3' }] },
    }),
    'validation_error',
    '/passengers/2/on_lap_of',
  )
  assert.deepEqual(await f.store.getTrip(trip.trip_id), before)
})

test("a seller never sees another seller's trip", async () => {
  const f = await coreFixture()
  const trip = await f.api('createTrip', { body: tripRequest(f.clock.now()) })
  const other = await f.core.createSeller({ name: 'Other', origins: [], sandbox: true })
  await rejects(call(f.core, 'getTrip', { as: other, params: { trip_id: trip.trip_id } }), 'not_found')
  await rejects(call(f.core, 'getBasket', { as: other, params: { trip_id: trip.trip_id } }), 'not_found')
})

test('the canonical JSON of any stored value, however deep, is worked out without overflowing', async () => {
  let deep: unknown = 'leaf'
  for (let i = 0; i < 100_000; i++) deep = { b: deep, a: [i % 3 === 0 ? undefined : i] }
  const text = canonicalJson(deep)
  assert.ok(text.startsWith('{"a":[null],"b":{"a":[99998],"b":'), text.slice(0, 40))
  assert.ok(text.endsWith('"leaf"' + '}'.repeat(100_000)))
})

test('GET trip reads as the trip representation at every step: after a write, past valid_to, with each caller its token', async () => {
  const f = await coreFixture()
  const created = await f.api('createTrip', { body: tripRequest(f.clock.now()) })
  const token = { token: created.trip_access_token! }
  const params = { trip_id: created.trip_id }
  // Field for field and in the representation's order, the token where tripRepresentation puts it.
  const expected = async (accessToken: string) => {
    const stored = (await f.store.getTrip(created.trip_id))!.value
    return JSON.stringify(tripRepresentation(stored, f.clock.now(), { trip_access_token: accessToken }))
  }
  const read = async () => JSON.stringify((await call(f.core, 'getTrip', { as: token, params })).body)
  assert.equal(await read(), await expected(created.trip_access_token!))

  const search = await f.api('getSearch', { params: { ...params, search_id: created.search_id! } })
  const bag = Object.values(search.results.products.bag ?? {}).find((b) => b.price_and_availability.p1?.available)!
  await call(f.core, 'addToBasket', {
    as: token,
    params,
    body: [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  const afterWrite = await read()
  assert.match(afterWrite, new RegExp(bag.product_id), 'the bag added is in the trip read after the write')
  assert.equal(afterWrite, await expected(created.trip_access_token!))

  // Past valid_to the access token has expired too: the seller's backend reads, with a token signed for this read.
  f.clock.advance(f.core.config.holdWindow * 1000 + 1000)
  const expired = await f.api('getTrip', { params })
  assert.notEqual(
    expired.trip_state_hash,
    JSON.parse(afterWrite).trip_state_hash,
    'an item past valid_to changes the hash',
  )
  assert.notEqual(expired.trip_access_token, created.trip_access_token)
  assert.equal(JSON.stringify(expired), await expected(expired.trip_access_token!))
})

test('a basket change answers the basket rendered as GET renders that version, and the next GET sends that same body', async () => {
  const f = await coreFixture()
  const created = await f.api('createTrip', { body: tripRequest(f.clock.now()) })
  const search = await f.api('getSearch', { params: { trip_id: created.trip_id, search_id: created.search_id! } })
  const bag = Object.values(search.results.products.bag ?? {}).find((b) => b.price_and_availability.p1?.available)!
  const p = { kind: 'api_key' as const, seller: f.seller, key_hash: 'k' }
  const changed = await replaceBasket(f.core.context, p, created.trip_id, [
    { product_id: bag.product_id, passenger_id: 'p1', quantity: 1 },
  ])
  const stored = (await f.store.getTrip(created.trip_id))!
  assert.equal(changed.json, JSON.stringify(basketView(stored.value, f.clock.now())))
  assert.equal(changed.etag, versionEtag(stored, f.clock.now()))
  // Kept under that version: the GET (and the event stream's push) take it instead of rendering again.
  assert.equal(await readBasket(f.core.context, p, created.trip_id), changed)
})
