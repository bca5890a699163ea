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
  SupplierOrder,
  SupplierCancellationQuote,
} from '../../ports/supplier.ts'
import type { SupplierPassengerOffer, SupplierSeatMap, SupplierTax } from '../../ports/supplier-answers.ts'
import { applyPercentage } from '../../domain/money.ts'
import { seatOfferKey, seatProducts } from '../../domain/search.ts'
import { own, table } from '../../shared/safe-maps.ts'
import type {
  AncillaryItem,
  BagDetails,
  BasketItem,
  FareFamilyDetails,
  JourneyProductDetails,
  ProductDetails,
} from '../../schemas/basket.ts'
import type { Money, OriginalMoney } from '../../schemas/common.ts'
import type { Journey, Passenger, ProductTypeName, Segment } from '../../schemas/trip.ts'
import { AIRCRAFT } from './aircraft.ts'
import { AIRLINES, GENERIC_POLICY } from './airlines.ts'
import { hashString } from './random.ts'
import { buildCabin } from './seatmap.ts'
import type { AircraftLayout, AirlinePolicy, BagOption, FareFamily, SeatZone } from './types.ts'

export const SANDBOX_SCENARIOS = {
  price_change: '9001',
  unavailable: '9002',
  fulfillment_fails: '9003',
  slow_check: '9004',
  cancellation_refused: '9005',
} as const

export interface SandboxSupplierOptions {
  /** Replaces the airline catalogue, keyed by IATA designator. */
  airlines?: Readonly<Record<string, AirlinePolicy>>
  genericPolicy?: AirlinePolicy
  aircraft?: Readonly<Record<string, AircraftLayout>>
  /** How long a `9004` check stays `checking`. */
  checkDelayMs?: number
  /** How much a `9001` offer's price rises. */
  priceIncreasePercent?: number
  /**
   * Which products' prices rise on a `9001` flight: bags by default (the documented scenario). Stories
   * and a seller's own tests may name others (seats, say) to see their price-change screens.
   */
  priceChangeProducts?: readonly ProductTypeName[]
  /**
   * `sandbox_only` (default): the magic flight numbers act only on trips flagged sandbox, because real
   * flights can carry those numbers too. `always`: on every trip.
   */
  scenarios?: 'sandbox_only' | 'always'
  /** How many flights' seat maps to keep built (default 500). */
  seatMapCache?: number
}

interface Context {
  /** Seat maps by key: a flight's map is built once. */
  maps: LRUCache<string, SupplierSeatMap>
  airlines: Readonly<Record<string, AirlinePolicy>>
  generic: AirlinePolicy
  aircraft: Readonly<Record<string, AircraftLayout>>
  checkDelayMs: number
  priceIncreasePercent: number
  priceChangeProducts: ReadonlySet<ProductTypeName>
  scenariosAlways: boolean
}

// ---------------------------------------------------------------- helpers

const isLapInfant = (p: Passenger): boolean => p.on_lap_of !== null && p.on_lap_of !== undefined && p.on_lap_of !== ''
/** Exit-row rules keep children and anyone holding an infant out of those seats. */
const isMinor = (p: Passenger): boolean => p.type === 'child' || p.type === 'infant'
const holdsInfant = (trip: SupplierTrip, p: Passenger): boolean =>
  trip.passengers.some((q) => q.on_lap_of === p.passenger_id)

/** Minimum age in an exit row; lap infants must be under `LAP_INFANT_MAX_AGE` at departure. */
export const EXIT_ROW_MIN_AGE = 16
export const LAP_INFANT_MAX_AGE = 2

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})/

/**
 * Whole years from `dateOfBirth` to the calendar date `on` (both read as `YYYY-MM-DD…`); null when either is
 * missing or malformed. A 29 February birthday falls on 1 March in other years.
 */
export function ageOn(dateOfBirth: string | null | undefined, on: string): number | null {
  const b = dateOfBirth ? ISO_DATE.exec(dateOfBirth) : null
  const d = ISO_DATE.exec(on)
  if (!b || !d) return null
  const [by, bm, bd] = [Number(b[1]), Number(b[2]), Number(b[3])]
  const [dy, dm, dd] = [Number(d[1]), Number(d[2]), Number(d[3])]
  return dy - by - (dm < bm || (dm === bm && dd < bd) ? 1 : 0)
}

/** The local date of departure, as the segment's own offset gives it. */
const departureDate = (segment: Segment): string => segment.departure_time.slice(0, 10)

