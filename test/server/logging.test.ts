/**
 * Logs are read by more people than API keys should be: a whole session at trace level must not leave the
 * API key, an access, creation or refresh token, or the Basic header anywhere in the log stream.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, bearer, body, createTrip } from '../helpers/build.ts'
import { readSearch, checkedBag, changeBasket } from '../helpers/flows.ts'

test('a full session logs request ids but never a secret', async () => {
  const t = await build({ captureLogs: true })
  try {
    const secrets: string[] = [t.apiKey, basic(t.apiKey).slice('Basic '.length)]
    const auth = await t.app.inject({
      method: 'POST',
      url: '/v2.2/authorize',
      headers: { authorization: basic(t.apiKey) },
    })
    secrets.push(body(auth).trip_creation_token)
    const trip = await createTrip(t)
    secrets.push(trip.trip_access_token, trip.refresh_token)
    const bag = checkedBag(await readSearch(t, trip, bearer(trip.trip_access_token)))
    await changeBasket(
      t,
      trip,
      'PATCH',
      [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }],
      bearer(trip.trip_access_token),
    )
    const refreshed = body(
      await t.app.inject({
        method: 'POST',
        url: '/v2.2/refresh_token',
        payload: { refresh_token: trip.refresh_token },
      }),
    )
    secrets.push(refreshed.trip_access_token, refreshed.refresh_token)
    // Failures log too: a reused refresh token, a wrong key, a tampered token, a validation error echoing input.
    await t.app.inject({ method: 'POST', url: '/v2.2/refresh_token', payload: { refresh_token: trip.refresh_token } })
    await t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: basic(`${t.apiKey}x`) },
    })
    await t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: bearer(`${trip.trip_access_token}x`) },
    })
    await t.app.inject({
      method: 'POST',
      url: '/v2.2/refresh_token',
      payload: { refresh_token: refreshed.refresh_token, extra: 1 },
    })

    assert.ok(t.logs.length > 10, 'the session was logged')
    const all = t.logs.join('')
    for (const secret of secrets) {
      assert.ok(secret.length >= 16)
      assert.ok(!all.includes(secret), `a secret leaked into the logs: ${secret.slice(0, 12)}…`)
      // Partial leaks (e.g. a token's signature) count too.
      const tail = secret.slice(-16)
      assert.ok(!all.includes(tail), `the end of a secret leaked into the logs: …${tail}`)
    }
    const lines = t.logs.map(
      (l) =>
        JSON.parse(l) as {
          request_id?: string
          msg?: string
          method?: string
          url?: string
          status?: number
          ms?: number
        },
    )
    const requestLines = lines.filter((l) => l.msg === 'request completed')
    // One line per request (9 above), with what a support engineer looks for.
    assert.equal(requestLines.length, 9)
    assert.equal(new Set(requestLines.map((l) => l.request_id)).size, 9)
    assert.ok(
      requestLines.every(
        (l) => l.method && l.url?.startsWith('/v2.2/') && typeof l.status === 'number' && typeof l.ms === 'number',
      ),
      JSON.stringify(requestLines[0]),
    )
    assert.deepEqual(
      requestLines.map((l) => l.status),
      [200, 201, 200, 200, 200, 401, 401, 401, 400],
    )
    assert.ok(
      requestLines.every((l) => typeof l.request_id === 'string' && l.request_id.length > 0),
      'every request line carries request_id',
    )
  } finally {
    await t.close()
  }
})

test('redaction is a second fence: secrets logged by mistake come out as [redacted]', async () => {
  const t = await build({ captureLogs: true })
  try {
    t.app.log.info(
      { req: { headers: { authorization: 'Basic c2VjcmV0LWtleS0xMjM0NTY3ODk6', cookie: 'sid=secret-cookie' } } },
      'oops',
    )
    t.app.log.info(
      { body: { refresh_token: 'rt_secret_refresh_value' }, trip_access_token: 'eyJ.secret.jwt' },
      'oops again',
    )
    const all = t.logs.join('')
    for (const s of ['c2VjcmV0LWtleS0xMjM0NTY3ODk6', 'secret-cookie', 'rt_secret_refresh_value', 'eyJ.secret.jwt']) {
      assert.ok(!all.includes(s), `${s} leaked`)
    }
    assert.ok(all.includes('[redacted]'))
  } finally {
    await t.close()
  }
})
