/**
 * What the seat map shows, worked out from the session's state as plain data: which seats a passenger
 * may take on a segment, at which price band, who already holds which seat, and where the arrow keys
 * lead. No DOM here, so the rules read (and change) in one place.
 */
import type { BasketItem, Passenger, Search, TripView } from '../../client/types.ts'
import { holds } from '../../client/offers.ts'

export type SeatMap = Search['results']['seatmaps'][number]
export type Deck = SeatMap['decks'][number]
export type Product = Search['results']['products'][string][string]
export type Offer = Product['price_and_availability'][string]
export type Money = NonNullable<Offer['price']>['total']
export type Segment = TripView['journeys'][number]['segments'][number]

/**
 * `selected`: the current passenger's seat; `other`: another passenger's seat in the basket;
 * `restricted`: free, but not for the current passenger (lap infant, exit row, ...).
 */
export type SeatStatus = 'available' | 'selected' | 'other' | 'taken' | 'restricted'

export interface SeatView {
  /** `<row><column>`, unique on an aircraft (row numbers never repeat across decks). */
  key: string
  row: number
  column: string
  characteristics: string[]
  product: Product | null
  /** The current passenger's offer for this seat. */
  offer: Offer | null
  status: SeatStatus
  /** The basket item holding this seat, whoever it is for. */
  item: BasketItem | null
  /** Price band (0 = cheapest) of an available seat, otherwise -1. */
  band: number
  /** An aisle runs between this seat and the one before it. */
  aisleBefore: boolean
  /** The airline's notices about the seat ("Seat does not recline"), as it gives them: free text. */
  disclosures: string[]
}

export interface RowView {
  row: number
  exit: boolean
  wing: boolean
  cells: Array<SeatView | null>
}

export interface DeckView {
  deck: number
  name: string
  columns: string[]
  aisleBefore: boolean[]
  rows: RowView[]
}

export interface PriceBand {
  min: Money
  max: Money
}

export interface SeatDetailsLike {
  row?: number
  column?: string
  segment_id?: string
  passenger_id?: string
}

/** How many colours the price bands use at most; more distinct prices share a band. */
export const MAX_BANDS = 3

export const seatDetails = (item: BasketItem): SeatDetailsLike => item.product_details as SeatDetailsLike
export const seatKey = (row: number, column: string) => `${row}${column}`

/** Segments in trip order that have a seat map, each with its map. */
export function segmentsWithMaps(trip: TripView, search: Search): Array<{ segment: Segment; map: SeatMap }> {
  const maps = new Map(search.results.seatmaps.map((m) => [m.segment_id, m]))
  return trip.journeys
    .flatMap((j) => j.segments)
    .flatMap((segment) => {
      const map = maps.get(segment.segment_id)
      return map && map.decks.some((d) => d.rows.length > 0) ? [{ segment, map }] : []
    })
}

/** A lap infant travels on someone's lap; everyone else (an infant with a seat of its own too) can sit. */
export const isLapInfant = (p: Passenger) => p.on_lap_of !== null && p.on_lap_of !== undefined && p.on_lap_of !== ''
export const seatablePassengers = (trip: TripView) => trip.passengers.filter((p) => !isLapInfant(p))
export const lapInfants = (trip: TripView) => trip.passengers.filter(isLapInfant)

/** Seat items of one segment, by seat key. */
export function seatItemsOn(basket: Record<string, BasketItem>, segmentId: string): Map<string, BasketItem> {
  const out = new Map<string, BasketItem>()
  for (const item of Object.values(basket)) {
    if (item.product_type !== 'seat' || !holds(item)) continue
    const d = seatDetails(item)
    if (d.segment_id === segmentId && d.row !== undefined && d.column !== undefined)
      out.set(seatKey(d.row, d.column), item)
  }
  return out
}

