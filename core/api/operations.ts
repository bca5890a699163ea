/**
 * Every endpoint of the API, described once: method, path, who may call it, its schemas and its handler.
 * The Fastify server and the MSW sandbox both register routes from this table and answer them through
 * the same pipeline (./dispatch.ts), so the two hosts cannot drift apart, and the OpenAPI document is
 * generated from the same schemas the requests are validated with.
 *
 * `errors` lists the problems an operation's handler refuses with; those of the pipeline (credentials, a bad
 * body, an unknown id, Idempotency-Key) come with the operation's kind (dispatch.ts `problemCodes`). Every
 * operation that writes a trip has `trip_state_conflict`: a trip that too many requests change at once
 * refuses the one that keeps losing (core/application/trip-cache.ts), whatever else the code means for it.
 */
import { Type } from 'typebox'
import type { Answer } from '../application/idempotency.ts'
import * as S from '../schemas/index.ts'
import * as trips from '../application/trips.ts'
import * as searches from '../application/searches.ts'
import * as basket from '../application/baskets.ts'
import * as events from '../application/event-stream.ts'
import { fulfill } from '../application/fulfillments.ts'
import * as cancellation from '../application/cancellations.ts'
import * as orders from '../application/orders.ts'
import * as subscriptions from '../application/subscriptions.ts'
import * as tokens from '../application/tokens.ts'
import { defineOperation, takesNothing, type Operation } from './dispatch.ts'
import { createRuleErrors } from '../domain/trip.ts'

export type { AuthRule } from '../application/principal.ts'
export type { Operation } from './dispatch.ts'

const TripParams = Type.Object({ trip_id: S.Id })
const SearchParams = Type.Object({ trip_id: S.Id, search_id: S.Id })
const ItemParams = Type.Object({ trip_id: S.Id, basket_item_id: S.Id })

export const BasketView = Type.Object({
  trip_state_hash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  basket: S.Basket,
  journeys: Type.Array(S.Journey),
})

/** `?product_types=bag,seat`: the product types a view needs (the bag widget asks for bags only). */
export const SearchQuery = Type.Object(
  {
    product_types: Type.Optional(
      Type.String({
        pattern: `^(${S.PRODUCT_TYPE_NAMES.join('|')})(,(${S.PRODUCT_TYPE_NAMES.join('|')}))*$`,
        description: `Comma-separated product types to return (${S.PRODUCT_TYPE_NAMES.join(', ')}); \`seatmaps\` only when \`seat\` is one. All types when absent.`,
        examples: ['bag', 'bag,seat'],
      }),
    ),
  },
  { additionalProperties: false },
)

export const Jwks = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) })

const ok = (body: unknown, status = 200): Answer => ({ status, body })

/** The product types a `product_types` query names; its pattern admits only known names. */
const typesIn = (list: string | undefined): S.ProductTypeName[] | undefined =>
  list?.split(',').flatMap((name) => S.PRODUCT_TYPE_NAMES.filter((known) => known === name))

