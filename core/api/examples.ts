/**
 * Request bodies as a seller's backend sends them, by operation id: the OpenAPI document shows them as each
 * request body's `examples`. Typed by the operations' own schemas, and test/server/docs/openapi.test.ts checks
 * each against its operation's schema, against the document's, and sends the trips to the service.
 *
 * Ids are what earlier answers gave (a trip's ticket_id, a search's product_id); dates are fixed, far
 * enough ahead to stay in the future for years (a static document cannot compute one).
 */
import type { Static } from 'typebox'
import type * as S from '../schemas/index.ts'

export interface Example<T> {
  summary: string
  description?: string
  value: T
}

const segment = (from: string, to: string, departure: string, arrival: string, flight: string) => ({
  departure_airport: from,
  arrival_airport: to,
  departure_time: departure,
  arrival_time: arrival,
  fare_basis: 'YLOWGB',
  fare_class: 'Y',
  fare_family: 'light',
  marketing_airline: 'BA',
  marketing_flight_number: flight,
})

const createTrip: Record<string, Example<Static<typeof S.TripCreateRequest>>> = {
  round_trip: {
    summary: 'A round trip for two adults and a lap infant, searching bags and seats',
    description:
      'Segment times without an offset are the local time at the airport, as tickets show them. Passenger ids are left to the service (p1, p2, p3 in this order).',
    value: {
      language: 'en-GB',
      currency: 'EUR',
      country: 'GB',
      search: { bag: { search: true }, seat: { search: true } },
      tickets: [
        {
          status: 'offered',
          offered_price: { currency: 'EUR', decimal_places: 2, base_price: 80000, markup: 2500, total: 82500 },
          journeys: [
            { segments: [segment('LHR', 'JFK', '2030-06-01T09:30', '2030-06-01T12:25', '117')] },
            { segments: [segment('JFK', 'LHR', '2030-06-08T18:30', '2030-06-09T06:35', '112')] },
          ],
          metadata: { offer_ref: 'ofr-1' },
        },
      ],
      passengers: [
        { passenger_type: 'adult' },
        { passenger_type: 'adult' },
        { passenger_type: 'infant', on_lap_of: 'p1' },
      ],
    },
  },
  one_way_with_details: {
    summary: 'One way, with the traveller, contact details and your mark-ups',
    description:
      "Times with their UTC offset; the passenger's own id; a mark-up on every product (5 % and 1.00) and more on bags.",
    value: {
      language: 'en-GB',
      currency: 'GBP',
      country: 'GB',
      search: { bag: { search: true }, seat: { search: true }, priority_boarding: { search: true } },
      tickets: [
        {
          status: 'offered',
          offered_price: { currency: 'GBP', decimal_places: 2, base_price: 24000, markup: 0, total: 24000 },
          journeys: [
            { segments: [segment('LHR', 'MAD', '2030-09-14T07:15:00+01:00', '2030-09-14T10:40:00+02:00', '456')] },
          ],
        },
      ],
      passengers: [
        {
          passenger_id: 'pax-1',
          passenger_type: 'adult',
          first_names: 'Ada',
          surname: 'Lovelace',
          date_of_birth: '1985-12-10',
          gender: 'female',
          title: 'Ms',
          loyalty_programs: [
            { airline_id: 'BA', program_name: 'Executive Club', number: '12345678', tier_name: 'Gold' },
          ],
        },
      ],
      contact_details: {
        contact_details_type: 'passenger',
        passenger_id: 'pax-1',
        email: 'ada@example.com',
        phone_number: '+44 20 7946 0000',
        address: { street_address_1: "12 St James's Square", city: 'London', postal_code: 'SW1Y 4LB', country: 'GB' },
      },
      markups: { default: { percentage: 5, fixed: 100 }, bag: { percentage: 12.5 } },
    },
  },
}

const patchTrip: Record<string, Example<Static<typeof S.TripPatchRequest>>> = {
  names_and_contact: {
    summary: "The travellers' names and dates of birth, and the contact details",
    value: {
      passengers: [
        { passenger_id: 'p1', first_names: 'Ada', surname: 'Lovelace', date_of_birth: '1985-12-10' },
        { passenger_id: 'p2', first_names: 'Charles', surname: 'Babbage', date_of_birth: '1981-12-26' },
      ],
      contact_details: {
        contact_details_type: 'passenger',
        passenger_id: 'p1',
        email: 'ada@example.com',
        phone_number: '+44 20 7946 0000',
      },
    },
  },
}

const BAG = '3f2b8c1e-7d4a-5b9e-8c21-6a0f4d7e9b13'
const SEAT = '9a1c5e7f-2b3d-5f8a-9c4e-1d7b3a6f0e25'

