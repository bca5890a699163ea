/**
 * Trip rules: building a trip from a create request, applying passenger updates, and deriving the API
 * representation (effective validity, state hash) from the stored aggregate.
 */
import type { Clock, Ids } from '../ports/clock.ts'
import type { Order, TripRecord } from '../ports/records.ts'
import type { Static } from 'typebox'
import {
  ContactDetails,
  OfferedPriceRequest,
  PassengerRequest,
  SegmentRequest,
  type TripCreateRequest,
  type TripPatchRequest,
  type Journey,
  type Passenger,
  type Segment,
  type Ticket,
  type Trip,
} from '../schemas/trip.ts'
import { CurrencyCode, type Price } from '../schemas/common.ts'
import type { BasketItem, Basket, ValidityStatus } from '../schemas/basket.ts'
import { ProblemError, type FieldError } from '../shared/errors.ts'
import { accepts } from '../shared/validate.ts'
import { atAirport, lookupAirport } from './airports.ts'
import { isSupportedCurrency, SUPPORTED_CURRENCIES } from './money.ts'
import { ticketPrice } from './pricing.ts'
import { canonicalJson, sha256Hex } from '../shared/crypto.ts'

const fail = (errors: FieldError[]) => {
  const first = errors[0]!
  throw new ProblemError(
    'validation_error',
    `The request body is invalid: ${first.path} ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}.`,
    errors,
  )
}

/**
 * The one rule for a priced item's window: from now for the hold window (seconds), and never past the
 * moment the supplier's offers stop being bookable (docs/decisions.md "Searching a remote supplier").
 */
export function validityWindow(
  now: Date,
  holdWindow: number,
  offersExpireAt?: string | null,
): { valid_from: string; valid_to: string } {
  const held = now.getTime() + holdWindow * 1000
  const expires = offersExpireAt ? Date.parse(offersExpireAt) : NaN
  return {
    valid_from: now.toISOString(),
    valid_to: new Date(Number.isNaN(expires) ? held : Math.min(held, expires)).toISOString(),
  }
}

/** The oldest a traveller may be on the trip's first departure, in years: older is a typing error. */
export const MAX_AGE_YEARS = 130

/**
 * The oldest a passenger of a type may be on the trip's first departure, in years: an infant is under 2, a
 * child under 12 (docs/decisions.md "Drop-in, second round"; what airlines' fares mean by them). An adult
 * has no lower bound here: airlines differ (some let a 12-year-old book as one) and the airline decides.
 */
export const AGE_LIMITS: Readonly<Partial<Record<string, number>>> = { infant: 2, child: 12 }

/** A passenger as the date-of-birth rule reads it. */
export interface Traveller {
  passenger_id: string
  type: string
  date_of_birth?: string | null
}

/**
 * The one rule for a date of birth beyond its form (the schema checks it is a calendar date): not after
 * the day it is given on (UTC); not more than MAX_AGE_YEARS before the trip's first departure (an epoch of
 * milliseconds; null when no segment has a valid time yet); and, for an infant or a child, under its type's
 * age then. Create, PATCH and fulfill all apply it; a refusal names the passenger.
 */
export function birthDateErrors(p: Traveller, now: Date, firstDeparture: number | null, path: string): FieldError[] {
  const born = p.date_of_birth
  if (!born) return []
  if (born > now.toISOString().slice(0, 10))
    return [{ path, message: `is in the future (passenger ${p.passenger_id})` }]
  if (firstDeparture === null) return []
  const departs = new Date(firstDeparture).toISOString().slice(0, 10)
  const yearsBefore = (years: number) =>
    `${String(Number(departs.slice(0, 4)) - years).padStart(4, '0')}${departs.slice(4)}`
  if (born < yearsBefore(MAX_AGE_YEARS))
    return [
      {
        path,
        message: `is more than ${MAX_AGE_YEARS} years before the trip's first departure (passenger ${p.passenger_id})`,
      },
    ]
  const limit = AGE_LIMITS[p.type]
  // Under `limit` on the day of the first departure: born after the day `limit` years before it.
  if (limit !== undefined && born <= yearsBefore(limit)) {
    return [
      {
        path,
        message: `makes passenger ${p.passenger_id} ${limit} or older at the trip's first departure (${departs}): ${p.type === 'infant' ? 'an infant' : 'a child'} must be under ${limit}, born after ${yearsBefore(limit)}; send the passenger as ${p.type === 'infant' ? 'a child or an adult' : 'an adult'}`,
      },
    ]
  }
  return []
}

