/**
 * The stories' backend: each story gets its own offline sandbox (mock-server's handlers over the real
 * core, answered in the page by `sandbox.fetch`: no service worker, no network, no server), a trip made as
 * a seller's backend makes one, and a Session on it, as `Svc.init` hands the widgets.
 *
 * A story's state is reached through the API, as a traveller and a seller reach it: items added, a basket
 * check run (flights 9001 and 9002 for price changes and unavailability), the jobs held back to keep a
 * check `checking`, the sandbox's clock moved past the hold window for expiry. Only what an API cannot
 * show on demand (a network that hangs or fails, a search that offers nothing) is a fetch wrapper
 * (mock-server/conditions.ts).
 */
import { createSandbox, type SandboxInternals as Sandbox } from '../../mock-server/sandbox.ts'
import { failingFetch, hangingFetch, withoutProducts } from '../../mock-server/conditions.ts'
import { duffelLikeFetch } from '../../test/browser/fixtures/duffel-like-search.ts'
import { defaultTripRequest } from '../../mock-server/fixtures.ts'
import { ApiClient } from '../../client/api.ts'
import { Session } from '../../client/session.ts'
import type { PassengerRequest, TripCreateRequest } from '../../core/schemas/trip.ts'
import type { ProductTypeName } from '../../core/schemas/trip.ts'

export const STATES = [
  'offers',
  'loading',
  'valid',
  'checking',
  'price_changed',
  'unavailable',
  'expired',
  'error',
  'no_products',
  'purchased',
] as const
/**
 * `offers`: nothing chosen yet; `purchased`: after the sale, the choices bought by a fulfill and their orders
 * done (the widget opened again on a booked trip); the others as the issue and the validity states name them.
 */
export type StoryState = (typeof STATES)[number]

export const PARTIES = ['family', 'one', 'five', 'long_names'] as const
/** Who travels: two adults and a lap infant (the default trip), one adult, five with a lap infant, long names. */
export type Party = (typeof PARTIES)[number]

export interface StoryTrip {
  state?: StoryState
  party?: Party
  /** The trip's language (the widgets' locale unless a story sets `locale`). */
  language?: string
  /** Which products the state's items are: what the component on show sells. */
  products: ProductTypeName[]
  /** The marketing flight number of every segment, for its aircraft (BA 1: an A380); a state's own flight wins. */
  flight?: string
  /**
   * `duffel_like`: the offers as a real airline's come (test/browser/fixtures/duffel-like-search.ts: two
   * cabins on one deck, missing seats, the airline's notices, bags with no weight), over the sandbox trip.
   * Shown, not bought from: the sandbox does not know those products.
   */
  search?: 'duffel_like'
}

export const ALL_PRODUCTS: ProductTypeName[] = [
  'bag',
  'seat',
  'priority_boarding',
  'automatic_check_in',
  'fare_family_upsell',
]

const adult = (id: string, first: string, last: string): PassengerRequest => ({
  passenger_id: id,
  passenger_type: 'adult',
  first_names: first,
  surname: last,
})

const PASSENGERS: Record<Party, PassengerRequest[]> = {
  family: [
    adult('p1', 'Amelia', 'Clarke'),
    adult('p2', 'Tom', 'Clarke'),
    { passenger_id: 'p3', passenger_type: 'infant', on_lap_of: 'p1', first_names: 'Lily', surname: 'Clarke' },
  ],
  one: [adult('p1', 'Ada', 'Lovelace')],
  five: [
    adult('p1', 'Amelia', 'Clarke'),
    adult('p2', 'Tom', 'Clarke'),
    adult('p3', 'Grace', 'Hopper'),
    {
      passenger_id: 'p4',
      passenger_type: 'child',
      first_names: 'Oscar',
      surname: 'Clarke',
      date_of_birth: '2017-05-04',
    },
    { passenger_id: 'p5', passenger_type: 'infant', on_lap_of: 'p1', first_names: 'Lily', surname: 'Clarke' },
  ],
  long_names: [
    adult('p1', 'María Fernanda Alejandra de los Ángeles', 'Rodríguez-Montenegro y Villaseñor de la Cruz'),
    adult('p2', 'Hubert Blaine Wolfeschlegelsteinhausenbergerdorff', 'Wolfeschlegelsteinhausenbergerdorff-Ottendorf'),
  ],
}

/** The sandbox's default trip, searched for every product, with a fare the airline sells upgrades from. */
function tripRequest(o: StoryTrip): TripCreateRequest {
  const base = defaultTripRequest(new Date())
  const flight = o.state === 'price_changed' ? '9001' : o.state === 'unavailable' ? '9002' : o.flight
  return {
    ...base,
    language: o.language ?? base.language,
    search: Object.fromEntries(ALL_PRODUCTS.map((p) => [p, { search: true }])),
    passengers: PASSENGERS[o.party ?? 'family'],
    tickets: base.tickets.map((t) => ({
      ...t,
      journeys: t.journeys.map((j) => ({
        ...j,
        segments: j.segments.map((s) => ({
          ...s,
          fare_family: 'basic',
          ...(flight ? { marketing_flight_number: flight } : {}),
        })),
      })),
    })),
  }
}

let shown: { session: Session; sandbox: Sandbox; release?: () => void } | undefined

/** Stops the previous story's timers (the Session's polling, the sandbox's job runner). */
function disposeShown() {
  shown?.release?.()
  shown?.session.dispose()
  shown?.sandbox.dispose()
  shown = undefined
}

