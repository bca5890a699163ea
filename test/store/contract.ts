/**
 * The Store contract: every adapter (memory, SQLite, PostgreSQL) registers these tests with its own `make`.
 * `make` returns a fresh, empty store; each test migrates it, uses it alone and closes it.
 * Time is always explicit (the store never reads a clock), so nothing here sleeps.
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { ApiKeyRecord, IdempotencyRecord, IdempotentResponse, JobRecord, OrderFeedItem, RefreshTokenRecord, SearchRecord, SellerRecord, SigningKeyRecord, SubscriptionRecord, TripRecord } from '../../core/ports/records.ts'
import type { Store } from '../../core/ports/store.ts'
import type { SupplierSeatMap } from '../../core/ports/supplier-answers.ts'
import type { Money, Price } from '../../core/schemas/common.ts'

const T0 = new Date('2030-01-01T00:00:00.000Z')
/** `T0` plus `seconds`, as a Date. */
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000)
const iso = (seconds: number) => at(seconds).toISOString()

export const seller = (seller_id: string, over: Partial<SellerRecord> = {}): SellerRecord => ({
  seller_id, name: `Seller ${seller_id} — Ünïcode ✈`, origins: ['https://shop.example'], sandbox: false,
  supplier: { name: 'sandbox', credentials: null }, created_at: iso(0), ...over,
})

/** An API key of a seller; `n` makes its hash (two hex digits, repeated). */
export const apiKey = (n: string, seller_id = 's1', over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  key_hash: n.repeat(32), seller_id, prefix: `svc_live_${n}`, created_at: iso(5), expires_at: null, ...over,
})

/** Sealed credentials as a seller's supplier holds them (core/shared/sealing.ts); the store keeps them as they are. */
const sealed = (data: string) => ({ sealed: 'A256GCM' as const, iv: 'AAECAwQFBgcICQoL', data })

export const trip = (trip_id: string, seller_id = 's1', over: Partial<TripRecord> = {}): TripRecord => ({
  trip_id,
  seller_id,
  sandbox: true,
  created_at: iso(0),
  updated_at: iso(0),
  language: 'en',
  currency: 'EUR',
  country: 'GB',
  markups: { bag: { percentage: 12.5 }, default: { fixed: 100 } },
  journeys: [],
  tickets: [],
  passengers: [],
  contact_details: null,
  corporate_identifiers: { c1: { corporate_id: 'ACME', name: 'Acme "Travel" Ltd' } },
  basket: {},
  orders: {},
  search_id: null,
  offer_keys: { p1: 'bag:J1:checked23', p2: 'seat:S1:12A' },
  pending_checks: { bi1: 'chk-1' },
  fulfillments: {},
  ...over,
})

export const job = (job_id: string, over: Partial<JobRecord> = {}): JobRecord => ({
  job_id,
  kind: 'fulfillment',
  payload: { trip_id: 't1', nested: { list: [1, 'two', null, true] } },
  run_at: iso(0),
  attempts: 0,
  max_attempts: 5,
  locked_until: null,
  last_error: null,
  status: 'pending',
  created_at: iso(0),
  ...over,
})

const refreshToken = (token_hash: string, family_id: string, over: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({
  token_hash, family_id, trip_id: 't1', seller_id: 's1', expires_at: iso(2700), used_at: null, revoked_at: null, ...over,
})

const idem = (key: string, over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  scope: 's1:POST /v2.2/trip', key, request_hash: 'h1', response: null, created_at: iso(0), owner: 'i1/r1', lease_until: iso(10), ...over,
})
const completion = (key: string, response: IdempotentResponse, owner = 'i1/r1') => ({ scope: 's1:POST /v2.2/trip', key, owner, response })

const signingKey = (kid: string, over: Partial<SigningKeyRecord> = {}): SigningKeyRecord => ({
  kid,
  alg: 'ES256',
  private_jwk: { kty: 'EC', crv: 'P-256', x: 'x-' + kid, y: 'y-' + kid, d: 'd-' + kid },
  public_jwk: { kty: 'EC', crv: 'P-256', x: 'x-' + kid, y: 'y-' + kid },
  created_at: iso(0),
  retire_at: null,
  ...over,
})

const search = (search_id: string, over: Partial<SearchRecord> = {}): SearchRecord => ({
  search_id,
  trip_id: 't1',
  status: 'success',
  created_at: iso(0),
  offers: {
    types: ['bag', 'seat'],
    passengers: ['p1', 'p2'],
    offers: [
      { available: true, base: { amount: 2500, currency: 'GBP', decimal_places: 2 }, taxes: [{ tax_type: 'vat', amount: 500 }], quantity_limit: 2 },
      { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'lap_infant' },
    ],
    products: [{ key: 'bag:J1:checked23', type: 'bag', name: 'Checked bag 23 kg — “Ünïcode”', details: { journey_id: 'J1', weight: 23 }, offers: [0, 1] }],
    seats: [{ segment_id: 'S1', map: 'map-1', bands: { standard: [0, 1], 'standard:exit': [1, 1] } }],
  },
  ...over,
})

const seatMap = (key: string, aircraft = 'A320'): SupplierSeatMap => ({
  key, aircraft,
  decks: [{
    deck: 0, name: 'Main deck', columns: ['A', 'B'], aisles_after: ['A'],
    rows: [{ row: 12, exit: true, wing: false, seats: [{ column: 'A', characteristics: ['window', 'exit_row'], band: 'standard:exit' }, { column: 'B', characteristics: ['aisle'], band: null }] }],
  }],
})

const subscription = (subscription_id: string, seller_id = 's1', over: Partial<SubscriptionRecord> = {}): SubscriptionRecord => ({
  subscription_id,
  seller_id,
  event_name: 'order.fulfilled',
  delivery_method: 'http',
  target: `https://hooks.example/${seller_id}/${subscription_id}?a=1&b=ü`,
  secret: `whsec_${subscription_id}`,
  created_at: iso(0),
  ...over,
})

const money = (amount: number): Money => ({ amount, currency: 'EUR', decimal_places: 2, in_original_currency: { amount, currency: 'GBP', decimal_places: 2 } })
const price = (amount: number): Price => ({ base: money(amount), total: money(amount), markups: [], taxes: [], fees: [] })

/** An order of trip `trip_id` as the feed shows it; it books basket item `bi-<order_id>`. */
export const feedOrder = (trip_id: string, order_id: string, over: Partial<OrderFeedItem> = {}): OrderFeedItem => ({
  order_id, trip_id, basket_item_id: `bi-${order_id}`, display_name: `Checked bag 23 kg — “${order_id}”`, product_type: 'bag',
  price: price(2500), status: 'queued', updated_at: iso(0), ...over,
})

