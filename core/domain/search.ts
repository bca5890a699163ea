/**
 * Product search: asks the supplier for offers, stores them compact, and renders the API's shape from them
 * priced for the trip (currency conversion and the seller's mark-ups).
 *
 * The stored form (core/ports/records.ts `StoredOffers`) keeps what the supplier said once: each distinct per-passenger
 * offer once (a seat map's hundreds of seats share a handful of prices), seat maps once per flight in their
 * own table, and no product ids. A product's id is derived from the trip and the supplier's offer key, so a
 * product keeps its id for a trip across searches and items already in the basket still name a product of
 * the newest search; ids are computed when a search is first read and kept with it in memory.
 */
import type { Clock } from '../ports/clock.ts'
import type { SearchRecord, StoredOffers, TripRecord } from '../ports/records.ts'
import type {
  Supplier,
  SupplierContext,
  SupplierOffers,
  SupplierProduct,
  SupplierSeatOffers,
  SupplierTrip,
} from '../ports/supplier.ts'
import type { SupplierPassengerOffer, SupplierSeatMap } from '../ports/supplier-answers.ts'
import { isSupplierError, supplierFailureOf } from '../ports/supplier-errors.ts'
import { PRODUCT_TYPE_NAMES, type MarkupConfig, type ProductTypeName, type SearchSelection } from '../schemas/trip.ts'
import type { Product, PriceAndAvailability, Search, SeatMap } from '../schemas/search.ts'
import type { OriginalMoney, Price } from '../schemas/common.ts'
import type { ItemMarkup } from '../schemas/basket.ts'
import { uuidFromHash } from '../shared/crypto.ts'
import { own, table } from '../shared/safe-maps.ts'
import { ProblemError } from '../shared/errors.ts'
import { priceOffer, markupRuleFor } from './pricing.ts'

export function selectedTypes(sel: SearchSelection | undefined): ProductTypeName[] {
  return PRODUCT_TYPE_NAMES.filter((t) => sel?.[t]?.search === true)
}

export function supplierView(trip: TripRecord): SupplierTrip {
  return {
    trip_id: trip.trip_id,
    sandbox: trip.sandbox,
    journeys: trip.journeys,
    passengers: trip.passengers,
    tickets: trip.tickets,
    ...(trip.supplier_refs ? { supplier_refs: trip.supplier_refs } : {}),
  }
}

/**
 * What of its passengers the airline answers a search by: type, age, who holds a lap infant, loyalty.
 * When this changes the trip's offers may no longer hold (an exit-row seat for a passenger now 14).
 */
export function offerInputs(trip: Pick<TripRecord, 'passengers'>): string {
  return JSON.stringify(
    trip.passengers.map((p) => [p.passenger_id, p.type, p.date_of_birth, p.on_lap_of, p.loyalty_programs]),
  )
}

/** What prices a trip's offers: its currency and the seller's mark-ups (both fixed when the trip is created). */
export type TripPricing = Pick<TripRecord, 'currency' | 'markups'>

/**
 * Prices one passenger's unit offer in the trip currency with the seller's mark-up for the product type,
 * and a basket item's own mark-up when it has one (`BasketItem.markup`). Every price of the service but a
 * ticket's is made here: search results, basket changes, checks.
 */
export function priceFor(
  trip: TripPricing,
  type: ProductTypeName,
  offer: Pick<SupplierPassengerOffer, 'base' | 'taxes'>,
  quantity: number,
  itemMarkup?: ItemMarkup,
): Price | null {
  if (!offer.base) return null
  return priceOffer({
    unitBase: offer.base,
    taxes: offer.taxes,
    quantity,
    tripCurrency: trip.currency,
    markup: markupRuleFor(trip.markups, type),
    markupType: type,
    itemMarkup,
  })
}

/**
 * The supplier original of one unit of a price made for `quantity` units, to re-price it exactly (for
 * another quantity or mark-up): priceOffer multiplied each original by the quantity, so this divides evenly.
 */
