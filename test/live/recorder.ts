/**
 * A proxy on loopback in front of Duffel for the live run (test/live/duffel.live.ts): the adapter and the
 * run's own calls go through it to DUFFEL_API_URL, so that it can
 * - record what Duffel answered (`--record DIR`): each answer as `DIR/<route>/<n>.json`, `{ route, method,
 *   path, status, body }`, with the path's ids and every personal field replaced (names, dates of birth,
 *   e-mail, phone, documents) and nothing of the token, ready to be compared with the fake's shapes
 *   (test/fakes/duffel/shapes.test.ts reads test/fakes/duffel/recordings/<route>/);
 * - change a service's price on its way back (`priceChange`): the one thing the supplier contract asks
 *   that Duffel's test mode does not do on cue. Only the answers it rewrites are the proxy's; the rest
 *   are Duffel's as they came.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Recorder {
  readonly url: string
  /** Answers recorded so far, by route. */
  readonly recorded: Record<string, number>
  /** From now on, `serviceId` (an offer's or an order's service, a seat's) reads as costing `amount`. */
  priceChange(serviceId: string, amount: string): void
  close(): Promise<void>
}

/** The route an answer is of: the names test/fakes/duffel/shapes.ts signs (offer, seat_maps, offer_request), and the others'. */
export function routeOf(method: string, path: string): string {
  if (method === 'GET' && /^\/air\/offers\/[^/]+$/.test(path)) return 'offer'
  if (method === 'GET' && path === '/air/seat_maps') return 'seat_maps'
  if (method === 'POST' && path === '/air/offer_requests') return 'offer_request'
  if (method === 'GET' && /^\/air\/orders\/[^/]+\/available_services$/.test(path)) return 'order_available_services'
  if (method === 'POST' && /^\/air\/orders\/[^/]+\/services$/.test(path)) return 'order_services'
  if (method === 'GET' && /^\/air\/orders\/[^/]+$/.test(path)) return 'order'
  if (method === 'GET' && path === '/air/orders') return 'orders'
  if (method === 'POST' && path === '/air/orders') return 'order_create'
  if (method === 'POST' && path === '/air/payments') return 'payment'
  return 'other'
}

/** Keys whose values are a traveller's, never kept in a recording (their JSON type is). */
const PERSONAL = new Set([
  'given_name',
  'family_name',
  'born_on',
  'email',
  'phone_number',
  'title',
  'gender',
  'user_id',
  'unique_identifier',
  'identity_documents',
  'loyalty_programme_accounts',
  'account_number',
  'infant_passenger_id',
  'client_key',
])

/** `value` with every personal field's value replaced by one of the same JSON type, and any token shape removed. */
export function redacted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redacted)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, PERSONAL.has(k) ? placeholder(v) : redacted(v)]),
    )
  }
  return typeof value === 'string' ? value.replace(/duffel_(test|live)_[\w-]+/g, '[token]') : value
}
const placeholder = (v: unknown): unknown =>
  v === null
    ? null
    : Array.isArray(v)
      ? []
      : typeof v === 'string'
        ? '[redacted]'
        : typeof v === 'number'
          ? 0
          : typeof v === 'object'
            ? {}
            : v

/** Rewrites every `total_amount` of a service named in `prices`, wherever it sits in an answer. */
function reprice(value: unknown, prices: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => reprice(v, prices))
  if (value === null || typeof value !== 'object') return value
  const o = value as Record<string, unknown>
  const out = Object.fromEntries(Object.entries(o).map(([k, v]) => [k, reprice(v, prices)]))
  const price = typeof o.id === 'string' ? prices.get(o.id) : undefined
  return price !== undefined && typeof o.total_amount === 'string' ? { ...out, total_amount: price } : out
}

export async function startRecorder(opts: { target: string; dir?: string }): Promise<Recorder> {
  const target = opts.target.replace(/\/+$/, '')
  const prices = new Map<string, string>()
  const recorded: Record<string, number> = {}
  let seq = 0
  const record = (method: string, path: string, status: number, body: unknown) => {
    if (!opts.dir) return
    const route = routeOf(method, path)
    const folder = join(opts.dir, route)
    mkdirSync(folder, { recursive: true })
    recorded[route] = (recorded[route] ?? 0) + 1
    const shown = path.replace(/\b(off|ord|pas|seg|sli|ser|aso|ase|orq|pay)_[A-Za-z0-9]+/g, '$1_…')
    writeFileSync(
      join(folder, `${String(++seq).padStart(4, '0')}.json`),
      `${JSON.stringify({ route, method, path: shown, status, body: redacted(body) }, null, 2)}\n`,
    )
  }
  const server = createServer((req, res) => {
    void forward(req, res)
  })
  async function forward(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const url = new URL(req.url ?? '/', 'http://proxy.invalid')
    const headers: Record<string, string> = {}
    for (const name of ['authorization', 'duffel-version', 'accept', 'content-type']) {
      const v = req.headers[name]
      if (typeof v === 'string') headers[name] = v
    }
    let upstream: Response
    try {
      upstream = await fetch(`${target}${url.pathname}${url.search}`, {
        method: req.method,
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(120_000),
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      })
    } catch {
      res.destroy()
      return
    }
    const text = await upstream.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      /* an error page: passed on as it came */
    }
    record(req.method ?? 'GET', url.pathname, upstream.status, body)
    const out = typeof body === 'string' ? text : JSON.stringify(prices.size ? reprice(body, prices) : body)
    const pass: Record<string, string> = {}
    for (const name of [
      'content-type',
      'retry-after',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'x-request-id',
    ]) {
      const v = upstream.headers.get(name)
      if (v !== null) pass[name] = v
    }
    res.writeHead(upstream.status, pass).end(out)
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    recorded,
    priceChange: (id, amount) => {
      prices.set(id, amount)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
