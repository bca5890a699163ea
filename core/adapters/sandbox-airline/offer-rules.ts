/**
 * What every product module of the sandbox airline shares (adapter.ts describes the rules): the options and
 * the context built from them, the passengers' ages and lap infants, the airline and fare family that apply
 * to a journey, prices with their taxes, and the segments an item concerns.
 */
import type { SupplierTrip } from '../../ports/supplier.ts'
import type { SupplierPassengerOffer, SupplierSeatMap, SupplierTax } from '../../ports/supplier-answers.ts'
import { table } from '../../shared/safe-maps.ts'
import type { BasketItem } from '../../schemas/basket.ts'
import type { OriginalMoney } from '../../schemas/common.ts'
import type { Journey, Passenger, ProductTypeName, Segment } from '../../schemas/trip.ts'
import type { AircraftLayout, AirlinePolicy, FareFamily } from './types.ts'

export interface SandboxSupplierOptions {
  /** Replaces the airline catalogue, keyed by IATA designator. */
  airlines?: Readonly<Record<string, AirlinePolicy>>
  genericPolicy?: AirlinePolicy
  aircraft?: Readonly<Record<string, AircraftLayout>>
  /** How long a `9004` check stays `checking`. */
  checkDelayMs?: number
  /** How much a `9001` offer's price rises. */
  priceIncreasePercent?: number
  /**
   * Which products' prices rise on a `9001` flight: bags by default (the documented scenario). Stories
   * and a seller's own tests may name others (seats, say) to see their price-change screens.
   */
  priceChangeProducts?: readonly ProductTypeName[]
  /**
   * `sandbox_only` (default): the magic flight numbers act only on trips flagged sandbox, because real
   * flights can carry those numbers too. `always`: on every trip.
   */
  scenarios?: 'sandbox_only' | 'always'
  /** How many flights' seat maps to keep built (default 500). */
  seatMapCache?: number
}

export interface Context {
  /**
   * Seat maps by key: a flight's map is built once (an LRUCache, adapter.ts). Typed by what the products use,
   * not by lru-cache: this interface is in the package's declarations, and its consumers do not have lru-cache.
   */
  maps: { get(key: string): SupplierSeatMap | undefined; set(key: string, map: SupplierSeatMap): unknown }
  airlines: Readonly<Record<string, AirlinePolicy>>
  generic: AirlinePolicy
  aircraft: Readonly<Record<string, AircraftLayout>>
  checkDelayMs: number
  priceIncreasePercent: number
  priceChangeProducts: ReadonlySet<ProductTypeName>
  scenariosAlways: boolean
}

export interface SearchOptions {
  /**
   * Offer infant-only bags even when no passenger is a lap infant. A check needs them, so that an infant's
   * bag whose passenger is no longer a lap infant is refused for that reason, not as no longer offered.
   */
  allInfantBags?: boolean
}

// ---------------------------------------------------------------- passengers

export const isLapInfant = (p: Passenger): boolean =>
  p.on_lap_of !== null && p.on_lap_of !== undefined && p.on_lap_of !== ''
/** Exit-row rules keep children and anyone holding an infant out of those seats. */
export const isMinor = (p: Passenger): boolean => p.type === 'child' || p.type === 'infant'
export const holdsInfant = (trip: SupplierTrip, p: Passenger): boolean =>
  trip.passengers.some((q) => q.on_lap_of === p.passenger_id)

/** Minimum age in an exit row; lap infants must be under `LAP_INFANT_MAX_AGE` at departure. */
export const EXIT_ROW_MIN_AGE = 16
export const LAP_INFANT_MAX_AGE = 2

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})/

/**
 * Whole years from `dateOfBirth` to the calendar date `on` (both read as `YYYY-MM-DD…`); null when either is
 * missing or malformed. A 29 February birthday falls on 1 March in other years.
 */
export function ageOn(dateOfBirth: string | null | undefined, on: string): number | null {
  const b = dateOfBirth ? ISO_DATE.exec(dateOfBirth) : null
  const d = ISO_DATE.exec(on)
  if (!b || !d) return null
  const [by, bm, bd] = [Number(b[1]), Number(b[2]), Number(b[3])]
  const [dy, dm, dd] = [Number(d[1]), Number(d[2]), Number(d[3])]
  return dy - by - (dm < bm || (dm === bm && dd < bd) ? 1 : 0)
}

/** The local date of departure, as the segment's own offset gives it. */
export const departureDate = (segment: Segment): string => segment.departure_time.slice(0, 10)

