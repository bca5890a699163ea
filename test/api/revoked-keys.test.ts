/**
 * Revoking a key (docs/decisions.md "A supplier is an untrusted upstream", keys): the trip creation tokens it
 * minted stop with it, within SELLER_TTL_MS (10 s) on an instance that read the key before; trip access and
 * refresh tokens reach one trip each and keep working, unless the seller's trip tokens are ended
 * (`revoke-key --end-trip-tokens`).
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, bearer, body, assertProblem, tripPayload } from '../helpers/build.ts'

test("a creation token stops working within 10 s of its key's revocation; one of another key keeps working", async () => {
  const t = await build()
  try {
    const rotated = await t.core.rotateApiKey(t.seller.seller_id, 24)
    const mint = async (key: string) =>
      body(await t.app.inject({ method: 'POST', url: '/v2.2/authorize', headers: { authorization: basic(key) } }))
        .trip_creation_token as string
    const [old, fresh] = [await mint(t.apiKey), await mint(rotated.apiKey)]
    const create = (token: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v2.2/trip',
        headers: { authorization: bearer(token) },
        payload: tripPayload(t.clock.now()),
      })
    assert.equal((await create(old)).statusCode, 201, 'works before')
    const prefix = (await t.core.listSellers())
      .find((s) => s.seller.seller_id === t.seller.seller_id)!
      .keys.find((k) => k.expires_at !== null)!.prefix
    await t.core.revokeApiKeys(t.seller.seller_id, prefix)
    t.clock.advance(10_000)
    assertProblem(await create(old), 401, 'unauthorized')
    assert.equal((await create(fresh)).statusCode, 201, "the other key's token works")
  } finally {
    await t.close()
  }
})

test("trip tokens keep working after a revocation, and stop when the seller's trip tokens are ended", async () => {
  const t = await build()
  try {
    const trip = body(
      await t.app.inject({
        method: 'POST',
        url: '/v2.2/trip',
        headers: { authorization: basic(t.apiKey) },
        payload: tripPayload(t.clock.now()),
      }),
    )
    const read = () =>
      t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}/basket`,
        headers: { authorization: bearer(trip.trip_access_token) },
      })
    const refresh = () =>
      t.app.inject({ method: 'POST', url: '/v2.2/refresh_token', payload: { refresh_token: trip.refresh_token } })
    const { apiKey } = await t.core.rotateApiKey(t.seller.seller_id, 0)
    t.clock.advance(10_000)
    assert.equal((await read()).statusCode, 200, 'a trip token reaches its trip still')
    t.clock.advance(1_000)
    await t.core.revokeApiKeys(t.seller.seller_id, undefined, { endTripTokens: true })
    t.clock.advance(10_000)
    assertProblem(await read(), 401, 'unauthorized')
    assertProblem(await refresh(), 401, 'unauthorized')
    // A trip session made after it works.
    const later = body(
      await t.app.inject({
        method: 'POST',
        url: '/v2.2/trip',
        headers: { authorization: basic(apiKey) },
        payload: tripPayload(t.clock.now()),
      }),
    )
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${later.trip_id}/basket`,
          headers: { authorization: bearer(later.trip_access_token) },
        })
      ).statusCode,
      200,
    )
  } finally {
    await t.close()
  }
})