const youngerThan = (p: Passenger, years: number, on: string): boolean => {
  const age = ageOn(p.date_of_birth, on)
  return age !== null && age < years
}
const atLeast = (p: Passenger, years: number, on: string): boolean => {
  const age = ageOn(p.date_of_birth, on)
  return age !== null && age >= years
}

const normalise = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '')

function policyFor(ctx: Context, airline: string): AirlinePolicy {
  return ctx.airlines[airline] ?? ctx.generic
}

function journeyPolicy(ctx: Context, journey: Journey): AirlinePolicy {
  const first = journey.segments[0]
  return first ? policyFor(ctx, first.marketing_airline) : ctx.generic
}

function findFamily(policy: AirlinePolicy, name: string | null | undefined): FareFamily | null {
  if (!name) return null
  const n = normalise(name)
  return policy.fare_families.find((f) => normalise(f.code) === n || normalise(f.name) === n) ?? null
}

function journeyFamily(policy: AirlinePolicy, journey: Journey): FareFamily | null {
  const booked = journey.segments.find((s) => s.fare_family)?.fare_family
  return findFamily(policy, booked)
}

function money(policy: AirlinePolicy, amount: number): OriginalMoney {
  return { amount, currency: policy.currency, decimal_places: policy.decimal_places }
}

function taxesFor(policy: AirlinePolicy, type: ProductTypeName, base: number): SupplierTax[] {
  return (
    policy.taxes
      .filter((t) => t.applies_to.includes(type))
      // Math.round is half-up, which is half away from zero for the non-negative bases here.
      .map((t) => ({ tax_type: t.tax_type, amount: Math.round((base * t.percent) / 100) }))
  )
}

function priced(policy: AirlinePolicy, type: ProductTypeName, base: number, limit: number): SupplierPassengerOffer {
  return { available: true, base: money(policy, base), taxes: taxesFor(policy, type, base), quantity_limit: limit }
}

/** A benefit: on sale at 0, and nothing to tax. */
function free(policy: AirlinePolicy, limit: number): SupplierPassengerOffer {
  return { available: true, base: money(policy, 0), taxes: [], quantity_limit: limit }
}

function unavailable(reason: string): SupplierPassengerOffer {
  return { available: false, base: null, taxes: [], quantity_limit: 0, reason }
}

function perPassenger(
  trip: SupplierTrip,
  offer: (p: Passenger) => SupplierPassengerOffer,
): Record<string, SupplierPassengerOffer> {
  // Keyed by the seller's passenger ids: no prototype, so any id is an ordinary key.
  const out = table<SupplierPassengerOffer>()
  for (const p of trip.passengers) out[p.passenger_id] = offer(p)
  return out
}

function bagDetails(
  journeyId: string,
  bag: { checked: boolean; weight_kg: number; dimensions: BagOption['dimensions'] },
  pieces: number,
): BagDetails {
  const { length, width, height } = bag.dimensions
  return {
    journey_id: journeyId,
    checked: bag.checked,
    size: length + width + height,
    size_unit: 'cm',
    weight: bag.weight_kg,
    weight_unit: 'kg',
    dimensions: { length, width, height },
    pieces,
  }
}

/** The bag a loyalty tier gets free: the policy's cheapest checked bag that anyone may buy (the first on a tie). */
function standardCheckedBag(policy: AirlinePolicy): BagOption | undefined {
  let best: BagOption | undefined
  for (const b of policy.bags) {
    if (b.checked && !b.infant_only && b.price > 0 && (best === undefined || b.price < best.price)) best = b
  }
  return best
}

function hasFreeBagTier(policy: AirlinePolicy, p: Passenger): boolean {
  return p.loyalty_programs.some((lp) => {
    const tier = lp.tier_name ? normalise(lp.tier_name) : null
    return (
      tier !== null &&
      policy.loyalty.some(
        (r) => r.airline_id === lp.airline_id && r.free_checked_bag_tiers.some((t) => normalise(t) === tier),
      )
    )
  })
}

function blockMinutes(segment: Segment): number {
  return (Date.parse(segment.arrival_time) - Date.parse(segment.departure_time)) / 60000
}

