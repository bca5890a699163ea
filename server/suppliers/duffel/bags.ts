/**
 * Duffel's baggage services as the trip's bag products. Duffel sells a bag per passenger over some
 * segments: one segment, a slice, or the whole trip (easyJet's recorded round trip: one service per
 * passenger covering both directions). A trip sells a bag per passenger and per journey, so:
 * - the services of one kind whose segments lie in one journey make that journey's bag: one per segment,
 *   or one covering several, bought together, priced as their sum, as many as the least of their maxima;
 * - a service whose segments span several journeys is ONE product for all of them (docs/decisions.md
 *   "Duffel as it really answers", whole-trip bags): `journey_id` names the first, `journey_ids` all; it is
 *   priced once, sits once in the basket and is bought once.
 * What identifies a bag across Duffel's stages (offer `ase_…`, order `aso_…`, booked `ser_…`, new ids each
 * time) is what it is: passenger, segments, kind (checked, carry-on) and weight; `bagKind` is that identity.
 * Only `baggage` services are bags: cancel-for-any-reason, seats and types to come are never read here.
 *
 * Prices are Duffel's `total_amount`, tax included (Duffel states no tax apart): the product's `base` is
 * that amount and its `taxes` are empty (docs/decisions.md "Searching a remote supplier").
 */
import type { SupplierPassengerOffer } from '../../../core/ports/supplier-answers.ts'
import type { SupplierProduct, SupplierTrip } from '../../../core/ports/supplier.ts'
import type { BagDetails } from '../../../core/schemas/basket.ts'
import { amount, BaggageMetadata, LIMITS, read, ServiceForSale } from './answers.ts'
import { SupplierError } from '../../../core/ports/supplier-errors.ts'
import type { DuffelRefs } from './match.ts'

/** A baggage service for sale, read and checked: its price in minor units, its metadata typed. */
export interface Bag {
  id: string
  passenger_ids: string[]
  segment_ids: string[]
  price: ReturnType<typeof amount>
  maximum_quantity: number
  metadata: BaggageMetadata | null
}

/** A service an order holds, as bags are counted in it. */
export interface HeldBag {
  id: string
  passenger_ids: string[]
  segment_ids: string[]
  quantity: number
  metadata: BaggageMetadata | null
}

/**
 * The baggage services among `services` (an offer's `available_services`, an order's available
 * services), read and checked; the others are left alone. One that breaks a rule is a
 * `supplier_invalid_answer` thrown for the whole bag part: a bag is never sold from half an answer.
 */
export function baggageOf(services: readonly unknown[]): Bag[] {
  if (services.length > LIMITS.services)
    throw new SupplierError(
      'supplier_invalid_answer',
      `Duffel offers ${services.length} services, over the ${LIMITS.services} read`,
    )
  return services
    .filter((s) => (s as { type?: unknown } | null)?.type === 'baggage')
    .map((raw, i) => {
      const s = read(ServiceForSale, raw, `baggage service ${i}`)
      return {
        id: s.id,
        passenger_ids: s.passenger_ids,
        segment_ids: s.segment_ids,
        price: amount(s.total_amount, s.total_currency, `baggage service ${s.id.slice(0, 40)}`),
        maximum_quantity: s.maximum_quantity ?? 1,
        metadata:
          s.metadata == null
            ? null
            : read(BaggageMetadata, s.metadata, `baggage service ${s.id.slice(0, 40)}'s metadata`),
      }
    })
}

/** The bags an order holds (booked with it or added after), read as bags are counted. */
export function heldBags(
  services: ReadonlyArray<{
    id: string
    type: string
    passenger_ids: string[]
    segment_ids: string[]
    quantity: number
    metadata?: unknown
  }>,
): HeldBag[] {
  return services
    .filter((s) => s.type === 'baggage')
    .map((s) => ({
      id: s.id,
      passenger_ids: s.passenger_ids,
      segment_ids: s.segment_ids,
      quantity: s.quantity,
      metadata:
        s.metadata == null ? null : read(BaggageMetadata, s.metadata, `booked service ${s.id.slice(0, 40)}'s metadata`),
    }))
}

/** A bag's identity apart from its passenger and segments: kind and stated weight (none: `any`). */
export const bagKind = (m: BaggageMetadata | null) =>
  `${m?.type === 'carry_on' ? 'carry_on' : 'checked'}:${m?.maximum_weight_kg ?? 'any'}`

/** The trip journeys a Duffel service covers, in the trip's order; null when a segment of it is none of the trip's. */
function journeysOf(trip: SupplierTrip, refs: DuffelRefs, segmentIds: readonly string[]): string[] | null {
  const tripSegment = new Map(Object.entries(refs.segments).map(([ours, theirs]) => [theirs, ours]))
  const covered = new Set<string>()
  for (const id of segmentIds) {
    const ours = tripSegment.get(id)
    const journey = ours && trip.journeys.find((j) => j.segments.some((s) => s.segment_id === ours))
    if (!journey) return null
    covered.add(journey.journey_id)
  }
  return trip.journeys.map((j) => j.journey_id).filter((id) => covered.has(id))
}

/**
 * Whether a service is a bag of `kind` for the passenger over exactly these journeys: a whole-trip bag is
 * not a bag of its first journey, nor a journey's bag one of the whole trip.
 */
export const isBagOf = (
  trip: SupplierTrip,
  refs: DuffelRefs,
  s: { passenger_ids: string[]; segment_ids: string[]; metadata: BaggageMetadata | null },
  passenger: string,
  journeyIds: readonly string[],
  kind: string,
) =>
  s.passenger_ids.includes(passenger) &&
  bagKind(s.metadata) === kind &&
  journeysOf(trip, refs, s.segment_ids)?.join('+') === journeyIds.join('+')

