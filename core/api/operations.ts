/**
 * Every endpoint of the API, described once: method, path, who may call it, its schemas and its handler.
 * The Fastify server and the MSW sandbox both register routes from this table, so the two hosts cannot
 * drift apart, and the OpenAPI document is generated from the same schemas the handlers validate with.
 */
import { Type, type TSchema } from 'typebox'
import type { Answer, AuthRule, Core, Principal } from '../service.ts'
import * as S from '../schemas/index.ts'

export type { AuthRule }

export interface OperationInput {
  principal: Principal | null
  params: Record<string, string>
  /** The query string, validated against the operation's `query` schema (empty when it has none). */
  query: Record<string, string>
  body: unknown
  /** The `Idempotency-Key` request header, when the operation honours it. */
  idempotencyKey: string | undefined
}

export type OperationResult = Answer

/** Whether an If-None-Match header names `etag` (weak comparison, RFC 9110 §13.1.2; `*` matches any). */
export function matchesEtag(ifNoneMatch: string | undefined | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  const bare = (t: string) => t.trim().replace(/^W\//, '')
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || bare(t) === bare(etag))
}

export interface Operation {
  id: string
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
  /** Fastify-style path with `:param` segments. */
  path: string
  summary: string
  description?: string
  tags: string[]
  auth: AuthRule
  params?: TSchema
  query?: TSchema
  body?: TSchema
  /** Response schemas by status code, for the OpenAPI document (errors are added by the host). */
  responses: Record<number, TSchema>
  idempotent?: boolean
  handler(core: Core, input: OperationInput): Promise<OperationResult>
}

const TripParams = Type.Object({ trip_id: S.Id })
const SearchParams = Type.Object({ trip_id: S.Id, search_id: S.Id })
const ItemParams = Type.Object({ trip_id: S.Id, basket_item_id: S.Id })

export const BasketView = Type.Object({
  trip_state_hash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  basket: S.Basket,
  journeys: Type.Array(S.Journey),
})

/** `?product_types=bag,seat`: the product types a view needs (the bag widget asks for bags only). */
export const SearchQuery = Type.Object({
  product_types: Type.Optional(Type.String({
    pattern: `^(${S.PRODUCT_TYPE_NAMES.join('|')})(,(${S.PRODUCT_TYPE_NAMES.join('|')}))*$`,
    description: `Comma-separated product types to return (${S.PRODUCT_TYPE_NAMES.join(', ')}); \`seatmaps\` only when \`seat\` is one. All types when absent.`,
    examples: ['bag', 'bag,seat'],
  })),
}, { additionalProperties: false })

const Jwks = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) })

const ok = (body: unknown, status = 200): OperationResult => ({ status, body })

