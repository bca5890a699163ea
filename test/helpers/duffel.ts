/**
 * Duffel for the tests: an offer of the fake Duffel (test/fakes/duffel) for a trip's flights, and a stub
 * that answers whatever a boundary test needs it to.
 */
import { createServer, request as forwardRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AddOfferInput, FakeDuffel, FakeOffer } from '../fakes/duffel/server.ts'

interface Flights {
  passengers: ReadonlyArray<{ passenger_type?: string; type?: string }>
  journeys: ReadonlyArray<{
    segments: ReadonlyArray<{
      departure_airport: string
      arrival_airport: string
      departure_time: string
      arrival_time: string
      marketing_airline: string
      marketing_flight_number: string
    }>
  }>
}

/**
 * A fake Duffel offer for the flights and passengers of a trip request or a trip: the offer a seller's trip
 * names with `duffel_offer_id`. Duffel's times are local at each airport; the trip's instants are handed
 * over as they are and the fake writes them so.
 */
export function duffelOfferFor(
  fake: FakeDuffel,
  trip: Flights,
  opts: Omit<Partial<AddOfferInput>, 'passengers' | 'slices'> = {},
): FakeOffer {
  return fake.addOffer({
    passengers: trip.passengers.map((p) => {
      const type = p.passenger_type ?? p.type
      return {
        type:
          type === 'infant'
            ? ('infant_without_seat' as const)
            : type === 'child'
              ? ('child' as const)
              : ('adult' as const),
      }
    }),
    slices: trip.journeys.map((j) => ({
      segments: j.segments.map((s) => ({
        origin: s.departure_airport,
        destination: s.arrival_airport,
        departing_at: s.departure_time,
        arriving_at: s.arrival_time,
        marketing_carrier: s.marketing_airline,
        flight_number: s.marketing_flight_number,
      })),
    })),
    ...opts,
  })
}

/** One answer of a stub Duffel: a status, a JSON body (or text), headers. */
export interface StubAnswer {
  status?: number
  body?: unknown
  text?: string
  headers?: Record<string, string>
}
export interface StubDuffel {
  url: string
  requests: Array<{ method: string; path: string; body: string }>
  close(): Promise<void>
}

/**
 * A Duffel that answers exactly what a test says, route by route (`'GET /air/offers/off_1'`, the query left
 * out), for the boundary tests: shapes the fake would never make, sizes and values no supplier should send.
 * A route not listed answers Duffel's 404.
 */
