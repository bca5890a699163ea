/**
 * Who may call what (docs/decisions.md), cell by cell for every operation of the table; token lifetimes on
 * the injected clock; refresh rotation and reuse detection; seller isolation.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { operations, type Operation } from '../../core/api/operations.ts'
import {
  build,
  injectUntilStreaming,
  basic,
  bearer,
  body,
  assertProblem,
  createTrip,
  tripPayload,
  type Built,
  type CreatedTrip,
} from '../helpers/build.ts'
import { readSearch, checkedBag, changeBasket, readBasket, fulfillRequest } from '../helpers/flows.ts'

type Credential = 'api_key' | 'creation_token' | 'access_token' | 'none' | 'other_trip_token' | 'other_seller_key'
const CREDENTIALS: Credential[] = [
  'api_key',
  'creation_token',
  'access_token',
  'none',
  'other_trip_token',
  'other_seller_key',
]

/** Expected outcome per rule and credential: 'ok' is the operation's success status. */
const MATRIX: Record<Operation['auth'], Record<Credential, 'ok' | 401 | 403 | 404>> = {
  api_key: {
    api_key: 'ok',
    creation_token: 403,
    access_token: 403,
    none: 401,
    other_trip_token: 403,
    other_seller_key: 'ok',
  },
  creator: {
    api_key: 'ok',
    creation_token: 'ok',
    access_token: 403,
    none: 401,
    other_trip_token: 403,
    other_seller_key: 'ok',
  },
  trip: {
    api_key: 'ok',
    creation_token: 403,
    access_token: 'ok',
    none: 401,
    other_trip_token: 404,
    other_seller_key: 404,
  },
  public: {
    api_key: 'ok',
    creation_token: 'ok',
    access_token: 'ok',
    none: 'ok',
    other_trip_token: 'ok',
    other_seller_key: 'ok',
  },
}

interface Example {
  method: string
  url: string
  payload?: unknown
}
type ExampleFactory = (t: Built, trip: CreatedTrip) => Promise<Example>

/**
 * A valid request for each operation, on a fresh trip of the main seller. A new operation in the table
 * without an example here fails the suite, so the matrix keeps covering every endpoint.
 */
