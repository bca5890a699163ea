/**
 * The records the store contract (test/store/contract.ts and its roles under test/store/roles/) writes and
 * reads, and what an adapter's test file may pass it. Time is always explicit (the store never reads a clock).
 */
import type {
  ApiKeyRecord,
  IdempotencyRecord,
  IdempotentResponse,
  JobRecord,
  OrderFeedItem,
  RefreshTokenRecord,
  SearchRecord,
  SellerRecord,
  SigningKeyRecord,
  SubscriptionRecord,
  TripRecord,
} from '../../core/ports/records.ts'
import type { Store } from '../../core/ports/store.ts'
import type { SupplierSeatMap } from '../../core/ports/supplier-answers.ts'
import type { Money, Price } from '../../core/schemas/common.ts'
export const T0 = new Date('2030-01-01T00:00:00.000Z')
/** `T0` plus `seconds`, as a Date. */
export const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000)
export const iso = (seconds: number) => at(seconds).toISOString()

export const seller = (seller_id: string, over: Partial<SellerRecord> = {}): SellerRecord => ({
  seller_id,
  name: `Seller ${seller_id} — Ünïcode ✈`,
  origins: ['https://shop.example'],
  sandbox: false,
  supplier: { name: 'sandbox', credentials: null },
  created_at: iso(0),
  ...over,
})

/** An API key of a seller; `n` makes its hash (two hex digits, repeated). */
export const apiKey = (n: string, seller_id = 's1', over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  key_hash: n.repeat(32),
  seller_id,
  prefix: `svc_live_${n}`,
  created_at: iso(5),
  expires_at: null,
  ...over,
})

/** Sealed credentials as a seller's supplier holds them (core/shared/sealing.ts); the store keeps them as they are. */
export const sealed = (data: string) => ({ sealed: 'A256GCM' as const, iv: 'AAECAwQFBgcICQoL', data })

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

export const refreshToken = (
  token_hash: string,
  family_id: string,
  over: Partial<RefreshTokenRecord> = {},
): RefreshTokenRecord => ({
  token_hash,
  family_id,
  trip_id: 't1',
  seller_id: 's1',
  expires_at: iso(2700),
  used_at: null,
  revoked_at: null,
  ...over,
})

export const idem = (key: string, over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  scope: 's1:POST /v2.2/trip',
  key,
  request_hash: 'h1',
  response: null,
  created_at: iso(0),
  owner: 'i1/r1',
  lease_until: iso(10),
  ...over,
})
export const completion = (key: string, response: IdempotentResponse, owner = 'i1/r1') => ({
  scope: 's1:POST /v2.2/trip',
  key,
  owner,
  response,
})

export const signingKey = (kid: string, over: Partial<SigningKeyRecord> = {}): SigningKeyRecord => ({
  kid,
  alg: 'ES256',
  private_jwk: { kty: 'EC', crv: 'P-256', x: 'x-' + kid, y: 'y-' + kid, d: 'd-' + kid },
  public_jwk: { kty: 'EC', crv: 'P-256', x: 'x-' + kid, y: 'y-' + kid },
  created_at: iso(0),
  retire_at: null,
  ...over,
})

export const search = (search_id: string, over: Partial<SearchRecord> = {}): SearchRecord => ({
  search_id,
  trip_id: 't1',
  status: 'success',
  created_at: iso(0),
  offers: {
    types: ['bag', 'seat'],
    passengers: ['p1', 'p2'],
    offers: [
      {
        available: true,
        base: { amount: 2500, currency: 'GBP', decimal_places: 2 },
        taxes: [{ tax_type: 'vat', amount: 500 }],
        quantity_limit: 2,
      },
      { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'lap_infant' },
    ],
    products: [
      {
        key: 'bag:J1:checked23',
        type: 'bag',
        name: 'Checked bag 23 kg — “Ünïcode”',
        details: { journey_id: 'J1', weight: 23 },
        offers: [0, 1],
      },
    ],
    seats: [{ segment_id: 'S1', map: 'map-1', bands: { standard: [0, 1], 'standard:exit': [1, 1] } }],
  },
  ...over,
})