export const operations: Operation[] = [
  {
    id: 'authorize', method: 'POST', path: '/v2.2/authorize', tags: ['auth'], auth: 'api_key',
    summary: 'Get a trip creation token',
    description: 'For indirect trip creation: the seller backend exchanges its API key for a short-lived token that a frontend may use to call POST /v2.2/trip (and nothing else).',
    responses: { 200: S.AuthorizeResponse },
    handler: async (core, i) => ok(await core.authorize(i.principal!)),
  },
  {
    id: 'createTrip', method: 'POST', path: '/v2.2/trip', tags: ['trip'], auth: 'creator', idempotent: true,
    summary: 'Create a trip',
    description: 'Creates the trip from the offered tickets and passengers, optionally starts a product search, and returns the trip with its access and refresh tokens. Send an Idempotency-Key header to make retries safe.',
    body: S.TripCreateRequest,
    responses: { 201: S.Trip },
    handler: async (core, i) => ok(await core.createTrip(i.principal!, i.body), 201),
  },
  {
    id: 'getTrip', method: 'GET', path: '/v2.2/trip/:trip_id', tags: ['trip'], auth: 'trip',
    summary: 'Read the trip', params: TripParams, responses: { 200: S.Trip },
    handler: async (core, i) => ok(await core.getTrip(i.principal!, i.params.trip_id!)),
  },
  {
    id: 'patchTrip', method: 'PATCH', path: '/v2.2/trip/:trip_id', tags: ['trip'], auth: 'trip',
    summary: 'Update passengers and contact details',
    description: 'Passengers are matched by passenger_id; the fields given replace the stored ones. Items that depend on passenger data are revalidated.',
    params: TripParams, body: S.TripPatchRequest, responses: { 200: S.Trip },
    handler: async (core, i) => ok(await core.patchTrip(i.principal!, i.params.trip_id!, i.body)),
  },
  {
    id: 'startSearch', method: 'POST', path: '/v2.2/trip/:trip_id/search', tags: ['search'], auth: 'trip',
    summary: 'Search products for the trip', params: TripParams, body: S.SearchSelection,
    responses: { 201: S.SearchStarted },
    handler: async (core, i) => ok(await core.startSearch(i.principal!, i.params.trip_id!, i.body), 201),
  },
  {
    id: 'getSearch', method: 'GET', path: '/v2.2/trip/:trip_id/search/:search_id', tags: ['search'], auth: 'trip',
    summary: 'Read a search and its products',
    description: 'A search never changes once it has succeeded: the response carries an ETag and is cached by the server rendered and compressed. `product_types` narrows it to what a view shows.',
    params: SearchParams, query: SearchQuery, responses: { 200: S.Search, 304: Type.Null() },
    handler: async (core, i) => {
      const rendered = await core.readSearch(i.principal!, i.params.trip_id!, i.params.search_id!, i.query.product_types?.split(',') as S.ProductTypeName[] | undefined)
      return { status: 200, body: rendered, etag: rendered.etag }
    },
  },
  {
    id: 'getBasket', method: 'GET', path: '/v2.2/trip/:trip_id/basket', tags: ['basket'], auth: 'trip',
    summary: 'Read the basket',
    description: 'The response carries an ETag; send it back in If-None-Match to get 304 Not Modified while nothing changed (polling while items are `checking`).',
    params: TripParams, responses: { 200: BasketView, 304: Type.Null() },
    handler: async (core, i) => {
      const rendered = await core.readBasket(i.principal!, i.params.trip_id!)
      return { status: 200, body: rendered, etag: rendered.etag }
    },
  },
  {
    id: 'addToBasket', method: 'PATCH', path: '/v2.2/trip/:trip_id/basket', tags: ['basket'], auth: 'trip',
    summary: 'Add products to the basket', params: TripParams, body: S.BasketAddRequest, responses: { 200: BasketView },
    handler: async (core, i) => ok(await core.addToBasket(i.principal!, i.params.trip_id!, i.body)),
  },
  {
    id: 'replaceBasket', method: 'PUT', path: '/v2.2/trip/:trip_id/basket', tags: ['basket'], auth: 'trip',
    summary: 'Replace every ancillary in the basket',
    description: 'A line the basket already holds with the same product, passenger and quantity keeps its item (basket_item_id, validity and window); sending the current basket again changes nothing, so a retry is safe.',
    params: TripParams, body: S.BasketReplaceRequest, responses: { 200: BasketView },
    handler: async (core, i) => ok(await core.replaceBasket(i.principal!, i.params.trip_id!, i.body)),
  },
  {
    id: 'removeFromBasket', method: 'DELETE', path: '/v2.2/trip/:trip_id/basket/:basket_item_id', tags: ['basket'], auth: 'trip',
    summary: 'Remove one item from the basket', params: ItemParams, responses: { 200: BasketView },
    handler: async (core, i) => ok(await core.removeFromBasket(i.principal!, i.params.trip_id!, i.params.basket_item_id!)),
  },
  {
    id: 'checkBasket', method: 'POST', path: '/v2.2/trip/:trip_id/basket/check', tags: ['basket'], auth: 'trip',
    summary: 'Revalidate the basket',
    description: 'Every item that is not unavailable becomes `checking` while the airline revalidates it in the background. Poll GET .../basket until no item is `checking`; items end `valid`, `price_changed` (accept or remove) or `unavailable` (remove, then choose again).',
    params: TripParams, responses: { 202: BasketView },
    handler: async (core, i) => ok(await core.checkBasket(i.principal!, i.params.trip_id!), 202),
  },
  {
    id: 'acceptItem', method: 'POST', path: '/v2.2/trip/:trip_id/basket/:basket_item_id/accept', tags: ['basket'], auth: 'trip',
    summary: 'Accept the new price of a price_changed item',
    description: 'The item becomes `valid` at its new price. To reject the new price, DELETE the item.',
    params: ItemParams, responses: { 200: BasketView },
    handler: async (core, i) => ok(await core.acceptItem(i.principal!, i.params.trip_id!, i.params.basket_item_id!)),
  },
  {
    id: 'fulfill', method: 'POST', path: '/v2.2/trip/:trip_id/fulfill', tags: ['fulfillment'], auth: 'api_key', idempotent: true,
    summary: 'Fulfill the trip after the charge',
    description: 'Refused (409) when trip_state_hash is not the current one or any basket item is not `valid`. On acceptance the tickets become `booked` and each ancillary becomes an order in `trip.orders` that moves queued → in_progress → succeeded | failed; follow it by reading the trip or with webhooks.',
    params: TripParams, body: S.FulfillRequest, responses: { 202: S.FulfillResponse },
    handler: async (core, i) => ok(await core.fulfill(i.principal!, i.params.trip_id!, i.body), 202),
  },
  {
    id: 'createSubscription', method: 'POST', path: '/v2.2/callback_subscription', tags: ['webhooks'], auth: 'api_key',
    summary: 'Subscribe to webhook events',
    description: 'Events `order_status_changed` and `fulfillment_completed` are POSTed to the target at least once, each with an `event_id`, signed in the `Svc-Signature: t=<unix>,v1=<hex>` header: HMAC-SHA256 of `<t>.<raw body>` keyed by the `secret` returned here (once).',
    body: S.SubscriptionRequest, responses: { 201: S.Subscription },
    handler: async (core, i) => ok(await core.createSubscription(i.principal!, i.body), 201),
  },
  {
    id: 'listSubscriptions', method: 'GET', path: '/v2.2/callback_subscription', tags: ['webhooks'], auth: 'api_key',
    summary: 'List webhook subscriptions', responses: { 200: S.SubscriptionList },
    handler: async (core, i) => ok(await core.listSubscriptions(i.principal!)),
  },
  {
    id: 'deleteSubscription', method: 'DELETE', path: '/v2.2/callback_subscription/:subscription_id', tags: ['webhooks'], auth: 'api_key',
    summary: 'Delete a webhook subscription', params: Type.Object({ subscription_id: S.Id }), responses: { 204: Type.Null() },
    handler: async (core, i) => ok(await core.deleteSubscription(i.principal!, i.params.subscription_id!), 204),
  },
  {
    id: 'refreshToken', method: 'POST', path: '/v2.2/refresh_token', tags: ['auth'], auth: 'public',
    summary: 'Rotate the refresh token and get a new access token',
    description: 'Refresh tokens are single-use. Presenting one that was already used revokes every token of its family.',
    body: S.RefreshRequest, responses: { 200: S.RefreshResponse },
    handler: async (core, i) => ok(await core.refresh(i.body)),
  },
  {
    id: 'jwks', method: 'GET', path: '/v2.2/.well-known/jwks.json', tags: ['auth'], auth: 'public',
    summary: 'Public keys that verify the service tokens', responses: { 200: Jwks },
    handler: async (core) => ok(await core.jwks()),
  },
]
