/**
 * The read path a widget polls: ETags and 304s on the basket and the search, compressed JSON, a search
 * rendered once, verified tokens kept, and a revoked session refused at once on the instance that saw it.
 */
import { describe, test, before, beforeEach, after } from 'node:test'
import assert from 'node:assert/strict'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import {
  build,
  createTrip,
  basic,
  bearer,
  body,
  assertProblem,
  type Built,
  type CreatedTrip,
} from '../helpers/build.ts'
import { changeBasket, checkedBag, readSearch } from '../helpers/flows.ts'

describe('ETags and 304', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
  })
  beforeEach(async () => {
    trip = await createTrip(t)
  })
  after(() => t.close())
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { authorization: bearer(trip.trip_access_token), ...headers } })

  test('GET basket answers 304 while nothing changed, 200 with a new ETag after a change or an expiry', async () => {
    const url = `/v2.2/trip/${trip.trip_id}/basket`
    const first = await get(url)
    const etag = first.headers.etag as string
    assert.match(etag, /^W\/"\d+\.[0-9a-f]{16}"$/)
    assert.equal(first.headers['cache-control'], 'private, no-cache', 'a browser keeps it and revalidates')
    const again = await get(url, { 'if-none-match': etag })
    assert.equal(again.statusCode, 304)
    assert.equal(again.body, '')
    assert.equal(again.headers.etag, etag)
    assert.equal((await get(url, { 'if-none-match': `"other", ${etag}` })).statusCode, 304, 'a list of tags')
    assert.equal((await get(url, { 'if-none-match': '"other"' })).statusCode, 200)

    const bag = checkedBag(await readSearch(t, trip))
    await changeBasket(t, trip, 'PATCH', [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }])
    const changed = await get(url, { 'if-none-match': etag })
    assert.equal(changed.statusCode, 200)
    assert.notEqual(changed.headers.etag, etag)
    assert.equal(body(changed).trip_state_hash, body(await get(url)).trip_state_hash)

    // Past valid_to the items read `invalid` with no write: the body changes, so must the ETag. (The access
    // token has expired by then too: the backend reads with its key.)
    const before = changed.headers.etag as string
    t.clock.advance(31 * 60_000)
    const expired = await get(url, { 'if-none-match': before, authorization: basic(t.apiKey) })
    assert.equal(expired.statusCode, 200)
    assert.notEqual(expired.headers.etag, before)
    assert.ok(Object.values(body(expired).basket).every((i: any) => i.validity.status === 'invalid'))
  })

  test('a revalidated 304 still needs credentials that may read the trip', async () => {
    const url = `/v2.2/trip/${trip.trip_id}/basket`
    const etag = (await get(url)).headers.etag as string
    assertProblem(await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } }), 401, 'unauthorized')
    const other = await createTrip(t)
    assertProblem(
      await t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: bearer(other.trip_access_token), 'if-none-match': etag },
      }),
      404,
      'not_found',
    )
  })

  test('GET search: one ETag per view, 304 on it, and the body rendered once is the body every time', async () => {
    const url = `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`
    const all = await get(url)
    const bags = await get(`${url}?product_types=bag`)
    assert.notEqual(all.headers.etag, bags.headers.etag)
    assert.equal(
      (await get(`${url}?product_types=bag`, { 'if-none-match': bags.headers.etag as string })).statusCode,
      304,
    )
    assert.equal((await get(url)).body, all.body)
    assert.equal(
      (await get(`${url}?product_types=seat,bag`)).headers.etag,
      (await get(`${url}?product_types=bag,seat`)).headers.etag,
      'the order of the types does not matter',
    )
  })
})

describe('compressed JSON', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
    trip = await createTrip(t)
  })
  after(() => t.close())

  test('a search is sent brotli- or gzip-compressed as the client accepts, and decodes to the same JSON', async () => {
    const url = `/v2.2/trip/${trip.trip_id}/search/${trip.search_id}`
    const plain = await t.app.inject({ method: 'GET', url, headers: { authorization: basic(t.apiKey) } })
    assert.equal(plain.headers['content-encoding'], undefined)
    for (const [accept, encoding, decode] of [
      ['br, gzip', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const res = await t.app.inject({
          method: 'GET',
          url,
          headers: { authorization: basic(t.apiKey), 'accept-encoding': accept },
        })
        assert.equal(res.headers['content-encoding'], encoding)
        assert.match(String(res.headers.vary), /accept-encoding/i)
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
        assert.ok(
          res.rawPayload.length * 10 < plain.body.length,
          `${encoding}: ${res.rawPayload.length} of ${plain.body.length} bytes`,
        )
        assert.equal(decode(res.rawPayload).toString(), plain.body)
      }
    }
  })

  test('other JSON responses of 1 KiB or more are compressed too; small ones are not', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: basic(t.apiKey), 'accept-encoding': 'gzip' },
    })
    assert.equal(res.headers['content-encoding'], 'gzip')
    assert.equal(JSON.parse(gunzipSync(res.rawPayload).toString()).trip_id, trip.trip_id)
    const small = await t.app.inject({
      method: 'POST',
      url: '/v2.2/authorize',
      headers: { authorization: basic(t.apiKey), 'accept-encoding': 'gzip' },
    })
    assert.equal(small.headers['content-encoding'], undefined)
  })
})

describe('sessions', () => {
  test('a reused refresh token revokes the session: its access tokens, old and new, are refused at once', async () => {
    const t = await build()
    try {
      const trip = await createTrip(t)
      const read = (token: string) =>
        t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}/basket`,
          headers: { authorization: bearer(token) },
        })
      assert.equal((await read(trip.trip_access_token)).statusCode, 200) // now verified and kept
      const rotated = body(
        await t.app.inject({
          method: 'POST',
          url: '/v2.2/refresh_token',
          payload: { refresh_token: trip.refresh_token },
        }),
      )
      assert.equal((await read(rotated.trip_access_token)).statusCode, 200)
      // The first refresh token again: reuse.
      assertProblem(
        await t.app.inject({
          method: 'POST',
          url: '/v2.2/refresh_token',
          payload: { refresh_token: trip.refresh_token },
        }),
        401,
        'unauthorized',
      )
      for (const token of [trip.trip_access_token, rotated.trip_access_token])
        assertProblem(await read(token), 401, 'unauthorized')
      assertProblem(
        await t.app.inject({
          method: 'POST',
          url: '/v2.2/refresh_token',
          payload: { refresh_token: rotated.refresh_token },
        }),
        401,
        'unauthorized',
      )
      // Another session of the same trip (a backend's) is not touched, nor the API key.
      assert.equal(
        (
          await t.app.inject({
            method: 'GET',
            url: `/v2.2/trip/${trip.trip_id}/basket`,
            headers: { authorization: basic(t.apiKey) },
          })
        ).statusCode,
        200,
      )
    } finally {
      await t.close()
    }
  })
})
