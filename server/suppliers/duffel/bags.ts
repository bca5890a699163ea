/**
 * Duffel's baggage services as the trip's bag products. Duffel sells a bag per passenger and per segment
 * (a service names its passengers and segments, often one segment each); a trip sells it per passenger and
 * per journey. So a journey's bag of one kind for one passenger is the services of that kind covering the
 * journey's segments: bought together, priced as their sum, as many as the least of their maxima. What
 * identifies a bag across Duffel's stages (offer `ase_…`, order `aso_…`, booked `ser_…`, new ids each time)
 * is what it is: passenger, segments, kind (checked, carry-on) and weight; `bagKind` is that identity.
 *
 * Prices are Duffel's `total_amount`, tax included (Duffel states no tax apart): the product's `base` is
 * that amount and its `taxes` are empty (docs/decisions.md "Searching a remote supplier").
 */
import type { OfferAvailableServiceBaggage, OfferAvailableServiceBaggageMetadata } from './types.ts'
import type { SupplierPassengerOffer } from '../../../core/ports/supplier-answers.ts'
import type { SupplierProduct, SupplierTrip } from '../../../core/ports/supplier.ts'
import type { BagDetails } from '../../../core/schemas/basket.ts'
import { decimalPlaces, parseDecimal, toMinorUnits } from '../../../core/domain/money.ts'
import type { OriginalMoney } from '../../../core/schemas/common.ts'
import type { DuffelRefs } from './match.ts'

/** A baggage service as offers, orders' available services and booked services all describe one. */
export interface BaggageLike {
  id: string
  passenger_ids: string[]
  segment_ids: string[]
  total_amount: string
  total_currency: string
  maximum_quantity?: number
  metadata?: Partial<OfferAvailableServiceBaggageMetadata> | null
}

/** Duffel's amount ("45.00") in the currency's minor units; a currency this service does not know is refused. */
export function minorUnits(amount: string, currency: string): OriginalMoney {
  const places = decimalPlaces(currency)
  const r = parseDecimal(amount, places)
  return { amount: toMinorUnits(r.num * 10n ** BigInt(places) / r.den), currency, decimal_places: places }
}

/** A bag's identity apart from its passenger and segments: kind and stated weight (none: `any`). */
export const bagKind = (m: BaggageLike['metadata']) => `${m?.type === 'carry_on' ? 'carry_on' : 'checked'}:${m?.maximum_weight_kg ?? 'any'}`

/** The offer key of a journey's bag of one kind: the same bag keeps its key (and its product id) across searches and stages. */
export const bagOfferKey = (journeyId: string, m: BaggageLike['metadata']) => `bag:${journeyId}:${bagKind(m)}`

function details(journeyId: string, m: BaggageLike['metadata']): BagDetails {
  const dims = m?.maximum_length_cm && m.maximum_height_cm && m.maximum_depth_cm
    ? { length: m.maximum_length_cm, width: m.maximum_depth_cm, height: m.maximum_height_cm } : undefined
  return {
    checked: m?.type !== 'carry_on', journey_id: journeyId,
    // What the airline does not state is left out (docs/decisions.md): the widget then shows the kind only.
    ...(m?.maximum_weight_kg ? { weight: m.maximum_weight_kg, weight_unit: 'kg' as const } : {}),
    ...(dims ? { size: dims.length + dims.width + dims.height, size_unit: 'cm' as const, dimensions: dims } : {}),
  }
}

function name(m: BaggageLike['metadata']): string {
  const kind = m?.type === 'carry_on' ? 'Cabin bag' : 'Checked bag'
  return m?.maximum_weight_kg ? `${kind} ${m.maximum_weight_kg} kg` : kind
}

/**
 * The services that make one journey's bag of `kind` for one Duffel passenger: one per segment of the
 * journey (or one covering several), or none when some segment has no such service.
 */
export function servicesForJourney<S extends BaggageLike>(services: S[], passenger: string, segments: string[], kind: string): S[] | null {
  const mine = services.filter((s) => s.passenger_ids.includes(passenger) && bagKind(s.metadata) === kind && s.segment_ids.every((id) => segments.includes(id)))
  const chosen: S[] = []
  for (const segment of segments) {
    if (chosen.some((s) => s.segment_ids.includes(segment))) continue
    const s = mine.find((x) => x.segment_ids.includes(segment))
    if (!s) return null
    chosen.push(s)
  }
  return chosen
}

/** The Duffel segment ids of a trip journey, by the trip's matching. */
export const journeySegments = (trip: SupplierTrip, refs: DuffelRefs, journeyId: string): string[] =>
  trip.journeys.find((j) => j.journey_id === journeyId)?.segments.map((s) => refs.segments[s.segment_id]!) ?? []

/** The trip's bag products from Duffel's baggage services (an offer's `ase_…`, or an order's `aso_…` after booking). */
export function bagProducts(trip: SupplierTrip, refs: DuffelRefs, services: BaggageLike[]): SupplierProduct[] {
  const products: SupplierProduct[] = []
  for (const journey of trip.journeys) {
    const segments = journeySegments(trip, refs, journey.journey_id)
    const kinds = new Map<string, BaggageLike['metadata']>()
    for (const s of services) if (s.segment_ids.some((id) => segments.includes(id))) kinds.set(bagKind(s.metadata), s.metadata)
    for (const [kind, metadata] of kinds) {
      const per_passenger: Record<string, SupplierPassengerOffer> = {}
      for (const p of trip.passengers) {
        const found = servicesForJourney(services, refs.passengers[p.passenger_id]!, segments, kind)
        per_passenger[p.passenger_id] = found ? offerOf(found) : { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'not_offered' }
      }
      if (Object.values(per_passenger).some((o) => o.available)) {
        products.push({ offer_key: bagOfferKey(journey.journey_id, metadata), product_type: 'bag', display_name: name(metadata), product_details: { ...details(journey.journey_id, metadata) }, per_passenger })
      }
    }
  }
  return products
}

/** One passenger's offer of a bag made of these services: their summed price, the least of their maxima, their ids. */
function offerOf(services: BaggageLike[]): SupplierPassengerOffer {
  const prices = services.map((s) => minorUnits(s.total_amount, s.total_currency))
  const currency = prices[0]!.currency
  if (prices.some((p) => p.currency !== currency)) return { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'not_offered' }
  return {
    available: true,
    base: { ...prices[0]!, amount: prices.reduce((n, p) => n + p.amount, 0) },
    taxes: [],
    quantity_limit: Math.min(...services.map((s) => s.maximum_quantity ?? 1)),
    refs: services.map((s) => s.id),
  }
}

export type { OfferAvailableServiceBaggage }
