/**
 * Fare-family upsell: per journey, an upgrade to each of the airline's families above the booked one, at the
 * difference of their prices. A journey whose family is unknown gets no upsell (adapter.ts).
 */
import type { SupplierProduct } from '../../../ports/supplier.ts'
import type { FareFamilyDetails } from '../../../schemas/basket.ts'
import {
  findFamily,
  isLapInfant,
  itemJourney,
  journeyFamily,
  journeyPolicy,
  perPassenger,
  priced,
  str,
  unavailable,
} from '../offer-rules.ts'
import type { SandboxProduct } from './product.ts'

export const fareFamilyUpsell: SandboxProduct<'fare_family_upsell'> = {
  search(ctx, trip) {
    const products: SupplierProduct[] = []
    for (const journey of trip.journeys) {
      const policy = journeyPolicy(ctx, journey)
      const current = journeyFamily(policy, journey)
      if (!current) continue
      const higher = policy.fare_families.slice(policy.fare_families.indexOf(current) + 1)
      for (const target of higher) {
        const details: FareFamilyDetails = {
          journey_id: journey.journey_id,
          fare_family: target.name,
          from_fare_family: current.name,
          benefits: [...target.benefits],
        }
        const price = Math.max(0, target.price - current.price)
        products.push({
          offer_key: `fare_family_upsell:${journey.journey_id}:${target.code}`,
          product_type: 'fare_family_upsell',
          display_name: `Upgrade to ${target.name}`,
          product_details: details,
          // The infant's fare follows the adult's.
          per_passenger: perPassenger(trip, (p) =>
            isLapInfant(p) ? unavailable('lap_infant') : priced(policy, 'fare_family_upsell', price, 1),
          ),
        })
      }
    }
    return { products }
  },

  offerKey(ctx, trip, item) {
    const journey = itemJourney(trip, item)
    if (!journey) return null
    const family = findFamily(journeyPolicy(ctx, journey), str(item.product_details.fare_family))
    return family ? `fare_family_upsell:${journey.journey_id}:${family.code}` : null
  },

  refund: 'none',
}
