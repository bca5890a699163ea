/**
 * What every view says about trips, passengers, bags and basket items, in the traveller's locale. Texts
 * come from the translation table, numbers, weights, sizes, prices and dates from the Locale's Intl
 * helpers; the API's English `display_name` is only the last resort for product kinds we do not know.
 */
import type { Locale } from '../i18n/index.ts'
import type { BasketItem, Journey, TripView } from '../../client/types.ts'
import { PRODUCT_TYPES } from '../../core/schemas/product-types.ts'

// What is offered and chosen is the client layer's (the SDK reads it too); the views take it from here.
export {
  PRODUCT_TYPE,
  productNameOf,
  isExtra,
  productsOf,
  isOffered,
  extras,
  type Product,
  type PriceAndAvailability,
} from '../../client/offers.ts'

/** A money amount as the API gives it (price.total and friends). */
export interface Amount {
  amount: number
  decimal_places: number
  currency: string
}

export function price(l: Locale, a: Amount): string {
  return l.price(a.amount, a.decimal_places, a.currency)
}

/** Minor-unit digits of a currency, for a zero total before any item gives them. */
function digitsOf(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    return 2
  }
}

/** Sum of the items' totals (the API prices every item in the trip currency). */
export function totalOf(items: BasketItem[], currency: string): Amount {
  const first = items[0]?.price.total
  return {
    amount: items.reduce((sum, i) => sum + i.price.total.amount, 0),
    decimal_places: first?.decimal_places ?? digitsOf(currency),
    currency: first?.currency ?? currency,
  }
}

// ---------------------------------------------------------------- trip

/** Where a journey starts and ends, for `{from}` and `{to}`. */
const ends = ({ segments }: Journey) => ({
  from: segments[0]?.departure_city_name ?? '',
  to: segments.at(-1)?.arrival_city_name ?? '',
})

export function route(l: Locale, journey: Journey): string {
  return l.format('route', ends(journey))
}

/** "London → New York · Tue, Dec 22" */
export function journeyTitle(l: Locale, journey: Journey): string {
  const first = journey.segments[0]
  return l.format('journey_title', { ...ends(journey), date: first ? l.date(first.departure_time) : '' })
}

/** "London → Madrid + Madrid → London · one bag for every flight": the journeys a bag sold for several at once covers. */
export const severalJourneysTitle = (l: Locale, journeys: Journey[]): string =>
  l.format('bags_several_journeys', { journeys: journeys.map((j) => route(l, j)).join(' + ') })

/** The journeys a bag covers, as one key (`id+id`): `journey_ids` for a bag sold for several at once, else its `journey_id`. */
export const bagScope = (d: Record<string, unknown>): string =>
  String(d['journey_ids'] ?? d['journey_id']).replaceAll(',', '+')

/** The passenger's name when the seller gave it, else "Passenger 2" by position. */
export function passengerLabel(l: Locale, trip: TripView | null, passengerId: unknown): string {
  const passengers = trip?.passengers ?? []
  const index = passengers.findIndex((p) => p.passenger_id === passengerId)
  const p = passengers[index]
  const name = [p?.first_names, p?.surname].filter(Boolean).join(' ').trim()
  if (name) return name
  return l.format('passenger_n', { n: l.number(index >= 0 ? index + 1 : passengers.length + 1) })
}

// ---------------------------------------------------------------- bags

export interface BagDetailsLike {
  checked?: unknown
  weight?: unknown
  size?: unknown
  dimensions?: { length: number; width: number; height: number }
  pieces?: unknown
}

/** A measure the airline states: a positive number (a bag it does not measure has none, docs/decisions.md). */
const stated = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0

/** "Checked bag · 23 kg"; just "Checked bag" when the airline states no weight. */
export function bagName(l: Locale, d: BagDetailsLike): string {
  const kind = d.checked ? l.t.bag_checked : l.t.bag_cabin
  const name = stated(d.weight) ? l.format('bag_label', { kind, weight: l.weight(d.weight) }) : kind
  return typeof d.pieces === 'number' && d.pieces > 1
    ? l.format('bag_pieces', { count: l.number(d.pieces), item: name })
    : name
}

/** "90 × 75 × 43 cm", or the sum of the sides when the airline gives only that; '' when it states no size. */
export function bagSize(l: Locale, d: BagDetailsLike): string {
  const s = d.dimensions
  if (s && stated(s.length) && stated(s.width) && stated(s.height)) {
    return l.format('bag_dimensions', {
      length: l.number(s.length),
      width: l.number(s.width),
      height: l.length(s.height),
    })
  }
  return stated(d.size) ? l.length(d.size) : ''
}

/**
 * "Up to 23 kg, 90 × 75 × 43 cm"; the size alone without a weight; '' without a size (the name already
 * says the weight), so a bag the airline does not measure shows no empty or invented figures.
 */
export function bagSpec(l: Locale, d: BagDetailsLike): string {
  const size = bagSize(l, d)
  return stated(d.weight) && size ? l.format('bag_up_to', { weight: l.weight(d.weight), size }) : size
}

/** "Checked bag · 23 kg · 90 × 75 × 43 cm" (an allowance), or the name alone when no size is stated. */
export function bagLine(l: Locale, d: BagDetailsLike): string {
  const spec = bagSize(l, d)
  return spec ? l.format('included_line', { item: bagName(l, d), spec }) : bagName(l, d)
}

// ---------------------------------------------------------------- items

const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '')

/** The traveller-facing name of an item, translated where we know the kind. */
export function itemLabel(
  l: Locale,
  item: Pick<BasketItem, 'product_type' | 'product_details' | 'display_name'>,
): string {
  const d = item.product_details
  switch (item.product_type) {
    case 'bag':
      return bagName(l, d as BagDetailsLike)
    case 'seat':
      return l.format('seat_n', { seat: `${str(d['row'])}${str(d['column'])}` })
    case 'fare_family_upsell':
      return typeof d['fare_family'] === 'string'
        ? l.format('fare_family_upgrade_to', { name: d['fare_family'] })
        : item.display_name
    // Another product type is named by its title text, `<name>_title` (components/i18n), whatever its details; a
    // ticket, or a type this page does not know yet, is what the API calls it.
    default:
      return item.product_type !== 'ticket' && Object.hasOwn(PRODUCT_TYPES, item.product_type)
        ? l.t[`${PRODUCT_TYPES[item.product_type]}_title`]
        : item.display_name
  }
}

/** Why a product is not for this passenger, in words. */
export function reasonText(l: Locale, reason: string | undefined): string {
  switch (reason) {
    case 'lap_infant':
      return l.t.reason_lap_infant
    case 'infant_only':
      return l.t.reason_infant_only
    case 'infant_age':
      return l.t.reason_infant_age
    case 'included':
      return l.t.reason_included
    default:
      return l.t.not_available
  }
}
