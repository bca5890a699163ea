/**
 * The host's own behaviour, independent of trips: request ids, problem+json for every kind of failure,
 * probes, OpenAPI and docs, CORS and rate limiting.
 *
 * And its logs (server/app.ts's logger): a whole session at trace level leaves no secret in them.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { operations } from '../../core/api/operations.ts'
import {
  build,
  basic,
  bearer,
  body,
  assertProblem,
  createTrip,
  tripPayload,
  SHOP_ORIGIN,
  type Built,
} from '../helpers/build.ts'
import { readSearch, checkedBag, changeBasket } from '../helpers/flows.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('request ids', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('every response carries a fresh UUID in X-Request-Id', async () => {
    const a = await t.app.inject({ method: 'GET', url: '/healthz' })
    const b = await t.app.inject({ method: 'GET', url: '/healthz' })
    assert.match(String(a.headers['x-request-id']), UUID)
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id'])
  })

  test('a well-formed incoming X-Request-Id is kept, a malformed one replaced', async () => {
    const kept = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'lb-2f1c9a7e-0001' } })
    assert.equal(kept.headers['x-request-id'], 'lb-2f1c9a7e-0001')
    const replaced = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'x y<script>' } })
    assert.match(String(replaced.headers['x-request-id']), UUID)
  })

  test('problem bodies name the same request id as the header', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'trace-abcdef123' } })
    const p = assertProblem(res, 404, 'not_found')
    assert.equal(p.request_id, 'trace-abcdef123')
  })
})

describe('errors are problem+json', () => {
  let t: Built
  before(async () => {
    t = await build({ captureLogs: true })
  })
  after(() => t.close())
  const auth = () => ({ authorization: basic(t.apiKey) })

  test('unknown path → 404 not_found', async () => {
    assertProblem(await t.app.inject({ method: 'GET', url: '/v2.2/nothing-here' }), 404, 'not_found')
  })

  test('known path, wrong method → 405 method_not_allowed with Allow', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/v2.2/trip', headers: auth() })
    assertProblem(res, 405, 'method_not_allowed')
    assert.equal(res.headers.allow, 'POST')
    const res2 = await t.app.inject({ method: 'PUT', url: '/v2.2/trip/some-trip', headers: auth() })
    assertProblem(res2, 405, 'method_not_allowed')
    const allow = String(res2.headers.allow).split(', ')
    assert.ok(allow.includes('GET') && allow.includes('PATCH'), String(res2.headers.allow))
  })

  test('malformed JSON → 400 validation_error', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '{"language": ',
    })
    const p = assertProblem(res, 400, 'validation_error')
    assert.deepEqual(p.errors, [{ path: '/', message: 'is not valid JSON' }])
  })

  test('prototype poisoning in JSON is refused, not merged', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '{"__proto__": {"admin": true}}',
    })
    assertProblem(res, 400, 'validation_error')
  })

  test('body too large → 413 payload_too_large', async () => {
    const huge = { ...tripPayload(t.clock.now()), padding: 'x'.repeat(300 * 1024) }
    assertProblem(
      await t.app.inject({ method: 'POST', url: '/v2.2/trip', headers: auth(), payload: huge }),
      413,
      'payload_too_large',
    )
  })

  test('non-JSON body → 415 unsupported_media_type', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { ...auth(), 'content-type': 'text/plain' },
      payload: 'language=en-GB',
    })
    assertProblem(res, 415, 'unsupported_media_type')
  })

  test('schema violations → 400 with one entry per bad field, worded like the core validator', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: auth(),
      payload: { language: 'english', currency: 'eur', country: 'GB', tickets: 'none', passengers: [], surprise: 1 },
    })
    const p = assertProblem(res, 400, 'validation_error')
    const paths = (p.errors ?? []).map((e) => e.path)
    for (const path of ['/language', '/currency', '/tickets', '/passengers', '/surprise'])
      assert.ok(paths.includes(path), `${path} missing in ${paths}`)
    assert.match(p.detail, /^The request body is invalid: /)
    assert.ok(p.errors!.every((e) => typeof e.message === 'string' && e.message.length > 0))
  })

  test('an empty JSON body is "no body": the schema, not the parser, complains', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2.2/trip',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '',
    })
    const p = assertProblem(res, 400, 'validation_error')
    assert.equal(p.errors?.[0]?.path, '/')
    // ...and an operation without a body accepts it.
    const ok = await t.app.inject({
      method: 'POST',
      url: '/v2.2/authorize',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '',
    })
    assert.equal(ok.statusCode, 200, ok.body)
  })

  test('path parameters are validated too', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v2.2/trip/${'x'.repeat(129)}`, headers: auth() })
    const p = assertProblem(res, 400, 'validation_error')
    assert.equal(p.errors?.[0]?.path, '/trip_id')
    assert.match(p.detail, /request path is invalid/)
  })

  test('an unexpected failure → 500 internal with nothing of the cause, which goes to the log', async () => {
    const trip = await createTrip(t)
    // The pipeline calls the operations with the core's context: a service replaced there is the one it uses.
    const trips = t.core.context.trips
    const original = trips.load
    trips.load = async () => {
      throw new Error('connection to db-7.internal:5432 refused')
    }
    try {
      const res = await t.app.inject({ method: 'GET', url: `/v2.2/trip/${trip.trip_id}/basket`, headers: auth() })
      const p = assertProblem(res, 500, 'internal')
      assert.ok(!res.body.includes('db-7'), res.body)
      assert.equal(p.errors, undefined)
      const line = t.logs.find((l) => l.includes('db-7.internal'))
      assert.ok(line, 'the cause is logged')
      assert.equal(JSON.parse(line).request_id, p.request_id)
    } finally {
      trips.load = original
    }
  })
})

describe('probes', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('GET /healthz → 200 {status: ok}', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(body(res), { status: 'ok' })
  })

  test('GET /readyz → 200 when the store answers, 503 problem when it does not', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
    const ping = t.store.ping
    t.store.ping = async () => {
      throw new Error('ECONNREFUSED password=hunter2')
    }
    try {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' })
      assertProblem(res, 503, 'unavailable')
      assert.ok(!res.body.includes('hunter2'))
    } finally {
      t.store.ping = ping
    }
  })
})

describe('OpenAPI and docs', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  test('GET /v2.2/openapi.json is an OpenAPI 3.1 document listing every operation', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v2.2/openapi.json' })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^application\/json/)
    const doc = body(res)
    assert.equal(doc.openapi, '3.1.0')
    assert.equal(typeof doc.info.title, 'string')
    assert.equal(doc.components.securitySchemes.apiKey.scheme, 'basic')
    assert.equal(doc.components.securitySchemes.bearerToken.scheme, 'bearer')
    assert.equal(doc.components.securitySchemes.bearerToken.bearerFormat, 'JWT')
    assert.deepEqual(doc.components.schemas.Problem.required, ['type', 'title', 'status', 'detail', 'code'])
    for (const op of operations) {
      const path = op.path.replace(/:([a-z_]+)/g, '{$1}')
      const entry = doc.paths[path]?.[op.method.toLowerCase()]
      assert.ok(entry, `${op.method} ${path} is documented`)
      assert.equal(entry.operationId, op.id)
      for (const status of Object.keys(op.responses)) {
        assert.ok(
          entry.responses[status]?.content?.[op.eventStream ? 'text/event-stream' : 'application/json']?.schema,
          `${op.id} ${status} schema`,
        )
      }
      if (op.auth !== 'public') {
        assert.ok(entry.security.length > 0, `${op.id} security`)
        const unauthorized = entry.responses['401']?.content?.['application/problem+json']?.schema
        assert.equal(unauthorized?.$ref, '#/components/schemas/Problem', `${op.id} documents 401 as a problem`)
      }
      if (op.body) assert.ok(entry.requestBody?.content?.['application/json']?.schema, `${op.id} body`)
      for (const name of (op.path.match(/:([a-z_]+)/g) ?? []).map((x) => x.slice(1))) {
        assert.ok(
          entry.parameters?.some((p: { in: string; name: string }) => p.in === 'path' && p.name === name),
          `${op.id} param ${name}`,
        )
      }
    }
    // Operational routes stay out of the API description.
    assert.equal(doc.paths['/healthz'], undefined)
    assert.equal(doc.paths['/v2.2/openapi.json'], undefined)
    assert.ok(!res.body.includes('~kind'))
  })

  test('GET /docs answers HTML and serves Swagger UI from local assets', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/html/)
    const html = res.body
    assert.ok(!/https?:\/\/(cdn|unpkg)/.test(html), 'no CDN assets')
    // Served over plain http in development, so the CSP must not upgrade asset requests to https.
    assert.ok(!String(res.headers['content-security-policy'] ?? '').includes('upgrade-insecure-requests'))
    const bundle = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' })
    assert.equal(bundle.statusCode, 200)
    const json = await t.app.inject({ method: 'GET', url: '/docs/json' })
    assert.equal(body(json).openapi, '3.1.0')
  })
})

describe('CORS', () => {
  let t: Built
  before(async () => {
    t = await build()
  })
  after(() => t.close())

  const preflight = (origin: string) =>
    t.app.inject({
      method: 'OPTIONS',
      url: '/v2.2/trip/abc/basket',
      headers: {
        origin,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization,content-type',
      },
    })

  test('a preflight from a seller origin is allowed with our methods and headers', async () => {
    const res = await preflight(SHOP_ORIGIN)
    assert.equal(res.statusCode, 204)
    assert.equal(res.headers['access-control-allow-origin'], SHOP_ORIGIN)
    const methods = String(res.headers['access-control-allow-methods'])
    for (const m of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE']) assert.ok(methods.includes(m), methods)
    const headers = String(res.headers['access-control-allow-headers']).toLowerCase()
    for (const h of ['authorization', 'content-type', 'idempotency-key']) assert.ok(headers.includes(h), headers)
    assert.match(String(res.headers.vary), /Origin/)
  })

  test('a preflight from an unknown origin gets no CORS grant (403 problem)', async () => {
    const res = await preflight('https://evil.example')
    assert.equal(res.headers['access-control-allow-origin'], undefined)
    assertProblem(res, 403, 'forbidden')
  })

  test('an actual browser call exposes the request id and rate-limit headers', async () => {
    const trip = await createTrip(t)
    const res = await t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${trip.trip_id}/basket`,
      headers: { origin: SHOP_ORIGIN, authorization: bearer(trip.trip_access_token) },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.headers['access-control-allow-origin'], SHOP_ORIGIN)
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase()
    for (const h of ['x-request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after'])
      assert.ok(exposed.includes(h), exposed)
  })

  test("an origin of another seller passes CORS but not this seller's trip (403)", async () => {
    await t.otherSeller() // lists https://other.example
    const trip = await createTrip(t)
    const res = await t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${trip.trip_id}/basket`,
      headers: { origin: 'https://other.example', authorization: bearer(trip.trip_access_token) },
    })
    assertProblem(res, 403, 'forbidden')
  })

  test('server-to-server calls (no Origin) get no CORS headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v2.2/.well-known/jwks.json' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['access-control-allow-origin'], undefined)
  })
})

describe('rate limiting', () => {
  let t: Built
  before(async () => {
    t = await build({ rateLimit: { max: 3, timeWindow: 60_000 } })
  })
  after(() => t.close())

  test('per credential: the 4th call in the window is a 429 rate_limited problem with draft headers', async () => {
    const headers = { authorization: basic(t.apiKey) }
    const seen: string[] = []
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'POST', url: '/v2.2/authorize', headers })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.headers['ratelimit-limit'], '3')
      seen.push(String(res.headers['ratelimit-remaining']))
    }
    assert.deepEqual(seen, ['2', '1', '0'])
    const res = await t.app.inject({ method: 'POST', url: '/v2.2/authorize', headers })
    assertProblem(res, 429, 'rate_limited')
    assert.equal(res.headers['ratelimit-limit'], '3')
    assert.equal(res.headers['ratelimit-remaining'], '0')
    assert.ok(Number(res.headers['retry-after']) > 0)
    assert.ok(Number(res.headers['ratelimit-reset']) > 0)

    // Another credential from the same address has its own budget.
    const other = await t.otherSeller()
    const res2 = await t.app.inject({
      method: 'POST',
      url: '/v2.2/authorize',
      headers: { authorization: basic(other.apiKey) },
    })
    assert.equal(res2.statusCode, 200)
  })

  test('without credentials the address is the key, and unknown paths count too', async () => {
    for (let i = 0; i < 3; i++) {
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/v2.2/.well-known/jwks.json', remoteAddress: '10.0.0.9' }))
          .statusCode,
        200,
      )
    }
    assertProblem(
      await t.app.inject({ method: 'GET', url: '/v2.2/.well-known/jwks.json', remoteAddress: '10.0.0.9' }),
      429,
      'rate_limited',
    )
    assertProblem(
      await t.app.inject({ method: 'GET', url: '/v2.2/probe', remoteAddress: '10.0.0.9' }),
      429,
      'rate_limited',
    )
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/v2.2/.well-known/jwks.json', remoteAddress: '10.0.0.10' }))
        .statusCode,
      200,
    )
  })

  test('probes, docs and the OpenAPI document are never limited', async () => {
    for (let i = 0; i < 6; i++) {
      for (const url of ['/healthz', '/readyz', '/v2.2/openapi.json', '/docs']) {
        const res = await t.app.inject({ method: 'GET', url, remoteAddress: '10.0.0.11' })
        assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`)
        assert.equal(res.headers['ratelimit-limit'], undefined)
      }
    }
  })
})

// Logs are read by more people than API keys should be: a whole session at trace level must not leave the
// API key, an access, creation or refresh token, or the Basic header anywhere in the log stream.
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
