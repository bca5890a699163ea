/**
 * The sandbox airline's module of each product type. Keyed by every product type the contract names, so a
 * product type without its module here does not compile.
 */
import type { ProductTypeName } from '../../schemas/trip.ts'
import { automaticCheckIn } from './products/automatic-check-in.ts'
import { bags } from './products/bags.ts'
import { fareFamilyUpsell } from './products/fare-family-upsell.ts'
import { priorityBoarding } from './products/priority-boarding.ts'
import type { SandboxProduct } from './products/product.ts'
import { seats } from './products/seats.ts'

export const PRODUCT_MODULES: { readonly [T in ProductTypeName]: SandboxProduct<T> } = {
  bag: bags,
  seat: seats,
  priority_boarding: priorityBoarding,
  automatic_check_in: automaticCheckIn,
  fare_family_upsell: fareFamilyUpsell,
}

/** The module of a product type, for an item or a type whose exact type is a union. */
export const productModule = <T extends ProductTypeName>(type: T): SandboxProduct<T> =>
  PRODUCT_MODULES[type] as SandboxProduct<T>
