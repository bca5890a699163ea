/**
 * What a list of basket items says of each item beside its name, where the list stands apart from the
 * options (the card display's summary, the basket view): where the item belongs, and its state as a
 * badge. svc.min.js leaves it to the card display's chunk: its own views show items among their options.
 */
import { css, html } from 'lit'
import type { Locale } from '../i18n/index.ts'
import type { BasketItem, Journey, TripView, ValidityState } from '../../client/types.ts'
import { passengerLabel, route } from './format.ts'

function journeyOf(trip: TripView | null, journeyId: unknown): Journey | undefined {
  return trip?.journeys.find((j) => j.journey_id === journeyId)
}

/** "Passenger 1 · London → New York" */
export function itemContext(l: Locale, trip: TripView | null, item: BasketItem): string {
  const d = item.product_details
  const parts: string[] = []
  if (d['passenger_id']) parts.push(passengerLabel(l, trip, d['passenger_id']))
  let journey = journeyOf(trip, d['journey_id'])
  if (!journey && d['segment_id']) {
    const seg = trip?.journeys.flatMap((j) => j.segments).find((s) => s.segment_id === d['segment_id'])
    if (seg) journey = { journey_id: '', segments: [seg] }
  }
  if (journey) parts.push(route(l, journey))
  return parts.join(' · ')
}

const BADGE: Record<
  ValidityState,
  'badge_valid' | 'badge_checking' | 'badge_price_changed' | 'badge_unavailable' | 'badge_invalid'
> = {
  valid: 'badge_valid',
  checking: 'badge_checking',
  price_changed: 'badge_price_changed',
  unavailable: 'badge_unavailable',
  invalid: 'badge_invalid',
}

/** A short state word with a coloured dot; the colour is never the only signal. */
export function renderBadge(l: Locale, item: BasketItem) {
  const state = item.validity.status
  return html`<span class="badge ${state}" part="badge badge-${state}">${l.t[BADGE[state]]}</span>`
}

/** The badges' colours (by state), and a total line under the items. */
export const summaryStyles = css`
  .badge.valid { color: var(--_success); }
  .badge.checking { color: var(--_text-2); }
  .badge.price_changed, .badge.invalid { color: var(--_warning); }
  .badge.unavailable { color: var(--_danger); }
  .total-line { display: flex; flex-wrap: wrap; justify-content: space-between; gap: var(--_space); font-weight: 650; }
`
