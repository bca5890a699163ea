/**
 * A fake Duffel offer (test/fakes/duffel) for the flights and passengers of a trip request or a trip: the
 * offer a seller's trip names with `duffel_offer_id`. Duffel's times are local at each airport; the trip's
 * instants are handed over as they are and the fake writes them so.
 */
import type { AddOfferInput, FakeDuffel, FakeOffer } from '../fakes/duffel/server.ts'

interface Flights {
  passengers: ReadonlyArray<{ passenger_type?: string; type?: string }>
  journeys: ReadonlyArray<{ segments: ReadonlyArray<{ departure_airport: string; arrival_airport: string; departure_time: string; arrival_time: string; marketing_airline: string; marketing_flight_number: string }> }>
}

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