/** The earliest departure among these journeys' segments (epoch ms), or null when none has a valid time. */
export function firstDeparture(
  journeys: ReadonlyArray<{ segments: ReadonlyArray<{ departure_time: string }> }>,
): number | null {
  const times = journeys
    .flatMap((j) => j.segments.map((s) => Date.parse(s.departure_time)))
    .filter((t) => !Number.isNaN(t))
  return times.length ? Math.min(...times) : null
}

/**
 * A create request as the rules read it. What integrations copied from other products send in another
 * form is made canonical first (docs/decisions.md "Drop-in for existing integrations"): a passenger without
 * `passenger_id` gets `p1`, `p2`, … in request order (skipping ids other passengers have); a single
 * `loyalty_program` joins `loyalty_programs`; a journey's own `journey_id` is dropped (the service assigns
 * them); every segment time is kept at its airport's own UTC offset (docs/decisions.md "Drop-in, second
 * round": a time sent in UTC is the same instant there, one without an offset is the local time there), so
 * the date a ticket shows is the one read from it; left as sent when the airport is unknown (an error of its own).
 */
type CreateRequest = Omit<TripCreateRequest, 'passengers'> & { passengers: CanonicalPassenger[] }
type CanonicalPassenger = Omit<PassengerRequest, 'passenger_id' | 'loyalty_program'> & { passenger_id: string }

/** Ids for passengers in request order: each its own, else the next `pN` no passenger was given. */
function passengerIds(given: ReadonlyArray<string | undefined>): string[] {
  const taken = new Set(given.filter((id) => id !== undefined))
  let n = 0
  return given.map((id) => {
    if (id !== undefined) return id
    let next: string
    do next = `p${++n}`
    while (taken.has(next))
    return next
  })
}

const canonicalPassenger = ({ loyalty_program, ...p }: PassengerRequest, passenger_id: string): CanonicalPassenger => ({
  ...p,
  passenger_id,
  ...(loyalty_program ? { loyalty_programs: [...(p.loyalty_programs ?? []), loyalty_program] } : {}),
})

const canonicalSegment = (seg: SegmentRequest): SegmentRequest => ({
  ...seg,
  departure_time: atAirport(seg.departure_time, seg.departure_airport) ?? seg.departure_time,
  arrival_time: atAirport(seg.arrival_time, seg.arrival_airport) ?? seg.arrival_time,
})

export function canonicalCreate(req: TripCreateRequest): CreateRequest {
  const ids = passengerIds(req.passengers.map((p) => p.passenger_id))
  return {
    ...req,
    passengers: req.passengers.map((p, i) => canonicalPassenger(p, ids[i]!)),
    tickets: req.tickets.map((t) => ({
      ...t,
      journeys: t.journeys.map(({ journey_id: _theirs, ...j }) => ({
        ...j,
        segments: j.segments.map(canonicalSegment),
      })),
    })),
  }
}

const hasOffset = (time: string) => /(Z|[+-]\d{2}:\d{2})$/.test(time)

/**
 * A create request as its rules read it: each part its schema accepted, canonical, in its place; a part the
 * schema refused is a hole (undefined), and a rule that needs it waits for the request that mends it. A
 * request the schema accepts has no holes. So one 400 names what the schema and the rules find together.
 */
interface RuleParts {
  currency: string | undefined
  passengers: Array<CanonicalPassenger | undefined>
  contact: ContactDetails | undefined
  tickets: Array<{
    price: Static<typeof OfferedPriceRequest> | undefined
    journeys: Array<Array<SegmentRequest | undefined>>
  }>
}

