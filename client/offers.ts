/**
 * What a trip offers and what its basket holds, by `allowProducts` name: no texts and no Lit, so the SDK
 * (which decides which products to show) and the widgets (components/internal/format.ts re-exports these)
 * read offers the same way.
 */
import type { Basket, BasketItem, ProductName, Search } from './types.ts'
import type { PriceAndAvailability, Product } from '../core/schemas/search.ts'
import { PRODUCT_TYPE_NAMES, PRODUCT_TYPES, type ProductTypeName } from '../core/schemas/product-types.ts'

export type { Product, PriceAndAvailability }

/** The basket / search `product_type` behind each `allowProducts` name. */
export const PRODUCT_TYPE = Object.fromEntries(PRODUCT_TYPE_NAMES.map((t) => [PRODUCT_TYPES[t], t])) as Record<
  ProductName,
  ProductTypeName
>

export const productNameOf = (type: string): ProductName | null =>
  Object.hasOwn(PRODUCT_TYPES, type) ? PRODUCT_TYPES[type as ProductTypeName] : null

/** Items the traveller chose here: everything but the flight ticket itself. */
export const isExtra = (item: BasketItem): boolean => item.product_type !== 'ticket'

export function productsOf(search: Search | null, name: ProductName): Product[] {
  return Object.values(search?.results.products[PRODUCT_TYPE[name]] ?? {})
}

/** Something of this kind can be bought by at least one passenger (allowances alone are not an offer). */
export function isOffered(search: Search | null, name: ProductName): boolean {
  return productsOf(search, name).some(
    (p) => !p.included && Object.values(p.price_and_availability).some((o) => o.available),
  )
}

/** Items the traveller chose here and has not paid for yet: a later fulfill orders them (and the total counts them). */
export function extras(basket: Basket): BasketItem[] {
  return Object.values(basket).filter((i) => isExtra(i) && i.order_id === undefined)
}

/** An item takes its product's place (a seat, a quantity) unless its order failed or was cancelled. */
export const holds = (i: BasketItem): boolean => i.order_status !== 'failed' && i.order_status !== 'cancelled'

/** Items bought by an earlier fulfill and still held: read-only, shown as purchased. */
export function purchased(basket: Basket): BasketItem[] {
  return Object.values(basket).filter((i) => isExtra(i) && i.order_id !== undefined && holds(i))
}
