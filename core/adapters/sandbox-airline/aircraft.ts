/**
 * Economy-cabin seat maps of the sandbox fleet. Only economy is mapped because that is the cabin whose
 * seats are sold as ancillaries; premium cabins come with their seat.
 *
 * Pricing: each airline has one zone price table (airlines.ts, `seat_prices`, in its own currency) and each
 * aircraft scales it by `seat_price_percent`, so a long-haul seat costs more than a short-haul one without a
 * price table per airline per aircraft.
 *
 * Row numbers never repeat across an aircraft's decks, because a seat's offer key is `<row><column>`.
 */
import type { AircraftCode, AircraftLayout } from './types.ts'

const A320: AircraftLayout = {
  code: 'A320',
  name: 'Airbus A320',
  seat_price_percent: 100,
  decks: [
    {
      deck: 0,
      name: 'Main deck',
      columns: ['A', 'B', 'C', 'D', 'E', 'F'],
      aisles_after: ['C'],
      rows: { from: 1, to: 31 },
      skip_rows: [13],
      // Two over-wing exits, with row 13 skipped between them.
      exit_rows: [12, 14],
      wing_rows: { from: 10, to: 17 },
      front_rows: { from: 1, to: 6 },
      extra_legroom_rows: [1],
      // Row 11 backs onto the exit; row 12 may not recline into row 14's escape path; row 31 backs onto the galley.
      restricted_recline_rows: [11, 12, 31],
      bassinets: [],
      missing_seats: [],
    },
  ],
}

const B787_9: AircraftLayout = {
  code: 'B787-9',
  name: 'Boeing 787-9',
  seat_price_percent: 200,
  decks: [
    {
      deck: 0,
      name: 'Main deck',
      // Boeing skips G and I in a 3-3-3 cabin, as the real seat maps do.
      columns: ['A', 'B', 'C', 'D', 'E', 'F', 'H', 'J', 'K'],
      aisles_after: ['C', 'F'],
      rows: { from: 20, to: 48 },
      skip_rows: [],
      exit_rows: [34],
      wing_rows: { from: 26, to: 36 },
      front_rows: { from: 20, to: 25 },
      extra_legroom_rows: [20],
      restricted_recline_rows: [33, 48],
      bassinets: [{ row: 20, columns: ['D', 'E', 'F'] }],
      missing_seats: [],
    },
  ],
}

const B777_300ER: AircraftLayout = {
  code: 'B777-300ER',
  name: 'Boeing 777-300ER',
  seat_price_percent: 200,
  decks: [
    {
      deck: 0,
      name: 'Main deck',
      columns: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'J', 'K'],
      aisles_after: ['C', 'G'],
      rows: { from: 21, to: 50 },
      skip_rows: [],
      exit_rows: [32],
      wing_rows: { from: 27, to: 38 },
      front_rows: { from: 21, to: 26 },
      extra_legroom_rows: [21],
      restricted_recline_rows: [31, 50],
      bassinets: [{ row: 21, columns: ['D', 'E', 'F', 'G'] }],
      // The fuselage narrows at the back.
      missing_seats: ['50A', '50K'],
    },
  ],
}

const A380: AircraftLayout = {
  code: 'A380',
  name: 'Airbus A380',
  seat_price_percent: 220,
  decks: [
    {
      deck: 0,
      name: 'Main deck',
      columns: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'J', 'K'],
      aisles_after: ['C', 'G'],
      rows: { from: 43, to: 80 },
      skip_rows: [],
      exit_rows: [56, 71],
      wing_rows: { from: 50, to: 66 },
      front_rows: { from: 43, to: 48 },
      extra_legroom_rows: [43],
      restricted_recline_rows: [55, 70, 80],
      bassinets: [{ row: 43, columns: ['D', 'E', 'F', 'G'] }],
      missing_seats: ['80A', '80K'],
    },
    {
      deck: 1,
      name: 'Upper deck',
      // 2-4-2: the upper deck is narrower, and keeps the letters of the main deck's outer seats.
      columns: ['A', 'C', 'D', 'E', 'F', 'G', 'H', 'K'],
      aisles_after: ['C', 'G'],
      rows: { from: 81, to: 96 },
      skip_rows: [],
      exit_rows: [88],
      wing_rows: { from: 83, to: 92 },
      front_rows: { from: 81, to: 84 },
      extra_legroom_rows: [81],
      restricted_recline_rows: [87, 96],
      bassinets: [{ row: 81, columns: ['D', 'E', 'F', 'G'] }],
      missing_seats: [],
    },
  ],
}

export const AIRCRAFT: Readonly<Record<AircraftCode, AircraftLayout>> = {
  A320: A320,
  'B787-9': B787_9,
  'B777-300ER': B777_300ER,
  A380: A380,
}
