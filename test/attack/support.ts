/**
 * What the attack suites share (not a suite itself: test/run-node.ts runs `*.test.ts` only):
 * - `Send`, one request → one response, over the Fastify app (`app.inject`) or the MSW sandbox (`fetch`);
 * - `watchWrites`, which counts calls to the memory store's writing methods, so a suite can tell cheaply
 *   that a request wrote nothing, and take a full snapshot only when something was written;
 * - `problemViolations`, the RFC 9457 shape every refusal must have;
 * - `makeTarget`, the trip every attack aims at: a real trip with a checked bag and a seat in its basket,
 *   plus a second trip of the same seller, a trip of another seller, a creation token and a webhook
 *   subscription, so that every id an attacker could name exists.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import type { SetupServer } from 'msw/node'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { createSandbox } from '../../mock-server/sandbox.ts'
import { build, testClock, testIds, tripPayload } from '../helpers/build.ts'
import { fulfillRequest } from '../helpers/flows.ts'

export interface Req {
  method: string
  /** Path and query, as sent on the wire. */
  url: string
  headers: Record<string, string>
  body?: Uint8Array
}

export interface Res {
  status: number
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>
  /** The body as received (compressed when content-encoding says so). */
  raw: Buffer
}

/** Sends a request; `null` when the client itself refuses to send it (fetch: a header value that is no ByteString). */
export type Send = (req: Req) => Promise<Res | null>

export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  'isPrototypeOf',
  '__defineGetter__',
  'toJSON',
] as const