export const seatMap = (key: string, aircraft = 'A320'): SupplierSeatMap => ({
  key,
  aircraft,
  decks: [
    {
      deck: 0,
      name: 'Main deck',
      columns: ['A', 'B'],
      aisles_after: ['A'],
      rows: [
        {
          row: 12,
          exit: true,
          wing: false,
          seats: [
            { column: 'A', characteristics: ['window', 'exit_row'], band: 'standard:exit' },
            { column: 'B', characteristics: ['aisle'], band: null },
          ],
        },
      ],
    },
  ],
})

export const subscription = (
  subscription_id: string,
  seller_id = 's1',
  over: Partial<SubscriptionRecord> = {},
): SubscriptionRecord => ({
  subscription_id,
  seller_id,
  event_name: 'order.fulfilled',
  delivery_method: 'http',
  target: `https://hooks.example/${seller_id}/${subscription_id}?a=1&b=ü`,
  secret: `whsec_${subscription_id}`,
  created_at: iso(0),
  ...over,
})

export const money = (amount: number): Money => ({
  amount,
  currency: 'EUR',
  decimal_places: 2,
  in_original_currency: { amount, currency: 'GBP', decimal_places: 2 },
})
export const price = (amount: number): Price => ({
  base: money(amount),
  total: money(amount),
  markups: [],
  taxes: [],
  fees: [],
})

/** An order of trip `trip_id` as the feed shows it; it books basket item `bi-<order_id>`. */
export const feedOrder = (trip_id: string, order_id: string, over: Partial<OrderFeedItem> = {}): OrderFeedItem => ({
  order_id,
  trip_id,
  basket_item_id: `bi-${order_id}`,
  display_name: `Checked bag 23 kg — “${order_id}”`,
  product_type: 'bag',
  price: price(2500),
  status: 'queued',
  updated_at: iso(0),
  ...over,
})

/** A fulfilled trip holding these orders and the basket items they book, as the core stores it. */
export const tripWithOrders = (trip_id: string, seller_id: string, orders: OrderFeedItem[]): TripRecord =>
  trip(trip_id, seller_id, {
    basket: Object.fromEntries(
      orders.map((o) => [
        o.basket_item_id,
        {
          basket_item_id: o.basket_item_id,
          display_name: o.display_name,
          product_id: `prod-${o.order_id}`,
          product_type: o.product_type,
          quantity: 1,
          ticket_id: 'tk1',
          benefits: [],
          price: o.price,
          product_details: { passenger_id: 'p1' },
          validity: { status: 'valid', valid_from: iso(0), valid_to: iso(1800) },
        },
      ]),
    ),
    orders: Object.fromEntries(
      orders.map((o) => [
        o.order_id,
        {
          order_id: o.order_id,
          fulfillment_id: 'f1',
          basket_item_id: o.basket_item_id,
          display_name: o.display_name,
          price: o.price,
          status: o.status,
          ...(o.refund ? { refund: o.refund } : {}),
          created_at: iso(0),
          updated_at: o.updated_at,
        },
      ]),
    ),
    fulfillments: {
      f1: {
        fulfillment_id: 'f1',
        status: 'queued',
        order_ids: orders.map((o) => o.order_id),
        payment_type: 'x',
        created_at: iso(0),
        completed_at: null,
      },
    },
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
  insertV1Idempotency?(
    s: MigratableStore,
    record: Pick<IdempotencyRecord, 'scope' | 'key' | 'request_hash' | 'created_at'>,
  ): Promise<void>
  /**
   * Writes a seller (and its API key) as a release before suppliers and key expiry (migration 8) did. Without
   * it, `createSeller` and `addApiKey` (the memory store: its restore fills in what older snapshots lack).
   */
  insertV1Seller?(
    s: MigratableStore,
    seller: Omit<SellerRecord, 'supplier'>,
    key?: Omit<ApiKeyRecord, 'expires_at'>,
  ): Promise<void>
  /** Writes a job as a release before lanes (migration 10) did. Without it, `enqueueJob` (the memory store). */
  insertV1Job?(s: MigratableStore, job: JobRecord): Promise<void>
}

/** What every role's contract gets from the runner (test/store/contract.ts). */
export interface ContractContext {
  /** Registers a test that gets a fresh migrated store and always closes it. */
  it(title: string, fn: (s: Store) => Promise<void>): void
  /** A fresh store, not migrated: for tests that migrate it themselves. */
  make(): Promise<MigratableStore>
  opts: ContractOptions
  /** A store with seller s1 and trip t1, which most records refer to. */
  withTrip(s: Store): Promise<void>
}