export function unitOfferOf(price: Price, quantity = 1): Pick<SupplierPassengerOffer, 'base' | 'taxes'> {
  const unit = (m: OriginalMoney): OriginalMoney => ({ ...m, amount: m.amount / quantity })
  return {
    base: unit(price.base.in_original_currency),
    taxes: price.taxes.map((t) => ({ tax_type: t.tax_type, amount: unit(t.in_original_currency).amount })),
  }
}

/** The offer key of a seat: the supplier's seat maps name seats by position, and so do rechecks. */
export const seatOfferKey = (segmentId: string, row: number, column: string) => `seat:${segmentId}:${row}${column}`

/** A product's id for a trip: the same offer keeps the same id across the trip's searches. */
export const productIdOf = (tripId: string, offerKey: string) => uuidFromHash(`${tripId}\u0000${offerKey}`)

/**
 * Every seat on sale as a product (the supplier's per-seat view of its bands), in map order. Rechecks use
 * it to find a seat's current offer; reading a search renders the same products (SearchView).
 */
export function seatProducts(seats: SupplierSeatOffers): SupplierProduct[] {
  const out: SupplierProduct[] = []
  for (const deck of seats.map.decks) {
    for (const row of deck.rows) {
      for (const s of row.seats) {
        if (s.band === null) continue
        out.push({
          offer_key: seatOfferKey(seats.segment_id, row.row, s.column),
          product_type: 'seat',
          display_name: `Seat ${row.row}${s.column}`,
          product_details: {
            segment_id: seats.segment_id,
            row: row.row,
            column: s.column,
            characteristics: [...s.characteristics],
          },
          per_passenger: seats.bands[s.band] ?? {},
        })
      }
    }
  }
  return out
}

/** The supplier's answer in stored form, and the seat maps it names. */
export function compactOffers(
  offers: SupplierOffers,
  types: ProductTypeName[],
  passengerIds: string[],
): { stored: StoredOffers; seatMaps: SupplierSeatMap[] } {
  const table: SupplierPassengerOffer[] = []
  const indexOf = new Map<string, number>()
  const ref = (o: SupplierPassengerOffer | undefined): number => {
    const offer = o ?? { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'not_offered' }
    const key = JSON.stringify(offer)
    let i = indexOf.get(key)
    if (i === undefined) {
      i = table.push(offer) - 1
      indexOf.set(key, i)
    }
    return i
  }
  const perPassenger = (offers: Record<string, SupplierPassengerOffer>) =>
    passengerIds.map((id) => ref(own(offers, id)))
  const stored: StoredOffers = {
    types,
    passengers: passengerIds,
    offers: table,
    products: offers.products.map((p) => ({
      key: p.offer_key,
      type: p.product_type,
      name: p.display_name,
      details: p.product_details,
      ...(p.included !== undefined ? { included: p.included } : {}),
      offers: perPassenger(p.per_passenger),
    })),
    seats: offers.seats.map((s) => ({
      segment_id: s.segment_id,
      map: s.map.key,
      bands: Object.fromEntries(Object.entries(s.bands).map(([band, o]) => [band, perPassenger(o)])),
    })),
    ...(offers.expires_at ? { expires_at: offers.expires_at } : {}),
    ...(offers.refs ? { refs: offers.refs } : {}),
    ...(offers.partial_failures?.length ? { partial_failures: offers.partial_failures } : {}),
  }
  return { stored, seatMaps: offers.seats.map((s) => s.map) }
}

/** What a search needs: the supplier of the trip, who it is for, the clock and the new search's id. */
export interface SearchDeps {
  supplier: Supplier
  call: SupplierContext
  clock: Clock
  searchId: string
}

/**
 * The trip with `search` as its current search: what the supplier handed back with it (its refs, when its
 * offers expire) goes with it; a new answer of the airline clears what earlier checks found of its products.
 */
export function adoptSearch(trip: TripRecord, search: SearchRecord): TripRecord {
  const { checked_offers: _c, supplier_refs: _r, offers_expire_at: _e, ...rest } = trip
  const keep = search.status === 'in_progress' ? trip : rest
  return {
    ...keep,
    search_id: search.search_id,
    search_status: search.status,
    ...(search.offers.refs ? { supplier_refs: search.offers.refs } : {}),
    ...(search.offers.expires_at ? { offers_expire_at: search.offers.expires_at } : {}),
  }
}

