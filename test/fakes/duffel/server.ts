/**
 * A fake Duffel API (api.duffel.com, `Duffel-Version: v2`) on loopback HTTP, for the tests of the Duffel
 * supplier (server/suppliers/duffel/): no machine that runs the tests reaches the internet, and Duffel's own
 * test mode cannot be told to fail on cue. It answers the few routes the adapter calls (docs/decisions.md "The
 * Duffel supplier") the way Duffel does: `{ data }` bodies, Duffel's error envelope, bearer tokens whose
 * prefix sets the mode, and it keeps the state those calls change (services added to an order, the balance
 * they are paid from). It also answers the seller's side of the flow, a search, a booking and the payment of
 * a held booking, so that the live smoke test (test/live/duffel.live.ts) runs end to end against it too
 * (main.ts prints how).
 *
 *   GET  /air/offers/{id}?return_available_services=true   the offer with its services: baggage, one
 *                                                          cancel_for_any_reason (`cfa_…`), and seats when the
 *                                                          offer sells them so (`seatServices`); without
 *                                                          return_available_services=true, `available_services: null`
 *   GET  /air/seat_maps?offer_id=…                         one seat map per segment of the offer
 *   GET  /air/orders/{id}                                  the order (`type: 'instant' | 'hold'`), with its booked services
 *   GET  /air/orders?booking_reference=…                   `{ data: Order[], meta: { limit, before, after } }`
 *   GET  /air/orders/{id}/available_services               the baggage the order may still add (`aso_…`): only on
 *                                                          Duffel Airways (ZZ) orders, or when `bookOrder` asks for
 *                                                          it (Duffel sells bags after booking for few airlines); else []
 *   POST /air/orders/{id}/services                         adds services, paid from the token's balance
 *   POST /air/offer_requests?return_offers=…               a search: for the requested slices (airport or city
 *                                                          codes the fake knows, see AIRPORTS), one offer by
 *                                                          Duffel Airways (ZZ), one by British Airways, and on a
 *                                                          short-haul route one by easyJet, built as `addOffer`
 *                                                          builds them (bags, seat maps); 201 `{ data: OfferRequest }`
 *                                                          (its offers with `available_services: null`; no `offers`
 *                                                          when return_offers=false). In test mode, Duffel's test
 *                                                          routes answer as below (TEST_ROUTES)
 *   POST /air/orders                                       books an offer with services of it, paid from the token's
 *                                                          balance (`type: 'instant'`), or holds it unpaid (`type:
 *                                                          'hold'`, no payments, no services); 201 `{ data: Order }`.
 *                                                          An offer is booked once (by this or by `bookOrder`);
 *                                                          GET /air/offers and seat maps still answer for it
 *   POST /air/payments                                     pays a held order from the balance: `{ data: { order_id,
 *                                                          payment: { type, amount, currency } } }`; 201 `{ data: Payment }`
 *
 * Test-mode routes: what Duffel's test mode answers a search on these routes, as its page "Test your integration"
 * (duffel.com/docs/api/overview/test-your-integration, "Offer Request API") lists them. They apply to a
 * `duffel_test_…` token's search (a live-mode one is searched as any other), chosen by the search's first (or
 * only) slice, by the codes it names; their offers are Duffel Airways' (ZZ) alone, otherwise as `addOffer`
 * builds them. What shapes a slice (a connection, a stop) applies to every slice on that route or its
 * reverse; what shapes an offer (holds, bags) to the whole offer:
 *
 *   PVD → RAI  No Flights                     201, `offers: []`
 *   JFK → EWR  Hold Orders                    every offer `requires_instant_payment: false`, with `payment_required_by`
 *                                             and `price_guarantee_expires_at`: POST /air/orders `type: 'hold'` books it
 *   LHR → DXB  Connecting Flights             the slice in two segments, connecting at Frankfurt (LHR → FRA → DXB)
 *   BTS → MRU  No Segment Passenger Baggages  `baggages: []` for every passenger on every segment, and no baggage
 *                                             services for sale (before booking or after)
 *   STN → LHR  Timeout                        the request is never answered (as the `timeout` switch), until close;
 *                                             its body is checked first: a refusal is still answered
 *   DXB → AMS  Has Stops                      each segment of the slice makes one stop, at Istanbul: `stops: [{ id,
 *                                             airport, arriving_at, departing_at, duration }]` (times local there)
 *
 * Shapes are Duffel's as its recordings show them (the fixtures of Duffel's own recorder, whose structure
 * test/fakes/duffel/recorded/ holds and shapes.test.ts holds the fake to), not as the @duffel/api package
 * types them: server/suppliers/duffel/types.ts holds those overrides (its `Wire*` types where the
 * recordings are wider still, each saying what it adds). So every seat map element carries every key,
 * with `designator: null` on restricted seats and every non-seat; a seat's price may have fewer decimals than
 * its currency ("16.0" GBP, as the recorded "20.0"), and a seat may be free ("0.0"); an offer passenger
 * searched by age has `type: null`; an airline that states little (`sparse`, by default easyJet's offers, as
 * its recording) sends no aircraft, distance, terminals, fare basis, logos, fare brand nor conditions.
 *
 * Accounts: each token is one Duffel account. Data made for a token is seen by that token only; a
 * `duffel_test_…` token's data is test mode (`live_mode: false`), a `duffel_live_…` token's live mode. So a
 * test token never sees live data (Duffel's mode separation) and one seller never sees another's.
 *
 * Hold orders: held until the offer's `payment_requirements.payment_required_by`; then (on the fake's clock,
 * see `setNow`) Duffel releases the space: the order reads as cancelled from that time, as after
 * `releaseHold`. Paid by POST /air/payments (debiting the balance) or by `payOrder` (a control, paying
 * nothing), it becomes an order like an instant one; until then it takes no services.
 *
 * Errors (always `{ errors: [{ type, code, title, message, documentation_url, source? }], meta: { status,
 * request_id } }`, the request id also in `x-request-id`, but for the load balancer's HTML pages of
 * `htmlError`; `source` names the request field at fault, where there is one). "Duffel" marks a code Duffel documents for the case; "fake" one this fake chose where
 * Duffel's is not known, listed so that tests can rely on it:
 *
 *   400 invalid_request_error missing_version_header        Duffel  no Duffel-Version header
 *   400 invalid_request_error unsupported_version           Duffel  Duffel-Version not `v2`
 *   400 invalid_request_error invalid_json                  fake    a request body that is not JSON
 *   401 authentication_error  missing_authorization_header  Duffel  no Authorization header
 *   401 authentication_error  invalid_authorization_header  fake    not `Bearer <token>`
 *   401 authentication_error  access_token_not_found        Duffel  a token the fake was not given
 *   404 invalid_request_error not_found                     Duffel  unknown route or id, or another account's / mode's data
 *   422 invalid_state_error   offer_no_longer_available     Duffel  the offer (or its seat maps) past `expires_at`
 *   422 validation_error      validation_required           fake    a required field or query parameter missing
 *   422 validation_error      validation_format             fake    a field of the wrong shape (quantity, amount, duplicate id, limit)
 *   POST /air/orders/{id}/services refusals (nothing is added and nothing is paid):
 *   422 invalid_state_error   order_cancelled               fake    the order was cancelled (or its hold released)
 *   422 invalid_state_error   order_awaiting_payment        fake    the order is a hold not yet paid
 *   422 invalid_state_error   ancillary_service_not_available Duffel a service id that is not among the order's
 *                                                                   available services now (unknown, gone, or used up)
 *   422 validation_error      maximum_quantity_exceeded     fake    a quantity above the service's maximum_quantity
 *   422 validation_error      unsupported_payment_type      fake    payment.type other than `balance`
 *   422 validation_error      invalid_payment_currency      fake    payment.currency is not the services' currency
 *   422 validation_error      payment_amount_does_not_match_order_amount  Duffel  payment.amount is not the
 *                                                                   services' current total
 *   422 invalid_state_error   insufficient_balance          Duffel  the account's balance cannot pay (or is in another
 *                                                                   currency): make a token poor with
 *                                                                   `addToken(token, { balance: '0.00' })`
 *   POST /air/offer_requests refusals:
 *   422 validation_error      validation_required           fake    slices, passengers or one of a slice's fields missing
 *   422 validation_error      validation_format             fake    an airport or city code the fake does not know, origin =
 *                                                                   destination, a departure_date not YYYY-MM-DD or in the
 *                                                                   past, a passenger neither `type: 'adult'` nor with an
 *                                                                   age (fare_type is not supported), more lap infants than
 *                                                                   adults, an unknown cabin_class, return_offers not a boolean
 *   POST /air/orders refusals (nothing is booked and nothing is paid; checked in this order: type and
 *   selected_offers, the offer, the passengers, the services, the payment):
 *   422 validation_error      validation_required           fake    data, type, selected_offers, passengers, payments of an
 *                                                                   instant order (or a passenger's id, names, title,
 *                                                                   gender, born_on, email, phone_number) missing
 *   422 validation_error      validation_format             fake    type neither `instant` nor `hold`; a hold with payments
 *                                                                   or services, or of an offer whose payment_requirements
 *                                                                   say requires_instant_payment; not exactly one selected
 *                                                                   offer, metadata not an object of strings, a malformed
 *                                                                   passenger field, a service listed twice or of quantity
 *                                                                   < 1, two seats for a passenger (or one seat twice) on a
 *                                                                   segment, more than one payment, a malformed amount
 *   404 invalid_request_error not_found                     Duffel  the selected offer is unknown or another account's / mode's
 *   422 invalid_state_error   offer_no_longer_available     Duffel  the offer is past `expires_at`, or already booked
 *   422 validation_error      passengers_mismatch           fake    the passengers' ids are not exactly the offer's
 *   422 invalid_state_error   unavailable_service           fake    a service that is not the offer's bag or a seat of its
 *                                                                   seat maps now (unknown, gone, or a cancel_for_any_reason:
 *                                                                   the fake books bags and seats only)
 *   422 validation_error      maximum_quantity_exceeded     fake    a bag above its maximum_quantity, a seat more than once
 *   422 validation_error      unsupported_payment_type      fake    payment type other than `balance`
 *   422 validation_error      invalid_payment_currency      fake    payment currency other than the offer's
 *   422 validation_error      price_changed                 Duffel  the amount is not the offer's total_amount plus the
 *                                                                   services' current prices
 *   422 invalid_state_error   insufficient_balance          Duffel  the account's balance cannot pay it
 *   POST /air/payments refusals (nothing is paid):
 *   422 validation_error      validation_required           fake    order_id, payment or one of its fields missing
 *   404 invalid_request_error not_found                     Duffel  the order is unknown or another account's / mode's
 *   422 validation_error      order_type_not_eligible_for_payment  Duffel  the order is not a hold
 *   422 invalid_state_error   already_paid                  fake    the hold was paid already
 *   422 invalid_state_error   order_cancelled               fake    the hold was released (or the order cancelled)
 *   422 validation_error      unsupported_payment_type, invalid_payment_currency  fake  as above
 *   422 validation_error      price_changed                 Duffel  the amount is not the order's total_amount
 *   422 invalid_state_error   insufficient_balance          Duffel  the account's balance cannot pay it
 *   Scenario switches:
 *   429 rate_limit_error      rate_limit_exceeded           Duffel  `ratelimit-limit`, `ratelimit-remaining: 0`,
 *                                                                   `ratelimit-reset` (an HTTP date), and `Retry-After`
 *                                                                   only when asked (`withRetryAfter`)
 *   500 api_error             internal_server_error         fake
 *   502 api_error             bad_gateway                   fake
 *   503 api_error             service_unavailable           fake
 *   504 api_error             gateway_timeout_error         Duffel
 *   502 airline_error         airline_error, airline_unknown Duffel the airline failed, or failed in a way Duffel
 *                                                                   does not know (`airlineError`)
 *   502/503/504 (no envelope) an HTML error page, `content-type: text/html`, as the load balancer in front of
 *                             Duffel answers when Duffel is not reached (`htmlError`)
 *   `slow({ ms })` delays the matching requests before the fake takes them (a slow airline; a purchase that
 *   lands late), and `timeout` never answers them.
 *
 * Duffel's test mode has an unlimited balance; the fake keeps a finite one per token (10000.00 GBP unless
 * told otherwise) so that a test can see what a purchase debited, and whether a retried job paid twice.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHash, randomBytes } from 'node:crypto'
import { offsetAt } from '../../../core/domain/airports.ts'
import type { Duffel } from '@duffel/api'
import type {
  Aircraft,
  Airline,
  Airport,
  ApiResponseError,
  ApiResponseMeta,
  CabinClass,
  Offer,
  OfferAvailableServiceBaggage,
  OfferAvailableServiceCFAR,
  OfferAvailableServiceSeat,
  OfferPassenger,
  OfferSlice,
  OfferSliceSegment,
  Order,
  OrderAvailableService,
  OrderPassenger,
  OrderService,
  OrderSlice,
  OrderSliceSegment,
  OrderSegmentPassenger,
  PassengerType,
  SeatMap,
  SeatMapCabin,
  SeatMapCabinRow,
  SeatMapCabinRowSection,
  SeatMapCabinRowSectionAvailableService,
  SeatMapCabinRowSectionElement,
  SeatMapCabinRowSectionElementSeat,
  SeatMapElementType,
  AddServices,
  OfferAvailableService,
  OfferAvailableServiceBaggageMetadata,
  WireCity,
  WireAirport,
  WireCityPlace,
  WirePlace,
  WireSegmentConditions,
  WireSegmentPassenger,
  WireSegment,
  WireSlice,
  WireOfferPassenger,
  WireOffer,
  WireOfferAnswer,
  ListedOffer,
  WireOrderSegment,
  WireOrderSlice,
  WireOrder,
} from '../../../server/suppliers/duffel/types.ts'

// Duffel's types, as the adapter reads them (server/suppliers/duffel/types.ts), for the tests that build data.
export type {
  Aircraft,
  Airline,
  Airport,
  ApiResponseError,
  ApiResponseMeta,
  Offer,
  OfferAvailableService,
  OfferAvailableServiceBaggage,
  OfferAvailableServiceBaggageMetadata,
  OfferAvailableServiceCFAR,
  OfferAvailableServiceSeat,
  OfferPassenger,
  OfferSlice,
  OfferSliceSegment,
  Order,
  OrderAvailableService,
  OrderPassenger,
  OrderService,
  OrderSlice,
  OrderSliceSegment,
  OrderSegmentPassenger,
  PassengerType,
  SeatMap,
  SeatMapCabin,
  SeatMapCabinRow,
  SeatMapCabinRowSectionAvailableService,
  SeatMapCabinRowSectionElement,
  SeatMapCabinRowSectionElementSeat,
  AddServices,
  WireCity,
  WireAirport,
  WireCityPlace,
  WirePlace,
  WireSegmentConditions,
  WireSegmentPassenger,
  WireSegment,
  WireSlice,
  WireOfferPassenger,
  WireOffer,
  WireOfferAnswer,
  ListedOffer,
  WireOrderSegment,
  WireOrderSlice,
  WireOrder,
}

type DataOf<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>> extends { data: infer D } ? D : never

// Duffel's shapes of the seller's side (search, booking, payment), read off the client's method signatures
// as server/suppliers/duffel/types.ts reads the adapter's (the adapter never searches, books nor pays).
export type CreateOfferRequest = Parameters<Duffel['offerRequests']['create']>[0]
export type CreateOrder = Parameters<Duffel['orders']['create']>[0]
export type CreateOrderPassenger = CreateOrder['passengers'][number]
/** A search's passenger as Duffel answers it: `type` null and `age` set for one searched by age. */
export interface OfferRequestPassenger {
  id: string
  type: PassengerType | null
  age: number | null
  given_name: string | null
  family_name: string | null
  fare_type: null
  loyalty_programme_accounts: []
}
/** What POST /air/offer_requests answers: `cabin_class` null when the search named none. */
export interface OfferRequest {
  id: string
  live_mode: boolean
  created_at: string
  cabin_class: CabinClass | null
  /** A key for Duffel's own browser components; opaque. */
  client_key: string
  slices: Array<{
    origin: WirePlace
    origin_type: WirePlace['type']
    destination: WirePlace
    destination_type: WirePlace['type']
    departure_date: string
  }>
  passengers: OfferRequestPassenger[]
  offers?: ListedOffer[]
}
/** What POST /air/payments answers. */
export type Payment = DataOf<Duffel['payments']['create']> & { live_mode: boolean }

