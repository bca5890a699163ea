/**
 * The services sold once per journey and passenger at one price of the journey's airline (priority boarding,
 * automatic check-in): its `AirlinePolicy` field of the same name is the price, null where it does not sell
 * it. A lap infant boards and is checked in with the adult holding it.
 */
import type { SupplierProduct, SupplierTrip } from '../../../ports/supplier.ts'
import type { BasketItem, JourneyProductDetails } from '../../../schemas/basket.ts'
import type { Journey } from '../../../schemas/trip.ts'
import {
  type Context,
  isLapInfant,
  itemJourney,
  journeyPolicy,
  perPassenger,
  priced,
  unavailable,
} from '../offer-rules.ts'
import type { AirlinePolicy } from '../types.ts'

export type JourneyService = 'priority_boarding' | 'automatic_check_in'

export function journeyServiceProducts(
  ctx: Context,
  trip: SupplierTrip,
  type: JourneyService,
  displayName: string,
  /** Whether the journey's fare already includes the service: then it is described, not sold. */
  includedByFare: (policy: AirlinePolicy, journey: Journey) => boolean,
): SupplierProduct[] {
  const products: SupplierProduct[] = []
  for (const journey of trip.journeys) {
    const policy = journeyPolicy(ctx, journey)
    const price = policy[type]
    if (price === null) continue
    const included = includedByFare(policy, journey)
    const details: JourneyProductDetails = { journey_id: journey.journey_id }
    products.push({
      offer_key: `${type}:${journey.journey_id}`,
      product_type: type,
      display_name: displayName,
      product_details: details,
      ...(included ? { included: true } : {}),
      // A lap infant boards and is checked in with the adult holding it.
      per_passenger: perPassenger(trip, (p) =>
        isLapInfant(p)
          ? unavailable('lap_infant')
          : included
            ? unavailable('included')
            : priced(policy, type, price, 1),
      ),
    })
  }
  return products
}

/** The offer key of a journey service item: its type and journey, when the journey is the trip's. */
export function journeyServiceKey(trip: SupplierTrip, item: BasketItem, type: JourneyService): string | null {
  const journey = itemJourney(trip, item)
  return journey ? `${type}:${journey.journey_id}` : null
}
