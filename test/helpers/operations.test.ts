/** test/helpers/operations.ts: the tests' way into an operation is the hosts' pipeline, not a shortcut around it. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { coreFixture, tripRequest } from './core.ts'
import { answer, call, refusal } from './operations.ts'

test("call answers through the pipeline: credentials, the trip token's reach, the body's schema, Idempotency-Key, ETag", async () => {
  const f = await coreFixture()
  const body = tripRequest(f.clock.now())

  const anonymous = await refusal(call(f.core, 'createTrip', { body }))
  assert.deepEqual([anonymous.status, anonymous.code], [401, 'unauthorized'])
  const invalid = await refusal(call(f.core, 'createTrip', { as: f, body: { ...body, passengers: 'none' } }))
  assert.deepEqual([invalid.status, invalid.code], [400, 'validation_error'])

  const first = await call(f.core, 'createTrip', { as: f, body, headers: { 'idempotency-key': 'order-1' } })
  assert.equal(first.status, 201)
  const again = await call(f.core, 'createTrip', { as: f, body, headers: { 'idempotency-key': 'order-1' } })
  assert.equal(again.headers['Idempotent-Replayed'], 'true')
  assert.equal(again.body.trip_id, first.body.trip_id)

  // A trip access token reaches its own trip and nothing else, and no operation kept for the API key.
  const token = { token: first.body.trip_access_token! }
  assert.equal(
    (await answer(f.core, 'getTrip', { as: token, params: { trip_id: first.body.trip_id } })).trip_id,
    first.body.trip_id,
  )
  const other = await answer(f.core, 'createTrip', { as: f, body })
  assert.equal(
    (await refusal(call(f.core, 'getTrip', { as: token, params: { trip_id: other.trip_id } }))).code,
    'not_found',
  )
  assert.equal((await refusal(call(f.core, 'listSubscriptions', { as: token }))).code, 'forbidden')

  const basket = await call(f.core, 'getBasket', { as: token, params: { trip_id: first.body.trip_id } })
  const unchanged = await call(f.core, 'getBasket', {
    as: token,
    params: { trip_id: first.body.trip_id },
    headers: { 'if-none-match': basket.headers.etag! },
  })
  assert.deepEqual([unchanged.status, unchanged.body], [304, null])
})