/** The error envelope of every refusal. */
export interface DuffelErrorEnvelope {
  errors: Array<ApiResponseError & { source?: ErrorSource }>
  meta: ApiResponseMeta
}
/** Which request field an error is about: its name and a JSON pointer into `data`. */
export interface ErrorSource {
  field: string
  pointer: string
}
/** The pagination of list answers as Duffel sends it (the package's type has no `null` for `before`). */
export interface ListMeta {
  limit: number
  before: string | null
  after: string | null
}

// ---------------------------------------------------------------------------------------------------------
// The control API
// ---------------------------------------------------------------------------------------------------------

/** One segment of an offer to build; times are local at the airport (Duffel's way), or carry an offset. */
export interface SegmentInput {
  origin: string
  destination: string
  departing_at: string
  arriving_at: string
  marketing_carrier: string
  flight_number: string
  operating_carrier?: string
  /** IATA aircraft code; by default a wide-body on long flights (over 3500 km), else an A320; null (the default of a sparse offer): not stated. */
  aircraft?: string | null
  cabin_class?: CabinClass
  /**
   * Where the flight lands and takes off again without a change of flight (Duffel's `stops`), in order;
   * times as the segment's (local at the stop's airport, or with an offset). Default none.
   */
  stops?: StopInput[]
}

/** A stop within a segment: its airport and times (local there, or with an offset). */
export interface StopInput {
  airport: string
  arriving_at: string
  departing_at: string
}

/**
 * A kind of extra bag the offer sells. Duffel sells baggage per passenger: one service covers a whole slice
 * (`scope: 'slice'`, as British Airways and Austrian do), one segment (`'segment'`, one service each), or
 * the whole trip, every segment of every slice (`'trip'`, as easyJet does).
 */
export interface BagSpec {
  type: 'checked' | 'carry_on'
  /** Price of one unit, a decimal string in the offer's currency ("45.00"; "4500" in JPY). */
  total_amount: string
  maximum_quantity?: number
  /** `null`: the airline does not state a weight. */
  maximum_weight_kg?: number | null
  /** `null` (the default): the airline does not state dimensions. */
  dimensions?: { length: number; height: number; depth: number } | null
  scope?: 'slice' | 'segment' | 'trip'
  /** Who may buy it (default adults and children; Duffel sells infants without a seat no bags here). */
  passenger_types?: PassengerType[]
}

/** A passenger of an offer: by type, or by age (then Duffel answers `type: null` with the age). */
export type PassengerInput = ({ type: PassengerType } | { age: number }) & {
  id?: string
  given_name?: string
  family_name?: string
}

export interface AddOfferInput {
  /** The account (token) the offer belongs to: its prefix sets the mode. Default: the fake's test token. */
  token?: string
  id?: string
  passengers: PassengerInput[]
  slices: Array<{ segments: SegmentInput[] }>
  /** Default: 30 minutes after the fake's now, as Duffel's offers. */
  expires_at?: string
  /** Default GBP. Amounts are written in the currency's places ("4500" in JPY). */
  currency?: string
  /** Extra bags for sale: `'none'`, or the list (replacing the airline's default list, see `defaultBags`). */
  bags?: 'none' | BagSpec[]
  /**
   * Whether the fare states the bags it includes (default true: a cabin bag and no hold bag per passenger with
   * a seat, in each segment passenger's `baggages`); false: `baggages: []` for every passenger on every segment.
   */
  includedBags?: boolean
  /** Whether the segments have seat maps (default true). Without, GET /air/seat_maps answers `[]`. */
  seats?: boolean
  /** Whether the offer also lists its seats as services (`type: 'seat'`, the seat maps' ids), as some airlines do. Default false. */
  seatServices?: boolean
  /** Whether it sells cancel-for-any-reason (one `cfa_…` service for every passenger). Default true. */
  cfar?: boolean
  /** Whether the seat maps draw the wings (default true; false: `wings: null`, as some recorded maps). */
  wings?: boolean
  /**
   * An airline that states little: no aircraft, distance, terminals, fare basis, logos, fare brand, NGS shelf,
   * nor conditions (null), and `partial: null`. Default: for easyJet (U2) only, as its recorded offer.
   */
  sparse?: boolean
  /** `payment_requirements.requires_instant_payment` (then no hold). Default: as `sparse`, a low-cost carrier's. */
  requiresInstantPayment?: boolean
}

export interface BookOrderOptions {
  /** The airline's record locator; default six random letters and digits. */
  booking_reference?: string
  /** The offer's services booked with the order (`ase_…` of its bags or its seats); none with `hold`. */
  services?: Array<string | { id: string; quantity?: number }>
  /** Whether the order still sells bags after booking (`aso_…`). Default: only a Duffel Airways (ZZ) order does. */
  postBookingBags?: boolean
  /** A hold order (`type: 'hold'`), unpaid until `payOrder` or POST /air/payments; the offer must not require instant payment. */
  hold?: boolean
  /** Whether the order's passengers carry their `type` (default true; Duffel's orders may carry none). */
  passengerTypes?: boolean
}

export interface FakeOffer {
  offer: WireOffer
  seatMaps: SeatMap[]
}
export interface FakeOrder {
  order: WireOrder
  availableServices: OrderAvailableService[]
}

export interface FakeRequest {
  method: string
  /** The path without its query. */
  path: string
  query: Record<string, string>
  /** The parsed JSON body (the raw text when it was not JSON; undefined when there was none). */
  body: unknown
  /** The bearer token, or null. */
  token: string | null
  at: string
  /** The status answered; null while unanswered, and for requests never answered (time-outs, lost responses). */
  status: number | null
}

/** Which requests a switch applies to: `'POST /air/orders/*\/services'` (`*`: one path segment), `'GET *'`, `'*'`, or a RegExp on `"METHOD /path"`. */
export type RequestPattern = string | RegExp
export interface SwitchOptions {
  /** How many matching requests the switch applies to (default: 1 for failures, unlimited for priceChange/gone). */
  times?: number
  /** Which requests (default: any, except lostResponseAfterPurchase: `POST /air/orders/*\/services`). */
  match?: RequestPattern
}

export interface FakeDuffel {
  /** e.g. http://127.0.0.1:41234 (what DUFFEL_API_URL points at). */
  readonly url: string
  /** A test-mode token the fake knows from the start, the builders' default account. */
  readonly token: string
  /** Every request received, in order (refused ones too). */
  readonly requests: readonly FakeRequest[]
  close(): Promise<void>
  /**
   * Makes a token known (`duffel_test_…` or `duffel_live_…`), with its balance (default 10000.00 GBP; again:
   * resets it). `{ balance: '0.00' }` makes every purchase of the account `insufficient_balance`.
   */
  addToken(token: string, opts?: { balance?: string; currency?: string }): void
  addOffer(input: AddOfferInput): FakeOffer
  /** An order of the offer, as the seller's booking makes it; the offer counts as booked (POST /air/orders refuses it). Pays nothing. */
  bookOrder(offerId: string, opts?: BookOrderOptions): FakeOrder
  /** Sets `cancelled_at` (the order then sells nothing more and refuses purchases). */
  cancelOrder(orderId: string): WireOrder
  /** Pays a hold order (as POST /air/payments, without debiting any balance): no longer awaiting payment, `paid_at` set, tickets issued. */
  payOrder(orderId: string): WireOrder
  /** Releases an unpaid hold, as Duffel does when `payment_required_by` passes: the order is cancelled now. */
  releaseHold(orderId: string): WireOrder
  /** Current state, as the fake holds it (before any scenario switch). */
  offer(offerId: string): FakeOffer
  order(orderId: string): FakeOrder
  /** The fake's clock (offer expiry, hold release, timestamps); null returns to the real clock. */
  setNow(date: Date | string | number | null): void
  now(): Date
  balance(token: string): { amount: string; currency: string }
  clearRequests(): void
  /** The offer's or order's available service (a bag, a seat's service, a CFAR) now costs `newAmount`. */
  priceChange(serviceId: string, newAmount: string, opts?: SwitchOptions): void
  /** The service disappears from the offer, seat map or order's available services (and cannot be bought). */
  gone(serviceId: string, opts?: SwitchOptions): void
  /** 429 `rate_limit_exceeded`, `ratelimit-reset` `retryAfterSeconds` (default 1) from now; `Retry-After` only `withRetryAfter`. */
  rateLimited(opts?: SwitchOptions & { retryAfterSeconds?: number; withRetryAfter?: boolean }): void
  /** A 5xx `api_error` envelope (default 500). */
  serverError(opts?: SwitchOptions & { status?: 500 | 502 | 503 | 504 }): void
  /** A 502 `airline_error` envelope, of code `airline_error` (the default) or `airline_unknown`. */
  airlineError(opts?: SwitchOptions & { code?: 'airline_error' | 'airline_unknown' }): void
  /** An HTML error page (default 502) from the load balancer in front of Duffel: no JSON, no request id. */
  htmlError(opts?: SwitchOptions & { status?: 502 | 503 | 504 }): void
  /** The request is never answered (until close): the client's time-out must fire. */
  timeout(opts?: SwitchOptions): void
  /**
   * The request waits `ms` before the fake takes it (default every matching request): a slow airline. A
   * purchase then lands `ms` after it was sent, which is what a run racing it must not buy twice around.
   */
  slow(opts: SwitchOptions & { ms: number }): void
  /** The request is carried out (a purchase is added and paid), then its connection is destroyed unanswered. */
  lostResponseAfterPurchase(opts?: SwitchOptions): void
  /** Turns every scenario switch off (data, balances and the request log stay). */
  reset(): void
}

/** Every sellable seat (`type: 'seat'`) of some seat maps, with its segment: what a test picks a seat service from. */
export function seatsOf(seatMaps: SeatMap[]): Array<{ segment_id: string; seat: SeatMapCabinRowSectionElementSeat }> {
  return seatMaps.flatMap((map) =>
    map.cabins.flatMap((cabin) =>
      cabin.rows.flatMap((row) =>
        row.sections.flatMap((section) =>
          section.elements.filter(isSeat).map((seat) => ({ segment_id: map.segment_id, seat })),
        ),
      ),
    ),
  )
}

/** The extra bags an airline sells when the offer says nothing: see `addOffer`'s `bags`. Amounts in `currency`'s places. */
export function defaultBags(carrier: string, currency = DEFAULT_CURRENCY): BagSpec[] {
  const amount = (minor: bigint) => fromMinor(minor, currency)
  // easyJet states no weight for its hold bag (the airline's "up to 23 kg" is not in its data either), and
  // sells a bag for the whole trip, every flight of both ways: the case of a bag with neither weight nor
  // size, and of services that span slices.
  if (carrier === 'U2') {
    return [
      {
        type: 'checked',
        total_amount: amount(3999n),
        maximum_quantity: 3,
        maximum_weight_kg: null,
        dimensions: null,
        scope: 'trip',
      },
      {
        type: 'carry_on',
        total_amount: amount(1299n),
        maximum_quantity: 1,
        maximum_weight_kg: 15,
        dimensions: { length: 56, height: 45, depth: 25 },
        scope: 'trip',
      },
    ]
  }
  return [
    {
      type: 'checked',
      total_amount: amount(4500n),
      maximum_quantity: 2,
      maximum_weight_kg: 23,
      dimensions: null,
      scope: 'slice',
    },
    {
      type: 'carry_on',
      total_amount: amount(1500n),
      maximum_quantity: 1,
      maximum_weight_kg: 10,
      dimensions: { length: 56, height: 45, depth: 25 },
      scope: 'slice',
    },
  ]
}

const DEFAULT_TOKEN_PREFIX = 'duffel_test_fake_'
const DEFAULT_BALANCE = '10000.00'
const DEFAULT_CURRENCY = 'GBP'
const DOCS = 'https://duffel.com/docs/api/overview/errors'

export async function startFakeDuffel(opts: { port?: number; log?: (line: string) => void } = {}): Promise<FakeDuffel> {
  const fake = new Fake(opts.log)
  await fake.listen(opts.port ?? 0)
  return fake
}

// ---------------------------------------------------------------------------------------------------------
// Reference data (public facts: names, codes, positions, time zones)
// ---------------------------------------------------------------------------------------------------------

interface AirportFact {
  name: string
  city: string
  country: string
  icao: string
  lat: number
  lon: number
  tz: string
  metro?: [string, string]
  terminal?: string
}
const AIRPORTS: Record<string, AirportFact> = {
  LHR: {
    name: 'Heathrow Airport',
    city: 'London',
    country: 'GB',
    icao: 'EGLL',
    lat: 51.470022,
    lon: -0.454295,
    tz: 'Europe/London',
    metro: ['LON', 'London'],
    terminal: '5',
  },
  LGW: {
    name: 'Gatwick Airport',
    city: 'London',
    country: 'GB',
    icao: 'EGKK',
    lat: 51.153662,
    lon: -0.182063,
    tz: 'Europe/London',
    metro: ['LON', 'London'],
    terminal: 'S',
  },
  MAN: {
    name: 'Manchester Airport',
    city: 'Manchester',
    country: 'GB',
    icao: 'EGCC',
    lat: 53.353744,
    lon: -2.27495,
    tz: 'Europe/London',
  },
  EDI: {
    name: 'Edinburgh Airport',
    city: 'Edinburgh',
    country: 'GB',
    icao: 'EGPH',
    lat: 55.950145,
    lon: -3.372288,
    tz: 'Europe/London',
  },
  DUB: {
    name: 'Dublin Airport',
    city: 'Dublin',
    country: 'IE',
    icao: 'EIDW',
    lat: 53.42128,
    lon: -6.270075,
    tz: 'Europe/Dublin',
    terminal: '2',
  },
  CDG: {
    name: 'Paris Charles de Gaulle Airport',
    city: 'Paris',
    country: 'FR',
    icao: 'LFPG',
    lat: 49.009691,
    lon: 2.547925,
    tz: 'Europe/Paris',
    metro: ['PAR', 'Paris'],
    terminal: '2E',
  },
  AMS: {
    name: 'Amsterdam Airport Schiphol',
    city: 'Amsterdam',
    country: 'NL',
    icao: 'EHAM',
    lat: 52.310539,
    lon: 4.768274,
    tz: 'Europe/Amsterdam',
  },
  FRA: {
    name: 'Frankfurt Airport',
    city: 'Frankfurt',
    country: 'DE',
    icao: 'EDDF',
    lat: 50.037933,
    lon: 8.562152,
    tz: 'Europe/Berlin',
    terminal: '1',
  },
  MAD: {
    name: 'Adolfo Suárez Madrid–Barajas Airport',
    city: 'Madrid',
    country: 'ES',
    icao: 'LEMD',
    lat: 40.498318,
    lon: -3.567598,
    tz: 'Europe/Madrid',
    terminal: '4',
  },
  BCN: {
    name: 'Barcelona–El Prat Airport',
    city: 'Barcelona',
    country: 'ES',
    icao: 'LEBL',
    lat: 41.297445,
    lon: 2.083294,
    tz: 'Europe/Madrid',
    terminal: '1',
  },
  DXB: {
    name: 'Dubai International Airport',
    city: 'Dubai',
    country: 'AE',
    icao: 'OMDB',
    lat: 25.253174,
    lon: 55.365673,
    tz: 'Asia/Dubai',
    terminal: '3',
  },
  JFK: {
    name: 'John F. Kennedy International Airport',
    city: 'New York',
    country: 'US',
    icao: 'KJFK',
    lat: 40.641311,
    lon: -73.778139,
    tz: 'America/New_York',
    metro: ['NYC', 'New York'],
    terminal: '8',
  },
  BOS: {
    name: 'Logan International Airport',
    city: 'Boston',
    country: 'US',
    icao: 'KBOS',
    lat: 42.365613,
    lon: -71.00956,
    tz: 'America/New_York',
    terminal: 'E',
  },
  LAX: {
    name: 'Los Angeles International Airport',
    city: 'Los Angeles',
    country: 'US',
    icao: 'KLAX',
    lat: 33.941589,
    lon: -118.40853,
    tz: 'America/Los_Angeles',
    terminal: 'B',
  },
  // The airports of Duffel's test-mode routes (TEST_ROUTES), and Istanbul, where the Has Stops flight stops.
  STN: {
    name: 'London Stansted Airport',
    city: 'London',
    country: 'GB',
    icao: 'EGSS',
    lat: 51.885,
    lon: 0.235,
    tz: 'Europe/London',
    metro: ['LON', 'London'],
  },
  EWR: {
    name: 'Newark Liberty International Airport',
    city: 'New York',
    country: 'US',
    icao: 'KEWR',
    lat: 40.6925,
    lon: -74.168701,
    tz: 'America/New_York',
    metro: ['NYC', 'New York'],
  },
  PVD: {
    name: 'Rhode Island T. F. Green International Airport',
    city: 'Providence',
    country: 'US',
    icao: 'KPVD',
    lat: 41.732601,
    lon: -71.420403,
    tz: 'America/New_York',
  },
  RAI: {
    name: 'Praia Nelson Mandela International Airport',
    city: 'Praia',
    country: 'CV',
    icao: 'GVNP',
    lat: 14.9245,
    lon: -23.4935,
    tz: 'Atlantic/Cape_Verde',
  },
  BTS: {
    name: 'Bratislava M. R. Štefánik Airport',
    city: 'Bratislava',
    country: 'SK',
    icao: 'LZIB',
    lat: 48.1702,
    lon: 17.2127,
    tz: 'Europe/Bratislava',
  },
  MRU: {
    name: 'Sir Seewoosagur Ramgoolam International Airport',
    city: 'Plaine Magnien',
    country: 'MU',
    icao: 'FIMP',
    lat: -20.430201,
    lon: 57.683601,
    tz: 'Indian/Mauritius',
  },
  IST: {
    name: 'Istanbul Airport',
    city: 'Istanbul',
    country: 'TR',
    icao: 'LTFM',
    lat: 41.275278,
    lon: 28.751944,
    tz: 'Europe/Istanbul',
    metro: ['IST', 'Istanbul'],
  },
}
const AIRLINES: Record<string, string> = {
  BA: 'British Airways',
  AA: 'American Airlines',
  IB: 'Iberia',
  U2: 'easyJet',
  ZZ: 'Duffel Airways',
  LH: 'Lufthansa',
  AF: 'Air France',
  KL: 'KLM',
  VS: 'Virgin Atlantic',
  EI: 'Aer Lingus',
  EK: 'Emirates',
  OS: 'Austrian',
  JL: 'Japan Airlines',
}
/** Airlines whose offers state little (see `AddOfferInput.sparse`): Duffel's recording of an easyJet offer. */
const SPARSE = new Set(['U2'])
/** Duffel's own test airline: the one that sells bags after booking, refunds with a penalty, and sells CFAR for the return only. */
const DUFFEL_AIRWAYS = 'ZZ'
const AIRCRAFT: Record<string, string> = {
  '320': 'Airbus A320',
  '319': 'Airbus A319',
  '321': 'Airbus A321',
  '32N': 'Airbus A320neo',
  '388': 'Airbus A380-800',
  '359': 'Airbus A350-900',
  '77W': 'Boeing 777-300ER',
  '789': 'Boeing 787-9',
  '738': 'Boeing 737-800',
}
const WIDE_BODY = new Set(['388', '359', '77W', '789'])