/** Searches a trip access token (a traveller's browser) may start per trip in a minute (docs/decisions.md). */
export const TRAVELLER_SEARCHES_PER_MINUTE = 10

/**
 * The trip with one more search started by a traveller, or a `rate_limited` refusal (with when to come
 * back) when it has started TRAVELLER_SEARCHES_PER_MINUTE in the last minute: a browser that asks in a loop
 * cannot fill the supplier's lane.
 */
export function withTravellerSearch(trip: TripRecord, now: Date): TripRecord {
  const since = now.getTime() - 60_000
  const recent = (trip.search_starts ?? []).filter((at) => Date.parse(at) > since)
  if (recent.length >= TRAVELLER_SEARCHES_PER_MINUTE) {
    const waitS = Math.max(1, Math.ceil((Date.parse(recent[0]!) - since) / 1000))
    throw new ProblemError(
      'rate_limited',
      `This trip started ${recent.length} searches in the last minute, the most a trip access token may: search again in ${waitS} s.`,
      undefined,
      { 'retry-after': String(waitS) },
    )
  }
  return { ...trip, search_starts: [...recent, now.toISOString()] }
}

/** A search that has not been answered yet (a remote supplier's, completed by a job). */
export function pendingSearch(
  trip: TripRecord,
  types: ProductTypeName[],
  deps: Pick<SearchDeps, 'clock' | 'searchId'>,
): SearchRecord {
  return {
    search_id: deps.searchId,
    trip_id: trip.trip_id,
    created_at: deps.clock.now().toISOString(),
    status: 'in_progress',
    offers: noOffers(types),
  }
}

const noOffers = (types: ProductTypeName[], failure_reason?: string): StoredOffers => ({
  types,
  passengers: [],
  offers: [],
  products: [],
  seats: [],
  ...(failure_reason ? { failure_reason } : {}),
})

/**
 * Runs a search for the trip: the record to store and the seat maps it names. A supplier's failure is a
 * `failed` search with its `failure_reason`, unless it may pass (a time-out, an outage) and the caller
 * retries: then it is thrown (`retry`), and the caller gives up with the reason when it runs out of tries.
 */
export async function runSearch(
  trip: TripRecord,
  types: ProductTypeName[],
  deps: SearchDeps,
  opts: { retry?: boolean } = {},
): Promise<{ search: SearchRecord; seatMaps: SupplierSeatMap[] }> {
  const base = { search_id: deps.searchId, trip_id: trip.trip_id, created_at: deps.clock.now().toISOString() }
  if (types.length === 0) return { search: { ...base, status: 'success', offers: noOffers(types) }, seatMaps: [] }
  let offers: SupplierOffers
  try {
    offers = await deps.supplier.search(
      deps.call,
      supplierView(trip),
      types.filter((t) => deps.supplier.capabilities.products.includes(t)),
    )
  } catch (e) {
    if (opts.retry && isSupplierError(e) && e.retryable) throw e
    // A supplier's failure fails this search, not the request: the seller sees `failed` and why, and can search again.
    return { search: failedSearch(trip, types, deps, e), seatMaps: [] }
  }
  const { stored, seatMaps } = compactOffers(
    offers,
    types,
    trip.passengers.map((p) => p.passenger_id),
  )
  return { search: { ...base, status: 'success', offers: stored }, seatMaps }
}

/** The search as failed, with the reason a supplier error gives (`supplier_unavailable` for anything else). */
export function failedSearch(
  trip: TripRecord,
  types: ProductTypeName[],
  deps: Pick<SearchDeps, 'clock' | 'searchId'>,
  error: unknown,
): SearchRecord {
  const reason = supplierFailureOf(error)
  return {
    search_id: deps.searchId,
    trip_id: trip.trip_id,
    created_at: deps.clock.now().toISOString(),
    status: 'failed',
    offers: noOffers(types, reason),
  }
}