const EXAMPLES: Record<string, ExampleFactory> = {
  authorize: async () => ({ method: 'POST', url: '/v2.2/authorize' }),
  createTrip: async (t) => ({ method: 'POST', url: '/v2.2/trip', payload: tripPayload(t.clock.now()) }),
  getTrip: async (_t, trip) => ({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}` }),
  patchTrip: async (_t, trip) => ({
    method: 'PATCH',
    url: `/v2.2/trip/${trip.trip_id}`,
    payload: {
      passengers: [{ passenger_id: 'p1', first_names: 'Ada', surname: 'Lovelace', date_of_birth: '1990-12-10' }],
    },
  }),
  startSearch: async (_t, trip) => ({
    method: 'POST',
    url: `/v2.2/trip/${trip.trip_id}/search`,
    payload: { bag: { search: true } },
  }),
  getSearch: async (_t, trip) => ({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}` }),
  getBasket: async (_t, trip) => ({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/basket` }),
  addToBasket: async (t, trip) => ({
    method: 'PATCH',
    url: `/v2.2/trip/${trip.trip_id}/basket`,
    payload: [{ product_id: checkedBag(await readSearch(t, trip)).product_id, passenger_id: 'p1', quantity: 1 }],
  }),
  replaceBasket: async (t, trip) => ({
    method: 'PUT',
    url: `/v2.2/trip/${trip.trip_id}/basket`,
    payload: [{ product_id: checkedBag(await readSearch(t, trip)).product_id, passenger_id: 'p2', quantity: 1 }],
  }),
  removeFromBasket: async (t, trip) => {
    const bag = checkedBag(await readSearch(t, trip))
    const res = await changeBasket(t, trip, 'PATCH', [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }])
    assert.equal(res.statusCode, 200, res.body)
    const item = Object.values<{ basket_item_id: string; product_id: string }>(body(res).basket).find(
      (i) => i.product_id === bag.product_id,
    )!
    return { method: 'DELETE', url: `/v2.2/trip/${trip.trip_id}/basket/${item.basket_item_id}` }
  },
  checkBasket: async (_t, trip) => ({ method: 'POST', url: `/v2.2/trip/${trip.trip_id}/basket/check` }),
  acceptItem: async (t, trip) => {
    // A qualifying loyalty tier makes p1's bag cheaper: price_changed, ready to accept.
    const bag = checkedBag(await readSearch(t, trip))
    const res = await changeBasket(t, trip, 'PATCH', [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }])
    const item = Object.values<{ basket_item_id: string; product_id: string }>(body(res).basket).find(
      (i) => i.product_id === bag.product_id,
    )!
    await t.app.inject({
      method: 'PATCH',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: basic(t.apiKey) },
      payload: {
        passengers: [
          {
            passenger_id: 'p1',
            loyalty_programs: [{ airline_id: 'BA', program_name: 'Executive Club', number: '1', tier_name: 'Gold' }],
          },
        ],
      },
    })
    await t.core.drainJobs()
    return { method: 'POST', url: `/v2.2/trip/${trip.trip_id}/basket/${item.basket_item_id}/accept` }
  },
  fulfill: async (t, trip) => ({
    method: 'POST',
    url: `/v2.2/trip/${trip.trip_id}/fulfill`,
    payload: fulfillRequest(trip, (await readBasket(t, trip)).trip_state_hash),
  }),
  createSubscription: async () => ({
    method: 'POST',
    url: '/v2.2/callback_subscription',
    payload: { delivery_method: 'http', target: 'https://hooks.shop.example/svc', event_name: 'order_status_changed' },
  }),
  listSubscriptions: async () => ({ method: 'GET', url: '/v2.2/callback_subscription' }),
  deleteSubscription: async (t) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/callback_subscription',
      headers: { authorization: basic(t.apiKey) },
      payload: {
        delivery_method: 'http',
        target: 'https://hooks.shop.example/svc',
        event_name: 'fulfillment_completed',
      },
    })
    return { method: 'DELETE', url: `/v2.2/callback_subscription/${body(res).subscription_id}` }
  },
  refreshToken: async (_t, trip) => ({
    method: 'POST',
    url: '/v2.2/refresh_token',
    payload: { refresh_token: trip.refresh_token },
  }),
  jwks: async () => ({ method: 'GET', url: '/v2.2/.well-known/jwks.json' }),
  getTripEvents: async (_t, trip) => ({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/events` }),
  quoteCancellation: async (t, trip) => ({
    method: 'POST',
    url: `/v2.2/trip/${trip.trip_id}/to_cancel`,
    payload: { basket_item_ids: [await orderedBag(t, trip)] },
  }),
  listOrders: async () => ({ method: 'GET', url: '/v2.2/orders?limit=10' }),
  getCancellationQuote: async (_t, trip) => ({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/to_cancel` }),
  confirmCancellation: async (t, trip) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/to_cancel`,
      headers: { authorization: basic(t.apiKey) },
      payload: { basket_item_ids: [await orderedBag(t, trip)] },
    })
    assert.equal(res.statusCode, 200, res.body)
    return { method: 'POST', url: `/v2.2/trip/${trip.trip_id}/to_cancel/confirm` }
  },
}

/** A bag bought and ordered (the trip fulfilled, its order succeeded): what a cancellation can name. */
async function orderedBag(t: Built, trip: CreatedTrip): Promise<string> {
  const bag = checkedBag(await readSearch(t, trip))
  const res = await changeBasket(t, trip, 'PATCH', [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }])
  const item = Object.values<{ basket_item_id: string; product_id: string }>(body(res).basket).find(
    (i) => i.product_id === bag.product_id,
  )!
  const fulfilled = await t.app.inject({
    method: 'POST',
    url: `/v2.2/trip/${trip.trip_id}/fulfill`,
    headers: { authorization: basic(t.apiKey) },
    payload: fulfillRequest(trip, (await readBasket(t, trip)).trip_state_hash),
  })
  assert.equal(fulfilled.statusCode, 202, fulfilled.body)
  await t.core.drainJobs()
  return item.basket_item_id
}

