/**
 * The webhooks the service sends, described once for the OpenAPI document's `webhooks` (OpenAPI 3.1): one
 * per event a seller subscribes to (POST /v2.2/callback_subscription), with its body and the headers every
 * delivery carries (core/application/jobs/webhook.ts sends them; test/server/docs/openapi.test.ts checks real
 * deliveries against this).
 */
import type { TSchema } from 'typebox'
import { TestPingEvent, type EventName } from '../schemas/fulfillment.ts'
import { CancellationCompletedEvent, FulfillmentCompletedEvent, OrderStatusChangedEvent } from '../schemas/webhooks.ts'
import { defaultConfig } from '../application/config.ts'

export interface Webhook {
  /** An event a seller subscribes to, or the test event an operator sends to any subscription. */
  event: EventName | 'test_ping'
  summary: string
  body: TSchema
  /** Who gets it, when not the subscriptions to `event`. */
  sentTo?: string
}

export const WEBHOOKS: Webhook[] = [
  {
    event: 'order_status_changed',
    body: OrderStatusChangedEvent,
    summary: 'An order moved (queued, in progress, succeeded, failed, cancelling, cancelled)',
  },
  {
    event: 'fulfillment_completed',
    body: FulfillmentCompletedEvent,
    summary: 'Every order of a fulfillment has ended',
  },
  {
    event: 'cancellation_completed',
    body: CancellationCompletedEvent,
    summary: 'Every order of a confirmed cancellation has ended',
  },
  {
    event: 'test_ping',
    body: TestPingEvent,
    summary: 'A test delivery an operator sent to check the receiver (no trip): verify and answer it as any other',
    sentTo:
      'POSTed to the target of a subscription, whatever its event, when an operator sends a test event (the admin API; docs/webhooks.md).',
  },
]

/** The headers of every delivery (names are case-insensitive; they are sent lower-case), with what each holds. */
export const WEBHOOK_HEADERS: Record<string, { description: string; pattern?: string }> = {
  'Svc-Signature': {
    description:
      "`t=<unix seconds>,v1=<hex>`: `v1` is the HMAC-SHA256 of `<t>.<raw body>` keyed by the subscription's `secret`. Verify it against the raw bytes before parsing, and refuse an old `t` (a replay).",
    pattern: '^t=[0-9]+,v1=[0-9a-f]{64}$',
  },
  'Svc-Event-Id': { description: "the body's `event_id`" },
  'Svc-Event-Name': { description: "the body's `event_name`" },
}

/** What a receiver answers, and what the service does then (docs/webhooks.md), with the service's default retry settings. */
const { backoffBaseMs: base, backoffCapMs: cap, maxAttempts } = defaultConfig
export const WEBHOOK_DELIVERY = `Answer any 2xx quickly. Anything else, or no answer within 10 s, is retried with exponential backoff (${base / 1000} s, ${(2 * base) / 1000} s, ${(4 * base) / 1000} s, …, at most ${cap / 60_000} minutes apart, ${maxAttempts.webhook} attempts) under the same \`event_id\`: delivery is at least once, and events may arrive out of order. The orders feed (GET /v2.2/orders) misses no change, whatever became of a delivery.`