type Located =
  | { kind: 'product'; product: StoredOffers['products'][number] }
  | {
      kind: 'seat'
      seats: StoredOffers['seats'][number]
      row: number
      column: string
      characteristics: string[]
      band: string
      refs?: Record<string, string>
    }

/**
 * A stored search read for one trip: renders the API's products and seat maps, priced for the trip, and
 * finds a product by id for basket changes. Immutable once built, so hosts keep it in memory.
 */
export class SearchView {
  readonly record: SearchRecord
  readonly #trip: TripRecord['trip_id']
  readonly #pricing: TripPricing
  readonly #maps: ReadonlyMap<string, SupplierSeatMap>
  #index: Map<string, Located> | null = null
  /** Priced offers by product type and offer index: a few distinct prices serve every seat. */
  #priced = new Map<string, PriceAndAvailability>()

  constructor(
    record: SearchRecord,
    trip: TripPricing & Pick<TripRecord, 'trip_id'>,
    maps: ReadonlyMap<string, SupplierSeatMap>,
  ) {
    this.record = record
    this.#trip = trip.trip_id
    this.#pricing = { currency: trip.currency, markups: trip.markups }
    this.#maps = maps
  }

  /** The seat map keys this search names (all must be loaded before the view is built). */
  static mapKeys(record: SearchRecord): string[] {
    return [...new Set(record.offers.seats.map((s) => s.map))]
  }

  /** The product with this id as the API shows it, or undefined when this search has none. */
  product(productId: string): Product | undefined {
    const at = this.#locate().get(productId)
    return at && this.#render(productId, at)
  }

  /** The supplier's own ids for this product's offer to this passenger (SupplierPassengerOffer.refs), if it gave any. */
  supplierRefs(productId: string, passengerId: string): string[] | undefined {
    const at = this.#locate().get(productId)
    if (!at) return undefined
    if (at.kind === 'seat') {
      const ref = at.refs && own(at.refs, passengerId)
      return ref ? [ref] : undefined
    }
    const i = this.record.offers.passengers.indexOf(passengerId)
    const offer = i < 0 ? undefined : this.record.offers.offers[at.product.offers[i]!]
    return offer?.refs
  }

  /** When the supplier's offers of this search stop being bookable, if it said. */
  get expiresAt(): string | undefined {
    return this.record.offers.expires_at
  }

  /** The supplier's offer key of a product of this search. */
  offerKey(productId: string): string | undefined {
    const at = this.#locate().get(productId)
    if (!at) return undefined
    return at.kind === 'product' ? at.product.key : seatOfferKey(at.seats.segment_id, at.row, at.column)
  }

