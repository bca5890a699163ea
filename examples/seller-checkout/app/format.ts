/**
 * How the page words and formats what it shows: prices (through the SDK, in the trip's locale), counts,
 * dates and times, and whom and which flight an extra is for.
 */
import type { Amount, CallbackBasketItem, Order } from './types.ts'
import { loadedTrip } from './state.ts'
import { sdk } from './sdk.ts'

export const money = (m: Amount) => sdk().formatPrice(m.amount, m.decimal_places, m.currency)
export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

const dateFmt = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
})
/** Local times as the airline prints them: the clock time written in the timestamp, at its own offset. */
export const clock = (iso: string) => iso.slice(11, 16)
export const dateOf = (iso: string) => dateFmt.format(new Date(`${iso.slice(0, 10)}T12:00:00Z`))
export const timeFmt = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' })

export function passengerName(id: string): string {
  const trip = loadedTrip()
  const i = trip.passengers.findIndex((p) => p.passenger_id === id)
  const p = trip.passengers[i]
  if (!p) return ''
  const name = [p.first_names, p.surname].filter(Boolean).join(' ')
  return name || `Passenger ${i + 1}`
}

function routeOfJourney(journeyId: string): string {
  const j = loadedTrip().journeys.find((x) => x.journey_id === journeyId)
  return j ? `${j.segments[0]!.departure_airport} → ${j.segments.at(-1)!.arrival_airport}` : ''
}

function routeOfSegment(segmentId: string): string {
  for (const j of loadedTrip().journeys) {
    const s = j.segments.find((x) => x.segment_id === segmentId)
    if (s) return `${s.departure_airport} → ${s.arrival_airport}`
  }
  return ''
}

/** "Ada Lovelace · LHR → JFK": whom and which flight an extra is for. */
export function itemContext(item: Pick<CallbackBasketItem, 'product_details'>): string {
  const d = (item.product_details ?? {}) as { passenger_id?: string; segment_id?: string; journey_id?: string }
  const parts: string[] = []
  if (d.passenger_id) parts.push(passengerName(d.passenger_id))
  if (d.segment_id) parts.push(routeOfSegment(d.segment_id))
  else if (d.journey_id) parts.push(routeOfJourney(d.journey_id))
  return parts.filter(Boolean).join(' · ')
}

/** An order as the traveller knows it: "Checked bag, Ada Lovelace · LHR → JFK". */
export const orderLabel = (o: Order) => {
  const item = loadedTrip().basket[o.basket_item_id]
  const context = item ? itemContext(item) : ''
  return context ? `${o.display_name}, ${context}` : o.display_name
}