function aircraftFor(ctx: Context, segment: Segment): AircraftLayout {
  const policy = policyFor(ctx, segment.operating_airline || segment.marketing_airline)
  const number = Number.parseInt(segment.operating_flight_number || segment.marketing_flight_number, 10)
  const minutes = blockMinutes(segment)
  for (const rule of policy.fleet) {
    if (rule.flight_numbers && !(number >= rule.flight_numbers.from && number <= rule.flight_numbers.to)) continue
    if (rule.max_minutes !== undefined && !(minutes <= rule.max_minutes)) continue
    const layout = ctx.aircraft[rule.aircraft]
    if (layout) return layout
  }
  // A policy whose rules all fail still flies something: the smallest aircraft is the safe guess.
  return ctx.aircraft['A320'] ?? Object.values(ctx.aircraft)[0]!
}

function flightSeed(segment: Segment): string {
  const airline = segment.operating_airline || segment.marketing_airline
  const number = segment.operating_flight_number || segment.marketing_flight_number
  return `${airline}${number}:${segment.departure_time.slice(0, 10)}`
}

// ---------------------------------------------------------------- search, per product type

interface SearchOptions {
  /**
   * Offer infant-only bags even when no passenger is a lap infant. A check needs them, so that an infant's
   * bag whose passenger is no longer a lap infant is refused for that reason, not as no longer offered.
   */
  allInfantBags?: boolean
}

function bagProducts(ctx: Context, trip: SupplierTrip, opts: SearchOptions): SupplierProduct[] {
  const products: SupplierProduct[] = []
  const anyLapInfant = trip.passengers.some(isLapInfant)
  for (const journey of trip.journeys) {
    const jid = journey.journey_id
    const policy = journeyPolicy(ctx, journey)
    const family = journeyFamily(policy, journey) ?? policy.fare_families[0] ?? null
    const first = journey.segments[0]
    const departs = first ? departureDate(first) : null

    products.push({
      offer_key: `bag:${jid}:included_cabin`,
      product_type: 'bag',
      display_name: `${policy.cabin.display_name} (included)`,
      product_details: bagDetails(
        jid,
        { checked: false, weight_kg: policy.cabin.weight_kg, dimensions: policy.cabin.dimensions },
        policy.cabin.pieces,
      ),
      included: true,
      per_passenger: perPassenger(trip, (p) =>
        isLapInfant(p) && !policy.lap_infant.cabin_allowance ? unavailable('lap_infant') : unavailable('included'),
      ),
    })

    const fareBag = family?.checked_bags ? policy.bags.find((b) => b.code === family.checked_bags?.bag) : undefined
    if (family?.checked_bags && fareBag) {
      const pieces = family.checked_bags.pieces
      products.push({
        offer_key: `bag:${jid}:included_checked`,
        product_type: 'bag',
        display_name: `${pieces > 1 ? `${pieces} × ` : ''}checked bag ${fareBag.weight_kg} kg (included in ${family.name})`,
        product_details: bagDetails(jid, fareBag, pieces),
        included: true,
        per_passenger: perPassenger(trip, (p) =>
          isLapInfant(p) ? unavailable('lap_infant') : unavailable('included'),
        ),
      })
    }

    const loyaltyBag = standardCheckedBag(policy)
    for (const option of policy.bags) {
      // An infant-only bag nobody on the trip can buy would only clutter the offer.
      if (option.infant_only && !anyLapInfant && !opts.allInfantBags) continue
      products.push({
        offer_key: `bag:${jid}:${option.code}`,
        product_type: 'bag',
        display_name: option.display_name,
        product_details: bagDetails(jid, option, 1),
        per_passenger: perPassenger(trip, (p) => {
          if (isLapInfant(p)) {
            // Two-year-olds need a seat of their own: nothing is sold to them as lap infants.
            if (departs !== null && atLeast(p, LAP_INFANT_MAX_AGE, departs)) return unavailable('infant_age')
            const limit = Math.min(option.max_quantity, policy.lap_infant.max_quantity)
            return policy.lap_infant.bags.includes(option.code) && limit > 0
              ? priced(policy, 'bag', option.price, limit)
              : unavailable('lap_infant')
          }
          if (option.infant_only) return unavailable('infant_only')
          if (option === loyaltyBag && hasFreeBagTier(policy, p)) return free(policy, option.max_quantity)
          return priced(policy, 'bag', option.price, option.max_quantity)
        }),
      })
    }
  }
  return products
}

/** Bumped when the way a cabin is built changes, so seat maps stored under the old keys are not reused. */
const SEAT_MAP_FORMAT = 1

/**
 * A flight's seat map, the same for every trip on it: seats taken by the flight's seeded occupancy, and
 * each seat on sale in a price band of its zone (exit rows apart: they are refused to some passengers).
 * Built once per flight and kept (bounded), since every trip on a flight asks for the same one.
 */