/** The passenger's seat item on a segment, if any. */
export function seatItemOf(
  basket: Record<string, BasketItem>,
  segmentId: string,
  passengerId: string,
): BasketItem | null {
  return (
    Object.values(basket).find(
      (i) =>
        i.product_type === 'seat' &&
        holds(i) &&
        seatDetails(i).segment_id === segmentId &&
        seatDetails(i).passenger_id === passengerId,
    ) ?? null
  )
}

/** Price bands of the seats a passenger can buy on a map: each distinct price its own band, up to MAX_BANDS. */
export function priceBands(
  map: SeatMap,
  products: Record<string, Product>,
  passengerId: string,
): { bands: PriceBand[]; bandOf(amount: number): number } {
  const prices = new Map<number, Money>()
  for (const deck of map.decks)
    for (const row of deck.rows)
      for (const seat of row.seats) {
        const offer = seat.product_id ? products[seat.product_id]?.price_and_availability[passengerId] : undefined
        if (seat.available && offer?.available && offer.price) prices.set(offer.price.total.amount, offer.price.total)
      }
  const sorted = [...prices.keys()].sort((a, b) => a - b)
  const n = sorted.length
  const indexOf = (amount: number) => {
    const i = sorted.indexOf(amount)
    return i < 0 ? -1 : n <= MAX_BANDS ? i : Math.floor((i * MAX_BANDS) / n)
  }
  const bands: PriceBand[] = []
  for (const amount of sorted) {
    const b = indexOf(amount)
    const money = prices.get(amount)!
    const band = bands[b]
    if (band) band.max = money
    else bands[b] = { min: money, max: money }
  }
  return { bands, bandOf: indexOf }
}

/** The map of one deck as the current passenger sees it. */
export function deckView(
  deck: Deck,
  products: Record<string, Product>,
  items: Map<string, BasketItem>,
  passengerId: string,
  bandOf: (amount: number) => number,
): DeckView {
  const aisleBefore = deck.columns.map((_, i) => i > 0 && deck.aisles_after.includes(deck.columns[i - 1]!))
  return {
    deck: deck.deck,
    name: deck.name,
    columns: [...deck.columns],
    aisleBefore,
    rows: deck.rows.map((r) => {
      const byColumn = new Map(r.seats.map((s) => [s.column, s]))
      return {
        row: r.row,
        exit: r.exit,
        wing: r.wing,
        cells: deck.columns.map((column, ci): SeatView | null => {
          const seat = byColumn.get(column)
          if (!seat) return null
          const key = seatKey(seat.row, seat.column)
          const product = seat.product_id ? (products[seat.product_id] ?? null) : null
          const offer = product?.price_and_availability[passengerId] ?? null
          const item = items.get(key) ?? null
          const holder = item ? (seatDetails(item).passenger_id ?? null) : null
          const status: SeatStatus = item
            ? holder === passengerId
              ? 'selected'
              : 'other'
            : !seat.available || !product
              ? 'taken'
              : offer?.available && offer.price
                ? 'available'
                : 'restricted'
          return {
            key,
            row: seat.row,
            column: seat.column,
            characteristics: seat.characteristics,
            product,
            offer,
            status,
            item,
            band: status === 'available' && offer?.price ? bandOf(offer.price.total.amount) : -1,
            aisleBefore: aisleBefore[ci] ?? false,
            disclosures: seat.disclosures ?? [],
          }
        }),
      }
    }),
  }
}

/**
 * The decks of a map by level (`deck` number), in the map's order: a real airline's map has one entry per
 * cabin (Business, then Economy, both on deck 0), each with its own columns, drawn one after the other.
 */
export function levelsOf(decks: DeckView[]): DeckView[][] {
  const levels = new Map<number, DeckView[]>()
  for (const d of decks) levels.set(d.deck, [...(levels.get(d.deck) ?? []), d])
  return [...levels.values()]
}

export const allSeats = (deck: DeckView): SeatView[] =>
  deck.rows.flatMap((r) => r.cells.filter((c): c is SeatView => c !== null))

