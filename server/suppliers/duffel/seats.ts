/**
 * Duffel's seat maps as the trip's seat maps (core/ports/supplier-answers.ts SupplierSeatMap). Duffel draws a
 * cabin as rows of sections of elements: no column letters (they come from each seat's designator, "12A"), no
 * row numbers (from the designators too), exits as rows of `exit_row` elements of their own, wings as a range
 * of row indexes (or null), facilities (lavatories, galleys, bassinets) as elements. It prices a seat per
 * passenger, some seats only for some passengers (an exit row not for a child), with notices ("disclosures").
 *
 * As Duffel records them (types.ts): every element has every key; a `restricted_seat_general` has no
 * designator and no disclosures (null), and neither has any element but a seat; element types not known yet
 * may come. So: a seat is an element with a designator of a row and a letter; anything else is not a seat
 * (a restricted seat without a designator has no place to be drawn in: it is left out, as a gap). A seat
 * with no service for anyone is taken (band null); a restricted one is never on sale.
 *
 * Each Duffel cabin is a deck of the map (a cabin has its own layout and aisles), named by its class;
 * columns are the letters found, in their order across the cabin; an aisle follows the last seat of every
 * section but the last; a row of exit elements marks the seat row after it as an exit row (the seats by the
 * door); rows with no seat are left out; wings are marked where Duffel says. A seat's price band is what it
 * costs each passenger; its `refs` are Duffel's service id of the seat for each passenger, for the hand-off.
 */
import type { SupplierPassengerOffer, SupplierSeatMap } from '../../../core/ports/supplier-answers.ts'
import type { SupplierSeatOffers, SupplierTrip } from '../../../core/ports/supplier.ts'
import { sha256Hex } from '../../../core/shared/crypto.ts'
import { amount, cut, LIMITS, read, SeatMap, type Element } from './answers.ts'
import { SupplierError } from '../../../core/ports/supplier-errors.ts'
import type { DuffelRefs } from './match.ts'

type Deck = SupplierSeatMap['decks'][number]
type Row = Deck['rows'][number]
type Seat = Row['seats'][number]
type Cabin = SeatMap['cabins'][number]
type Sale = (seat: Element) => { band: string | null; refs?: Record<string, string> }

const SEATS = new Set(['seat', 'restricted_seat_general'])
/** Row and column of a seat's designator ("12A"); null for anything else (a restricted seat's null). */
const place = (e: Element) =>
  SEATS.has(e.type) && e.designator ? /^(\d{1,3})([A-Z])$/.exec(e.designator.trim().toUpperCase()) : null

/** Duffel's cabin classes by name (a Map: the class is Duffel's text, never a key of an object's prototype). */
const CLASS_NAMES = new Map([
  ['first', 'First'],
  ['business', 'Business'],
  ['premium_economy', 'Premium economy'],
  ['economy', 'Economy'],
])

/**
 * One segment's seats: its map and price bands; null when the map is of no segment of the trip. A map that
 * breaks a rule (its shape, a price) is a `supplier_invalid_answer`, which fails the trip's seats only.
 */
export function seatOffers(
  trip: SupplierTrip,
  refs: DuffelRefs,
  raw: unknown,
  aircraftOf: (segmentId: string) => string,
): SupplierSeatOffers | null {
  const map = read(SeatMap, raw, 'seat map')
  const elements = map.cabins.flatMap((c) => c.rows.flatMap((r) => r.sections.flatMap((s) => s.elements)))
  const seats = elements.filter((e) => SEATS.has(e.type)).length
  // A map no aircraft has: drawn, it would stall the page that shows it (and the event loop that renders it).
  if (elements.length > LIMITS.elementsPerMap || seats > LIMITS.seatsPerMap) {
    throw new SupplierError(
      'supplier_invalid_answer',
      `Duffel's seat map of a segment has ${seats} seats in ${elements.length} elements, over the ${LIMITS.seatsPerMap} read`,
    )
  }
  const segmentId = Object.keys(refs.segments).find((id) => refs.segments[id] === map.segment_id)
  if (!segmentId) return null
  const bands: SupplierSeatOffers['bands'] = {}
  const duffelToTrip = new Map(Object.entries(refs.passengers).map(([trip, duffel]) => [duffel, trip]))
  const sale: Sale = (seat) => {
    if (seat.type !== 'seat') return { band: null }
    const offered = new Map<string, { price: ReturnType<typeof amount>; id: string }>()
    for (const s of seat.available_services ?? []) {
      const pid = duffelToTrip.get(s.passenger_id)
      if (pid)
        offered.set(pid, { price: amount(s.total_amount, s.total_currency, `seat ${seat.designator ?? ''}`), id: s.id })
    }
    if (offered.size === 0) return { band: null }
    // Seats that cost every passenger the same share a band: a cabin's hundreds of seats have a handful.
    const band = trip.passengers
      .map((p) => {
        const o = offered.get(p.passenger_id)
        return o ? `${o.price.amount} ${o.price.currency}` : '-'
      })
      .join('|')
    bands[band] ??= Object.fromEntries(
      trip.passengers.map((p): [string, SupplierPassengerOffer] => {
        const o = offered.get(p.passenger_id)
        return [
          p.passenger_id,
          o
            ? { available: true, base: o.price, taxes: [], quantity_limit: 1 }
            : { available: false, base: null, taxes: [], quantity_limit: 0, reason: 'not_offered' },
        ]
      }),
    )
    return { band, refs: Object.fromEntries([...offered].map(([pid, o]) => [pid, o.id])) }
  }
  const decks = map.cabins.map((cabin) => deckOf(cabin, sale)).filter((d) => d.rows.length > 0)
  const content = { aircraft: cut(aircraftOf(map.segment_id)), decks }
  // Keyed by what it holds: a map read again after seats were sold is another map, never the first one's copy.
  return {
    segment_id: segmentId,
    map: { key: `duffel:${sha256Hex(JSON.stringify(content)).slice(0, 32)}`, ...content },
    bands,
  }
}

function deckOf(cabin: Cabin, sale: Sale): Deck {
  const columns: string[] = []
  const aisles = new Set<string>()
  const rows: Row[] = []
  let exitNext = false
  cabin.rows.forEach((r, index) => {
    const elements = r.sections.flatMap((s) => s.elements)
    if (!elements.some((e) => place(e))) {
      // A row of exits (Duffel draws the doors as a row of their own) makes the next seat row an exit row.
      if (elements.some((e) => e.type === 'exit_row')) exitNext = true
      return
    }
    const out: Seat[] = []
    let number: number | null = null
    r.sections.forEach((section, si) => {
      const inSection = section.elements.filter((e) => place(e))
      inSection.forEach((seat, i) => {
        const at = place(seat)!
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
        out.push({
          column,
          characteristics,
          band,
          ...(seat.disclosures?.length ? { disclosures: seat.disclosures.map(cut) } : {}),
          ...(refs ? { refs } : {}),
        })
      })
    })
    if (number === null) return
    const exit = exitNext || elements.some((e) => e.type === 'exit_row')
    exitNext = false
    if (exit) for (const seat of out) seat.characteristics.push('exit_row')
    const wing = cabin.wings != null && index >= cabin.wings.first_row_index && index <= cabin.wings.last_row_index
    rows.push({ row: number, exit, wing, seats: out })
  })
  // Letters in cabin order (A before B): a row missing a seat still keeps its place.
  columns.sort()
  return {
    deck: cabin.deck,
    name: CLASS_NAMES.get(cabin.cabin_class) ?? cut(cabin.cabin_class),
    columns,
    aisles_after: columns.filter((c) => aisles.has(c)),
    rows,
  }
}
