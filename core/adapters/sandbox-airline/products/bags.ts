/**
 * Bags, per journey by the airline of its first segment: the cabin allowance and the fare family's checked
 * bags (included, described, not sold), then every bag option of the airline, free to a loyalty tier that
 * earns the standard checked bag, and to lap infants only as the airline allows (adapter.ts).
 */
import type { SupplierProduct } from '../../../ports/supplier.ts'
import type { BagDetails, ProductDetails } from '../../../schemas/basket.ts'
import type { Passenger } from '../../../schemas/trip.ts'
import {
  atLeast,
  departureDate,
  free,
  isLapInfant,
  itemJourney,
  journeyFamily,
  journeyPolicy,
  LAP_INFANT_MAX_AGE,
  normalise,
  perPassenger,
  priced,
  unavailable,
} from '../offer-rules.ts'
import type { AirlinePolicy, BagOption } from '../types.ts'
import type { SandboxProduct } from './product.ts'

function bagDetails(
  journeyId: string,
  bag: { checked: boolean; weight_kg: number; dimensions: BagOption['dimensions'] },
  pieces: number,
): BagDetails {
  const { length, width, height } = bag.dimensions
  return {
    journey_id: journeyId,
    checked: bag.checked,
    size: length + width + height,
    size_unit: 'cm',
    weight: bag.weight_kg,
    weight_unit: 'kg',
    dimensions: { length, width, height },
    pieces,
  }
}

/** The bag a loyalty tier gets free: the policy's cheapest checked bag that anyone may buy (the first on a tie). */
function standardCheckedBag(policy: AirlinePolicy): BagOption | undefined {
  let best: BagOption | undefined
  for (const b of policy.bags) {
    if (b.checked && !b.infant_only && b.price > 0 && (best === undefined || b.price < best.price)) best = b
  }
  return best
}

function hasFreeBagTier(policy: AirlinePolicy, p: Passenger): boolean {
  return p.loyalty_programs.some((lp) => {
    const tier = lp.tier_name ? normalise(lp.tier_name) : null
    return (
      tier !== null &&
      policy.loyalty.some(
        (r) => r.airline_id === lp.airline_id && r.free_checked_bag_tiers.some((t) => normalise(t) === tier),
      )
    )
  })
}

function bagOptionFor(policy: AirlinePolicy, d: ProductDetails<'bag'>): BagOption | undefined {
  return policy.bags.find(
    (b) =>
      b.checked === d.checked &&
      b.weight_kg === d.weight &&
      (d.size === undefined || b.dimensions.length + b.dimensions.width + b.dimensions.height === d.size),
  )
}

export const bags: SandboxProduct<'bag'> = {
  search(ctx, trip, opts) {
    const products: SupplierProduct[] = []
    const anyLapInfant = trip.passengers.some(isLapInfant)
    for (const journey of trip.journeys) {
      const jid = journey.journey_id
      const policy = journeyPolicy(ctx, journey)
      const family = journeyFamily(policy, journey) ?? policy.fare_families[0] ?? null
      const first = journey.segments[0]
      const departs = first ? departureDate(first) : null

      products.push({
        offer_key: `bag:${jid}:included_cabin`,
        product_type: 'bag',
        display_name: `${policy.cabin.display_name} (included)`,
        product_details: bagDetails(
          jid,
          { checked: false, weight_kg: policy.cabin.weight_kg, dimensions: policy.cabin.dimensions },
          policy.cabin.pieces,
        ),
        included: true,
        per_passenger: perPassenger(trip, (p) =>
          isLapInfant(p) && !policy.lap_infant.cabin_allowance ? unavailable('lap_infant') : unavailable('included'),
        ),
      })

      const fareBag = family?.checked_bags ? policy.bags.find((b) => b.code === family.checked_bags?.bag) : undefined
      if (family?.checked_bags && fareBag) {
        const pieces = family.checked_bags.pieces
        products.push({
          offer_key: `bag:${jid}:included_checked`,
          product_type: 'bag',
          display_name: `${pieces > 1 ? `${pieces} × ` : ''}checked bag ${fareBag.weight_kg} kg (included in ${family.name})`,
          product_details: bagDetails(jid, fareBag, pieces),
          included: true,
          per_passenger: perPassenger(trip, (p) =>
            isLapInfant(p) ? unavailable('lap_infant') : unavailable('included'),
          ),
        })
      }

      const loyaltyBag = standardCheckedBag(policy)
      for (const option of policy.bags) {
        // An infant-only bag nobody on the trip can buy would only clutter the offer.
        if (option.infant_only && !anyLapInfant && !opts.allInfantBags) continue
        products.push({
          offer_key: `bag:${jid}:${option.code}`,
          product_type: 'bag',
          display_name: option.display_name,
          product_details: bagDetails(jid, option, 1),
          per_passenger: perPassenger(trip, (p) => {
            if (isLapInfant(p)) {
              // Two-year-olds need a seat of their own: nothing is sold to them as lap infants.
              if (departs !== null && atLeast(p, LAP_INFANT_MAX_AGE, departs)) return unavailable('infant_age')
              const limit = Math.min(option.max_quantity, policy.lap_infant.max_quantity)
              return policy.lap_infant.bags.includes(option.code) && limit > 0
                ? priced(policy, 'bag', option.price, limit)
                : unavailable('lap_infant')
            }
            if (option.infant_only) return unavailable('infant_only')
            if (option === loyaltyBag && hasFreeBagTier(policy, p)) return free(policy, option.max_quantity)
            return priced(policy, 'bag', option.price, option.max_quantity)
          }),
        })
      }
    }
    return { products }
  },

  offerKey(ctx, trip, item) {
    const journey = itemJourney(trip, item)
    if (!journey) return null
    const option = bagOptionFor(journeyPolicy(ctx, journey), item.product_details)
    return option ? `bag:${journey.journey_id}:${option.code}` : null
  },

  // A bag not yet used is refunded in full until a day before the journey.
  refund: 'full_until_a_day_before',
}