describe('auth matrix: every operation × every kind of credential', () => {
  let t: Built
  let other: { apiKey: string }
  before(async () => {
    t = await build()
    other = await t.otherSeller()
  })
  after(() => t.close())

  async function credential(kind: Credential, trip: CreatedTrip): Promise<string | undefined> {
    switch (kind) {
      case 'api_key':
        return basic(t.apiKey)
      case 'creation_token': {
        const res = await t.app.inject({
          method: 'POST',
          url: '/v2.2/authorize',
          headers: { authorization: basic(t.apiKey) },
        })
        return bearer(body(res).trip_creation_token)
      }
      case 'access_token':
        return bearer(trip.trip_access_token)
      case 'none':
        return undefined
      case 'other_trip_token':
        return bearer((await createTrip(t)).trip_access_token)
      case 'other_seller_key':
        return basic(other.apiKey)
    }
  }

  test('every operation of the table has an example request', () => {
    const missing = operations.filter((op) => !EXAMPLES[op.id]).map((op) => op.id)
    assert.deepEqual(missing, [], 'add an example for each new operation to EXAMPLES')
  })

  for (const op of operations) {
    for (const kind of CREDENTIALS) {
      // Another seller's API key finds neither this seller's trips nor its subscriptions.
      const owned = op.auth === 'api_key' && /:(trip_id|subscription_id)/.test(op.path)
      const expected = owned && kind === 'other_seller_key' ? 404 : MATRIX[op.auth][kind]
      test(`${op.id} (${op.auth}) with ${kind} → ${expected === 'ok' ? Object.keys(op.responses)[0] : expected}`, async () => {
        const example = EXAMPLES[op.id]
        if (!example) return // reported by the coverage test above
        const trip = await createTrip(t)
        const req = await example(t, trip)
        const authorization = await credential(kind, trip)
        const res = await injectUntilStreaming(t.app, {
          method: req.method as 'GET',
          url: req.url,
          headers: authorization ? { authorization } : {},
          ...(req.payload !== undefined ? { payload: req.payload as object } : {}),
        })
        if (expected === 'ok') {
          const success = Object.keys(op.responses).map(Number)
          assert.ok(success.includes(res.statusCode), `expected ${success}, got ${res.statusCode}: ${res.body}`)
          if (res.statusCode !== 204)
            assert.match(
              String(res.headers['content-type']),
              op.eventStream ? /^text\/event-stream/ : /^application\/json/,
            )
        } else {
          assertProblem(res, expected, expected === 401 ? 'unauthorized' : expected === 403 ? 'forbidden' : 'not_found')
        }
      })
    }
  }
})

describe('credentials that are not what they claim', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
    trip = await createTrip(t)
  })
  after(() => t.close())
  const get = (authorization: string) =>
    t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}`, headers: { authorization } })
  const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')

  test('an unknown API key, a password in place of the key, and other schemes → 401', async () => {
    assertProblem(await get(basic('svc_test_unknownunknownunknown')), 401, 'unauthorized')
    assertProblem(await get(`Basic ${Buffer.from(`:${t.apiKey}`).toString('base64')}`), 401, 'unauthorized')
    assertProblem(await get('Basic %%%not-base64%%%'), 401, 'unauthorized')
    assertProblem(await get(`Digest ${t.apiKey}`), 401, 'unauthorized')
    assertProblem(await get(t.apiKey), 401, 'unauthorized')
  })

  test('garbage, tampered and unsigned (alg none) bearer tokens → 401', async () => {
    assertProblem(await get(bearer('not.a.jwt')), 401, 'unauthorized')
    const [h, p, s] = trip.trip_access_token.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString())
    const forged = `${h}.${b64url({ ...claims, sub: 'someone-else', exp: claims.exp + 86400 })}.${s}`
    assertProblem(await get(bearer(forged)), 401, 'unauthorized')
    const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${p}.`
    assertProblem(await get(bearer(unsigned)), 401, 'unauthorized')
    const hs = `${b64url({ alg: 'HS256', typ: 'JWT', kid: JSON.parse(Buffer.from(h, 'base64url').toString()).kid })}.${p}.${s}`
    assertProblem(await get(bearer(hs)), 401, 'unauthorized')
  })

  test('a refresh token is not an access token, and an access token is not a refresh token', async () => {
    assertProblem(await get(bearer(trip.refresh_token)), 401, 'unauthorized')
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/refresh_token',
      payload: { refresh_token: trip.trip_access_token },
    })
    assertProblem(res, 401, 'unauthorized')
  })

  test('the API key may not be used from a browser (Origin present) → 403', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: basic(t.apiKey), origin: 'https://shop.example' },
    })
    assertProblem(res, 403, 'forbidden')
  })

  test('refresh ignores a stale Authorization header: the body is the credential', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/refresh_token',
      headers: { authorization: bearer('expired.or.garbage') },
      payload: { refresh_token: trip.refresh_token },
    })
    assert.equal(res.statusCode, 200, res.body)
  })
})

