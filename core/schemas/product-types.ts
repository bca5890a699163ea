/**
 * The product types on sale besides tickets: the one list the others are derived from (the contract's unions
 * and per-type maps in trip.ts and basket.ts, the browser's product names, the sandbox airline's modules). A new
 * product type starts with its entry here; test/repo/product-types.test.ts counts the places that still name
 * product types one by one.
 *
 * Data only, importing nothing: the browser layers take its values (.dependency-cruiser.cjs allows this one
 * module of core/), so whatever is here is in svc.min.js, whose size budget is spent to the last bytes. That is
 * why each entry is only the browser's name (`allowProducts`, `<svc-upsell>`'s `products`, events' `product`):
 * a view and a title per entry were measured at 45 bytes gzip over the budget, so the widgets keep them in
 * maps typed `Record<ProductName, …>` (components/upsell/upsell.component.ts, components/dialog-frames/), which
 * do not compile until a new entry has its own.
 *
 * Keyed by the API's name (`product_type` in searches and baskets, the keys of `search` and `markups`), in the
 * order a search lists them and the upsell shows them.
 */
export const PRODUCT_TYPES = {
  bag: 'bags',
  seat: 'seats',
  priority_boarding: 'priority_boarding',
  automatic_check_in: 'automatic_check_in',
  fare_family_upsell: 'fare_family_upsell',
} as const

export type ProductTypeName = keyof typeof PRODUCT_TYPES
/** A product type's browser name (`bags`, `seats`, …). */
export type ProductName = (typeof PRODUCT_TYPES)[ProductTypeName]

/** The API's names, in the registry's order. */
export const PRODUCT_TYPE_NAMES = Object.keys(PRODUCT_TYPES) as readonly ProductTypeName[]
/** The browser's names, in the same order. */
export const PRODUCT_NAMES = Object.values(PRODUCT_TYPES) as readonly ProductName[]
