/**
 * Builds the real Fastify app over the memory store and the sandbox airline, with a clock the test
 * moves by hand, so token lifetimes and validity windows are tested without sleeping.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import assert from 'node:assert/strict'
import { buildApp, type BuildAppOptions } from '../../server/app.ts'
import { Metrics } from '../../server/metrics.ts'
import { createCore, type Core, type CoreConfig } from '../../core/core.ts'
import { MemoryStore, type MemorySnapshot } from '../../core/adapters/memory-store.ts'
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import type { Ids } from '../../core/ports/clock.ts'
import type { SellerRecord } from '../../core/ports/records.ts'
import type { Store } from '../../core/ports/store.ts'
import type { Supplier } from '../../core/ports/supplier.ts'
import type { WebhookSender } from '../../core/ports/webhook-sender.ts'
import type { TripCreateRequest } from '../../core/schemas/trip.ts'
import { defaultTripRequest } from '../../mock-server/fixtures.ts'

export const START = '2026-11-22T10:00:00.000Z'
export const SHOP_ORIGIN = 'https://shop.example'

export interface TestClock {
  now(): Date
  advance(ms: number): void
  set(iso: string | Date): void
}

export function testClock(start: string = START): TestClock {
  let t = Date.parse(start)
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms
    },
    set: (at) => {
      t = typeof at === 'string' ? Date.parse(at) : at.getTime()
    },
  }
}

/**
 * Counting ids make failures readable; random ids are what production uses. Counting secrets are padded
 * with `_`, which no base-36 counter contains: padded with `x`, secret 69 (`s1x`) was secret 1 (`s1`) again,
 * and a store refused the second refresh token as a duplicate (a 500 the fuzz suite ran into).
 */
