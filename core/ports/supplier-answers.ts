/**
 * What a supplier answered, in the shapes the store keeps it (records.ts's StoredOffers, the seat maps):
 * apart from supplier.ts so that the records and the supplier port do not import each other.
 */
import type { OriginalMoney } from '../schemas/common.ts'
import type { ProductTypeName } from '../schemas/trip.ts'

/** A supplier's own identifiers, kept for it with a trip or a search; the core never reads them. */
export type SupplierRefs = Record<string, unknown>

/**
 * What a seller needs to find an order at its supplier (docs/decisions.md "Duffel as it really answers",
 * Reconciliation): the supplier's order, the ids of the services its booking made or found there, and the
 * supplier's request id when the outcome of a purchase is unknown. Shown with the order.
 */
export interface OrderSupplierRefs {
  order_id?: string
  service_ids?: string[]
  request_id?: string
}

/** A product type a search could not read while others were: it is left out, and this says why. */
export interface PartialFailure {
  product_type: ProductTypeName
  failure_reason: string
}

export interface SupplierTax {
  tax_type: string
  amount: number
}

/** A priced availability for one passenger, in the airline's currency. */
export interface SupplierPassengerOffer {
  available: boolean
  /**
   * Unit price in `currency`'s minor units, before taxes; tax-inclusive when the supplier states no taxes
   * apart (Duffel's prices): then `taxes` is empty. null when not available.
   */
  base: OriginalMoney | null
  taxes: SupplierTax[]
  quantity_limit: number
  reason?: string
  /** The supplier's ids for this offer to this passenger (Duffel's service ids), shown on a basket item priced from it. */
  refs?: string[]
}

/** A seat map as the airline flies it: the same for every trip on the flight, so stored once per `key`. */
export interface SupplierSeatMap {
  /**
   * Names this exact content: two maps under one key are equal (the sandbox: aircraft layout, flight and
   * date). A map whose seats changed (sold since) needs a new key.
   */
  key: string
  aircraft: string
  decks: Array<{
    deck: number
    name: string
    /** The seat columns across the deck, in order (letters); a map drawn from seat designators lists those found. */
    columns: string[]
    aisles_after: string[]
    rows: Array<{
      row: number
      exit: boolean
      /** Over the wing; false also when the airline does not say. */
      wing: boolean
      /** `band` names the seat's price band; null when the seat is not on sale (taken). */
      seats: Array<{
        column: string
        characteristics: string[]
        band: string | null
        /** The airline's notices about this seat (e.g. "no recline"), shown with it. */
        disclosures?: string[]
        /** The supplier's id of this seat for each passenger offered it (Duffel's service ids), by passenger id. */
        refs?: Record<string, string>
      }>
    }>
  }>
}