/** A fulfilled trip holding these orders and the basket items they book, as the core stores it. */
export const tripWithOrders = (trip_id: string, seller_id: string, orders: OrderFeedItem[]): TripRecord => trip(trip_id, seller_id, {
  basket: Object.fromEntries(orders.map((o) => [o.basket_item_id, {
    basket_item_id: o.basket_item_id, display_name: o.display_name, product_id: `prod-${o.order_id}`, product_type: o.product_type,
    quantity: 1, ticket_id: 'tk1', benefits: [], price: o.price, product_details: { passenger_id: 'p1' },
    validity: { status: 'valid', valid_from: iso(0), valid_to: iso(1800) },
  }])),
  orders: Object.fromEntries(orders.map((o) => [o.order_id, {
    order_id: o.order_id, fulfillment_id: 'f1', basket_item_id: o.basket_item_id, display_name: o.display_name, price: o.price,
    status: o.status, ...(o.refund ? { refund: o.refund } : {}), created_at: iso(0), updated_at: o.updated_at,
  }])),
  fulfillments: { f1: { fulfillment_id: 'f1', status: 'queued', order_ids: orders.map((o) => o.order_id), payment_type: 'x', created_at: iso(0), completed_at: null } },
})

/**
 * A store whose migrate() can stop after a version, to leave a database as an older release left it.
 * The memory store has no schema and ignores the argument.
 */
export type MigratableStore = Store & { migrate(through?: number): Promise<void> }

export interface ContractOptions {
  /**
   * Writes a trip row as the release at migration 1 did (its document held search_id; no columns of
   * migration 3): SQL stores use raw SQL, since their insertTrip writes today's schema.
   */
  insertV1Trip?(s: MigratableStore, trip: TripRecord): Promise<void>
  /**
   * Writes a trip as a release before the orders feed (migration 5) did, its orders in its document only;
   * without it, `insertTrip` with no effects (the memory store: a snapshot saved before the feed, restored).
   */
  insertPreFeedTrip?(s: MigratableStore, trip: TripRecord): Promise<void>
  /**
   * Writes an Idempotency-Key reservation as a release before leases (migration 7) did: no owner or lease.
   * Without it, `reserveIdempotency` (the memory store, which has no schema to be old).
   */
  insertV1Idempotency?(s: MigratableStore, record: Pick<IdempotencyRecord, 'scope' | 'key' | 'request_hash' | 'created_at'>): Promise<void>
  /**
   * Writes a seller (and its API key) as a release before suppliers and key expiry (migration 8) did. Without
   * it, `createSeller` and `addApiKey` (the memory store: its restore fills in what older snapshots lack).
   */
  insertV1Seller?(s: MigratableStore, seller: Omit<SellerRecord, 'supplier'>, key?: Omit<ApiKeyRecord, 'expires_at'>): Promise<void>
}

