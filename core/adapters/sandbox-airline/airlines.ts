/**
 * The sandbox airlines. Policies are modelled on each carrier's published rules closely enough to look
 * familiar (Ryanair's small under-seat bag, ANA's two included pieces, Kuwait Airways' three-decimal dinar)
 * but they are sandbox data: prices and fleets are simplified and must never be quoted as the real ones.
 *
 * Prices are in the airline's currency's minor units; `decimal_places` says how many.
 */
import type { AirlinePolicy, BagOption, Dimensions } from './types.ts'

// Shared sizes, so that "158 cm" means the same box everywhere it appears.
const CHECKED_158: Dimensions = { length: 80, width: 50, height: 28 }
const INFANT_CHECKED: Dimensions = { length: 55, width: 40, height: 20 }

const bag = (
  code: string,
  display_name: string,
  checked: boolean,
  weight_kg: number,
  dimensions: Dimensions,
  price: number,
  max_quantity: number,
  infant_only = false,
): BagOption => ({
  code,
  display_name,
  checked,
  weight_kg,
  dimensions,
  price,
  max_quantity,
  ...(infant_only ? { infant_only } : {}),
})

const LH: AirlinePolicy = {
  airline: 'LH',
  name: 'Lufthansa',
  currency: 'EUR',
  decimal_places: 2,
  cabin: { display_name: 'Cabin bag 8 kg', pieces: 1, weight_kg: 8, dimensions: { length: 55, width: 40, height: 23 } },
  bags: [
    bag('checked23', 'Checked bag 23 kg', true, 23, CHECKED_158, 6000, 3),
    bag('checked32', 'Heavy checked bag 32 kg', true, 32, CHECKED_158, 15000, 2),
  ],
  lap_infant: { cabin_allowance: false, bags: ['checked23'], max_quantity: 1 },
  loyalty: [
    {
      airline_id: 'LH',
      program_name: 'Miles & More',
      tiers: ['Member', 'Frequent Traveller', 'Senator', 'HON Circle'],
      free_checked_bag_tiers: ['Senator', 'HON Circle'],
    },
    // Star Alliance Gold through a partner's programme.
    {
      airline_id: 'NH',
      program_name: 'ANA Mileage Club',
      tiers: ['Bronze', 'Platinum', 'Diamond'],
      free_checked_bag_tiers: ['Platinum', 'Diamond'],
    },
  ],
  priority_boarding: 1500,
  automatic_check_in: 500,
  fare_families: [
    { code: 'light', name: 'Economy Light', price: 0, benefits: ['Cabin bag 8 kg'], checked_bags: null },
    {
      code: 'classic',
      name: 'Economy Classic',
      price: 3500,
      benefits: ['Checked bag 23 kg', 'Free seat reservation', 'Miles'],
      checked_bags: { bag: 'checked23', pieces: 1 },
    },
    {
      code: 'flex',
      name: 'Economy Flex',
      price: 9500,
      benefits: ['Checked bag 23 kg', 'Free seat reservation', 'Free rebooking', 'Miles'],
      checked_bags: { bag: 'checked23', pieces: 1 },
    },
  ],
  seat_prices: { standard: 1500, front: 2500, extra_legroom: 4500 },
  taxes: [],
  fleet: [
    { aircraft: 'A380', flight_numbers: { from: 400, to: 499 } },
    { aircraft: 'A320', max_minutes: 300 },
    { aircraft: 'B787-9' },
  ],
}

