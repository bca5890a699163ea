/**
 * The sandbox airline's test scenarios (docs/decisions.md; adapter.ts says what each does): magic marketing
 * flight numbers on any segment within an item's scope, acting on trips flagged sandbox unless the options
 * say `scenarios: 'always'`.
 */
import type { SupplierTrip } from '../../ports/supplier.ts'
import type { SupplierTax } from '../../ports/supplier-answers.ts'
import type { AncillaryItem } from '../../schemas/basket.ts'
import type { OriginalMoney } from '../../schemas/common.ts'
import type { Segment } from '../../schemas/trip.ts'
import { type Context, policyFor, taxesFor } from './offer-rules.ts'

export const SANDBOX_SCENARIOS = {
  price_change: '9001',
  unavailable: '9002',
  fulfillment_fails: '9003',
  slow_check: '9004',
  cancellation_refused: '9005',
} as const

export const onFlight = (segments: Segment[], number: string): boolean =>
  segments.some((s) => s.marketing_flight_number === number)

/** Whether the scenarios act on this trip: real flights can carry the magic numbers too. */
export const scenariosOn = (ctx: Context, trip: SupplierTrip): boolean => ctx.scenariosAlways || trip.sandbox

/** Whether a scenario acts on an item whose segments are `segments`. */
export const inScenario = (
  ctx: Context,
  trip: SupplierTrip,
  segments: Segment[],
  scenario: keyof typeof SANDBOX_SCENARIOS,
): boolean => scenariosOn(ctx, trip) && onFlight(segments, SANDBOX_SCENARIOS[scenario])

/** What the airline asks for one unit now: the offer, raised on a `9001` flight for the products that change. */
export function currentUnit(
  ctx: Context,
  trip: SupplierTrip,
  item: AncillaryItem,
  segments: Segment[],
  offer: { base: OriginalMoney; taxes: SupplierTax[] },
): { base: OriginalMoney; taxes: SupplierTax[] } {
  const type = item.product_type
  if (!(ctx.priceChangeProducts.has(type) && offer.base.amount > 0 && inScenario(ctx, trip, segments, 'price_change')))
    return offer
  const raised = Math.round((offer.base.amount * (100 + ctx.priceIncreasePercent)) / 100)
  // The airline that sold the offer: its first segment's (a journey's first, for journey products).
  const policy = segments[0] ? policyFor(ctx, segments[0].marketing_airline) : ctx.generic
  return { base: { ...offer.base, amount: raised }, taxes: taxesFor(policy, type, raised) }
}
