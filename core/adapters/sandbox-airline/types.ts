/**
 * The shapes of the sandbox airline's data (airlines.ts, aircraft.ts). The data files hold every rule
 * and price; supplier.ts only interprets them, so a new airline or aircraft is a data change.
 *
 * Prices are integers in the minor units of the airline's own currency (EUR cents, JPY yen, KWD fils),
 * because that is what an airline quotes and what `OriginalMoney` carries.
 */
import type { ProductTypeName } from '../../schemas/trip.ts'

export interface Dimensions {
  length: number
  width: number
  height: number
}

/** What every ticketed passenger may already take into the cabin. */
export interface CabinAllowance {
  display_name: string
  pieces: number
  /** Where an airline publishes no cabin weight limit, the data uses the figure its crews enforce in practice. */
  weight_kg: number
  dimensions: Dimensions
}

/** A purchasable bag. `code` becomes the last part of the offer key, so it must be unique within a policy. */
export interface BagOption {
  code: string
  display_name: string
  checked: boolean
  weight_kg: number
  dimensions: Dimensions
  price: number
  /** Pieces of this option one passenger may buy per journey. */
  max_quantity: number
  /** Sold only to lap infants (their own allowance), never to seated passengers. */
  infant_only?: boolean
}

export interface LapInfantPolicy {
  /** Whether an infant on a lap gets its own cabin allowance; most airlines give none. */
  cabin_allowance: boolean
  /** Codes of `bags` a lap infant may buy; empty when the airline sells an infant nothing. */
  bags: string[]
  /** Pieces a lap infant may buy per journey, across those codes' limits. */
  max_quantity: number
}

/** A frequent-flyer programme whose tiers this airline honours with a free checked bag. */
export interface LoyaltyRecognition {
  airline_id: string
  program_name: string
  /** Every tier of the programme, lowest first; only those in `free_checked_bag_tiers` earn the bag. */
  tiers: string[]
  free_checked_bag_tiers: string[]
}

export interface FareFamily {
  code: string
  name: string
  /** Fare difference above the airline's lowest family, per passenger per journey. */
  price: number
  benefits: string[]
  /** Checked bags the fare already includes, described by one of the policy's bag options. */
  checked_bags: { bag: string; pieces: number } | null
  includes_priority_boarding?: boolean
}

/** A percentage tax on the base price; sandbox figures, not tax advice. */
export interface TaxRule {
  tax_type: string
  percent: number
  applies_to: ProductTypeName[]
}

/**
 * Which aircraft flies a segment. Rules are tried in order and the first whose every condition holds
 * wins, so specific flight numbers go before the block-time rules and the last rule has no condition.
 */
export interface FleetRule {
  aircraft: AircraftCode
  flight_numbers?: { from: number; to: number }
  /** Scheduled block time, from the segment's departure and arrival times with their offsets. */
  max_minutes?: number
}

export type SeatZone = 'front' | 'extra_legroom' | 'standard'

export interface AirlinePolicy {
  /** IATA designator, or `*` for the generic policy. */
  airline: string
  name: string
  currency: string
  decimal_places: number
  cabin: CabinAllowance
  bags: BagOption[]
  lap_infant: LapInfantPolicy
  loyalty: LoyaltyRecognition[]
  /** Price per passenger per journey; null when the airline does not sell it. */
  priority_boarding: number | null
  automatic_check_in: number | null
  /** Lowest first; upsell offers the families after the one booked. */
  fare_families: FareFamily[]
  /** Seat price per zone on the narrow-body; aircraft scale it by `seat_price_percent`. */
  seat_prices: Record<SeatZone, number>
  taxes: TaxRule[]
  fleet: FleetRule[]
}

// ---------------------------------------------------------------- aircraft

export type AircraftCode = 'A320' | 'B787-9' | 'B777-300ER' | 'A380'

export interface RowRange {
  from: number
  to: number
}

/**
 * One deck's economy cabin. Characteristics come from the row lists; window, aisle and middle come from the
 * column order and `aisles_after`. Row numbers must not repeat across decks: a seat's offer key is
 * `<row><column>` within a segment.
 */
export interface DeckLayout {
  deck: number
  name: string
  /** Left to right, as the seat map shows them. */
  columns: string[]
  aisles_after: string[]
  rows: RowRange
  /** Row numbers that do not exist (superstition, or a galley between cabins). */
  skip_rows: number[]
  exit_rows: number[]
  wing_rows: RowRange
  /** Rows sold as the front zone; exit and bulkhead rows inside it stay extra legroom. */
  front_rows: RowRange | null
  /** Bulkhead rows with extra legroom; exit rows are extra legroom without being listed here. */
  extra_legroom_rows: number[]
  restricted_recline_rows: number[]
  bassinets: Array<{ row: number; columns: string[] }>
  /** Seats absent where the fuselage narrows, as `<row><column>`. */
  missing_seats: string[]
}

export interface AircraftLayout {
  code: AircraftCode
  name: string
  /** Scales the airline's zone prices: a long-haul seat sells for more than a short-haul one. */
  seat_price_percent: number
  decks: DeckLayout[]
}