describe('token lifetimes on the injected clock', () => {
  const MIN = 60_000
  const S = 1000

  test('access token: accepted at 29:59, token_expired at 30:01', async () => {
    const t = await build()
    try {
      const trip = await createTrip(t)
      const get = () =>
        t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}/basket`,
          headers: { authorization: bearer(trip.trip_access_token) },
        })
      t.clock.advance(29 * MIN + 59 * S)
      assert.equal((await get()).statusCode, 200)
      t.clock.advance(2 * S)
      assertProblem(await get(), 401, 'token_expired')
    } finally {
      await t.close()
    }
  })

  test('refresh token: refreshes at 44:59, refused (401) at 45:01', async () => {
    const t = await build()
    try {
      const a = await createTrip(t)
      const b = await createTrip(t)
      const refresh = (token: string) =>
        t.app.inject({ method: 'POST', url: '/v2.2/refresh_token', payload: { refresh_token: token } })
      t.clock.advance(44 * MIN + 59 * S)
      const ok = await refresh(a.refresh_token)
      assert.equal(ok.statusCode, 200, ok.body)
      const r = body(ok)
      assert.equal(r.expires_in, 30 * 60)
      assert.equal(r.refresh_expires_in, 45 * 60)
      assert.notEqual(r.refresh_token, a.refresh_token)
      // The new access token works for the trip after the old one has expired.
      const read = await t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${a.trip_id}`,
        headers: { authorization: bearer(r.trip_access_token) },
      })
      assert.equal(read.statusCode, 200, read.body)
      t.clock.advance(2 * S)
      const expired = await refresh(b.refresh_token)
      assert.equal(expired.statusCode, 401)
      assert.ok(['token_expired', 'unauthorized'].includes(body(expired).code), expired.body)
    } finally {
      await t.close()
    }
  })

  test('creation token: creates a trip at 9:59, token_expired at 10:01', async () => {
    const t = await build()
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2.2/authorize',
        headers: { authorization: basic(t.apiKey) },
      })
      const auth = body(res)
      assert.equal(auth.token_type, 'Bearer')
      assert.equal(auth.expires_in, 600)
      const create = () =>
        t.app.inject({
          method: 'POST',
          url: '/v2.2/trip',
          headers: { authorization: bearer(auth.trip_creation_token) },
          payload: tripPayload(t.clock.now()),
        })
      t.clock.advance(9 * MIN + 59 * S)
      const created = await create()
      assert.equal(created.statusCode, 201, created.body)
      // The trip belongs to the seller whose key issued the creation token.
      const read = await t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${body(created).trip_id}`,
        headers: { authorization: basic(t.apiKey) },
      })
      assert.equal(read.statusCode, 200)
      t.clock.advance(2 * S)
      assertProblem(await create(), 401, 'token_expired')
    } finally {
      await t.close()
    }
  })
})

describe('refresh rotation and reuse detection', () => {
  test('each refresh rotates; presenting a used token revokes the whole family, newest token included', async () => {
    const t = await build()
    try {
      const trip = await createTrip(t)
      const refresh = (token: string) =>
        t.app.inject({ method: 'POST', url: '/v2.2/refresh_token', payload: { refresh_token: token } })
      const r1 = trip.refresh_token
      const first = await refresh(r1)
      assert.equal(first.statusCode, 200, first.body)
      const r2 = body(first).refresh_token as string
      const second = await refresh(r2)
      assert.equal(second.statusCode, 200, second.body)
      const r3 = body(second).refresh_token as string
      assert.equal(new Set([r1, r2, r3]).size, 3)

      assertProblem(await refresh(r1), 401, 'unauthorized') // reuse: someone replayed a leaked token
      assertProblem(await refresh(r3), 401, 'unauthorized') // so the legitimate newest one dies too

      // Another trip's session is unaffected.
      const unrelated = await createTrip(t)
      assert.equal((await refresh(unrelated.refresh_token)).statusCode, 200)
    } finally {
      await t.close()
    }
  })

  test('refresh validates its body', async () => {
    const t = await build()
    try {
      const res = await t.app.inject({ method: 'POST', url: '/v2.2/refresh_token', payload: { token: 'x' } })
      const p = assertProblem(res, 400, 'validation_error')
      assert.ok(
        p.errors?.some((e) => e.path === '/refresh_token' || e.message.includes('refresh_token')),
        JSON.stringify(p.errors),
      )
      assert.ok(
        p.errors?.some((e) => e.path === '/token'),
        JSON.stringify(p.errors),
      )
      assertProblem(
        await t.app.inject({
          method: 'POST',
          url: '/v2.2/refresh_token',
          payload: { refresh_token: 'rt_unknown_unknown_unknown' },
        }),
        401,
        'unauthorized',
      )
    } finally {
      await t.close()
    }
  })
})

describe('seller isolation', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test("another seller's trip answers exactly like a trip that does not exist", async () => {
    const trip = await createTrip(t)
    const other = await t.otherSeller()
    const missing = '6f1d2b8e-0000-4000-8000-000000000000'
    for (const suffix of ['', '/basket', `/search/${trip.search_id}`]) {
      const theirs = await t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}${suffix}`,
        headers: { authorization: basic(other.apiKey) },
      })
      const none = await t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${missing}${suffix}`,
        headers: { authorization: basic(other.apiKey) },
      })
      const a = assertProblem(theirs, 404, 'not_found')
      const b = assertProblem(none, 404, 'not_found')
      assert.equal(a.detail.replace(trip.trip_id, 'ID'), b.detail.replace(missing, 'ID'))
    }
    const snapshot = t.snapshot()
    const write = await t.app.inject({
      method: 'PATCH',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: basic(other.apiKey) },
      payload: { passengers: [{ passenger_id: 'p1', surname: 'Mallory' }] },
    })
    assertProblem(write, 404, 'not_found')
    assert.deepEqual(t.snapshot(), snapshot)
  })
})

describe('GET /v2.2/.well-known/jwks.json', () => {
  test('publishes the ES256 public key that verifies our tokens, and nothing private', async () => {
    const t = await build()
    try {
      const trip = await createTrip(t)
      const res = await t.app.inject({ method: 'GET', url: '/v2.2/.well-known/jwks.json' })
      assert.equal(res.statusCode, 200)
      const { keys } = body(res) as { keys: Array<Record<string, string>> }
      assert.ok(keys.length >= 1)
      const kid = JSON.parse(Buffer.from(trip.trip_access_token.split('.')[0]!, 'base64url').toString()).kid
      const key = keys.find((k) => k.kid === kid)
      assert.ok(key, 'the signing key of a fresh token is published')
      assert.equal(key.kty, 'EC')
      assert.equal(key.crv, 'P-256')
      assert.equal(key.alg, 'ES256')
      for (const k of keys) assert.equal(k.d, undefined, 'no private key material')
    } finally {
      await t.close()
    }
  })
})