function flightMap(ctx: Context, segment: Segment): SupplierSeatMap {
  const layout = aircraftFor(ctx, segment)
  const seed = flightSeed(segment)
  const key = `sandbox/${SEAT_MAP_FORMAT}/${layout.code}/${layoutHash(layout)}/${seed}`
  const cached = ctx.maps.get(key)
  if (cached) return cached
  const map: SupplierSeatMap = {
    key,
    aircraft: layout.code,
    decks: buildCabin(layout, seed).map(({ layout: deck, rows }) => ({
      deck: deck.deck,
      name: deck.name,
      columns: [...deck.columns],
      aisles_after: [...deck.aisles_after],
      rows: rows.map((r) => ({
        row: r.row,
        exit: r.exit,
        wing: r.wing,
        seats: r.seats.map((st) => ({
          column: st.column,
          characteristics: [...st.characteristics],
          band: st.taken ? null : seatBand(st.zone, r.exit),
        })),
      })),
    })),
  }
  ctx.maps.set(key, map)
  return map
}

const seatBand = (zone: SeatZone, exit: boolean) => (exit ? `${zone}:exit` : zone)

/** A layout's content in a key: a catalogue given in the options may reuse a code with other seats. */
const layoutHashes = new WeakMap<AircraftLayout, string>()
function layoutHash(layout: AircraftLayout): string {
  let h = layoutHashes.get(layout)
  if (!h) {
    h = hashString(JSON.stringify(layout)).toString(36)
    layoutHashes.set(layout, h)
  }
  return h
}

function seatOffers(ctx: Context, trip: SupplierTrip): SupplierSeatOffers[] {
  const out: SupplierSeatOffers[] = []
  for (const journey of trip.journeys) {
    for (const segment of journey.segments) {
      const policy = policyFor(ctx, segment.marketing_airline)
      const layout = aircraftFor(ctx, segment)
      const departs = departureDate(segment)
      const map = flightMap(ctx, segment)
      const bands: SupplierSeatOffers['bands'] = {}
      for (const deck of map.decks) {
        for (const row of deck.rows) {
          for (const seat of row.seats) {
            if (seat.band === null || bands[seat.band]) continue
            const zone = seat.band.split(':')[0] as SeatZone
            const price = Math.round((policy.seat_prices[zone] * layout.seat_price_percent) / 100)
            bands[seat.band] = perPassenger(trip, (p) => {
              if (isLapInfant(p)) return unavailable('lap_infant')
              if (row.exit && (isMinor(p) || holdsInfant(trip, p))) return unavailable('exit_row')
              if (row.exit && youngerThan(p, EXIT_ROW_MIN_AGE, departs)) return unavailable('exit_row_age')
              return priced(policy, 'seat', price, 1)
            })
          }
        }
      }
      out.push({ segment_id: segment.segment_id, map, bands })
    }
  }
  return out
}

function journeyServiceProducts(
  ctx: Context,
  trip: SupplierTrip,
  type: 'priority_boarding' | 'automatic_check_in',
): SupplierProduct[] {
  const products: SupplierProduct[] = []
  for (const journey of trip.journeys) {
    const policy = journeyPolicy(ctx, journey)
    const price = policy[type]
    if (price === null) continue
    const includedByFare =
      type === 'priority_boarding' && journeyFamily(policy, journey)?.includes_priority_boarding === true
    const details: JourneyProductDetails = { journey_id: journey.journey_id }
    products.push({
      offer_key: `${type}:${journey.journey_id}`,
      product_type: type,
      display_name: type === 'priority_boarding' ? 'Priority boarding' : 'Automatic check-in',
      product_details: details,
      ...(includedByFare ? { included: true } : {}),
      // A lap infant boards and is checked in with the adult holding it.
      per_passenger: perPassenger(trip, (p) =>
        isLapInfant(p)
          ? unavailable('lap_infant')
          : includedByFare
            ? unavailable('included')
            : priced(policy, type, price, 1),
      ),
    })
  }
  return products
}