export const operations: Operation[] = [
  defineOperation({
    ...takesNothing,
    id: 'authorize',
    method: 'POST',
    path: '/v2.2/authorize',
    tags: ['auth'],
    auth: 'api_key',
    errors: [],
    summary: 'Get a trip creation token',
    description:
      'For indirect trip creation: the seller backend exchanges its API key for a short-lived token that a frontend may use to call POST /v2.2/trip (and nothing else).',
    responses: { 200: S.AuthorizeResponse },
    handler: async (ctx, p) => ok(await tokens.authorize(ctx, p)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'createTrip',
    method: 'POST',
    path: '/v2.2/trip',
    tags: ['trip'],
    auth: 'creator',
    idempotent: true,
    errors: ['supplier_not_configured'],
    summary: 'Create a trip',
    description:
      'Creates the trip from the offered tickets and passengers, optionally starts a product search, and returns the trip with its access and refresh tokens. Send an Idempotency-Key header to make retries safe.',
    body: S.TripCreateRequest,
    rules: (ctx, body) => createRuleErrors(body, ctx.clock.now()),
    responses: { 201: S.Trip },
    handler: async (ctx, p, i) => ok(await trips.createTrip(ctx, p, i.body, i.idempotency), 201),
  }),
  defineOperation({
    ...takesNothing,
    id: 'getTrip',
    method: 'GET',
    path: '/v2.2/trip/:trip_id',
    tags: ['trip'],
    auth: 'trip',
    errors: [],
    summary: 'Read the trip',
    params: TripParams,
    responses: { 200: S.Trip },
    handler: async (ctx, p, i) => ok(await trips.readTrip(ctx, p, i.params.trip_id)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'getTripEvents',
    method: 'GET',
    path: '/v2.2/trip/:trip_id/events',
    tags: ['trip'],
    auth: 'trip',
    eventStream: true,
    errors: [],
    summary: 'Follow the basket (Server-Sent Events)',
    description:
      "A `text/event-stream`. `event: basket` carries the basket as GET .../basket reads it whenever it changes (a change on any instance, a backend basket check, an item passing valid_to); `event: search` carries `{search_id}` when the trip's offers were replaced (after a passenger update). Each event's `id` is the trip version: send it back as `Last-Event-ID` to resume without the current state again. A comment line comes every 25 s; the stream ends when the access token expires (reconnect with a fresh one). Read it with fetch streaming: EventSource cannot send an Authorization header.",
    params: TripParams,
    responses: { 200: Type.String({ description: 'text/event-stream' }) },
    handler: async (ctx, p, i) => {
      // Loaded here, so a trip that is not the caller's is a 404 problem, not a stream that ends at once.
      const first = await ctx.trips.load(p, i.params.trip_id)
      return { status: 200, body: events.tripEvents(ctx, p, first, i.header('last-event-id'), ctx.config.live) }
    },
  }),
  defineOperation({
    ...takesNothing,
    id: 'patchTrip',
    method: 'PATCH',
    path: '/v2.2/trip/:trip_id',
    tags: ['trip'],
    auth: 'trip',
    errors: ['trip_state_conflict'],
    summary: 'Update passengers and contact details',
    description:
      'Passengers are matched by passenger_id; the fields given replace the stored ones. Items that depend on passenger data are revalidated.',
    params: TripParams,
    body: S.TripPatchRequest,
    responses: { 200: S.Trip },
    handler: async (ctx, p, i) => ok(await trips.patchTrip(ctx, p, i.params.trip_id, i.body)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'startSearch',
    method: 'POST',
    path: '/v2.2/trip/:trip_id/search',
    tags: ['search'],
    auth: 'trip',
    errors: ['trip_state_conflict', 'supplier_not_configured'],
    summary: 'Search products for the trip',
    params: TripParams,
    body: S.SearchSelection,
    responses: { 201: S.SearchStarted },
    handler: async (ctx, p, i) => ok(await searches.startSearch(ctx, p, i.params.trip_id, i.body), 201),
  }),
  defineOperation({
    ...takesNothing,
    id: 'getSearch',
    method: 'GET',
    path: '/v2.2/trip/:trip_id/search/:search_id',
    tags: ['search'],
    auth: 'trip',
    errors: [],
    summary: 'Read a search and its products',
    description:
      'A search never changes once it has succeeded: the response carries an ETag and is cached by the server rendered and compressed. `product_types` narrows it to what a view shows.',
    params: SearchParams,
    query: SearchQuery,
    responses: { 200: S.Search, 304: Type.Null() },
    handler: async (ctx, p, i) => {
      const rendered = await searches.readSearch(
        ctx,
        p,
        i.params.trip_id,
        i.params.search_id,
        typesIn(i.query.product_types),
      )
      return { status: 200, body: rendered, etag: rendered.etag }
    },
  }),
  defineOperation({
    ...takesNothing,
    id: 'getBasket',
    method: 'GET',
    path: '/v2.2/trip/:trip_id/basket',
    tags: ['basket'],
    auth: 'trip',
    errors: [],
    summary: 'Read the basket',
    description:
      'The response carries an ETag; send it back in If-None-Match to get 304 Not Modified while nothing changed (polling while items are `checking`).',
    params: TripParams,
    responses: { 200: BasketView, 304: Type.Null() },
    handler: async (ctx, p, i) => {
      const rendered = await basket.readBasket(ctx, p, i.params.trip_id)
      return { status: 200, body: rendered, etag: rendered.etag }
    },
  }),
  defineOperation({
    ...takesNothing,
    id: 'addToBasket',
    method: 'PATCH',
    path: '/v2.2/trip/:trip_id/basket',
    tags: ['basket'],
    auth: 'trip',
    errors: ['trip_state_conflict', 'basket_rule_violation', 'product_unavailable'],
    summary: 'Add products to the basket',
    description:
      "A line may carry `markup` (per unit, in the trip's currency and decimal places): the item's own mark-up, listed in `price.markups` as `markup_type: \"item\"` and kept through checks and price changes. A line for an item the basket holds adds to its quantity; with `markup` it sets the item's, without it keeps it.",
    params: TripParams,
    body: S.BasketAddRequest,
    responses: { 200: BasketView },
    handler: async (ctx, p, i) => ok(await basket.addToBasket(ctx, p, i.params.trip_id, i.body)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'replaceBasket',
    method: 'PUT',
    path: '/v2.2/trip/:trip_id/basket',
    tags: ['basket'],
    auth: 'trip',
    errors: ['trip_state_conflict', 'basket_rule_violation', 'product_unavailable', 'item_ordered'],
    summary: 'Replace every ancillary in the basket',
    description:
      'A line the basket already holds with the same product, passenger, quantity and `markup` keeps its item (basket_item_id, validity and window); sending the current basket again changes nothing, so a retry is safe. Only the `markup` differing, the item keeps all that and is re-priced with the new one (none when the line has none). The lines are the whole basket: after a fulfill they list the ordered items too (a PUT that leaves one out is refused with 409 `item_ordered`), and what they ask beyond those is the next item to order.',
    params: TripParams,
    body: S.BasketReplaceRequest,
    responses: { 200: BasketView },
    handler: async (ctx, p, i) => ok(await basket.replaceBasket(ctx, p, i.params.trip_id, i.body)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'removeFromBasket',
    method: 'DELETE',
    path: '/v2.2/trip/:trip_id/basket/:basket_item_id',
    tags: ['basket'],
    auth: 'trip',
    errors: ['trip_state_conflict', 'basket_rule_violation', 'item_ordered'],
    summary: 'Remove one item from the basket',
    params: ItemParams,
    responses: { 200: BasketView },
    handler: async (ctx, p, i) => ok(await basket.removeFromBasket(ctx, p, i.params.trip_id, i.params.basket_item_id)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'checkBasket',
    method: 'POST',
    path: '/v2.2/trip/:trip_id/basket/check',
    tags: ['basket'],
    auth: 'trip',
    errors: ['trip_state_conflict'],
    summary: 'Revalidate the basket',
    description:
      'Every item that is not unavailable or ordered becomes `checking` while the airline revalidates it in the background. Poll GET .../basket until no item is `checking`; items end `valid`, `price_changed` (accept or remove) or `unavailable` (remove, then choose again).',
    params: TripParams,
    responses: { 202: BasketView },
    handler: async (ctx, p, i) => ok(await basket.checkBasket(ctx, p, i.params.trip_id), 202),
  }),
  defineOperation({
    ...takesNothing,
    id: 'acceptItem',
    method: 'POST',
    path: '/v2.2/trip/:trip_id/basket/:basket_item_id/accept',
    tags: ['basket'],
    auth: 'trip',
    errors: ['trip_state_conflict', 'basket_rule_violation', 'item_ordered'],
    summary: 'Accept the new price of a price_changed item',
    description: 'The item becomes `valid` at its new price. To reject the new price, DELETE the item.',
    params: ItemParams,
    responses: { 200: BasketView },
    handler: async (ctx, p, i) => ok(await basket.acceptItem(ctx, p, i.params.trip_id, i.params.basket_item_id)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'fulfill',
    method: 'POST',
    path: '/v2.2/trip/:trip_id/fulfill',
    tags: ['fulfillment'],
    auth: 'api_key',
    idempotent: true,
    errors: ['trip_state_conflict', 'basket_not_valid'],
    summary: 'Fulfill the trip after the charge',
    description:
      "Refused (409) when trip_state_hash is not the current one, any basket item not yet ordered is not `valid`, or there is nothing to order. On acceptance the tickets become `booked` and each ancillary not yet ordered becomes an order in `trip.orders` that moves queued → in_progress → succeeded | failed; follow it by reading the trip or with webhooks. The basket item shows its `order_id` and `order_status`, and is read-only from then on (409 `item_ordered`). A fulfilled trip's basket takes new items: a later fulfill orders them, and may leave out `contact_details`, `passengers` and `tickets`. With `is_ticketed: false` (a record locator, no ticket numbers yet) the orders wait in `awaiting_ticketing` until a fulfill with the tickets' numbers, or fail with `ticketing_timeout` after TICKETING_TIMEOUT_HOURS (72).",
    params: TripParams,
    body: S.FulfillRequest,
    responses: { 202: S.FulfillResponse },
    handler: async (ctx, p, i) => ok(await fulfill(ctx, p, i.params.trip_id, i.body, i.idempotency), 202),
  }),
  defineOperation({
    ...takesNothing,
    id: 'quoteCancellation',
    method: 'POST',
    path: '/v2.2/trip/:trip_id/to_cancel',
    tags: ['after-sale'],
    auth: 'api_key',
    errors: ['trip_state_conflict', 'not_cancellable', 'supplier_not_configured'],
    summary: 'Ask the airline what cancelling ordered extras would refund',
    description:
      "Each basket item named must have an order that `succeeded` (else 409 `not_cancellable`; an item of no trip of yours, 404). The airline's answer becomes the trip's `to_cancel`, keyed by basket_item_id: `cancellable`, `refund` (or null and a `reason`), until `quote_expires_at`. A new quote replaces it; nothing is cancelled until POST .../to_cancel/confirm.",
    params: TripParams,
    body: S.CancelQuoteRequest,
    responses: { 200: S.ToCancel },
    handler: async (ctx, p, i) => ok(await cancellation.quoteCancel(ctx, p, i.params.trip_id, i.body)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'getCancellationQuote',
    method: 'GET',
    path: '/v2.2/trip/:trip_id/to_cancel',
    tags: ['after-sale'],
    auth: 'api_key',
    errors: [],
    summary: 'Read the cancellation quote',
    params: TripParams,
    responses: { 200: S.ToCancel },
    handler: async (ctx, p, i) => ok(await cancellation.readQuote(ctx, p, i.params.trip_id)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'confirmCancellation',
    method: 'POST',
    path: '/v2.2/trip/:trip_id/to_cancel/confirm',
    tags: ['after-sale'],
    auth: 'api_key',
    idempotent: true,
    errors: ['trip_state_conflict', 'not_cancellable', 'quote_expired'],
    summary: 'Confirm the cancellation quote',
    description:
      'Refused (409) when the quote expired (`quote_expired`), or an item is not cancellable or its order moved since (`not_cancellable`). Otherwise each order becomes `cancelling` and the airline is asked, once per order: it ends `cancelled` with its `refund`, or back to `succeeded` with `cancellation_failure_reason`. Webhooks `order_status_changed` and `cancellation_completed` follow. The quote is used up: of two concurrent confirms, one cancels and the other is refused.',
    params: TripParams,
    responses: { 202: S.CancellationStarted },
    handler: async (ctx, p, i) => ok(await cancellation.confirmCancel(ctx, p, i.params.trip_id, i.idempotency), 202),
  }),
  defineOperation({
    ...takesNothing,
    id: 'listOrders',
    method: 'GET',
    path: '/v2.2/orders',
    tags: ['after-sale'],
    auth: 'api_key',
    errors: [],
    summary: 'The orders feed: every order of your trips, by change',
    description:
      'For reconciliation. Orders are listed by change: an order created or moved (queued, in_progress, succeeded, failed, cancelling, cancelled) takes the next place of your feed, in the same transaction as the change, so paging with `cursor` while orders keep moving never skips one. An order that changes after you read it comes again, later, as it is now. `next_cursor` is always given: a page shorter than `limit` means nothing more for now, and the same cursor asked again later lists what changed since. Filters: `status` (as it is now), `updated_since`. A cursor carries the filters of its first page. Only your own orders.',
    query: S.OrdersQuery,
    responses: { 200: S.OrdersPage },
    handler: async (ctx, p, i) => ok(await orders.listOrders(ctx, p, i.query)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'createSubscription',
    method: 'POST',
    path: '/v2.2/callback_subscription',
    tags: ['webhooks'],
    auth: 'api_key',
    errors: [],
    summary: 'Subscribe to webhook events',
    description:
      'Events `order_status_changed`, `fulfillment_completed` and `cancellation_completed` are POSTed to the target at least once, each with an `event_id`, signed in the `Svc-Signature: t=<unix>,v1=<hex>` header: HMAC-SHA256 of `<t>.<raw body>` keyed by the `secret` returned here (once).',
    body: S.SubscriptionRequest,
    responses: { 201: S.Subscription },
    handler: async (ctx, p, i) => ok(await subscriptions.createSubscription(ctx, p, i.body), 201),
  }),
  defineOperation({
    ...takesNothing,
    id: 'listSubscriptions',
    method: 'GET',
    path: '/v2.2/callback_subscription',
    tags: ['webhooks'],
    auth: 'api_key',
    errors: [],
    summary: 'List webhook subscriptions',
    responses: { 200: S.SubscriptionList },
    handler: async (ctx, p) => ok(await subscriptions.listSubscriptions(ctx, p)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'deleteSubscription',
    method: 'DELETE',
    path: '/v2.2/callback_subscription/:subscription_id',
    tags: ['webhooks'],
    auth: 'api_key',
    errors: [],
    summary: 'Delete a webhook subscription',
    params: Type.Object({ subscription_id: S.Id }),
    responses: { 204: Type.Null() },
    handler: async (ctx, p, i) => ok(await subscriptions.deleteSubscription(ctx, p, i.params.subscription_id), 204),
  }),
  defineOperation({
    ...takesNothing,
    id: 'refreshToken',
    method: 'POST',
    path: '/v2.2/refresh_token',
    tags: ['auth'],
    auth: 'public',
    errors: ['unauthorized', 'token_expired'],
    summary: 'Rotate the refresh token and get a new access token',
    description:
      'Refresh tokens are single-use. Presenting one that was already used revokes every token of its family.',
    body: S.RefreshRequest,
    responses: { 200: S.RefreshResponse },
    handler: async (ctx, i) => ok(await tokens.refresh(ctx, i.body)),
  }),
  defineOperation({
    ...takesNothing,
    id: 'jwks',
    method: 'GET',
    path: '/v2.2/.well-known/jwks.json',
    tags: ['auth'],
    auth: 'public',
    errors: [],
    summary: 'Public keys that verify the service tokens',
    responses: { 200: Jwks },
    handler: async (ctx) => ok(await tokens.jwks(ctx)),
  }),
]
