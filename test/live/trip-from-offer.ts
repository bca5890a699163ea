/**
 * A trip create request made from a Duffel offer, as a seller's backend makes it (docs/suppliers.md, "A
 * trip from a Duffel offer"): the live run creates its trips with it, and the guide shows its output.
 *
 * | trip field                         | from the Duffel offer                                                  |
 * |------------------------------------|------------------------------------------------------------------------|
 * | segment `departure_time` / arrival | `departing_at` / `arriving_at`, as they are (local at the airport)      |
 * | `marketing_airline`, flight number | `marketing_carrier.iata_code`, `marketing_carrier_flight_number`        |
 * | `operating_airline`, flight number | `operating_carrier.iata_code`, `operating_carrier_flight_number` (may be null) |
 * | `fare_basis`                       | the segment's first passenger's `fare_basis_code` (may be null)        |
 * | `fare_family`                      | the slice's `fare_brand_name` (may be null)                           |
 * | `fare_class`                       | null: Duffel's offers carry no booking class                           |
 * | `offered_price`                    | `total_amount` in the currency's minor units, `total_currency`         |
 * | passenger `passenger_id`           | Duffel's `pas_…` id (passengers are then matched by id)                |
 * | passenger `passenger_type`         | `type` (`infant_without_seat` → `infant`, on the lap of an adult), or for a passenger searched by `age`: infant under 2, child under 12, else adult |
 * | ticket `metadata.duffel_offer_id`  | the offer's `id`                                                       |
 */
import type { TripCreateRequest } from '../../core/schemas/trip.ts'
import { decimalPlaces } from '../../core/domain/money.ts'

/** What is read of the offer (Duffel's shapes: server/suppliers/duffel/types.ts). */
export interface DuffelOfferLike {
  id: string
  total_amount: string
  total_currency: string
  passengers: Array<{ id: string; type?: string | null; age?: number | null }>
  slices: Array<{
    fare_brand_name?: string | null
    segments: Array<{
      origin: { iata_code: string | null }
      destination: { iata_code: string | null }
      departing_at: string
      arriving_at: string
      marketing_carrier: { iata_code: string | null }
      marketing_carrier_flight_number: string
      operating_carrier?: { iata_code: string | null } | null
      operating_carrier_flight_number?: string | null
      passengers?: Array<{ fare_basis_code?: string | null }>
    }>
  }>
}

const minor = (amount: string, currency: string) => Math.round(Number(amount) * 10 ** decimalPlaces(currency))
/** Duffel writes flight numbers as the airline does ("0207"); this service takes them without leading zeros. */
const flight = (n: string) => n.replace(/^0+(?=\d)/, '')

export function tripRequestFromOffer(
  offer: DuffelOfferLike,
  opts: { language?: string; country?: string; passengerIds?: 'duffel' | 'positional' } = {},
): TripCreateRequest {
  const typeOf = (p: DuffelOfferLike['passengers'][number]) =>
    p.type === 'infant_without_seat' || (p.type == null && (p.age ?? 99) < 2)
      ? ('infant' as const)
      : p.type === 'child' || (p.type == null && (p.age ?? 99) < 12)
        ? ('child' as const)
        : ('adult' as const)
  const ids = offer.passengers.map((p, i) => (opts.passengerIds === 'positional' ? `p${i + 1}` : p.id))
  const adults = offer.passengers.flatMap((p, i) => (typeOf(p) === 'adult' ? [ids[i]!] : []))
  let lap = 0
  const total = minor(offer.total_amount, offer.total_currency)
  return {
    language: opts.language ?? 'en-GB',
    currency: offer.total_currency,
    country: opts.country ?? 'GB',
    search: { bag: { search: true }, seat: { search: true } },
    tickets: [
      {
        status: 'offered',
        offered_price: {
          currency: offer.total_currency,
          decimal_places: decimalPlaces(offer.total_currency),
          base_price: total,
          markup: 0,
          total,
        },
        journeys: offer.slices.map((s) => ({
          segments: s.segments.map((g) => ({
            departure_airport: g.origin.iata_code!,
            arrival_airport: g.destination.iata_code!,
            departure_time: g.departing_at,
            arrival_time: g.arriving_at,
            marketing_airline: g.marketing_carrier.iata_code!,
            marketing_flight_number: flight(g.marketing_carrier_flight_number),
            ...(g.operating_carrier?.iata_code && g.operating_carrier_flight_number
              ? {
                  operating_airline: g.operating_carrier.iata_code,
                  operating_flight_number: flight(g.operating_carrier_flight_number),
                }
              : {}),
            fare_basis: g.passengers?.[0]?.fare_basis_code ?? null,
            fare_family: s.fare_brand_name ?? null,
            fare_class: null,
          })),
        })),
        metadata: { duffel_offer_id: offer.id },
      },
    ],
    passengers: offer.passengers.map((p, i) => {
      const type = typeOf(p)
      return {
        passenger_id: ids[i]!,
        passenger_type: type,
        ...(type === 'infant' ? { on_lap_of: adults[lap++ % adults.length]! } : {}),
      }
    }),
  }
}
