/** Fulfillment, orders and webhook subscriptions. */
import { Type, type Static } from 'typebox'
import { Id, IsoDate, Price, UtcTimestamp } from './common.ts'
import { ContactDetails, OrderStatus, PassengerType } from './trip.ts'

export const FulfillRequest = Type.Object({
  trip_state_hash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'the hash of the basket the traveller was charged for' }),
  contact_details: ContactDetails,
  passengers: Type.Array(Type.Object({
    passenger_id: Id,
    first_names: Type.String({ minLength: 1, maxLength: 100 }),
    surname: Type.String({ minLength: 1, maxLength: 100 }),
    date_of_birth: IsoDate,
    passenger_type: PassengerType,
  }, { additionalProperties: false }), { minItems: 1, maxItems: 9 }),
  tickets: Type.Array(Type.Object({
    ticket_id: Id,
    access_details: Type.Object({
      record_locator: Type.String({ pattern: '^[A-Z0-9]{5,8}$' }),
      ticket_number: Type.String({ pattern: '^[0-9]{13}$', description: '13-digit e-ticket number' }),
    }, { additionalProperties: false }),
    status: Type.Literal('booked'),
  }, { additionalProperties: false }), { minItems: 1, maxItems: 4 }),
  payment_details: Type.Object({
    payment_type: Type.String({ minLength: 1, maxLength: 64, description: 'e.g. service_settlement' }),
  }, { additionalProperties: false }),
}, { additionalProperties: false })
export type FulfillRequest = Static<typeof FulfillRequest>

export const FulfillResponse = Type.Object({
  status: Type.Literal('queued'),
  fulfillment_id: Id,
})

export const Order = Type.Object({
  order_id: Id,
  fulfillment_id: Id,
  basket_item_id: Id,
  display_name: Type.String(),
  price: Price,
  status: OrderStatus,
  failure_reason: Type.Optional(Type.String()),
  supplier_reference: Type.Optional(Type.String()),
  created_at: UtcTimestamp,
  updated_at: UtcTimestamp,
})

export const EventName = Type.Union([Type.Literal('order_status_changed'), Type.Literal('fulfillment_completed')])
export type EventName = Static<typeof EventName>

export const SubscriptionRequest = Type.Object({
  delivery_method: Type.Literal('http'),
  target: Type.String({ format: 'uri', maxLength: 2000, description: 'https URL (http allowed for sandbox sellers)' }),
  event_name: EventName,
}, { additionalProperties: false })

export const Subscription = Type.Object({
  subscription_id: Id,
  delivery_method: Type.Literal('http'),
  target: Type.String(),
  event_name: EventName,
  created_at: UtcTimestamp,
  secret: Type.Optional(Type.String({ description: 'HMAC-SHA256 key of the Svc-Signature header; shown only when the subscription is created' })),
})

export const SubscriptionList = Type.Object({ subscriptions: Type.Array(Subscription) })

/** The body of every webhook delivery. */
export const WebhookEvent = Type.Object({
  event_id: Id,
  event_name: EventName,
  created_at: UtcTimestamp,
  trip_id: Id,
  fulfillment_id: Id,
  data: Type.Record(Type.String(), Type.Unknown()),
})
export type WebhookEvent = Static<typeof WebhookEvent>