const partsOf = (req: CreateRequest): RuleParts => ({
  currency: req.currency,
  passengers: req.passengers,
  contact: req.contact_details,
  tickets: req.tickets.map((t) => ({ price: t.offered_price, journeys: t.journeys.map((j) => j.segments) })),
})

/** The parts of a body the schema refused that are themselves well formed, each checked against its own schema. */
function acceptedParts(body: unknown): RuleParts {
  const field = (v: unknown, k: string): unknown =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, k)
      ? (v as Record<string, unknown>)[k]
      : undefined
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
  const raw = list(field(body, 'passengers'))
  const ids = passengerIds(
    raw.map((p) => {
      const id = field(p, 'passenger_id')
      return typeof id === 'string' ? id : undefined
    }),
  )
  return {
    currency: accepts(CurrencyCode, field(body, 'currency')) ? (field(body, 'currency') as string) : undefined,
    passengers: raw.map((p, i) =>
      accepts(PassengerRequest, p) ? canonicalPassenger(p as PassengerRequest, ids[i]!) : undefined,
    ),
    contact: accepts(ContactDetails, field(body, 'contact_details'))
      ? (field(body, 'contact_details') as ContactDetails)
      : undefined,
    tickets: list(field(body, 'tickets')).map((t) => ({
      price: accepts(OfferedPriceRequest, field(t, 'offered_price'))
        ? (field(t, 'offered_price') as Static<typeof OfferedPriceRequest>)
        : undefined,
      journeys: list(field(t, 'journeys')).map((j) =>
        list(field(j, 'segments')).map((seg) =>
          accepts(SegmentRequest, seg) ? canonicalSegment(seg as SegmentRequest) : undefined,
        ),
      ),
    })),
  }
}

/**
 * What the rules find wrong with a create request the schema refused, on the parts it accepted: what the
 * request pipeline adds to the schema's errors, so that one 400 names both (core/api/operations.ts).
 */
export function createRuleErrors(body: unknown, now: Date): FieldError[] {
  return checkCreateRequest(acceptedParts(body), now).errors
}

/**
 * Rules a schema cannot express: dates of birth and ages, a supported currency, references between
 * passengers, known airports, time order, ticket prices; with each ticket's price (null where it is wrong).
 */