const BA: AirlinePolicy = {
  airline: 'BA',
  name: 'British Airways',
  currency: 'GBP',
  decimal_places: 2,
  // BA's cabin bag really may weigh 23 kg: it is the airline's lifting limit, not a typo.
  cabin: {
    display_name: 'Cabin bag 23 kg',
    pieces: 1,
    weight_kg: 23,
    dimensions: { length: 56, width: 45, height: 25 },
  },
  bags: [
    bag('checked23', 'Checked bag 23 kg', true, 23, { length: 90, width: 75, height: 43 }, 6500, 3),
    bag('checked32', 'Heavy checked bag 32 kg', true, 32, { length: 90, width: 75, height: 43 }, 13000, 2),
  ],
  lap_infant: { cabin_allowance: false, bags: ['checked23'], max_quantity: 1 },
  loyalty: [
    {
      airline_id: 'BA',
      program_name: 'Executive Club',
      tiers: ['Blue', 'Bronze', 'Silver', 'Gold', 'Gold Guest List'],
      free_checked_bag_tiers: ['Silver', 'Gold', 'Gold Guest List'],
    },
    {
      airline_id: 'AA',
      program_name: 'AAdvantage',
      tiers: ['Gold', 'Platinum', 'Platinum Pro', 'Executive Platinum'],
      free_checked_bag_tiers: ['Platinum', 'Platinum Pro', 'Executive Platinum'],
    },
  ],
  priority_boarding: 1500,
  automatic_check_in: 400,
  fare_families: [
    { code: 'basic', name: 'Basic', price: 0, benefits: ['Cabin bag 23 kg'], checked_bags: null },
    {
      code: 'standard',
      name: 'Standard',
      price: 4000,
      benefits: ['Checked bag 23 kg', 'Free seat selection 24 h before departure'],
      checked_bags: { bag: 'checked23', pieces: 1 },
    },
    {
      code: 'flex',
      name: 'Flex',
      price: 15000,
      benefits: ['Checked bag 23 kg', 'Free seat selection', 'Free changes', 'Refundable'],
      checked_bags: { bag: 'checked23', pieces: 1 },
    },
  ],
  seat_prices: { standard: 1200, front: 2000, extra_legroom: 4000 },
  taxes: [],
  fleet: [
    { aircraft: 'A380', flight_numbers: { from: 1, to: 99 } },
    { aircraft: 'A320', max_minutes: 300 },
    { aircraft: 'B787-9' },
  ],
}

const AA: AirlinePolicy = {
  airline: 'AA',
  name: 'American Airlines',
  currency: 'USD',
  decimal_places: 2,
  cabin: { display_name: 'Carry-on bag', pieces: 1, weight_kg: 18, dimensions: { length: 56, width: 36, height: 23 } },
  bags: [
    bag('checked23', 'Checked bag 23 kg', true, 23, CHECKED_158, 4000, 3),
    bag('checked32', 'Overweight checked bag 32 kg', true, 32, CHECKED_158, 14000, 2),
  ],
  // An infant without a seat gets no bag allowance and cannot buy one; strollers travel free.
  lap_infant: { cabin_allowance: false, bags: [], max_quantity: 0 },
  loyalty: [
    {
      airline_id: 'AA',
      program_name: 'AAdvantage',
      tiers: ['Gold', 'Platinum', 'Platinum Pro', 'Executive Platinum'],
      free_checked_bag_tiers: ['Gold', 'Platinum', 'Platinum Pro', 'Executive Platinum'],
    },
    {
      airline_id: 'BA',
      program_name: 'Executive Club',
      tiers: ['Blue', 'Bronze', 'Silver', 'Gold', 'Gold Guest List'],
      free_checked_bag_tiers: ['Bronze', 'Silver', 'Gold', 'Gold Guest List'],
    },
  ],
  priority_boarding: 1900,
  automatic_check_in: 600,
  fare_families: [
    {
      code: 'basic',
      name: 'Basic Economy',
      price: 0,
      benefits: ['Carry-on bag', 'Last boarding group'],
      checked_bags: null,
    },
    {
      code: 'main',
      name: 'Main Cabin',
      price: 3000,
      benefits: ['Carry-on bag', 'Seat selection', 'Changes without fee'],
      checked_bags: null,
    },
    {
      code: 'flexible',
      name: 'Main Cabin Flexible',
      price: 12000,
      benefits: ['Carry-on bag', 'Seat selection', 'Changes without fee', 'Refundable'],
      checked_bags: null,
    },
  ],
  seat_prices: { standard: 1800, front: 3000, extra_legroom: 6500 },
  taxes: [],
  fleet: [{ aircraft: 'A320', max_minutes: 360 }, { aircraft: 'B787-9' }],
}

