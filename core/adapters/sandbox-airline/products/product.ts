/**
 * What the sandbox airline knows of one product type: its offers on a trip, the offer key an item was bought
 * under, and how a cancelled item is refunded. One module per product type implements it (products/*.ts), and
 * product-modules.ts keys them by product type, so the adapter never names a product.
 */
import type { SupplierProduct, SupplierSeatOffers, SupplierTrip } from '../../../ports/supplier.ts'
import type { BasketItemOf } from '../../../schemas/basket.ts'
import type { ProductTypeName } from '../../../schemas/trip.ts'
import type { Context, SearchOptions } from '../offer-rules.ts'

/**
 * The refund rules of docs/decisions.md "After-sale", which refunds.ts applies: `full_until_a_day_before`, the
 * whole price until 24 hours before the journey; `less_fee_until_departure`, the price less the airline's fee
 * until departure; `none`, not refundable.
 */
export type RefundRule = 'full_until_a_day_before' | 'less_fee_until_departure' | 'none'

export interface SandboxProduct<T extends ProductTypeName> {
  /** The trip's offers of this type: products, or (seats) maps with their price bands. */
  search(
    ctx: Context,
    trip: SupplierTrip,
    opts: SearchOptions,
  ): { products?: SupplierProduct[]; seats?: SupplierSeatOffers[] }
  /** The offer key an item was bought under, rebuilt from its details; null when they do not say enough. */
  offerKey(ctx: Context, trip: SupplierTrip, item: BasketItemOf<T>): string | null
  refund: RefundRule
}
