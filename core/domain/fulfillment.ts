/**
 * Fulfillment: after the seller has charged the traveller, the trip's tickets become `booked` and every
 * ancillary in the basket becomes an order that a durable job books with the airline.
 *
 * Orders move queued → in_progress → succeeded | failed; on a trip whose tickets are not issued yet they
 * first wait (awaiting_ticketing → queued when the tickets are issued, or → failed with
 * `ticketing_timeout`). An ordered item stays in the basket, read-only; items added later are ordered by a
 * later fulfill. A fulfillment completes when all its orders have ended. Every move is returned with the events it raises, so the caller stores both in one transaction.
 */
import type { FulfillmentRecord, Order, TripRecord } from '../ports/records.ts'
import type { BasketItem } from '../schemas/basket.ts'
import type { FulfillRequest, EventName } from '../schemas/fulfillment.ts'
import type { OrderStatus } from '../schemas/trip.ts'
import { ProblemError, type FieldError } from '../shared/errors.ts'
import { birthDateErrors, effectiveStatus, firstDeparture, isPurchased, orderView } from './trip.ts'

/** An event a change raises: its fulfillment, or its cancellation, or both (an order moved by a cancellation). */
export interface RaisedEvent {
  event_name: EventName
  fulfillment_id?: string
  cancellation_id?: string
  data: Record<string, unknown>
}

export function isFulfilled(trip: TripRecord): boolean {
  return Object.keys(trip.fulfillments).length > 0
}

/**
 * Checks a fulfill request against the trip (rules for charging: the traveller was charged for exactly
 * this state, and every item not yet bought is `valid`) and returns the trip with its new orders.
 *
 * The first fulfill books the tickets; a later one orders what was added since. With `is_ticketed: false`
 * the new orders wait in `awaiting_ticketing` (the caller schedules their timeout); a fulfill that issues
 * the tickets (ticket numbers, `is_ticketed` true) queues them with its own new orders.
 */
export function acceptFulfillment(
  trip: TripRecord,
  req: FulfillRequest,
  ctx: { now: Date; currentHash: string; newId(): string; findsBookingByLocator: boolean },
) {
  assertCurrentState(req, ctx.currentHash)
  const open = validOpenItems(trip, ctx.now)
  const ticketed = req.is_ticketed !== false
  const waiting = Object.values(trip.orders).filter((o) => o.status === 'awaiting_ticketing')
  const toOrder = open.filter((i) => i.product_type !== 'ticket')
  const first = !isFulfilled(trip)
  if (!first && toOrder.length === 0 && !(ticketed && waiting.length)) {
    throw new ProblemError(
      'trip_state_conflict',
      'Nothing to fulfill: every item of this basket has been ordered. Add items to the basket (PATCH .../basket) before fulfilling again.',
    )
  }
  const errors = requestErrors(trip, req, first, ctx.now, ctx.findsBookingByLocator)
  if (errors.length)
    throw new ProblemError(
      'validation_error',
      `The fulfillment request is invalid: ${errors[0]!.path} ${errors[0]!.message}.`,
      errors,
    )

  const iso = ctx.now.toISOString()
  const fulfillment_id = ctx.newId()
  const orders = newOrders(toOrder, fulfillment_id, ticketed ? 'queued' : 'awaiting_ticketing', iso, ctx.newId)
  const fulfillment: FulfillmentRecord = {
    fulfillment_id,
    status: orders.length ? 'queued' : 'completed',
    order_ids: orders.map((o) => o.order_id),
    payment_type: req.payment_details.payment_type,
    created_at: iso,
    completed_at: orders.length ? null : iso,
  }
  const booked = withBooking(trip, req, orders, fulfillment, iso)
  // Issuing the tickets releases the orders that waited for them.
  const released = ticketed ? waiting : []
  const { trip: next, events } = releaseOrders(booked, released, ctx.now)
  if (!orders.length) events.push(completedEvent(next, fulfillment))
  const queued = [...released.map((o) => next.orders[o.order_id]!), ...orders.filter((o) => o.status === 'queued')]
  return { trip: next, fulfillment, queued, awaiting: !ticketed && orders.length > 0, events }
}

/** The traveller was charged for exactly this state: a stale `trip_state_hash` is a conflict. */
function assertCurrentState(req: FulfillRequest, currentHash: string) {
  if (req.trip_state_hash !== currentHash) {
    throw new ProblemError(
      'trip_state_conflict',
      'The trip changed since the traveller saw it (trip_state_hash is stale): read the basket, show the final price again, then fulfill.',
      [{ path: '/trip_state_hash', message: 'does not match the current trip state' }],
    )
  }
}

/** The items not bought yet, each of which must be `valid` now (else `basket_not_valid`, naming each). */
function validOpenItems(trip: TripRecord, now: Date): BasketItem[] {
  const open = Object.values(trip.basket).filter((i) => !isPurchased(trip, i))
  const notValid = open
    .map((i) => ({ i, status: effectiveStatus(trip, i, now) }))
    .filter(({ status }) => status !== 'valid')
  if (notValid.length) {
    throw new ProblemError(
      'basket_not_valid',
      `Every basket item must be valid before fulfillment; ${notValid.length} is not.`,
      notValid.map(({ i, status }) => ({
        path: `/basket/${i.basket_item_id}`,
        message: `${i.display_name} is ${status}`,
      })),
    )
  }
  return open
}

