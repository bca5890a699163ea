/**
 * The OpenAPI document (GET /v2.2/openapi.json) as the contract a seller generates a client from
 * (docs/api.md "The OpenAPI document"): named schemas referred to with `$ref`, written out once; per
 * operation its error responses with their codes; the webhooks, checked against real deliveries; the
 * servers; and example request bodies, each valid by its operation's schema and by the document's, and
 * taken by the service. The fuzz suite (test/attack/fuzz.test.ts) checks that no operation answers a
 * problem its responses leave out.
 *
 * Values are checked against the document's own schemas with TypeBox's JSON Schema engine, which resolves
 * the document's `#/components/...` references: what a client generator reads is what is checked.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { isDeepStrictEqual } from 'node:util'
import Schema from 'typebox/schema'
import { build, basic, body, assertProblem, createTrip, type Built } from '../../helpers/build.ts'
import {
  readSearch,
  checkedBag,
  seats,
  readBasket,
  addItems,
  fulfill,
  fulfillRequest,
  itemWhere,
} from '../../helpers/flows.ts'
import { operations } from '../../../core/api/operations.ts'
import { problemCodes } from '../../../core/api/dispatch.ts'
import { COMPONENTS } from '../../../core/api/components.ts'
import { REQUEST_EXAMPLES } from '../../../core/api/examples.ts'
import { WEBHOOK_HEADERS } from '../../../core/api/webhooks.ts'
import { ERROR_CODES, type ErrorCode } from '../../../core/shared/errors.ts'
import { EventName } from '../../../core/schemas/fulfillment.ts'
import { validate } from '../../../core/shared/validate.ts'
import type { WebhookSender } from '../../../core/ports/webhook-sender.ts'

type Doc = Record<string, any>

const documentPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')
const entryOf = (doc: Doc, op: { path: string; method: string }) =>
  doc.paths[documentPath(op.path)]?.[op.method.toLowerCase()]

/** The node a local reference (`#/components/schemas/Trip`) points to in the document. */
function resolve(doc: Doc, ref: string): unknown {
  assert.match(ref, /^#\//, `a local reference: ${ref}`)
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, key) => node?.[key], doc)
}

/** Why `value` is not valid by `schema` (a schema of the document, or a reference into it); empty when it is. */
function invalidBy(doc: Doc, schema: object, value: unknown): string[] {
  const root = { ...schema, components: doc.components }
  if (Schema.Check(root, value)) return []
  const [, errors] = Schema.Errors(root, value) as unknown as [
    boolean,
    Array<{ instancePath: string; message: string }>,
  ]
  return errors.map((e) => `${e.instancePath || '/'} ${e.message}`)
}

/** Every object in `node`, with its JSON pointer. */
function* objectsIn(node: unknown, at = ''): Generator<[string, Record<string, unknown>]> {
  if (Array.isArray(node)) for (const [i, v] of node.entries()) yield* objectsIn(v, `${at}/${i}`)
  else if (node && typeof node === 'object') {
    yield [at, node as Record<string, unknown>]
    for (const [k, v] of Object.entries(node))
      yield* objectsIn(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)
  }
}

/** Webhooks as a seller's endpoint receives them: headers and raw body. */
function recorder() {
  const got: Array<{ headers: Record<string, string>; raw: string }> = []
  const sender: WebhookSender = {
    async send(_target, raw, headers) {
      got.push({ headers, raw })
      return 200
    },
  }
  return { got, sender }
}

