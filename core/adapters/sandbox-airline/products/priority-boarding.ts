/** Priority boarding: a journey service (journey-service.ts), included where the fare family says so. */
import { journeyFamily } from '../offer-rules.ts'
import { journeyServiceKey, journeyServiceProducts } from './journey-service.ts'
import type { SandboxProduct } from './product.ts'

export const priorityBoarding: SandboxProduct<'priority_boarding'> = {
  search: (ctx, trip) => ({
    products: journeyServiceProducts(
      ctx,
      trip,
      'priority_boarding',
      'Priority boarding',
      (policy, journey) => journeyFamily(policy, journey)?.includes_priority_boarding === true,
    ),
  }),
  offerKey: (_ctx, trip, item) => journeyServiceKey(trip, item, 'priority_boarding'),
  refund: 'none',
}
