/** Basket items, product details per product type, validity, and the basket change requests. */
import { Type, type Static } from 'typebox'
import { CurrencyCode, DecimalPlaces, Id, Price, UtcTimestamp, Nullable } from './common.ts'
import { PRODUCT_TYPE_NAMES, type ProductTypeName } from './product-types.ts'

export const BagDetails = Type.Object({
  checked: Type.Boolean(),
  journey_id: Id,
  /** A bag for several journeys at once (the airline sells it for the whole trip): every journey it covers, `journey_id` the first. */
  journey_ids: Type.Optional(
    Type.Array(Id, {
      minItems: 2,
      description:
        'every journey a bag sold for several at once covers (e.g. the whole trip); `journey_id` is the first. Absent: the bag is for `journey_id` only',
    }),
  ),
  passenger_id: Type.Optional(Id),
  // Size and weight with their units, when the airline states them (a bag it does not measure has neither).
  size: Type.Optional(
    Type.Number({
      description: 'largest allowed sum of dimensions (length + width + height), when the airline states it',
    }),
  ),
  size_unit: Type.Optional(Type.Literal('cm')),
  weight: Type.Optional(Type.Number({ description: 'the largest weight allowed, when the airline states it' })),
  weight_unit: Type.Optional(Type.Literal('kg')),
  dimensions: Type.Optional(Type.Object({ length: Type.Number(), width: Type.Number(), height: Type.Number() })),
  pieces: Type.Optional(Type.Integer({ minimum: 1 })),
})
export type BagDetails = Static<typeof BagDetails>

export const SeatDetails = Type.Object({
  row: Type.Integer({ minimum: 1 }),
  column: Type.String({ pattern: '^[A-Z]$' }),
  passenger_id: Type.Optional(Id),
  segment_id: Id,
  characteristics: Type.Optional(Type.Array(Type.String())),
})
export type SeatDetails = Static<typeof SeatDetails>

export const JourneyProductDetails = Type.Object({
  journey_id: Id,
  passenger_id: Type.Optional(Id),
})
export type JourneyProductDetails = Static<typeof JourneyProductDetails>

export const FareFamilyDetails = Type.Object({
  journey_id: Id,
  passenger_id: Type.Optional(Id),
  fare_family: Type.String(),
  from_fare_family: Nullable(Type.String()),
  benefits: Type.Array(Type.String()),
})
export type FareFamilyDetails = Static<typeof FareFamilyDetails>

export const TicketDetails = Type.Object({
  journeys: Type.Array(
    Type.Object({
      journey_id: Id,
      segments: Type.Array(Type.Object({ segment_id: Id }, { additionalProperties: true })),
    }),
  ),
})

export const ValidityStatus = Type.Union([
  Type.Literal('valid'),
  Type.Literal('checking'),
  Type.Literal('price_changed'),
  Type.Literal('unavailable'),
  Type.Literal('invalid'),
])
export type ValidityStatus = Static<typeof ValidityStatus>

export const Validity = Type.Object({
  status: ValidityStatus,
  valid_from: UtcTimestamp,
  valid_to: UtcTimestamp,
  /** The price before a change, kept for display while the item is `price_changed`. */
  previous_price: Type.Optional(Price),
  /** Why an item is `unavailable` (or `invalid` after a failed check), e.g. `no_longer_offered`. */
  reason: Type.Optional(Type.String()),
})
export type Validity = Static<typeof Validity>

/** The ticket and every product type (product-types.ts). */
export const BasketProductType = Type.Unsafe<'ticket' | ProductTypeName>(
  Type.Union([Type.Literal('ticket'), ...PRODUCT_TYPE_NAMES.map((t) => Type.Literal(t))]),
)
export type BasketProductType = 'ticket' | ProductTypeName

/** `awaiting_ticketing`: ordered on a trip fulfilled with `is_ticketed: false`, held until its tickets are issued. */
export const ORDER_STATUSES = [
  'awaiting_ticketing',
  'queued',
  'in_progress',
  'succeeded',
  'failed',
  'cancelling',
  'cancelled',
] as const
export const OrderStatus = Type.Unsafe<(typeof ORDER_STATUSES)[number]>(
  Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s))),
)
export type OrderStatus = (typeof ORDER_STATUSES)[number]