function checkCreateRequest(req: RuleParts, now: Date): { errors: FieldError[]; prices: Array<Price | null> } {
  const errors: FieldError[] = []
  const complete = !req.passengers.includes(undefined)
  const departs = firstDeparture(
    req.tickets.flatMap((t) => t.journeys.map((segments) => ({ segments: segments.filter((s) => s !== undefined) }))),
  )
  req.passengers.forEach((p, i) => {
    if (p)
      errors.push(...birthDateErrors({ ...p, type: p.passenger_type }, now, departs, `/passengers/${i}/date_of_birth`))
  })
  const currency = req.currency !== undefined && isSupportedCurrency(req.currency) ? req.currency : undefined
  if (req.currency !== undefined && !currency)
    errors.push({
      path: '/currency',
      message: `${req.currency} is not a currency this service prices in: one of ${SUPPORTED_CURRENCIES.join(', ')}`,
    })
  const known = req.passengers.flatMap((p, i) =>
    p ? [{ id: p.passenger_id, type: p.passenger_type, lap: p.on_lap_of ?? null, at: i }] : [],
  )
  errors.push(...checkPassengers(known, '/passengers', complete))
  const contactPassenger = req.contact?.passenger_id
  if (contactPassenger && complete && !known.some((p) => p.id === contactPassenger)) {
    errors.push({ path: '/contact_details/passenger_id', message: 'is not a passenger of this trip' })
  }
  req.tickets.forEach((t, ti) =>
    t.journeys.forEach((segments, ji) => {
      let previousArrival: number | null = null
      segments.forEach((s, si) => {
        const at = `/tickets/${ti}/journeys/${ji}/segments/${si}`
        // A refused segment says nothing of when the next one may leave.
        if (!s) {
          previousArrival = null
          return
        }
        for (const f of ['departure_airport', 'arrival_airport'] as const) {
          if (!lookupAirport(s[f]))
            errors.push({ path: `${at}/${f}`, message: `${s[f]} is not a known IATA airport code` })
        }
        if (s.departure_airport === s.arrival_airport)
          errors.push({ path: `${at}/arrival_airport`, message: 'must differ from departure_airport' })
        // A local time at an unknown airport has no offset to read it with: the airport's error says why.
        if (!hasOffset(s.departure_time) || !hasOffset(s.arrival_time)) return
        const dep = Date.parse(s.departure_time)
        const arr = Date.parse(s.arrival_time)
        if (Number.isNaN(dep)) errors.push({ path: `${at}/departure_time`, message: 'is not a valid date and time' })
        if (Number.isNaN(arr)) errors.push({ path: `${at}/arrival_time`, message: 'is not a valid date and time' })
        if (Number.isNaN(dep) || Number.isNaN(arr)) return
        if (dep <= now.getTime()) errors.push({ path: `${at}/departure_time`, message: 'is in the past' })
        if (arr <= dep)
          errors.push({
            path: `${at}/arrival_time`,
            message: `must be after departure_time (${s.departure_time}); it is ${s.arrival_time}, both at their airports`,
          })
        if (previousArrival !== null && dep < previousArrival)
          errors.push({ path: `${at}/departure_time`, message: 'must not be before the previous segment arrives' })
        previousArrival = arr
      })
    }),
  )
  // A ticket's price is read in the trip's currency: not without one.
  const prices = req.tickets.map((t, i) => {
    if (!t.price || !currency) return null
    try {
      return ticketPrice(t.price, currency, i)
    } catch (e) {
      if (e instanceof ProblemError && e.errors) {
        errors.push(...e.errors)
        return null
      }
      throw e
    }
  })
  return { errors, prices }
}

/**
 * Passenger ids unique, at least one adult, lap infants on an adult's lap, one lap infant per adult. Each
 * passenger is `at` its index in the request; `complete` false when some passengers were refused by the
 * schema (then neither "no adult" nor a lap holder not found can be told yet).
 */
function checkPassengers(
  ps: Array<{ id: string; type: string; lap: string | null; at: number }>,
  base: string,
  complete = true,
): FieldError[] {
  const errors: FieldError[] = []
  const seen = new Set<string>()
  const laps = new Map<string, number>()
  for (const p of ps) {
    if (seen.has(p.id)) errors.push({ path: `${base}/${p.at}/passenger_id`, message: `duplicate passenger_id ${p.id}` })
    seen.add(p.id)
  }
  if (complete && !ps.some((p) => p.type === 'adult'))
    errors.push({ path: base, message: 'must include at least one adult' })
  for (const p of ps) {
    if (p.lap === null) continue
    const holder = ps.find((h) => h.id === p.lap)
    const at = `${base}/${p.at}/on_lap_of`
    if (p.type !== 'infant') errors.push({ path: at, message: 'only an infant can travel on a lap' })
    else if (!holder) {
      if (complete) errors.push({ path: at, message: `${p.lap} is not a passenger of this trip` })
    } else if (holder.type !== 'adult') errors.push({ path: at, message: 'must be an adult passenger' })
    else {
      laps.set(p.lap, (laps.get(p.lap) ?? 0) + 1)
      if (laps.get(p.lap)! > 1) errors.push({ path: at, message: 'an adult can hold one infant on the lap' })
    }
  }
  return errors
}

function toPassenger(p: CreateRequest['passengers'][number]): Passenger {
  return {
    passenger_id: p.passenger_id,
    type: p.passenger_type,
    on_lap_of: p.on_lap_of ?? null,
    first_names: p.first_names ?? null,
    surname: p.surname ?? null,
    date_of_birth: p.date_of_birth ?? null,
    gender: p.gender ?? null,
    title: p.title ?? null,
    metadata: p.metadata ?? {},
    loyalty_programs: p.loyalty_programs ?? [],
    identity_documents: p.identity_documents ?? [],
  }
}

