/**
 * Seats, per segment: prices by the segment's marketing airline, the aircraft and its occupancy by the operating
 * airline and flight, because the operating carrier flies the aircraft. Exit rows are refused to children,
 * to anyone holding a lap infant and to anyone under `EXIT_ROW_MIN_AGE` at departure (adapter.ts).
 */
import type { SupplierSeatOffers, SupplierTrip } from '../../../ports/supplier.ts'
import type { SupplierSeatMap } from '../../../ports/supplier-answers.ts'
import { seatOfferKey } from '../../../domain/search.ts'
import type { Segment } from '../../../schemas/trip.ts'
import {
  type Context,
  departureDate,
  EXIT_ROW_MIN_AGE,
  holdsInfant,
  isLapInfant,
  isMinor,
  perPassenger,
  policyFor,
  priced,
  str,
  unavailable,
  youngerThan,
} from '../offer-rules.ts'
import { hashString } from '../random.ts'
import { buildCabin } from '../seatmap.ts'
import type { AircraftLayout, SeatZone } from '../types.ts'
import type { SandboxProduct } from './product.ts'

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

export const seats: SandboxProduct<'seat'> = {
  search: (ctx, trip) => ({ seats: seatOffers(ctx, trip) }),

  offerKey(_ctx, _trip, item) {
    const d = item.product_details
    const sid = str(d.segment_id)
    return sid && typeof d.row === 'number' && typeof d.column === 'string' ? seatOfferKey(sid, d.row, d.column) : null
  },

  // A seat is refunded less the airline's fee until departure.
  refund: 'less_fee_until_departure',
}