const FR: AirlinePolicy = {
  airline: 'FR',
  name: 'Ryanair',
  currency: 'EUR',
  decimal_places: 2,
  // Ryanair states no weight for the under-seat bag; the schema needs one, so the sandbox says 10 kg.
  cabin: {
    display_name: 'Small under-seat bag',
    pieces: 1,
    weight_kg: 10,
    dimensions: { length: 40, width: 20, height: 25 },
  },
  bags: [
    // The overhead-bin bag comes only with priority, as Ryanair sells it.
    bag('cabin10', 'Priority & 2 cabin bags (10 kg)', false, 10, { length: 55, width: 40, height: 20 }, 1800, 1),
    bag('checked10', 'Check-in bag 10 kg', true, 10, { length: 55, width: 40, height: 20 }, 2000, 1),
    bag('checked20', 'Check-in bag 20 kg', true, 20, { length: 119, width: 119, height: 81 }, 3500, 3),
  ],
  lap_infant: { cabin_allowance: false, bags: ['checked10'], max_quantity: 1 },
  loyalty: [],
  priority_boarding: 800,
  automatic_check_in: 400,
  fare_families: [
    { code: 'basic', name: 'Basic', price: 0, benefits: ['Small under-seat bag'], checked_bags: null },
    {
      code: 'regular',
      name: 'Regular',
      price: 2500,
      benefits: ['Priority & 2 cabin bags', 'Reserved seat'],
      checked_bags: null,
      includes_priority_boarding: true,
    },
    {
      code: 'plus',
      name: 'Plus',
      price: 4000,
      benefits: ['Check-in bag 20 kg', 'Reserved seat', 'Free airport check-in'],
      checked_bags: { bag: 'checked20', pieces: 1 },
    },
    {
      code: 'flexi_plus',
      name: 'Flexi Plus',
      price: 7000,
      benefits: ['Check-in bag 20 kg', 'Priority & 2 cabin bags', 'Premium seat', 'Flexible tickets'],
      checked_bags: { bag: 'checked20', pieces: 1 },
      includes_priority_boarding: true,
    },
  ],
  seat_prices: { standard: 800, front: 1400, extra_legroom: 2200 },
  taxes: [],
  // Ryanair flies 737s; the sandbox has no 737 map, and the A320's 3-3 cabin is the same shape.
  fleet: [{ aircraft: 'A320' }],
}

const NH: AirlinePolicy = {
  airline: 'NH',
  name: 'All Nippon Airways',
  currency: 'JPY',
  decimal_places: 0,
  cabin: {
    display_name: 'Cabin bag 10 kg',
    pieces: 1,
    weight_kg: 10,
    dimensions: { length: 55, width: 40, height: 25 },
  },
  bags: [
    bag('checked23', 'Extra checked bag 23 kg', true, 23, CHECKED_158, 20000, 3),
    bag('checked32', 'Heavy extra checked bag 32 kg', true, 32, CHECKED_158, 30000, 2),
  ],
  lap_infant: { cabin_allowance: false, bags: ['checked23'], max_quantity: 1 },
  loyalty: [
    {
      airline_id: 'NH',
      program_name: 'ANA Mileage Club',
      tiers: ['Bronze', 'Platinum', 'Diamond'],
      free_checked_bag_tiers: ['Platinum', 'Diamond'],
    },
    {
      airline_id: 'LH',
      program_name: 'Miles & More',
      tiers: ['Member', 'Frequent Traveller', 'Senator', 'HON Circle'],
      free_checked_bag_tiers: ['Senator', 'HON Circle'],
    },
  ],
  priority_boarding: 2000,
  automatic_check_in: 500,
  fare_families: [
    {
      code: 'value',
      name: 'Economy Value',
      price: 0,
      benefits: ['2 checked bags 23 kg', 'Cabin bag 10 kg'],
      checked_bags: { bag: 'checked23', pieces: 2 },
    },
    {
      code: 'standard',
      name: 'Economy Standard',
      price: 15000,
      benefits: ['2 checked bags 23 kg', 'Changes for a fee', 'Full miles'],
      checked_bags: { bag: 'checked23', pieces: 2 },
    },
    {
      code: 'full_flex',
      name: 'Economy Full Flex',
      price: 60000,
      benefits: ['2 checked bags 23 kg', 'Free changes', 'Refundable', 'Full miles'],
      checked_bags: { bag: 'checked23', pieces: 2 },
    },
  ],
  // ANA does not charge for a standard seat.
  seat_prices: { standard: 0, front: 3000, extra_legroom: 8000 },
  taxes: [
    {
      tax_type: 'JCT',
      percent: 10,
      applies_to: ['bag', 'seat', 'priority_boarding', 'automatic_check_in', 'fare_family_upsell'],
    },
  ],
  fleet: [
    // The Honolulu "Flying Honu" A380s.
    { aircraft: 'A380', flight_numbers: { from: 180, to: 189 } },
    { aircraft: 'A320', max_minutes: 240 },
    { aircraft: 'B787-9' },
  ],
}

