/**
 * Product search: asks the supplier for offers and prices them for the trip (currency conversion and the
 * seller's mark-ups). A product keeps the same product_id for a trip across searches, derived from the
 * supplier's offer key, so items already in the basket still name a product of the newest search.
 */
import type { Clock, SearchRecord, Supplier, SupplierPassengerOffer, TripRecord, SupplierTrip } from './ports.ts'
import { PRODUCT_TYPE_NAMES, type ProductTypeName, type SearchSelection } from './schemas/trip.ts'
import type { Product, PriceAndAvailability, SeatMap } from './schemas/search.ts'
import type { Price } from './schemas/common.ts'
import { uuidFromHash } from './crypto.ts'
import { priceOffer, markupRuleFor } from './pricing.ts'

export function selectedTypes(sel: SearchSelection | undefined): ProductTypeName[] {
  return PRODUCT_TYPE_NAMES.filter((t) => sel?.[t]?.search === true)
}

export function supplierView(trip: TripRecord): SupplierTrip {
  return { trip_id: trip.trip_id, sandbox: trip.sandbox, journeys: trip.journeys, passengers: trip.passengers, tickets: trip.tickets }
}

/** Prices one passenger's unit offer in the trip currency with the seller's mark-up for the product type. */
export function priceFor(trip: TripRecord, type: ProductTypeName, offer: Pick<SupplierPassengerOffer, 'base' | 'taxes'>, quantity: number): Price | null {
  if (!offer.base) return null
  return priceOffer({
    unitBase: offer.base, taxes: offer.taxes, quantity, tripCurrency: trip.currency,
    markup: markupRuleFor(trip.markups, type), markupType: type,
  })
}

/** The supplier original of a priced unit offer, to re-price another quantity exactly. */
export function unitOfferOf(price: Price): Pick<SupplierPassengerOffer, 'base' | 'taxes'> {
  return {
    base: price.base.in_original_currency,
    taxes: price.taxes.map((t) => ({ tax_type: t.tax_type, amount: t.in_original_currency.amount })),
  }
}

export async function runSearch(trip: TripRecord, types: ProductTypeName[], deps: { supplier: Supplier; clock: Clock; searchId: string }): Promise<SearchRecord> {
  const record: SearchRecord = {
    search_id: deps.searchId, trip_id: trip.trip_id, status: 'success',
    results: { products: {}, seatmaps: [] }, offer_keys: {}, created_at: deps.clock.now().toISOString(),
  }
  if (types.length === 0) return record
  let offers
  try {
    offers = await deps.supplier.search(supplierView(trip), types)
  } catch {
    // A supplier outage fails this search, not the request: the seller sees `failed` and can search again.
    return { ...record, status: 'failed' }
  }
  const idOf = new Map<string, string>()
  // Seats share a few zone prices: price each distinct offer once (exact BigInt pricing is not free).
  const priced = new Map<string, ReturnType<typeof priceFor>>()
  const unitPrice = (type: ProductTypeName, o: SupplierPassengerOffer) => {
    const key = `${type}\u0000${JSON.stringify(o.base)}\u0000${JSON.stringify(o.taxes)}`
    if (!priced.has(key)) priced.set(key, priceFor(trip, type, o, 1))
    return priced.get(key)!
  }
  for (const p of offers.products) {
    const product_id = await uuidFromHash(`${trip.trip_id}\u0000${p.offer_key}`)
    idOf.set(p.offer_key, product_id)
    record.offer_keys[product_id] = p.offer_key
    const price_and_availability: Record<string, PriceAndAvailability> = {}
    for (const [pid, o] of Object.entries(p.per_passenger)) {
      price_and_availability[pid] = {
        available: o.available,
        price: o.available ? unitPrice(p.product_type, o) : null,
        quantity_limit: o.available ? o.quantity_limit : 0,
        ...(o.reason ? { reason: o.reason } : {}),
      }
    }
    const product: Product = {
      product_id, product_type: p.product_type, display_name: p.display_name,
      product_details: p.product_details, price_and_availability,
      ...(p.included !== undefined ? { included: p.included } : {}),
    }
    ;(record.results.products[p.product_type] ??= {})[product_id] = product
  }
  record.results.seatmaps = offers.seatmaps.map((m): SeatMap => ({
    segment_id: m.segment_id, aircraft: m.aircraft,
    decks: m.decks.map((d) => ({
      ...d,
      rows: d.rows.map((r) => ({
        ...r,
        seats: r.seats.map((s) => ({
          column: s.column, row: s.row, available: s.available, characteristics: s.characteristics,
          product_id: s.offer_key ? idOf.get(s.offer_key) ?? null : null,
        })),
      })),
    })),
  }))
  return record
}

export function findProduct(search: SearchRecord, productId: string): Product | undefined {
  for (const byId of Object.values(search.results.products)) {
    const p = byId[productId]
    if (p) return p
  }
  return undefined
}
