/**
 * The sandbox airline: a deterministic implementation of the `Supplier` port. Pure TypeScript, no Node
 * or DOM APIs, so the server and the browser sandbox (MSW) give the same answers for the same trip.
 *
 * Which airline's rules apply:
 * - bags, priority boarding, automatic check-in and fare-family upsell: per journey, by the marketing
 *   airline of the journey's first segment (its currency prices the whole journey);
 * - seats: per segment; prices by the segment's marketing airline, the aircraft and its occupancy by the
 *   operating airline and flight, because the operating carrier flies the aircraft;
 * - an airline not in the catalogue gets `GENERIC_POLICY`.
 *
 * Included allowances (`included: true` products) are descriptions, not purchases: every passenger's
 * offer is `available: false` with `base: null`, `quantity_limit: 0` and a reason, `included` for a
 * passenger the allowance covers, otherwise `not_included` or `lap_infant`. The port says `base` is null
 * when not available, and a zero-priced purchasable product would let a basket hold an allowance. The one
 * zero price on sale is the loyalty bag below: a benefit the passenger chooses to take, per unit, so that
 * a bag already in the basket gets cheaper instead of being described twice.
 *
 * Passenger data that changes offers (the core re-checks a passenger's items after a PATCH of them):
 * - loyalty: a seated passenger with a `loyalty_programs` entry whose airline and tier the journey's airline
 *   honours (`AirlinePolicy.loyalty`) buys the airline's standard checked bag (its cheapest checked option
 *   that is not infant-only) at unit price 0, without taxes, up to the option's usual limit. The benefit is
 *   a price, not an included allowance, so a bag bought before the number was added re-checks to 0;
 * - age, from `date_of_birth` when known, on the local date of departure (the segment's for a seat, the
 *   journey's first segment's for a bag; someone born on 29 February has a birthday on 1 March in other
 *   years): exit-row seats need 16 or older (`exit_row_age`; children by type, and anyone holding a lap
 *   infant, are refused as `exit_row` whatever their age); a lap infant of 2 or older at departure can buy
 *   no bag (`infant_age`);
 * - lap infants: an item only a lap infant may hold (an infant-only bag) whose passenger is no longer one
 *   re-checks `unavailable` with `infant_age`.
 *
 * Fare family: the journey's is the first segment's `fare_family` that matches a family's code or name
 * (case and punctuation ignored). An unknown family gets no upsell, and its allowances are those of the
 * airline's lowest family, the least the traveller can be sure of.
 *
 * Test scenarios (docs/decisions.md), on any segment's `marketing_flight_number` within the item's scope
 * (its segment, else its journey, else its ticket's journeys, else the whole trip), for trips with
 * `sandbox: true` unless `scenarios: 'always'`:
 * - `9001`: a check sees every bag offer (every offer of `priceChangeProducts`) `priceIncreasePercent` above
 *   the search price (taxes recomputed on the raised base), so the price rule below answers `price_changed`
 *   with the raised unit price until the item holds `quantity` × that price (the core accepted it), then
 *   `valid`. No state is kept, so every host and every instance agrees, and a free (0) offer stays free.
 * - `9002`: every item, tickets included, is `unavailable`.
 * - `9003`: fulfillment fails.
 * - `9004`: the check answers with `delayMs` (default 5000), so items stay `checking` that long.
 *
 * A check finds the item's current offer by its `offer_key` (rebuilt from `product_details` when the caller
 * has none) and compares:
 * - availability: an offer that no longer exists (`no_longer_offered`), or is no longer available to the
 *   item's passenger (for instance, one who has since become a lap infant), is `unavailable` with the
 *   offer's reason; more units than the offer's limit are `quantity_limit`;
 * - price: the item holds `quantity` units (core/domain/pricing.ts), so its unit price is its original base over
 *   `quantity`; when that differs from the current unit base (amount, currency or decimal places), the item
 *   is `price_changed` with the current unit base and taxes. Taxes alone are not compared: they follow the
 *   base.
 * Outcomes depend only on the trip and the items, so a retried check answers the same.
 *
 * Where each rule is: a product type's offers, offer keys and refund rule in its module (products/*.ts, keyed by
 * product type in product-modules.ts); what they share in offer-rules.ts; the test scenarios in scenarios.ts;
 * refunds in refunds.ts. This file wires them into the `Supplier` port and checks items against the offers.
 */