export function findSeat(deck: DeckView, key: string): { r: number; c: number } | null {
  for (let r = 0; r < deck.rows.length; r++) {
    const c = deck.rows[r]!.cells.findIndex((s) => s?.key === key)
    if (c >= 0) return { r, c }
  }
  return null
}

/**
 * Where Down (or Up) leads past the last (first) row of a cabin: the first (last) row of the next
 * (previous) cabin, in the same column letter when it has one, else the seat nearest the same place.
 */
export function enterDeck(into: DeckView, from: DeckView, key: string, down: boolean): string | null {
  const at = findSeat(from, key)
  if (!at) return null
  const same = into.columns.indexOf(from.columns[at.c] ?? '')
  const c = same >= 0 ? same : Math.round((at.c / Math.max(1, from.columns.length - 1)) * (into.columns.length - 1))
  for (const { cells } of down ? into.rows : [...into.rows].reverse()) {
    for (let d = 0; d < cells.length; d++) {
      const s = cells[c - d] ?? cells[c + d]
      if (s) return s.key
    }
  }
  return null
}

export type NavKey = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown' | 'Home' | 'End' | 'PageUp' | 'PageDown'
export const NAV_KEYS: readonly string[] = [
  'ArrowLeft',
  'ArrowRight',
  'ArrowUp',
  'ArrowDown',
  'Home',
  'End',
  'PageUp',
  'PageDown',
]

/** Rows that PageUp/PageDown jump. */
const PAGE = 5

/**
 * Where a key leads from a seat. The map is never mirrored, so Left/Right follow the aircraft's letters
 * whatever the text direction. Gaps (aisles, seats the fuselage leaves out) are skipped; the edges stop.
 * Up/Down keep the column, or take the nearest seat of the row when that row lacks it.
 */
export function navigate(deck: DeckView, from: string, key: NavKey, ctrl = false): string | null {
  const at = findSeat(deck, from)
  if (!at) return null
  const rows = deck.rows
  const rowAt = (r: number) => rows[r]!.cells
  const firstIn = (r: number) => rowAt(r).find((s) => s !== null)?.key ?? null
  const lastIn = (r: number) => rowAt(r).findLast((s) => s !== null)?.key ?? null
  const nearestIn = (r: number, c: number): string | null => {
    const cells = rowAt(r)
    for (let d = 0; d < cells.length; d++) {
      const s = cells[c - d] ?? cells[c + d]
      if (s) return s.key
    }
    return null
  }
  const vertical = (step: number, count: number) => {
    let r = at.r
    let target: string | null = null
    for (let moved = 0; moved < count; moved++) {
      let next = r + step
      while (next >= 0 && next < rows.length && nearestIn(next, at.c) === null) next += step
      if (next < 0 || next >= rows.length) break
      r = next
      target = nearestIn(r, at.c)
    }
    return target
  }
  switch (key) {
    case 'ArrowRight':
      return (
        rowAt(at.r)
          .slice(at.c + 1)
          .find((s) => s !== null)?.key ?? null
      )
    case 'ArrowLeft':
      return (
        rowAt(at.r)
          .slice(0, at.c)
          .findLast((s) => s !== null)?.key ?? null
      )
    case 'ArrowDown':
      return vertical(1, 1)
    case 'ArrowUp':
      return vertical(-1, 1)
    case 'PageDown':
      return vertical(1, PAGE)
    case 'PageUp':
      return vertical(-1, PAGE)
    case 'Home': {
      if (!ctrl) return firstIn(at.r)
      for (let r = 0; r < rows.length; r++) if (firstIn(r) !== null) return firstIn(r)
      return null
    }
    case 'End': {
      if (!ctrl) return lastIn(at.r)
      for (let r = rows.length - 1; r >= 0; r--) if (lastIn(r) !== null) return lastIn(r)
      return null
    }
  }
}