function fareFamilyProducts(ctx: Context, trip: SupplierTrip): SupplierProduct[] {
  const products: SupplierProduct[] = []
  for (const journey of trip.journeys) {
    const policy = journeyPolicy(ctx, journey)
    const current = journeyFamily(policy, journey)
    if (!current) continue
    const higher = policy.fare_families.slice(policy.fare_families.indexOf(current) + 1)
    for (const target of higher) {
      const details: FareFamilyDetails = {
        journey_id: journey.journey_id,
        fare_family: target.name,
        from_fare_family: current.name,
        benefits: [...target.benefits],
      }
      const price = Math.max(0, target.price - current.price)
      products.push({
        offer_key: `fare_family_upsell:${journey.journey_id}:${target.code}`,
        product_type: 'fare_family_upsell',
        display_name: `Upgrade to ${target.name}`,
        product_details: details,
        // The infant's fare follows the adult's.
        per_passenger: perPassenger(trip, (p) =>
          isLapInfant(p) ? unavailable('lap_infant') : priced(policy, 'fare_family_upsell', price, 1),
        ),
      })
    }
  }
  return products
}

function searchOffers(
  ctx: Context,
  trip: SupplierTrip,
  types: readonly ProductTypeName[],
  opts: SearchOptions = {},
): SupplierOffers {
  const products: SupplierProduct[] = []
  const wanted = new Set(types)
  if (wanted.has('bag')) products.push(...bagProducts(ctx, trip, opts))
  const seats = wanted.has('seat') ? seatOffers(ctx, trip) : []
  if (wanted.has('priority_boarding')) products.push(...journeyServiceProducts(ctx, trip, 'priority_boarding'))
  if (wanted.has('automatic_check_in')) products.push(...journeyServiceProducts(ctx, trip, 'automatic_check_in'))
  if (wanted.has('fare_family_upsell')) products.push(...fareFamilyProducts(ctx, trip))
  return { products, seats }
}

// ---------------------------------------------------------------- recheck and fulfill

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/** The segments an item concerns: its segment, else its journey, else its ticket's journeys, else the trip's. */
function itemSegments(trip: SupplierTrip, item: BasketItem): Segment[] {
  const d = item.product_details
  const all = trip.journeys.flatMap((j) => j.segments)
  const segmentId = str(d['segment_id'])
  if (segmentId) {
    const found = all.filter((s) => s.segment_id === segmentId)
    if (found.length > 0) return found
  }
  const journeyIds = new Set<string>()
  const journeyId = str(d['journey_id'])
  if (journeyId) journeyIds.add(journeyId)
  if (journeyIds.size === 0 && Array.isArray(d['journeys'])) {
    for (const j of d['journeys'] as unknown[]) {
      const id = j !== null && typeof j === 'object' ? str((j as Record<string, unknown>)['journey_id']) : null
      if (id) journeyIds.add(id)
    }
  }
  if (journeyIds.size === 0) {
    for (const id of trip.tickets.find((t) => t.ticket_id === item.ticket_id)?.journey_ids ?? []) journeyIds.add(id)
  }
  const scoped = trip.journeys.filter((j) => journeyIds.has(j.journey_id)).flatMap((j) => j.segments)
  return scoped.length > 0 ? scoped : all
}

/** The sandbox airline's refund rules (docs/decisions.md "After-sale"), in the trip currency, from what was paid. */
const SEAT_CANCELLATION_FEE_PERCENT = 20
const BAG_REFUND_UNTIL_MS = 24 * 3_600_000

function cancellationQuote(trip: SupplierTrip, { order, item }: SupplierOrder, now: Date): SupplierCancellationQuote {
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
  switch (item.product_type) {
    // A bag or a check-in not yet used is refunded in full until a day before the journey.
    case 'bag':
    case 'automatic_check_in':
      return left >= BAG_REFUND_UNTIL_MS ? yes(paid) : no('too_close_to_departure')
    // A seat is refunded less the airline's fee, rounded half away from zero, until departure.
    case 'seat': {
      const less = (m: { amount: number }) => m.amount - applyPercentage(m.amount, SEAT_CANCELLATION_FEE_PERCENT)
      return yes({
        ...paid,
        amount: less(paid),
        in_original_currency: { ...paid.in_original_currency, amount: less(paid.in_original_currency) },
      })
    }
    default:
      return no('non_refundable')
  }
}

const onFlight = (segments: Segment[], number: string): boolean =>
  segments.some((s) => s.marketing_flight_number === number)

function bagOptionFor(policy: AirlinePolicy, d: ProductDetails<'bag'>): BagOption | undefined {
  return policy.bags.find(
    (b) =>
      b.checked === d.checked &&
      b.weight_kg === d.weight &&
      (d.size === undefined || b.dimensions.length + b.dimensions.width + b.dimensions.height === d.size),
  )
}

