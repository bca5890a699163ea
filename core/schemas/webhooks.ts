/**
 * The bodies of the webhooks, one schema per event, as the OpenAPI document's `webhooks` describes them
 * (core/api/webhooks.ts). The service builds them in core/domain/fulfillment.ts and core/domain/cancellation.ts and wraps
 * them in core/application/jobs/webhook-events.ts; test/server/docs/openapi.test.ts checks real deliveries against these.
 *
 * Documentation only, so not in ./index.ts: the sandbox bundle, which imports the schemas it validates with,
 * need not carry them. The job that delivers an event reads it back with the looser WebhookEvent.
 */
import { Type } from 'typebox'
import { CurrencyCode, DecimalPlaces, Id, MinorUnits, Money, Nullable, UtcTimestamp } from './common.ts'
import { OrderStatus } from './basket.ts'
import { Order } from './fulfillment.ts'

/** The envelope every event shares: `event_id` is the same on every retry of one delivery. */
const envelope = {
  event_id: { ...Id, description: 'the same on every delivery of this event: deduplicate on it' },
  created_at: UtcTimestamp,
  trip_id: Id,
}

export const OrderStatusChangedEvent = Type.Object(
  {
    ...envelope,
    event_name: Type.Literal('order_status_changed'),
    fulfillment_id: Id,
    cancellation_id: Type.Optional(Id),
    data: Type.Object({
      order: Order,
      previous_status: OrderStatus,
    }),
  },
  {
    description:
      'An order moved. Deliveries may arrive out of order: keep the newest `data.order.updated_at` per order. `cancellation_id` when the move is part of a cancellation.',
  },
)

export const FulfillmentCompletedEvent = Type.Object(
  {
    ...envelope,
    event_name: Type.Literal('fulfillment_completed'),
    fulfillment_id: Id,
    data: Type.Object({
      status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('partially_failed')]),
      orders: Type.Array(
        Type.Object({
          order_id: Id,
          basket_item_id: Id,
          status: OrderStatus,
          failure_reason: Type.Optional(Type.String()),
        }),
      ),
    }),
  },
  {
    description:
      'Every order of one fulfillment has ended (once per fulfillment; a later fulfill is a fulfillment of its own).',
  },
)

export const CancellationCompletedEvent = Type.Object(
  {
    ...envelope,
    event_name: Type.Literal('cancellation_completed'),
    cancellation_id: Id,
    data: Type.Object({
      status: Type.Union([Type.Literal('cancelled'), Type.Literal('failed'), Type.Literal('partially_cancelled')]),
      refund_total: Nullable(
        Type.Object(
          { amount: MinorUnits, currency: CurrencyCode, decimal_places: DecimalPlaces },
          {
            description: 'the refunds added up, in the trip currency; null when the airline refused every cancellation',
          },
        ),
      ),
      orders: Type.Array(
        Type.Object({
          order_id: Id,
          basket_item_id: Id,
          status: OrderStatus,
          refund: Type.Optional(Money),
          cancellation_failure_reason: Type.Optional(Type.String()),
        }),
      ),
    }),
  },
  {
    description:
      'No order of one confirmed cancellation is `cancelling` any more (once per cancellation). No `fulfillment_id`: its orders may come from several.',
  },
)
