/** Search results: products keyed by product_id with per-passenger price and availability, and seat maps. */
import { Type, type Static } from 'typebox'
import { Id, Price, Nullable } from './common.ts'
import { ProductTypeName } from './trip.ts'

export const PriceAndAvailability = Type.Object({
  available: Type.Boolean(),
  price: Nullable(Price),
  quantity_limit: Type.Integer({ minimum: 0 }),
  /** Why a product is not available to this passenger (for example `lap_infant`). */
  reason: Type.Optional(Type.String()),
})
export type PriceAndAvailability = Static<typeof PriceAndAvailability>

export const Product = Type.Object({
  product_id: Id,
  product_type: ProductTypeName,
  display_name: Type.String(),
  product_details: Type.Record(Type.String(), Type.Unknown()),
  price_and_availability: Type.Record(Type.String(), PriceAndAvailability, { description: 'keyed by passenger_id' }),
  /** Allowance the ticket already includes for this product kind, where known (e.g. one 8 kg cabin bag). */
  included: Type.Optional(Type.Boolean()),
})
export type Product = Static<typeof Product>

export const SeatCharacteristic = Type.Union([
  Type.Literal('window'),
  Type.Literal('aisle'),
  Type.Literal('middle'),
  Type.Literal('exit_row'),
  Type.Literal('extra_legroom'),
  Type.Literal('restricted_recline'),
  Type.Literal('no_infant'),
  Type.Literal('over_wing'),
  Type.Literal('front'),
  Type.Literal('bassinet'),
])
export type SeatCharacteristic = Static<typeof SeatCharacteristic>

export const SeatMapSeat = Type.Object({
  column: Type.String(),
  row: Type.Integer(),
  product_id: Nullable(Id),
  available: Type.Boolean(),
  characteristics: Type.Array(Type.String()),
  /** The airline's notices about the seat (e.g. "Seat does not recline"), when it gives any: shown with the seat. */
  disclosures: Type.Optional(Type.Array(Type.String())),
})
export type SeatMapSeat = Static<typeof SeatMapSeat>

export const SeatMapRow = Type.Object({
  row: Type.Integer(),
  seats: Type.Array(SeatMapSeat),
  exit: Type.Boolean(),
  wing: Type.Boolean(),
})

export const SeatMapDeck = Type.Object({
  deck: Type.Integer({ minimum: 0 }),
  name: Type.String(),
  columns: Type.Array(Type.String(), { description: 'column letters in order, left to right' }),
  aisles_after: Type.Array(Type.String(), { description: 'an aisle follows each of these columns' }),
  rows: Type.Array(SeatMapRow),
})

export const SeatMap = Type.Object({
  segment_id: Id,
  aircraft: Type.String(),
  decks: Type.Array(SeatMapDeck),
})
export type SeatMap = Static<typeof SeatMap>

export const SearchStatus = Type.Union([Type.Literal('in_progress'), Type.Literal('success'), Type.Literal('failed')])

export const SearchResults = Type.Object({
  products: Type.Record(Type.String(), Type.Record(Type.String(), Product), {
    description: 'product type → product_id → product',
  }),
  seatmaps: Type.Array(SeatMap),
})
export type SearchResults = Static<typeof SearchResults>

export const Search = Type.Object({
  search_id: Id,
  status: SearchStatus,
  /**
   * Why a `failed` search failed: `supplier_timeout`, `supplier_unavailable` (down, overloaded),
   * `supplier_refused` (the seller's credentials), `not_found` (the offer or order it names), `not_matched`
   * (the trip's passengers or segments are not that offer's or order's), `supplier_not_configured`.
   */
  failure_reason: Type.Optional(Type.String()),
  /**
   * A `success` search whose supplier could not give every product type asked for: the types left out and
   * why (the same reasons as `failure_reason`, and `supplier_invalid_answer`). Their widgets show their error
   * state (`onSeatFail`, `onBagFail`); the other types' offers are in `results`.
   */
  partial_failures: Type.Optional(
    Type.Array(Type.Object({ product_type: ProductTypeName, failure_reason: Type.String() })),
  ),
  results: SearchResults,
})
export type Search = Static<typeof Search>

export const SearchStarted = Type.Object({ search_id: Id, status: SearchStatus })
