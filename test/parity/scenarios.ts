/**
 * The parity scenarios: each is run once on the Fastify server and once on the MSW sandbox, and the two
 * transcripts must be equal (test/parity/parity.test.ts). Together they reach every error code of the API
 * that both hosts answer, every validity status, every sandbox scenario (9001–9004) and the order
 * outcomes; parity.test.ts checks that coverage too.
 */
import { legacyLiveSeller, tripPayload } from '../helpers/build.ts'
import { fulfillRequest, FULFILL_PASSENGERS, type SearchProduct } from '../helpers/flows.ts'
import type { Expect, Run } from './harness.ts'
import { canonicalJson, sha256Hex } from '../../core/shared/crypto.ts'

const MIN = 60_000
const basic = (apiKey: string) => ({ authorization: `Basic ${btoa(`${apiKey}:`)}` })
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

export const OTHER_SELLER_KEY = 'svc_test_other_seller_key'

interface Trip {
  trip_id: string
  trip_access_token: string
  refresh_token: string
  search_id: string | null
  tickets: unknown[]
}

// ---------------------------------------------------------------- steps shared by scenarios

async function createTrip(r: Run, step = 'create a trip with the API key', flight?: string): Promise<Trip> {
  const payload = tripPayload(r.clock.now())
  if (flight) payload.tickets[0]!.journeys[0]!.segments[0]!.marketing_flight_number = flight
  return (await r.send(step, 'POST', '/v2.2/trip', { headers: basic(r.host.apiKey), json: payload }, 201)).body as Trip
}

async function readSearch(r: Run, trip: Trip) {
  const res = await r.send(
    'read the search',
    'GET',
    `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`,
    { headers: bearer(trip.trip_access_token) },
    200,
  )
  return res.body as { results: { products: Record<string, Record<string, SearchProduct>> } }
}

const products = (search: Awaited<ReturnType<typeof readSearch>>, type: string) =>
  Object.values(search.results.products[type] ?? {})

function checkedBag(search: Awaited<ReturnType<typeof readSearch>>, passenger: string): SearchProduct {
  const bag = products(search, 'bag').find(
    (p) => p.product_details.checked === true && p.price_and_availability[passenger]?.available,
  )
  if (!bag) throw new Error('no checked bag on offer')
  return bag
}

function seat(search: Awaited<ReturnType<typeof readSearch>>, passenger: string, nth = 0): SearchProduct {
  const all = products(search, 'seat').filter((p) => p.price_and_availability[passenger]?.available)
  const first = all[0]?.product_details.segment_id
  const s = all.filter((p) => p.product_details.segment_id === first)[nth]
  if (!s) throw new Error('no seat on offer')
  return s
}

const line = (p: SearchProduct, passenger: string, quantity = 1) => ({
  product_id: p.product_id,
  passenger_id: passenger,
  quantity,
})

/** A trip with a checked bag for p1 and p2 (and a seat for p2 when asked), on the given outbound flight. */
async function tripWithBags(r: Run, flight = '117', withSeat = false) {
  const trip = await createTrip(r, `create a trip on flight ${flight}`, flight)
  const search = await readSearch(r, trip)
  const lines = [line(checkedBag(search, 'p1'), 'p1'), line(checkedBag(search, 'p2'), 'p2')]
  if (withSeat) lines.push(line(seat(search, 'p2'), 'p2'))
  const basket = await r.send(
    'add bags',
    'PATCH',
    `/v2.2/trip/${trip.trip_id}/basket`,
    { headers: bearer(trip.trip_access_token), json: lines },
    200,
  )
  return { trip, search, basket: basket.body as Basket }
}

interface Basket {
  trip_state_hash: string
  basket: Record<
    string,
    {
      basket_item_id: string
      product_type: string
      product_details: Record<string, unknown>
      validity: { status: string; valid_to: string }
    }
  >
}

const readBasket = async (r: Run, trip: Trip, step = 'read the basket') =>
  (await r.send(step, 'GET', `/v2.2/trip/${trip.trip_id}/basket`, { headers: basic(r.host.apiKey) }, 200))
    .body as Basket

const check = (r: Run, trip: Trip, step = 'check the basket') =>
  r.send(step, 'POST', `/v2.2/trip/${trip.trip_id}/basket/check`, { headers: basic(r.host.apiKey) }, 202)

const itemOf = (b: Basket, type: string, passenger?: string) =>
  Object.values(b.basket).find(
    (i) => i.product_type === type && (passenger === undefined || i.product_details.passenger_id === passenger),
  )!

interface FulfillOptions {
  headers?: Record<string, string>
  over?: Record<string, unknown>
}
const fulfill = (
  r: Run,
  trip: Trip,
  hash: string,
  step: string,
  expect: Expect | number,
  { headers = {}, over = {} }: FulfillOptions = {},
) =>
  r.send(
    step,
    'POST',
    `/v2.2/trip/${trip.trip_id}/fulfill`,
    { headers: { ...basic(r.host.apiKey), ...headers }, json: fulfillRequest(trip as never, hash, over) },
    expect,
  )

// ---------------------------------------------------------------- scenarios

export type Scenario = (r: Run) => Promise<void>