export const youngerThan = (p: Passenger, years: number, on: string): boolean => {
  const age = ageOn(p.date_of_birth, on)
  return age !== null && age < years
}
export const atLeast = (p: Passenger, years: number, on: string): boolean => {
  const age = ageOn(p.date_of_birth, on)
  return age !== null && age >= years
}

// ---------------------------------------------------------------- airlines and fare families

export const normalise = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '')

export function policyFor(ctx: Context, airline: string): AirlinePolicy {
  return ctx.airlines[airline] ?? ctx.generic
}

export function journeyPolicy(ctx: Context, journey: Journey): AirlinePolicy {
  const first = journey.segments[0]
  return first ? policyFor(ctx, first.marketing_airline) : ctx.generic
}

export function findFamily(policy: AirlinePolicy, name: string | null | undefined): FareFamily | null {
  if (!name) return null
  const n = normalise(name)
  return policy.fare_families.find((f) => normalise(f.code) === n || normalise(f.name) === n) ?? null
}

export function journeyFamily(policy: AirlinePolicy, journey: Journey): FareFamily | null {
  const booked = journey.segments.find((s) => s.fare_family)?.fare_family
  return findFamily(policy, booked)
}

// ---------------------------------------------------------------- prices

function money(policy: AirlinePolicy, amount: number): OriginalMoney {
  return { amount, currency: policy.currency, decimal_places: policy.decimal_places }
}

export function taxesFor(policy: AirlinePolicy, type: ProductTypeName, base: number): SupplierTax[] {
  return (
    policy.taxes
      .filter((t) => t.applies_to.includes(type))
      // Math.round is half-up, which is half away from zero for the non-negative bases here.
      .map((t) => ({ tax_type: t.tax_type, amount: Math.round((base * t.percent) / 100) }))
  )
}

export function priced(
  policy: AirlinePolicy,
  type: ProductTypeName,
  base: number,
  limit: number,
): SupplierPassengerOffer {
  return { available: true, base: money(policy, base), taxes: taxesFor(policy, type, base), quantity_limit: limit }
}

/** A benefit: on sale at 0, and nothing to tax. */
export function free(policy: AirlinePolicy, limit: number): SupplierPassengerOffer {
  return { available: true, base: money(policy, 0), taxes: [], quantity_limit: limit }
}

export function unavailable(reason: string): SupplierPassengerOffer {
  return { available: false, base: null, taxes: [], quantity_limit: 0, reason }
}

export function perPassenger(
  trip: SupplierTrip,
  offer: (p: Passenger) => SupplierPassengerOffer,
): Record<string, SupplierPassengerOffer> {
  // Keyed by the seller's passenger ids: no prototype, so any id is an ordinary key.
  const out = table<SupplierPassengerOffer>()
  for (const p of trip.passengers) out[p.passenger_id] = offer(p)
  return out
}

// ---------------------------------------------------------------- items

export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/** The segments an item concerns: its segment, else its journey, else its ticket's journeys, else the trip's. */
export function itemSegments(trip: SupplierTrip, item: BasketItem): Segment[] {
  const d = item.product_details
  const all = trip.journeys.flatMap((j) => j.segments)
  const segmentId = str(d['segment_id'])
  if (segmentId) {
    const found = all.filter((s) => s.segment_id === segmentId)
    if (found.length > 0) return found
  }
  const journeyIds = new Set<string>()
  const journeyId = str(d['journey_id'])
  if (journeyId) journeyIds.add(journeyId)
  if (journeyIds.size === 0 && Array.isArray(d['journeys'])) {
    for (const j of d['journeys'] as unknown[]) {
      const id = j !== null && typeof j === 'object' ? str((j as Record<string, unknown>)['journey_id']) : null
      if (id) journeyIds.add(id)
    }
  }
  if (journeyIds.size === 0) {
    for (const id of trip.tickets.find((t) => t.ticket_id === item.ticket_id)?.journey_ids ?? []) journeyIds.add(id)
  }
  const scoped = trip.journeys.filter((j) => journeyIds.has(j.journey_id)).flatMap((j) => j.segments)
  return scoped.length > 0 ? scoped : all
}

/** The journey an item of a journey product names; undefined when its details name none of the trip's. */
export const itemJourney = (trip: SupplierTrip, item: BasketItem): Journey | undefined =>
  trip.journeys.find((j) => j.journey_id === str(item.product_details['journey_id']))
