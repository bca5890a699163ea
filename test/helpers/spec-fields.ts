/**
 * Field lists copied from the interface spec (shared/spec/service-interface.md, "Resources and their
 * fields"), with the JSON type each must have. Tests check responses against these, so a field the spec
 * shows can never silently disappear from a response.
 */
import assert from 'node:assert/strict'
import { assertFields, type FieldType } from './build.ts'

export const TRIP_CREATE_RESPONSE: Record<string, FieldType> = {
  trip_id: 'string',
  trip_state_hash: 'string',
  trip_access_token: 'string',
  refresh_token: 'string',
  search_id: 'string',
  country: 'string',
  currency: 'string',
  language: 'string',
  journeys: 'array',
  orders: 'object',
  to_cancel: 'object',
  basket: 'object',
  passengers: 'array',
  contact_details: 'object',
  tickets: 'array',
  corporate_identifiers: 'object',
}

/** PATCH response ("full trip representation"); GET returns the same shape. */
export const TRIP_REPRESENTATION: Record<string, FieldType> = {
  trip_state_hash: 'string',
  basket: 'object',
  country: 'string',
  currency: 'string',
  journeys: 'array',
  language: 'string',
  orders: 'object',
  contact_details: 'object',
  passengers: 'array',
  tickets: 'array',
  trip_access_token: 'string',
  trip_id: 'string',
}

export const SEGMENT: Record<string, FieldType> = {
  segment_id: 'string',
  departure_airport: 'string',
  departure_airport_name: 'string',
  departure_city: 'string',
  departure_city_name: 'string',
  arrival_airport: 'string',
  arrival_airport_name: 'string',
  arrival_city: 'string',
  arrival_city_name: 'string',
  departure_time: 'string',
  arrival_time: 'string',
  marketing_airline: 'string',
  operating_airline: 'string',
  marketing_flight_number: 'string',
  operating_flight_number: 'string',
  number_of_stops: 'integer',
  metadata: 'object',
  fare_basis: 'string|null',
  fare_class: 'string|null',
  fare_family: 'string|null',
}

export const PASSENGER: Record<string, FieldType> = {
  passenger_id: 'string',
  on_lap_of: 'string|null',
  first_names: 'string|null',
  surname: 'string|null',
  date_of_birth: 'string|null',
  gender: 'string|null',
  title: 'string|null',
  type: 'string',
  metadata: 'object',
  loyalty_programs: 'array',
  identity_documents: 'array',
}

export const CONTACT_DETAILS: Record<string, FieldType> = {
  contact_details_type: 'string',
  passenger_id: 'string',
  email: 'string',
  phone_number: 'string',
  address: 'object',
}
export const ADDRESS: Record<string, FieldType> = {
  city: 'string',
  country: 'string',
  postal_code: 'string',
  street_address_1: 'string',
  street_address_2: 'string|null',
}

export const TICKET: Record<string, FieldType> = {
  ticket_id: 'string',
  status: 'string',
  journey_ids: 'array',
  basket_item_ids: 'array',
  basket_item_id: 'string',
  offered_price: 'object',
  access_details: 'object',
}
export const OFFERED_PRICE: Record<string, FieldType> = {
  currency: 'string',
  decimal_places: 'integer',
  total: 'integer',
}
export const ACCESS_DETAILS: Record<string, FieldType> = {
  record_locator: 'string|null',
  ticket_number: 'string|null',
  reference_name: 'string|null',
  reference_email: 'string|null',
  ticketing_channel: 'object',
}

export const BASKET_VIEW: Record<string, FieldType> = { trip_state_hash: 'string', basket: 'object', journeys: 'array' }

export const BASKET_ITEM: Record<string, FieldType> = {
  basket_item_id: 'string',
  display_name: 'string',
  product_id: 'string',
  product_type: 'string',
  quantity: 'integer',
  ticket_id: 'string',
  benefits: 'array',
  price: 'object',
  product_details: 'object',
  validity: 'object',
}
export const PRICE: Record<string, FieldType> = {
  base: 'object',
  total: 'object',
  fees: 'array',
  markups: 'array',
  taxes: 'array',
}
export const MONEY: Record<string, FieldType> = {
  amount: 'integer',
  currency: 'string',
  decimal_places: 'integer',
  in_original_currency: 'object',
}
export const ORIGINAL_MONEY: Record<string, FieldType> = {
  amount: 'integer',
  currency: 'string',
  decimal_places: 'integer',
}
export const VALIDITY: Record<string, FieldType> = { status: 'string', valid_from: 'string', valid_to: 'string' }

