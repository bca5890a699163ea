/**
 * Which Duffel offer or order a trip names, and how its passengers and segments are Duffel's
 * (docs/decisions.md "The Duffel supplier"):
 * - a ticket's `metadata.duffel_offer_id` (`off_…`, in the funnel, before the seller books) or
 *   `metadata.duffel_order_id` (`ord_…`, after booking); a trip whose tickets are booked (a fulfill gave
 *   their record locator) is also found by Duffel's `booking_reference`;
 * - passengers by `passenger_id` when the seller used Duffel's `pas_…` ids, else by position within each
 *   passenger type;
 * - segments by airports, marketing carrier, flight number and departure date.
 * What does not match fails the search with `not_matched`, rather than sell a bag for someone else's flight.
 */
import type { Offer, Order } from './types.ts'
import type { SupplierTrip } from '../../../core/ports/supplier.ts'
import type { PassengerType } from '../../../core/schemas/trip.ts'
import { SupplierError } from '../../../core/ports/supplier-errors.ts'

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
export type DuffelSource = { kind: 'offer'; id: string } | { kind: 'order'; id: string } | { kind: 'booking_reference'; reference: string }

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
  throw new SupplierError('not_matched', 'no ticket of the trip names a Duffel offer or order (metadata.duffel_offer_id or metadata.duffel_order_id)')
}

const DUFFEL_TYPE: Record<PassengerType, string> = { adult: 'adult', child: 'child', infant: 'infant_without_seat' }

/** A Duffel passenger as both offers and orders give it. */
interface DuffelPassenger { id: string; type: string | null }

/** trip passenger_id → Duffel passenger id, by Duffel's ids when the trip uses them, else by position within each type. */
export function matchPassengers(trip: SupplierTrip, duffel: DuffelPassenger[]): Record<string, string> {
  const ids = new Set(duffel.map((p) => p.id))
  if (trip.passengers.every((p) => ids.has(p.passenger_id))) return Object.fromEntries(trip.passengers.map((p) => [p.passenger_id, p.passenger_id]))
  const out: Record<string, string> = {}
  const left = new Map<string, DuffelPassenger[]>()
  for (const p of duffel) {
    const type = p.type ?? 'adult'
    left.set(type, [...(left.get(type) ?? []), p])
  }
  for (const p of trip.passengers) {
    const type = DUFFEL_TYPE[p.type]
    const next = left.get(type)?.shift()
    if (!next) throw new SupplierError('not_matched', `passenger ${p.passenger_id} (${p.type}) has no ${type} passenger to match at Duffel`)
    out[p.passenger_id] = next.id
  }
  const extra = [...left.values()].flat()
  if (extra.length) throw new SupplierError('not_matched', `Duffel has ${extra.length} passenger(s) the trip does not (${extra.map((p) => p.type).join(', ')})`)
  return out
}

/** A Duffel segment as both offers and orders give it (the fields matched on). */
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
      const found = duffel.filter((d) =>
        d.origin.iata_code === s.departure_airport && d.destination.iata_code === s.arrival_airport &&
        d.marketing_carrier.iata_code === s.marketing_airline && flight(d.marketing_carrier_flight_number) === flight(s.marketing_flight_number) &&
        // Both are local times at the departure airport; the date is what a ticket shows.
        d.departing_at.slice(0, 10) === s.departure_time.slice(0, 10))
      if (found.length !== 1) {
        throw new SupplierError('not_matched', `segment ${s.segment_id} (${s.marketing_airline}${s.marketing_flight_number} ${s.departure_airport}→${s.arrival_airport} on ${s.departure_time.slice(0, 10)}) is ${found.length ? 'ambiguous' : 'not'} in Duffel's`)
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
    segments: matchSegments(trip, offer.slices.flatMap((s) => s.segments)),
  }
}

export function matchOrder(trip: SupplierTrip, order: Order): DuffelRefs {
  return {
    source: { kind: 'order', id: order.id },
    passengers: matchPassengers(trip, order.passengers),
    segments: matchSegments(trip, order.slices.flatMap((s) => s.segments)),
  }
}