describe('the OpenAPI document', () => {
  let t: Built
  let doc: Doc
  const hooks = recorder()
  before(async () => {
    t = await build({ webhooks: hooks.sender })
    const res = await t.app.inject({ method: 'GET', url: '/v2.2/openapi.json' })
    assert.equal(res.statusCode, 200)
    doc = body(res)
  })
  after(() => t.close())

  test('named schemas are components, written out once, and every $ref resolves', () => {
    const schemas = doc.components.schemas
    for (const name of Object.keys(COMPONENTS)) assert.ok(schemas[name], `components.schemas.${name}`)
    for (const [at, node] of objectsIn(doc)) {
      if (typeof node.$ref === 'string') assert.ok(resolve(doc, node.$ref), `${at}: ${node.$ref} resolves`)
    }
    // A named schema appears nowhere else whole: a copy of it would be a second, unnamed type in a generated
    // client. Query parameters are the exception: each is written out with its own description (the orders
    // feed's `status` is an OrderStatus).
    const written = Object.entries<object>(schemas)
    for (const [at, node] of objectsIn(doc)) {
      if (/\/parameters\/\d+\/schema$/.test(at)) continue
      const copy = written.find(
        ([name, schema]) => at !== `/components/schemas/${name}` && isDeepStrictEqual(node, schema),
      )
      assert.equal(copy, undefined, `${at} repeats components.schemas.${copy?.[0]} instead of referring to it`)
    }
  })

  test('requests and responses refer to the named schemas, and so do the schemas themselves', () => {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
    const json = (response: Doc) => response.content['application/json'].schema
    const create = doc.paths['/v2.2/trip'].post
    assert.deepEqual(create.requestBody.content['application/json'].schema, ref('TripCreateRequest'))
    assert.deepEqual(json(create.responses['201']), ref('Trip'))
    assert.deepEqual(json(doc.paths['/v2.2/trip/{trip_id}/search/{search_id}'].get.responses['200']), ref('Search'))
    assert.deepEqual(json(doc.paths['/v2.2/trip/{trip_id}/basket'].get.responses['200']), ref('BasketView'))
    assert.deepEqual(
      doc.paths['/v2.2/trip/{trip_id}/fulfill'].post.requestBody.content['application/json'].schema,
      ref('FulfillRequest'),
    )
    const { Trip, Journey, BasketItem, TripCreateRequest, PassengerRequest, Basket, SearchResults } =
      doc.components.schemas
    assert.deepEqual(Trip.properties.journeys.items, ref('Journey'))
    assert.deepEqual(Trip.properties.passengers.items, ref('Passenger'))
    assert.deepEqual(Trip.properties.basket, ref('Basket'))
    assert.deepEqual(Basket.additionalProperties, ref('BasketItem'))
    assert.deepEqual(Journey.properties.segments.items, ref('Segment'))
    assert.deepEqual(BasketItem.properties.price, ref('Price'))
    assert.deepEqual(BasketItem.properties.markup, ref('ItemMarkup'), 'an optional named schema is still referred to')
    assert.deepEqual(TripCreateRequest.properties.passengers.items, ref('PassengerRequest'))
    assert.deepEqual(PassengerRequest.properties.passenger_type, ref('PassengerType'))
    assert.deepEqual(SearchResults.properties.products.additionalProperties.additionalProperties, ref('Product'))
  })

  test('each operation answers its problems as Problem, one response per status, naming each code it can return', () => {
    for (const op of operations) {
      const entry = entryOf(doc, op)
      assert.ok(entry, `${op.method} ${op.path}`)
      const byStatus = new Map<string, ErrorCode[]>()
      for (const code of problemCodes(op))
        byStatus.set(String(ERROR_CODES[code].status), [
          ...(byStatus.get(String(ERROR_CODES[code].status)) ?? []),
          code,
        ])
      const errorStatuses = Object.keys(entry.responses).filter((s) => Number(s) >= 400)
      assert.deepEqual(errorStatuses.sort(), [...byStatus.keys()].sort(), `${op.id}: error statuses`)
      for (const [status, codes] of byStatus) {
        const response = entry.responses[status]
        const media = response.content['application/problem+json']
        assert.deepEqual(media.schema, { $ref: '#/components/schemas/Problem' }, `${op.id} ${status}`)
        assert.deepEqual(Object.keys(media.examples), codes, `${op.id} ${status}: its codes`)
        for (const code of codes) {
          assert.ok(response.description.includes(`\`${code}\``), `${op.id} ${status} describes ${code}`)
          const problem = (resolve(doc, media.examples[code].$ref) as Doc).value
          assert.deepEqual([problem.code, problem.status], [code, Number(status)], `${op.id} ${status} ${code}`)
        }
      }
    }
    // What the service's own rules add, per operation: a stale trip_state_hash and a basket not all valid for fulfill, none for a read.
    const codesOf = (id: string) => problemCodes(operations.find((o) => o.id === id)!)
    assert.ok(
      ['trip_state_conflict', 'basket_not_valid', 'idempotency_in_progress', 'idempotency_conflict'].every((c) =>
        codesOf('fulfill').includes(c as ErrorCode),
      ),
    )
    assert.deepEqual(codesOf('getTrip'), [
      'validation_error',
      'unauthorized',
      'token_expired',
      'forbidden',
      'seller_disabled',
      'not_found',
      'rate_limited',
      'internal',
    ])
    assert.deepEqual(codesOf('jwks'), ['rate_limited', 'internal'])
  })

  test('the example problems are Problems, as the service makes them', () => {
    const examples = Object.entries<Doc>(doc.components.examples)
    assert.deepEqual(examples.map(([code]) => code).sort(), Object.keys(ERROR_CODES).sort())
    for (const [code, example] of examples) {
      assert.deepEqual(invalidBy(doc, { $ref: '#/components/schemas/Problem' }, example.value), [], code)
      assert.equal(example.value.code, code)
      assert.equal(example.value.type, `/docs/errors#${code}`)
    }
  })

  test('servers: the service itself, relative to wherever the document was fetched from', () => {
    assert.deepEqual(
      doc.servers.map((s: Doc) => s.url),
      ['/'],
    )
    // Every path resolves under it to the operation the service answers at that path.
    assert.equal(
      new URL(`.${Object.keys(doc.paths)[0]}`, new URL(doc.servers[0].url, 'https://svc.example/v2.2/openapi.json'))
        .pathname,
      Object.keys(doc.paths)[0],
    )
  })

  test("the example request bodies are valid by their operation's schema and by the document's", () => {
    for (const main of ['createTrip', 'addToBasket', 'replaceBasket', 'fulfill'])
      assert.ok(REQUEST_EXAMPLES[main], `${main} has examples`)
    for (const [id, examples] of Object.entries(REQUEST_EXAMPLES)) {
      const op = operations.find((o) => o.id === id)
      assert.ok(op?.body, `${id}: an operation with a request body`)
      const media = entryOf(doc, op).requestBody.content['application/json']
      assert.deepEqual(media.examples, examples, `${id}: the document shows them`)
      for (const [name, { value }] of Object.entries(examples)) {
        assert.doesNotThrow(() => validate(op.body!, value), `${id}.${name} by the schema the service validates with`)
        assert.deepEqual(invalidBy(doc, media.schema, value), [], `${id}.${name} by the document's schema`)
      }
    }
  })

  test('the service takes the example bodies: the trips are created, the rest refused only by the state of the trip', async () => {
    const auth = { authorization: basic(t.apiKey) }
    const send = (method: string, url: string, payload: unknown) =>
      t.app.inject({ method: method as 'POST', url, headers: auth, payload: payload as object })
    const trips: Doc[] = []
    for (const [name, { value }] of Object.entries(REQUEST_EXAMPLES.createTrip!)) {
      const res = await send('POST', '/v2.2/trip', value)
      assert.equal(res.statusCode, 201, `createTrip.${name}: ${res.body}`)
      trips.push(body(res))
    }
    const trip = trips[0]!
    for (const [name, { value }] of Object.entries(REQUEST_EXAMPLES.patchTrip!)) {
      const res = await send('PATCH', `/v2.2/trip/${trip.trip_id}`, value)
      assert.equal(res.statusCode, 200, `patchTrip.${name}: ${res.body}`)
    }
    for (const [name, { value }] of Object.entries(REQUEST_EXAMPLES.createSubscription!)) {
      assert.equal(
        (await send('POST', '/v2.2/callback_subscription', value)).statusCode,
        201,
        `createSubscription.${name}`,
      )
    }
    // Their hash and ids are of no trip here: refused for the trip's state, past every schema.
    for (const { value } of Object.values(REQUEST_EXAMPLES.fulfill!))
      assertProblem(await send('POST', `/v2.2/trip/${trip.trip_id}/fulfill`, value), 409, 'trip_state_conflict')
    for (const { value } of Object.values(REQUEST_EXAMPLES.quoteCancellation!))
      assertProblem(await send('POST', `/v2.2/trip/${trip.trip_id}/to_cancel`, value), 404, 'not_found')
  })

  test('webhooks: one per event a seller subscribes to, and the test event, with its body and the headers that sign it', () => {
    // test_ping: what an operator's test sends (the admin API), to a subscription of any event.
    const events = [...EventName.anyOf.map((e) => e.const), 'test_ping']
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...events].sort())
    for (const event of events) {
      const post = doc.webhooks[event].post
      assert.ok(resolve(doc, post.requestBody.content['application/json'].schema.$ref), event)
      const headers = post.parameters.filter((p: Doc) => p.in === 'header' && p.required).map((p: Doc) => p.name)
      assert.deepEqual(headers, Object.keys(WEBHOOK_HEADERS))
      assert.ok(headers.includes('Svc-Signature'), 'the signature header')
    }
  })

  test('webhooks: what the service delivers is what the document describes', async () => {
    for (const event_name of EventName.anyOf.map((e) => e.const)) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2.2/callback_subscription',
        headers: { authorization: basic(t.apiKey) },
        payload: { delivery_method: 'http', target: 'https://hooks.shop.example/svc', event_name },
      })
      assert.equal(res.statusCode, 201, res.body)
    }
    // A trip with a bag and a seat, fulfilled; then its bag cancelled: every event, each at least once.
    const trip = await createTrip(t)
    const search = await readSearch(t, trip)
    const basket = await addItems(t, trip, [
      { product_id: checkedBag(search).product_id, passenger_id: 'p1' },
      { product_id: seats(search)[0]!.product_id, passenger_id: 'p1' },
    ])
    assert.equal(
      (await fulfill(t, trip, fulfillRequest(trip, (await readBasket(t, trip)).trip_state_hash))).statusCode,
      202,
    )
    await t.core.drainJobs()
    const bag = itemWhere(basket, (i) => i.product_type === 'bag').basket_item_id
    const auth = { authorization: basic(t.apiKey) }
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/v2.2/trip/${trip.trip_id}/to_cancel`,
          headers: auth,
          payload: { basket_item_ids: [bag] },
        })
      ).statusCode,
      200,
    )
    assert.equal(
      (await t.app.inject({ method: 'POST', url: `/v2.2/trip/${trip.trip_id}/to_cancel/confirm`, headers: auth }))
        .statusCode,
      202,
    )
    await t.core.drainJobs()

    const delivered = hooks.got.filter((d) => JSON.parse(d.raw).trip_id === trip.trip_id)
    assert.deepEqual([...new Set(delivered.map((d) => JSON.parse(d.raw).event_name))].sort(), [
      'cancellation_completed',
      'fulfillment_completed',
      'order_status_changed',
    ])
    for (const d of delivered) {
      const event = JSON.parse(d.raw)
      const post = doc.webhooks[event.event_name]?.post
      assert.ok(post, `${event.event_name} is documented`)
      assert.deepEqual(
        invalidBy(doc, post.requestBody.content['application/json'].schema, event),
        [],
        `${event.event_name}: ${d.raw}`,
      )
      for (const p of post.parameters) {
        const value = d.headers[p.name.toLowerCase()]
        assert.equal(typeof value, 'string', `${event.event_name} carries ${p.name}`)
        assert.deepEqual(invalidBy(doc, p.schema, value), [], `${p.name}: ${value}`)
      }
      assert.equal(d.headers['svc-event-id'], event.event_id)
      assert.equal(d.headers['svc-event-name'], event.event_name)
    }
  })
})
