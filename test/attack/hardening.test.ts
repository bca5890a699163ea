/**
 * The defects an attacker's tour found (issue "Hardening"), each as the request that used to get through:
 * a 500, a 200 for nothing, or bad data stored. Each must now be a clear problem+json that changes nothing.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { buildApp } from '../../server/app.ts'
import { sellerCheckout } from '../../examples/seller-checkout/backend.ts'
import {
  build,
  createTrip,
  basic,
  bearer,
  body,
  assertProblem,
  tripPayload,
  type Built,
  type CreatedTrip,
} from '../helpers/build.ts'
import { checkedBag, fulfillRequest, readSearch } from '../helpers/flows.ts'

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']

/** Asserts a refused request left the store exactly as it was. */
async function unchanged(
  t: Built,
  send: () => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>,
  status: number,
  code: string,
) {
  const before = t.snapshot()
  const res = await send()
  const p = assertProblem(res as never, status, code)
  assert.deepEqual(t.snapshot(), before, `${status} ${code} changed the store`)
  return p
}

describe('deeply nested and oversized free-form values', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
    trip = await createTrip(t)
  })
  after(() => t.close())

  // Built as text: JSON.stringify itself overflows on such values.
  const nested = (depth: number) => `${'{"k":'.repeat(depth)}1${'}'.repeat(depth)}`
  const json = { authorization: '', 'content-type': 'application/json' }

  test('metadata nested 3,000 and 10,000 deep: 400 on create and PATCH (was a stack overflow, 500)', async () => {
    for (const depth of [3_000, 10_000]) {
      const create = JSON.stringify(tripPayload(t.clock.now())).replace(
        '"metadata":{"offer_ref":"ofr-1"}',
        `"metadata":{"deep":${nested(depth)}}`,
      )
      assert.ok(create.includes('"deep"'))
      await unchanged(
        t,
        () =>
          t.app.inject({
            method: 'POST',
            url: '/v2.2/trip',
            headers: { ...json, authorization: basic(t.apiKey) },
            payload: create,
          }),
        400,
        'validation_error',
      )
      await unchanged(
        t,
        () =>
          t.app.inject({
            method: 'PATCH',
            url: `/v2.2/trip/${trip.trip_id}`,
            headers: { ...json, authorization: basic(t.apiKey) },
            payload: `{"passengers":[{"passenger_id":"p1","metadata":{"deep":${nested(depth)}}}]}`,
          }),
        400,
        'validation_error',
      )
    }
  })

  test('metadata is bounded where it is: the error names the field', async () => {
    const patch = (metadata: unknown) =>
      unchanged(
        t,
        () =>
          t.app.inject({
            method: 'PATCH',
            url: `/v2.2/trip/${trip.trip_id}`,
            headers: { authorization: basic(t.apiKey) },
            payload: { passengers: [{ passenger_id: 'p1', metadata }] },
          }),
        400,
        'validation_error',
      )
    const three = await patch({ a: { b: { c: 1 } } })
    assert.ok(
      three.errors?.some((e) => e.path.startsWith('/passengers/0/metadata/a')),
      JSON.stringify(three.errors),
    )
    await patch(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])))
    await patch({ long: 'x'.repeat(1025) })
    await patch({ ['k'.repeat(65)]: 1 })
    // What is allowed still is.
    const ok = await t.app.inject({
      method: 'PATCH',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: basic(t.apiKey) },
      payload: {
        passengers: [
          { passenger_id: 'p1', metadata: { crm: { id: 'C-1', tags: ['vip', 2, null] }, score: 4.5, ok: true } },
        ],
      },
    })
    assert.equal(ok.statusCode, 200, ok.body)
  })
})