export function testIds(mode: 'random' | 'counting' = 'random'): Ids {
  if (mode === 'random')
    return { uuid: () => randomUUID(), secret: (bytes) => randomBytes(bytes).toString('base64url') }
  let n = 0
  return {
    uuid: () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`,
    secret: (bytes) => `s${(++n).toString(36)}`.padEnd(Math.ceil((bytes * 4) / 3), '_'),
  }
}

export interface BuildOptions {
  ids?: 'random' | 'counting'
  config?: Partial<CoreConfig>
  rateLimit?: BuildAppOptions['rateLimit']
  rateLimitSyncMs?: BuildAppOptions['rateLimitSyncMs']
  /** Capture log lines (pino JSON) into `logs`. */
  captureLogs?: boolean
  store?: Store
  supplier?: Supplier
  /** Suppliers offered beside the sandbox airline (or `supplier`), e.g. Duffel over its fake. */
  suppliers?: Supplier[]
  /** Where webhooks go (default: the network, as in production). */
  webhooks?: WebhookSender
  /** GET /metrics asks for this bearer token (METRICS_TOKEN). */
  metricsToken?: string
}

export interface Built {
  app: FastifyInstance
  core: Core
  store: Store
  clock: TestClock
  /** What GET /metrics shows; the core's store counts its errors into it, as `npm start` wires it. */
  metrics: Metrics
  seller: SellerRecord
  apiKey: string
  /** Raw log lines, when `captureLogs` was set. */
  logs: string[]
  /** Everything the memory store holds, to prove a refused request changed nothing. */
  snapshot(): MemorySnapshot
  /** Another sandbox seller, for isolation tests. */
  otherSeller(): Promise<{ seller: SellerRecord; apiKey: string }>
  close(): Promise<void>
}

export async function build(opts: BuildOptions = {}): Promise<Built> {
  const metrics = new Metrics()
  const store = metrics.countStoreErrors(opts.store ?? new MemoryStore())
  const clock = testClock()
  const core = createCore({
    store,
    suppliers: [opts.supplier ?? createSandboxSupplier(), ...(opts.suppliers ?? [])],
    clock,
    ids: testIds(opts.ids),
    config: opts.config,
    ...(opts.webhooks ? { webhooks: opts.webhooks } : {}),
  })
  await core.ensureSigningKey()
  const { seller, apiKey } = await core.createSeller({ name: 'Shop', origins: [SHOP_ORIGIN], sandbox: true })

  const logs: string[] = []
  const stream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk))
      cb()
    },
  })
  const app = await buildApp({
    core,
    store,
    logger: opts.captureLogs ? { level: 'trace', stream } : false,
    rateLimit: opts.rateLimit ?? { max: 100_000, timeWindow: 60_000 },
    ...(opts.rateLimitSyncMs ? { rateLimitSyncMs: opts.rateLimitSyncMs } : {}),
    metrics,
    ...(opts.metricsToken ? { metricsToken: opts.metricsToken } : {}),
  })
  await app.ready()
  let others = 0
  return {
    app,
    core,
    store,
    clock,
    metrics,
    seller,
    apiKey,
    logs,
    snapshot: () => {
      if (!(store instanceof MemoryStore)) throw new Error('snapshot() needs the memory store')
      return store.snapshot()
    },
    otherSeller: () =>
      core.createSeller({ name: `Other ${++others}`, origins: ['https://other.example'], sandbox: true }),
    close: () => app.close(),
  }
}

/**
 * A live seller as one made before live sellers needed a real supplier is stored: on the sandbox airline,
 * which cannot serve it (`createSeller` refuses to make one now). Written to the store as it was, with a key.
 */
export async function legacyLiveSeller(
  core: Core,
  name = 'Live shop',
): Promise<{ seller: SellerRecord; apiKey: string }> {
  const { store, clock, ids } = core.context
  const seller: SellerRecord = {
    seller_id: ids.uuid(),
    name,
    origins: [],
    sandbox: false,
    supplier: { name: 'sandbox', credentials: null },
    created_at: clock.now().toISOString(),
  }
  await store.createSeller(seller)
  return { seller, apiKey: await core.addApiKey(seller.seller_id) }
}

export const basic = (apiKey: string) => `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`
export const bearer = (token: string) => `Bearer ${token}`

/** Two adults and a lap infant, LHR → JFK and back on BA, about 30 days after `now`: the sandbox's own default trip. */
export function tripPayload(now: Date, over: Partial<TripCreateRequest> = {}): TripCreateRequest {
  return { ...defaultTripRequest(now), ...over }
}

// ---------------------------------------------------------------- request and response helpers

export const body = <T = any>(res: LightMyRequestResponse): T => JSON.parse(res.body) as T

export interface CreatedTrip {
  trip_id: string
  trip_access_token: string
  refresh_token: string
  search_id: string | null
  trip_state_hash: string
  [k: string]: unknown
}

/**
 * `app.inject`, but an event stream (which never ends) is answered with its status and headers and an
 * empty body, and hung up on; any other response whole, as inject gives it.
 */
export async function injectUntilStreaming(app: FastifyInstance, opts: InjectOptions): Promise<LightMyRequestResponse> {
  const res = await app.inject({ ...opts, payloadAsStream: true })
  const stream = res.stream()
  const chunks: Buffer[] = []
  if (/^text\/event-stream/.test(String(res.headers['content-type']))) stream.destroy()
  else for await (const chunk of stream) chunks.push(Buffer.from(chunk))
  const body = Buffer.concat(chunks).toString('utf8')
  return Object.assign(Object.create(res) as LightMyRequestResponse, {
    body,
    payload: body,
    json: () => JSON.parse(body),
  })
}

/** Creates a trip with the API key and returns the parsed 201 body. */
export async function createTrip(
  t: Built,
  over: Partial<TripCreateRequest> = {},
  apiKey = t.apiKey,
): Promise<CreatedTrip> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2.2/trip',
    headers: { authorization: basic(apiKey) },
    payload: tripPayload(t.clock.now(), over),
  })
  assert.equal(res.statusCode, 201, res.body)
  return body<CreatedTrip>(res)
}

/** Asserts an RFC 9457 body with our code, the request id that the header carries, and no leaks. */
export function assertProblem(res: LightMyRequestResponse, status: number, code: string) {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode}: ${res.body}`)
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
  const p = body(res)
  assert.equal(p.code, code, res.body)
  assert.equal(p.status, status)
  assert.equal(typeof p.type, 'string')
  assert.equal(typeof p.title, 'string')
  assert.equal(typeof p.detail, 'string')
  assert.equal(typeof p.request_id, 'string')
  assert.equal(p.request_id, res.headers['x-request-id'])
  return p as {
    type: string
    title: string
    status: number
    detail: string
    code: string
    request_id: string
    errors?: Array<{ path: string; message: string }>
  }
}

// ---------------------------------------------------------------- field presence and type checks

export type FieldType =
  'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null' | `${'string' | 'object'}|null`

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v

/** Asserts every listed field is present with the listed type (`integer` is also a `number`; `a|b` is either). */
export function assertFields(obj: unknown, fields: Record<string, FieldType>, where = 'object') {
  assert.ok(obj && typeof obj === 'object' && !Array.isArray(obj), `${where} is not an object`)
  const o = obj as Record<string, unknown>
  for (const [name, type] of Object.entries(fields)) {
    assert.ok(Object.hasOwn(o, name), `${where}.${name} is missing`)
    const actual = typeOf(o[name])
    const ok = type.split('|').some((t) => t === actual || (t === 'number' && actual === 'integer'))
    assert.ok(ok, `${where}.${name} should be ${type}, is ${actual} (${JSON.stringify(o[name])})`)
  }
}