/** An order per item, of this fulfillment, in `status`. */
function newOrders(
  items: BasketItem[],
  fulfillment_id: string,
  status: OrderStatus,
  iso: string,
  newId: () => string,
): Order[] {
  return items.map((i) => ({
    order_id: newId(),
    fulfillment_id,
    basket_item_id: i.basket_item_id,
    display_name: i.display_name,
    price: i.price,
    status,
    created_at: iso,
    updated_at: iso,
  }))
}

/**
 * The trip as the fulfill leaves it: the request's passengers' names, its contact, its tickets booked with
 * their access details, each ordered item naming its order, and the new orders and fulfillment.
 */
function withBooking(
  trip: TripRecord,
  req: FulfillRequest,
  orders: Order[],
  fulfillment: FulfillmentRecord,
  iso: string,
): TripRecord {
  const basket = { ...trip.basket }
  for (const o of orders) basket[o.basket_item_id] = { ...basket[o.basket_item_id]!, order_id: o.order_id }
  return {
    ...trip,
    updated_at: iso,
    passengers: namedPassengers(trip, req),
    contact_details: req.contact_details ?? trip.contact_details,
    tickets: bookedTickets(trip, req),
    // Named by this fulfill's tickets (booked, or issued now), or left as the booking said.
    ...(req.tickets ? { tickets_issued: req.is_ticketed !== false } : {}),
    basket,
    orders: { ...trip.orders, ...Object.fromEntries(orders.map((o) => [o.order_id, o])) },
    fulfillments: { ...trip.fulfillments, [fulfillment.fulfillment_id]: fulfillment },
  }
}

/** The trip's passengers with the names and dates of birth the request gives. */
function namedPassengers(trip: TripRecord, req: FulfillRequest): TripRecord['passengers'] {
  const given = new Map((req.passengers ?? []).map((p) => [p.passenger_id, p]))
  return trip.passengers.map((p) => {
    const g = given.get(p.passenger_id)
    return g ? { ...p, first_names: g.first_names, surname: g.surname, date_of_birth: g.date_of_birth } : p
  })
}

/** The tickets the request names, booked with their record locator (and number), referenced by the lead passenger and the contact. */
function bookedTickets(trip: TripRecord, req: FulfillRequest): TripRecord['tickets'] {
  const lead = req.passengers?.[0]
  const given = new Map((req.tickets ?? []).map((t) => [t.ticket_id, t.access_details]))
  return trip.tickets.map((t) => {
    const a = given.get(t.ticket_id)
    if (!a) return t
    return {
      ...t,
      status: 'booked',
      access_details: {
        record_locator: a.record_locator,
        ticket_number: a.ticket_number ?? t.access_details.ticket_number,
        reference_name: lead?.surname ?? t.access_details.reference_name,
        reference_email: req.contact_details?.email ?? t.access_details.reference_email,
        ticketing_channel: { record_locator: a.record_locator, name: null },
      },
    }
  })
}

/** Moves the orders that waited for the tickets to `queued`, with the events that raises. */
function releaseOrders(trip: TripRecord, waiting: Order[], now: Date): { trip: TripRecord; events: RaisedEvent[] } {
  let next = trip
  const events: RaisedEvent[] = []
  for (const o of waiting) {
    const moved = moveOrder(next, o.order_id, 'queued', now)
    next = moved.trip
    events.push(...moved.events)
  }
  return { trip: next, events }
}

/**
 * Whether the booked tickets are issued: the fulfill that booked or last named them did not say
 * `is_ticketed: false`. (A trip stored before `tickets_issued` was kept: a booked ticket without a number
 * meant not issued then, since a number was required otherwise.)
 */
function ticketsIssued(trip: TripRecord): boolean {
  return trip.tickets_issued ?? trip.tickets.every((t) => t.access_details.ticket_number !== null)
}