/** Invented travellers, given to an order's passengers in turn (given, family, gender, title). */
const NAMES: Record<PassengerType, Array<[string, string, 'm' | 'f', OrderPassenger['title']]>> = {
  adult: [
    ['Maren', 'Holt', 'f', 'ms'],
    ['Idris', 'Okafor', 'm', 'mr'],
    ['Lena', 'Varga', 'f', 'mrs'],
    ['Tomas', 'Reyes', 'm', 'mr'],
    ['Priya', 'Nair', 'f', 'dr'],
    ['Noah', 'Lindqvist', 'm', 'mr'],
  ],
  child: [
    ['Ada', 'Holt', 'f', 'miss'],
    ['Felix', 'Okafor', 'm', 'mr'],
    ['Suvi', 'Lindqvist', 'f', 'miss'],
  ],
  infant_without_seat: [
    ['Milo', 'Holt', 'm', 'mr'],
    ['Iris', 'Varga', 'f', 'miss'],
  ],
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers: ids, money, time
// ---------------------------------------------------------------------------------------------------------

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const base62 = (bytes: Uint8Array, n: number) => Array.from(bytes.subarray(0, n), (b) => BASE62[b % 62]).join('')
/** Duffel's id shape: a prefix and 22 characters. Random, so two fakes (or two runs) never share an id. */
const newId = (prefix: string) => `${prefix}_0000${base62(randomBytes(18), 18)}`
/** Reference data keeps one id per code, like Duffel's airlines and aircraft. */
const stableId = (prefix: string, seed: string) =>
  `${prefix}_0000${base62(createHash('sha256').update(seed).digest(), 18)}`
const newRequestId = () => base62(randomBytes(20), 20)
const newReference = () => Array.from(randomBytes(6), (b) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[b % 32]).join('')

/** Currencies whose minor unit is not the cent. */
const EXPONENT: Record<string, number> = {
  JPY: 0,
  KRW: 0,
  ISK: 0,
  CLP: 0,
  VND: 0,
  BHD: 3,
  KWD: 3,
  OMR: 3,
  JOD: 3,
  TND: 3,
}
const places = (currency: string) => EXPONENT[currency] ?? 2
/** A decimal string in minor units (bigint: amounts are summed and compared exactly); null when malformed. */
function toMinor(amount: unknown, currency: string): bigint | null {
  if (typeof amount !== 'string') return null
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim())
  if (!m) return null
  const p = places(currency)
  const frac = m[2] ?? ''
  if (frac.length > p) return null
  return BigInt(m[1]!) * 10n ** BigInt(p) + BigInt((frac + '0'.repeat(p)).slice(0, p) || '0')
}
function fromMinor(minor: bigint, currency: string): string {
  const p = places(currency)
  const sign = minor < 0n ? '-' : ''
  const abs = minor < 0n ? -minor : minor
  if (p === 0) return `${sign}${abs}`
  const s = abs.toString().padStart(p + 1, '0')
  return `${sign}${s.slice(0, -p)}.${s.slice(-p)}`
}
function mustMinor(amount: string, currency: string, what: string): bigint {
  const m = toMinor(amount, currency)
  if (m === null) throw new Error(`${what}: "${amount}" is not a decimal amount in ${currency}`)
  return m
}
/**
 * A seat's price as Duffel passes it on from the airline: one decimal fewer when the last is a zero ("16.0"
 * GBP, as the recorded Duffel Airways map's "20.0"), so that a reader cannot assume the currency's places.
 */
function seatAmount(minor: bigint, currency: string): string {
  const text = fromMinor(minor, currency)
  return places(currency) >= 2 && text.endsWith('0') ? text.slice(0, -1) : text
}
/** A share of an amount, rounded to the minor unit. */
const percentOf = (minor: bigint, percent: bigint) => (minor * percent + 50n) / 100n

/** The time zone's offset from UTC at an instant, in ms (Duffel's times are local at the airport, without offset). */
const offsetMs = (utcMs: number, tz: string): number => offsetAt(tz, utcMs) * 60_000
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/
/** A segment time as Duffel writes it (local, no offset) and its instant. */
function localTime(input: string, tz: string, what: string): { local: string; utc: number } {
  if (LOCAL.test(input)) {
    const local = input.length === 16 ? `${input}:00` : input
    const naive = Date.parse(`${local}Z`)
    return { local, utc: naive - offsetMs(naive - offsetMs(naive, tz), tz) }
  }
  const utc = Date.parse(input)
  if (Number.isNaN(utc)) throw new Error(`${what}: "${input}" is not an ISO 8601 time`)
  return { local: new Date(utc + offsetMs(utc, tz)).toISOString().slice(0, 19), utc }
}
/** Duffel writes durations as "PT07H55M". */
function duration(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60000))
  const days = Math.floor(minutes / 1440)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `P${days ? `${days}D` : ''}T${pad(Math.floor((minutes % 1440) / 60))}H${pad(minutes % 60)}M`
}
function distanceKm(a: AirportFact, b: AirportFact): number {
  const rad = (d: number) => (d * Math.PI) / 180
  const h =
    Math.sin(rad(b.lat - a.lat) / 2) ** 2 +
    Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lon - a.lon) / 2) ** 2
  return 2 * 6371 * Math.asin(Math.sqrt(h))
}
/** Long-haul: a wide-body's distance, and one easyJet does not fly. */
const LONG_HAUL_KM = 3500

/** The passenger type a passenger searched by age travels as (Duffel's bands: under 2 on a lap, under 18 a child). */
const typeOfAge = (age: number): PassengerType => (age < 2 ? 'infant_without_seat' : age < 18 ? 'child' : 'adult')
/** What a passenger travels as, whether the offer names its type or only its age. */
const kindOf = (p: { type: PassengerType | null; age: number | null }): PassengerType =>
  p.type ?? (p.age === null ? 'adult' : typeOfAge(p.age))

function cityOf(a: AirportFact): WireCity | null {
  if (!a.metro) return null
  const [iata, name] = a.metro
  return {
    id: `cit_${iata.toLowerCase()}_${a.country.toLowerCase()}`,
    type: 'city',
    iata_code: iata,
    iata_city_code: iata,
    iata_country_code: a.country,
    name,
    city_name: null,
    icao_code: null,
    latitude: null,
    longitude: null,
    time_zone: null,
  }
}
function airportOf(code: string): WireAirport {
  const a = AIRPORTS[code]
  if (!a) {
    // An airport the table does not know still gets Duffel's shape: tests may fly anywhere.
    return {
      id: `arp_${code.toLowerCase()}_zz`,
      type: 'airport',
      iata_code: code,
      icao_code: '',
      name: `${code} Airport`,
      city_name: code,
      iata_country_code: 'ZZ',
      iata_city_code: code,
      city: null,
      airports: null,
      latitude: 0,
      longitude: 0,
      time_zone: 'UTC',
    }
  }
  return {
    id: `arp_${code.toLowerCase()}_${a.country.toLowerCase()}`,
    type: 'airport',
    iata_code: code,
    icao_code: a.icao,
    name: a.name,
    city_name: a.city,
    // An airport of no metropolitan area is its own city, by IATA's code.
    iata_country_code: a.country,
    iata_city_code: a.metro?.[0] ?? code,
    city: cityOf(a),
    airports: null,
    latitude: a.lat,
    longitude: a.lon,
    time_zone: a.tz,
  }
}
function airlineOf(code: string, sparse: boolean): Airline {
  return {
    id: stableId('aln', code),
    name: AIRLINES[code] ?? `Airline ${code}`,
    iata_code: code,
    logo_symbol_url: sparse
      ? null
      : `https://assets.duffel.com/img/airlines/for-light-background/full-color-logo/${code}.svg`,
    logo_lockup_url: sparse
      ? null
      : `https://assets.duffel.com/img/airlines/for-light-background/full-color-lockup/${code}.svg`,
    // Duffel Airways is Duffel's test airline: it has no conditions of carriage to link to.
    conditions_of_carriage_url:
      code === DUFFEL_AIRWAYS ? null : `https://conditions-of-carriage.example/${code.toLowerCase()}`,
  }
}
const aircraftOf = (code: string): Aircraft => ({
  id: stableId('arc', code),
  iata_code: code,
  name: AIRCRAFT[code] ?? `Aircraft ${code}`,
})

/**
 * What a search names (POST /air/offer_requests): an airport of the table, or a city of its airports
 * (LON, NYC, PAR), flown from its first airport. Null for a code the fake does not know: a search, unlike
 * the builders, cannot fly anywhere, for it must draw real distances and time zones.
 */
function placeOf(code: string): { place: WirePlace; airport: string } | null {
  if (AIRPORTS[code]) return { place: airportOf(code), airport: code }
  const airports = Object.keys(AIRPORTS).filter((c) => AIRPORTS[c]!.metro?.[0] === code)
  const first = airports[0] ? AIRPORTS[airports[0]]! : undefined
  const city = first ? cityOf(first) : null
  if (!city) return null
  return {
    place: {
      ...city,
      airports: airports.map((c) => {
        const { city: _city, airports: _airports, ...listed } = airportOf(c)
        return listed
      }),
      city: null,
    },
    airport: airports[0]!,
  }
}
/**
 * The airlines a search finds, and the departures each may fly a slice at (local at the origin, "HH:MM"):
 * the first whose arrival is local daytime (06:00 to 23:30), as an eastbound Atlantic crossing leaves at night.
 * easyJet flies short-haul only.
 */
const SEARCH_CARRIERS: Array<{ carrier: string; times: string[]; shortHaulOnly?: boolean }> = [
  { carrier: 'ZZ', times: ['08:45', '10:30', '18:40', '21:50'] },
  { carrier: 'BA', times: ['13:20', '16:05', '19:10', '22:35'] },
  { carrier: 'U2', times: ['06:55', '11:40', '17:25'], shortHaulOnly: true },
]
/**
 * Duffel's test-mode routes (see the header), by the first slice's origin and destination as the search
 * names them: what each makes of the search. `via`: the hub a slice on the route (or its reverse) connects
 * at; `stop`: the airport its flight stops at.
 */
export type TestRoute =
  | { name: 'No Flights'; offers: 'none' }
  | { name: 'Hold Orders'; hold: true }
  | { name: 'Connecting Flights'; via: string }
  | { name: 'No Segment Passenger Baggages'; bags: 'none' }
  | { name: 'Timeout'; unanswered: true }
  | { name: 'Has Stops'; stop: string }
export const TEST_ROUTES: Readonly<Record<string, TestRoute>> = {
  'PVD-RAI': { name: 'No Flights', offers: 'none' },
  'JFK-EWR': { name: 'Hold Orders', hold: true },
  'LHR-DXB': { name: 'Connecting Flights', via: 'FRA' },
  'BTS-MRU': { name: 'No Segment Passenger Baggages', bags: 'none' },
  'STN-LHR': { name: 'Timeout', unanswered: true },
  'DXB-AMS': { name: 'Has Stops', stop: 'IST' },
}
/** The connecting and stopping flights of TEST_ROUTES: time on the ground at the hub, and at the stop. */
const CONNECTION_MS = 90 * 60_000
const STOP_MS = 60 * 60_000
/** A flight number that stays the same for a carrier on a route (as a timetable's). */
const flightNumber = (carrier: string, from: string, to: string) =>
  String(100 + (createHash('sha256').update(`${carrier}${from}${to}`).digest().readUInt16BE(0) % 900))
/** Block time: the distance at 820 km/h, plus half an hour on the ground, to the next 5 minutes. */
const blockMs = (from: string, to: string) =>
  Math.ceil(((distanceKm(AIRPORTS[from]!, AIRPORTS[to]!) / 820) * 60 + 30) / 5) * 5 * 60_000
/** An instant as ISO 8601 (what SegmentInput takes besides local times). */
const isoAt = (ms: number) => new Date(ms).toISOString()
/**
 * A searched slice flown by `carrier` on `date`: at the first of its `times` (local at the origin, "HH:MM")
 * whose arrival is local daytime (06:00 to 23:30), else the first. Direct, unless a test route shapes it:
 * `via` a hub (two segments, CONNECTION_MS apart), or with a `stop` (one segment landing there for STOP_MS).
 */
function searchSlice(
  carrier: string,
  times: string[],
  from: string,
  to: string,
  date: string,
  cabin: CabinClass,
  shape: { via?: string; stop?: string } = {},
): { segments: SegmentInput[] } {
  const legs = shape.via
    ? [
        [from, shape.via],
        [shape.via, to],
      ]
    : shape.stop
      ? [
          [from, shape.stop],
          [shape.stop, to],
        ]
      : [[from, to]]
  const flights = times.map((time) => {
    const departing = `${date}T${time}:00`
    // Each leg's departure and arrival instants, the next leg leaving after the time on the ground.
    const spans: Array<[number, number]> = []
    let at = localTime(departing, AIRPORTS[from]!.tz, 'search').utc
    for (const [a, b] of legs) {
      if (spans.length > 0) at += shape.via ? CONNECTION_MS : STOP_MS
      spans.push([at, at + blockMs(a!, b!)])
      at += blockMs(a!, b!)
    }
    const local = new Date(at + offsetMs(at, AIRPORTS[to]!.tz)).toISOString().slice(11, 16)
    return { departing, spans, daytime: local >= '06:00' && local <= '23:30' }
  })
  const { departing, spans: legTimes } = flights.find((f) => f.daytime) ?? flights[0]!
  const segment = (a: string, b: string, dep: string, arr: number): SegmentInput => ({
    origin: a,
    destination: b,
    departing_at: dep,
    arriving_at: isoAt(arr),
    marketing_carrier: carrier,
    flight_number: flightNumber(carrier, a, b),
    cabin_class: cabin,
  })
  if (shape.via) {
    return {
      segments: [
        segment(from, shape.via, departing, legTimes[0]![1]),
        segment(shape.via, to, isoAt(legTimes[1]![0]), legTimes[1]![1]),
      ],
    }
  }
  if (shape.stop) {
    // One flight, one number, from end to end: it lands at the stop and takes off again.
    const stops = [{ airport: shape.stop, arriving_at: isoAt(legTimes[0]![1]), departing_at: isoAt(legTimes[1]![0]) }]
    return { segments: [{ ...segment(from, to, departing, legTimes[1]![1]), stops }] }
  }
  return { segments: [segment(from, to, departing, legTimes[0]![1])] }
}
const CABINS: readonly CabinClass[] = ['economy', 'premium_economy', 'business', 'first']
const TITLES: ReadonlyArray<OrderPassenger['title']> = ['mr', 'ms', 'mrs', 'miss', 'dr']
const DATE = /^\d{4}-\d{2}-\d{2}$/
/** A calendar date (YYYY-MM-DD) that exists. */
function isDate(v: unknown): v is string {
  if (typeof v !== 'string' || !DATE.test(v)) return false
  const ms = Date.parse(`${v}T00:00:00Z`)
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === v
}