export function buildTrip(
  request: TripCreateRequest,
  ctx: { sellerId: string; sandbox: boolean; clock: Clock; ids: Ids; holdWindow: number },
): TripRecord {
  const now = ctx.clock.now()
  const { req, prices } = checkedCreate(request, now)
  const journeys: Journey[] = []
  const tickets: Ticket[] = []
  const basket: Record<string, BasketItem> = {}
  req.tickets.forEach((t, ti) => {
    const ticketJourneys = t.journeys.map((j) => newJourney(j, ctx.ids))
    journeys.push(...ticketJourneys)
    const ticket_id = ctx.ids.uuid()
    const itemId = ctx.ids.uuid()
    basket[itemId] = flightItem(itemId, ticket_id, ticketJourneys, prices[ti]!, validityWindow(now, ctx.holdWindow))
    tickets.push(ticketInBasket(t, ticket_id, ticketJourneys, itemId))
  })
  const iso = now.toISOString()
  return {
    trip_id: ctx.ids.uuid(),
    seller_id: ctx.sellerId,
    sandbox: ctx.sandbox,
    created_at: iso,
    updated_at: iso,
    language: req.language,
    currency: req.currency,
    country: req.country,
    markups: req.markups ?? {},
    journeys,
    tickets,
    passengers: req.passengers.map(toPassenger),
    contact_details: req.contact_details ?? null,
    corporate_identifiers: req.corporate_identifiers ?? {},
    basket,
    orders: {},
    search_id: null,
    offer_keys: {},
    pending_checks: {},
    fulfillments: {},
  }
}

/**
 * The create request made canonical and checked, with each ticket's price; every problem of the request,
 * its ticket prices' too, is refused in one response (`validation_error`).
 */
function checkedCreate(request: TripCreateRequest, now: Date) {
  const req = canonicalCreate(request)
  const { errors, prices } = checkCreateRequest(partsOf(req), now)
  if (errors.length) fail(errors)
  return { req, prices: prices as Price[] }
}

type RequestTicket = CreateRequest['tickets'][number]

/** A journey of the request with its id, and its segments with theirs and their airports' names and cities. */
function newJourney(j: RequestTicket['journeys'][number], ids: Ids): Journey {
  return {
    journey_id: ids.uuid(),
    segments: j.segments.map((s): Segment => {
      const dep = lookupAirport(s.departure_airport)!
      const arr = lookupAirport(s.arrival_airport)!
      return {
        segment_id: ids.uuid(),
        departure_airport: s.departure_airport,
        departure_airport_name: dep.name,
        departure_city: dep.city_code,
        departure_city_name: dep.city_name,
        arrival_airport: s.arrival_airport,
        arrival_airport_name: arr.name,
        arrival_city: arr.city_code,
        arrival_city_name: arr.city_name,
        departure_time: s.departure_time,
        arrival_time: s.arrival_time,
        marketing_airline: s.marketing_airline,
        operating_airline: s.operating_airline ?? s.marketing_airline,
        marketing_flight_number: s.marketing_flight_number,
        operating_flight_number: s.operating_flight_number ?? s.marketing_flight_number,
        number_of_stops: 0,
        metadata: s.metadata ?? {},
        fare_basis: s.fare_basis ?? null,
        fare_class: s.fare_class,
        fare_family: s.fare_family ?? null,
      }
    }),
  }
}