/**
 * The seller's own mark-up on one basket item (docs/api.md "A mark-up of your own on one item"): an amount per
 * unit, in the trip currency's minor units, added to the product type's mark-up. `currency` and `decimal_places` must be
 * the trip's (core/domain/pricing.ts checkItemMarkup); they are asked for so that an amount is never read in the
 * wrong unit. The bound is a type rule's `fixed` one: nine units of it stay exact (money.ts MAX_MINOR_UNITS).
 */
export const ItemMarkup = Type.Object(
  {
    amount: Type.Integer({ minimum: 0, maximum: 2 ** 40 }),
    currency: CurrencyCode,
    decimal_places: DecimalPlaces,
  },
  {
    additionalProperties: false,
    description:
      "the seller's mark-up per unit of this item, in the trip currency; shown in price.markups with markup_type `item`",
  },
)
export type ItemMarkup = Static<typeof ItemMarkup>

export const BasketItem = Type.Object({
  basket_item_id: Id,
  display_name: Type.String(),
  product_id: Id,
  product_type: BasketProductType,
  quantity: Type.Integer({ minimum: 1 }),
  ticket_id: Id,
  benefits: Type.Array(Type.Unknown()),
  price: Price,
  /** Present when a basket line set one: every pricing of the item (checks, price changes) applies it. */
  markup: Type.Optional(ItemMarkup),
  product_details: Type.Record(Type.String(), Type.Unknown()),
  validity: Validity,
  /**
   * Set once the item was ordered (by a fulfill): the order that bought it, and that order's status. An
   * ordered item is read-only; to undo it, cancel it (POST .../to_cancel).
   */
  order_id: Type.Optional(Id),
  order_status: Type.Optional(OrderStatus),
  /**
   * Present on an item priced from a real supplier's offer: the supplier and its own ids for this offer to
   * this passenger, so a seller booking with that supplier itself can pass them into its booking (Duffel:
   * the `ase_…` service ids to send as an order's `services`). Not on the sandbox airline's items.
   */
  supplier: Type.Optional(Type.Object({ name: Type.String(), service_ids: Type.Array(Type.String()) })),
})

/** The details of each product type's items (the ticket's: its journeys, as the API shows them; stored empty). */
export interface ProductDetailsByType {
  ticket: Static<typeof TicketDetails>
  bag: BagDetails
  seat: SeatDetails
  priority_boarding: JourneyProductDetails
  automatic_check_in: JourneyProductDetails
  fare_family_upsell: FareFamilyDetails
}

/**
 * What `product_details` holds on an item of product type T. Each field has its type when it is there, none
 * is promised: the details are the supplier's offer's as the search gave them (an open record in the schema,
 * which `BasketItem` keeps, so the OpenAPI document and validation stay as they are), and a supplier may give
 * other fields too.
 */
export type ProductDetails<T extends BasketProductType> = Partial<ProductDetailsByType[T]> & {
  [field: string]: unknown
}

/** A basket item of product type T, its details typed by it. */
export type BasketItemOf<T extends BasketProductType> = Omit<
  Static<typeof BasketItem>,
  'product_type' | 'product_details'
> & { product_type: T; product_details: ProductDetails<T> }

/** A basket item, discriminated by `product_type`: checking it types `product_details`. */
export type BasketItem = { [T in BasketProductType]: BasketItemOf<T> }[BasketProductType]

/** A basket item of an ancillary (every product type but the ticket): its details name its passenger. */
export type AncillaryItem = Exclude<BasketItem, { product_type: 'ticket' }>

export const Basket = Type.Record(Type.String(), BasketItem, { description: 'keyed by basket_item_id' })
export type Basket = Record<string, BasketItem>

/** One line of PATCH/PUT .../basket. */
export const BasketChangeLine = Type.Object(
  {
    product_id: Id,
    passenger_id: Id,
    quantity: Type.Integer({ minimum: 1, maximum: 9 }),
    /** Sets the item's mark-up; a line without one leaves an existing item's as it is (PATCH) or removes it (PUT). */
    markup: Type.Optional(ItemMarkup),
  },
  { additionalProperties: false },
)
export type BasketChangeLine = Static<typeof BasketChangeLine>

export const BasketAddRequest = Type.Array(BasketChangeLine, { minItems: 1, maxItems: 50 })
export const BasketReplaceRequest = Type.Array(BasketChangeLine, { maxItems: 50 })
export type BasketChangeRequest = Static<typeof BasketReplaceRequest>