const addToBasket: Record<string, Example<Static<typeof S.BasketAddRequest>>> = {
  bag_and_seat: {
    summary: 'A checked bag for p1 and a seat for p2, the seat with a mark-up of your own',
    description:
      "product_id is a product of the trip's search (GET .../search/{search_id}); markup is per unit, in the trip's currency and decimal places.",
    value: [
      { product_id: BAG, passenger_id: 'p1', quantity: 1 },
      {
        product_id: SEAT,
        passenger_id: 'p2',
        quantity: 1,
        markup: { amount: 250, currency: 'EUR', decimal_places: 2 },
      },
    ],
  },
}

const replaceBasket: Record<string, Example<Static<typeof S.BasketReplaceRequest>>> = {
  two_bags: {
    summary: 'The whole basket: two checked bags for p1, nothing else',
    value: [{ product_id: BAG, passenger_id: 'p1', quantity: 2 }],
  },
  empty: {
    summary: 'No ancillaries (the ticket stays)',
    value: [],
  },
}

const TICKET = '5c0e9f3a-8b7d-4e21-9a6c-2f1d0b4e7c38'
const STATE_HASH = '4f9d2c7b1e8a6d3f0c5b9e2a7d4f1c8b6e3a0d9f2c5b8e1a4d7f0c3b6e9a2d5f'

const fulfill: Record<string, Example<Static<typeof S.FulfillRequest>>> = {
  first: {
    summary: 'The first fulfill: the tickets are booked and issued',
    description:
      "trip_state_hash is the one of the basket the traveller was charged for (GET .../basket); the passengers and tickets are the trip's.",
    value: {
      trip_state_hash: STATE_HASH,
      contact_details: {
        contact_details_type: 'passenger',
        passenger_id: 'p1',
        email: 'ada@example.com',
        phone_number: '+44 20 7946 0000',
      },
      passengers: [
        {
          passenger_id: 'p1',
          first_names: 'Ada',
          surname: 'Lovelace',
          date_of_birth: '1985-12-10',
          passenger_type: 'adult',
        },
        {
          passenger_id: 'p2',
          first_names: 'Charles',
          surname: 'Babbage',
          date_of_birth: '1981-12-26',
          passenger_type: 'adult',
        },
      ],
      tickets: [
        {
          ticket_id: TICKET,
          access_details: { record_locator: 'ABC123', ticket_number: '1251234567890' },
          status: 'booked',
        },
      ],
      payment_details: { payment_type: 'service_settlement' },
    },
  },
  not_yet_ticketed: {
    summary: 'Booked, tickets not issued yet: the orders wait in awaiting_ticketing',
    value: {
      trip_state_hash: STATE_HASH,
      contact_details: { contact_details_type: 'passenger', passenger_id: 'p1', email: 'ada@example.com' },
      passengers: [
        {
          passenger_id: 'p1',
          first_names: 'Ada',
          surname: 'Lovelace',
          date_of_birth: '1985-12-10',
          passenger_type: 'adult',
        },
        {
          passenger_id: 'p2',
          first_names: 'Charles',
          surname: 'Babbage',
          date_of_birth: '1981-12-26',
          passenger_type: 'adult',
        },
      ],
      tickets: [{ ticket_id: TICKET, access_details: { record_locator: 'ABC123' }, status: 'booked' }],
      is_ticketed: false,
      payment_details: { payment_type: 'service_settlement' },
    },
  },
  later: {
    summary: 'A later fulfill: the items added since the first',
    value: { trip_state_hash: STATE_HASH, payment_details: { payment_type: 'service_settlement' } },
  },
}

const quoteCancellation: Record<string, Example<Static<typeof S.CancelQuoteRequest>>> = {
  one_bag: {
    summary: 'What cancelling the ordered bag would refund',
    value: { basket_item_ids: ['b7e4c2a9-1f3d-4a8b-9e6c-0d2f5a7b3c41'] },
  },
}

const createSubscription: Record<string, Example<Static<typeof S.SubscriptionRequest>>> = {
  order_status: {
    summary: 'Every move of every order, to your endpoint',
    value: { delivery_method: 'http', target: 'https://shop.example/svc-hooks', event_name: 'order_status_changed' },
  },
}

/** By operation id; each operation's examples are of its own body schema. */
export const REQUEST_EXAMPLES: Record<string, Record<string, Example<unknown>>> = {
  createTrip,
  patchTrip,
  addToBasket,
  replaceBasket,
  fulfill,
  quoteCancellation,
  createSubscription,
}