export const PRODUCT_DETAILS: Record<string, Record<string, FieldType>> = {
  bag: {
    checked: 'boolean',
    journey_id: 'string',
    size: 'number',
    size_unit: 'string',
    weight: 'number',
    weight_unit: 'string',
  },
  seat: { row: 'integer', column: 'string', passenger_id: 'string', segment_id: 'string' },
  ticket: { journeys: 'array' },
  automatic_check_in: { journey_id: 'string' },
}

export function assertMoney(m: unknown, where: string) {
  assertFields(m, MONEY, where)
  assertFields(
    (m as { in_original_currency: unknown }).in_original_currency,
    ORIGINAL_MONEY,
    `${where}.in_original_currency`,
  )
}

/** Checks a journeys array as responses show it: journey ids, and every segment field. */
export function assertJourneys(journeys: unknown, where: string) {
  assert.ok(Array.isArray(journeys) && journeys.length > 0, `${where} is a non-empty array`)
  journeys.forEach((j, ji) => {
    assertFields(j, { journey_id: 'string', segments: 'array' }, `${where}[${ji}]`)
    ;(j as { segments: unknown[] }).segments.forEach((s, si) =>
      assertFields(s, SEGMENT, `${where}[${ji}].segments[${si}]`),
    )
  })
}

export function assertBasketItem(item: unknown, key: string) {
  const where = `basket[${key}]`
  assertFields(item, BASKET_ITEM, where)
  const i = item as Record<string, any>
  assert.equal(i.basket_item_id, key, 'basket_item_id equals its key')
  assertFields(i.price, PRICE, `${where}.price`)
  assertMoney(i.price.base, `${where}.price.base`)
  assertMoney(i.price.total, `${where}.price.total`)
  i.price.markups.forEach((m: unknown, n: number) => {
    assertMoney(m, `${where}.price.markups[${n}]`)
    assertFields(m, { markup_type: 'string' }, `${where}.price.markups[${n}]`)
  })
  i.price.taxes.forEach((m: unknown, n: number) => {
    assertMoney(m, `${where}.price.taxes[${n}]`)
    assertFields(m, { tax_type: 'string' }, `${where}.price.taxes[${n}]`)
  })
  const sum = (xs: Array<{ amount: number }>) => xs.reduce((a, x) => a + x.amount, 0)
  assert.equal(
    i.price.total.amount,
    i.price.base.amount + sum(i.price.markups) + sum(i.price.taxes) + sum(i.price.fees),
    `${where}: total = base + markups + taxes + fees`,
  )
  assertFields(i.validity, VALIDITY, `${where}.validity`)
  const details = PRODUCT_DETAILS[i.product_type]
  if (details) assertFields(i.product_details, details, `${where}.product_details`)
  if (i.product_type === 'ticket') assertJourneys(i.product_details.journeys, `${where}.product_details.journeys`)
}

export function assertTickets(tickets: unknown, where: string) {
  assert.ok(Array.isArray(tickets) && tickets.length > 0, `${where} is a non-empty array`)
  tickets.forEach((t, n) => {
    assertFields(t, TICKET, `${where}[${n}]`)
    const x = t as Record<string, any>
    assertFields(x.offered_price, OFFERED_PRICE, `${where}[${n}].offered_price`)
    assertFields(x.access_details, ACCESS_DETAILS, `${where}[${n}].access_details`)
    assertFields(
      x.access_details.ticketing_channel,
      { record_locator: 'string|null', name: 'string|null' },
      `${where}[${n}].access_details.ticketing_channel`,
    )
  })
}

export function assertPassengers(passengers: unknown, where: string) {
  assert.ok(Array.isArray(passengers) && passengers.length > 0, `${where} is a non-empty array`)
  passengers.forEach((p, n) => assertFields(p, PASSENGER, `${where}[${n}]`))
}