/** The ticket's basket item: named after its outbound journey ("Flight LHR → JFK and return"), valid for `window`. */
function flightItem(
  itemId: string,
  ticket_id: string,
  journeys: Journey[],
  price: BasketItem['price'],
  window: { valid_from: string; valid_to: string },
): BasketItem {
  const first = journeys[0]!.segments[0]!
  const last = journeys[0]!.segments.at(-1)!
  return {
    basket_item_id: itemId,
    display_name: `Flight ${first.departure_airport} → ${last.arrival_airport}${journeys.length > 1 ? ' and return' : ''}`,
    product_id: ticket_id,
    product_type: 'ticket',
    quantity: 1,
    ticket_id,
    benefits: [],
    price,
    // The ticket's journeys are the trip's: read out when shown (basketAt), not stored twice.
    product_details: {},
    validity: { status: 'valid', ...window },
  }
}

/** The request's ticket as the trip holds it: in the basket, with its journeys and item, not yet booked. */
function ticketInBasket(t: RequestTicket, ticket_id: string, journeys: Journey[], itemId: string): Ticket {
  return {
    ticket_id,
    // The offer becomes part of the basket as the trip is created (api.md: offered → in_basket → booked).
    status: 'in_basket',
    journey_ids: journeys.map((j) => j.journey_id),
    basket_item_ids: [itemId],
    basket_item_id: itemId,
    offered_price: {
      currency: t.offered_price.currency,
      decimal_places: t.offered_price.decimal_places,
      total: t.offered_price.total,
    },
    access_details: {
      record_locator: null,
      ticket_number: null,
      reference_name: null,
      reference_email: null,
      ticketing_channel: { record_locator: null, name: null },
    },
    metadata: t.metadata ?? {},
  }
}

/** Applies a PATCH: matched passengers get the given fields; returns the ids whose data changed. */
export function applyTripPatch(
  trip: TripRecord,
  patch: TripPatchRequest,
  now: Date,
): { trip: TripRecord; changedPassengers: string[] } {
  const errors: FieldError[] = []
  const passengers = trip.passengers.map((p) => ({ ...p }))
  const changed: string[] = []
  patch.passengers?.forEach((u, i) => {
    const p = passengers.find((x) => x.passenger_id === u.passenger_id)
    if (!p) {
      errors.push({ path: `/passengers/${i}/passenger_id`, message: 'is not a passenger of this trip' })
      return
    }
    const before = canonicalJson(p)
    const { passenger_id: _id, ...fields } = u
    Object.assign(p, Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)))
    if (u.date_of_birth !== undefined)
      errors.push(...birthDateErrors(p, now, firstDeparture(trip.journeys), `/passengers/${i}/date_of_birth`))
    if (canonicalJson(p) !== before) changed.push(p.passenger_id)
  })
  errors.push(
    ...checkPassengers(
      passengers.map((p, at) => ({ id: p.passenger_id, type: p.type, lap: p.on_lap_of, at })),
      '/passengers',
    ),
  )
  const contact = patch.contact_details ?? trip.contact_details
  if (
    patch.contact_details?.passenger_id &&
    !passengers.some((p) => p.passenger_id === patch.contact_details!.passenger_id)
  ) {
    errors.push({ path: '/contact_details/passenger_id', message: 'is not a passenger of this trip' })
  }
  if (errors.length) fail(errors)
  return { trip: { ...trip, passengers, contact_details: contact }, changedPassengers: changed }
}

/**
 * Bought already: an ancillary a fulfill ordered, or a flight whose ticket is booked. Such an item is
 * read-only, and no basket check, expiry or later fulfill looks at it again.
 */
export function isPurchased(trip: TripRecord, item: BasketItem): boolean {
  return (
    item.order_id !== undefined ||
    (item.product_type === 'ticket' &&
      trip.tickets.some((t) => t.ticket_id === item.ticket_id && t.status === 'booked'))
  )
}

/** The passenger an item is for: an ancillary's (its details name them); none for the ticket, which is everyone's. */
export function passengerOf(item: BasketItem): string | undefined {
  return item.product_type === 'ticket' ? undefined : item.product_details.passenger_id
}

