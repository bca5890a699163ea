/** "Your flights": the trip the traveller picked, and the scenario the demo panel runs it under. */
import { $, h } from './dom.ts'
import { clock, dateOf, plural } from './format.ts'
import { loadedTrip } from './state.ts'
import { SCENARIO_NAMES } from './texts.ts'
import { sdk } from './sdk.ts'
import type { Journey } from './types.ts'

/** One way of the trip: its date, times and airports, and the flight. */
function journeyItem(j: Journey, i: number): HTMLLIElement {
  const a = j.segments[0]!
  const b = j.segments.at(-1)!
  const overnight = a.departure_time.slice(0, 10) !== b.arrival_time.slice(0, 10)
  return h(
    'li',
    { class: 'journey' },
    h(
      'p',
      { class: 'journey-label' },
      i === 0 ? 'Outbound' : 'Return',
      ' · ',
      h('time', { datetime: a.departure_time.slice(0, 10) }, dateOf(a.departure_time)),
    ),
    h(
      'p',
      { class: 'journey-times' },
      h('span', { class: 'time' }, clock(a.departure_time)),
      h('span', { class: 'iata' }, a.departure_airport),
      h('span', { class: 'line', 'aria-hidden': 'true' }),
      h(
        'span',
        { class: 'time' },
        clock(b.arrival_time),
        overnight ? h('sup', { title: 'Arrives the next day' }, '+1') : null,
      ),
      h('span', { class: 'iata' }, b.arrival_airport),
    ),
    h(
      'p',
      { class: 'muted small' },
      `${a.departure_airport_name} to ${b.arrival_airport_name} · British Airways ${a.marketing_airline} ${a.marketing_flight_number} · Economy (${a.fare_family})`,
    ),
  )
}

export function renderTrip(): void {
  const trip = loadedTrip()
  const adults = trip.passengers.filter((p) => p.type === 'adult').length
  const infants = trip.passengers.filter((p) => p.type === 'infant').length
  const ticket = trip.tickets[0]!
  const first = trip.journeys[0]!.segments[0]!
  const last = trip.journeys[0]!.segments.at(-1)!
  const title = `${first.departure_city_name} → ${last.arrival_city_name}${trip.journeys.length > 1 ? ', return' : ''}`
  $('trip-summary').replaceChildren(
    h('p', { class: 'trip-title' }, title),
    h('ul', { class: 'journeys' }, trip.journeys.map(journeyItem)),
    h(
      'p',
      { class: 'travellers' },
      `${plural(adults, 'adult', 'adults')}, ${plural(infants, 'infant', 'infants')} on a lap · Ticket price `,
      h(
        'strong',
        {},
        ticket.offered_price
          ? sdk().formatPrice(
              ticket.offered_price.total,
              ticket.offered_price.decimal_places,
              ticket.offered_price.currency,
            )
          : '',
      ),
    ),
  )
  $('trip-summary').removeAttribute('aria-busy')
  $('scenario-current').textContent = SCENARIO_NAMES[trip.scenario] ?? trip.scenario
  for (const input of document.querySelectorAll<HTMLInputElement>('input[name="scenario"]'))
    input.checked = input.value === trip.scenario
}
