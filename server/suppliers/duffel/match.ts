/**
 * Which Duffel offer or order a trip names, and how its passengers and segments are Duffel's
 * (docs/decisions.md "The Duffel supplier", "Duffel as it really answers"):
 * - a ticket's `metadata.duffel_offer_id` (`off_…`, in the funnel, before the seller books) or
 *   `metadata.duffel_order_id` (`ord_…`, after booking); a trip whose tickets are booked (a fulfill gave
 *   their record locator) is also found by Duffel's `booking_reference`;
 * - passengers by Duffel's `pas_…` ids when the trip uses them; else by name and date of birth when both
 *   sides hold them (an order's passengers do); else by position within kind, Duffel's kind being its
 *   `type`, or for a passenger searched by `age` (type null) or an order's passenger with no type, what
 *   that age makes them: an infant under 2, a child under 18 (Duffel's own bands);
 * - segments by airports, marketing carrier, flight number and departure date at the departure airport.
 * What does not match fails the search with `not_matched`, rather than sell a bag for someone else's flight.
 */
import type { Offer, Order } from './answers.ts'
import type { SupplierTrip } from '../../../core/ports/supplier.ts'
import type { Passenger, PassengerType } from '../../../core/schemas/trip.ts'
import { SupplierError } from '../../../core/ports/supplier-errors.ts'
import { atAirport } from '../../../core/domain/airports.ts'
import { firstDeparture } from '../../../core/domain/trip.ts'

/** What the adapter keeps with the trip (SupplierOffers.refs): where its offers came from and the matching. */
export interface DuffelRefs {
  [key: string]: unknown
  source: { kind: 'offer' | 'order'; id: string }
  /** trip passenger_id → Duffel passenger id */
  passengers: Record<string, string>
  /** trip segment_id → Duffel segment id */
  segments: Record<string, string>
  /** Services of the order that are not the trip's (server/suppliers/duffel/supplier.ts foreignServices). */
  foreign?: string[]
}

/** What a trip names at Duffel, before it is read: an offer, an order, or a booking reference to look up. */
export type DuffelSource =
  { kind: 'offer'; id: string } | { kind: 'order'; id: string } | { kind: 'booking_reference'; reference: string }

const string = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)

/**
 * The first ticket's Duffel order (named, or found by the booking reference a fulfill gave it), else its
 * offer. Booked, a trip's bags come from the order: an offer once booked is no longer for sale.
 */
export function sourceOf(trip: SupplierTrip): DuffelSource {
  for (const t of trip.tickets) {
    const order = string(t.metadata?.duffel_order_id)
    if (order) return { kind: 'order', id: order }
  }
  for (const t of trip.tickets) {
    const reference = string(t.access_details?.record_locator)
    if (reference && t.status === 'booked') return { kind: 'booking_reference', reference }
  }
  for (const t of trip.tickets) {
    const offer = string(t.metadata?.duffel_offer_id)
    if (offer) return { kind: 'offer', id: offer }
  }
  throw new SupplierError(
    'not_matched',
    'no ticket of the trip names a Duffel offer or order (metadata.duffel_offer_id or metadata.duffel_order_id)',
  )
}

/** A Duffel passenger as offers and orders give it. */
interface DuffelPassenger {
  id: string
  type?: string | null
  age?: number | null
  given_name?: string | null
  family_name?: string | null
  born_on?: string | null
}

/** Whole years from a date of birth (YYYY-MM-DD) to an instant. */
function ageAt(bornOn: string, at: number): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(bornOn)
  if (!m || Number.isNaN(at)) return null
  const when = new Date(at)
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const before = when.getUTCMonth() + 1 < mo || (when.getUTCMonth() + 1 === mo && when.getUTCDate() < d)
  return when.getUTCFullYear() - y - (before ? 1 : 0)
}

/** Duffel's bands for a passenger known by age: an infant under 2, a child under 18, else an adult. */
const kindOfAge = (age: number): PassengerType => (age < 2 ? 'infant' : age < 18 ? 'child' : 'adult')

/** Duffel's kind of a passenger: its type, else what its age (searched by age, or its date of birth on an order) makes it. */
function duffelKind(p: DuffelPassenger, departure: number): PassengerType | null {
  if (p.type === 'adult' || p.type === 'child') return p.type
  if (p.type === 'infant_without_seat') return 'infant'
  if (typeof p.age === 'number') return kindOfAge(p.age)
  const age = p.born_on ? ageAt(p.born_on, departure) : null
  return age === null ? null : kindOfAge(age)
}

/** The trip passenger's kind as Duffel bands it: by age at the first departure when the trip holds the date of birth, else its type. */
function tripKind(p: Passenger, departure: number): PassengerType {
  const age = p.date_of_birth ? ageAt(p.date_of_birth, departure) : null
  return age === null ? p.type : kindOfAge(age)
}