const KU: AirlinePolicy = {
  airline: 'KU',
  name: 'Kuwait Airways',
  currency: 'KWD',
  decimal_places: 3,
  cabin: { display_name: 'Cabin bag 7 kg', pieces: 1, weight_kg: 7, dimensions: { length: 56, width: 45, height: 25 } },
  bags: [
    bag('checked23', 'Checked bag 23 kg', true, 23, CHECKED_158, 15000, 3),
    bag('checked32', 'Heavy checked bag 32 kg', true, 32, CHECKED_158, 25000, 2),
    bag('infant10', 'Infant checked bag 10 kg', true, 10, INFANT_CHECKED, 5000, 1, true),
  ],
  lap_infant: { cabin_allowance: false, bags: ['infant10'], max_quantity: 1 },
  loyalty: [
    {
      airline_id: 'KU',
      program_name: 'Oasis Club',
      tiers: ['Blue', 'Silver', 'Gold'],
      free_checked_bag_tiers: ['Gold'],
    },
  ],
  priority_boarding: 3000,
  automatic_check_in: 1000,
  fare_families: [
    {
      code: 'saver',
      name: 'Economy Saver',
      price: 0,
      benefits: ['Checked bag 23 kg'],
      checked_bags: { bag: 'checked23', pieces: 1 },
    },
    {
      code: 'value',
      name: 'Economy Value',
      price: 8000,
      benefits: ['2 checked bags 23 kg', 'Free seat selection'],
      checked_bags: { bag: 'checked23', pieces: 2 },
    },
    {
      code: 'flex',
      name: 'Economy Flex',
      price: 25000,
      benefits: ['2 checked bags 23 kg', 'Free seat selection', 'Free changes', 'Refundable'],
      checked_bags: { bag: 'checked23', pieces: 2 },
    },
  ],
  seat_prices: { standard: 2000, front: 3500, extra_legroom: 8000 },
  taxes: [],
  fleet: [{ aircraft: 'A320', max_minutes: 240 }, { aircraft: 'B777-300ER' }],
}