  /** The API's search body; `types` keeps only those product types, and seat maps only with `seat`. */
  render(types?: readonly ProductTypeName[]): Search {
    const wanted = (t: ProductTypeName) => !types || types.includes(t)
    const products: Record<string, Record<string, Product>> = {}
    for (const p of this.record.offers.products) {
      if (!wanted(p.type)) continue
      const id = productIdOf(this.#trip, p.key)
      ;(products[p.type] ??= {})[id] = this.#render(id, { kind: 'product', product: p })
    }
    const seatmaps: SeatMap[] = []
    if (wanted('seat')) {
      for (const seats of this.record.offers.seats) {
        const map = this.#map(seats.map)
        seatmaps.push({
          segment_id: seats.segment_id,
          aircraft: map.aircraft,
          decks: map.decks.map((d) => ({
            deck: d.deck,
            name: d.name,
            columns: d.columns,
            aisles_after: d.aisles_after,
            rows: d.rows.map((r) => ({
              row: r.row,
              exit: r.exit,
              wing: r.wing,
              seats: r.seats.map((s) => {
                const id =
                  s.band === null ? null : productIdOf(this.#trip, seatOfferKey(seats.segment_id, r.row, s.column))
                if (id !== null) {
                  const at: Located = {
                    kind: 'seat',
                    seats,
                    row: r.row,
                    column: s.column,
                    characteristics: s.characteristics,
                    band: s.band!,
                  }
                  ;(products.seat ??= {})[id] = this.#render(id, at)
                }
                return {
                  column: s.column,
                  row: r.row,
                  product_id: id,
                  available: id !== null,
                  characteristics: s.characteristics,
                  ...(s.disclosures?.length ? { disclosures: s.disclosures } : {}),
                }
              }),
            })),
          })),
        })
      }
    }
    const failure = this.record.offers.failure_reason
    const partial = (this.record.offers.partial_failures ?? []).filter((f) => wanted(f.product_type))
    return {
      search_id: this.record.search_id,
      status: this.record.status,
      ...(failure ? { failure_reason: failure } : {}),
      ...(partial.length ? { partial_failures: partial.map((f) => ({ ...f })) } : {}),
      results: { products, seatmaps },
    }
  }

  #map(key: string): SupplierSeatMap {
    const map = this.#maps.get(key)
    if (!map) throw new Error(`seat map ${key} of search ${this.record.search_id} is not loaded`)
    return map
  }

  /** product_id → where the product is, built on first use (one hash per product and seat). */
  #locate(): Map<string, Located> {
    if (this.#index) return this.#index
    const index = new Map<string, Located>()
    for (const product of this.record.offers.products)
      index.set(productIdOf(this.#trip, product.key), { kind: 'product', product })
    for (const seats of this.record.offers.seats) {
      for (const d of this.#map(seats.map).decks) {
        for (const r of d.rows) {
          for (const s of r.seats) {
            if (s.band === null) continue
            index.set(productIdOf(this.#trip, seatOfferKey(seats.segment_id, r.row, s.column)), {
              kind: 'seat',
              seats,
              row: r.row,
              column: s.column,
              characteristics: s.characteristics,
              band: s.band,
              ...(s.refs ? { refs: s.refs } : {}),
            })
          }
        }
      }
    }
    return (this.#index = index)
  }

  #render(productId: string, at: Located): Product {
    const offers = this.record.offers
    const type: ProductTypeName = at.kind === 'product' ? at.product.type : 'seat'
    const refs = at.kind === 'product' ? at.product.offers : (at.seats.bands[at.band] ?? [])
    // Keyed by the seller's passenger ids: a map with no prototype, so `__proto__` is just an id.
    const price_and_availability = table<PriceAndAvailability>()
    offers.passengers.forEach((pid, i) => {
      price_and_availability[pid] = this.#offer(type, refs[i])
    })
    if (at.kind === 'seat') {
      return {
        product_id: productId,
        product_type: 'seat',
        display_name: `Seat ${at.row}${at.column}`,
        product_details: {
          segment_id: at.seats.segment_id,
          row: at.row,
          column: at.column,
          characteristics: at.characteristics,
        },
        price_and_availability,
      }
    }
    const p = at.product
    return {
      product_id: productId,
      product_type: p.type,
      display_name: p.name,
      product_details: p.details,
      price_and_availability,
      ...(p.included !== undefined ? { included: p.included } : {}),
    }
  }

  #offer(type: ProductTypeName, ref: number | undefined): PriceAndAvailability {
    const key = `${type}:${ref}`
    let priced = this.#priced.get(key)
    if (!priced) {
      const o = ref === undefined ? undefined : this.record.offers.offers[ref]
      priced =
        !o || !o.available
          ? { available: false, price: null, quantity_limit: 0, ...(o?.reason ? { reason: o.reason } : {}) }
          : {
              available: true,
              price: priceFor(this.#pricing, type, o, 1),
              quantity_limit: o.quantity_limit,
              ...(o.reason ? { reason: o.reason } : {}),
            }
      this.#priced.set(key, priced)
    }
    return priced
  }
}

/** A narrowed search's cache key: the types in one order, or `*` for all. */
export function typesKey(types: readonly ProductTypeName[] | undefined): string {
  return types ? PRODUCT_TYPE_NAMES.filter((t) => types.includes(t)).join(',') : '*'
}

export type { MarkupConfig }
