/**
 * A disabled seller (`npm run seller -- disable`, docs/decisions.md "A supplier is an untrusted upstream",
 * disabled sellers): every request made with one of its API keys, trip creation tokens or trip access tokens
 * answers 403 `seller_disabled` (problem+json), its open event streams end, and enabling it restores them
 * all. Another seller is untouched. The 10 s bound on another instance is in test/core/application/sellers.test.ts; the
 * CLI against a running server in test/server/cli/seller.test.ts.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { build, basic, bearer, body, assertProblem, createTrip, tripPayload } from '../helpers/build.ts'
import { openEvents } from '../helpers/sse.ts'
import { defaultConfig } from '../../core/core.ts'

test("a disabled seller's API key, trip creation token and trip access token get 403 seller_disabled; enabled again, they work", async () => {
  const t = await build()
  try {
    const trip = await createTrip(t)
    const creation = body(
      await t.app.inject({ method: 'POST', url: '/v2.2/authorize', headers: { authorization: basic(t.apiKey) } }),
    ).trip_creation_token as string
    const other = await t.otherSeller()
    const calls = {
      'an API key reading a trip': () =>
        t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}`, headers: { authorization: basic(t.apiKey) } }),
      'an API key asking for a creation token': () =>
        t.app.inject({ method: 'POST', url: '/v2.2/authorize', headers: { authorization: basic(t.apiKey) } }),
      'a trip creation token': () =>
        t.app.inject({
          method: 'POST',
          url: '/v2.2/trip',
          headers: { authorization: bearer(creation) },
          payload: tripPayload(t.clock.now()),
        }),
      'a trip access token': () =>
        t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}/basket`,
          headers: { authorization: bearer(trip.trip_access_token) },
        }),
      'a trip access token from a page of the seller': () =>
        t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}/basket`,
          headers: { authorization: bearer(trip.trip_access_token), origin: 'https://shop.example' },
        }),
    }
    const otherSeller = () =>
      t.app.inject({
        method: 'POST',
        url: '/v2.2/trip',
        headers: { authorization: basic(other.apiKey) },
        payload: tripPayload(t.clock.now()),
      })
    for (const [what, call] of Object.entries(calls)) assert.ok((await call()).statusCode < 300, `${what} works before`)

    const { changed } = await t.core.disableSeller(t.seller.seller_id)
    assert.equal(changed, true)
    for (const [what, call] of Object.entries(calls)) {
      const p = assertProblem(await call(), 403, 'seller_disabled')
      assert.equal(p.title, 'Seller disabled', what)
      assert.equal(p.type, '/docs/errors#seller_disabled')
      assert.equal(
        p.detail,
        'This seller is disabled by the operator of the service: its API keys and trip tokens are refused until it is enabled again.',
      )
    }
    assert.equal((await otherSeller()).statusCode, 201, 'another seller is untouched')
    // Credentials that are not valid anyway stay 401: a disabled seller's key says nothing of a wrong one.
    assertProblem(
      await t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}`,
        headers: { authorization: basic(`${t.apiKey}x`) },
      }),
      401,
      'unauthorized',
    )
    // A refresh token still rotates (it is not a request of the seller's), but the access token it gives is refused too.
    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/v2.2/refresh_token',
      payload: { refresh_token: trip.refresh_token },
    })
    assert.equal(refreshed.statusCode, 200, refreshed.body)
    const renewed = body(refreshed).trip_access_token as string
    assertProblem(
      await t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}/basket`,
        headers: { authorization: bearer(renewed) },
      }),
      403,
      'seller_disabled',
    )

    // Ten seconds on (the seller's cache lifetime), still refused: the store says it is disabled.
    t.clock.advance(10_000)
    assertProblem(await calls['an API key reading a trip'](), 403, 'seller_disabled')

    assert.equal((await t.core.enableSeller(t.seller.seller_id)).changed, true)
    for (const [what, call] of Object.entries(calls)) assert.ok((await call()).statusCode < 300, `${what} works again`)
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}/basket`,
          headers: { authorization: bearer(renewed) },
        })
      ).statusCode,
      200,
    )
  } finally {
    await t.close()
  }
})

test("a disabled seller's open event streams end at their next wake; the reconnect is refused with seller_disabled", async () => {
  const t = await build({ config: { live: { heartbeatMs: 200, retryMs: defaultConfig.live.retryMs, pollMs: 1_000 } } })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  const readers: Array<{ close(): void }> = []
  try {
    const trip = await createTrip(t)
    const url = `${base}/v2.2/trip/${trip.trip_id}/events`
    const byToken = await openEvents(url, { authorization: bearer(trip.trip_access_token) })
    const byKey = await openEvents(url, { authorization: basic(t.apiKey) })
    readers.push(byToken, byKey)
    for (const r of [byToken, byKey]) {
      assert.equal((await r.next()).retry, defaultConfig.live.retryMs)
      assert.equal((await r.next()).event, 'search')
      assert.equal((await r.next()).event, 'basket')
    }
    await t.core.disableSeller(t.seller.seller_id)
    assert.ok(await byToken.ended(2_000), "the access token's stream ended")
    assert.ok(await byKey.ended(2_000), "the API key's stream, which never expires, ended too")
    const again = await fetch(url, { headers: { authorization: basic(t.apiKey) } })
    assert.equal(again.status, 403)
    assert.equal(((await again.json()) as { code: string }).code, 'seller_disabled')
  } finally {
    for (const r of readers) r.close()
    await t.close()
  }
})