/** An ordered item is read-only: changing it is refused with what to do instead. */
export function assertNotPurchased(trip: TripRecord, item: BasketItem): void {
  if (!isPurchased(trip, item)) return
  const order = item.order_id === undefined ? undefined : trip.orders[item.order_id]
  throw new ProblemError(
    'item_ordered',
    order
      ? `${item.display_name} (basket item ${item.basket_item_id}) was ordered (order ${order.order_id}, ${order.status}); an ordered item cannot change. To undo it, cancel it: POST /v2.2/trip/${trip.trip_id}/to_cancel.`
      : `${item.display_name} (basket item ${item.basket_item_id}) is the booked flight; it cannot change.`,
    [{ path: '/basket_item_id', message: 'is already ordered' }],
  )
}

/** What the API reports: a priced item past its `valid_to` is `invalid` until a basket check; a bought one stays as it was bought. */
export function effectiveStatus(trip: TripRecord, item: BasketItem, now: Date): ValidityStatus {
  const s = item.validity.status
  if (
    (s === 'valid' || s === 'price_changed') &&
    Date.parse(item.validity.valid_to) < now.getTime() &&
    !isPurchased(trip, item)
  )
    return 'invalid'
  return s
}

/** The basket as the API shows it: effective validity, an ordered item's order status, and a ticket's journeys in its details. */
export function basketAt(trip: TripRecord, now: Date): Basket {
  const out: Basket = {}
  for (const [id, item] of Object.entries(trip.basket)) {
    const validity = { ...item.validity, status: effectiveStatus(trip, item, now) }
    const order = item.order_id === undefined ? undefined : trip.orders[item.order_id]
    const shown = order ? { ...item, validity, order_status: order.status } : { ...item, validity }
    out[id] =
      item.product_type === 'ticket'
        ? { ...shown, product_details: { ...item.product_details, journeys: ticketJourneys(trip, item.ticket_id) } }
        : shown
  }
  return out
}

function ticketJourneys(trip: TripRecord, ticketId: string): Journey[] {
  const ids = trip.tickets.find((t) => t.ticket_id === ticketId)?.journey_ids ?? []
  return trip.journeys.filter((j) => ids.includes(j.journey_id))
}

/**
 * SHA-256 over what a charge depends on: passengers, contact, tickets, and each basket item's product,
 * quantity, price and effective validity. Any change of these yields a new hash, and the same state the
 * same hash, whatever order a store hands keys and items back in.
 *
 * Taken over the hashes of the parts rather than their text: the passengers, the contact and each item
 * (but its effective status, which moves with time) are hashed once while frozen (see `partHash`), so a
 * basket change hashes the items it made and ~70 bytes a line, not the whole trip again.
 */
export function computeStateHash(trip: TripRecord, now: Date): string {
  const tickets = trip.tickets.map((t) => ({
    ticket_id: t.ticket_id,
    status: t.status,
    basket_item_ids: t.basket_item_ids,
  }))
  const items = Object.values(trip.basket)
    .sort((a, b) => (a.basket_item_id < b.basket_item_id ? -1 : 1))
    .map((i) => `${partHash(i, itemPart)} ${effectiveStatus(trip, i, now)}`)
  return sha256Hex(
    [
      'v2',
      JSON.stringify(trip.trip_id),
      partHash(trip.passengers, canonicalJson),
      trip.contact_details ? partHash(trip.contact_details, canonicalJson) : '-',
      sha256Hex(canonicalJson(tickets)),
      ...items,
    ].join('\n'),
  )
}

/** What of a basket item the state hash covers, but its effective status (computeStateHash adds it). */
const itemPart = (i: BasketItem): string =>
  canonicalJson({
    id: i.basket_item_id,
    product: i.product_id,
    details: i.product_details,
    quantity: i.quantity,
    total: i.price.total.amount,
    currency: i.price.total.currency,
    ...(i.order_id === undefined ? {} : { order: i.order_id }),
    // A mark-up of 0 set or removed leaves the total as it was, but is a change the seller made.
    ...(i.markup ? { markup: i.markup.amount } : {}),
  })

/** Hashes of frozen parts of trips, by the part itself: gone with it. */
const partHashes = new WeakMap<object, string>()

