/**
 * Turns an aircraft layout (data) into the seats of one flight: characteristics, price zone and whether
 * the seat is already taken. Occupancy is seeded by the flight, so every trip on the same flight sees
 * the same seats taken.
 */
import type { SeatCharacteristic } from '../../schemas/search.ts'
import { hashString, prng } from './random.ts'
import type { AircraftLayout, DeckLayout, RowRange, SeatZone } from './types.ts'

export interface CabinSeat {
  row: number
  column: string
  zone: SeatZone
  characteristics: SeatCharacteristic[]
  taken: boolean
}

export interface CabinRow {
  row: number
  exit: boolean
  wing: boolean
  seats: CabinSeat[]
}
export interface CabinDeck {
  layout: DeckLayout
  rows: CabinRow[]
}

/** Share of seats already sold on a flight; a range so that flights differ. */
const MIN_OCCUPANCY = 0.3
const MAX_OCCUPANCY = 0.5

const inRange = (row: number, range: RowRange | null): boolean => range !== null && row >= range.from && row <= range.to

function position(deck: DeckLayout, present: string[], column: string): SeatCharacteristic {
  // Window is judged on the seats present, so that a tapered last row still has window seats.
  if (column === present[0] || column === present[present.length - 1]) return 'window'
  const i = deck.columns.indexOf(column)
  const before = deck.columns[i - 1]
  if (deck.aisles_after.includes(column) || (before !== undefined && deck.aisles_after.includes(before))) return 'aisle'
  return 'middle'
}

/** `seed` names the flight (carrier, number, date); the same seed always yields the same occupancy. */
export function buildCabin(layout: AircraftLayout, seed: string): CabinDeck[] {
  const random = prng(hashString(seed))
  const occupancy = MIN_OCCUPANCY + random() * (MAX_OCCUPANCY - MIN_OCCUPANCY)
  return layout.decks.map((deck) => {
    const rows: CabinRow[] = []
    for (let row = deck.rows.from; row <= deck.rows.to; row++) {
      if (deck.skip_rows.includes(row)) continue
      const exit = deck.exit_rows.includes(row)
      const wing = inRange(row, deck.wing_rows)
      const legroom = exit || deck.extra_legroom_rows.includes(row)
      const zone: SeatZone = legroom ? 'extra_legroom' : inRange(row, deck.front_rows) ? 'front' : 'standard'
      const present = deck.columns.filter((c) => !deck.missing_seats.includes(`${row}${c}`))
      const bassinet = deck.bassinets.find((b) => b.row === row)
      const seats = present.map((column): CabinSeat => {
        const characteristics: SeatCharacteristic[] = [position(deck, present, column)]
        if (exit) characteristics.push('exit_row', 'no_infant')
        if (legroom) characteristics.push('extra_legroom')
        if (zone === 'front') characteristics.push('front')
        if (wing) characteristics.push('over_wing')
        if (deck.restricted_recline_rows.includes(row)) characteristics.push('restricted_recline')
        if (bassinet?.columns.includes(column)) characteristics.push('bassinet')
        return { row, column, zone, characteristics, taken: random() < occupancy }
      })
      rows.push({ row, exit, wing, seats })
    }
    return { layout: deck, rows }
  })
}