export function storeContract(name: string, make: () => Promise<MigratableStore>, opts: ContractOptions = {}): void {
  /** Registers a test that gets a fresh migrated store and always closes it. */
  const it = (title: string, fn: (s: Store) => Promise<void>) => test(title, async () => {
    const s = await make()
    try {
      await s.migrate()
      await fn(s)
    } finally {
      await s.close()
    }
  })
  /** A store with seller s1 and trip t1, which most records refer to. */
  const withTrip = async (s: Store) => {
    await s.createSeller(seller('s1'))
    await s.insertTrip(trip('t1'))
  }

  describe(`${name} store contract`, () => {
    it('ping answers and a second migrate() is harmless', async (s) => {
      await s.ping()
      await s.createSeller(seller('s1'))
      await s.migrate()
      await s.ping()
      assert.deepEqual(await s.getSeller('s1'), seller('s1'))
    })

    test('a database an older release left at migration 1 keeps its data when migrated to the latest', async () => {
      const s = await make()
      try {
        await s.migrate(1)
        const { supplier: _supplier, ...oldSeller } = seller('s1')
        const { expires_at: _expires, ...oldKey1 } = apiKey('ab')
        if (opts.insertV1Seller) await opts.insertV1Seller(s, oldSeller, oldKey1)
        else { await s.createSeller(seller('s1')); await s.addApiKey(apiKey('ab')) }
        // Its search was in the earlier full form, which migration 3 drops: the trip then has none.
        const old = trip('t1', 's1', { search_id: 'x-old' })
        await (opts.insertV1Trip ? opts.insertV1Trip(s, old) : s.insertTrip({ ...old, search_id: null }))
        await s.enqueueJob(job('j1'))
        const oldKey = { scope: 's1:POST /v2.2/trip', key: 'k1', request_hash: 'h1', created_at: iso(0) }
        const migratedKey = { ...oldKey, response: null, owner: '', lease_until: '1970-01-01T00:00:00.000Z' }
        await (opts.insertV1Idempotency ? opts.insertV1Idempotency(s, oldKey) : s.reserveIdempotency(idem('k1', migratedKey)))

        await s.migrate()
        // Sellers from before suppliers sell the sandbox airline's offers, with no credentials; their keys never expire.
        assert.deepEqual(await s.listSellers(), [seller('s1')])
        assert.deepEqual(await s.findApiKey(apiKey('ab').key_hash), apiKey('ab'))
        assert.deepEqual(await s.getTrip('t1'), { value: trip('t1'), version: 1 })
        assert.deepEqual(await s.getJob('j1'), job('j1'))
        // A reservation from before leases has none left: the release that made it has stopped.
        assert.deepEqual(await s.reserveIdempotency(idem('k1', { request_hash: 'h2' })), migratedKey)
        assert.equal(await s.reserveIdempotency(idem('k1', { request_hash: 'h2' }), at(0)), null)
        // What migration 2 added works, and refers to what migration 1 held.
        await s.addSubscription(subscription('w1'))
        assert.deepEqual(await s.listSubscriptions('s1'), [subscription('w1')])
        await assert.rejects(s.addSubscription(subscription('w2', 'ghost')))
        // What migration 3 added works for the old trip.
        assert.equal(await s.updateTrip(trip('t1', 's1', { search_id: 'x1' }), 1, { search: search('x1'), seatMaps: [seatMap('map-1')] }), 2)
        assert.deepEqual(await s.getSearch('x1'), search('x1'))

        // What migration 8 added works for the old seller and its key.
        await s.updateSeller('s1', { supplier: { name: 'duffel', credentials: sealed('c2VhbGVk') } })
        await s.expireApiKeys('s1', [apiKey('ab').key_hash], iso(60))
        assert.deepEqual(await s.getSeller('s1'), seller('s1', { supplier: { name: 'duffel', credentials: sealed('c2VhbGVk') } }))
        assert.deepEqual(await s.listApiKeys('s1'), [apiKey('ab', 's1', { expires_at: iso(60) })])

        await s.migrate()
        assert.deepEqual(await s.listSubscriptions('s1'), [subscription('w1')])
      } finally {
        await s.close()
      }
    })

    // ------------------------------------------------------------ sellers and keys

    it('sellers round-trip, list in creation order and change origins', async (s) => {
      await s.createSeller(seller('s2', { created_at: iso(10), sandbox: true, origins: [] }))
      await s.createSeller(seller('s1'))
      assert.deepEqual(await s.getSeller('s1'), seller('s1'))
      assert.equal(await s.getSeller('nope'), undefined)
      assert.deepEqual(await s.listSellers(), [seller('s1'), seller('s2', { created_at: iso(10), sandbox: true, origins: [] })])
      await s.updateSeller('s1', { origins: ['https://a.example', 'https://b.example'] })
      assert.deepEqual(await s.getSeller('s1'), seller('s1', { origins: ['https://a.example', 'https://b.example'] }), 'the supplier stays')
      assert.deepEqual(await s.getSeller('s2'), seller('s2', { created_at: iso(10), sandbox: true, origins: [] }), 'another seller is untouched')
      await assert.rejects(s.createSeller(seller('s1')))
    })

    it('a seller\'s supplier round-trips with its sealed credentials, and changes apart from its origins', async (s) => {
      const duffel = { name: 'duffel', credentials: sealed('c2VhbGVkLXRva2VuLWJ5dGVz') }
      await s.createSeller(seller('s1', { supplier: duffel }))
      await s.createSeller(seller('s2'))
      assert.deepEqual(await s.getSeller('s1'), seller('s1', { supplier: duffel }))
      assert.deepEqual(await s.listSellers(), [seller('s1', { supplier: duffel }), seller('s2')])
      // The supplier alone: the origins stay.
      await s.updateSeller('s2', { supplier: { name: 'duffel', credentials: sealed('b3RoZXI') } })
      assert.deepEqual(await s.getSeller('s2'), seller('s2', { supplier: { name: 'duffel', credentials: sealed('b3RoZXI') } }))
      // Back to one without credentials: they are gone, not kept.
      await s.updateSeller('s1', { supplier: { name: 'sandbox', credentials: null } })
      assert.deepEqual(await s.getSeller('s1'), seller('s1'))
      // Both at once, and nothing at all.
      await s.updateSeller('s1', { origins: [], supplier: duffel })
      await s.updateSeller('s1', {})
      assert.deepEqual(await s.getSeller('s1'), seller('s1', { origins: [], supplier: duffel }))
      // Records are copies.
      ;(await s.getSeller('s1'))!.supplier.credentials!.data = 'changed'
      assert.deepEqual((await s.getSeller('s1'))?.supplier, duffel)
      // An unknown seller changes nothing and is no error.
      await s.updateSeller('ghost', { origins: ['https://x.example'] })
      assert.equal(await s.getSeller('ghost'), undefined)
    })

    it('api keys are found by hash, expired or not, and must belong to a known seller', async (s) => {
      await s.createSeller(seller('s1'))
      const key = apiKey('ab')
      await s.addApiKey(key)
      assert.deepEqual(await s.findApiKey(key.key_hash), key)
      assert.equal(await s.findApiKey('cd'.repeat(32)), undefined)
      await assert.rejects(s.addApiKey(key))
      await assert.rejects(s.addApiKey({ ...key, key_hash: 'ef'.repeat(32), seller_id: 'ghost' }))
      assert.equal(await s.findApiKey('ef'.repeat(32)), undefined)
      // A key stored with an expiry (in the past or not) comes back with it, canonical.
      await s.addApiKey(apiKey('cd', 's1', { expires_at: '2030-01-01T01:00:00+01:00' }))
      assert.deepEqual(await s.findApiKey('cd'.repeat(32)), apiKey('cd', 's1', { expires_at: iso(0) }))
    })

    it('a seller\'s api keys are listed oldest first, and no other seller\'s', async (s) => {
      await s.createSeller(seller('s1'))
      await s.createSeller(seller('s2'))
      await s.addApiKey(apiKey('cc', 's1', { created_at: iso(30) }))
      await s.addApiKey(apiKey('aa', 's1', { created_at: iso(10) }))
      await s.addApiKey(apiKey('bb', 's2', { created_at: iso(20) }))
      await s.addApiKey(apiKey('dd', 's1', { created_at: iso(20), expires_at: iso(25) }))
      assert.deepEqual(await s.listApiKeys('s1'), [
        apiKey('aa', 's1', { created_at: iso(10) }), apiKey('dd', 's1', { created_at: iso(20), expires_at: iso(25) }), apiKey('cc', 's1', { created_at: iso(30) }),
      ])
      assert.deepEqual(await s.listApiKeys('s2'), [apiKey('bb', 's2', { created_at: iso(20) })])
      assert.deepEqual(await s.listApiKeys('ghost'), [])
    })

    it('expireApiKeys: only the named keys of that seller, and an earlier expiry is kept', async (s) => {
      await s.createSeller(seller('s1'))
      await s.createSeller(seller('s2'))
      await s.addApiKey(apiKey('aa'))
      await s.addApiKey(apiKey('bb'))
      await s.addApiKey(apiKey('cc', 's1', { expires_at: iso(100) }))
      await s.addApiKey(apiKey('dd', 's2'))
      await s.addApiKey(apiKey('ee'))
      // dd is another seller's: named, it is not touched; ee is not named.
      await s.expireApiKeys('s1', ['aa'.repeat(32), 'bb'.repeat(32), 'cc'.repeat(32), 'dd'.repeat(32), 'ff'.repeat(32)], iso(3600))
      assert.deepEqual(await s.findApiKey('aa'.repeat(32)), apiKey('aa', 's1', { expires_at: iso(3600) }))
      assert.deepEqual(await s.findApiKey('bb'.repeat(32)), apiKey('bb', 's1', { expires_at: iso(3600) }))
      assert.deepEqual(await s.findApiKey('cc'.repeat(32)), apiKey('cc', 's1', { expires_at: iso(100) }), 'an earlier expiry stays')
      assert.deepEqual(await s.findApiKey('dd'.repeat(32)), apiKey('dd', 's2'))
      assert.deepEqual(await s.findApiKey('ee'.repeat(32)), apiKey('ee'))
      // An earlier time shortens (a revocation during a grace period), in any offset; a later one never lengthens.
      await s.expireApiKeys('s1', ['aa'.repeat(32)], '2030-01-01T01:00:10+01:00')
      await s.expireApiKeys('s1', ['bb'.repeat(32)], iso(7200))
      await s.expireApiKeys('s1', [], iso(0))
      assert.deepEqual((await s.listApiKeys('s1')).map((k) => [k.prefix, k.expires_at]),
        [['svc_live_aa', iso(10)], ['svc_live_bb', iso(3600)], ['svc_live_cc', iso(100)], ['svc_live_ee', null]])
    })

    it('signing keys: add once per kid, listed in creation order', async (s) => {
      const k2 = signingKey('k2', { created_at: iso(60), retire_at: iso(120) })
      assert.equal(await s.addSigningKey(k2), true)
      assert.equal(await s.addSigningKey(signingKey('k1')), true)
      assert.equal(await s.addSigningKey(signingKey('k1', { created_at: iso(999) })), false)
      assert.deepEqual(await s.listSigningKeys(), [signingKey('k1'), k2])
    })

    it('a signing key is retired, or its private key replaced (sealed), in place', async (s) => {
      await s.addSigningKey(signingKey('k1'))
      await s.addSigningKey(signingKey('k2'))
      await s.updateSigningKey('k1', { retire_at: iso(300) })
      const sealed = { sealed: 'A256GCM' as const, iv: 'aXY', data: 'ZGF0YQ' }
      await s.updateSigningKey('k2', { private_jwk: sealed })
      await s.updateSigningKey('nope', { retire_at: iso(1) })
      assert.deepEqual(await s.listSigningKeys(), [signingKey('k1', { retire_at: iso(300) }), signingKey('k2', { private_jwk: sealed })])
    })

    // ------------------------------------------------------------ trips

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

    it('getTripIfChanged answers the version alone while it is the one known, else the trip', async (s) => {
      await withTrip(s)
      assert.deepEqual(await s.getTripIfChanged('t1', 1), { version: 1 })
      assert.deepEqual(await s.getTripIfChanged('t1', 7), { value: trip('t1'), version: 1 })
      const changed = trip('t1', 's1', { language: 'fr', search_id: 'x9' })
      await s.updateTrip(changed, 1)
      assert.deepEqual(await s.getTripIfChanged('t1', 1), { value: changed, version: 2 })
      assert.deepEqual(await s.getTripIfChanged('t1', 2), { version: 2 })
      assert.equal(await s.getTripIfChanged('ghost', 1), undefined)
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
      assert.deepEqual((await s.reserveIdempotency(idem('k1')))?.response, { status: 201, body: { trip_id: 't1', list: [1] } })

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

    it('a search in progress (a remote supplier\'s) takes its answer once, with a trip write or alone', async (s) => {
      await withTrip(s)
      const pending = search('x1', { status: 'in_progress', offers: { ...search('x1').offers, products: [] } })
      await s.putSearch(pending)
      assert.deepEqual(await s.getSearch('x1'), pending)
      // Its answer comes with the trip's write, in its transaction (the job that asked the supplier).
      assert.equal(await s.updateTrip(trip('t1', 's1', { search_id: 'x1' }), 1, { search: search('x1') }), 2)
      assert.deepEqual(await s.getSearch('x1'), search('x1'))
      // Answered, it stays: a job run again after a crash cannot replace it.
      assert.equal(await s.updateTrip(trip('t1', 's1', { search_id: 'x1' }), 2, { search: search('x1', { status: 'failed' }) }), 3)
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
      assert.deepEqual(await s.getSeatMaps(['map-2', 'map-1', 'nope']).then((ms) => ms.sort((a, b) => a.key.localeCompare(b.key))),
        [seatMap('map-1'), seatMap('map-2')])
      assert.deepEqual(await s.getSeatMaps([]), [])
    })

    it('a trip write stores its search, seat maps and refresh token with it, or none of them', async (s) => {
      await s.createSeller(seller('s1'))
      const effects = { search: search('x1'), seatMaps: [seatMap('map-1')], refreshToken: refreshToken('r1', 'f1'), jobs: [job('j1')] }
      await s.insertTrip(trip('t1', 's1', { search_id: 'x1' }), effects)
      assert.deepEqual(await s.getTrip('t1'), { value: trip('t1', 's1', { search_id: 'x1' }), version: 1 })
      assert.deepEqual(await s.getSearch('x1'), search('x1'))
      assert.deepEqual(await s.getSeatMaps(['map-1']), [seatMap('map-1')])
      assert.equal((await s.consumeRefreshToken('r1', at(1))).status, 'ok')
      assert.deepEqual(await s.getJob('j1'), job('j1'))

      // A taken refresh token fails the whole insert: no trip, no search, no map.
      await assert.rejects(s.insertTrip(trip('t2'), { search: search('x9', { trip_id: 't2' }), seatMaps: [seatMap('map-9')], refreshToken: refreshToken('r1', 'f2', { trip_id: 't2' }) }))
      assert.equal(await s.getTrip('t2'), undefined)
      assert.equal(await s.getSearch('x9'), undefined)
      assert.deepEqual(await s.getSeatMaps(['map-9']), [])

      // An update that lost the race stores nothing it brought.
      assert.equal(await s.updateTrip(trip('t1', 's1', { search_id: 'x3' }), 7, { search: search('x3'), seatMaps: [seatMap('map-3')] }), null)
      assert.equal(await s.getSearch('x3'), undefined)
      assert.deepEqual(await s.getSeatMaps(['map-3']), [])
      assert.equal(await s.updateTrip(trip('t1', 's1', { search_id: 'x3' }), 1, { search: search('x3'), seatMaps: [seatMap('map-3')] }), 2)
      assert.deepEqual(await s.getSearch('x3'), search('x3'))
      assert.equal((await s.getTrip('t1'))?.value.search_id, 'x3')
    })

    // ------------------------------------------------------------ the orders feed

    /** Sellers s1 and s2; s1's trips t1 (orders a, b) and t2 (c), s2's trip u1 (x): numbered 1, 2, 3 and 1. */
    const withOrders = async (s: Store) => {
      await s.createSeller(seller('s1'))
      await s.createSeller(seller('s2'))
      const a = feedOrder('t1', 'a', { updated_at: iso(10) })
      const b = feedOrder('t1', 'b', { updated_at: iso(10), product_type: 'seat', display_name: 'Seat 12A' })
      const c = feedOrder('t2', 'c', { updated_at: iso(5) })
      const x = feedOrder('u1', 'x', { updated_at: iso(1) })
      await s.insertTrip(tripWithOrders('t1', 's1', [a, b]), { orders: [a, b] })
      await s.insertTrip(trip('t2'))
      assert.equal(await s.updateTrip(tripWithOrders('t2', 's1', [c]), 1, { orders: [c] }), 2)
      await s.insertTrip(tripWithOrders('u1', 's2', [x]), { orders: [x] })
      return { a, b, c, x }
    }
    const all = { after: 0, limit: 100 }

    it('orders feed: a trip write numbers the orders it moves per seller, and the feed lists them by number', async (s) => {
      const { a, b, c, x } = await withOrders(s)
      // By number, i.e. by commit: c was written after a and b though its updated_at is earlier.
      assert.deepEqual(await s.listOrders('s1', all), [{ seq: 1, order: a }, { seq: 2, order: b }, { seq: 3, order: c }])
      assert.deepEqual(await s.listOrders('s2', all), [{ seq: 1, order: x }], 'each seller has numbers of its own')
      assert.deepEqual(await s.listOrders('ghost', all), [])

      // An order that moves takes the next number: it leaves its old place and comes after the others.
      const a2 = { ...a, status: 'succeeded' as const, updated_at: iso(20) }
      const b2 = { ...b, status: 'cancelled' as const, refund: money(2000), updated_at: iso(20) }
      assert.equal(await s.updateTrip(tripWithOrders('t1', 's1', [a2, b2]), 1, { orders: [a2, b2] }), 2)
      assert.deepEqual(await s.listOrders('s1', all), [{ seq: 3, order: c }, { seq: 4, order: a2 }, { seq: 5, order: b2 }])
      assert.deepEqual(await s.listOrders('s1', { after: 3, limit: 100 }), [{ seq: 4, order: a2 }, { seq: 5, order: b2 }])
      assert.deepEqual(await s.listOrders('s1', { after: 3, limit: 1 }), [{ seq: 4, order: a2 }])
      assert.deepEqual(await s.listOrders('s1', { after: 5, limit: 100 }), [])
      assert.deepEqual(await s.listOrders('s1', { after: 99, limit: 100 }), [])
      // A write with no orders numbers nothing; the other seller's numbers never moved.
      assert.equal(await s.updateTrip(tripWithOrders('t2', 's1', [c]), 2), 3)
      assert.deepEqual((await s.listOrders('s1', all)).map((e) => e.seq), [3, 4, 5])
      assert.deepEqual(await s.listOrders('s2', all), [{ seq: 1, order: x }])
    })

    it('orders feed: filtered by status and by updated_at, from any number', async (s) => {
      const { a, b, c } = await withOrders(s)
      const a2 = { ...a, status: 'succeeded' as const, updated_at: iso(30) }
      await s.updateTrip(tripWithOrders('t1', 's1', [a2, b]), 1, { orders: [a2] })
      // s1: b (2, queued, 10 s), c (3, queued, 5 s), a2 (4, succeeded, 30 s).
      assert.deepEqual(await s.listOrders('s1', { ...all, status: 'queued' }), [{ seq: 2, order: b }, { seq: 3, order: c }])
      assert.deepEqual(await s.listOrders('s1', { ...all, status: 'queued', after: 2 }), [{ seq: 3, order: c }])
      assert.deepEqual(await s.listOrders('s1', { ...all, status: 'cancelled' }), [])
      assert.deepEqual(await s.listOrders('s1', { ...all, updatedSince: iso(10) }), [{ seq: 2, order: b }, { seq: 4, order: a2 }], 'at or after')
      assert.deepEqual(await s.listOrders('s1', { after: 2, limit: 100, updatedSince: iso(10) }), [{ seq: 4, order: a2 }])
      assert.deepEqual(await s.listOrders('s1', { ...all, updatedSince: iso(10.001) }), [{ seq: 4, order: a2 }])
      // An instant with an offset is that instant: 00:00:10+00:00 written as 01:00:10+01:00.
      assert.deepEqual(await s.listOrders('s1', { ...all, updatedSince: '2030-01-01T01:00:10+01:00' }), [{ seq: 2, order: b }, { seq: 4, order: a2 }])
      assert.deepEqual(await s.listOrders('s1', { ...all, status: 'queued', updatedSince: iso(6) }), [{ seq: 2, order: b }])
      assert.deepEqual(await s.listOrders('s1', { ...all, updatedSince: iso(31) }), [])
      assert.deepEqual(await s.listOrders('s1', { ...all, limit: 2, updatedSince: iso(0) }), [{ seq: 2, order: b }, { seq: 3, order: c }])
    })

    it('orders feed: times come back canonical, records are copies, and each order is written for its own trip', async (s) => {
      await s.createSeller(seller('s1'))
      const o = feedOrder('t1', 'o1', { updated_at: '2030-01-01T01:00:07+01:00', refund: money(100) })
      await s.insertTrip(tripWithOrders('t1', 's1', [o]), { orders: [o] })
      const stored = { ...feedOrder('t1', 'o1', { refund: money(100) }), updated_at: iso(7) }
      const [got] = await s.listOrders('s1', all)
      assert.deepEqual(got, { seq: 1, order: stored })
      got!.order.price.total.amount = 1
      o.display_name = 'changed'
      assert.deepEqual(await s.listOrders('s1', all), [{ seq: 1, order: stored }])

      // An order of another trip fails the whole write: no trip, no number taken.
      await assert.rejects(s.insertTrip(trip('t2'), { orders: [feedOrder('t1', 'o2')] }))
      assert.equal(await s.getTrip('t2'), undefined)
      const o3 = feedOrder('t1', 'o3')
      assert.equal(await s.updateTrip(tripWithOrders('t1', 's1', [o, o3]), 1, { orders: [o3] }), 2)
      assert.deepEqual((await s.listOrders('s1', all)).map((e) => [e.seq, e.order.order_id]), [[1, 'o1'], [2, 'o3']], 'numbers have no gap')
    })

    it('orders feed: a write that loses its race or fails stores no order and takes no number', async (s) => {
      const { a, b, c } = await withOrders(s)
      const a2 = { ...a, status: 'in_progress' as const, updated_at: iso(40) }
      assert.equal(await s.updateTrip(tripWithOrders('t1', 's1', [a2, b]), 7, { orders: [a2] }), null)
      // A job id that is taken fails the write after the orders would have been numbered.
      await s.enqueueJob(job('j1'))
      await assert.rejects(s.updateTrip(tripWithOrders('t1', 's1', [a2, b]), 1, { orders: [a2], jobs: [job('j1')] }))
      assert.deepEqual(await s.listOrders('s1', all), [{ seq: 1, order: a }, { seq: 2, order: b }, { seq: 3, order: c }])
      assert.equal(await s.updateTrip(tripWithOrders('t1', 's1', [a2, b]), 1, { orders: [a2] }), 2)
      assert.deepEqual((await s.listOrders('s1', { after: 3, limit: 100 })), [{ seq: 4, order: a2 }])
    })

    it('orders feed: concurrent writes of one seller\'s orders each get numbers of their own', async (s) => {
      await s.createSeller(seller('s1'))
      const trips = Array.from({ length: 8 }, (_, i) => `t${i}`)
      for (const id of trips) await s.insertTrip(trip(id))
      const results = await Promise.all(trips.map((id) => {
        const orders = [feedOrder(id, `${id}-a`), feedOrder(id, `${id}-b`)]
        return s.updateTrip(tripWithOrders(id, 's1', orders), 1, { orders })
      }))
      assert.deepEqual(results, trips.map(() => 2))
      const feed = await s.listOrders('s1', all)
      assert.deepEqual(feed.map((e) => e.seq), Array.from({ length: 16 }, (_, i) => i + 1))
      // The two orders of one write are numbered together, in the order given.
      for (const id of trips) {
        const [first, second] = feed.filter((e) => e.order.trip_id === id)
        assert.equal(first!.order.order_id, `${id}-a`)
        assert.equal(second!.seq, first!.seq + 1)
      }
    })

    it('orders feed: orders stay as long as their trip', async (s) => {
      await s.createSeller(seller('s1'))
      const kept = feedOrder('tF', 'kept')
      await s.insertTrip(tripWithOrders('tF', 's1', [kept]), { orders: [kept] })
      // An open trip with orders cannot come from the core (fulfilling closes it); if one did, its orders go with it.
      const open = feedOrder('tO', 'gone')
      await s.insertTrip({ ...tripWithOrders('tO', 's1', [open]), fulfillments: {} }, { orders: [open] })
      const later = at(86_400 * 365)
      await s.purge({ tripsBefore: later, searchesBefore: later, seatMapsBefore: later, tokensBefore: later, idempotencyBefore: later, jobsBefore: later, signingKeysBefore: later })
      assert.equal(await s.getTrip('tO'), undefined)
      assert.deepEqual(await s.listOrders('s1', all), [{ seq: 1, order: kept }])
    })

    test('orders feed: the orders of trips stored before it existed are in it, numbered by updated_at then order_id', async () => {
      const s = await make()
      try {
        await s.migrate(5)
        for (const id of ['s1', 's2']) {
          const { supplier: _supplier, ...before } = seller(id)
          await (opts.insertV1Seller ? opts.insertV1Seller(s, before) : s.createSeller(seller(id)))
        }
        const a = feedOrder('t1', 'a', { updated_at: iso(20), status: 'succeeded' })
        const b = feedOrder('t1', 'b', { updated_at: iso(10), status: 'cancelled', refund: money(2000), product_type: 'seat' })
        const c = feedOrder('t2', 'c', { updated_at: iso(10), status: 'failed' })
        const x = feedOrder('u1', 'x', { updated_at: iso(30), product_type: 'priority_boarding' })
        const insert = opts.insertPreFeedTrip ?? ((store: MigratableStore, t: TripRecord) => store.insertTrip(t))
        await insert(s, tripWithOrders('t1', 's1', [a, b]))
        await insert(s, tripWithOrders('t2', 's1', [c]))
        await insert(s, tripWithOrders('u1', 's2', [x]))
        await insert(s, trip('t3'))
        await s.migrate()
        assert.deepEqual(await s.listOrders('s1', all), [{ seq: 1, order: b }, { seq: 2, order: c }, { seq: 3, order: a }])
        assert.deepEqual(await s.listOrders('s2', all), [{ seq: 1, order: x }])
        // New changes are numbered after them.
        const d = feedOrder('t3', 'd', { updated_at: iso(5) })
        assert.equal(await s.updateTrip(tripWithOrders('t3', 's1', [d]), 1, { orders: [d] }), 2)
        assert.deepEqual(await s.listOrders('s1', { after: 3, limit: 10 }), [{ seq: 4, order: d }])
      } finally {
        await s.close()
      }
    })

    // ------------------------------------------------------------ retention

    /** Rows of every kind on both sides of the cutoffs (all at T0 + 50 s); the purge must take exactly the old ones. */
    const retentionCase = async (s: Store, batch?: number) => {
      const fulfilled = { f1: { fulfillment_id: 'f1', status: 'completed' as const, order_ids: [], payment_type: 'x', created_at: iso(0), completed_at: iso(0) } }
      await s.createSeller(seller('s1'))
      const young = { created_at: iso(100) }
      // A: an open trip past its time, with its searches and tokens.
      await s.insertTrip(trip('tA', 's1', { search_id: 'sA' }), { search: search('sA', { trip_id: 'tA' }), seatMaps: [seatMap('m-old')], refreshToken: refreshToken('rA', 'fA', { trip_id: 'tA', expires_at: iso(999) }) })
      // B: a young open trip: its current search stays however old; a replaced one goes.
      await s.insertTrip(trip('tB', 's1', { ...young, search_id: 'sB1' }), { search: search('sB0', { trip_id: 'tB' }), refreshToken: refreshToken('rB', 'fB', { trip_id: 'tB', expires_at: iso(200) }) })
      await s.putSearch(search('sB1', { trip_id: 'tB' }), [seatMap('m-young')])
      await s.insertRefreshToken(refreshToken('rB-expired', 'fB', { trip_id: 'tB', expires_at: iso(10), used_at: iso(5) }))
      // C: an old fulfilled trip stays; its old search goes and the trip is left without one.
      await s.insertTrip(trip('tC', 's1', { search_id: 'sC', fulfillments: fulfilled }), { search: search('sC', { trip_id: 'tC' }) })
      // D: a fulfilled trip with a young search: both stay.
      await s.insertTrip(trip('tD', 's1', { search_id: 'sD', fulfillments: fulfilled }), { search: search('sD', { trip_id: 'tD', created_at: iso(100) }) })
      // m-young is used again by a search over an hour later (a use is recorded at most hourly).
      await s.putSearch(search('sD2', { trip_id: 'tD', created_at: iso(3700) }), [seatMap('m-young')])
      await s.reserveIdempotency(idem('k-old'))
      await s.reserveIdempotency(idem('k-young', { created_at: iso(100) }))
      await s.enqueueJob(job('j-done-old'))
      await s.enqueueJob(job('j-dead-old', { kind: 'webhook' }))
      await s.enqueueJob(job('j-pending-old', { kind: 'other', run_at: iso(10_000) }))
      await s.enqueueJob(job('j-done-young', { created_at: iso(100) }))
      for (const [kind, status] of [['fulfillment', 'done'], ['webhook', 'dead'], ['fulfillment', 'done']] as const) {
        const claimed = (await s.claimJob([kind], at(status === 'done' ? 100 : 0), 1000))!
        if (status === 'done') await s.completeJob(claimed.job_id, claimed.locked_until!)
        else await s.failJob(claimed.job_id, claimed.locked_until!, 'gave up', null)
      }

      // Before sD2's search, after everything else old; m-young's use moved to 3700 s.
      const cut = at(50)
      await s.addSigningKey(signingKey('key-retired-long-ago', { retire_at: iso(10) }))
      await s.addSigningKey(signingKey('key-retired-lately', { retire_at: iso(100) }))
      await s.addSigningKey(signingKey('key-active'))
      const counts = await s.purge({ tripsBefore: cut, searchesBefore: cut, seatMapsBefore: cut, tokensBefore: cut, idempotencyBefore: cut, jobsBefore: cut, signingKeysBefore: cut }, batch)
      assert.deepEqual(counts, { trips: 1, searches: 3, seat_maps: 1, refresh_tokens: 2, idempotency_keys: 1, jobs: 2, signing_keys: 1 })
      assert.deepEqual((await s.listSigningKeys()).map((k) => k.kid).sort(), ['key-active', 'key-retired-lately'])

      assert.equal(await s.getTrip('tA'), undefined)
      assert.equal(await s.getSearch('sA'), undefined)
      assert.equal((await s.consumeRefreshToken('rA', at(60))).status, 'unknown')
      assert.equal(await s.getSearch('sB0'), undefined)
      assert.deepEqual(await s.getSearch('sB1'), search('sB1', { trip_id: 'tB' }), 'the current search of an open trip stays')
      assert.deepEqual(await s.getTrip('tB'), { value: trip('tB', 's1', { ...young, search_id: 'sB1' }), version: 1 })
      assert.equal((await s.consumeRefreshToken('rB', at(60))).status, 'ok', 'a live token stays')
      assert.equal((await s.consumeRefreshToken('rB-expired', at(60))).status, 'unknown')
      assert.equal(await s.getSearch('sC'), undefined)
      assert.deepEqual(await s.getTrip('tC'), { value: trip('tC', 's1', { search_id: null, fulfillments: fulfilled }), version: 2 }, 'a fulfilled trip stays, without its search')
      assert.deepEqual((await s.getTrip('tD'))?.value.search_id, 'sD')
      assert.ok(await s.getSearch('sD') && await s.getSearch('sD2'))
      assert.deepEqual((await s.getSeatMaps(['m-old', 'm-young'])).map((m) => m.key), ['m-young'])
      assert.equal((await s.reserveIdempotency(idem('k-old', { request_hash: 'other' }))), null, 'the old key is free again')
      assert.ok(await s.reserveIdempotency(idem('k-young')))
      assert.equal(await s.getJob('j-done-old'), undefined)
      assert.equal(await s.getJob('j-dead-old'), undefined)
      assert.equal((await s.getJob('j-pending-old'))?.status, 'pending', 'pending jobs stay')
      assert.equal((await s.getJob('j-done-young'))?.status, 'done')

      // A second run finds nothing more.
      assert.deepEqual(await s.purge({ tripsBefore: cut, searchesBefore: cut, seatMapsBefore: cut, tokensBefore: cut, idempotencyBefore: at(0), jobsBefore: cut, signingKeysBefore: cut }, batch),
        { trips: 0, searches: 0, seat_maps: 0, refresh_tokens: 0, idempotency_keys: 0, jobs: 0, signing_keys: 0 })
    }

    it('retention purges each kind of row on time and keeps what is still needed', (s) => retentionCase(s))
    it('retention in batches of one row purges the same', (s) => retentionCase(s, 1))

    // ------------------------------------------------------------ refresh tokens

    it('a refresh token is consumed once, then reported reused', async (s) => {
      await withTrip(s)
      await s.insertRefreshToken(refreshToken('r1', 'f1'))
      assert.deepEqual(await s.consumeRefreshToken('r1', at(60)),
        { status: 'ok', record: refreshToken('r1', 'f1', { used_at: iso(60) }) })
      assert.deepEqual(await s.consumeRefreshToken('r1', at(90)),
        { status: 'reused', record: refreshToken('r1', 'f1', { used_at: iso(60) }) })
      assert.deepEqual(await s.consumeRefreshToken('nope', at(90)), { status: 'unknown' })
      await assert.rejects(s.insertRefreshToken(refreshToken('r1', 'f1')))
      await assert.rejects(s.insertRefreshToken(refreshToken('r9', 'f1', { trip_id: 'ghost' })))
    })

    it('an expired refresh token is reported expired and left unused; a used one stays a reuse after expiry', async (s) => {
      await withTrip(s)
      await s.insertRefreshToken(refreshToken('r1', 'f1', { expires_at: iso(100) }))
      await s.insertRefreshToken(refreshToken('r2', 'f1', { expires_at: iso(100), used_at: iso(10) }))
      for (const t of [100, 130]) {
        assert.deepEqual(await s.consumeRefreshToken('r1', at(t)), { status: 'expired', record: refreshToken('r1', 'f1', { expires_at: iso(100) }) })
      }
      assert.equal((await s.consumeRefreshToken('r2', at(130))).status, 'reused')
    })

    it('revoking a family revokes every token in it, once, and no other family', async (s) => {
      await withTrip(s)
      await s.insertRefreshToken(refreshToken('r1', 'f1', { used_at: iso(10) }))
      await s.insertRefreshToken(refreshToken('r2', 'f1'))
      await s.insertRefreshToken(refreshToken('r3', 'f2'))
      await s.revokeRefreshFamily('f1', at(20))
      await s.revokeRefreshFamily('f1', at(30))
      assert.deepEqual(await s.consumeRefreshToken('r2', at(40)),
        { status: 'revoked', record: refreshToken('r2', 'f1', { revoked_at: iso(20) }) })
      // A used token in a revoked family reports revoked: the family's state is what matters.
      assert.deepEqual(await s.consumeRefreshToken('r1', at(40)),
        { status: 'revoked', record: refreshToken('r1', 'f1', { used_at: iso(10), revoked_at: iso(20) }) })
      assert.equal((await s.consumeRefreshToken('r3', at(40))).status, 'ok')
    })

    it('concurrent consumes of one refresh token: exactly one succeeds', async (s) => {
      await withTrip(s)
      await s.insertRefreshToken(refreshToken('r1', 'f1'))
      const results = await Promise.all(Array.from({ length: 5 }, () => s.consumeRefreshToken('r1', at(60))))
      assert.deepEqual(results.map((r) => r.status).sort(), ['ok', 'reused', 'reused', 'reused', 'reused'])
    })

    // ------------------------------------------------------------ idempotency

    it('idempotency: reserve once, read the record back, complete, release', async (s) => {
      assert.equal(await s.reserveIdempotency(idem('k1')), null)
      assert.deepEqual(await s.reserveIdempotency(idem('k1', { request_hash: 'h2', created_at: iso(5), owner: 'i2/r2' })), idem('k1'))
      const response = { status: 201, body: { trip_id: 't1', nested: { ok: true } } }
      assert.equal(await s.completeIdempotency(completion('k1', response, 'i2/r2')), false, 'only the holder answers')
      assert.equal(await s.completeIdempotency(completion('k1', response)), true)
      assert.equal(await s.completeIdempotency(completion('k1', { status: 500, body: null })), false, 'an answer is kept, never replaced')
      assert.deepEqual(await s.reserveIdempotency(idem('k1')), idem('k1', { response }))

      // Keys are per scope.
      assert.equal(await s.reserveIdempotency(idem('k1', { scope: 's2:POST /v2.2/trip' })), null)

      // An answered key is kept however it is released; a key without an answer is freed by its holder only.
      await s.releaseIdempotency('s1:POST /v2.2/trip', 'k1', 'i1/r1')
      assert.deepEqual(await s.reserveIdempotency(idem('k1')), idem('k1', { response }))
      assert.equal(await s.reserveIdempotency(idem('k2')), null)
      await s.releaseIdempotency('s1:POST /v2.2/trip', 'k2', 'i2/r2')
      assert.deepEqual(await s.reserveIdempotency(idem('k2', { request_hash: 'h3' })), idem('k2'))
      await s.releaseIdempotency('s1:POST /v2.2/trip', 'k2', 'i1/r1')
      assert.equal(await s.reserveIdempotency(idem('k2', { request_hash: 'h3' })), null)
      assert.deepEqual(await s.reserveIdempotency(idem('k2')), idem('k2', { request_hash: 'h3' }))
      assert.deepEqual(await s.reserveIdempotency(idem('k1', { scope: 's2:POST /v2.2/trip' })),
        idem('k1', { scope: 's2:POST /v2.2/trip' }))
    })

    it('concurrent reservations of one key: exactly one wins', async (s) => {
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => s.reserveIdempotency(idem('k1', { request_hash: `h${i}` }))))
      assert.equal(results.filter((r) => r === null).length, 1)
      const winner = `h${results.indexOf(null)}`
      for (const r of results) if (r !== null) assert.equal(r.request_hash, winner)
    })

    it('idempotency lease: renewed by its holder only, taken over once it lapsed without an answer', async (s) => {
      const scope = 's1:POST /v2.2/trip'
      assert.equal(await s.reserveIdempotency(idem('k1')), null)
      // Held: the lease (until 10 s) has not ended before now (ended strictly before is lapsed).
      const other = (over: Partial<IdempotencyRecord> = {}) => idem('k1', { request_hash: 'h2', created_at: iso(10), owner: 'i2/r2', lease_until: iso(20), ...over })
      assert.deepEqual(await s.reserveIdempotency(other(), at(10)), idem('k1'))
      assert.deepEqual(await s.reserveIdempotency(other(), at(0)), idem('k1'))
      // Without now a reservation is never taken over, however old its lease.
      assert.deepEqual(await s.reserveIdempotency(other({ created_at: iso(86_400) })), idem('k1'))

      // Its holder renews it (another request cannot); then it is held longer.
      assert.equal(await s.renewIdempotency(scope, 'k1', 'i2/r2', at(100)), false)
      assert.equal(await s.renewIdempotency(scope, 'k1', 'i1/r1', at(30)), true)
      assert.deepEqual(await s.reserveIdempotency(other(), at(20)), idem('k1', { lease_until: iso(30) }))

      // Lapsed: the next request takes it, and the one that lost it can neither renew, answer nor free it.
      assert.equal(await s.reserveIdempotency(other({ created_at: iso(31) }), at(30.001)), null)
      const taken = other({ created_at: iso(31) })
      assert.equal(await s.renewIdempotency(scope, 'k1', 'i1/r1', at(100)), false)
      assert.equal(await s.completeIdempotency(completion('k1', { status: 201, body: { trip_id: 'lost' } })), false)
      await s.releaseIdempotency(scope, 'k1', 'i1/r1')
      assert.deepEqual(await s.reserveIdempotency(idem('k1', { request_hash: 'h3', created_at: iso(32) }), at(19)), taken,
        'the new holder holds it under its own lease')

      // A completed record is kept for good, however old its lease.
      const response = { status: 201, body: { trip_id: 't1' } }
      assert.equal(await s.completeIdempotency(completion('k1', response, 'i2/r2')), true)
      assert.deepEqual(await s.reserveIdempotency(idem('k1', { request_hash: 'h4', created_at: iso(86_400) }), at(86_000)),
        { ...taken, response })
      assert.equal(await s.renewIdempotency(scope, 'k1', 'i2/r2', at(100_000)), false, 'an answered key has no lease to renew')

      // A free key is simply reserved, and other scopes are untouched.
      assert.equal(await s.reserveIdempotency(idem('k2', { created_at: iso(100) }), at(200)), null)
      assert.deepEqual(await s.reserveIdempotency(idem('k2')), idem('k2', { created_at: iso(100) }))
      assert.equal(await s.reserveIdempotency(idem('k1', { scope: 's2:POST /v2.2/trip' }), at(9_999)), null)
      assert.deepEqual(await s.reserveIdempotency(idem('k1')), { ...taken, response })
    })

    it('concurrent takeovers of a lapsed reservation: exactly one wins', async (s) => {
      assert.equal(await s.reserveIdempotency(idem('k1')), null)
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
        s.reserveIdempotency(idem('k1', { request_hash: `h${i}`, owner: `i${i}/r`, created_at: iso(60), lease_until: iso(70) }), at(60))))
      assert.equal(results.filter((r) => r === null).length, 1, `results ${JSON.stringify(results)}`)
      const i = results.indexOf(null)
      const winner = idem('k1', { request_hash: `h${i}`, owner: `i${i}/r`, created_at: iso(60), lease_until: iso(70) })
      for (const r of results) if (r !== null) assert.deepEqual(r, winner)
      assert.deepEqual(await s.reserveIdempotency(idem('k1')), winner)
    })

    it('a trip write stores the answer of the request that holds its key, in its transaction', async (s) => {
      await s.createSeller(seller('s1'))
      const response = (trip_id: string) => ({ status: 201, body: { trip_id } })
      assert.equal(await s.reserveIdempotency(idem('k1')), null)
      await s.insertTrip(trip('t1'), { idempotency: completion('k1', response('t1')) })
      assert.deepEqual((await s.reserveIdempotency(idem('k1')))?.response, response('t1'))

      // An update, and one whose version conflicts: that one stores nothing.
      assert.equal(await s.reserveIdempotency(idem('k2')), null)
      assert.equal(await s.updateTrip(trip('t1'), 7, { idempotency: completion('k2', response('conflict')) }), null)
      assert.equal((await s.reserveIdempotency(idem('k2')))?.response, null)
      assert.equal(await s.updateTrip(trip('t1'), 1, { idempotency: completion('k2', response('t1')) }), 2)
      assert.deepEqual((await s.reserveIdempotency(idem('k2')))?.response, response('t1'))

      // A key taken over meanwhile keeps its new holder's answer: the write still commits, the answer does not.
      assert.equal(await s.reserveIdempotency(idem('k3')), null)
      assert.equal(await s.reserveIdempotency(idem('k3', { owner: 'i2/r2', lease_until: iso(40) }), at(30)), null)
      assert.equal(await s.updateTrip(trip('t1'), 2, { idempotency: completion('k3', response('lost')) }), 3)
      assert.equal((await s.reserveIdempotency(idem('k3')))?.response, null)
    })

    // ------------------------------------------------------------ webhook subscriptions

    it('subscriptions: listed oldest first per seller; a seller deletes only its own', async (s) => {
      await s.createSeller(seller('s1'))
      await s.createSeller(seller('s2'))
      assert.deepEqual(await s.listSubscriptions('s1'), [])
      const w3 = subscription('w3', 's1', { created_at: iso(20) })
      const w2 = subscription('w2', 's1', { created_at: iso(10), event_name: 'order.failed' })
      const w1 = subscription('w1', 's1', { created_at: iso(10) })
      const v1 = subscription('v1', 's2', { created_at: iso(5) })
      for (const x of [w3, w2, w1, v1]) await s.addSubscription(x)
      assert.deepEqual(await s.listSubscriptions('s1'), [w1, w2, w3])
      assert.deepEqual(await s.listSubscriptions('s2'), [v1])
      assert.deepEqual(await s.listSubscriptions('ghost'), [])

      assert.equal(await s.deleteSubscription('s2', 'w1'), false, 'another seller cannot delete it')
      assert.equal(await s.deleteSubscription('ghost', 'w1'), false)
      assert.equal(await s.deleteSubscription('s1', 'nope'), false)
      assert.deepEqual(await s.listSubscriptions('s1'), [w1, w2, w3])

      assert.equal(await s.deleteSubscription('s1', 'w1'), true)
      assert.equal(await s.deleteSubscription('s1', 'w1'), false)
      assert.deepEqual(await s.listSubscriptions('s1'), [w2, w3])
      assert.deepEqual(await s.listSubscriptions('s2'), [v1])
    })

    it('a subscription id is added once, needs a known seller, and comes back canonical and copied', async (s) => {
      await s.createSeller(seller('s1'))
      await s.createSeller(seller('s2'))
      const w1 = subscription('w1')
      await s.addSubscription(w1)
      await assert.rejects(s.addSubscription(subscription('w1', 's2')))
      await assert.rejects(s.addSubscription(subscription('w9', 'ghost')))
      assert.deepEqual(await s.listSubscriptions('s2'), [])

      await s.addSubscription(subscription('w2', 's1', { created_at: '2030-01-01T01:00:01+01:00' }))
      assert.deepEqual(await s.listSubscriptions('s1'), [subscription('w1'), subscription('w2', 's1', { created_at: iso(1) })])

      w1.target = 'https://evil.example'
      ;(await s.listSubscriptions('s1'))[0]!.secret = 'changed'
      assert.deepEqual((await s.listSubscriptions('s1'))[0], subscription('w1'))
    })

    // ------------------------------------------------------------ jobs

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
      assert.deepEqual(await s.claimJob(['fulfillment'], at(30), 30_000),
        job('j1', { attempts: 2, locked_until: iso(60) }))
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
      assert.deepEqual(await s.getJob('j1'), job('j1', { attempts: 2, run_at: iso(120), last_error: 'rejected', status: 'dead' }))
      assert.equal(await s.claimJob(['fulfillment'], at(86_400), 30_000), undefined)
      assert.equal(await s.completeJob('j1', second!.locked_until!), false, 'a dead job stays dead')
      assert.equal((await s.getJob('j1'))?.status, 'dead')
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
      assert.deepEqual(await s.getJob('j1'),
        job('j1', { attempts: 2, run_at: iso(600), last_error: 'airline timeout' }))
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
      assert.deepEqual((await s.listJobs(['webhook', 'fulfillment'])).map((j) => j.job_id), ['j9', 'j2', 'ja', 'jb', 'j3'])
      assert.deepEqual((await s.listJobs(['report'])).map((j) => j.job_id), ['j0'])
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
  })
}