export const basicAuth = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`
export const bearerAuth = (token: string) => `Bearer ${token}`

/** The response body as text, decompressed when the server compressed it. */
export function bodyText(res: Res): string {
  const enc = res.headers['content-encoding']
  if (enc === 'br') return brotliDecompressSync(res.raw).toString('utf8')
  if (enc === 'gzip') return gunzipSync(res.raw).toString('utf8')
  return res.raw.toString('utf8')
}

export function json(res: Res): any {
  return JSON.parse(bodyText(res))
}

/**
 * What is wrong with a refusal (status ≥ 400) as the API promises it (docs/api.md "Authentication",
 * docs/decisions.md "Errors"): `application/problem+json` with type, title, status, detail, code and request_id, the
 * request_id being the X-Request-Id header. An empty list when nothing is. A HEAD answer has no body, so
 * only its content type is checked.
 */
export function problemViolations(res: Res, method: string): string[] {
  const out: string[] = []
  const rid = res.headers['x-request-id']
  if (!rid) out.push('no X-Request-Id header')
  if (!/^application\/problem\+json/.test(res.headers['content-type'] ?? ''))
    out.push(`content-type is ${res.headers['content-type']}`)
  if (method === 'HEAD') return out
  let p: any
  try {
    p = json(res)
  } catch {
    out.push(`body is not JSON: ${bodyText(res).slice(0, 200)}`)
    return out
  }
  if (!p || typeof p !== 'object' || Array.isArray(p)) return [...out, 'body is not an object']
  for (const k of ['type', 'title', 'detail', 'code', 'request_id'])
    if (typeof p[k] !== 'string') out.push(`body.${k} is ${JSON.stringify(p[k])}`)
  if (p.status !== res.status) out.push(`body.status ${p.status} ≠ ${res.status}`)
  if (p.request_id !== rid) out.push(`body.request_id ${p.request_id} ≠ X-Request-Id ${rid}`)
  return out
}

// ---------------------------------------------------------------- the store, watched

/** Methods of the memory store that only read. Every other method counts as a write (a new one too). */
const READS = /^(get|list|find|ping|snapshot|restore|migrate|close|constructor$)/

/**
 * Counts calls to every method of `store` that may write. A request during which the count did not move
 * wrote nothing; one during which it moved is compared snapshot to snapshot (a write may also leave the
 * store as it was: an Idempotency-Key reserved, then released when the request is refused).
 * Private helpers of the store are counted too, which only errs on the side of comparing.
 */
export function watchWrites(store: MemoryStore): { readonly count: number } {
  const counter = { count: 0 }
  const target = store as unknown as Record<string, (...args: unknown[]) => unknown>
  for (const name of Object.getOwnPropertyNames(MemoryStore.prototype)) {
    if (READS.test(name)) continue
    const original = target[name]
    if (typeof original !== 'function') continue
    target[name] = function (this: unknown, ...args: unknown[]) {
      counter.count++
      return original.apply(this, args)
    }
  }
  return counter
}

// ---------------------------------------------------------------- the target

export interface Target {
  apiKey: string
  creationToken: string
  trip: {
    trip_id: string
    access_token: string
    refresh_token: string
    search_id: string
    tickets: Array<{ ticket_id: string; basket_item_id: string }>
  }
  /** Another trip of the same seller, and a trip of another seller. */
  sibling: { trip_id: string; access_token: string; search_id: string }
  foreign: { trip_id: string; access_token: string; search_id: string; ticket_item_id: string; bag_product_id: string }
  items: { bag: string; seat: string; ticket: string }
  products: { bag: string; seat: string; otherSeat: string; bagP2: string }
  subscriptionId: string
  stateHash: string
  basketEtag: string
  searchEtag: string
  /** A trip fulfilled, its bag ordered (succeeded) and quoted for cancellation: what the after-sale calls name. */
  booked: { trip_id: string; bag: string }
}

function jsonReq(
  method: string,
  url: string,
  auth: string | undefined,
  body?: unknown,
  extra: Record<string, string> = {},
): Req {
  const headers: Record<string, string> = { ...extra }
  if (auth) headers.authorization = auth
  if (body !== undefined) headers['content-type'] = 'application/json'
  return {
    method,
    url,
    headers,
    ...(body !== undefined ? { body: new TextEncoder().encode(JSON.stringify(body)) } : {}),
  }
}

async function call(send: Send, req: Req, expect: number): Promise<Res> {
  const res = await send(req)
  if (!res || res.status !== expect)
    throw new Error(
      `${req.method} ${req.url}: expected ${expect}, got ${res?.status} ${res ? bodyText(res).slice(0, 300) : ''}`,
    )
  return res
}

/**
 * Builds the target over HTTP, as a seller would: the trip of docs/api.md's walk-through (two adults and a lap
 * infant, LHR ⇄ JFK, bags and seats searched), a checked bag for p1 and a seat for p2 in its basket.
 */
export async function makeTarget(
  send: Send,
  apiKey: string,
  otherApiKey: string,
  now: Date,
  drain: () => Promise<unknown>,
): Promise<Target> {
  const key = basicAuth(apiKey)
  const created = json(await call(send, jsonReq('POST', '/v2.2/trip', key, tripPayload(now)), 201))
  const search = json(
    await call(send, jsonReq('GET', `/v2.2/trip/${created.trip_id}/search/${created.search_id}`, key), 200),
  )
  const products = (type: string) => Object.values(search.results.products[type] ?? {}) as any[]
  const bag = products('bag').find((p) => p.product_details.checked === true && p.price_and_availability.p1?.available)
  const bagP2 =
    products('bag').find(
      (p) =>
        p.product_details.checked === true && p.price_and_availability.p2?.available && p.product_id !== bag.product_id,
    ) ?? bag
  const seats = products('seat').filter((p) => p.price_and_availability.p2?.available)
  const seatsOnFirst = seats.filter((p) => p.product_details.segment_id === seats[0].product_details.segment_id)
  const basket = json(
    await call(
      send,
      jsonReq('PATCH', `/v2.2/trip/${created.trip_id}/basket`, key, [
        { product_id: bag.product_id, passenger_id: 'p1', quantity: 1 },
        { product_id: seatsOnFirst[0].product_id, passenger_id: 'p2', quantity: 1 },
      ]),
      200,
    ),
  )
  const items = Object.values(basket.basket) as any[]
  const read = await call(send, jsonReq('GET', `/v2.2/trip/${created.trip_id}/basket`, key), 200)
  const searchRead = await call(
    send,
    jsonReq('GET', `/v2.2/trip/${created.trip_id}/search/${created.search_id}?product_types=bag`, key),
    200,
  )

  const siblingPayload = tripPayload(now)
  siblingPayload.search = { bag: { search: true } }
  const sibling = json(await call(send, jsonReq('POST', '/v2.2/trip', key, siblingPayload), 201))
  const foreign = json(await call(send, jsonReq('POST', '/v2.2/trip', basicAuth(otherApiKey), siblingPayload), 201))
  const foreignSearch = json(
    await call(
      send,
      jsonReq('GET', `/v2.2/trip/${foreign.trip_id}/search/${foreign.search_id}`, basicAuth(otherApiKey)),
      200,
    ),
  )
  const foreignBag = (Object.values(foreignSearch.results.products.bag ?? {}) as any[])[0]
  const creation = json(await call(send, jsonReq('POST', '/v2.2/authorize', key), 200))
  const sub = json(
    await call(
      send,
      jsonReq('POST', '/v2.2/callback_subscription', key, {
        delivery_method: 'http',
        target: 'https://hooks.shop.example/svc',
        event_name: 'order_status_changed',
      }),
      201,
    ),
  )

  const booked = json(await call(send, jsonReq('POST', '/v2.2/trip', key, siblingPayload), 201))
  const bookedSearch = json(
    await call(send, jsonReq('GET', `/v2.2/trip/${booked.trip_id}/search/${booked.search_id}`, key), 200),
  )
  const bookedProduct = (Object.values(bookedSearch.results.products.bag) as any[]).find(
    (p) => p.product_details.checked === true && p.price_and_availability.p1?.available,
  )
  const bookedBasket = json(
    await call(
      send,
      jsonReq('PATCH', `/v2.2/trip/${booked.trip_id}/basket`, key, [
        { product_id: bookedProduct.product_id, passenger_id: 'p1', quantity: 1 },
      ]),
      200,
    ),
  )
  const bookedBag = (Object.values(bookedBasket.basket) as any[]).find((i) => i.product_type === 'bag').basket_item_id
  await call(
    send,
    jsonReq('POST', `/v2.2/trip/${booked.trip_id}/fulfill`, key, fulfillRequest(booked, bookedBasket.trip_state_hash)),
    202,
  )
  await drain()
  await call(
    send,
    jsonReq('POST', `/v2.2/trip/${booked.trip_id}/to_cancel`, key, { basket_item_ids: [bookedBag] }),
    200,
  )

  return {
    apiKey,
    creationToken: creation.trip_creation_token,
    trip: {
      trip_id: created.trip_id,
      access_token: created.trip_access_token,
      refresh_token: created.refresh_token,
      search_id: created.search_id,
      tickets: created.tickets,
    },
    sibling: { trip_id: sibling.trip_id, access_token: sibling.trip_access_token, search_id: sibling.search_id },
    foreign: {
      trip_id: foreign.trip_id,
      access_token: foreign.trip_access_token,
      search_id: foreign.search_id,
      ticket_item_id: foreign.tickets[0].basket_item_id,
      bag_product_id: foreignBag.product_id,
    },
    items: {
      bag: items.find((i) => i.product_type === 'bag').basket_item_id,
      seat: items.find((i) => i.product_type === 'seat').basket_item_id,
      ticket: items.find((i) => i.product_type === 'ticket').basket_item_id,
    },
    products: {
      bag: bag.product_id,
      seat: seatsOnFirst[0].product_id,
      otherSeat: seatsOnFirst[1].product_id,
      bagP2: bagP2.product_id,
    },
    subscriptionId: sub.subscription_id,
    stateHash: json(read).trip_state_hash,
    basketEtag: read.headers.etag!,
    searchEtag: searchRead.headers.etag!,
    booked: { trip_id: booked.trip_id, bag: bookedBag },
  }
}

// ---------------------------------------------------------------- transports

/** The Fastify app through `app.inject`: no socket, so header values and methods reach the app as given. */
const EVENT_STREAM = /^text\/event-stream/

export function injectSend(app: { inject: (o: any) => Promise<any> }): Send {
  return async (req) => {
    const res = await app.inject({
      method: req.method,
      url: req.url,
      headers: req.headers,
      ...(req.body !== undefined ? { payload: Buffer.from(req.body) } : {}),
      payloadAsStream: true,
    })
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(res.headers as Record<string, unknown>))
      if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v)
    const stream = res.stream() as NodeJS.ReadableStream & { destroy(): void }
    // An event stream never ends: what matters of it here is its status and headers.
    if (EVENT_STREAM.test(headers['content-type'] ?? '')) {
      stream.destroy()
      return { status: res.statusCode, headers, raw: Buffer.alloc(0) }
    }
    const chunks: Buffer[] = []
    for await (const c of stream) chunks.push(Buffer.from(c))
    return { status: res.statusCode, headers, raw: Buffer.concat(chunks) }
  }
}

/**
 * The MSW sandbox through the global `fetch` (msw/node's setupServer intercepts it). What fetch will not
 * send (a header value with CR, LF, NUL or a character above U+00FF; TRACE; a body on GET) is `null`;
 * a request fetch accepted but that the sandbox failed to answer throws.
 */
export function fetchSend(origin: string): Send {
  return async (req) => {
    let request: Request
    try {
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body
      request = new Request(`${origin}${req.url}`, {
        method: req.method,
        headers: req.headers,
        ...(body !== undefined ? { body: body as Uint8Array<ArrayBuffer> } : {}),
      })
    } catch {
      return null
    }
    const hangUp = new AbortController()
    const res = await fetch(request, { signal: hangUp.signal })
    const headers: Record<string, string> = {}
    res.headers.forEach((v, k) => {
      headers[k] = v
    })
    // Not res.body.cancel(): msw/node keeps a copy of the body, and a cancel waits for both to end.
    if (EVENT_STREAM.test(headers['content-type'] ?? '')) {
      hangUp.abort()
      return { status: res.status, headers, raw: Buffer.alloc(0) }
    }
    return { status: res.status, headers, raw: Buffer.from(await res.arrayBuffer()) }
  }
}

// ---------------------------------------------------------------- the two hosts

/** One host of the API as an attack suite drives it, over its memory store. */
export interface HostUnderTest {
  name: 'server' | 'sandbox'
  send: Send
  store: MemoryStore
  apiKey: string
  otherApiKey: string
  now: Date
  /** Runs the due jobs (the fulfilled trip of the target needs its orders to have succeeded). */
  drain(): Promise<unknown>
  close(): Promise<void>
}

/**
 * The Fastify server (`app.inject`) and the MSW sandbox (msw/node's `setupServer`, listening, and `fetch`
 * to `origin`), each with a second seller, counting ids and the test clock.
 */
export function hostsUnderTest(msw: SetupServer, origin: string) {
  async function serverHost(): Promise<HostUnderTest> {
    const t = await build({ ids: 'counting' })
    const other = await t.otherSeller()
    return {
      name: 'server',
      send: injectSend(t.app),
      store: t.store as MemoryStore,
      apiKey: t.apiKey,
      otherApiKey: other.apiKey,
      now: t.clock.now(),
      drain: () => t.core.drainJobs(),
      close: () => t.close(),
    }
  }

  async function sandboxHost(): Promise<HostUnderTest> {
    const clock = testClock()
    const sandbox = await createSandbox({ baseUrl: origin, clock, ids: testIds('counting'), autoRunJobs: false })
    msw.resetHandlers(...sandbox.handlers)
    const other = await sandbox.core.createSeller({ name: 'Other', origins: ['https://other.example'], sandbox: true })
    const viaFetch = fetchSend(origin)
    const send: Send = async (req) => {
      // fetch resolves dot segments (`/v2.2/trip/../../x` is `/x`), and the sandbox answers nothing outside
      // /v2.2/ (it is no web server): such a request is not one for the API, so it is not sent.
      let path: string
      try {
        path = new URL(`${origin}${req.url}`).pathname
      } catch {
        return null
      }
      return path.startsWith('/v2.2/') ? viaFetch(req) : null
    }
    return {
      name: 'sandbox',
      send,
      store: sandbox.store,
      apiKey: sandbox.apiKey,
      otherApiKey: other.apiKey,
      now: clock.now(),
      drain: () => sandbox.runJobs(),
      close: async () => {
        sandbox.dispose()
        msw.resetHandlers()
      },
    }
  }

  return { serverHost, sandboxHost }
}