/** The Duffel segment ids of trip journeys, by the trip's matching. */
export const segmentsOf = (trip: SupplierTrip, refs: DuffelRefs, journeyIds: readonly string[]): string[] =>
  trip.journeys
    .filter((j) => journeyIds.includes(j.journey_id))
    .flatMap((j) => j.segments.map((s) => refs.segments[s.segment_id]!))

/** The journeys a bag item or product covers: all it names (`journey_ids`, a whole-trip bag), else its one. */
export const journeysOfBag = (details: Record<string, unknown>): string[] =>
  Array.isArray(details.journey_ids) ? details.journey_ids.map(String) : [String(details.journey_id)]

/** The offer key of a bag of one kind over some journeys: the same bag keeps its key (and its product id) across searches and stages. */
export const bagOfferKey = (journeyIds: readonly string[], m: BaggageMetadata | null) =>
  `bag:${journeyIds.join('+')}:${bagKind(m)}`

function details(journeyIds: readonly string[], m: BaggageMetadata | null): BagDetails {
  const dims =
    m?.maximum_length_cm && m.maximum_height_cm && m.maximum_depth_cm
      ? { length: m.maximum_length_cm, width: m.maximum_depth_cm, height: m.maximum_height_cm }
      : undefined
  return {
    checked: m?.type !== 'carry_on',
    journey_id: journeyIds[0]!,
    ...(journeyIds.length > 1 ? { journey_ids: [...journeyIds] } : {}),
    // What the airline does not state is left out (docs/decisions.md): the widget then shows the kind only.
    ...(m?.maximum_weight_kg ? { weight: m.maximum_weight_kg, weight_unit: 'kg' as const } : {}),
    ...(dims ? { size: dims.length + dims.width + dims.height, size_unit: 'cm' as const, dimensions: dims } : {}),
  }
}

function name(m: BaggageMetadata | null): string {
  const kind = m?.type === 'carry_on' ? 'Cabin bag' : 'Checked bag'
  return m?.maximum_weight_kg ? `${kind} ${m.maximum_weight_kg} kg` : kind
}

/**
 * The services that make one bag of `kind` for one Duffel passenger over exactly the journeys `journeyIds`
 * (services covering other journeys too are another product): one per segment, or fewer covering several;
 * null when some segment has no such service.
 */
export function servicesFor<
  S extends { passenger_ids: string[]; segment_ids: string[]; metadata: BaggageMetadata | null },
>(
  trip: SupplierTrip,
  refs: DuffelRefs,
  services: S[],
  passenger: string,
  journeyIds: readonly string[],
  kind: string,
): S[] | null {
  const mine = services.filter((s) => isBagOf(trip, refs, s, passenger, journeyIds, kind))
  const chosen: S[] = []
  for (const segment of segmentsOf(trip, refs, journeyIds)) {
    if (chosen.some((s) => s.segment_ids.includes(segment))) continue
    const s = mine.find((x) => x.segment_ids.includes(segment))
    if (!s) return null
    chosen.push(s)
  }
  return chosen
}

/** The trip's bag products from Duffel's baggage services (an offer's `ase_…`, or an order's `aso_…` after booking). */
export function bagProducts(trip: SupplierTrip, refs: DuffelRefs, bags: Bag[]): SupplierProduct[] {
  // Each scope (journeys covered) and kind once, in the trip's journey order, a journey's own bags first.
  const products = new Map<string, { journeys: string[]; kind: string; metadata: BaggageMetadata | null }>()
  for (const s of bags) {
    const journeys = journeysOf(trip, refs, s.segment_ids)
    if (!journeys?.length) continue
    const key = bagOfferKey(journeys, s.metadata)
    if (!products.has(key)) products.set(key, { journeys, kind: bagKind(s.metadata), metadata: s.metadata })
  }
  const order = (p: { journeys: string[] }) =>
    trip.journeys.findIndex((j) => j.journey_id === p.journeys[0]) * 100 + p.journeys.length
  return [...products.entries()]
    .sort(([, a], [, b]) => order(a) - order(b))
    .flatMap(([key, p]) => {
      const per_passenger: Record<string, SupplierPassengerOffer> = {}
      for (const traveller of trip.passengers) {
        const found = servicesFor(trip, refs, bags, refs.passengers[traveller.passenger_id]!, p.journeys, p.kind)
        per_passenger[traveller.passenger_id] = found
          ? offerOf(found)
          : { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'not_offered' }
      }
      if (!Object.values(per_passenger).some((o) => o.available)) return []
      return [
        {
          offer_key: key,
          product_type: 'bag' as const,
          display_name: name(p.metadata),
          product_details: { ...details(p.journeys, p.metadata) },
          per_passenger,
        },
      ]
    })
}

/** One passenger's offer of a bag made of these services: their summed price, the least of their maxima, their ids. */
function offerOf(services: Bag[]): SupplierPassengerOffer {
  const currency = services[0]!.price.currency
  const limit = Math.min(...services.map((s) => s.maximum_quantity))
  if (services.some((s) => s.price.currency !== currency) || limit < 1)
    return { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'not_offered' }
  return {
    available: true,
    base: { ...services[0]!.price, amount: services.reduce((n, s) => n + s.price.amount, 0) },
    taxes: [],
    quantity_limit: limit,
    refs: services.map((s) => s.id),
  }
}