/**
 * The hash of a part of the trip (`form` its canonical text), worked out once if it is frozen. Trips the
 * core keeps are frozen whole (core/application/trip-cache.ts), and a rule makes a new version by copying
 * and replacing what it changes, so the passengers, contact and items it did not touch are the very objects
 * hashed before. A frozen object never changes (so neither does its hash); one that is not frozen is
 * hashed every time.
 */
function partHash<T extends object>(part: T, form: (part: T) => string): string {
  if (!Object.isFrozen(part)) return sha256Hex(form(part))
  let h = partHashes.get(part)
  if (h === undefined) partHashes.set(part, (h = sha256Hex(form(part))))
  return h
}

/**
 * When the effective validity of some item changes by time alone: the first `valid_to` after `now` of an
 * item that counts as valid or price_changed until then. Null when none will.
 */
export function nextExpiry(trip: TripRecord, now: Date): string | null {
  let next: string | null = null
  for (const i of Object.values(trip.basket)) {
    const s = i.validity.status
    if (
      (s === 'valid' || s === 'price_changed') &&
      !isPurchased(trip, i) &&
      Date.parse(i.validity.valid_to) >= now.getTime() &&
      (next === null || i.validity.valid_to < next)
    ) {
      next = i.validity.valid_to
    }
  }
  return next
}

/** The trip with its state hash worked out at `now`, as it is stored by every write (so reads need not hash). */
export function withStateHash(trip: TripRecord, now: Date): TripRecord {
  return { ...trip, state_hash: { value: computeStateHash(trip, now), until: nextExpiry(trip, now) } }
}

/** The trip's state hash at `now`: the stored one while no item has passed its `valid_to` since, else worked out again. */
export function tripStateHash(trip: TripRecord, now: Date): string {
  const h = trip.state_hash
  if (h && (h.until === null || now.getTime() <= Date.parse(h.until))) return h.value
  return computeStateHash(trip, now)
}

export function basketView(trip: TripRecord, now: Date) {
  return { trip_state_hash: tripStateHash(trip, now), basket: basketAt(trip, now), journeys: trip.journeys }
}

/**
 * An order as the API and webhooks show it: with the supplier's ids (`supplier_refs`: its order, the
 * services bought or found, the request id of a purchase whose outcome is unknown) for the seller to
 * reconcile with the supplier; without the service's own bookkeeping of a lost answer.
 */
export function orderView({ purchase_unknown_since: _since, ...order }: Order): Omit<Order, 'purchase_unknown_since'> {
  return order
}

export function tripRepresentation(
  trip: TripRecord,
  now: Date,
  extra: { trip_access_token?: string; refresh_token?: string; emptyBasket?: boolean } = {},
): Trip {
  return {
    trip_id: trip.trip_id,
    trip_state_hash: tripStateHash(trip, now),
    ...(extra.trip_access_token ? { trip_access_token: extra.trip_access_token } : {}),
    ...(extra.refresh_token ? { refresh_token: extra.refresh_token } : {}),
    search_id: trip.search_id,
    country: trip.country,
    currency: trip.currency,
    language: trip.language,
    journeys: trip.journeys,
    orders: Object.fromEntries(Object.entries(trip.orders).map(([id, o]) => [id, orderView(o)])),
    to_cancel: trip.to_cancel ? { ...trip.to_cancel.items } : {},
    basket: extra.emptyBasket ? {} : basketAt(trip, now),
    passengers: trip.passengers,
    contact_details: trip.contact_details ?? {},
    tickets: trip.tickets,
    corporate_identifiers: trip.corporate_identifiers,
    created_at: trip.created_at,
  }
}

export function journeyOfSegment(trip: TripRecord, segmentId: string): Journey | undefined {
  return trip.journeys.find((j) => j.segments.some((s) => s.segment_id === segmentId))
}

export function ticketOfJourney(trip: TripRecord, journeyId: string): Ticket | undefined {
  return trip.tickets.find((t) => t.journey_ids.includes(journeyId))
}
