/** Automatic check-in: a journey service (journey-service.ts) no fare family includes. */
import { journeyServiceKey, journeyServiceProducts } from './journey-service.ts'
import type { SandboxProduct } from './product.ts'

export const automaticCheckIn: SandboxProduct<'automatic_check_in'> = {
  search: (ctx, trip) => ({
    products: journeyServiceProducts(ctx, trip, 'automatic_check_in', 'Automatic check-in', () => false),
  }),
  offerKey: (_ctx, trip, item) => journeyServiceKey(trip, item, 'automatic_check_in'),
  // A check-in not yet used is refunded in full until a day before the journey.
  refund: 'full_until_a_day_before',
}
