/**
 * The schemas the OpenAPI document names (`#/components/schemas/<Name>`): wherever one of them appears in a
 * request, a response or another named schema, the document refers to it instead of repeating it, so a
 * client generated from the document has one type per name (one Passenger, one Price) rather than one per
 * place. The names are part of the contract a seller's generated code is written against: renaming one
 * breaks it.
 *
 * Only objects and enumerations are named; plain strings (ids, codes, timestamps) stay inline, where a
 * generated client would make them strings anyway.
 */
import type { TSchema } from 'typebox'
import * as S from '../schemas/index.ts'
import { CancellationCompletedEvent, FulfillmentCompletedEvent, OrderStatusChangedEvent } from '../schemas/webhooks.ts'
import { BasketView, Jwks } from './operations.ts'

export const COMPONENTS: Record<string, TSchema> = {
  // Errors
  Problem: S.Problem,
  // Money
  OriginalMoney: S.OriginalMoney,
  Money: S.Money,
  Markup: S.Markup,
  Tax: S.Tax,
  Fee: S.Fee,
  Price: S.Price,
  Metadata: S.Metadata,
  // Trips
  TripCreateRequest: S.TripCreateRequest,
  TicketOfferRequest: S.TicketOfferRequest,
  OfferedPriceRequest: S.OfferedPriceRequest,
  SegmentRequest: S.SegmentRequest,
  PassengerRequest: S.PassengerRequest,
  PassengerType: S.PassengerType,
  LoyaltyProgram: S.LoyaltyProgram,
  IdentityDocument: S.IdentityDocument,
  ContactDetails: S.ContactDetails,
  Address: S.Address,
  SearchSelection: S.SearchSelection,
  MarkupConfig: S.MarkupConfig,
  MarkupRule: S.MarkupRule,
  CorporateIdentifiers: S.CorporateIdentifiers,
  TripPatchRequest: S.TripPatchRequest,
  PassengerUpdate: S.PassengerUpdate,
  Trip: S.Trip,
  Journey: S.Journey,
  Segment: S.Segment,
  Passenger: S.Passenger,
  Ticket: S.Ticket,
  TicketStatus: S.TicketStatus,
  AccessDetails: S.AccessDetails,
  // Search
  SearchStarted: S.SearchStarted,
  Search: S.Search,
  SearchStatus: S.SearchStatus,
  SearchResults: S.SearchResults,
  Product: S.Product,
  ProductType: S.ProductTypeName,
  PriceAndAvailability: S.PriceAndAvailability,
  SeatMap: S.SeatMap,
  SeatMapDeck: S.SeatMapDeck,
  SeatMapRow: S.SeatMapRow,
  SeatMapSeat: S.SeatMapSeat,
  // Basket
  BasketView: BasketView,
  Basket: S.Basket,
  BasketItem: S.BasketItem,
  BasketProductType: S.BasketProductType,
  Validity: S.Validity,
  ValidityStatus: S.ValidityStatus,
  ItemMarkup: S.ItemMarkup,
  BasketAddRequest: S.BasketAddRequest,
  BasketReplaceRequest: S.BasketReplaceRequest,
  BasketChangeLine: S.BasketChangeLine,
  // Fulfillment and after the sale
  FulfillRequest: S.FulfillRequest,
  FulfillResponse: S.FulfillResponse,
  Order: S.Order,
  OrderStatus: S.OrderStatus,
  OrdersPage: S.OrdersPage,
  OrderFeedItem: S.OrderFeedItem,
  CancelQuoteRequest: S.CancelQuoteRequest,
  ToCancel: S.ToCancel,
  ToCancelItem: S.ToCancelItem,
  CancellationStarted: S.CancellationStarted,
  // Webhooks
  SubscriptionRequest: S.SubscriptionRequest,
  Subscription: S.Subscription,
  SubscriptionList: S.SubscriptionList,
  EventName: S.EventName,
  OrderStatusChangedEvent,
  FulfillmentCompletedEvent,
  CancellationCompletedEvent,
  TestPingEvent: S.TestPingEvent,
  // Tokens
  AuthorizeResponse: S.AuthorizeResponse,
  RefreshRequest: S.RefreshRequest,
  RefreshResponse: S.RefreshResponse,
  Jwks,
}