describe('ids that name built-in object properties', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
    trip = await createTrip(t)
  })
  after(() => t.close())

  test('as basket_item_id in a path: DELETE and accept answer 404 and change nothing (DELETE answered 200)', async () => {
    for (const id of PROTOTYPE_NAMES) {
      await unchanged(
        t,
        () =>
          t.app.inject({
            method: 'DELETE',
            url: `/v2.2/trip/${trip.trip_id}/basket/${id}`,
            headers: { authorization: basic(t.apiKey) },
          }),
        404,
        'not_found',
      )
      await unchanged(
        t,
        () =>
          t.app.inject({
            method: 'POST',
            url: `/v2.2/trip/${trip.trip_id}/basket/${id}/accept`,
            headers: { authorization: basic(t.apiKey) },
          }),
        404,
        'not_found',
      )
    }
  })

  test('as product_id or passenger_id in PATCH and PUT basket bodies: 400, not 500', async () => {
    const bag = checkedBag(await readSearch(t, trip))
    for (const id of PROTOTYPE_NAMES) {
      for (const method of ['PATCH', 'PUT'] as const) {
        for (const line of [
          { product_id: id, passenger_id: 'p1', quantity: 1 },
          { product_id: bag.product_id, passenger_id: id, quantity: 1 },
        ]) {
          const res = await t.app.inject({
            method,
            url: `/v2.2/trip/${trip.trip_id}/basket`,
            headers: { authorization: basic(t.apiKey) },
            payload: [line],
          })
          assert.equal(res.statusCode, 400, `${method} ${JSON.stringify(line)}: ${res.body}`)
        }
      }
    }
  })

  test('as passenger ids of a trip, they are ordinary ids: offered, priced and bookable', async () => {
    const payload = tripPayload(t.clock.now(), {
      passengers: [
        { passenger_id: 'constructor', passenger_type: 'adult' },
        { passenger_id: 'toString', passenger_type: 'adult' },
      ],
    })
    const created = body<CreatedTrip>(
      await t.app.inject({ method: 'POST', url: '/v2.2/trip', headers: { authorization: basic(t.apiKey) }, payload }),
    )
    const search = await readSearch(t, created)
    const bag = checkedBag(search, 'constructor')
    assert.deepEqual(Object.keys(bag.price_and_availability).sort(), ['constructor', 'toString'])
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v2.2/trip/${created.trip_id}/basket`,
      headers: { authorization: basic(t.apiKey) },
      payload: [{ product_id: bag.product_id, passenger_id: 'toString', quantity: 1 }],
    })
    assert.equal(res.statusCode, 200, res.body)
  })

  test('the demo routes: /demo/<built-in name> is a 404 problem with its request id (was a 500)', async () => {
    const t2 = await build()
    const app = await buildApp({ core: t2.core, store: t2.store, logger: false })
    await app.register(sellerCheckout, { apiBaseUrl: () => undefined, apiKey: () => undefined })
    try {
      for (const name of PROTOTYPE_NAMES) {
        const p = assertProblem(await app.inject({ method: 'GET', url: `/demo/${name}` }), 404, 'not_found')
        assert.ok(p.request_id)
      }
      // The demo's own errors carry request_id too.
      const bad = await app.inject({ method: 'POST', url: '/demo/api/checkout', payload: { scenario: 'nope' } })
      assertProblem(bad, 400, 'validation_error')
    } finally {
      await app.close()
      await t2.close()
    }
  })
})

describe('impossible and future dates', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
    trip = await createTrip(t)
  })
  after(() => t.close())
  const IMPOSSIBLE = ['1982-13-45', '2023-02-30', '0000-00-00', '2021-04-31', '1990-1-1']

  test('POST trip refuses an impossible or future date of birth (a future one was accepted)', async () => {
    for (const date_of_birth of [...IMPOSSIBLE, '2999-01-01']) {
      const payload = tripPayload(t.clock.now())
      payload.passengers[1] = { ...payload.passengers[1]!, date_of_birth }
      const p = await unchanged(
        t,
        () => t.app.inject({ method: 'POST', url: '/v2.2/trip', headers: { authorization: basic(t.apiKey) }, payload }),
        400,
        'validation_error',
      )
      assert.ok(
        p.errors?.some((e) => e.path === '/passengers/1/date_of_birth'),
        `${date_of_birth}: ${JSON.stringify(p.errors)}`,
      )
    }
    const leap = tripPayload(t.clock.now())
    leap.passengers[1] = { ...leap.passengers[1]!, date_of_birth: '2024-02-29' }
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/v2.2/trip',
          headers: { authorization: basic(t.apiKey) },
          payload: leap,
        })
      ).statusCode,
      201,
    )
  })

  test('PATCH trip refuses the same dates with the same rule', async () => {
    for (const date_of_birth of [...IMPOSSIBLE, '2999-01-01']) {
      const p = await unchanged(
        t,
        () =>
          t.app.inject({
            method: 'PATCH',
            url: `/v2.2/trip/${trip.trip_id}`,
            headers: { authorization: basic(t.apiKey) },
            payload: { passengers: [{ passenger_id: 'p2', date_of_birth }] },
          }),
        400,
        'validation_error',
      )
      assert.ok(
        p.errors?.some((e) => e.path === '/passengers/0/date_of_birth'),
        JSON.stringify(p.errors),
      )
    }
  })

  test('fulfill refuses them too', async () => {
    const hash = body(
      await t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}/basket`,
        headers: { authorization: basic(t.apiKey) },
      }),
    ).trip_state_hash
    for (const date_of_birth of ['2023-02-30', '2999-01-01']) {
      const payload = fulfillRequest(trip, hash) as { passengers: Array<Record<string, unknown>> }
      payload.passengers[0] = { ...payload.passengers[0], date_of_birth }
      await unchanged(
        t,
        () =>
          t.app.inject({
            method: 'POST',
            url: `/v2.2/trip/${trip.trip_id}/fulfill`,
            headers: { authorization: basic(t.apiKey) },
            payload,
          }),
        400,
        'validation_error',
      )
    }
  })
})