const EK: AirlinePolicy = {
  airline: 'EK',
  name: 'Emirates',
  currency: 'AED',
  decimal_places: 2,
  cabin: { display_name: 'Cabin bag 7 kg', pieces: 1, weight_kg: 7, dimensions: { length: 55, width: 38, height: 20 } },
  bags: [
    bag('checked23', 'Extra checked bag 23 kg', true, 23, CHECKED_158, 40000, 3),
    bag('checked32', 'Heavy extra checked bag 32 kg', true, 32, CHECKED_158, 65000, 2),
    bag('infant10', 'Infant checked bag 10 kg', true, 10, INFANT_CHECKED, 10000, 1, true),
  ],
  lap_infant: { cabin_allowance: false, bags: ['infant10'], max_quantity: 1 },
  loyalty: [
    {
      airline_id: 'EK',
      program_name: 'Skywards',
      tiers: ['Blue', 'Silver', 'Gold', 'Platinum'],
      free_checked_bag_tiers: ['Gold', 'Platinum'],
    },
  ],
  priority_boarding: 7500,
  automatic_check_in: 2000,
  fare_families: [
    {
      code: 'special',
      name: 'Economy Special',
      price: 0,
      benefits: ['Checked bag 23 kg'],
      checked_bags: { bag: 'checked23', pieces: 1 },
    },
    {
      code: 'saver',
      name: 'Economy Saver',
      price: 30000,
      benefits: ['Checked bag 23 kg', 'Standard seat selection'],
      checked_bags: { bag: 'checked23', pieces: 1 },
    },
    {
      code: 'flex',
      name: 'Economy Flex',
      price: 90000,
      benefits: ['2 checked bags 23 kg', 'Seat selection', 'Changes without fee'],
      checked_bags: { bag: 'checked23', pieces: 2 },
    },
    {
      code: 'flex_plus',
      name: 'Economy Flex Plus',
      price: 180000,
      benefits: ['2 checked bags 23 kg', 'Seat selection', 'Free changes', 'Refundable', 'Priority boarding'],
      checked_bags: { bag: 'checked23', pieces: 2 },
      includes_priority_boarding: true,
    },
  ],
  seat_prices: { standard: 5000, front: 9000, extra_legroom: 20000 },
  taxes: [
    {
      tax_type: 'VAT',
      percent: 5,
      applies_to: ['bag', 'seat', 'priority_boarding', 'automatic_check_in', 'fare_family_upsell'],
    },
  ],
  fleet: [
    // EK1–EK99 are the flagship routes, flown by the A380.
    { aircraft: 'A380', flight_numbers: { from: 1, to: 99 } },
    { aircraft: 'B777-300ER', max_minutes: 360 },
    { aircraft: 'A380' },
  ],
}

/** Any airline the sandbox does not know, so that every itinerary still gets offers. */
export const GENERIC_POLICY: AirlinePolicy = {
  airline: '*',
  name: 'Sandbox generic airline',
  currency: 'USD',
  decimal_places: 2,
  cabin: { display_name: 'Cabin bag 7 kg', pieces: 1, weight_kg: 7, dimensions: { length: 55, width: 40, height: 20 } },
  bags: [
    bag('checked23', 'Checked bag 23 kg', true, 23, CHECKED_158, 5000, 3),
    bag('checked32', 'Heavy checked bag 32 kg', true, 32, CHECKED_158, 10000, 2),
    bag('infant10', 'Infant checked bag 10 kg', true, 10, INFANT_CHECKED, 2500, 1, true),
  ],
  lap_infant: { cabin_allowance: false, bags: ['infant10'], max_quantity: 1 },
  loyalty: [],
  priority_boarding: 1000,
  automatic_check_in: 500,
  fare_families: [
    { code: 'basic', name: 'Basic', price: 0, benefits: ['Cabin bag 7 kg'], checked_bags: null },
    {
      code: 'standard',
      name: 'Standard',
      price: 3000,
      benefits: ['Checked bag 23 kg', 'Seat selection'],
      checked_bags: { bag: 'checked23', pieces: 1 },
    },
    {
      code: 'flex',
      name: 'Flex',
      price: 9000,
      benefits: ['Checked bag 23 kg', 'Seat selection', 'Free changes'],
      checked_bags: { bag: 'checked23', pieces: 1 },
    },
  ],
  seat_prices: { standard: 1000, front: 2000, extra_legroom: 4000 },
  taxes: [],
  fleet: [{ aircraft: 'A320', max_minutes: 300 }, { aircraft: 'B787-9' }],
}

/** Keyed by IATA designator. */
export const AIRLINES: Readonly<Record<string, AirlinePolicy>> = { LH, BA, AA, FR, NH, KU, EK }
