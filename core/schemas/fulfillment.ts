/** Fulfillment, orders and webhook subscriptions. */
import { Type, type Static } from 'typebox'
import {
  BookingReference,
  Id,
  IsoDate,
  Money,
  PersonName,
  Price,
  StateHash,
  TicketNumber,
  UNKNOWN_FIELD_MESSAGES,
  UtcTimestamp,
} from './common.ts'

// Some integrations send the traveller's card here: it is refused with what to send instead (and, like
// every body, never stored or logged).
UNKNOWN_FIELD_MESSAGES.set(
  '/payment_details',
  'is refused: card payment is not taken here (you charge the traveller yourself); send only payment_details.payment_type, e.g. "service_settlement"',
)
import { ContactDetails, ORDER_STATUSES, OrderStatus, PassengerType, ProductTypeName } from './trip.ts'

/**
 * POST .../fulfill. The first fulfill of a trip books its tickets, so `contact_details`, `passengers` and
 * `tickets` are required then (the core says so by path); a later one orders the items added since, and may
 * leave them out. `is_ticketed: false` (the tickets are booked but not issued: a record locator and no ticket
 * numbers yet) holds the orders in `awaiting_ticketing` until a fulfill with the ticket numbers.
 */
export const FulfillRequest = Type.Object(
  {
    trip_state_hash: {
      ...StateHash,
      description:
        'the hash of the basket the traveller was charged for: the `trip_state_hash` of GET /v2.2/trip/{trip_id}/basket, read when you showed the final price',
      'x-missing':
        'is required: the trip_state_hash of GET /v2.2/trip/{trip_id}/basket, read when you showed the traveller the final price (it proves the traveller was charged for this basket)',
    },
    contact_details: Type.Optional(ContactDetails),
    passengers: Type.Optional(
      Type.Array(
        Type.Object(
          {
            passenger_id: Id,
            first_names: PersonName,
            surname: PersonName,
            date_of_birth: IsoDate,
            passenger_type: PassengerType,
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 9, description: 'required on the first fulfill of a trip' },
      ),
    ),
    tickets: Type.Optional(
      Type.Array(
        Type.Object(
          {
            ticket_id: Id,
            access_details: Type.Object(
              {
                record_locator: BookingReference,
                ticket_number: Type.Optional({
                  ...TicketNumber,
                  description:
                    "13-digit e-ticket number; may be left out when the trip's supplier finds the booking by its record locator (the sandbox airline, Duffel), else required unless is_ticketed is false",
                }),
              },
              { additionalProperties: false },
            ),
            status: Type.Literal('booked'),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 4,
          description: 'required on the first fulfill of a trip, and to issue tickets booked with is_ticketed: false',
        },
      ),
    ),
    is_ticketed: Type.Optional(
      Type.Boolean({
        description:
          'false when the tickets are booked but not yet issued: the orders wait (awaiting_ticketing) until a fulfill with the ticket numbers. Default true.',
      }),
    ),
    payment_details: Type.Object(
      {
        payment_type: Type.String({ minLength: 1, maxLength: 64, description: 'e.g. service_settlement' }),
      },
      {
        additionalProperties: false,
        description:
          'how the ancillaries are settled between you and the service; never card details: you charge the traveller yourself',
      },
    ),
  },
  { additionalProperties: false },
)
export type FulfillRequest = Static<typeof FulfillRequest>

export const FulfillResponse = Type.Object({
  status: Type.Literal('queued'),
  fulfillment_id: Id,
})

/** The supplier's own ids of an order, for the seller to find it at the supplier (its dashboard, its support). */
export const OrderSupplierRefs = Type.Object(
  {
    order_id: Type.Optional(Type.String({ description: "the supplier's order the item is in (Duffel's `ord_…`)" })),
    service_ids: Type.Optional(
      Type.Array(Type.String(), {
        description: "the supplier's ids of what this order bought or found booked there (Duffel's `ser_…`)",
      }),
    ),
    request_id: Type.Optional(
      Type.String({
        description:
          "the supplier's request id of a purchase whose outcome is unknown (`supplier_outcome_unknown`), for its support",
      }),
    ),
  },
  { description: "the supplier's ids, to reconcile an order with the supplier (e.g. Duffel's dashboard)" },
)

export const Order = Type.Object({
  order_id: Id,
  fulfillment_id: Id,
  basket_item_id: Id,
  display_name: Type.String(),
  price: Price,
  status: OrderStatus,
  failure_reason: Type.Optional(Type.String()),
  supplier_reference: Type.Optional(Type.String()),
  supplier_refs: Type.Optional(OrderSupplierRefs),
  current_price: Type.Optional({
    ...Price,
    description:
      "a `price_changed` failure: the airline's price now, with the trip's mark-up. The item is back in the basket, not ordered, `price_changed` at this price: accept it (POST …/basket/{basket_item_id}/accept) and fulfill again to order it at this price",
  }),
  /** After a confirmed cancellation: what the airline refunds (`cancelled`), or why it refused (back to `succeeded`). */
  cancellation_id: Type.Optional(Id),
  refund: Type.Optional(Money),
  cancellation_failure_reason: Type.Optional(Type.String()),
  created_at: UtcTimestamp,
  updated_at: UtcTimestamp,
})

/** The most orders one page of the feed holds, and how many when the client does not say. */
export const ORDERS_PAGE_MAX = 200
export const ORDERS_PAGE_DEFAULT = 50

/**
 * GET /v2.2/orders: the seller's orders feed. Query values are strings as the URL carries them; a name
 * given twice is an array, which every field refuses.
 */
export const OrdersQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Unsafe<OrderStatus>(
        Type.Union(
          ORDER_STATUSES.map((s) => Type.Literal(s)),
          { description: 'only orders in this status now' },
        ),
      ),
    ),
    updated_since: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'only orders whose updated_at is at or after this instant (ISO 8601 with Z or an offset)',
        examples: ['2026-11-22T00:00:00Z'],
      }),
    ),
    limit: Type.Optional(
      Type.String({
        // 1 to 200, exactly: the schema says what it admits, so the OpenAPI document does too.
        pattern: '^([1-9]|[1-9][0-9]|1[0-9][0-9]|200)$',
        description: `how many orders at most, 1–${ORDERS_PAGE_MAX} (${ORDERS_PAGE_DEFAULT} when absent)`,
        examples: ['100'],
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,512}$',
        description:
          "the next_cursor of the page before, as it was given; it carries that page's status and updated_since (repeat them or leave them out)",
      }),
    ),
  },
  { additionalProperties: false },
)
export type OrdersQuery = Static<typeof OrdersQuery>