describe('credentials', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
    trip = await createTrip(t)
  })
  after(() => t.close())

  test('Basic auth: the password must be empty and the colon present (both used to be accepted)', async () => {
    const get = (raw: string) =>
      t.app.inject({
        method: 'GET',
        url: `/v2.2/trip/${trip.trip_id}`,
        headers: { authorization: `Basic ${Buffer.from(raw).toString('base64')}` },
      })
    for (const raw of [`${t.apiKey}:secret`, t.apiKey, `${t.apiKey}::`, `${t.apiKey}: `])
      assertProblem(await get(raw), 401, 'unauthorized')
    assert.equal((await get(`${t.apiKey}:`)).statusCode, 200)
  })

  test('twenty concurrent refreshes with one token: one wins, and the whole family ends, the winner included', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.app.inject({ method: 'POST', url: '/v2.2/refresh_token', payload: { refresh_token: trip.refresh_token } }),
      ),
    )
    const won = answers.filter((r) => r.statusCode === 200)
    assert.equal(won.length, 1, answers.map((r) => r.statusCode).join(','))
    for (const r of answers.filter((x) => x.statusCode !== 200)) assertProblem(r, 401, 'unauthorized')
    const winner = body(won[0]!)
    assertProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v2.2/refresh_token',
        payload: { refresh_token: winner.refresh_token },
      }),
      401,
      'unauthorized',
    )
    for (const token of [trip.trip_access_token, winner.trip_access_token]) {
      assertProblem(
        await t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}/basket`,
          headers: { authorization: bearer(token) },
        }),
        401,
        'unauthorized',
      )
    }
  })
})

describe('request bodies', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
    trip = await createTrip(t)
  })
  after(() => t.close())

  test('invalid UTF-8 is refused with 400, not stored as U+FFFD', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"passengers":[{"passenger_id":"p1","first_names":"Jos'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}]}'),
    ])
    const p = await unchanged(
      t,
      () =>
        t.app.inject({
          method: 'PATCH',
          url: `/v2.2/trip/${trip.trip_id}`,
          headers: { authorization: basic(t.apiKey), 'content-type': 'application/json' },
          payload: bytes,
        }),
      400,
      'validation_error',
    )
    assert.match(p.detail, /UTF-8/)
    // Well-formed UTF-8 beyond ASCII is of course fine.
    const ok = await t.app.inject({
      method: 'PATCH',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: basic(t.apiKey) },
      payload: { passengers: [{ passenger_id: 'p1', first_names: 'José Ñandú 李' }] },
    })
    assert.equal(ok.statusCode, 200, ok.body)
  })

  test('a body nested deeper than any request needs is refused before anything walks it', async () => {
    const raw = `{"passengers":[{"passenger_id":"p1","metadata":{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}}]}`
    await unchanged(
      t,
      () =>
        t.app.inject({
          method: 'PATCH',
          url: `/v2.2/trip/${trip.trip_id}`,
          headers: { authorization: basic(t.apiKey), 'content-type': 'application/json' },
          payload: raw,
        }),
      400,
      'validation_error',
    )
  })

  test('an array or object wider than any request needs is refused before schema validation walks it', async () => {
    for (const raw of [
      `{"passengers":[${Array(100_000).fill('0').join(',')}]}`,
      `{"passengers":[{"passenger_id":"p1","metadata":{${Array.from({ length: 10_000 }, (_, i) => `"k${i}":1`).join(',')}}}]}`,
    ]) {
      const p = await unchanged(
        t,
        () =>
          t.app.inject({
            method: 'PATCH',
            url: `/v2.2/trip/${trip.trip_id}`,
            headers: { authorization: basic(t.apiKey), 'content-type': 'application/json' },
            payload: raw,
          }),
        400,
        'validation_error',
      )
      // The message of the width check, not of the schema's (which walked all 100,000 members to say so).
      assert.match(p.detail, /more than 1000 members/)
    }
  })
})

describe('what the HTTP parser refuses, on a real socket', () => {
  let t: Built
  let port: number
  before(async () => {
    t = await build()
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as import('node:net').AddressInfo).port
  })
  after(() => t.close())

  /** Sends raw bytes and reads the whole answer (the server closes the connection after a parser refusal). */
  async function raw(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const { connect } = await import('node:net')
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(request))
      let out = ''
      socket.on('data', (d) => {
        out += d.toString('utf8')
      })
      socket.on('end', () => resolve(out))
      socket.on('error', (e) => (out ? resolve(out) : reject(e)))
    })
    const [head = '', body = ''] = text.split('\r\n\r\n', 2)
    const [statusLine = '', ...lines] = head.split('\r\n')
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    )
    return { status: Number(statusLine.split(' ')[1]), headers, body }
  }

  for (const [name, request, status, code] of [
    [
      "headers of 100 KB: 431 problem+json (was Fastify's bare JSON, no request id)",
      `GET /v2.2/trip/x/basket HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${'a'.repeat(100_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    ['bytes that are not HTTP: 400 problem+json', 'NOT HTTP AT ALL\r\n\r\n', 400, 'validation_error'],
  ] as const) {
    test(name, async () => {
      const res = await raw(request)
      assert.equal(res.status, status)
      assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/)
      const problem = JSON.parse(res.body)
      assert.equal(problem.code, code)
      assert.equal(problem.status, status)
      assert.equal(problem.request_id, res.headers['x-request-id'])
      assert.match(problem.request_id, /^[0-9a-f-]{36}$/)
    })
  }
})