/** Fare and tax per passenger and slice, in minor units of the offer's currency (Duffel states the tax apart on an offer, not on its services). */
const FARE: Record<PassengerType, [bigint, bigint]> = {
  adult: [31200n, 9640n],
  child: [24800n, 9640n],
  infant_without_seat: [4200n, 2110n],
}
/** What changing or refunding costs, in minor units. */
const CHANGE_PENALTY = 6500n
const REFUND_PENALTY = 9000n
/** Cancel-for-any-reason: its price and what it refunds, as shares of the offer's total. */
const CFAR_PRICE_PERCENT = 12n
const CFAR_REFUND_PERCENT = 70n
const CFAR_COPY =
  'Cancel for any reason: cancel this booking up to 24 hours before departure, for any reason, and get back the refund amount shown. Sold by the fake Duffel for tests; no real cover.'

const isSeat = (e: SeatMapCabinRowSectionElement): e is SeatMapCabinRowSectionElementSeat => e.type === 'seat'
const clone = <T>(v: T): T => structuredClone(v)
/** An e-ticket per passenger: what an order has once paid for. */
const tickets = (passengers: OrderPassenger[]): NonNullable<Order['documents']> =>
  passengers.map((p) => ({
    type: 'electronic_ticket',
    passenger_ids: [p.id],
    unique_identifier: `125${Array.from(randomBytes(10), (b) => b % 10).join('')}`,
  }))

// ---------------------------------------------------------------------------------------------------------
// Seat maps
// ---------------------------------------------------------------------------------------------------------

const EXIT_ROW = 14
const FIRST_ROW = 10
const LAST_ROW = 19
/** Seats already taken (no service for anyone): a fixed set, so that tests can name an occupied seat. */
const OCCUPIED = new Set([
  '10A',
  '11E',
  '12B',
  '12C',
  '13F',
  '14F',
  '15D',
  '16A',
  '16B',
  '17E',
  '18F',
  '11G',
  '13J',
  '15H',
  '17K',
])
/** Seats Duffel draws but no one may choose (`restricted_seat_general`: no designator, no services), as recorded maps have many of. */
const RESTRICTED = new Set(['18C', '18D', '19A', '19C', '17G', '17H'])
const EXIT_DISCLOSURES = [
  'Passengers in this seat must be at least 16 years old.',
  'Passengers in this seat must be able and willing to assist in an emergency evacuation.',
]

/** An element with every key Duffel sends: a non-seat has no designator, name nor disclosures (null). */
const element = (
  type: SeatMapElementType,
  seat: Partial<Pick<SeatMapCabinRowSectionElement, 'designator' | 'name' | 'disclosures' | 'available_services'>> = {},
): SeatMapCabinRowSectionElement => ({
  id: newId('ele'),
  type,
  designator: null,
  name: null,
  disclosures: null,
  available_services: [],
  seat_characteristics: null,
  ...seat,
})
const section = (elements: SeatMapCabinRowSectionElement[]): SeatMapCabinRowSection => ({ id: newId('sec'), elements })
const row = (sections: SeatMapCabinRowSection[]): SeatMapCabinRow => ({ id: newId('row'), sections })

/**
 * One economy cabin of a few dozen seats, drawn as Duffel draws cabins: rows of sections (split by the
 * aisles) of elements, every row, section and element with an id. Galleys and lavatories at both ends, a
 * bassinet row at the bulkhead (bassinets line up with the seats of the row after), the exit as a row of
 * `exit_row` elements of its own before the exit seats (a wide-body's middle section empty: no door there),
 * wings over the middle rows (unless `wings` is false: `wings: null`), a narrower last row (an `empty` in place
 * of a seat) and some restricted seats. Prices (minor units): bulkhead 2800, exit 3400, middle 1600, back 1100,
 * and the last row free (0: some airlines give their worst seats away, and Duffel still sells them as
 * services), written as `seatAmount` writes them. Only the bulkhead and exit seats have a name. Exit seats
 * are sold to adults only (Duffel sells a seat per passenger, and not every seat to every passenger);
 * infants without a seat are sold none.
 */
function buildSeatMap(
  slice: WireSlice,
  segment: WireSegment,
  passengers: WireOfferPassenger[],
  currency: string,
  wings: boolean,
): SeatMap {
  const wide = WIDE_BODY.has(segment.aircraft?.iata_code ?? '')
  const layout = wide
    ? [
        ['A', 'B', 'C'],
        ['D', 'E', 'F', 'G'],
        ['H', 'J', 'K'],
      ]
    : [
        ['A', 'B', 'C'],
        ['D', 'E', 'F'],
      ]
  const seated = passengers.filter((p) => kindOf(p) !== 'infant_without_seat')
  const adults = seated.filter((p) => kindOf(p) === 'adult')
  const rows: SeatMapCabinRow[] = []
  const facilities = (kinds: Array<'lavatory' | 'galley' | 'closet'>): SeatMapCabinRow =>
    row(layout.map((_, i) => section([element(kinds[i % kinds.length]!)])))
  const seat = (n: number, column: string): SeatMapCabinRowSectionElement => {
    const designator = `${n}${column}`
    if (n === LAST_ROW && column === 'B') return element('empty')
    if (RESTRICTED.has(designator)) return element('restricted_seat_general')
    const exit = n === EXIT_ROW
    const [name, price] =
      n === FIRST_ROW
        ? ['Extra legroom seat', 2800n]
        : exit
          ? ['Exit row seat', 3400n]
          : n === LAST_ROW
            ? [null, 0n]
            : n >= 17
              ? [null, 1100n]
              : [null, 1600n]
    const buyers = OCCUPIED.has(designator) ? [] : exit ? adults : seated
    return element('seat', {
      designator,
      name,
      disclosures: exit ? [...EXIT_DISCLOSURES] : [],
      available_services: buyers.map((p) => ({
        id: newId('ase'),
        passenger_id: p.id,
        total_amount: seatAmount(price, currency),
        total_currency: currency,
      })),
    })
  }
  rows.push(facilities(wide ? ['lavatory', 'galley', 'lavatory'] : ['lavatory', 'galley']))
  rows.push(
    row(
      layout.map((cols, i) =>
        section(
          cols.map((_, j) =>
            element((i === 0 && j === 0) || (i === layout.length - 1 && j === cols.length - 1) ? 'bassinet' : 'empty'),
          ),
        ),
      ),
    ),
  )
  let wingFrom = 0
  let wingTo = 0
  for (let n = FIRST_ROW; n <= LAST_ROW; n++) {
    if (n === EXIT_ROW) rows.push(row(layout.map((_, i) => section(wide && i === 1 ? [] : [element('exit_row')]))))
    if (n === 13) wingFrom = rows.length
    if (n === 16) wingTo = rows.length
    rows.push(row(layout.map((cols) => section(cols.map((c) => seat(n, c))))))
  }
  rows.push(facilities(['galley', 'closet', 'lavatory']))
  return {
    id: newId('sea'),
    slice_id: slice.id,
    segment_id: segment.id,
    cabins: [
      {
        deck: 0,
        cabin_class: 'economy',
        aisles: layout.length - 1,
        wings: wings ? { first_row_index: wingFrom, last_row_index: wingTo } : null,
        rows,
      },
    ],
  }
}

// ---------------------------------------------------------------------------------------------------------
// The fake
// ---------------------------------------------------------------------------------------------------------

interface Account {
  live: boolean
  currency: string
  balance: bigint
}
/** `booked`: an order was made of it (by POST /air/orders or `bookOrder`); POST /air/orders refuses it then. */
interface OfferRecord {
  token: string
  offer: WireOffer
  seatMaps: SeatMap[]
  booked: boolean
}
interface AvailableRecord {
  service: OrderAvailableService
  remaining: number
}
interface OrderRecord {
  token: string
  offerId: string
  order: WireOrder
  available: AvailableRecord[]
  seq: number
}

type Failure =
  | { kind: 'timeout' }
  | { kind: 'rate'; retryAfterSeconds: number; withRetryAfter: boolean }
  | { kind: 'server'; status: 500 | 502 | 503 | 504 }
  | { kind: 'airline'; code: 'airline_error' | 'airline_unknown' }
  | { kind: 'html'; status: 502 | 503 | 504 }
  | { kind: 'lost' }
type Switch = { remaining: number; match: (method: string, path: string) => boolean } & (
  | Failure
  | { kind: 'price'; serviceId: string; amount: string }
  | { kind: 'gone'; serviceId: string }
  | { kind: 'slow'; ms: number }
)

/** What the switches in force for one request make of the services. */
interface View {
  price(id: string): string | undefined
  gone(id: string): boolean
}

/** Thrown by a route whose request Duffel never answers (the Timeout test route): the request is held, as by `timeout`. */
class Unanswered extends Error {}

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string,
    readonly title: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly source?: ErrorSource,
  ) {
    super(message)
  }
}
/** An id from the path; a malformed escape names nothing that exists. */
function pathId(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    throw notFound()
  }
}
const notFound = () =>
  new Refusal(
    404,
    'invalid_request_error',
    'not_found',
    'Not found',
    'The resource you are trying to access does not exist.',
  )
const invalid = (code: 'validation_required' | 'validation_format', message: string) =>
  new Refusal(
    422,
    'validation_error',
    code,
    code === 'validation_required' ? 'Required field' : 'Invalid field',
    message,
  )
const field = (name: string, pointer: string): ErrorSource => ({ field: name, pointer })
const orderCancelled = () =>
  new Refusal(
    422,
    'invalid_state_error',
    'order_cancelled',
    'Order cancelled',
    'This order was cancelled (or its hold released): it takes no services nor payments.',
  )
const insufficient = (account: Account, due: bigint, currency: string) =>
  new Refusal(
    422,
    'invalid_state_error',
    'insufficient_balance',
    'Insufficient balance',
    `Your balance of ${fromMinor(account.balance, account.currency)} ${account.currency} cannot pay ${fromMinor(due, currency)} ${currency}.`,
  )

const SERVER_ERRORS = {
  500: [
    'internal_server_error',
    'Internal server error',
    'Something went wrong. Please contact our support team and attach the request_id to your message.',
  ],
  502: [
    'bad_gateway',
    'Bad gateway',
    'Bad gateway error. Please contact our support team and attach the request_id to your message.',
  ],
  503: [
    'service_unavailable',
    'Service unavailable',
    'There is a temporary issue with the server. Please retry later.',
  ],
  504: ['gateway_timeout_error', 'Gateway timeout', 'Gateway timeout error. Please retry later.'],
} as const
const AIRLINE_ERRORS = {
  airline_error: [
    'Airline error',
    'The airline responded with an error. Please try again, or contact our support team and attach the request_id to your message.',
  ],
  airline_unknown: [
    'Unknown airline error',
    'The airline responded with an unexpected error. Please contact our support team and attach the request_id to your message.',
  ],
} as const
const HTML_ERRORS = { 502: 'Bad Gateway', 503: 'Service Temporarily Unavailable', 504: 'Gateway Time-out' } as const

function matcher(pattern: RequestPattern | undefined): (method: string, path: string) => boolean {
  if (pattern === undefined || pattern === '*') return () => true
  if (pattern instanceof RegExp)
    return (method, path) => new RegExp(pattern.source, pattern.flags.replace('g', '')).test(`${method} ${path}`)
  const space = pattern.indexOf(' ')
  const method = space < 0 ? '*' : pattern.slice(0, space).toUpperCase()
  const path = space < 0 ? pattern : pattern.slice(space + 1).trim()
  const re =
    path === '*'
      ? /.*/
      : new RegExp(
          `^${path
            .split('*')
            .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/]+')}$`,
        )
  return (m, p) => (method === '*' || method === m) && re.test(p)
}

class Fake implements FakeDuffel {
  url = ''
  readonly token = `${DEFAULT_TOKEN_PREFIX}${base62(randomBytes(16), 16)}`
  private readonly server = createServer((req, res) => {
    void this.handle(req, res)
  })
  private readonly accounts = new Map<string, Account>()
  private readonly offers = new Map<string, OfferRecord>()
  private readonly orders = new Map<string, OrderRecord>()
  private readonly log: FakeRequest[] = []
  private switches: Switch[] = []
  /** Requests held unanswered by `timeout`, ended when the fake closes. */
  private readonly hung = new Set<ServerResponse>()
  private fixedNow: number | null = null
  private orderSeq = 0

  constructor(private readonly logLine?: (line: string) => void) {
    this.addToken(this.token)
  }