import { LRUCache } from 'lru-cache'
import type {
  RecheckResult,
  Supplier,
  SupplierCapabilities,
  SupplierItem,
  SupplierOffers,
  SupplierProduct,
  SupplierSeatOffers,
  SupplierTrip,
} from '../../ports/supplier.ts'
import { seatProducts } from '../../domain/search.ts'
import { own } from '../../shared/safe-maps.ts'
import type { OriginalMoney } from '../../schemas/common.ts'
import { PRODUCT_TYPE_NAMES, type ProductTypeName } from '../../schemas/trip.ts'
import { AIRCRAFT } from './aircraft.ts'
import { AIRLINES, GENERIC_POLICY } from './airlines.ts'
import { type Context, itemSegments, type SandboxSupplierOptions, type SearchOptions, str } from './offer-rules.ts'
import { productModule } from './product-modules.ts'
import { hashString } from './random.ts'
import { cancellationQuote } from './refunds.ts'
import { currentUnit, inScenario } from './scenarios.ts'

export { ageOn, EXIT_ROW_MIN_AGE, LAP_INFANT_MAX_AGE, type SandboxSupplierOptions } from './offer-rules.ts'
export { SANDBOX_SCENARIOS } from './scenarios.ts'

// ---------------------------------------------------------------- search

function searchOffers(
  ctx: Context,
  trip: SupplierTrip,
  types: readonly ProductTypeName[],
  opts: SearchOptions = {},
): SupplierOffers {
  const products: SupplierProduct[] = []
  const seats: SupplierSeatOffers[] = []
  const wanted = new Set(types)
  // In the contract's order, whatever order the types were asked in, so a search lists its products the same way.
  for (const type of PRODUCT_TYPE_NAMES) {
    if (!wanted.has(type)) continue
    const found = productModule(type).search(ctx, trip, opts)
    products.push(...(found.products ?? []))
    seats.push(...(found.seats ?? []))
  }
  return { products, seats }
}

// ---------------------------------------------------------------- recheck and fulfill

/** Whether an item holding `quantity` units at `held` (their total) holds them at `unit` each. */
function holdsUnitPrice(held: OriginalMoney, quantity: number, unit: OriginalMoney): boolean {
  return (
    held.currency === unit.currency &&
    held.decimal_places === unit.decimal_places &&
    held.amount === unit.amount * quantity
  )
}

function createChecker(ctx: Context, trip: SupplierTrip) {
  // One search per product type per check, however many items share it.
  const searched = new Map<ProductTypeName, Map<string, SupplierProduct>>()
  const offers = (type: ProductTypeName): Map<string, SupplierProduct> => {
    let byKey = searched.get(type)
    if (!byKey) {
      const found = searchOffers(ctx, trip, [type], { allInfantBags: true })
      byKey = new Map([...found.products, ...found.seats.flatMap(seatProducts)].map((p) => [p.offer_key, p]))
      searched.set(type, byKey)
    }
    return byKey
  }

  return ({ item, offer_key }: SupplierItem): RecheckResult => {
    const id = item.basket_item_id
    const segments = itemSegments(trip, item)
    if (inScenario(ctx, trip, segments, 'unavailable')) {
      return { basket_item_id: id, outcome: 'unavailable', reason: 'sandbox_unavailable' }
    }
    if (item.product_type === 'ticket') return { basket_item_id: id, outcome: 'valid' }

    const key = offer_key ?? productModule(item.product_type).offerKey(ctx, trip, item)
    // Details the sandbox cannot map back to an offer are not its to judge.
    if (key === null) return { basket_item_id: id, outcome: 'valid' }
    const product = offers(item.product_type).get(key)
    if (!product) return { basket_item_id: id, outcome: 'unavailable', reason: 'no_longer_offered' }
    const passengerId = str(item.product_details.passenger_id)
    const offer =
      passengerId !== null
        ? own(product.per_passenger, passengerId)
        : Object.values(product.per_passenger).find((o) => o.available)
    if (!offer)
      return {
        basket_item_id: id,
        outcome: 'unavailable',
        reason: passengerId !== null ? 'unknown_passenger' : 'not_available',
      }
    if (!offer.available || offer.base === null) {
      // Only a lap infant could have bought an infant-only item: its passenger no longer is one.
      const reason = offer.reason === 'infant_only' ? 'infant_age' : (offer.reason ?? 'not_available')
      return { basket_item_id: id, outcome: 'unavailable', reason }
    }
    if (item.quantity > offer.quantity_limit)
      return { basket_item_id: id, outcome: 'unavailable', reason: 'quantity_limit' }

    const current = currentUnit(ctx, trip, item, segments, { base: offer.base, taxes: offer.taxes })
    if (!holdsUnitPrice(item.price.base.in_original_currency, item.quantity, current.base)) {
      return {
        basket_item_id: id,
        outcome: 'price_changed',
        base: { ...current.base },
        taxes: current.taxes.map((t) => ({ ...t })),
      }
    }
    return { basket_item_id: id, outcome: 'valid' }
  }
}

