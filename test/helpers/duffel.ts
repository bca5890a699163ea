/**
 * Duffel for the tests: an offer of the fake Duffel (test/fakes/duffel) for a trip's flights, and a stub
 * that answers whatever a boundary test needs it to.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AddOfferInput, FakeDuffel, FakeOffer } from '../fakes/duffel/server.ts'

interface Flights {
  passengers: ReadonlyArray<{ passenger_type?: string; type?: string }>
  journeys: ReadonlyArray<{ segments: ReadonlyArray<{ departure_airport: string; arrival_airport: string; departure_time: string; arrival_time: string; marketing_airline: string; marketing_flight_number: string }> }>
}

/**
 * A fake Duffel offer for the flights and passengers of a trip request or a trip: the offer a seller's trip
 * names with `duffel_offer_id`. Duffel's times are local at each airport; the trip's instants are handed
 * over as they are and the fake writes them so.
 */
export function duffelOfferFor(fake: FakeDuffel, trip: Flights, opts: Omit<Partial<AddOfferInput>, 'passengers' | 'slices'> = {}): FakeOffer {
  return fake.addOffer({
    passengers: trip.passengers.map((p) => {
      const type = p.passenger_type ?? p.type
      return { type: type === 'infant' ? 'infant_without_seat' as const : type === 'child' ? 'child' as const : 'adult' as const }
    }),
    slices: trip.journeys.map((j) => ({
      segments: j.segments.map((s) => ({
        origin: s.departure_airport, destination: s.arrival_airport, departing_at: s.departure_time, arriving_at: s.arrival_time,
        marketing_carrier: s.marketing_airline, flight_number: s.marketing_flight_number,
      })),
    })),
    ...opts,
  })
}

/** One answer of a stub Duffel: a status, a JSON body (or text), headers. */
export interface StubAnswer { status?: number; body?: unknown; text?: string; headers?: Record<string, string> }
export interface StubDuffel { url: string; requests: Array<{ method: string; path: string; body: string }>; close(): Promise<void> }

/**
 * A Duffel that answers exactly what a test says, route by route (`'GET /air/offers/off_1'`, the query left
 * out), for the boundary tests: shapes the fake would never make, sizes and values no supplier should send.
 * A route not listed answers Duffel's 404.
 */
export async function stubDuffel(routes: Record<string, StubAnswer | ((path: string, body: string) => StubAnswer)>): Promise<StubDuffel> {
  const requests: StubDuffel['requests'] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://stub.invalid').pathname
      const body = Buffer.concat(chunks).toString('utf8')
      requests.push({ method: req.method ?? 'GET', path, body })
      const route = routes[`${req.method} ${path}`]
      const a = typeof route === 'function' ? route(path, body) : route ?? { status: 404, body: { errors: [{ type: 'invalid_request_error', code: 'not_found', title: 'Not found', message: 'Not found' }], meta: { status: 404, request_id: 'stub' } } }
      res.writeHead(a.status ?? 200, { 'content-type': a.text === undefined ? 'application/json' : 'text/html', ...a.headers })
      res.end(a.text ?? JSON.stringify(a.body ?? {}))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}
