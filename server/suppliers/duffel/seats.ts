/**
 * Duffel's seat maps as the trip's seat maps (core/ports/supplier-answers.ts SupplierSeatMap). Duffel draws a cabin as rows
 * of sections of elements: no column letters (they come from each seat's designator, "12A"), no row
 * numbers (from the designators too), exits as rows of `exit_row` elements of their own, wings as a range
 * of row indexes, facilities (lavatories, galleys) as elements. And it prices a seat per passenger, some
 * seats only for some passengers (an exit row not for a child), with notices per seat ("disclosures").
 *
 * Here: each Duffel cabin is a deck of the map (a cabin has its own layout and aisles), named by its class;
 * columns are the letters found, in their order across the cabin; an aisle follows the last seat of every
 * section but the last; a row of exit elements marks the seat row after it as an exit row (the seats by the
 * door); rows with no seat (galleys, lavatories) are left out; wings are marked where Duffel says, and not
 * at all when it does not. A seat's price band is what it costs each passenger (a passenger it is not offered
 * to cannot take it); its `refs` are Duffel's service id of the seat for each passenger, for the hand-off.
 * A seat with no service for anyone is taken (band null); a `restricted_seat_general` is never on sale.
 */
import type { SeatMap, SeatMapCabin, SeatMapCabinRowSectionElement, SeatMapCabinRowSectionElementSeat } from './types.ts'
import type { SupplierPassengerOffer, SupplierSeatMap } from '../../../core/ports/supplier-answers.ts'
import type { SupplierSeatOffers, SupplierTrip } from '../../../core/ports/supplier.ts'
import { minorUnits } from './bags.ts'
import type { DuffelRefs } from './match.ts'

type Deck = SupplierSeatMap['decks'][number]
type Row = Deck['rows'][number]
type Seat = Row['seats'][number]

const isSeat = (e: SeatMapCabinRowSectionElement): e is SeatMapCabinRowSectionElementSeat => e.type === 'seat' || e.type === 'restricted_seat_general'
const place = (designator: string) => /^(\d+)([A-Z])$/.exec(designator.trim().toUpperCase())

const CLASS_NAMES: Record<string, string> = { first: 'First', business: 'Business', premium_economy: 'Premium economy', economy: 'Economy' }

/** One segment's seats: its map (keyed by offer and segment: Duffel's seats are priced per offer) and bands. */
export function seatOffers(trip: SupplierTrip, refs: DuffelRefs, map: SeatMap, aircraft: string): SupplierSeatOffers | null {
  const segmentId = Object.keys(refs.segments).find((id) => refs.segments[id] === map.segment_id)
  if (!segmentId) return null
  const bands: SupplierSeatOffers['bands'] = {}
  const duffelToTrip = new Map(Object.entries(refs.passengers).map(([trip, duffel]) => [duffel, trip]))
  const decks = map.cabins.map((cabin) => deckOf(cabin, (seat) => {
    if (seat.type === 'restricted_seat_general') return { band: null }
    const offered = new Map<string, { price: string; currency: string; id: string }>()
    for (const s of seat.available_services) {
      const pid = duffelToTrip.get(s.passenger_id)
      if (pid) offered.set(pid, { price: s.total_amount, currency: s.total_currency, id: s.id })
    }
    if (offered.size === 0) return { band: null }
    // Seats that cost every passenger the same share a band: a cabin's hundreds of seats have a handful.
    const band = trip.passengers.map((p) => { const o = offered.get(p.passenger_id); return o ? `${o.price} ${o.currency}` : '-' }).join('|')
    bands[band] ??= Object.fromEntries(trip.passengers.map((p): [string, SupplierPassengerOffer] => {
      const o = offered.get(p.passenger_id)
      return [p.passenger_id, o
        ? { available: true, base: minorUnits(o.price, o.currency), taxes: [], quantity_limit: 1 }
        : { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'not_offered' }]
    }))
    return { band, refs: Object.fromEntries([...offered].map(([pid, o]) => [pid, o.id])) }
  })).filter((d) => d.rows.length > 0)
  return { segment_id: segmentId, map: { key: `duffel:${refs.source.id}:${map.segment_id}`, aircraft, decks }, bands }
}

function deckOf(cabin: SeatMapCabin, sale: (seat: SeatMapCabinRowSectionElementSeat) => { band: string | null; refs?: Record<string, string> }): Deck {
  const columns: string[] = []
  const aisles = new Set<string>()
  const rows: Row[] = []
  let exitNext = false
  cabin.rows.forEach((r, index) => {
    const elements = r.sections.flatMap((s) => s.elements)
    const seats = elements.filter(isSeat)
    if (seats.length === 0) {
      // A row of exits (Duffel draws the doors as a row of their own) makes the next seat row an exit row.
      if (elements.some((e) => e.type === 'exit_row')) exitNext = true
      return
    }
    const out: Seat[] = []
    let number: number | null = null
    r.sections.forEach((section, si) => {
      const inSection = section.elements.filter(isSeat)
      inSection.forEach((seat, i) => {
        const at = place(seat.designator)
        if (!at) return
        number ??= Number(at[1])
        const column = at[2]!
        if (!columns.includes(column)) columns.push(column)
        const last = si < r.sections.length - 1 && i === inSection.length - 1
        if (last) aisles.add(column)
        const characteristics = [
          ...((si === 0 && i === 0) || (si === r.sections.length - 1 && i === inSection.length - 1) ? ['window'] : []),
          ...(last || (si > 0 && i === 0) ? ['aisle'] : []),
          ...(seat.type === 'restricted_seat_general' ? ['restricted'] : []),
        ]
        const { band, refs } = sale(seat)
        out.push({ column, characteristics, band, ...(seat.disclosures.length ? { disclosures: [...seat.disclosures] } : {}), ...(refs ? { refs } : {}) })
      })
    })
    if (number === null) return
    const exit = exitNext || elements.some((e) => e.type === 'exit_row')
    exitNext = false
    if (exit) for (const seat of out) seat.characteristics.push('exit_row')
    const wing = cabin.wings !== null && index >= cabin.wings.first_row_index && index <= cabin.wings.last_row_index
    rows.push({ row: number, exit, wing, seats: out })
  })
  // Letters in cabin order (A before B): a row missing a seat still keeps its place.
  columns.sort()
  return {
    deck: cabin.deck, name: CLASS_NAMES[cabin.cabin_class] ?? cabin.cabin_class,
    columns, aisles_after: columns.filter((c) => aisles.has(c)), rows,
  }
}