/** A Session in the state `o` asks for, on a fresh sandbox. */
export async function storySession(o: StoryTrip): Promise<Session> {
  disposeShown()
  const state = o.state ?? 'offers'
  let offset = 0
  const sandbox = await createSandbox({
    clock: { now: () => new Date(Date.now() + offset) },
    // A check stays `checking` while its job waits; every other story runs jobs as the server's worker does.
    autoRunJobs: state !== 'checking',
    // Flight 9001 raises bags only by default; a seat map or a card shows its own price changes.
    supplier: { priceChangeProducts: ALL_PRODUCTS },
  })
  const trip = await sandbox.createTrip(tripRequest(o))
  let fetch: typeof globalThis.fetch = sandbox.fetch
  let release: (() => void) | undefined
  if (state === 'loading') {
    const hanging = hangingFetch(sandbox.fetch)
    fetch = hanging
    release = hanging.release
  }
  if (state === 'error') fetch = failingFetch(sandbox.fetch)
  if (state === 'no_products') fetch = withoutProducts(ALL_PRODUCTS, sandbox.fetch)
  if (o.search === 'duffel_like') fetch = duffelLikeFetch(fetch)

  const client = new ApiClient({
    baseUrl: 'https://sandbox.invalid',
    tripId: trip.tripId,
    accessToken: trip.tripAccessToken,
    refreshToken: trip.refreshToken,
    fetch,
  })
  const session = new Session(client, { pollMs: 250 })
  shown = { session, sandbox, ...(release ? { release } : {}) }
  // Loading and error stories hand the element a session that has not loaded: the element starts it.
  if (state === 'loading' || state === 'error') return session

  await session.load()
  // The element asks for the offers it shows, as on a seller's page; a story with chosen items needs them first.
  if (state === 'offers' || state === 'no_products') return session
  await session.loadOffers(o.products)
  for (const line of choices(session, o.products)) await session.add(line.product_id, line.passenger_id)
  if (state === 'purchased') {
    // What the seller's backend does after the charge: fulfill with the API key; the worker books the orders.
    const basic = { authorization: `Basic ${btoa(`${sandbox.apiKey}:`)}`, 'content-type': 'application/json' }
    const url = `https://sandbox.invalid/v2.2/trip/${trip.tripId}`
    const { trip_state_hash } = (await (await sandbox.fetch(`${url}/basket`, { headers: basic })).json()) as {
      trip_state_hash: string
    }
    const fulfill = await sandbox.fetch(`${url}/fulfill`, {
      method: 'POST',
      headers: basic,
      body: JSON.stringify(fulfillRequest(session, trip_state_hash)),
    })
    if (!fulfill.ok) throw new Error(`the story's fulfill: ${fulfill.status} ${await fulfill.text()}`)
    await sandbox.runJobs()
    await session.refresh()
    return session
  }
  if (state === 'expired') {
    offset = sandbox.core.config.holdWindow * 1000 + 60_000
    await session.refresh()
    return session
  }
  await session.check()
  if (state !== 'checking') {
    await sandbox.runJobs()
    await session.refresh()
  }
  return session
}

/**
 * What a traveller might have chosen of `types`: for every passenger who may hold one, the first priced
 * offer of each type on the first journey or flight (a different seat for each).
 */
export function choices(
  session: Session,
  types: readonly ProductTypeName[],
): Array<{ product_id: string; passenger_id: string }> {
  const { trip, search } = session.state
  if (!trip || !search) return []
  const firstJourney = trip.journeys[0]
  const firstSegment = firstJourney?.segments[0]
  const onFirst = (d: Record<string, unknown>) =>
    d['journey_id'] === firstJourney?.journey_id || d['segment_id'] === firstSegment?.segment_id
  const out: Array<{ product_id: string; passenger_id: string }> = []
  for (const type of types) {
    const products = Object.values(search.results.products[type] ?? {})
    // Lap infants too: the offers say what they may hold (a bag, not a seat).
    for (const p of trip.passengers) {
      const product = products.find((x) => {
        const offer = x.price_and_availability[p.passenger_id]
        return (
          onFirst(x.product_details as Record<string, unknown>) &&
          offer?.available &&
          (offer.price?.total.amount ?? 0) > 0 &&
          !(type === 'seat' && out.some((o) => o.product_id === x.product_id))
        )
      })
      if (product) out.push({ product_id: product.product_id, passenger_id: p.passenger_id })
    }
  }
  return out
}

/** A fulfill request for the story's trip as it stands (`hash`, its basket's): every passenger and ticket, booked and issued. */
function fulfillRequest(session: Session, hash: string) {
  const trip = session.state.trip
  if (!trip) throw new Error("the story's trip is not loaded")
  return {
    trip_state_hash: hash,
    contact_details: {
      contact_details_type: 'passenger',
      passenger_id: 'p1',
      email: 'traveller@example.com',
      phone_number: '+44 20 7946 0000',
    },
    passengers: trip.passengers.map((p) => ({
      passenger_id: p.passenger_id,
      first_names: p.first_names ?? 'Sam',
      surname: p.surname ?? 'Traveller',
      date_of_birth: p.date_of_birth ?? (p.on_lap_of ? '2026-05-01' : p.type === 'child' ? '2017-05-04' : '1985-12-10'),
      passenger_type: p.type,
    })),
    tickets: trip.tickets.map((t, i) => ({
      ticket_id: t.ticket_id,
      status: 'booked',
      access_details: { record_locator: 'STORY1', ticket_number: `125000000000${i}` },
    })),
    payment_details: { payment_type: 'service_settlement' },
  }
}
