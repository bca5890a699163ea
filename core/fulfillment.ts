/**
 * Fulfillment: after the seller has charged the traveller, the trip's tickets become `booked` and every
 * ancillary in the basket becomes an order that a durable job books with the airline.
 *
 * Orders move queued → in_progress → succeeded | failed. A fulfillment completes when all its orders have
 * ended. Every move is returned with the events it raises, so the caller stores both in one transaction.
 */
import type { FulfillmentRecord, Order, TripRecord } from './ports.ts'
import type { FulfillRequest, EventName } from './schemas/fulfillment.ts'
import type { OrderStatus } from './schemas/trip.ts'
import { ProblemError, type FieldError } from './errors.ts'
import { birthDateErrors, effectiveStatus } from './trip.ts'

/** An event a change raises: its fulfillment, or its cancellation, or both (an order moved by a cancellation). */
export interface RaisedEvent { event_name: EventName; fulfillment_id?: string; cancellation_id?: string; data: Record<string, unknown> }

export function isFulfilled(trip: TripRecord): boolean {
  return Object.keys(trip.fulfillments).length > 0
}

/**
 * Checks a fulfill request against the trip (rules for charging: the traveller was charged for exactly
 * this state, and every item is `valid`) and returns the booked trip with its queued orders.
 */
export function acceptFulfillment(trip: TripRecord, req: FulfillRequest, ctx: { now: Date; currentHash: string; newId(): string }) {
  if (isFulfilled(trip)) throw new ProblemError('trip_state_conflict', 'This trip has already been fulfilled.')
  if (req.trip_state_hash !== ctx.currentHash) {
    throw new ProblemError('trip_state_conflict', 'The trip changed since the traveller saw it (trip_state_hash is stale): read the basket, show the final price again, then fulfill.',
      [{ path: '/trip_state_hash', message: 'does not match the current trip state' }])
  }
  const notValid = Object.values(trip.basket)
    .map((i) => ({ i, status: effectiveStatus(i, ctx.now) }))
    .filter(({ status }) => status !== 'valid')
  if (notValid.length) {
    throw new ProblemError('basket_not_valid', `Every basket item must be valid before fulfillment; ${notValid.length} is not.`,
      notValid.map(({ i, status }) => ({ path: `/basket/${i.basket_item_id}`, message: `${i.display_name} is ${status}` })))
  }

  const errors: FieldError[] = []
  const given = new Map(req.passengers.map((p, i) => [p.passenger_id, { p, i }]))
  req.passengers.forEach((p, i) => {
    errors.push(...birthDateErrors(p.date_of_birth, ctx.now, `/passengers/${i}/date_of_birth`))
    const known = trip.passengers.find((x) => x.passenger_id === p.passenger_id)
    if (!known) errors.push({ path: `/passengers/${i}/passenger_id`, message: 'is not a passenger of this trip' })
    else if (known.type !== p.passenger_type) errors.push({ path: `/passengers/${i}/passenger_type`, message: `must be ${known.type}, as the trip was created` })
  })
  for (const p of trip.passengers) if (!given.has(p.passenger_id)) errors.push({ path: '/passengers', message: `passenger ${p.passenger_id} is missing` })
  const tickets = new Map(req.tickets.map((t, i) => [t.ticket_id, { t, i }]))
  req.tickets.forEach((t, i) => {
    if (!trip.tickets.some((x) => x.ticket_id === t.ticket_id)) errors.push({ path: `/tickets/${i}/ticket_id`, message: 'is not a ticket of this trip' })
  })
  for (const t of trip.tickets) if (!tickets.has(t.ticket_id)) errors.push({ path: '/tickets', message: `ticket ${t.ticket_id} is missing` })
  if (req.contact_details.passenger_id && !given.has(req.contact_details.passenger_id)) {
    errors.push({ path: '/contact_details/passenger_id', message: 'is not a passenger of this trip' })
  }
  if (errors.length) throw new ProblemError('validation_error', `The fulfillment request is invalid: ${errors[0]!.path} ${errors[0]!.message}.`, errors)

  const iso = ctx.now.toISOString()
  const fulfillment_id = ctx.newId()
  const orders: Order[] = Object.values(trip.basket)
    .filter((i) => i.product_type !== 'ticket')
    .map((i) => ({
      order_id: ctx.newId(), fulfillment_id, basket_item_id: i.basket_item_id, display_name: i.display_name,
      price: i.price, status: 'queued', created_at: iso, updated_at: iso,
    }))
  const lead = req.passengers[0]!
  const fulfillment: FulfillmentRecord = {
    fulfillment_id, status: orders.length ? 'queued' : 'completed', order_ids: orders.map((o) => o.order_id),
    payment_type: req.payment_details.payment_type, created_at: iso, completed_at: orders.length ? null : iso,
  }
  const next: TripRecord = {
    ...trip,
    updated_at: iso,
    passengers: trip.passengers.map((p) => {
      const g = given.get(p.passenger_id)!.p
      return { ...p, first_names: g.first_names, surname: g.surname, date_of_birth: g.date_of_birth }
    }),
    contact_details: req.contact_details,
    tickets: trip.tickets.map((t) => {
      const a = tickets.get(t.ticket_id)!.t.access_details
      return {
        ...t, status: 'booked',
        access_details: {
          record_locator: a.record_locator, ticket_number: a.ticket_number,
          reference_name: lead.surname, reference_email: req.contact_details.email,
          ticketing_channel: { record_locator: a.record_locator, name: null },
        },
      }
    }),
    orders: { ...trip.orders, ...Object.fromEntries(orders.map((o) => [o.order_id, o])) },
    fulfillments: { ...trip.fulfillments, [fulfillment_id]: fulfillment },
  }
  const events: RaisedEvent[] = orders.length ? [] : [completedEvent(next, fulfillment)]
  return { trip: next, fulfillment, orders, events }
}

/** Where fulfillment leaves an order (cancellation.ts moves succeeded ones on, never this module). */
const TERMINAL: OrderStatus[] = ['succeeded', 'failed', 'cancelling', 'cancelled']

/** Moves an order; a move to the status it already has, or out of a final status, changes nothing. */
export function moveOrder(trip: TripRecord, orderId: string, status: OrderStatus, now: Date, extra: { failure_reason?: string; supplier_reference?: string } = {}) {
  const order = trip.orders[orderId]
  if (!order || order.status === status || TERMINAL.includes(order.status)) return { trip, events: [] as RaisedEvent[], changed: false }
  const iso = now.toISOString()
  const moved: Order = { ...order, ...extra, status, updated_at: iso }
  let next: TripRecord = { ...trip, orders: { ...trip.orders, [orderId]: moved }, updated_at: iso }
  const events: RaisedEvent[] = [{ event_name: 'order_status_changed', fulfillment_id: order.fulfillment_id, data: { order: moved, previous_status: order.status } }]
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
    event_name: 'fulfillment_completed', fulfillment_id: f.fulfillment_id,
    data: {
      status: failed === 0 ? 'succeeded' : failed === orders.length ? 'failed' : 'partially_failed',
      orders: orders.map((o) => ({ order_id: o.order_id, basket_item_id: o.basket_item_id, status: o.status, ...(o.failure_reason ? { failure_reason: o.failure_reason } : {}) })),
    },
  }
}