/** A name as two airlines' systems may both write it: upper case, without accents, spaces or punctuation. */
const plain = (s: string | null | undefined) =>
  (s ?? '')
    .normalize('NFD')
    .replace(/[^\p{L}]/gu, '')
    .toUpperCase()

/** By name and date of birth, when every trip passenger holds them and each finds exactly one Duffel passenger so; else null. */
function byName(trip: SupplierTrip, duffel: DuffelPassenger[]): Record<string, string> | null {
  const out: Record<string, string> = {}
  const used = new Set<string>()
  for (const p of trip.passengers) {
    if (!p.surname || !p.first_names || !p.date_of_birth) return null
    const found = duffel.filter(
      (d) =>
        d.born_on === p.date_of_birth &&
        plain(d.family_name) === plain(p.surname) &&
        plain(d.given_name).startsWith(plain((p.first_names ?? '').split(/\s+/)[0])),
    )
    if (found.length !== 1 || used.has(found[0]!.id)) return null
    used.add(found[0]!.id)
    out[p.passenger_id] = found[0]!.id
  }
  return out
}

/** trip passenger_id → Duffel passenger id (see the file's header for how). */
export function matchPassengers(trip: SupplierTrip, duffel: DuffelPassenger[]): Record<string, string> {
  const ids = new Set(duffel.map((p) => p.id))
  if (trip.passengers.every((p) => ids.has(p.passenger_id)))
    return Object.fromEntries(trip.passengers.map((p) => [p.passenger_id, p.passenger_id]))
  const named = byName(trip, duffel)
  if (named) return named
  const departure = firstDeparture(trip.journeys) ?? Date.now()
  const left = new Map<string, DuffelPassenger[]>()
  for (const p of duffel) {
    const kind = duffelKind(p, departure) ?? 'unknown'
    left.set(kind, [...(left.get(kind) ?? []), p])
  }
  const out: Record<string, string> = {}
  for (const p of trip.passengers) {
    const kind = tripKind(p, departure)
    const next = left.get(kind)?.shift()
    if (!next)
      throw new SupplierError(
        'not_matched',
        `passenger ${p.passenger_id} (${kind}) has no ${kind} passenger to match at Duffel (match by Duffel's pas_ ids, or give names and dates of birth)`,
      )
    out[p.passenger_id] = next.id
  }
  const extra = [...left.entries()].flatMap(([kind, ps]) => ps.map(() => kind))
  if (extra.length)
    throw new SupplierError(
      'not_matched',
      `Duffel has ${extra.length} passenger(s) the trip does not (${extra.join(', ')})`,
    )
  return out
}

/** A Duffel segment as offers and orders give it (the fields matched on). */
interface DuffelSegment {
  id: string
  origin: { iata_code: string | null }
  destination: { iata_code: string | null }
  marketing_carrier: { iata_code: string | null }
  marketing_carrier_flight_number: string
  departing_at: string
}

const flight = (n: string) => n.replace(/^0+(?=\d)/, '')

/** trip segment_id → Duffel segment id: the one with the same airports, marketing flight and departure date. */
export function matchSegments(trip: SupplierTrip, duffel: DuffelSegment[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const j of trip.journeys) {
    for (const s of j.segments) {
      // Duffel's times are local at the airport; the trip's may carry any offset: compared as the date a ticket shows.
      const date = (atAirport(s.departure_time, s.departure_airport) ?? s.departure_time).slice(0, 10)
      const found = duffel.filter(
        (d) =>
          d.origin.iata_code === s.departure_airport &&
          d.destination.iata_code === s.arrival_airport &&
          d.marketing_carrier.iata_code === s.marketing_airline &&
          flight(d.marketing_carrier_flight_number) === flight(s.marketing_flight_number) &&
          d.departing_at.slice(0, 10) === date,
      )
      if (found.length !== 1) {
        throw new SupplierError(
          'not_matched',
          `segment ${s.segment_id} (${s.marketing_airline}${s.marketing_flight_number} ${s.departure_airport}→${s.arrival_airport} on ${date}) is ${found.length ? 'ambiguous' : 'not'} in Duffel's`,
        )
      }
      out[s.segment_id] = found[0]!.id
    }
  }
  return out
}

export function matchOffer(trip: SupplierTrip, offer: Offer): DuffelRefs {
  return {
    source: { kind: 'offer', id: offer.id },
    passengers: matchPassengers(trip, offer.passengers),
    segments: matchSegments(
      trip,
      offer.slices.flatMap((s) => s.segments),
    ),
  }
}

export function matchOrder(trip: SupplierTrip, order: Order): DuffelRefs {
  return {
    source: { kind: 'order', id: order.id },
    passengers: matchPassengers(trip, order.passengers),
    segments: matchSegments(
      trip,
      order.slices.flatMap((s) => s.segments),
    ),
  }
}
