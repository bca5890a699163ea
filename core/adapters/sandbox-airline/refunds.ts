/**
 * The sandbox airline's refunds (docs/decisions.md "After-sale"), in the trip currency, from what was paid: each
 * product type's module names its rule (products/product.ts `RefundRule`), applied here.
 */
import { applyPercentage } from '../../domain/money.ts'
import type { SupplierCancellationQuote, SupplierOrder, SupplierTrip } from '../../ports/supplier.ts'
import type { Money } from '../../schemas/common.ts'
import { itemSegments } from './offer-rules.ts'
import { PRODUCT_MODULES } from './product-modules.ts'
import type { RefundRule } from './products/product.ts'

const CANCELLATION_FEE_PERCENT = 20
const FULL_REFUND_UNTIL_MS = 24 * 3_600_000

const ruleOf = (type: string): RefundRule =>
  Object.hasOwn(PRODUCT_MODULES, type) ? PRODUCT_MODULES[type as keyof typeof PRODUCT_MODULES].refund : 'none'

export function cancellationQuote(
  trip: SupplierTrip,
  { order, item }: SupplierOrder,
  now: Date,
): SupplierCancellationQuote {
  const no = (reason: string): SupplierCancellationQuote => ({
    order_id: order.order_id,
    cancellable: false,
    refund: null,
    reason,
  })
  const yes = (refund: Money): SupplierCancellationQuote => ({ order_id: order.order_id, cancellable: true, refund })
  const departs = Math.min(...itemSegments(trip, item).map((s) => Date.parse(s.departure_time)))
  const left = departs - now.getTime()
  if (!(left > 0)) return no('departed')
  const paid = order.price.total
  switch (ruleOf(item.product_type)) {
    case 'full_until_a_day_before':
      return left >= FULL_REFUND_UNTIL_MS ? yes(paid) : no('too_close_to_departure')
    // Less the airline's fee, rounded half away from zero.
    case 'less_fee_until_departure': {
      const less = (m: { amount: number }) => m.amount - applyPercentage(m.amount, CANCELLATION_FEE_PERCENT)
      return yes({
        ...paid,
        amount: less(paid),
        in_original_currency: { ...paid.in_original_currency, amount: less(paid.in_original_currency) },
      })
    }
    case 'none':
      return no('non_refundable')
  }
}