  get requests(): readonly FakeRequest[] {
    return this.log
  }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject)
        resolve()
      })
    })
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  async close(): Promise<void> {
    for (const res of this.hung) res.destroy()
    this.hung.clear()
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()))
    // Keep-alive connections of clients (fetch keeps them) would otherwise hold close() open for seconds.
    this.server.closeAllConnections()
    await closed
  }

  // --- clock, accounts ---------------------------------------------------------------------------------

  now(): Date {
    return new Date(this.fixedNow ?? Date.now())
  }
  setNow(date: Date | string | number | null): void {
    if (date === null) {
      this.fixedNow = null
      return
    }
    const ms = new Date(date).getTime()
    if (Number.isNaN(ms)) throw new Error(`setNow: ${String(date)} is not a date`)
    this.fixedNow = ms
  }
  private iso(): string {
    return this.now().toISOString()
  }

  addToken(token: string, opts: { balance?: string; currency?: string } = {}): void {
    const live = token.startsWith('duffel_live_')
    if (!live && !token.startsWith('duffel_test_'))
      throw new Error(`addToken: a Duffel token starts with duffel_test_ or duffel_live_ (got ${token.slice(0, 12)}…)`)
    const currency = opts.currency ?? DEFAULT_CURRENCY
    this.accounts.set(token, {
      live,
      currency,
      balance: mustMinor(opts.balance ?? DEFAULT_BALANCE, currency, 'addToken balance'),
    })
  }
  private account(token: string): Account {
    if (!this.accounts.has(token)) this.addToken(token)
    return this.accounts.get(token)!
  }
  balance(token: string): { amount: string; currency: string } {
    const a = this.accounts.get(token)
    if (!a) throw new Error('balance: unknown token')
    return { amount: fromMinor(a.balance, a.currency), currency: a.currency }
  }

  // --- builders ----------------------------------------------------------------------------------------

  addOffer(input: AddOfferInput): FakeOffer {
    const token = input.token ?? this.token
    const account = this.account(token)
    const currency = input.currency ?? DEFAULT_CURRENCY
    const money = (minor: bigint) => fromMinor(minor, currency)
    if (input.passengers.length === 0) throw new Error('addOffer: an offer has passengers')
    if (input.slices.length === 0 || input.slices.some((s) => s.segments.length === 0))
      throw new Error('addOffer: an offer has slices of segments')
    const passengers: WireOfferPassenger[] = input.passengers.map((p) => {
      if ('age' in p && (!Number.isInteger(p.age) || p.age < 0))
        throw new Error(`addOffer: age ${p.age} is not a whole number of years`)
      return {
        id: p.id ?? newId('pas'),
        type: 'type' in p ? p.type : null,
        age: 'age' in p ? p.age : null,
        given_name: p.given_name ?? null,
        family_name: p.family_name ?? null,
        fare_type: null,
        loyalty_programme_accounts: [],
      }
    })
    const count = (t: PassengerType) => passengers.filter((p) => kindOf(p) === t).length
    if (count('infant_without_seat') > count('adult'))
      throw new Error("addOffer: each infant without a seat travels on an adult's lap")
    if (new Set(passengers.map((p) => p.id)).size !== passengers.length)
      throw new Error('addOffer: passenger ids must differ')
    const first = input.slices[0]!.segments[0]!
    const sparse = input.sparse ?? SPARSE.has(first.marketing_carrier)
    const instant = input.requiresInstantPayment ?? sparse
    const owner = airlineOf(first.marketing_carrier, sparse)
    const zz = owner.iata_code === DUFFEL_AIRWAYS
    const seatMapsWanted = input.seats !== false
    const now = this.now().getTime()

    // Duffel Airways' fares are refundable for a penalty and not changeable; the others' the other way round.
    const change = zz
      ? { allowed: false as const, penalty_amount: null, penalty_currency: null }
      : { allowed: true as const, penalty_amount: money(CHANGE_PENALTY), penalty_currency: currency }
    const refund = zz
      ? { allowed: true as const, penalty_amount: money(REFUND_PENALTY), penalty_currency: currency }
      : { allowed: false as const, penalty_amount: null, penalty_currency: null }
    const slices: WireSlice[] = input.slices.map((s, si) => {
      const segments = s.segments.map((g, gi): WireSegment => {
        const what = `addOffer slice ${si} segment ${gi}`
        const from = airportOf(g.origin)
        const to = airportOf(g.destination)
        const dep = localTime(g.departing_at, from.time_zone, `${what} departing_at`)
        const arr = localTime(g.arriving_at, to.time_zone, `${what} arriving_at`)
        const a = AIRPORTS[g.origin]
        const b = AIRPORTS[g.destination]
        const km = a && b ? distanceKm(a, b) : null
        const aircraft =
          g.aircraft === undefined ? (sparse ? null : km !== null && km > LONG_HAUL_KM ? '77W' : '320') : g.aircraft
        const cabin = g.cabin_class ?? 'economy'
        const marketing =
          cabin === 'economy'
            ? 'Economy'
            : cabin === 'premium_economy'
              ? 'Premium Economy'
              : cabin === 'business'
                ? 'Business'
                : 'First'
        let last = dep.utc
        const stops = (g.stops ?? []).map((stop, k) => {
          const airport = airportOf(stop.airport)
          const at = localTime(stop.arriving_at, airport.time_zone, `${what} stop ${k} arriving_at`)
          const leaves = localTime(stop.departing_at, airport.time_zone, `${what} stop ${k} departing_at`)
          if (!(at.utc > last && leaves.utc >= at.utc && leaves.utc < arr.utc))
            throw new Error(
              `${what} stop ${k}: a stop lands after the segment (or the stop before) takes off, and takes off again before it lands`,
            )
          last = leaves.utc
          return {
            id: newId('sto'),
            airport,
            arriving_at: at.local,
            departing_at: leaves.local,
            duration: duration(leaves.utc - at.utc),
          }
        })
        return {
          id: newId('seg'),
          origin: from,
          destination: to,
          origin_terminal: sparse ? null : (a?.terminal ?? null),
          destination_terminal: sparse ? null : (b?.terminal ?? null),
          departing_at: dep.local,
          arriving_at: arr.local,
          duration: duration(arr.utc - dep.utc),
          distance: sparse || km === null ? null : km.toFixed(1),
          marketing_carrier: airlineOf(g.marketing_carrier, sparse),
          marketing_carrier_flight_number: g.flight_number,
          operating_carrier: airlineOf(g.operating_carrier ?? g.marketing_carrier, sparse),
          operating_carrier_flight_number: sparse ? null : g.flight_number,
          aircraft: aircraft === null ? null : aircraftOf(aircraft),
          stops,
          passengers: passengers.map((p) => ({
            passenger_id: p.id,
            cabin_class: cabin,
            cabin_class_marketing_name: marketing,
            fare_basis_code: sparse ? null : 'QNC3R1',
            // The fare includes a cabin bag and no hold bag: extra bags are what is for sale.
            baggages:
              kindOf(p) === 'infant_without_seat' || input.includedBags === false
                ? []
                : [
                    { type: 'carry_on', quantity: 1 },
                    { type: 'checked', quantity: 0 },
                  ],
            cabin: {
              name: cabin,
              marketing_name: marketing,
              amenities: {
                wifi: { available: true, cost: 'paid' },
                seat: { pitch: 'standard', type: 'standard' },
                power: { available: true },
              },
            },
            ...(sparse
              ? {}
              : {
                  conditions: {
                    advance_seat_selection: seatMapsWanted,
                    priority_boarding: false,
                    priority_check_in: false,
                  },
                }),
          })),
        }
      })
      const dep = localTime(segments[0]!.departing_at, segments[0]!.origin.time_zone, 'slice')
      const arr = localTime(segments.at(-1)!.arriving_at, segments.at(-1)!.destination.time_zone, 'slice')
      return {
        id: newId('sli'),
        origin: segments[0]!.origin,
        origin_type: 'airport',
        destination: segments.at(-1)!.destination,
        destination_type: 'airport',
        duration: duration(arr.utc - dep.utc),
        fare_brand_name: sparse ? null : 'Economy Standard',
        segments,
        ngs_shelf: sparse ? null : 2,
        comparison_key: base62(randomBytes(8), 8),
        conditions: sparse
          ? {
              change_before_departure: null,
              refund_before_departure: null,
              advance_seat_selection: null,
              priority_boarding: null,
              priority_check_in: null,
            }
          : {
              change_before_departure: { ...change },
              refund_before_departure: { ...refund },
              advance_seat_selection: seatMapsWanted,
              priority_boarding: false,
              priority_check_in: false,
            },
      }
    })
    const allSegments = slices.flatMap((s) => s.segments)

    let base = 0n
    let tax = 0n
    for (const p of passengers) {
      const [b, t] = FARE[kindOf(p)]
      base += b * BigInt(slices.length)
      tax += t * BigInt(slices.length)
    }
    const total = base + tax
    const emissions =
      allSegments.reduce((kg, g) => kg + Math.round(Number(g.distance ?? 800) * 0.09), 0) *
      passengers.filter((p) => kindOf(p) !== 'infant_without_seat').length

    const available_services: OfferAvailableService[] = []
    const bags = input.bags === 'none' ? [] : (input.bags ?? defaultBags(first.marketing_carrier, currency))
    for (const spec of bags) {
      const price = mustMinor(spec.total_amount, currency, 'addOffer bag total_amount')
      const scope = spec.scope ?? 'slice'
      const groups =
        scope === 'trip'
          ? [allSegments]
          : scope === 'slice'
            ? slices.map((s) => s.segments)
            : allSegments.map((g) => [g])
      for (const p of passengers) {
        if (!(spec.passenger_types ?? ['adult', 'child']).includes(kindOf(p))) continue
        for (const group of groups) {
          available_services.push({
            id: newId('ase'),
            type: 'baggage',
            passenger_ids: [p.id],
            segment_ids: group.map((g) => g.id),
            maximum_quantity: spec.maximum_quantity ?? 1,
            total_amount: money(price),
            total_currency: currency,
            metadata: {
              type: spec.type,
              maximum_weight_kg: spec.maximum_weight_kg ?? null,
              maximum_length_cm: spec.dimensions?.length ?? null,
              maximum_height_cm: spec.dimensions?.height ?? null,
              maximum_depth_cm: spec.dimensions?.depth ?? null,
            },
          })
        }
      }
    }
    if (input.cfar !== false) {
      // One cover for the whole booking: Duffel Airways sells it on the last slice (the return), the others on every segment.
      available_services.push({
        id: newId('cfa'),
        type: 'cancel_for_any_reason',
        passenger_ids: passengers.map((p) => p.id),
        segment_ids: (zz ? slices.at(-1)!.segments : allSegments).map((g) => g.id),
        maximum_quantity: 1,
        total_amount: money(percentOf(total, CFAR_PRICE_PERCENT)),
        total_currency: currency,
        metadata: {
          merchant_copy: CFAR_COPY,
          refund_amount: money(percentOf(total, CFAR_REFUND_PERCENT)),
          terms_and_conditions_url: 'https://cfar-terms.example/conditions',
        },
      })
    }

    const seatMaps = seatMapsWanted
      ? slices.flatMap((s) => s.segments.map((g) => buildSeatMap(s, g, passengers, currency, input.wings !== false)))
      : []
    if (input.seatServices) {
      // The seat maps' own services, listed on the offer too (same ids: buying either is buying the seat).
      for (const { segment_id, seat } of seatsOf(seatMaps)) {
        for (const s of seat.available_services) {
          const service: OfferAvailableServiceSeat = {
            id: s.id,
            type: 'seat',
            passenger_ids: [s.passenger_id],
            segment_ids: [segment_id],
            maximum_quantity: 1,
            total_amount: s.total_amount,
            total_currency: s.total_currency,
            metadata: { designator: seat.designator, disclosures: [...seat.disclosures], name: seat.name },
          }
          available_services.push(service)
        }
      }
    }

    const created = new Date(now).toISOString()
    const offer: WireOffer = {
      id: input.id ?? newId('off'),
      live_mode: account.live,
      created_at: created,
      updated_at: created,
      expires_at: input.expires_at ?? new Date(now + 30 * 60_000).toISOString(),
      owner,
      passengers,
      slices,
      available_services,
      base_amount: money(base),
      base_currency: currency,
      tax_amount: money(tax),
      tax_currency: currency,
      total_amount: money(total),
      total_currency: currency,
      total_emissions_kg: String(emissions),
      conditions: sparse
        ? { change_before_departure: null, refund_before_departure: null }
        : { change_before_departure: { ...change }, refund_before_departure: { ...refund } },
      payment_requirements: instant
        ? { requires_instant_payment: true, payment_required_by: null, price_guarantee_expires_at: null }
        : {
            requires_instant_payment: false,
            payment_required_by: new Date(now + 24 * 3600_000).toISOString(),
            price_guarantee_expires_at: new Date(now + 12 * 3600_000).toISOString(),
          },
      available_payment_types: ['balance'],
      intended_payment_methods: [],
      passenger_identity_documents_required: false,
      supported_passenger_identity_document_types: ['passport'],
      allowed_passenger_identity_document_types: ['passport'],
      supported_loyalty_programmes: sparse ? [] : [first.marketing_carrier],
      private_fares: [],
      partial: sparse ? null : false,
      ngs_shelf: sparse ? null : 2,
    }
    if (this.offers.has(offer.id)) throw new Error(`addOffer: offer ${offer.id} exists`)
    this.offers.set(offer.id, { token, offer, seatMaps, booked: false })
    return clone({ offer, seatMaps })
  }

  bookOrder(offerId: string, opts: BookOrderOptions = {}): FakeOrder {
    const rec = this.offers.get(offerId)
    if (!rec) throw new Error(`bookOrder: no offer ${offerId}`)
    if (opts.hold && rec.offer.payment_requirements.requires_instant_payment)
      throw new Error(`bookOrder: offer ${offerId} requires instant payment: it cannot be held`)
    if (opts.hold && (opts.services ?? []).length > 0)
      throw new Error("bookOrder: a hold order books no services (Duffel's rule)")
    return this.order(this.book(rec, opts).id)
  }

  /**
   * An order of the offer, as `bookOrder` and POST /air/orders make it. The route checks everything first
   * (the errors thrown here are the builder's); `price` gives a service's current price (the route's view
   * of the switches), `passengers` the travellers the seller named (else invented ones).
   */
  private book(
    rec: OfferRecord,
    opts: BookOrderOptions,
    given: {
      price?: (id: string) => string | undefined
      passengers?: CreateOrderPassenger[]
      metadata?: Record<string, string>
    } = {},
  ): WireOrder {
    const { offer } = rec
    const offerId = offer.id
    const priceOf = (s: { id: string; total_amount: string }) => given.price?.(s.id) ?? s.total_amount
    const currency = offer.total_currency
    const now = this.iso()

    // Duffel gives an order's slices and segments ids of their own; passengers keep the offer's ids.
    const segmentIds = new Map<string, string>()
    const slices: WireOrderSlice[] = offer.slices.map((s) => ({
      id: newId('sli'),
      origin: s.origin,
      origin_type: s.origin_type,
      destination: s.destination,
      destination_type: s.destination_type,
      duration: s.duration,
      fare_brand_name: s.fare_brand_name,
      conditions: { change_before_departure: s.conditions.change_before_departure },
      segments: s.segments.map((g): WireOrderSegment => {
        const id = newId('seg')
        segmentIds.set(g.id, id)
        return {
          id,
          origin: g.origin,
          destination: g.destination,
          origin_terminal: g.origin_terminal,
          destination_terminal: g.destination_terminal,
          departing_at: g.departing_at,
          arriving_at: g.arriving_at,
          duration: g.duration,
          distance: g.distance,
          marketing_carrier: g.marketing_carrier,
          marketing_carrier_flight_number: g.marketing_carrier_flight_number,
          operating_carrier: g.operating_carrier,
          operating_carrier_flight_number: g.operating_carrier_flight_number,
          aircraft: g.aircraft,
          stops: clone(g.stops),
          passengers: g.passengers.map((p): OrderSegmentPassenger => ({
            passenger_id: p.passenger_id,
            cabin_class: p.cabin_class,
            cabin_class_marketing_name: p.cabin_class_marketing_name,
            baggages: p.baggages.map((b) => ({ ...b })),
          })),
        }
      }),
    }))
    const mapSegments = (ids: string[]) => ids.map((id) => segmentIds.get(id)!)

    const used = new Map<PassengerType, number>()
    const year = this.now().getUTCFullYear()
    const kinds = new Map(offer.passengers.map((p) => [p.id, kindOf(p)]))
    const passengers: OrderPassenger[] = offer.passengers.map((p, i) => {
      const type = kinds.get(p.id)!
      const n = used.get(type) ?? 0
      used.set(type, n + 1)
      const list = NAMES[type]
      const [givenName, family, gender, title] = list[n % list.length]!
      const born =
        type === 'adult'
          ? `${year - 38 - n}-04-1${n % 10}`
          : type === 'child'
            ? `${year - 8}-09-2${n % 10}`
            : `${year - 1}-0${(n % 9) + 1}-15`
      return {
        id: p.id,
        type,
        given_name: givenName,
        family_name: family,
        gender,
        title,
        born_on: born,
        email: `${givenName}.${family}@example.com`.toLowerCase(),
        phone_number: `+4420794600${String(10 + i).slice(-2)}`,
        loyalty_programme_accounts: [],
        infant_passenger_id: null,
      }
    })
    // Each infant without a seat sits on an adult's lap: Duffel names the infant on that adult.
    const infants = passengers.filter((p) => kinds.get(p.id) === 'infant_without_seat')
    passengers
      .filter((p) => kinds.get(p.id) === 'adult')
      .forEach((adult, i) => {
        adult.infant_passenger_id = infants[i]?.id ?? null
      })
    if (given.passengers) {
      // The seller's travellers (the route checked them); whose lap an infant sits on, if the seller says.
      const pairs = given.passengers.some((g) => g.infant_passenger_id)
      for (const p of passengers) {
        const g = given.passengers.find((x) => x.id === p.id)!
        Object.assign(p, {
          given_name: g.given_name,
          family_name: g.family_name,
          title: g.title,
          gender: g.gender,
          born_on: g.born_on,
          email: g.email,
          phone_number: g.phone_number,
        })
        if (pairs && kinds.get(p.id) === 'adult') p.infant_passenger_id = g.infant_passenger_id ?? null
      }
    }
    if (opts.passengerTypes === false) for (const p of passengers) delete p.type

    const services: OrderService[] = []
    const bookedFromOffer = new Map<string, number>()
    const seatsTaken = new Set<string>()
    for (const wanted of opts.services ?? []) {
      const id = typeof wanted === 'string' ? wanted : wanted.id
      const quantity = typeof wanted === 'string' ? 1 : (wanted.quantity ?? 1)
      const bag = offer.available_services.find(
        (s): s is OfferAvailableServiceBaggage => s.id === id && s.type === 'baggage',
      )
      if (bag) {
        const total = (bookedFromOffer.get(id) ?? 0) + quantity
        if (quantity < 1 || total > bag.maximum_quantity)
          throw new Error(`bookOrder: ${id} allows at most ${bag.maximum_quantity}`)
        bookedFromOffer.set(id, total)
        services.push({
          id: newId('ser'),
          type: 'baggage',
          passenger_ids: [...bag.passenger_ids],
          segment_ids: mapSegments(bag.segment_ids),
          quantity,
          total_amount: fromMinor(mustMinor(priceOf(bag), currency, 'bag') * BigInt(quantity), currency),
          total_currency: currency,
          metadata: { ...bag.metadata },
        })
        continue
      }
      const seat = rec.seatMaps
        .flatMap((m) =>
          seatsOf([m]).map((x) => ({ ...x, service: x.seat.available_services.find((s) => s.id === id) })),
        )
        .find((x) => x.service)
      if (!seat?.service) throw new Error(`bookOrder: ${id} is not a bag nor a seat of offer ${offerId}`)
      const orderSegment = segmentIds.get(seat.segment_id)!
      const pid = seat.service.passenger_id
      if (seatsTaken.has(`${seat.segment_id}:${seat.seat.designator}`) || seatsTaken.has(`${seat.segment_id}:${pid}`))
        throw new Error(`bookOrder: seat ${seat.seat.designator} or passenger ${pid} booked twice on a segment`)
      seatsTaken.add(`${seat.segment_id}:${seat.seat.designator}`).add(`${seat.segment_id}:${pid}`)
      const metadata = {
        designator: seat.seat.designator,
        disclosures: [...seat.seat.disclosures],
        name: seat.seat.name ?? null,
      }
      // An order states its amounts in the currency's places, whatever the seat map wrote.
      const amount = fromMinor(mustMinor(priceOf(seat.service), currency, 'seat'), currency)
      services.push({
        id: newId('ser'),
        type: 'seat',
        passenger_ids: [pid],
        segment_ids: [orderSegment],
        quantity: 1,
        total_amount: amount,
        total_currency: currency,
        metadata,
      })
      const onSegment = slices
        .flatMap((s) => s.segments)
        .find((g) => g.id === orderSegment)!
        .passengers.find((p) => p.passenger_id === pid)
      if (onSegment) onSegment.seat = { ...metadata, disclosures: [...metadata.disclosures] }
    }
    const extras = services.reduce((sum, s) => sum + mustMinor(s.total_amount, currency, 'service'), 0n)

    const { payment_required_by, price_guarantee_expires_at } = offer.payment_requirements
    const order: WireOrder = {
      id: newId('ord'),
      type: opts.hold ? 'hold' : 'instant',
      live_mode: offer.live_mode,
      booking_reference: opts.booking_reference ?? newReference(),
      created_at: now,
      synced_at: now,
      cancelled_at: null,
      cancellation: null,
      content: 'self_managed',
      owner: offer.owner,
      slices,
      passengers,
      services,
      base_amount: fromMinor(mustMinor(offer.base_amount, currency, 'base') + extras, currency),
      base_currency: currency,
      tax_amount: offer.tax_amount ?? fromMinor(0n, currency),
      tax_currency: currency,
      total_amount: fromMinor(mustMinor(offer.total_amount, currency, 'total') + extras, currency),
      total_currency: currency,
      conditions: clone(offer.conditions),
      metadata: { ...given.metadata },
      airline_initiated_changes: [],
      available_actions: ['cancel', 'change', 'update'],
      // A hold is paid by its payment_required_by, at its price until price_guarantee_expires_at; it has no tickets yet.
      payment_status: opts.hold
        ? {
            awaiting_payment: true,
            ...(payment_required_by ? { payment_required_by } : {}),
            ...(price_guarantee_expires_at ? { price_guarantee_expires_at } : {}),
            paid_at: null,
          }
        : { awaiting_payment: false, paid_at: now },
      documents: opts.hold ? [] : tickets(passengers),
    }
    // After booking, the same bags are sold again under new ids (`aso_…`), at the offer's prices, for what
    // the booking left of each maximum (a bag bought with the order counts against it), by the few airlines
    // that sell bags after booking at all: Duffel Airways, unless told.
    const sellsBags = opts.postBookingBags ?? offer.owner.iata_code === DUFFEL_AIRWAYS
    const available: AvailableRecord[] = !sellsBags
      ? []
      : offer.available_services
          .filter((s): s is OfferAvailableServiceBaggage => s.type === 'baggage')
          .map((s) => ({
            service: { ...clone(s), id: newId('aso'), segment_ids: mapSegments(s.segment_ids) },
            remaining: s.maximum_quantity - (bookedFromOffer.get(s.id) ?? 0),
          }))
    this.orders.set(order.id, { token: rec.token, offerId, order, available, seq: ++this.orderSeq })
    rec.booked = true
    return order
  }

  cancelOrder(orderId: string): WireOrder {
    const rec = this.orders.get(orderId)
    if (!rec) throw new Error(`cancelOrder: no order ${orderId}`)
    this.cancel(rec, this.iso())
    return clone(rec.order)
  }
  private cancel(rec: OrderRecord, at: string): void {
    rec.order.cancelled_at = at
    rec.order.available_actions = []
  }
  /** A hold left unpaid past its payment_required_by is released then, as Duffel releases it: read it as cancelled. */
  private lapse(rec: OrderRecord): OrderRecord {
    const { order } = rec
    const by = order.payment_status.payment_required_by
    if (
      order.type === 'hold' &&
      order.payment_status.awaiting_payment &&
      !order.cancelled_at &&
      by &&
      this.now().getTime() >= Date.parse(by)
    )
      this.cancel(rec, by)
    return rec
  }
  /** The hold is paid: tickets are issued, and the order is like an instant one from now. */
  private pay(rec: OrderRecord, at: string): void {
    const { order } = rec
    order.payment_status = { ...order.payment_status, awaiting_payment: false, paid_at: at }
    order.documents = tickets(order.passengers)
    order.synced_at = at
  }
  private heldOrder(orderId: string, what: string): OrderRecord {
    const rec = this.orders.get(orderId)
    if (!rec) throw new Error(`${what}: no order ${orderId}`)
    this.lapse(rec)
    if (rec.order.type !== 'hold' || !rec.order.payment_status.awaiting_payment || rec.order.cancelled_at) {
      throw new Error(
        `${what}: order ${orderId} is not an unpaid hold (${rec.order.type}, ${rec.order.cancelled_at ? 'cancelled' : rec.order.payment_status.awaiting_payment ? 'unpaid' : 'paid'})`,
      )
    }
    return rec
  }
  payOrder(orderId: string): WireOrder {
    const rec = this.heldOrder(orderId, 'payOrder')
    this.pay(rec, this.iso())
    return clone(rec.order)
  }
  releaseHold(orderId: string): WireOrder {
    const rec = this.heldOrder(orderId, 'releaseHold')
    this.cancel(rec, this.iso())
    return clone(rec.order)
  }

  offer(offerId: string): FakeOffer {
    const rec = this.offers.get(offerId)
    if (!rec) throw new Error(`offer: no offer ${offerId}`)
    return clone({ offer: rec.offer, seatMaps: rec.seatMaps })
  }

  order(orderId: string): FakeOrder {
    const rec = this.orders.get(orderId)
    if (!rec) throw new Error(`order: no order ${orderId}`)
    this.lapse(rec)
    return clone({
      order: rec.order,
      availableServices: rec.available
        .filter((a) => a.remaining > 0)
        .map((a) => ({ ...a.service, maximum_quantity: a.remaining })),
    })
  }

  clearRequests(): void {
    this.log.length = 0
  }

  // --- scenario switches ------------------------------------------------------------------------------

  /** The currency of an available service (offer bag, seat, CFAR, order bag), or undefined when there is none such. */
  private serviceCurrency(serviceId: string): string | undefined {
    for (const { offer, seatMaps } of this.offers.values()) {
      const found =
        offer.available_services.find((s) => s.id === serviceId) ??
        seatsOf(seatMaps)
          .flatMap((x) => x.seat.available_services)
          .find((s) => s.id === serviceId)
      if (found) return found.total_currency
    }
    for (const o of this.orders.values()) {
      const found = o.available.find((a) => a.service.id === serviceId)
      if (found) return found.service.total_currency
    }
    return undefined
  }
  private add(sw: Switch): void {
    if (!(sw.remaining > 0)) throw new Error('a scenario switch applies to at least one request')
    this.switches.push(sw)
  }
  priceChange(serviceId: string, newAmount: string, opts: SwitchOptions = {}): void {
    // A typo in a test would otherwise switch nothing and the test would pass for the wrong reason.
    const currency = this.serviceCurrency(serviceId)
    if (!currency) throw new Error(`priceChange: no available service ${serviceId}`)
    mustMinor(newAmount, currency, 'priceChange')
    this.add({
      kind: 'price',
      serviceId,
      amount: newAmount,
      remaining: opts.times ?? Infinity,
      match: matcher(opts.match),
    })
  }
  gone(serviceId: string, opts: SwitchOptions = {}): void {
    if (!this.serviceCurrency(serviceId)) throw new Error(`gone: no available service ${serviceId}`)
    this.add({ kind: 'gone', serviceId, remaining: opts.times ?? Infinity, match: matcher(opts.match) })
  }
  rateLimited(opts: SwitchOptions & { retryAfterSeconds?: number; withRetryAfter?: boolean } = {}): void {
    this.add({
      kind: 'rate',
      retryAfterSeconds: opts.retryAfterSeconds ?? 1,
      withRetryAfter: opts.withRetryAfter ?? false,
      remaining: opts.times ?? 1,
      match: matcher(opts.match),
    })
  }
  serverError(opts: SwitchOptions & { status?: 500 | 502 | 503 | 504 } = {}): void {
    this.add({ kind: 'server', status: opts.status ?? 500, remaining: opts.times ?? 1, match: matcher(opts.match) })
  }
  airlineError(opts: SwitchOptions & { code?: 'airline_error' | 'airline_unknown' } = {}): void {
    this.add({
      kind: 'airline',
      code: opts.code ?? 'airline_error',
      remaining: opts.times ?? 1,
      match: matcher(opts.match),
    })
  }
  htmlError(opts: SwitchOptions & { status?: 502 | 503 | 504 } = {}): void {
    this.add({ kind: 'html', status: opts.status ?? 502, remaining: opts.times ?? 1, match: matcher(opts.match) })
  }
  timeout(opts: SwitchOptions = {}): void {
    this.add({ kind: 'timeout', remaining: opts.times ?? 1, match: matcher(opts.match) })
  }
  slow(opts: SwitchOptions & { ms: number }): void {
    this.add({ kind: 'slow', ms: opts.ms, remaining: opts.times ?? Infinity, match: matcher(opts.match) })
  }
  lostResponseAfterPurchase(opts: SwitchOptions = {}): void {
    this.add({ kind: 'lost', remaining: opts.times ?? 1, match: matcher(opts.match ?? 'POST /air/orders/*/services') })
  }
  reset(): void {
    this.switches = []
  }

  /** The first armed failure switch of these kinds that matches (used up by this request), if any. */
  private takeFailure(kinds: Array<Failure['kind']>, method: string, path: string): Failure | undefined {
    for (const kind of kinds) {
      const sw = this.switches.find((s) => s.kind === kind && s.remaining > 0 && s.match(method, path))
      if (sw) {
        sw.remaining--
        this.switches = this.switches.filter((s) => s.remaining > 0)
        return sw as Failure
      }
    }
    return undefined
  }
  /** The price and gone switches in force for this request (each matching one counts the request). */
  private viewFor(method: string, path: string): View {
    const prices = new Map<string, string>()
    const gone = new Set<string>()
    for (const sw of this.switches) {
      if (!(sw.remaining > 0) || !sw.match(method, path)) continue
      if (sw.kind === 'price') {
        prices.set(sw.serviceId, sw.amount)
        sw.remaining--
      }
      if (sw.kind === 'gone') {
        gone.add(sw.serviceId)
        sw.remaining--
      }
    }
    this.switches = this.switches.filter((s) => s.remaining > 0)
    return { price: (id) => prices.get(id), gone: (id) => gone.has(id) }
  }

  // --- HTTP --------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase()
    const url = new URL(req.url ?? '/', 'http://fake.invalid')
    const path = url.pathname
    // Loopback test traffic only: bodies are small and read whole.
    const chunks: Buffer[] = []
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer)
    } catch {
      return
    }
    const raw = Buffer.concat(chunks).toString('utf8')
    let body: unknown
    let malformed = false
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw)
      } catch {
        body = raw
        malformed = true
      }
    }
    const authorization = req.headers.authorization
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? null
    const entry: FakeRequest = {
      method,
      path,
      query: Object.fromEntries(url.searchParams),
      body,
      token,
      at: this.iso(),
      status: null,
    }
    this.log.push(entry)
    const requestId = newRequestId()

    let lose = false
    let status: number
    let payload: unknown
    let headers: Record<string, string> = {}
    try {
      if (authorization === undefined)
        throw new Refusal(
          401,
          'authentication_error',
          'missing_authorization_header',
          'Missing authorization header',
          'The Authorization header is missing: send "Authorization: Bearer <your access token>".',
        )
      if (token === null)
        throw new Refusal(
          401,
          'authentication_error',
          'invalid_authorization_header',
          'Invalid authorization header',
          'The Authorization header must be "Bearer <your access token>".',
        )
      if (!this.accounts.has(token))
        throw new Refusal(
          401,
          'authentication_error',
          'access_token_not_found',
          'Access token not found',
          'The access token used was not found: it may have been revoked, or never existed.',
        )
      const version = req.headers['duffel-version']
      if (version === undefined)
        throw new Refusal(
          400,
          'invalid_request_error',
          'missing_version_header',
          'Missing version header',
          'The Duffel-Version header is required: send "Duffel-Version: v2".',
        )
      if (version !== 'v2')
        throw new Refusal(
          400,
          'invalid_request_error',
          'unsupported_version',
          'Unsupported version',
          `Duffel-Version "${String(version)}" is not supported: use "v2".`,
        )
      const slow = this.switches.find(
        (sw): sw is Extract<Switch, { kind: 'slow' }> =>
          sw.kind === 'slow' && sw.remaining > 0 && sw.match(method, path),
      )
      if (slow) {
        slow.remaining--
        await new Promise((resolve) => setTimeout(resolve, slow.ms))
      }
      const failure = this.takeFailure(['timeout', 'html', 'rate', 'server', 'airline'], method, path)
      if (failure?.kind === 'timeout') {
        this.holdUnanswered(res, `${method} ${req.url ?? path} → (held unanswered: timeout switch)`)
        return
      }
      if (failure?.kind === 'html') {
        // The load balancer in front of Duffel answers: its own page, none of Duffel's envelope nor headers.
        const reason = `${failure.status} ${HTML_ERRORS[failure.status]}`
        const page = `<html>\r\n<head><title>${reason}</title></head>\r\n<body>\r\n<center><h1>${reason}</h1></center>\r\n</body>\r\n</html>\r\n`
        entry.status = failure.status
        this.logLine?.(`${method} ${req.url ?? path} → ${failure.status} (HTML error page: htmlError switch)`)
        res.writeHead(failure.status, {
          'content-type': 'text/html',
          'content-length': String(Buffer.byteLength(page)),
        })
        res.end(page)
        return
      }
      if (failure?.kind === 'rate') {
        throw new Refusal(
          429,
          'rate_limit_error',
          'rate_limit_exceeded',
          'Rate limit exceeded',
          'You have exceeded the rate limit. Please wait before retrying.',
          {
            'ratelimit-limit': '4000',
            'ratelimit-remaining': '0',
            'ratelimit-reset': new Date(this.now().getTime() + failure.retryAfterSeconds * 1000).toUTCString(),
            ...(failure.withRetryAfter ? { 'retry-after': String(failure.retryAfterSeconds) } : {}),
          },
        )
      }
      if (failure?.kind === 'server') {
        const [code, title, message] = SERVER_ERRORS[failure.status]
        throw new Refusal(failure.status, 'api_error', code, title, message)
      }
      if (failure?.kind === 'airline') {
        const [title, message] = AIRLINE_ERRORS[failure.code]
        throw new Refusal(502, 'airline_error', failure.code, title, message)
      }
      lose = this.takeFailure(['lost'], method, path) !== undefined
      const view = this.viewFor(method, path)
      if (malformed && method !== 'GET')
        throw new Refusal(
          400,
          'invalid_request_error',
          'invalid_json',
          'Invalid JSON',
          'The request body is not valid JSON.',
        )
      const reply = this.route(method, path, url.searchParams, body, token, view)
      status = reply.status
      payload = reply.body
    } catch (e) {
      if (e instanceof Unanswered) {
        this.holdUnanswered(res, `${method} ${req.url ?? path} → (held unanswered: ${e.message})`)
        return
      }
      const r =
        e instanceof Refusal
          ? e
          : new Refusal(
              500,
              'api_error',
              'internal_server_error',
              'Internal server error',
              `The fake failed: ${e instanceof Error ? e.message : String(e)}`,
            )
      status = r.status
      headers = r.headers
      const envelope: DuffelErrorEnvelope = {
        errors: [
          {
            type: r.type,
            code: r.code,
            title: r.title,
            message: r.message,
            documentation_url: DOCS,
            ...(r.source ? { source: r.source } : {}),
          },
        ],
        meta: { request_id: requestId, status: r.status },
      }
      payload = envelope
    }
    if (lose) {
      // The request was carried out; the answer never leaves: the client sees the connection drop.
      this.logLine?.(`${method} ${req.url ?? path} → ${status} (response lost: connection destroyed)`)
      req.socket.destroy()
      return
    }
    entry.status = status
    this.logLine?.(`${method} ${req.url ?? path} → ${status}`)
    const text = JSON.stringify(payload)
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      'x-request-id': requestId,
      'ratelimit-limit': '4000',
      ...headers,
    })
    res.end(text)
  }

  /** A request never answered: its connection stays open until the client gives up or the fake closes. */
  private holdUnanswered(res: ServerResponse, line: string): void {
    this.hung.add(res)
    res.on('close', () => this.hung.delete(res))
    this.logLine?.(line)
  }

  private route(
    method: string,
    path: string,
    query: URLSearchParams,
    body: unknown,
    token: string,
    view: View,
  ): { status: number; body: unknown } {
    let m: RegExpExecArray | null
    if (method === 'GET' && (m = /^\/air\/offers\/([^/]+)$/.exec(path))) {
      const rec = this.visibleOffer(pathId(m[1]!), token)
      return {
        status: 200,
        body: { data: this.viewOffer(rec, view, query.get('return_available_services') === 'true') },
      }
    }
    if (method === 'GET' && path === '/air/seat_maps') {
      const offerId = query.get('offer_id')
      if (!offerId) throw invalid('validation_required', 'The offer_id query parameter is required.')
      const rec = this.visibleOffer(offerId, token)
      return { status: 200, body: { data: this.viewSeatMaps(rec, view) } }
    }
    if (method === 'GET' && path === '/air/orders') return { status: 200, body: this.listOrders(query, token) }
    if (method === 'GET' && (m = /^\/air\/orders\/([^/]+)$/.exec(path))) {
      return { status: 200, body: { data: clone(this.visibleOrder(pathId(m[1]!), token).order) } }
    }
    if (method === 'GET' && (m = /^\/air\/orders\/([^/]+)\/available_services$/.exec(path))) {
      return { status: 200, body: { data: this.viewAvailable(this.visibleOrder(pathId(m[1]!), token), view) } }
    }
    if (method === 'POST' && (m = /^\/air\/orders\/([^/]+)\/services$/.exec(path))) {
      const rec = this.visibleOrder(pathId(m[1]!), token)
      return { status: 201, body: { data: this.addServices(rec, body, token, view) } }
    }
    if (method === 'POST' && path === '/air/offer_requests')
      return { status: 201, body: { data: this.createOfferRequest(body, query, token) } }
    if (method === 'POST' && path === '/air/orders')
      return { status: 201, body: { data: this.createOrder(body, token, view) } }
    if (method === 'POST' && path === '/air/payments')
      return { status: 201, body: { data: this.createPayment(body, token) } }
    throw notFound()
  }

  /** An offer of this token's account, or 404 (another account's or mode's offer does not exist for it). */
  private visibleOffer(id: string, token: string): OfferRecord {
    const rec = this.offers.get(id)
    if (!rec || rec.token !== token) throw notFound()
    if (this.now().getTime() >= Date.parse(rec.offer.expires_at)) {
      throw new Refusal(
        422,
        'invalid_state_error',
        'offer_no_longer_available',
        'Offer no longer available',
        'The requested offer is no longer available. Please search again.',
      )
    }
    return rec
  }
  private visibleOrder(id: string, token: string): OrderRecord {
    const rec = this.orders.get(id)
    if (!rec || rec.token !== token) throw notFound()
    return this.lapse(rec)
  }

  private viewOffer(rec: OfferRecord, view: View, withServices: boolean): WireOfferAnswer {
    const offer = clone(rec.offer)
    // Duffel returns available services only when asked: an adapter that forgets to ask reads null.
    return {
      ...offer,
      available_services: withServices
        ? offer.available_services
            .filter((s) => !view.gone(s.id))
            .map((s) => ({ ...s, total_amount: view.price(s.id) ?? s.total_amount }))
        : null,
    }
  }
  private viewSeatMaps(rec: OfferRecord, view: View): SeatMap[] {
    const maps = clone(rec.seatMaps)
    for (const { seat } of seatsOf(maps)) {
      seat.available_services = seat.available_services
        .filter((s) => !view.gone(s.id))
        .map((s) => ({ ...s, total_amount: view.price(s.id) ?? s.total_amount }))
    }
    return maps
  }
  private viewAvailable(rec: OrderRecord, view: View): OrderAvailableService[] {
    if (rec.order.cancelled_at) return []
    return rec.available
      .filter((a) => a.remaining > 0 && !view.gone(a.service.id))
      .map((a) => ({
        ...clone(a.service),
        maximum_quantity: a.remaining,
        total_amount: view.price(a.service.id) ?? a.service.total_amount,
      }))
  }

  private listOrders(query: URLSearchParams, token: string): { data: WireOrder[]; meta: ListMeta } {
    const limitText = query.get('limit')
    const limit = limitText === null ? 50 : Number(limitText)
    if (!Number.isInteger(limit) || limit < 1 || limit > 200)
      throw invalid('validation_format', 'limit must be a whole number from 1 to 200.')
    const reference = query.get('booking_reference')
    let all = [...this.orders.values()]
      .filter((o) => o.token === token)
      .sort((a, b) => a.seq - b.seq)
      .map((o) => this.lapse(o))
    if (reference !== null)
      all = all.filter((o) => o.order.booking_reference.toUpperCase() === reference.trim().toUpperCase())
    // Cursors are order ids here (Duffel's are opaque): `after` pages forward, `before` back.
    const after = query.get('after')
    const before = query.get('before')
    let start = 0
    let end = all.length
    if (after) start = all.findIndex((o) => o.order.id === after) + 1
    if (before)
      end = Math.max(
        0,
        all.findIndex((o) => o.order.id === before),
      )
    if (before && !after) start = Math.max(start, end - limit)
    const page = all.slice(start, Math.min(end, start + limit))
    const last = start + page.length
    return {
      data: page.map((o) => clone(o.order)),
      meta: {
        limit,
        after: last < all.length && page.length > 0 ? page.at(-1)!.order.id : null,
        before: start > 0 && page.length > 0 ? page[0]!.order.id : null,
      },
    }
  }

  /**
   * POST /air/offer_requests: a search. For each requested slice, a direct flight on its date by each of
   * SEARCH_CARRIERS (morning by Duffel Airways, afternoon by British Airways, and easyJet when every slice is
   * short-haul), its length drawn from the distance; each offer is the account's, built by `addOffer` (its
   * bags, seat maps and half-hour expiry), and its passengers keep the request's passenger ids, types, ages
   * and names, as Duffel's do. In test mode, a first slice on one of TEST_ROUTES makes the search Duffel's
   * test route: Duffel Airways alone, shaped as the route says (or no offers, or no answer at all).
   */
  private createOfferRequest(body: unknown, query: URLSearchParams, token: string): OfferRequest {
    const data = (body as { data?: unknown } | undefined)?.data as Partial<CreateOfferRequest> | undefined
    if (!data || typeof data !== 'object')
      throw invalid('validation_required', 'The request body must be { "data": { "slices": […], "passengers": […] } }.')
    const returnOffers = query.get('return_offers') ?? 'true'
    if (returnOffers !== 'true' && returnOffers !== 'false')
      throw invalid('validation_format', 'return_offers must be true or false.')
    // A search that names no cabin says so (null); its flights are economy.
    const cabin = data.cabin_class ?? null
    if (cabin !== null && !CABINS.includes(cabin))
      throw invalid('validation_format', `cabin_class must be one of ${CABINS.join(', ')}.`)
    if (!Array.isArray(data.slices) || data.slices.length === 0)
      throw invalid('validation_required', 'data.slices must list at least one slice.')
    if (!Array.isArray(data.passengers) || data.passengers.length === 0)
      throw invalid('validation_required', 'data.passengers must list at least one passenger.')
    const today = this.iso().slice(0, 10)
    const slices = (data.slices as unknown[]).map((raw, i) => {
      const slice = raw as Partial<Record<'origin' | 'destination' | 'departure_date', unknown>> | null
      if (!slice || typeof slice !== 'object')
        throw invalid('validation_required', `data.slices[${i}] must be { origin, destination, departure_date }.`)
      for (const f of ['origin', 'destination', 'departure_date'] as const) {
        if (typeof slice[f] !== 'string' || slice[f] === '')
          throw invalid('validation_required', `data.slices[${i}].${f} is required.`)
      }
      const [origin, destination] = (['origin', 'destination'] as const).map((f) => {
        const code = String(slice[f])
        const found = /^[A-Z]{3}$/.test(code) ? placeOf(code) : null
        if (!found)
          throw invalid(
            'validation_format',
            `data.slices[${i}].${f} "${code}" is not an airport or city IATA code (this fake knows ${Object.keys(AIRPORTS).join(', ')} and their cities).`,
          )
        return found
      }) as [NonNullable<ReturnType<typeof placeOf>>, NonNullable<ReturnType<typeof placeOf>>]
      if (origin.place.iata_code === destination.place.iata_code || origin.airport === destination.airport)
        throw invalid('validation_format', `data.slices[${i}]: the origin and the destination must differ.`)
      if (!isDate(slice.departure_date))
        throw invalid('validation_format', `data.slices[${i}].departure_date must be a date (YYYY-MM-DD).`)
      if (slice.departure_date < today)
        throw invalid('validation_format', `data.slices[${i}].departure_date ${slice.departure_date} is in the past.`)
      return { origin, destination, date: slice.departure_date }
    })
    const passengers = (data.passengers as unknown[]).map((raw, i): OfferRequestPassenger => {
      const p = raw as Record<string, unknown> | null
      if (!p || typeof p !== 'object')
        throw invalid('validation_required', `data.passengers[${i}] must be { "type": "adult" } or { "age": … }.`)
      if (p.fare_type !== undefined)
        throw invalid('validation_format', `data.passengers[${i}].fare_type: this fake prices no fare types.`)
      const named = {
        given_name: typeof p.given_name === 'string' ? p.given_name : null,
        family_name: typeof p.family_name === 'string' ? p.family_name : null,
      }
      const common = { id: newId('pas'), ...named, fare_type: null, loyalty_programme_accounts: [] as [] }
      if (p.type !== undefined) {
        if (p.type !== 'adult')
          throw invalid(
            'validation_format',
            `data.passengers[${i}].type must be "adult" (give a child or an infant an age).`,
          )
        return { ...common, type: 'adult', age: null }
      }
      if (p.age === undefined)
        throw invalid('validation_required', `data.passengers[${i}] needs a type ("adult") or an age.`)
      const age = p.age
      if (typeof age !== 'number' || !Number.isInteger(age) || age < 0 || age > 130)
        throw invalid('validation_format', `data.passengers[${i}].age must be a whole number of years.`)
      // Searched by age, a passenger has no type: Duffel prices it by the age.
      return { ...common, type: null, age }
    })
    const count = (t: PassengerType) => passengers.filter((p) => kindOf(p) === t).length
    if (count('infant_without_seat') > count('adult'))
      throw invalid(
        'validation_format',
        "Each infant under 2 travels on an adult's lap: there are more infants than adults.",
      )

    const created = this.now().getTime()
    // Duffel's test-mode routes, by the first slice as named (a live-mode search is searched as any other).
    const first = slices[0]!
    const testRoute = this.accounts.get(token)!.live
      ? undefined
      : TEST_ROUTES[`${first.origin.place.iata_code}-${first.destination.place.iata_code}`]
    if (testRoute && 'unanswered' in testRoute)
      throw new Unanswered(
        `Duffel's test route ${first.origin.place.iata_code} → ${first.destination.place.iata_code}, "${testRoute.name}"`,
      )
    /** What a test route makes of a slice on its route or the reverse: a hub to connect at, or an airport to stop at. */
    const shapeOf = (from: string, to: string): { via?: string; stop?: string } => {
      if (!testRoute || !('via' in testRoute || 'stop' in testRoute)) return {}
      const [a, b] = [first.origin.airport, first.destination.airport]
      if (!((from === a && to === b) || (from === b && to === a))) return {}
      return 'via' in testRoute ? { via: testRoute.via } : { stop: testRoute.stop }
    }
    const shortHaul = slices.every(
      ({ origin, destination }) =>
        distanceKm(AIRPORTS[origin.airport]!, AIRPORTS[destination.airport]!) <= LONG_HAUL_KM,
    )
    // On a test route, Duffel's test airline alone (Duffel Airways), as Duffel's test mode answers them.
    const carriers = testRoute
      ? SEARCH_CARRIERS.filter((c) => c.carrier === DUFFEL_AIRWAYS)
      : SEARCH_CARRIERS.filter((c) => shortHaul || !c.shortHaulOnly)
    const offers =
      testRoute && 'offers' in testRoute
        ? []
        : carriers.map(({ carrier, times }): ListedOffer => {
            const { offer } = this.addOffer({
              token,
              expires_at: new Date(created + 30 * 60_000).toISOString(),
              passengers: passengers.map((p) => ({
                ...(p.age === null ? { type: kindOf(p) } : { age: p.age }),
                id: p.id,
                given_name: p.given_name ?? undefined,
                family_name: p.family_name ?? undefined,
              })),
              slices: slices.map(({ origin, destination, date }) =>
                searchSlice(
                  carrier,
                  times,
                  origin.airport,
                  destination.airport,
                  date,
                  cabin ?? 'economy',
                  shapeOf(origin.airport, destination.airport),
                ),
              ),
              ...(testRoute && 'hold' in testRoute ? { requiresInstantPayment: false } : {}),
              ...(testRoute && 'bags' in testRoute ? { bags: 'none' as const, includedBags: false } : {}),
            })
            const { available_services: _services, ...listed } = offer
            return { ...listed, available_services: null }
          })
    const request: OfferRequest = {
      id: newId('orq'),
      live_mode: this.accounts.get(token)!.live,
      created_at: new Date(created).toISOString(),
      cabin_class: cabin,
      client_key: randomBytes(48).toString('base64url'),
      slices: slices.map(({ origin, destination, date }) => ({
        origin: origin.place,
        origin_type: origin.place.type,
        destination: destination.place,
        destination_type: destination.place.type,
        departure_date: date,
      })),
      passengers,
    }
    return returnOffers === 'true' ? { ...request, offers } : request
  }

  /**
   * POST /air/orders: what `bookOrder` does, through the API and with its checks (every one first; then
   * the order is made, the offer is booked and the balance debited together). Services are the offer's
   * at their current price (after any priceChange or gone switch), as on POST /air/orders/{id}/services.
   * A hold is booked unpaid, without services (Duffel books none with a hold), and debits nothing.
   */
  private createOrder(body: unknown, token: string, view: View): WireOrder {
    const data = (body as { data?: unknown } | undefined)?.data as Record<string, unknown> | undefined
    if (!data || typeof data !== 'object')
      throw invalid(
        'validation_required',
        'The request body must be { "data": { "type", "selected_offers", "passengers", "payments", … } }.',
      )
    if (data.type === undefined) throw invalid('validation_required', 'data.type is required ("instant" or "hold").')
    if (data.type !== 'instant' && data.type !== 'hold')
      throw invalid(
        'validation_format',
        `data.type "${String(data.type)}" must be "instant" (paid now) or "hold" (paid later).`,
      )
    const hold = data.type === 'hold'
    const selected = data.selected_offers
    if (!Array.isArray(selected) || selected.length === 0)
      throw invalid('validation_required', 'data.selected_offers must name the offer to book.')
    if (selected.length !== 1 || typeof selected[0] !== 'string')
      throw invalid('validation_format', 'data.selected_offers must name exactly one offer id.')
    const metadata = data.metadata ?? {}
    if (
      typeof metadata !== 'object' ||
      Array.isArray(metadata) ||
      !Object.values(metadata).every((v) => typeof v === 'string')
    ) {
      throw invalid('validation_format', 'data.metadata must be an object of strings.')
    }
    const rec = this.visibleOffer(selected[0], token)
    const { offer } = rec
    const currency = offer.total_currency
    if (rec.booked)
      throw new Refusal(
        422,
        'invalid_state_error',
        'offer_no_longer_available',
        'Offer no longer available',
        'The requested offer has already been booked. Please search again.',
      )
    if (hold && offer.payment_requirements.requires_instant_payment)
      throw invalid(
        'validation_format',
        'data.type "hold": this offer requires instant payment (payment_requirements.requires_instant_payment), it cannot be held.',
      )

    // Passengers: each with what an airline needs, and exactly the offer's.
    if (!Array.isArray(data.passengers) || data.passengers.length === 0)
      throw invalid('validation_required', "data.passengers must list the offer's passengers.")
    const given = (data.passengers as unknown[]).map((raw, i): CreateOrderPassenger => {
      const p = raw as Record<string, unknown> | null
      const at = `data.passengers[${i}]`
      if (!p || typeof p !== 'object') throw invalid('validation_required', `${at} must be a passenger.`)
      for (const f of [
        'id',
        'given_name',
        'family_name',
        'title',
        'gender',
        'born_on',
        'email',
        'phone_number',
      ] as const) {
        if (typeof p[f] !== 'string' || (p[f] as string).trim() === '')
          throw invalid('validation_required', `${at}.${f} is required.`)
      }
      if (!TITLES.includes(p.title as OrderPassenger['title']))
        throw invalid('validation_format', `${at}.title must be one of ${TITLES.join(', ')}.`)
      if (p.gender !== 'm' && p.gender !== 'f') throw invalid('validation_format', `${at}.gender must be "m" or "f".`)
      if (!isDate(p.born_on) || p.born_on > this.iso().slice(0, 10))
        throw invalid('validation_format', `${at}.born_on must be a past date (YYYY-MM-DD).`)
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(p.email as string))
        throw invalid('validation_format', `${at}.email is not an email address.`)
      if (!/^\+[1-9]\d{6,14}$/.test(p.phone_number as string))
        throw invalid('validation_format', `${at}.phone_number must be in E.164 format (+442079460000).`)
      if (
        p.infant_passenger_id !== undefined &&
        p.infant_passenger_id !== null &&
        typeof p.infant_passenger_id !== 'string'
      )
        throw invalid('validation_format', `${at}.infant_passenger_id must be a passenger id.`)
      return p as unknown as CreateOrderPassenger
    })
    const ids = offer.passengers.map((p) => p.id)
    if (
      given.length !== ids.length ||
      new Set(given.map((p) => p.id)).size !== given.length ||
      !given.every((p) => ids.includes(p.id))
    ) {
      throw new Refusal(
        422,
        'validation_error',
        'passengers_mismatch',
        'Passengers do not match the offer',
        `The passengers must be exactly the offer's (${ids.join(', ')}), each once; got ${given.map((p) => p.id).join(', ')}.`,
      )
    }
    const typeOf = (id: string) => kindOf(offer.passengers.find((p) => p.id === id)!)
    const laps = given.filter((p) => p.infant_passenger_id).map((p) => [p.id, p.infant_passenger_id!] as const)
    if (
      laps.some(([adult, infant]) => typeOf(adult) !== 'adult' || typeOf(infant) !== 'infant_without_seat') ||
      new Set(laps.map(([, infant]) => infant)).size !== laps.length
    ) {
      throw invalid('validation_format', 'infant_passenger_id names an infant of the offer, on one adult each.')
    }

    // Services: the offer's bags and seats now (switches applied).
    const wanted = data.services ?? []
    if (!Array.isArray(wanted)) throw invalid('validation_format', 'data.services must be a list of { id, quantity }.')
    if (hold && wanted.length > 0)
      throw invalid('validation_format', 'data.services: a hold order books no services; add them once it is paid.')
    const seen = new Set<string>()
    for (const [i, s] of wanted.entries()) {
      const item = s as { id?: unknown; quantity?: unknown } | null
      if (!item || typeof item.id !== 'string')
        throw invalid('validation_required', `data.services[${i}].id is required.`)
      if (!Number.isInteger(item.quantity) || (item.quantity as number) < 1)
        throw invalid('validation_format', `data.services[${i}].quantity must be a whole number of at least 1.`)
      if (seen.has(item.id)) throw invalid('validation_format', `data.services lists ${item.id} twice.`)
      seen.add(item.id)
    }
    const bags = new Map(
      this.viewOffer(rec, view, true)
        .available_services!.filter((s) => s.type === 'baggage')
        .map((s) => [s.id, s]),
    )
    const seats = new Map(
      seatsOf(this.viewSeatMaps(rec, view)).flatMap(({ segment_id, seat }) =>
        seat.available_services.map((s) => [s.id, { segment_id, designator: seat.designator, service: s }] as const),
      ),
    )
    const taken = new Set<string>()
    const chosen = (wanted as Array<{ id: string; quantity: number }>).map(({ id, quantity }, i) => {
      const bag = bags.get(id)
      const seat = seats.get(id)
      if (!bag && !seat)
        throw new Refusal(
          422,
          'invalid_state_error',
          'unavailable_service',
          'Service not available',
          `The service ${id} is not a bag or a seat available for this offer.`,
          {},
          field('id', `/services/${i}/id`),
        )
      const maximum = bag ? bag.maximum_quantity : 1
      if (quantity > maximum) {
        throw new Refusal(
          422,
          'validation_error',
          'maximum_quantity_exceeded',
          'Maximum quantity exceeded',
          `The service ${id} can be booked at most ${maximum} time(s); ${quantity} were asked for.`,
        )
      }
      if (seat) {
        const [bySeat, byPassenger] = [
          `${seat.segment_id}:${seat.designator}`,
          `${seat.segment_id}:${seat.service.passenger_id}`,
        ]
        if (taken.has(bySeat) || taken.has(byPassenger))
          throw invalid(
            'validation_format',
            `data.services: seat ${seat.designator}, or a seat for passenger ${seat.service.passenger_id}, twice on one segment.`,
          )
        taken.add(bySeat).add(byPassenger)
      }
      return { id, quantity, price: (bag ?? seat!.service).total_amount }
    })

    if (hold) {
      if (data.payments !== undefined)
        throw invalid(
          'validation_format',
          'data.payments: a hold order is paid later (POST /air/payments); omit payments.',
        )
      return clone(this.book(rec, { hold: true }, { passengers: given, metadata: metadata as Record<string, string> }))
    }
    // The payment: the offer's total and the services', from the balance.
    if (!Array.isArray(data.payments) || data.payments.length === 0)
      throw invalid('validation_required', 'data.payments is required for an instant order.')
    if (data.payments.length > 1) throw invalid('validation_format', 'data.payments: pay with one payment.')
    const payment = data.payments[0] as Record<string, unknown> | null
    if (!payment || typeof payment !== 'object')
      throw invalid('validation_required', 'data.payments[0] must be { type, currency, amount }.')
    for (const f of ['type', 'amount', 'currency'] as const)
      if (typeof payment[f] !== 'string') throw invalid('validation_required', `data.payments[0].${f} is required.`)
    this.checkPaymentMethod(payment, currency, 'The offer is priced')
    const paid = toMinor(payment.amount, currency)
    if (paid === null)
      throw invalid(
        'validation_format',
        `data.payments[0].amount "${String(payment.amount)}" is not a decimal amount in ${currency}.`,
      )
    const due = chosen.reduce(
      (sum, c) => sum + mustMinor(c.price, currency, 'service') * BigInt(c.quantity),
      mustMinor(offer.total_amount, currency, 'offer total'),
    )
    if (paid !== due) {
      throw new Refusal(
        422,
        'validation_error',
        'price_changed',
        'Price changed',
        `The payment of ${String(payment.amount)} ${currency} does not match the offer's total with its services, ${fromMinor(due, currency)} ${currency}.`,
        {},
        field('amount', '/payments/0/amount'),
      )
    }
    const account = this.accounts.get(token)!
    if (account.currency !== currency || account.balance < due) throw insufficient(account, due, currency)

    const order = this.book(
      rec,
      { services: chosen.map(({ id, quantity }) => ({ id, quantity })) },
      { price: view.price, passengers: given, metadata: metadata as Record<string, string> },
    )
    account.balance -= due
    return clone(order)
  }

  /** A payment's type and currency, as every route that takes one checks them (the fake takes the balance only). */
  private checkPaymentMethod(payment: Record<string, unknown>, currency: string, what: string): void {
    if (payment.type !== 'balance')
      throw new Refusal(
        422,
        'validation_error',
        'unsupported_payment_type',
        'Unsupported payment type',
        `Payment type "${String(payment.type)}" is not supported here: pay with "balance".`,
      )
    if (payment.currency !== currency) {
      throw new Refusal(
        422,
        'validation_error',
        'invalid_payment_currency',
        'Invalid payment currency',
        `${what} in ${currency}; the payment is in ${String(payment.currency)}.`,
      )
    }
  }

  /**
   * POST /air/orders/{id}/services: every check first, then all or nothing (Duffel adds the services and
   * takes the payment together). The services added are the order's available ones at their current price
   * (after any priceChange switch), so a test can make the price a client pays differ from Duffel's.
   */
  private addServices(rec: OrderRecord, body: unknown, token: string, view: View): WireOrder {
    const data = (body as { data?: unknown } | undefined)?.data as Partial<AddServices> | undefined
    if (!data || typeof data !== 'object')
      throw invalid(
        'validation_required',
        'The request body must be { "data": { "payment": …, "add_services": […] } }.',
      )
    const payment = data.payment as Partial<AddServices['payment']> | undefined
    if (!payment || typeof payment !== 'object') throw invalid('validation_required', 'data.payment is required.')
    for (const f of ['type', 'amount', 'currency'] as const)
      if (typeof payment[f] !== 'string') throw invalid('validation_required', `data.payment.${f} is required.`)
    const wanted = data.add_services
    if (!Array.isArray(wanted) || wanted.length === 0)
      throw invalid('validation_required', 'data.add_services must list at least one service.')
    const seen = new Set<string>()
    for (const [i, s] of wanted.entries()) {
      const item = s as Partial<AddServices['add_services'][number]> | null
      if (!item || typeof item.id !== 'string')
        throw invalid('validation_required', `data.add_services[${i}].id is required.`)
      if (!Number.isInteger(item.quantity) || (item.quantity ?? 0) < 1)
        throw invalid('validation_format', `data.add_services[${i}].quantity must be a whole number of at least 1.`)
      if (seen.has(item.id)) throw invalid('validation_format', `data.add_services lists ${item.id} twice.`)
      seen.add(item.id)
    }
    if (rec.order.cancelled_at) throw orderCancelled()
    if (rec.order.payment_status.awaiting_payment) {
      throw new Refusal(
        422,
        'invalid_state_error',
        'order_awaiting_payment',
        'Order awaiting payment',
        'This order is held and not paid yet: pay it (POST /air/payments) before adding services.',
      )
    }
    const available = new Map(this.viewAvailable(rec, view).map((s) => [s.id, s]))
    const chosen = (wanted as AddServices['add_services']).map(({ id, quantity }, i) => {
      const service = available.get(id)
      if (!service) {
        throw new Refusal(
          422,
          'invalid_state_error',
          'ancillary_service_not_available',
          'Service not available',
          `The service ${id} is not available for this order.`,
          {},
          field('id', `/add_services/${i}/id`),
        )
      }
      if (quantity > service.maximum_quantity) {
        throw new Refusal(
          422,
          'validation_error',
          'maximum_quantity_exceeded',
          'Maximum quantity exceeded',
          `The service ${id} can be added at most ${service.maximum_quantity} time(s); ${quantity} were asked for.`,
        )
      }
      return { service, quantity }
    })
    const currency = chosen[0]!.service.total_currency
    this.checkPaymentMethod(
      payment as Record<string, unknown>,
      chosen.some((c) => c.service.total_currency !== currency) ? `${currency} and other currencies` : currency,
      'The services are priced',
    )
    const due = chosen.reduce(
      (sum, c) => sum + mustMinor(c.service.total_amount, currency, 'service') * BigInt(c.quantity),
      0n,
    )
    const paid = toMinor(payment.amount, currency)
    if (paid === null)
      throw invalid(
        'validation_format',
        `data.payment.amount "${String(payment.amount)}" is not a decimal amount in ${currency}.`,
      )
    if (paid !== due) {
      throw new Refusal(
        422,
        'validation_error',
        'payment_amount_does_not_match_order_amount',
        'Payment amount does not match',
        `The payment of ${payment.amount} ${currency} does not match the services' total of ${fromMinor(due, currency)} ${currency}.`,
        {},
        field('amount', '/payment/amount'),
      )
    }
    const account = this.accounts.get(token)!
    if (account.currency !== currency || account.balance < due) throw insufficient(account, due, currency)

    account.balance -= due
    for (const { service, quantity } of chosen) {
      rec.available.find((a) => a.service.id === service.id)!.remaining -= quantity
      rec.order.services.push({
        id: newId('ser'),
        type: 'baggage',
        passenger_ids: [...service.passenger_ids],
        segment_ids: [...service.segment_ids],
        quantity,
        total_amount: fromMinor(mustMinor(service.total_amount, currency, 'service') * BigInt(quantity), currency),
        total_currency: currency,
        metadata: { ...service.metadata },
      })
    }
    const order = rec.order
    order.total_amount = fromMinor(mustMinor(order.total_amount, currency, 'total') + due, currency)
    order.base_amount = fromMinor(mustMinor(order.base_amount, currency, 'base') + due, currency)
    order.synced_at = this.iso()
    return clone(order)
  }

  /**
   * POST /air/payments: pays a hold order its total_amount from the balance (every check first); the order
   * is then paid, with its tickets, and takes services like an instant one.
   */
  private createPayment(body: unknown, token: string): Payment {
    const data = (body as { data?: unknown } | undefined)?.data as Record<string, unknown> | undefined
    if (!data || typeof data !== 'object')
      throw invalid(
        'validation_required',
        'The request body must be { "data": { "order_id", "payment": { "type", "amount", "currency" } } }.',
      )
    if (typeof data.order_id !== 'string' || data.order_id === '')
      throw invalid('validation_required', 'data.order_id is required.')
    const payment = data.payment as Record<string, unknown> | null | undefined
    if (!payment || typeof payment !== 'object') throw invalid('validation_required', 'data.payment is required.')
    for (const f of ['type', 'amount', 'currency'] as const)
      if (typeof payment[f] !== 'string') throw invalid('validation_required', `data.payment.${f} is required.`)
    const rec = this.visibleOrder(data.order_id, token)
    const { order } = rec
    if (order.type !== 'hold') {
      throw new Refusal(
        422,
        'validation_error',
        'order_type_not_eligible_for_payment',
        'Order not eligible for payment',
        "This order can't be paid for because it isn't a hold order.",
        {},
        field('order_id', '/order_id'),
      )
    }
    if (order.cancelled_at) throw orderCancelled()
    if (!order.payment_status.awaiting_payment)
      throw new Refusal(
        422,
        'invalid_state_error',
        'already_paid',
        'Already paid',
        'This hold order has been paid already.',
      )
    const currency = order.total_currency
    this.checkPaymentMethod(payment, currency, 'The order is priced')
    const paid = toMinor(payment.amount, currency)
    if (paid === null)
      throw invalid(
        'validation_format',
        `data.payment.amount "${String(payment.amount)}" is not a decimal amount in ${currency}.`,
      )
    const due = mustMinor(order.total_amount, currency, 'order total')
    if (paid !== due) {
      throw new Refusal(
        422,
        'validation_error',
        'price_changed',
        'Price changed',
        `The payment of ${String(payment.amount)} ${currency} does not match the order's total, ${order.total_amount} ${currency}.`,
        {},
        field('amount', '/payment/amount'),
      )
    }
    const account = this.accounts.get(token)!
    if (account.currency !== currency || account.balance < due) throw insufficient(account, due, currency)
    account.balance -= due
    const at = this.iso()
    this.pay(rec, at)
    return {
      id: newId('pay'),
      type: 'balance',
      amount: fromMinor(due, currency),
      currency,
      created_at: at,
      live_mode: order.live_mode,
    }
  }
}
