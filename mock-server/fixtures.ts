/**
 * The sandbox's default trip, which the test suites use too (test/helpers/build.ts `tripPayload`), so a
 * demo, a story and a seller's first test see the products the documentation describes.
 */
import type { TripCreateRequest } from '../core/schemas/trip.ts'

const DAY = 24 * 3600 * 1000
const at = (base: Date, days: number, hours: number) =>
  new Date(base.getTime() + days * DAY + hours * 3600 * 1000).toISOString().replace('.000Z', '+00:00')

/** Two adults and a lap infant, LHR → JFK and back on BA, 30 and 37 days after `now`; bags and seats searched. */
export function defaultTripRequest(now: Date): TripCreateRequest {
  const seg = (from: string, to: string, day: number, flight: string) => ({
    departure_airport: from,
    arrival_airport: to,
    departure_time: at(now, day, 0),
    arrival_time: at(now, day, 8),
    fare_basis: 'YLOWGB',
    fare_class: 'Y',
    fare_family: 'light',
    marketing_airline: 'BA',
    marketing_flight_number: flight,
  })
  return {
    language: 'en-GB',
    currency: 'EUR',
    country: 'GB',
    search: { bag: { search: true }, seat: { search: true } },
    tickets: [
      {
        status: 'offered',
        offered_price: { currency: 'EUR', decimal_places: 2, base_price: 80000, markup: 2500, total: 82500 },
        journeys: [{ segments: [seg('LHR', 'JFK', 30, '117')] }, { segments: [seg('JFK', 'LHR', 37, '112')] }],
        metadata: { offer_ref: 'ofr-1' },
      },
    ],
    passengers: [
      { passenger_id: 'p1', passenger_type: 'adult' },
      { passenger_id: 'p2', passenger_type: 'adult' },
      { passenger_id: 'p3', passenger_type: 'infant', on_lap_of: 'p1' },
    ],
  }
}

/**
 * `defaultTripRequest` with the caller's fields over it; `flight` becomes every segment's
 * marketing_flight_number (the sandbox scenarios: 9001 price change, 9002 unavailable, 9003 fulfillment
 * fails, 9004 slow check).
 */
export function sandboxTripRequest(
  now: Date,
  request: Partial<TripCreateRequest> & { flight?: string } = {},
): TripCreateRequest {
  const { flight, ...over } = request
  const trip: TripCreateRequest = { ...defaultTripRequest(now), ...over }
  if (flight === undefined) return trip
  return {
    ...trip,
    tickets: trip.tickets.map((t) => ({
      ...t,
      journeys: t.journeys.map((j) => ({
        ...j,
        segments: j.segments.map((s) => ({ ...s, marketing_flight_number: flight })),
      })),
    })),
  }
}