export async function stubDuffel(
  routes: Record<string, StubAnswer | ((path: string, body: string) => StubAnswer)>,
): Promise<StubDuffel> {
  const requests: StubDuffel['requests'] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://stub.invalid').pathname
      const body = Buffer.concat(chunks).toString('utf8')
      requests.push({ method: req.method ?? 'GET', path, body })
      const route = routes[`${req.method} ${path}`]
      const a =
        typeof route === 'function'
          ? route(path, body)
          : (route ?? {
              status: 404,
              body: {
                errors: [
                  { type: 'invalid_request_error', code: 'not_found', title: 'Not found', message: 'Not found' },
                ],
                meta: { status: 404, request_id: 'stub' },
              },
            })
      res.writeHead(a.status ?? 200, {
        'content-type': a.text === undefined ? 'application/json' : 'text/html',
        ...a.headers,
      })
      res.end(a.text ?? JSON.stringify(a.body ?? {}))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A request a misbehaving Duffel received: what the service sent, whatever was answered. */
export interface SeenRequest {
  method: string
  path: string
  query: URLSearchParams
  token: string | null
}

/** A request held unanswered by a `hold` rule: `release()` sends it on to Duffel (its answer comes back as usual). */
export interface HeldRequest extends SeenRequest {
  release(): void
}

/**
 * What a misbehaving Duffel does with the requests a rule matches. Without `hold`, `answer`, `rewrite` or
 * `take`, they are forwarded as they are.
 */
export interface Misbehaviour {
  /** `'METHOD /path'` (`*`: one path segment; `'*'`: any request), the query left out. */
  match: string
  /** Only the requests of this token (one seller's). */
  token?: string
  /** How many matching requests the rule applies to (default: every one). */
  times?: number
  /** Held unanswered, not sent on, until released (`HeldRequest.release`, `releaseAll`). */
  hold?: boolean
  /** Answered this, never sent on to Duffel. */
  answer?: StubAnswer | ((req: SeenRequest, authorization: string) => StubAnswer)
  /** Sent on; a 2xx JSON answer of Duffel's becomes what this makes of it. */
  rewrite?: (body: any) => unknown
  /** The response is this function's to write (a stream, a connection dropped); never sent on. */
  take?: (req: IncomingMessage, res: ServerResponse) => void
}

export interface MisbehavingDuffel {
  /** What the service's DUFFEL_API_URL points at. */
  readonly url: string
  /** Every request received, in order (held and answered ones too). */
  readonly requests: SeenRequest[]
  /** The requests held now, oldest first. */
  readonly held: readonly HeldRequest[]
  misbehave(rule: Misbehaviour): void
  /** Sends every held request on; the rules stay. */
  releaseAll(): void
  /** No rule any more (held requests stay held until released). */
  reset(): void
  close(): Promise<void>
}

/**
 * Duffel misbehaving on purpose: a proxy on loopback in front of a Duffel (the fake), which forwards every
 * request unless a rule says otherwise: held unanswered until the test releases it, answered something else
 * (a redirect, an error echoing the token), Duffel's answer rewritten (a negative price, 100,000 seats), or
 * the response taken over (a 1 GB stream). A connection Duffel drops is dropped toward the service too.
 */
export async function misbehavingDuffel(target: string): Promise<MisbehavingDuffel> {
  const upstream = new URL(target)
  const rules: Array<Misbehaviour & { left: number; test: (method: string, path: string) => boolean }> = []
  const requests: SeenRequest[] = []
  const held: HeldRequest[] = []
  const open = new Set<ServerResponse>()

  const patternOf = (match: string) => {
    if (match === '*') return () => true
    const [method, path = '*'] = match.split(' ', 2) as [string, string]
    const re = new RegExp(
      `^${path
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    )
    return (m: string, p: string) => (method === '*' || method === m) && re.test(p)
  }

  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse, rewrite?: (body: any) => unknown) => {
    const out = forwardRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        answer.on('error', () => req.socket.destroy())
        const ok = (answer.statusCode ?? 0) >= 200 && (answer.statusCode ?? 0) < 300
        if (!rewrite || !ok) {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
          return
        }
        const chunks: Buffer[] = []
        answer.on('data', (c: Buffer) => chunks.push(c))
        answer.on('end', () => {
          const text = JSON.stringify(rewrite(JSON.parse(Buffer.concat(chunks).toString('utf8'))))
          const { 'content-length': _length, 'transfer-encoding': _encoding, ...headers } = answer.headers
          res.writeHead(answer.statusCode ?? 200, { ...headers, 'content-length': String(Buffer.byteLength(text)) })
          res.end(text)
        })
      },
    )
    // Duffel dropped the connection (a lost response): the service sees it dropped as well.
    out.on('error', () => req.socket.destroy())
    out.end(body)
  }

  const server = createServer((req, res) => {
    open.add(res)
    res.on('close', () => open.delete(res))
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const url = new URL(req.url ?? '/', 'http://duffel.invalid')
      const method = req.method ?? 'GET'
      const authorization = req.headers.authorization ?? ''
      const seen: SeenRequest = {
        method,
        path: url.pathname,
        query: url.searchParams,
        token: /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] ?? null,
      }
      requests.push(seen)
      const rule = rules.find(
        (r) => r.left > 0 && r.test(method, seen.path) && (r.token === undefined || r.token === seen.token),
      )
      if (rule) rule.left--
      if (rule?.take) return rule.take(req, res)
      if (rule?.answer) {
        const a = typeof rule.answer === 'function' ? rule.answer(seen, authorization) : rule.answer
        res.writeHead(a.status ?? 200, {
          'content-type': a.text === undefined ? 'application/json' : 'text/html',
          ...a.headers,
        })
        return void res.end(a.text ?? JSON.stringify(a.body ?? {}))
      }
      if (rule?.hold) {
        const h: HeldRequest = {
          ...seen,
          release: () => {
            const i = held.indexOf(h)
            if (i < 0) return
            held.splice(i, 1)
            forward(req, body, res)
          },
        }
        held.push(h)
        return
      }
      forward(req, body, res, rule?.rewrite)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    held,
    misbehave: (rule) => {
      rules.push({ ...rule, left: rule.times ?? Infinity, test: patternOf(rule.match) })
    },
    releaseAll: () => {
      for (const h of [...held]) h.release()
    },
    reset: () => {
      rules.length = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        held.length = 0
        for (const res of open) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