/** What is wrong with the request's passengers, tickets and contact, against the trip, by path. */
function requestErrors(
  trip: TripRecord,
  req: FulfillRequest,
  first: boolean,
  now: Date,
  byLocator: boolean,
): FieldError[] {
  const errors: FieldError[] = []
  if (first) {
    for (const field of ['contact_details', 'tickets'] as const) {
      if (req[field] === undefined)
        errors.push({ path: `/${field}`, message: 'is required on the first fulfill of a trip (it books the tickets)' })
    }
    // Passengers may be left out when the trip has every passenger's names and date of birth already
    // (given at creation or by PATCH): the booking needs them, not a second copy of them.
    if (req.passengers === undefined) {
      const lacking = trip.passengers.flatMap((p) => {
        const missing = (['first_names', 'surname', 'date_of_birth'] as const).filter((f) => !p[f])
        return missing.length ? [`${p.passenger_id} has no ${missing.join(', ')}`] : []
      })
      if (lacking.length)
        errors.push({
          path: '/passengers',
          message: `are required here, since the trip does not have them all yet (${lacking.join('; ')}); or give them first by PATCH /v2.2/trip/{trip_id}`,
        })
    }
  }
  const passengers = req.passengers
  if (passengers) {
    const given = new Set(passengers.map((p) => p.passenger_id))
    passengers.forEach((p, i) => {
      const known = trip.passengers.find((x) => x.passenger_id === p.passenger_id)
      // Aged by the type the trip was created with (a different type here is an error of its own).
      errors.push(
        ...birthDateErrors(
          { ...p, type: known?.type ?? p.passenger_type },
          now,
          firstDeparture(trip.journeys),
          `/passengers/${i}/date_of_birth`,
        ),
      )
      if (!known) errors.push({ path: `/passengers/${i}/passenger_id`, message: 'is not a passenger of this trip' })
      else if (known.type !== p.passenger_type)
        errors.push({
          path: `/passengers/${i}/passenger_type`,
          message: `must be ${known.type}, as the trip was created`,
        })
    })
    for (const p of trip.passengers)
      if (!given.has(p.passenger_id))
        errors.push({ path: '/passengers', message: `passenger ${p.passenger_id} is missing` })
  }
  const ticketed = req.is_ticketed !== false
  if (req.tickets) {
    const given = new Set(req.tickets.map((t) => t.ticket_id))
    req.tickets.forEach((t, i) => {
      if (!trip.tickets.some((x) => x.ticket_id === t.ticket_id))
        errors.push({ path: `/tickets/${i}/ticket_id`, message: 'is not a ticket of this trip' })
      // A supplier that finds the booking by its record locator (the sandbox airline, Duffel) needs no number.
      else if (ticketed && t.access_details.ticket_number === undefined && !byLocator) {
        errors.push({
          path: `/tickets/${i}/access_details/ticket_number`,
          message:
            "is required: this trip's supplier finds bookings by ticket number (or send is_ticketed: false while the tickets are not issued yet)",
        })
      }
    })
    for (const t of trip.tickets)
      if (!given.has(t.ticket_id)) errors.push({ path: '/tickets', message: `ticket ${t.ticket_id} is missing` })
  } else if (!first && ticketed && !ticketsIssued(trip)) {
    errors.push({
      path: '/tickets',
      message:
        'are required with their ticket numbers: this trip was fulfilled with is_ticketed: false, and its tickets are not issued yet',
    })
  }
  if (!ticketed && !first && ticketsIssued(trip)) {
    errors.push({ path: '/is_ticketed', message: 'cannot be false: the tickets of this trip are issued already' })
  }
  const contactPassenger = req.contact_details?.passenger_id
  if (contactPassenger && !trip.passengers.some((p) => p.passenger_id === contactPassenger)) {
    errors.push({ path: '/contact_details/passenger_id', message: 'is not a passenger of this trip' })
  }
  return errors
}

/** Where fulfillment leaves an order (cancellation.ts moves succeeded ones on, never this module). */
const TERMINAL: OrderStatus[] = ['succeeded', 'failed', 'cancelling', 'cancelled']

/** Moves an order; a move to the status it already has, or out of a final status, changes nothing. */
export function moveOrder(
  trip: TripRecord,
  orderId: string,
  status: OrderStatus,
  now: Date,
  extra: Pick<Order, 'failure_reason' | 'supplier_reference' | 'supplier_refs' | 'current_price'> = {},
) {
  const order = trip.orders[orderId]
  if (!order || order.status === status || TERMINAL.includes(order.status))
    return { trip, events: [] as RaisedEvent[], changed: false }
  const iso = now.toISOString()
  const moved: Order = { ...order, ...extra, status, updated_at: iso }
  let next: TripRecord = { ...trip, orders: { ...trip.orders, [orderId]: moved }, updated_at: iso }
  const events: RaisedEvent[] = [
    {
      event_name: 'order_status_changed',
      fulfillment_id: order.fulfillment_id,
      data: { order: orderView(moved), previous_status: order.status },
    },
  ]
  const f = next.fulfillments[order.fulfillment_id]
  if (f && f.status !== 'completed' && f.order_ids.every((id) => TERMINAL.includes(next.orders[id]!.status))) {
    const done: FulfillmentRecord = { ...f, status: 'completed', completed_at: iso }
    next = { ...next, fulfillments: { ...next.fulfillments, [f.fulfillment_id]: done } }
    events.push(completedEvent(next, done))
  }
  return { trip: next, events, changed: true }
}

function completedEvent(trip: TripRecord, f: FulfillmentRecord): RaisedEvent {
  const orders = f.order_ids.map((id) => trip.orders[id]!)
  const failed = orders.filter((o) => o.status === 'failed').length
  return {
    event_name: 'fulfillment_completed',
    fulfillment_id: f.fulfillment_id,
    data: {
      status: failed === 0 ? 'succeeded' : failed === orders.length ? 'failed' : 'partially_failed',
      orders: orders.map((o) => ({
        order_id: o.order_id,
        basket_item_id: o.basket_item_id,
        status: o.status,
        ...(o.failure_reason ? { failure_reason: o.failure_reason } : {}),
      })),
    },
  }
}