const REFERENCE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

/** A PNR-like reference; a function of the order id alone, so a repeated fulfillment repeats it. */
function bookingReference(orderId: string): string {
  let out = 'SBX'
  for (const seed of [0x811c9dc5, 0x9e3779b9]) {
    let h = hashString(orderId, seed)
    for (let i = 0; i < 5; i++) {
      out += REFERENCE_ALPHABET[h & 31]
      h >>>= 5
    }
  }
  return out
}

// ---------------------------------------------------------------- the port

/** What the sandbox airline does: everything, at once, after booking too, and it cancels. */
const CAPABILITIES: SupplierCapabilities = {
  simulated: true,
  products: [...PRODUCT_TYPE_NAMES],
  remote: false,
  afterBooking: [...PRODUCT_TYPE_NAMES],
  seatsAtBookingOnly: false,
  cancels: true,
  // Its bookings are the trip itself: the record locator names them.
  findsBookingByLocator: true,
}

export function createSandboxSupplier(options: SandboxSupplierOptions = {}): Supplier {
  const ctx: Context = {
    maps: new LRUCache({ max: options.seatMapCache ?? 500 }),
    airlines: options.airlines ?? AIRLINES,
    generic: options.genericPolicy ?? GENERIC_POLICY,
    aircraft: options.aircraft ?? AIRCRAFT,
    checkDelayMs: options.checkDelayMs ?? 5000,
    priceIncreasePercent: options.priceIncreasePercent ?? 20,
    priceChangeProducts: new Set(options.priceChangeProducts ?? ['bag']),
    scenariosAlways: options.scenarios === 'always',
  }
  return {
    name: 'sandbox',
    capabilities: CAPABILITIES,

    credentialsProblem(credentials, sandbox) {
      if (!sandbox)
        return 'The sandbox airline sells simulated offers: it serves sandbox sellers only (a live seller needs a real supplier, e.g. --supplier duffel --duffel-token duffel_live_…).'
      return credentials === null ? null : 'The sandbox airline takes no credentials.'
    },

    async search(_call, trip, types) {
      return searchOffers(ctx, trip, types)
    },

    async recheck(_call, trip, items) {
      const check = createChecker(ctx, trip)
      const results = items.map(check)
      const slow = items.some(({ item }) => inScenario(ctx, trip, itemSegments(trip, item), 'slow_check'))
      return slow ? { results, delayMs: ctx.checkDelayMs } : { results }
    },

    async fulfill(_call, trip, order, { item }) {
      if (inScenario(ctx, trip, itemSegments(trip, item), 'fulfillment_fails')) {
        return { ok: false, reason: 'The airline rejected the booking (sandbox scenario 9003)' }
      }
      return { ok: true, reference: bookingReference(order.order_id) }
    },

    async quoteCancellation(_call, trip, orders, now) {
      return orders.map((o) => cancellationQuote(trip, o, now))
    },

    async cancel(_call, trip, o, now) {
      // Deterministic, so a repeated call for the same order at the same time answers the same.
      if (inScenario(ctx, trip, itemSegments(trip, o.item), 'cancellation_refused')) {
        return { ok: false, reason: 'The airline refused the cancellation (sandbox scenario 9005)' }
      }
      const quote = cancellationQuote(trip, o, now)
      return quote.cancellable && quote.refund
        ? { ok: true, refund: quote.refund }
        : { ok: false, reason: quote.reason ?? 'not_cancellable' }
    },
  }
}