export const scenarios: Record<string, Scenario> = {
  async 'the full flow: create (API key and creation token), search, basket, PATCH passengers, check, fulfill, orders, webhooks'(
    r,
  ) {
    const key = basic(r.host.apiKey)
    const sub = await r.send(
      'subscribe to order_status_changed',
      'POST',
      '/v2.2/callback_subscription',
      {
        headers: key,
        json: { delivery_method: 'http', target: 'http://hooks.test/orders', event_name: 'order_status_changed' },
      },
      201,
    )
    await r.send(
      'subscribe to fulfillment_completed',
      'POST',
      '/v2.2/callback_subscription',
      {
        headers: key,
        json: { delivery_method: 'http', target: 'http://hooks.test/done', event_name: 'fulfillment_completed' },
      },
      201,
    )
    await r.send('list subscriptions', 'GET', '/v2.2/callback_subscription', { headers: key }, 200)

    await createTrip(r)
    const auth = await r.send('get a creation token', 'POST', '/v2.2/authorize', { headers: key }, 200)
    const creator = bearer(auth.body.trip_creation_token)
    const payload = tripPayload(r.clock.now())
    const trip = (
      await r.send(
        'create a trip with the creation token',
        'POST',
        '/v2.2/trip',
        { headers: { ...creator, 'idempotency-key': 'create-1' }, json: payload },
        201,
      )
    ).body as Trip
    await r.send(
      'replay the creation (Idempotency-Key)',
      'POST',
      '/v2.2/trip',
      { headers: { ...creator, 'idempotency-key': 'create-1' }, json: payload },
      201,
    )
    const browser = bearer(trip.trip_access_token)

    const started = await r.send(
      'search again',
      'POST',
      `/v2.2/trip/${trip.trip_id}/search`,
      { headers: browser, json: { bag: { search: true }, seat: { search: true } } },
      201,
    )
    trip.search_id = started.body.search_id
    const search = await readSearch(r, trip)
    await r.send(
      'add two bags and a seat',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}/basket`,
      {
        headers: browser,
        json: [
          line(checkedBag(search, 'p1'), 'p1'),
          line(checkedBag(search, 'p2'), 'p2'),
          line(seat(search, 'p2'), 'p2'),
        ],
      },
      200,
    )
    await r.send(
      'replace the ancillaries with one bag',
      'PUT',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: browser, json: [line(checkedBag(search, 'p1'), 'p1')] },
      200,
    )
    const withSeat = (
      await r.send(
        'add a seat',
        'PATCH',
        `/v2.2/trip/${trip.trip_id}/basket`,
        { headers: browser, json: [line(seat(search, 'p2', 1), 'p2')] },
        200,
      )
    ).body as Basket
    await r.send(
      'remove the seat',
      'DELETE',
      `/v2.2/trip/${trip.trip_id}/basket/${itemOf(withSeat, 'seat').basket_item_id}`,
      { headers: browser },
      200,
    )
    await r.send(
      'add bag and seat back',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}/basket`,
      {
        headers: browser,
        json: [line(checkedBag(search, 'p2'), 'p2'), line(seat(search, 'p2'), 'p2')],
      },
      200,
    )
    await readBasket(r, trip, 'the backend reads the basket')
    const polled = await r.send(
      'the widget polls the basket',
      'GET',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: browser },
      200,
    )
    await r.send(
      'an unchanged basket is not sent again',
      'GET',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: { ...browser, 'if-none-match': polled.headers.etag! } },
      304,
    )
    const offers = await r.send(
      'the widget reads bags only',
      'GET',
      `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}?product_types=bag`,
      { headers: browser },
      200,
    )
    await r.send(
      'an unchanged search is not sent again',
      'GET',
      `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}?product_types=bag`,
      { headers: { ...browser, 'if-none-match': offers.headers.etag! } },
      304,
    )

    await r.send(
      'PATCH the passengers',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}`,
      {
        headers: key,
        json: {
          passengers: FULFILL_PASSENGERS.map(({ passenger_type: _t, ...p }) => p),
          contact_details: {
            contact_details_type: 'passenger',
            passenger_id: 'p1',
            email: 'ada@example.com',
            phone_number: '+44 20 7946 0000',
          },
        },
      },
      200,
    )
    await check(r, trip)
    await readBasket(r, trip, 'the basket is checking')
    await r.drain('the worker checks')
    const valid = await readBasket(r, trip, 'the basket is valid')

    await fulfill(r, trip, valid.trip_state_hash, 'fulfill', 202, { headers: { 'idempotency-key': 'charge-1' } })
    await fulfill(r, trip, valid.trip_state_hash, 'replay the fulfillment', 202, {
      headers: { 'idempotency-key': 'charge-1' },
    })
    await r.send('orders queued', 'GET', `/v2.2/trip/${trip.trip_id}`, { headers: key }, 200)
    await r.drain('the worker books the orders')
    await r.drain('the worker delivers the webhooks')
    await r.send('orders succeeded (API key)', 'GET', `/v2.2/trip/${trip.trip_id}`, { headers: key }, 200)
    await r.send('orders succeeded (access token)', 'GET', `/v2.2/trip/${trip.trip_id}`, { headers: browser }, 200)
    r.note('webhook deliveries', r.host.deliveries())

    await r.send(
      'unsubscribe',
      'DELETE',
      `/v2.2/callback_subscription/${sub.body.subscription_id}`,
      { headers: key },
      204,
    )
    await r.send(
      'unsubscribe again',
      'DELETE',
      `/v2.2/callback_subscription/${sub.body.subscription_id}`,
      { headers: key },
      { status: 404, code: 'not_found' },
    )
    await r.send('JWKS', 'GET', '/v2.2/.well-known/jwks.json', {}, 200, { keys: true })
    await r.send('JWKS (HEAD)', 'HEAD', '/v2.2/.well-known/jwks.json', {}, 200)
  },

  async 'validation_error: bad JSON, unknown fields, missing and empty bodies, path parameters, headers'(r) {
    const key = basic(r.host.apiKey)
    const trip = await createTrip(r)
    const json = { ...key, 'content-type': 'application/json' }
    const bad = { status: 400, code: 'validation_error' }
    await r.send('malformed JSON', 'POST', '/v2.2/trip', { headers: json, raw: '{"language": ' }, bad)
    await r.send(
      'prototype poisoning',
      'POST',
      '/v2.2/trip',
      { headers: json, raw: '{"__proto__": {"admin": true}}' },
      bad,
    )
    await r.send(
      'constructor poisoning',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}`,
      { headers: json, raw: '{"constructor": {"prototype": {"x": 1}}}' },
      bad,
    )
    // {"language": "<0xC3 0x28>"}: not UTF-8, refused rather than read as U+FFFD.
    await r.send(
      'a body that is not UTF-8',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}`,
      { headers: json, raw: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]) },
      bad,
    )
    await r.send(
      'a body nested 5,000 deep',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}`,
      { headers: json, raw: `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}` },
      bad,
    )
    await r.send(
      'metadata nested 3 deep',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}`,
      { headers: key, json: { passengers: [{ passenger_id: 'p1', metadata: { a: { b: { c: 1 } } } }] } },
      bad,
    )
    for (const date of ['1982-13-45', '2023-02-30', '0000-00-00', '2999-01-01']) {
      await r.send(
        `a date of birth of ${date}`,
        'PATCH',
        `/v2.2/trip/${trip.trip_id}`,
        { headers: key, json: { passengers: [{ passenger_id: 'p1', date_of_birth: date }] } },
        bad,
      )
    }
    await r.send(
      'schema violations and an unknown field',
      'POST',
      '/v2.2/trip',
      {
        headers: key,
        json: { language: 'english', currency: 'eur', country: 'GB', tickets: 'none', passengers: [], surprise: 1 },
      },
      bad,
    )
    await r.send(
      'an unknown field in a valid trip',
      'POST',
      '/v2.2/trip',
      { headers: key, json: { ...tripPayload(r.clock.now()), surprise: true } },
      bad,
    )
    await r.send('an empty JSON body', 'POST', '/v2.2/trip', { headers: json, raw: '' }, bad)
    await r.send('an empty JSON body where none is needed', 'POST', '/v2.2/authorize', { headers: json, raw: '' }, 200)
    await r.send(
      'a JSON body where none is needed',
      'POST',
      '/v2.2/authorize',
      { headers: key, json: { anything: 1 } },
      200,
    )
    await r.send('no body at all', 'POST', '/v2.2/trip', { headers: key }, bad)
    await r.send('JSON null', 'PATCH', `/v2.2/trip/${trip.trip_id}/basket`, { headers: json, raw: 'null' }, bad)
    await r.send('a path parameter too long for an id', 'GET', `/v2.2/trip/${'x'.repeat(129)}`, { headers: key }, bad)
    await r.send(
      'a path parameter over the router limit',
      'GET',
      `/v2.2/trip/${'x'.repeat(300)}`,
      { headers: key },
      bad,
    )
    await r.send('a badly percent-encoded path', 'GET', '/v2.2/trip/%E0%A4%A', { headers: key }, bad)
    await r.send(
      'a percent-encoded id',
      'GET',
      '/v2.2/trip/a%2Fb',
      { headers: key },
      { status: 404, code: 'not_found' },
    )
    // An empty segment is an empty id, refused by its schema (the sandbox answered 404; found by the fuzz suite).
    await r.send('an empty trip id', 'GET', '/v2.2/trip/', { headers: key }, bad)
    // Fastify makes a repeated name an array, which the string schema refuses; the sandbox kept the last one (200).
    await r.send(
      'a repeated query name',
      'GET',
      `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}?product_types=bag&product_types=seat`,
      { headers: key },
      bad,
    )
    await r.send('an empty trip id before /basket', 'GET', '/v2.2/trip//basket', { headers: key }, bad)
    await r.send(
      'a body with 5,000 members',
      'PUT',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: json, raw: `[${Array(5000).fill('0').join(',')}]` },
      bad,
    )
    await r.send(
      'a malformed Idempotency-Key',
      'POST',
      '/v2.2/trip',
      { headers: { ...key, 'idempotency-key': 'k'.repeat(256) }, json: tripPayload(r.clock.now()) },
      bad,
    )
    await r.send(
      'an empty Idempotency-Key',
      'POST',
      '/v2.2/trip',
      { headers: { ...key, 'idempotency-key': '' }, json: tripPayload(r.clock.now()) },
      bad,
    )
    await r.send('a search for nothing', 'POST', `/v2.2/trip/${trip.trip_id}/search`, { headers: key, json: {} }, bad)
    await r.send(
      'quantity 0',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: key, json: [{ product_id: 'x', passenger_id: 'p1', quantity: 0 }] },
      bad,
    )
    await r.send(
      'a product not of this search',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: key, json: [{ product_id: 'nope', passenger_id: 'p1', quantity: 1 }] },
      bad,
    )
    await r.send('an empty PATCH of the trip', 'PATCH', `/v2.2/trip/${trip.trip_id}`, { headers: key, json: {} }, bad)
    await r.send(
      'a webhook target with credentials',
      'POST',
      '/v2.2/callback_subscription',
      {
        headers: key,
        json: { delivery_method: 'http', target: 'https://user:pw@hooks.test/x', event_name: 'order_status_changed' },
      },
      bad,
    )
    await r.send('a refresh without a token', 'POST', '/v2.2/refresh_token', { json: {} }, bad)
    const basket = await readBasket(r, trip)
    await fulfill(r, trip, basket.trip_state_hash, 'a fulfillment naming unknown passengers', bad, {
      over: {
        passengers: [
          {
            passenger_id: 'p9',
            first_names: 'No',
            surname: 'Body',
            date_of_birth: '1980-01-01',
            passenger_type: 'adult',
          },
        ],
      },
    })
  },

  async 'host answers: not_found, method_not_allowed, unsupported_media_type, payload_too_large, request ids'(r) {
    const key = basic(r.host.apiKey)
    await r.send('an unknown path', 'GET', '/v2.2/nothing-here', {}, { status: 404, code: 'not_found' })
    await r.send(
      'an unknown path with a query',
      'GET',
      '/v2.2/nothing-here?x=1',
      {},
      { status: 404, code: 'not_found' },
    )
    await r.send('a trailing slash', 'POST', '/v2.2/trip/', { headers: key }, { status: 404, code: 'not_found' })
    await r.send('a doubled slash', 'GET', '/v2.2//trip/abc', { headers: key }, { status: 404, code: 'not_found' })
    await r.send(
      'an unknown trip',
      'GET',
      '/v2.2/trip/00000000-0000-4000-8000-000000000000',
      { headers: key },
      { status: 404, code: 'not_found' },
    )
    await r.send('HEAD on an unknown path', 'HEAD', '/v2.2/nothing-here', {}, 404)
    const notAllowed = { status: 405, code: 'method_not_allowed' }
    await r.send('DELETE /trip', 'DELETE', '/v2.2/trip', { headers: key }, notAllowed)
    await r.send('GET /trip', 'GET', '/v2.2/trip', { headers: key }, notAllowed)
    await r.send('PUT /trip/:id', 'PUT', '/v2.2/trip/abc', { headers: key }, notAllowed)
    await r.send('GET .../basket/check', 'GET', '/v2.2/trip/abc/basket/check', { headers: key }, notAllowed)
    await r.send('POST jwks', 'POST', '/v2.2/.well-known/jwks.json', {}, notAllowed)
    await r.send('OPTIONS without a preflight', 'OPTIONS', '/v2.2/trip', {}, notAllowed)
    await r.send('PATCH a subscription', 'PATCH', '/v2.2/callback_subscription/abc', { headers: key }, notAllowed)
    const media = { status: 415, code: 'unsupported_media_type' }
    await r.send(
      'text/plain',
      'POST',
      '/v2.2/trip',
      { headers: { ...key, 'content-type': 'text/plain' }, raw: 'language=en-GB' },
      media,
    )
    await r.send(
      'a body without a content type',
      'POST',
      '/v2.2/trip',
      { headers: key, raw: '{"language":"en-GB"}' },
      media,
    )
    await r.send(
      'text/plain on an operation without a body',
      'POST',
      '/v2.2/authorize',
      { headers: { ...key, 'content-type': 'text/plain' }, raw: 'x' },
      media,
    )
    await r.send(
      'text/plain on the public refresh',
      'POST',
      '/v2.2/refresh_token',
      { headers: { 'content-type': 'text/plain' }, raw: 'x' },
      media,
    )
    await r.send(
      'form data',
      'POST',
      '/v2.2/refresh_token',
      { headers: { 'content-type': 'application/x-www-form-urlencoded' }, raw: 'refresh_token=x' },
      media,
    )
    await r.send(
      'JSON with a charset and odd case',
      'POST',
      '/v2.2/refresh_token',
      {
        headers: { 'content-type': 'Application/JSON; charset=UTF-8' },
        raw: '{"refresh_token":"rt_unknown_unknown_unknown"}',
      },
      { status: 401, code: 'unauthorized' },
    )
    const huge = { ...tripPayload(r.clock.now()), padding: 'x'.repeat(300 * 1024) }
    await r.send(
      'a body over 256 KiB',
      'POST',
      '/v2.2/trip',
      { headers: key, json: huge },
      { status: 413, code: 'payload_too_large' },
    )
    await r.send(
      'credentials come before the body',
      'POST',
      '/v2.2/trip',
      { headers: { 'content-type': 'text/plain' }, raw: 'x' },
      { status: 401, code: 'unauthorized' },
    )
    const long = 'x'.repeat(129)
    await r.send(
      'the body is parsed before the path is validated',
      'PATCH',
      `/v2.2/trip/${long}/basket`,
      { headers: { ...key, 'content-type': 'application/json' }, raw: '{' },
      400,
    )
    await r.send(
      'the path is validated before the body',
      'PATCH',
      `/v2.2/trip/${long}/basket`,
      { headers: key, json: { not: 'lines' } },
      400,
    )
    await r.send(
      'a DELETE body is parsed too',
      'DELETE',
      '/v2.2/callback_subscription/abc',
      { headers: { ...key, 'content-type': 'text/plain' }, raw: 'x' },
      media,
    )
    await r.send(
      'a GET body type is ignored',
      'GET',
      '/v2.2/callback_subscription',
      { headers: { ...key, 'content-type': 'text/plain' } },
      200,
    )
    await r.send(
      'an Idempotency-Key where none is honoured is ignored',
      'POST',
      '/v2.2/authorize',
      { headers: { ...key, 'idempotency-key': 'k'.repeat(300) } },
      200,
    )
    await r.send('HEAD without credentials', 'HEAD', '/v2.2/trip/abc', {}, 401)
    await r.send('HEAD with them', 'HEAD', '/v2.2/callback_subscription', { headers: key }, 200)
    await r.send(
      'an incoming request id is kept',
      'GET',
      '/v2.2/nowhere',
      { headers: { 'x-request-id': 'trace-abcdef123' } },
      404,
    )
    await r.send(
      'a malformed request id is replaced',
      'GET',
      '/v2.2/nowhere',
      { headers: { 'x-request-id': 'x y<script>' } },
      404,
    )
    await r.send(
      'JWKS needs no credentials',
      'GET',
      '/v2.2/.well-known/jwks.json',
      { headers: { authorization: 'Bearer garbage' } },
      200,
      { keys: true },
    )
  },

  async 'unauthorized, forbidden, seller_disabled, not_found across sellers, token_expired'(r) {
    await r.host.core.createSeller({ name: 'Other', origins: [], sandbox: true, apiKey: OTHER_SELLER_KEY })
    const key = basic(r.host.apiKey)
    const trip = await createTrip(r)
    const other = await createTrip(r, 'create a second trip')
    const get = (step: string, headers: Record<string, string>, expect: Expect | number, id = trip.trip_id) =>
      r.send(step, 'GET', `/v2.2/trip/${id}`, { headers }, expect)
    const unauthorized = { status: 401, code: 'unauthorized' }
    const forbidden = { status: 403, code: 'forbidden' }
    await get('no credentials', {}, unauthorized)
    await get('an unknown API key', basic('svc_test_unknownunknownunknown'), unauthorized)
    await get('the key as the password', { authorization: `Basic ${btoa(`:${r.host.apiKey}`)}` }, unauthorized)
    await get('the key with a password', { authorization: `Basic ${btoa(`${r.host.apiKey}:secret`)}` }, unauthorized)
    await get('the key without the colon', { authorization: `Basic ${btoa(r.host.apiKey)}` }, unauthorized)
    await get('Basic that is not base64', { authorization: 'Basic %%%not-base64%%%' }, unauthorized)
    await get('another scheme', { authorization: `Digest ${r.host.apiKey}` }, unauthorized)
    await get('a bare key', { authorization: r.host.apiKey }, unauthorized)
    await get('an empty Authorization', { authorization: '' }, unauthorized)
    await get('a Bearer that is not a JWT', bearer('not.a.jwt'), unauthorized)
    await get('an unsigned JWT', bearer(`${btoa('{"alg":"none"}')}.${btoa('{"sub":"x"}')}.`), unauthorized)
    await get('a refresh token as a Bearer', bearer(trip.refresh_token), unauthorized)
    await get("the other seller's key", basic(OTHER_SELLER_KEY), { status: 404, code: 'not_found' })
    await get('an access token for another trip', bearer(other.trip_access_token), { status: 404, code: 'not_found' })
    await r.send(
      "an access token on another trip's basket",
      'PATCH',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: bearer(other.trip_access_token), json: [] },
      { status: 404, code: 'not_found' },
    )
    await r.send(
      'a search view of bags only',
      'GET',
      `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}?product_types=bag`,
      { headers: key },
      200,
    )
    await r.send(
      'a search view of an unknown type',
      'GET',
      `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}?product_types=luggage`,
      { headers: key },
      { status: 400, code: 'validation_error' },
    )

    const creation = (await r.send('get a creation token', 'POST', '/v2.2/authorize', { headers: key }, 200)).body
      .trip_creation_token as string
    await get('a creation token reads no trip', bearer(creation), forbidden)
    await r.send(
      'a creation token cannot authorize',
      'POST',
      '/v2.2/authorize',
      { headers: bearer(creation) },
      forbidden,
    )
    await r.send(
      'an access token cannot authorize',
      'POST',
      '/v2.2/authorize',
      { headers: bearer(trip.trip_access_token) },
      forbidden,
    )
    await r.send(
      'an access token cannot create trips',
      'POST',
      '/v2.2/trip',
      { headers: bearer(trip.trip_access_token), json: tripPayload(r.clock.now()) },
      forbidden,
    )
    await r.send(
      'an access token cannot fulfill',
      'POST',
      `/v2.2/trip/${trip.trip_id}/fulfill`,
      { headers: bearer(trip.trip_access_token), json: {} },
      forbidden,
    )
    await r.send(
      'an access token cannot list subscriptions',
      'GET',
      '/v2.2/callback_subscription',
      { headers: bearer(trip.trip_access_token) },
      forbidden,
    )
    await r.send(
      'the other seller sees no subscription of ours',
      'DELETE',
      '/v2.2/callback_subscription/00000000-0000-4000-8000-0000000000ff',
      { headers: basic(OTHER_SELLER_KEY) },
      { status: 404, code: 'not_found' },
    )

    // A disabled seller (npm run seller -- disable): its key and its tokens are refused until it is enabled again.
    const sellerId = (await r.host.core.findSellerByApiKey(r.host.apiKey))!.seller_id
    await r.host.core.disableSeller(sellerId)
    const disabled = { status: 403, code: 'seller_disabled' }
    await get('the key of a disabled seller', key, disabled)
    await get('an access token of a disabled seller', bearer(trip.trip_access_token), disabled)
    await r.send(
      'a creation token of a disabled seller',
      'POST',
      '/v2.2/trip',
      { headers: bearer(creation), json: tripPayload(r.clock.now()) },
      disabled,
    )
    await get('another seller is not disabled', basic(OTHER_SELLER_KEY), { status: 404, code: 'not_found' })
    await r.host.core.enableSeller(sellerId)
    await get('enabled again, the key works', key, 200)
    await get('and the access token', bearer(trip.trip_access_token), 200)

    r.clock.advance(10 * MIN + 1000)
    await r.send(
      'an expired creation token',
      'POST',
      '/v2.2/trip',
      { headers: bearer(creation), json: tripPayload(r.clock.now()) },
      { status: 401, code: 'token_expired' },
    )
    r.clock.advance(20 * MIN)
    await get('an expired access token', bearer(trip.trip_access_token), { status: 401, code: 'token_expired' })
    await get('the API key still reads it', key, 200)
  },

  async 'refresh: rotation, reuse revokes the family, expiry'(r) {
    const trip = await createTrip(r)
    const refresh = (step: string, token: string, expect: Expect | number, headers: Record<string, string> = {}) =>
      r.send(step, 'POST', '/v2.2/refresh_token', { headers, json: { refresh_token: token } }, expect)
    const first = await refresh('refresh', trip.refresh_token, 200, { authorization: 'Bearer expired.or.garbage' })
    await r.send(
      'the new access token works',
      'GET',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: bearer(first.body.trip_access_token) },
      200,
    )
    const second = await refresh('refresh the new one', first.body.refresh_token, 200)
    await refresh('reuse the first (a leak)', trip.refresh_token, { status: 401, code: 'unauthorized' })
    await refresh('the newest is revoked too', second.body.refresh_token, { status: 401, code: 'unauthorized' })
    await refresh('an unknown refresh token', 'rt_unknown_unknown_unknown', { status: 401, code: 'unauthorized' })
    const later = await createTrip(r, 'create another trip')
    r.clock.advance(45 * MIN + 1000)
    await refresh('an expired refresh token', later.refresh_token, { status: 401, code: 'token_expired' })
  },

  async 'conflicts: trip_state_conflict, basket_not_valid, basket_rule_violation, product_unavailable, idempotency_conflict, idempotency_in_progress, supplier_not_configured'(
    r,
  ) {
    const key = basic(r.host.apiKey)
    const { trip, search, basket } = await tripWithBags(r, '117', true)
    const rule = { status: 409, code: 'basket_rule_violation' }
    const patch = (step: string, lines: unknown, expect: Expect | number) =>
      r.send(step, 'PATCH', `/v2.2/trip/${trip.trip_id}/basket`, { headers: key, json: lines }, expect)
    await patch('a seat for the lap infant', [line(seat(search, 'p1', 3), 'p3')], rule)
    await patch('a second seat on the flight', [line(seat(search, 'p2', 1), 'p2')], rule)
    await patch('a seat already taken', [line(seat(search, 'p2'), 'p1')], rule)
    const bag = checkedBag(search, 'p1')
    await patch(
      'more bags than the limit',
      [line(bag, 'p1', (bag.price_and_availability.p1?.quantity_limit ?? 1) + 1)],
      rule,
    )
    await r.send(
      'remove the ticket',
      'DELETE',
      `/v2.2/trip/${trip.trip_id}/basket/${itemOf(basket, 'ticket').basket_item_id}`,
      { headers: key },
      rule,
    )
    await r.send(
      'remove an unknown item',
      'DELETE',
      `/v2.2/trip/${trip.trip_id}/basket/00000000-0000-4000-8000-00000000ffff`,
      { headers: key },
      { status: 404, code: 'not_found' },
    )
    await r.send(
      'accept a valid item',
      'POST',
      `/v2.2/trip/${trip.trip_id}/basket/${itemOf(basket, 'bag', 'p1').basket_item_id}/accept`,
      { headers: key },
      rule,
    )
    await r.send(
      'accept an unknown item',
      'POST',
      `/v2.2/trip/${trip.trip_id}/basket/00000000-0000-4000-8000-00000000ffff/accept`,
      { headers: key },
      { status: 404, code: 'not_found' },
    )
    const unavailable = products(search, 'bag').find(
      (p) =>
        p.price_and_availability.p1 &&
        !p.price_and_availability.p1.available &&
        p.price_and_availability.p1.reason !== 'lap_infant',
    )
    if (!unavailable) throw new Error('the sandbox offers a bag p1 may not buy')
    await patch('a product not available to the passenger', [line(unavailable, 'p1')], {
      status: 409,
      code: 'product_unavailable',
    })

    await fulfill(r, trip, 'f'.repeat(64), 'a stale trip_state_hash', { status: 409, code: 'trip_state_conflict' })
    const checking = (await check(r, trip)).body as Basket
    await fulfill(r, trip, checking.trip_state_hash, 'fulfill while checking', {
      status: 409,
      code: 'basket_not_valid',
    })
    await r.drain()
    const valid = await readBasket(r, trip)
    // A key a process left mid-request (killed before it answered): the same request waits for its lease.
    const now = r.clock.now()
    await r.host.core.context.store.reserveIdempotency({
      scope: `${(await r.host.core.findSellerByApiKey(r.host.apiKey))!.seller_id}:fulfill`,
      key: 'charge-7',
      request_hash: sha256Hex(canonicalJson(fulfillRequest(trip as never, valid.trip_state_hash))),
      response: null,
      created_at: now.toISOString(),
      owner: 'a-process-that-died/1',
      lease_until: new Date(now.getTime() + 5000).toISOString(),
    })
    await fulfill(
      r,
      trip,
      valid.trip_state_hash,
      'a key whose holder died, within its lease',
      { status: 409, code: 'idempotency_in_progress' },
      { headers: { 'idempotency-key': 'charge-7' } },
    )
    r.clock.advance(5001)
    await fulfill(r, trip, valid.trip_state_hash, 'fulfill, once the lease lapsed', 202, {
      headers: { 'idempotency-key': 'charge-7' },
    })
    await fulfill(
      r,
      trip,
      valid.trip_state_hash,
      'the same key, another body',
      { status: 422, code: 'idempotency_conflict' },
      { headers: { 'idempotency-key': 'charge-7' }, over: { payment_details: { payment_type: 'card' } } },
    )
    await fulfill(r, trip, valid.trip_state_hash, 'fulfill again without the key', {
      status: 409,
      code: 'trip_state_conflict',
    })
    await r.send(
      'remove an ordered item',
      'DELETE',
      `/v2.2/trip/${trip.trip_id}/basket/${itemOf(basket, 'bag', 'p1').basket_item_id}`,
      { headers: key },
      { status: 409, code: 'item_ordered' },
    )
    await r.send(
      'PATCH passengers after fulfillment',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}`,
      { headers: key, json: { passengers: [{ passenger_id: 'p2', date_of_birth: '1990-01-01' }] } },
      { status: 409, code: 'trip_state_conflict' },
    )

    // A live seller with no real supplier: the sandbox airline never sells it simulated offers.
    const live = await legacyLiveSeller(r.host.core)
    await r.send(
      'a live seller without a supplier searches',
      'POST',
      '/v2.2/trip',
      { headers: basic(live.apiKey), json: tripPayload(r.clock.now()) },
      { status: 409, code: 'supplier_not_configured' },
    )
    const unsearched = (
      await r.send(
        'a live seller creates a trip without a search',
        'POST',
        '/v2.2/trip',
        { headers: basic(live.apiKey), json: { ...tripPayload(r.clock.now()), search: undefined } },
        201,
      )
    ).body as Trip
    await r.send(
      'and searches it',
      'POST',
      `/v2.2/trip/${unsearched.trip_id}/search`,
      { headers: basic(live.apiKey), json: { bag: { search: true } } },
      { status: 409, code: 'supplier_not_configured' },
    )

    const payload = tripPayload(r.clock.now())
    await r.send(
      'create with a key',
      'POST',
      '/v2.2/trip',
      { headers: { ...key, 'idempotency-key': 'order-42' }, json: payload },
      201,
    )
    await r.send(
      'the same key, another trip',
      'POST',
      '/v2.2/trip',
      { headers: { ...key, 'idempotency-key': 'order-42' }, json: { ...payload, currency: 'GBP' } },
      { status: 422, code: 'idempotency_conflict' },
    )
    await r.send(
      'a refused request frees its key',
      'POST',
      '/v2.2/trip',
      { headers: { ...key, 'idempotency-key': 'order-43' }, json: { ...payload, currency: 'euro' } },
      400,
    )
    await r.send(
      'the corrected retry',
      'POST',
      '/v2.2/trip',
      { headers: { ...key, 'idempotency-key': 'order-43' }, json: payload },
      201,
    )
  },

  async 'drop-in: passengers without ids, one loyalty_program, journey ids, local times; fulfill without passengers; card details'(
    r,
  ) {
    const key = basic(r.host.apiKey)
    const p = tripPayload(r.clock.now())
    const [out, back] = p.tickets[0]!.journeys
    out!.segments[0]!.departure_time = `${out!.segments[0]!.departure_time.slice(0, 10)}T18:25`
    out!.segments[0]!.arrival_time = `${out!.segments[0]!.departure_time.slice(0, 10)}T21:30`
    back!.segments[0]!.arrival_time = `${back!.segments[0]!.arrival_time.slice(0, 10)}T20:10:00`
    const trip = (
      await r.send(
        "create as another product's sample does",
        'POST',
        '/v2.2/trip',
        {
          headers: key,
          json: {
            ...p,
            tickets: [
              {
                ...p.tickets[0],
                journeys: [
                  { journey_id: 'J-OUT', ...out },
                  { journey_id: 'J-BACK', ...back },
                ],
              },
            ],
            passengers: [
              {
                passenger_type: 'adult',
                first_names: 'Ada',
                surname: 'Lovelace',
                date_of_birth: '1985-12-10',
                loyalty_program: { airline_id: 'BA', program_name: 'Executive Club', number: 'BA123456' },
              },
              { passenger_type: 'adult', first_names: 'Charles', surname: 'Babbage', date_of_birth: '1981-12-26' },
            ],
          },
        },
        201,
      )
    ).body as Trip
    const search = await readSearch(r, trip)
    const basket = (
      await r.send(
        'add a bag',
        'PATCH',
        `/v2.2/trip/${trip.trip_id}/basket`,
        { headers: key, json: [line(checkedBag(search, 'p1'), 'p1')] },
        200,
      )
    ).body as Basket
    const card = { payment_type: 'card', card_number: '4111111111111111', cvv: '737' }
    await fulfill(r, trip, basket.trip_state_hash, 'card details', 400, {
      over: { passengers: undefined, payment_details: card },
    })
    await fulfill(r, trip, basket.trip_state_hash, 'fulfill without passengers: the trip has them', 202, {
      over: { passengers: undefined },
    })
  },

  async 'validity: checking → valid, expiry → invalid → valid, PATCH passengers re-checks'(r) {
    const { trip, basket } = await tripWithBags(r)
    r.clock.advance(10 * MIN)
    await check(r, trip)
    await readBasket(r, trip, 'checking')
    await r.drain()
    await readBasket(r, trip, 'valid with a renewed window')
    r.clock.set(new Date(Date.parse(itemOf(basket, 'bag', 'p1').validity.valid_to) + 10 * MIN + 1000))
    await readBasket(r, trip, 'past valid_to: invalid')
    await check(r, trip, 'check the expired basket')
    await r.drain()
    await readBasket(r, trip, 'valid again')
    await r.send(
      "PATCH passengers: a loyalty tier (p1), the lap infant's date of birth (p3)",
      'PATCH',
      `/v2.2/trip/${trip.trip_id}`,
      {
        headers: basic(r.host.apiKey),
        json: {
          passengers: [
            { passenger_id: 'p3', date_of_birth: '2025-06-01' },
            {
              passenger_id: 'p1',
              loyalty_programs: [
                { airline_id: 'BA', program_name: 'Executive Club', number: '12345678', tier_name: 'Gold' },
              ],
            },
          ],
        },
      },
      200,
    )
    await r.drain()
    await readBasket(r, trip, 'after the re-check')
  },

  async 'live basket: the event stream opens with search and basket, resumes by Last-Event-ID, follows a new search'(
    r,
  ) {
    const { trip } = await tripWithBags(r)
    const events = `/v2.2/trip/${trip.trip_id}/events`
    const browser = bearer(trip.trip_access_token)
    const opened = await r.send(
      'open the event stream: retry, search, basket',
      'GET',
      events,
      { headers: browser },
      200,
    )
    const version = /^id: (\d+)$/m.exec(opened.body as string)![1]!
    await r.send(
      'resume at the current version: nothing to catch up',
      'GET',
      events,
      { headers: { ...browser, 'last-event-id': version }, events: 1 },
      200,
    )
    await r.send(
      'PATCH passengers: p2 is 14, a new search',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}`,
      {
        headers: basic(r.host.apiKey),
        json: { passengers: [{ passenger_id: 'p2', date_of_birth: '2012-03-04' }] },
      },
      200,
    )
    await r.send(
      'resume behind: the new search and the basket',
      'GET',
      events,
      { headers: { ...browser, 'last-event-id': version } },
      200,
    )
    await r.send('follow with the API key', 'GET', events, { headers: basic(r.host.apiKey) }, 200)
    await r.send('follow without credentials', 'GET', events, {}, { status: 401, code: 'unauthorized' })
  },

  async 'sandbox 9001: price_changed, accept, reject by DELETE'(r) {
    const { trip, search } = await tripWithBags(r, '9001')
    await check(r, trip)
    await r.drain()
    const changed = await readBasket(r, trip, 'price_changed')
    await r.send(
      'accept the new price',
      'POST',
      `/v2.2/trip/${trip.trip_id}/basket/${itemOf(changed, 'bag', 'p1').basket_item_id}/accept`,
      { headers: basic(r.host.apiKey) },
      200,
    )
    await r.send(
      'reject the other by removing it',
      'DELETE',
      `/v2.2/trip/${trip.trip_id}/basket/${itemOf(changed, 'bag', 'p2').basket_item_id}`,
      { headers: basic(r.host.apiKey) },
      200,
    )
    const lines = [line(checkedBag(search, 'p1'), 'p1'), line(checkedBag(search, 'p2'), 'p2')]
    await r.send(
      'PUT it back: price_changed at the new price again',
      'PUT',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: basic(r.host.apiKey), json: lines },
      200,
    )
    const again = (
      await r.send(
        'the same PUT again changes nothing',
        'PUT',
        `/v2.2/trip/${trip.trip_id}/basket`,
        { headers: basic(r.host.apiKey), json: lines },
        200,
      )
    ).body as Basket
    await r.send(
      'reject it again',
      'DELETE',
      `/v2.2/trip/${trip.trip_id}/basket/${itemOf(again, 'bag', 'p2').basket_item_id}`,
      { headers: basic(r.host.apiKey) },
      200,
    )
    await fulfill(r, trip, changed.trip_state_hash, 'fulfill with the hash before acceptance', {
      status: 409,
      code: 'trip_state_conflict',
    })
    r.clock.advance(MIN)
    await check(r, trip, 'check again')
    await r.drain()
    await readBasket(r, trip, 'still valid at the accepted price')
    r.clock.advance(31 * MIN)
    await check(r, trip, 'check once more')
    await r.drain()
    const b = await readBasket(r, trip, 'valid')
    await fulfill(r, trip, b.trip_state_hash, 'fulfill at the new price', 202)
    await r.drain()
    await r.send('orders', 'GET', `/v2.2/trip/${trip.trip_id}`, { headers: basic(r.host.apiKey) }, 200)
  },

  async 'item mark-ups: a line sets one, refusals change nothing, a 9001 check and acceptance keep it, PUT compares it'(
    r,
  ) {
    const key = basic(r.host.apiKey)
    const payload = tripPayload(r.clock.now())
    payload.tickets[0]!.journeys[0]!.segments[0]!.marketing_flight_number = '9001'
    payload.markups = { bag: { percentage: 10 } }
    const trip = (
      await r.send(
        'create a trip on flight 9001 with a bag rule',
        'POST',
        '/v2.2/trip',
        { headers: key, json: payload },
        201,
      )
    ).body as Trip
    const search = await readSearch(r, trip)
    const url = `/v2.2/trip/${trip.trip_id}/basket`
    const eur = (amount: number) => ({ amount, currency: 'EUR', decimal_places: 2 })
    const bag = { ...line(checkedBag(search, 'p1'), 'p1'), markup: eur(250) }
    await r.send(
      'a bag with a mark-up of its own',
      'PATCH',
      url,
      { headers: bearer(trip.trip_access_token), json: [bag] },
      200,
    )
    const bad = { status: 400, code: 'validation_error' }
    await r.send(
      'a mark-up in another currency',
      'PATCH',
      url,
      { headers: key, json: [{ ...bag, markup: { ...eur(250), currency: 'GBP' } }] },
      bad,
    )
    await r.send(
      'a mark-up with other decimal places',
      'PUT',
      url,
      { headers: key, json: [{ ...bag, markup: { ...eur(250), decimal_places: 3 } }] },
      bad,
    )
    await r.send('a negative mark-up', 'PATCH', url, { headers: key, json: [{ ...bag, markup: eur(-1) }] }, bad)
    await r.send(
      "one more bag without a mark-up keeps the item's",
      'PATCH',
      url,
      { headers: key, json: [line(checkedBag(search, 'p1'), 'p1')] },
      200,
    )
    await check(r, trip)
    await r.drain()
    const changed = await readBasket(r, trip, 'price_changed: the mark-up in the new price and the previous one')
    const two = { ...line(checkedBag(search, 'p1'), 'p1', 2), markup: eur(250) }
    await r.send('PUT the same basket: nothing changes', 'PUT', url, { headers: key, json: [two] }, 200)
    await r.send(
      'PUT another mark-up: the item is re-priced in place',
      'PUT',
      url,
      { headers: key, json: [{ ...two, markup: eur(400) }] },
      200,
    )
    await r.send(
      'accept the new price',
      'POST',
      `${url}/${itemOf(changed, 'bag', 'p1').basket_item_id}/accept`,
      { headers: key },
      200,
    )
  },

  async 'sandbox 9001: accepting after the new price expired'(r) {
    const { trip } = await tripWithBags(r, '9001')
    await check(r, trip)
    await r.drain()
    const changed = await readBasket(r, trip, 'price_changed')
    r.clock.set(new Date(Date.parse(itemOf(changed, 'bag', 'p1').validity.valid_to) + 1000))
    await readBasket(r, trip, 'the new price expired')
    await r.send(
      'accept an expired price',
      'POST',
      `/v2.2/trip/${trip.trip_id}/basket/${itemOf(changed, 'bag', 'p1').basket_item_id}/accept`,
      { headers: basic(r.host.apiKey) },
      { status: 409, code: 'basket_rule_violation' },
    )
  },

  async 'sandbox 9002: unavailable'(r) {
    const { trip, search } = await tripWithBags(r, '9002')
    await check(r, trip)
    await r.drain()
    const b = await readBasket(r, trip, 'unavailable')
    await fulfill(r, trip, b.trip_state_hash, 'fulfill an unavailable basket', {
      status: 409,
      code: 'basket_not_valid',
    })
    await check(r, trip, 'check again: unavailable items stay')
    await r.send(
      'remove an unavailable bag',
      'DELETE',
      `/v2.2/trip/${trip.trip_id}/basket/${itemOf(b, 'bag', 'p1').basket_item_id}`,
      { headers: basic(r.host.apiKey) },
      200,
    )
    await r.send(
      'add the unavailable bag back',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: basic(r.host.apiKey), json: [line(checkedBag(search, 'p1'), 'p1')] },
      { status: 409, code: 'product_unavailable' },
    )
  },

  async 'after-sale: quote, confirm, refunds; not_cancellable, quote_expired, two confirms, 9005 refused'(r) {
    const key = basic(r.host.apiKey)
    const book = async (flight: string) => {
      const { trip, basket } = await tripWithBags(r, flight, true)
      const fresh = await readBasket(r, trip, 'the basket to pay for')
      await fulfill(r, trip, fresh.trip_state_hash, 'fulfill', 202)
      await r.drain('the orders')
      return { trip, bag: itemOf(basket, 'bag', 'p1').basket_item_id, seat: itemOf(basket, 'seat').basket_item_id }
    }
    const b = await book('117')
    const toCancel = `/v2.2/trip/${b.trip.trip_id}/to_cancel`
    await r.send('no quote yet', 'GET', toCancel, { headers: key }, 200)
    await r.send(
      'confirm without a quote',
      'POST',
      `${toCancel}/confirm`,
      { headers: key },
      { status: 409, code: 'not_cancellable' },
    )
    await r.send(
      'quote an item of no trip',
      'POST',
      toCancel,
      { headers: key, json: { basket_item_ids: ['no-such-item'] } },
      { status: 404, code: 'not_found' },
    )
    await r.send(
      'quote the bag and the seat',
      'POST',
      toCancel,
      { headers: key, json: { basket_item_ids: [b.bag, b.seat] } },
      200,
    )
    r.clock.advance(15 * MIN)
    await r.send(
      'confirm after the quote expired',
      'POST',
      `${toCancel}/confirm`,
      { headers: key },
      { status: 409, code: 'quote_expired' },
    )
    await r.send('quote again', 'POST', toCancel, { headers: key, json: { basket_item_ids: [b.bag, b.seat] } }, 200)
    await r.send('read the quote', 'GET', toCancel, { headers: key }, 200)
    await r.send('confirm', 'POST', `${toCancel}/confirm`, { headers: { ...key, 'idempotency-key': 'cancel-1' } }, 202)
    await r.send(
      'the same confirm again (Idempotency-Key)',
      'POST',
      `${toCancel}/confirm`,
      { headers: { ...key, 'idempotency-key': 'cancel-1' } },
      202,
    )
    await r.send(
      'another confirm: the quote is used up',
      'POST',
      `${toCancel}/confirm`,
      { headers: key },
      { status: 409, code: 'not_cancellable' },
    )
    await r.send('orders cancelling', 'GET', `/v2.2/trip/${b.trip.trip_id}`, { headers: key }, 200)
    await r.drain('the cancellations')
    await r.send('orders cancelled with refunds', 'GET', `/v2.2/trip/${b.trip.trip_id}`, { headers: key }, 200)
    await r.send(
      'quote a cancelled item',
      'POST',
      toCancel,
      { headers: key, json: { basket_item_ids: [b.bag] } },
      { status: 409, code: 'not_cancellable' },
    )
    const refused = await book('9005')
    await r.send(
      '9005: quote',
      'POST',
      `/v2.2/trip/${refused.trip.trip_id}/to_cancel`,
      { headers: key, json: { basket_item_ids: [refused.bag] } },
      200,
    )
    await r.send('9005: confirm', 'POST', `/v2.2/trip/${refused.trip.trip_id}/to_cancel/confirm`, { headers: key }, 202)
    await r.drain('the airline refuses')
    await r.send(
      '9005: back to succeeded with the reason',
      'GET',
      `/v2.2/trip/${refused.trip.trip_id}`,
      { headers: key },
      200,
    )
    r.note('webhooks', r.host.deliveries().length)
  },

  async 'after booking: extras ordered by a later fulfill, ordered items read-only, delayed ticketing released and timed out'(
    r,
  ) {
    const key = basic(r.host.apiKey)
    const later = (
      trip: Trip,
      hash: string,
      step: string,
      expect: Expect | number,
      over: Record<string, unknown> = {},
    ) =>
      r.send(
        step,
        'POST',
        `/v2.2/trip/${trip.trip_id}/fulfill`,
        {
          headers: key,
          json: { trip_state_hash: hash, payment_details: { payment_type: 'service_settlement' }, ...over },
        },
        expect,
      )
    const { trip, search, basket } = await tripWithBags(r, '117')
    await fulfill(r, trip, (await readBasket(r, trip, 'the basket to pay for')).trip_state_hash, 'fulfill', 202)
    await r.drain('the orders')
    const bag = itemOf(basket, 'bag', 'p1').basket_item_id
    await r.send(
      'remove an ordered bag',
      'DELETE',
      `/v2.2/trip/${trip.trip_id}/basket/${bag}`,
      { headers: key },
      { status: 409, code: 'item_ordered' },
    )
    await r.send(
      'add a seat after booking',
      'PATCH',
      `/v2.2/trip/${trip.trip_id}/basket`,
      { headers: key, json: [line(seat(search, 'p1'), 'p1')] },
      200,
    )
    const added = await readBasket(r, trip, 'ordered items with their order, the seat without')
    await later(trip, added.trip_state_hash, 'a later fulfill orders the seat only', 202)
    await later(trip, added.trip_state_hash, 'the same fulfill again: stale', {
      status: 409,
      code: 'trip_state_conflict',
    })
    await r.drain("the seat's order")
    await r.send('three orders succeeded', 'GET', `/v2.2/trip/${trip.trip_id}`, { headers: key }, 200)

    const unissued = (t: Trip, numbers: boolean) =>
      (t.tickets as Array<{ ticket_id: string }>).map((tk, i) => ({
        ticket_id: tk.ticket_id,
        access_details: { record_locator: 'PNR123', ...(numbers ? { ticket_number: `125000000001${i}` } : {}) },
        status: 'booked',
      }))
    const held = await tripWithBags(r, '117')
    await fulfill(
      r,
      held.trip,
      (await readBasket(r, held.trip, 'the basket to pay for')).trip_state_hash,
      'fulfill before the tickets are issued',
      202,
      { over: { is_ticketed: false, tickets: unissued(held.trip, false) } },
    )
    await r.drain('nothing runs for orders awaiting ticketing')
    await r.send('orders awaiting_ticketing', 'GET', `/v2.2/trip/${held.trip.trip_id}`, { headers: key }, 200)
    const hash = (await readBasket(r, held.trip, 'the basket, orders awaiting')).trip_state_hash
    await later(held.trip, hash, 'issue without ticket numbers', { status: 400, code: 'validation_error' })
    await later(held.trip, hash, 'issue the tickets', 202, { tickets: unissued(held.trip, true) })
    await r.drain('the released orders')
    await r.send('released orders succeeded', 'GET', `/v2.2/trip/${held.trip.trip_id}`, { headers: key }, 200)

    const late = await tripWithBags(r, '117')
    await fulfill(
      r,
      late.trip,
      (await readBasket(r, late.trip, 'the basket to pay for')).trip_state_hash,
      'fulfill, tickets never issued',
      202,
      { over: { is_ticketed: false, tickets: unissued(late.trip, false) } },
    )
    r.clock.advance(72 * 60 * MIN + MIN)
    await r.drain('the ticketing deadline')
    await r.send(
      'orders failed with ticketing_timeout',
      'GET',
      `/v2.2/trip/${late.trip.trip_id}`,
      { headers: key },
      200,
    )
  },

  async 'orders feed: pages while orders move, filters, a cursor that carries them, refusals, another seller'(r) {
    const key = basic(r.host.apiKey)
    const orders = (step: string, query: string, expect: Expect | number = 200, headers = key) =>
      r.send(step, 'GET', `/v2.2/orders${query}`, { headers }, expect)
    const book = async (flight: string) => {
      const { trip } = await tripWithBags(r, flight, true)
      const fresh = await readBasket(r, trip, 'the basket to pay for')
      await fulfill(r, trip, fresh.trip_state_hash, 'fulfill', 202)
      return trip
    }
    await orders('no orders yet', '')
    await book('117')
    const first = (await orders('the first page: two of three orders, queued', '?limit=2')).body as {
      next_cursor: string
    }
    await r.drain('the worker books them')
    const second = (await orders('the next page: every order again, succeeded', `?limit=2&cursor=${first.next_cursor}`))
      .body as { next_cursor: string }
    const third = (await orders('and the last', `?limit=2&cursor=${second.next_cursor}`)).body as {
      next_cursor: string
    }
    await orders('caught up: nothing more', `?cursor=${third.next_cursor}`)
    r.clock.advance(MIN)
    const since = r.clock.now().toISOString()
    await book('9003')
    await r.drain('the airline refuses them')
    await orders('failed only', '?status=failed')
    const succeeded = (await orders('succeeded only, one a page', '?status=succeeded&limit=1')).body as {
      next_cursor: string
    }
    await orders('the cursor keeps the filter', `?limit=1&cursor=${succeeded.next_cursor}`)
    await orders('changed since', `?updated_since=${since}`)
    const bad = { status: 400, code: 'validation_error' }
    await orders('a cursor with another filter', `?status=failed&cursor=${succeeded.next_cursor}`, bad)
    await orders(
      'a cursor tampered with',
      `?cursor=${succeeded.next_cursor.slice(0, 5)}${succeeded.next_cursor[5] === 'A' ? 'B' : 'A'}${succeeded.next_cursor.slice(6)}`,
      bad,
    )
    await orders('limit 201', '?limit=201', bad)
    await orders('an unknown status', '?status=shipped', bad)
    await orders('a time that is not one', '?updated_since=2026-12-22T23:59:60Z', bad)
    await orders('an unknown parameter', '?page=2', bad)
    await r.host.core.createSeller({ name: 'Other', origins: [], sandbox: true, apiKey: OTHER_SELLER_KEY })
    await orders('another seller sees none of them', '', 200, basic(OTHER_SELLER_KEY))
    await orders('nor may it use our cursor', `?cursor=${succeeded.next_cursor}`, bad, basic(OTHER_SELLER_KEY))
  },

  async 'sandbox 9004: still checking, valid after 5 s'(r) {
    const { trip } = await tripWithBags(r, '9004')
    await check(r, trip)
    await r.drain('the check waits for the airline')
    await readBasket(r, trip, 'still checking')
    r.clock.advance(4_000)
    await r.drain()
    await readBasket(r, trip, 'still checking at 4 s')
    r.clock.advance(1_000)
    await r.drain('the answer is due at 5 s')
    await readBasket(r, trip, 'valid')
  },

  async 'sandbox 9003: fulfillment fails'(r) {
    const { trip } = await tripWithBags(r, '9003', true)
    const b = await readBasket(r, trip)
    await fulfill(r, trip, b.trip_state_hash, 'fulfill', 202)
    await r.send('orders queued', 'GET', `/v2.2/trip/${trip.trip_id}`, { headers: basic(r.host.apiKey) }, 200)
    await r.drain('the worker tries to book')
    await r.send('orders failed', 'GET', `/v2.2/trip/${trip.trip_id}`, { headers: basic(r.host.apiKey) }, 200)
  },

  async 'internal: an unexpected failure is a bare 500'(r) {
    const trip = await createTrip(r)
    const core = r.host.core
    // The pipeline calls the operations with the core's context: a service replaced there is the one it uses.
    const trips = core.context.trips
    const original = trips.load
    const log = console.error
    trips.load = async () => {
      throw new Error('connection to db-7.internal:5432 refused')
    }
    console.error = () => {} // the sandbox reports the cause on the console, as the server logs it
    try {
      await r.send(
        'a read that fails',
        'GET',
        `/v2.2/trip/${trip.trip_id}/basket`,
        { headers: basic(r.host.apiKey) },
        { status: 500, code: 'internal' },
      )
    } finally {
      trips.load = original
      console.error = log
    }
  },
}