/** One order of the feed. */
export const OrderFeedItem = Type.Object({
  order_id: Id,
  trip_id: Id,
  basket_item_id: Id,
  display_name: Type.String(),
  product_type: ProductTypeName,
  price: Price,
  status: OrderStatus,
  failure_reason: Type.Optional(Type.String()),
  supplier_reference: Type.Optional(Type.String()),
  supplier_refs: Type.Optional(OrderSupplierRefs),
  refund: Type.Optional(Money),
  updated_at: UtcTimestamp,
})

export const OrdersPage = Type.Object({
  data: Type.Array(OrderFeedItem),
  next_cursor: Type.String({
    description:
      'where the next page starts; always given, so a client keeps it to ask later for what changed since. A page shorter than `limit` means there is nothing more for now.',
  }),
})

/** POST /v2.2/trip/{trip_id}/to_cancel: the ordered items to have the airline quote a cancellation for. */
export const CancelQuoteRequest = Type.Object(
  {
    basket_item_ids: Type.Array(Id, { minItems: 1, maxItems: 50, uniqueItems: true }),
  },
  { additionalProperties: false },
)
export type CancelQuoteRequest = Static<typeof CancelQuoteRequest>

/** One item of a cancellation quote: whether the airline would cancel it, and what it would refund. */
export const ToCancelItem = Type.Object({
  basket_item_id: Id,
  order_id: Id,
  display_name: Type.String(),
  cancellable: Type.Boolean(),
  refund: Type.Union([Money, Type.Null()]),
  reason: Type.Optional(
    Type.String({ description: 'why it is not cancellable (non_refundable, too_close_to_departure, departed)' }),
  ),
})
export type ToCancelItem = Static<typeof ToCancelItem>

/** The trip's cancellation quote: `to_cancel` keyed by basket_item_id (as in the trip), valid until `quote_expires_at`. */
export const ToCancel = Type.Object({
  to_cancel: Type.Record(Type.String(), ToCancelItem),
  quote_expires_at: Type.Union([UtcTimestamp, Type.Null()]),
})

export const CancellationStarted = Type.Object({
  status: Type.Literal('queued'),
  cancellation_id: Id,
})

export const EventName = Type.Union([
  Type.Literal('order_status_changed'),
  Type.Literal('fulfillment_completed'),
  Type.Literal('cancellation_completed'),
])
export type EventName = Static<typeof EventName>

export const SubscriptionRequest = Type.Object(
  {
    delivery_method: Type.Literal('http'),
    target: Type.String({
      format: 'uri',
      maxLength: 2000,
      description: 'https URL (http allowed for sandbox sellers)',
    }),
    event_name: EventName,
  },
  { additionalProperties: false },
)

export const Subscription = Type.Object({
  subscription_id: Id,
  delivery_method: Type.Literal('http'),
  target: Type.String(),
  event_name: EventName,
  created_at: UtcTimestamp,
  secret: Type.Optional(
    Type.String({
      description: 'HMAC-SHA256 key of the Svc-Signature header; shown only when the subscription is created',
    }),
  ),
})

export const SubscriptionList = Type.Object({ subscriptions: Type.Array(Subscription) })

/** The body of every webhook delivery. */
export const WebhookEvent = Type.Object({
  event_id: Id,
  event_name: EventName,
  created_at: UtcTimestamp,
  trip_id: Id,
  /** The fulfillment of the orders concerned; absent on `cancellation_completed`, whose orders may come from several. */
  fulfillment_id: Type.Optional(Id),
  /** The cancellation, on its events (`order_status_changed` to or from `cancelling`, `cancellation_completed`). */
  cancellation_id: Type.Optional(Id),
  data: Type.Record(Type.String(), Type.Unknown()),
})
export type WebhookEvent = Static<typeof WebhookEvent>

/**
 * The body of a test delivery, which an operator sends to check a receiver (POST
 * /admin/v1/sellers/{seller_id}/webhooks/test): about no trip, signed as every delivery. Not an event a
 * seller subscribes to: it goes to every subscription it is sent to, whatever their event_name.
 */
export const TestPingEvent = Type.Object(
  {
    event_id: Id,
    event_name: Type.Literal('test_ping'),
    created_at: UtcTimestamp,
    data: Type.Object({ message: Type.String() }),
  },
  { description: 'A test delivery an operator sent: check its signature as any other, and answer 2xx.' },
)
export type TestPingEvent = Static<typeof TestPingEvent>