/** The offer key an item was bought under, rebuilt from its details; null when they do not say enough. */
function offerKeyFor(ctx: Context, trip: SupplierTrip, item: BasketItem): string | null {
  switch (item.product_type) {
    case 'seat': {
      const d = item.product_details
      const sid = str(d.segment_id)
      return sid && typeof d.row === 'number' && typeof d.column === 'string'
        ? seatOfferKey(sid, d.row, d.column)
        : null
    }
    case 'bag':
    case 'priority_boarding':
    case 'automatic_check_in':
    case 'fare_family_upsell': {
      const journey = trip.journeys.find((j) => j.journey_id === str(item.product_details.journey_id))
      if (!journey) return null
      if (item.product_type === 'priority_boarding' || item.product_type === 'automatic_check_in') {
        return `${item.product_type}:${journey.journey_id}`
      }
      const policy = journeyPolicy(ctx, journey)
      if (item.product_type === 'bag') {
        const option = bagOptionFor(policy, item.product_details)
        return option ? `bag:${journey.journey_id}:${option.code}` : null
      }
      const family = findFamily(policy, str(item.product_details.fare_family))
      return family ? `fare_family_upsell:${journey.journey_id}:${family.code}` : null
    }
    default:
      return null
  }
}

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
  const scenariosOn = ctx.scenariosAlways || trip.sandbox

  /** What the airline asks for one unit now: the offer, raised on a `9001` flight for the products that change. */
  const currentUnit = (
    item: AncillaryItem,
    segments: Segment[],
    offer: { base: OriginalMoney; taxes: SupplierTax[] },
  ) => {
    const type = item.product_type
    if (!(
      scenariosOn &&
      ctx.priceChangeProducts.has(type) &&
      offer.base.amount > 0 &&
      onFlight(segments, SANDBOX_SCENARIOS.price_change)
    ))
      return offer
    const raised = Math.round((offer.base.amount * (100 + ctx.priceIncreasePercent)) / 100)
    // The airline that sold the offer: its first segment's (a journey's first, for journey products).
    const policy = segments[0] ? policyFor(ctx, segments[0].marketing_airline) : ctx.generic
    return { base: { ...offer.base, amount: raised }, taxes: taxesFor(policy, type, raised) }
  }

  return ({ item, offer_key }: SupplierItem): RecheckResult => {
    const id = item.basket_item_id
    const segments = itemSegments(trip, item)
    if (scenariosOn && onFlight(segments, SANDBOX_SCENARIOS.unavailable)) {
      return { basket_item_id: id, outcome: 'unavailable', reason: 'sandbox_unavailable' }
    }
    if (item.product_type === 'ticket') return { basket_item_id: id, outcome: 'valid' }

    const key = offer_key ?? offerKeyFor(ctx, trip, item)
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

    const current = currentUnit(item, segments, { base: offer.base, taxes: offer.taxes })
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
  products: ['bag', 'seat', 'priority_boarding', 'automatic_check_in', 'fare_family_upsell'],
  remote: false,
  afterBooking: ['bag', 'seat', 'priority_boarding', 'automatic_check_in', 'fare_family_upsell'],
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
      const slow =
        (ctx.scenariosAlways || trip.sandbox) &&
        items.some(({ item }) => onFlight(itemSegments(trip, item), SANDBOX_SCENARIOS.slow_check))
      return slow ? { results, delayMs: ctx.checkDelayMs } : { results }
    },

    async fulfill(_call, trip, order, { item }) {
      if (
        (ctx.scenariosAlways || trip.sandbox) &&
        onFlight(itemSegments(trip, item), SANDBOX_SCENARIOS.fulfillment_fails)
      ) {
        return { ok: false, reason: 'The airline rejected the booking (sandbox scenario 9003)' }
      }
      return { ok: true, reference: bookingReference(order.order_id) }
    },

    async quoteCancellation(_call, trip, orders, now) {
      return orders.map((o) => cancellationQuote(trip, o, now))
    },

    async cancel(_call, trip, o, now) {
      // Deterministic, so a repeated call for the same order at the same time answers the same.
      if (
        (ctx.scenariosAlways || trip.sandbox) &&
        onFlight(itemSegments(trip, o.item), SANDBOX_SCENARIOS.cancellation_refused)
      ) {
        return { ok: false, reason: 'The airline refused the cancellation (sandbox scenario 9005)' }
      }
      const quote = cancellationQuote(trip, o, now)
      return quote.cancellable && quote.refund
        ? { ok: true, refund: quote.refund }
        : { ok: false, reason: quote.reason ?? 'not_cancellable' }
    },
  }
}
