/**
 * A fake Duffel API (api.duffel.com, `Duffel-Version: v2`) on loopback HTTP, for the tests of the Duffel
 * supplier (server/suppliers/duffel/): no machine that runs the tests reaches the internet, and Duffel's own
 * test mode cannot be told to fail on cue. It answers the few routes the adapter calls (docs/decisions.md "The
 * Duffel supplier") the way Duffel does: `{ data }` bodies, Duffel's error envelope, bearer tokens whose
 * prefix sets the mode, and it keeps the state those calls change (services added to an order, the balance
 * they are paid from). It also answers the seller's side of the flow, a search and a booking, so that the
 * live smoke test (test/live/duffel.live.ts) runs end to end against it too (main.ts prints how).
 *
 *   GET  /air/offers/{id}?return_available_services=true   the offer, with its baggage services
 *   GET  /air/seat_maps?offer_id=…                         one seat map per segment of the offer
 *   GET  /air/orders/{id}                                  the order, with its booked services
 *   GET  /air/orders?booking_reference=…                   `{ data: Order[], meta: { limit, before, after } }`
 *   GET  /air/orders/{id}/available_services               the baggage the order may still add (`aso_…`)
 *   POST /air/orders/{id}/services                         adds services, paid from the token's balance
 *   POST /air/offer_requests?return_offers=…               a search: for the requested slices (airport or city
 *                                                          codes the fake knows, see AIRPORTS), one offer by
 *                                                          Duffel Airways (ZZ) and one by British Airways,
 *                                                          built as `addOffer` builds them (bags, seat maps);
 *                                                          201 `{ data: OfferRequest }` (no `offers` when
 *                                                          return_offers=false)
 *   POST /air/orders                                       books an offer (`type: 'instant'`) with services of
 *                                                          it, paid from the token's balance; 201 `{ data: Order }`.
 *                                                          An offer is booked once (by this or by `bookOrder`);
 *                                                          GET /air/offers and seat maps still answer for it
 *
 * Every object is typed with the official client's types (@duffel/api), so a change of Duffel's shapes in
 * that package breaks the fake at compile time rather than letting it drift from Duffel.
 *
 * Accounts: each token is one Duffel account. Data made for a token is seen by that token only; a
 * `duffel_test_…` token's data is test mode (`live_mode: false`), a `duffel_live_…` token's live mode. So a
 * test token never sees live data (Duffel's mode separation) and one seller never sees another's.
 *
 * Errors (always `{ errors: [{ type, code, title, message, documentation_url }], meta: { request_id, status } }`,
 * the request id also in `x-request-id`). Codes Duffel documents are used where they fit; the others are
 * this fake's choice, listed here so that tests can rely on them:
 *
 *   401 authentication_error  missing_authorization_header   no Authorization header
 *   401 authentication_error  invalid_authorization_header   not `Bearer <token>`
 *   401 authentication_error  invalid_access_token           a token the fake was not given
 *   400 invalid_request_error unsupported_version            Duffel-Version missing or not `v2`
 *   400 invalid_request_error invalid_json                   a request body that is not JSON
 *   404 invalid_request_error not_found                      unknown route or id, or another account's / mode's data
 *   422 invalid_state_error   offer_no_longer_available      the offer (or its seat maps) past `expires_at`
 *   422 validation_error      validation_required            a required field or query parameter missing
 *   422 validation_error      validation_format              a field of the wrong shape (quantity, amount, duplicate id, limit)
 *   POST /air/orders/{id}/services refusals (nothing is added and nothing is paid):
 *   422 invalid_state_error   order_cancelled                the order was cancelled
 *   422 invalid_state_error   unavailable_service            a service id that is not among the order's available
 *                                                            services now (unknown, gone, or used up)
 *   422 validation_error      maximum_quantity_exceeded      a quantity above the service's maximum_quantity
 *   422 validation_error      unsupported_payment_type       payment.type other than `balance`
 *   422 validation_error      invalid_payment_currency       payment.currency is not the services' currency
 *   422 invalid_state_error   price_changed                  payment.amount is not the services' current total
 *   422 invalid_state_error   insufficient_balance           the account's balance cannot pay (or is in another currency)
 *   POST /air/offer_requests refusals:
 *   422 validation_error      validation_required            slices, passengers or one of a slice's fields missing
 *   422 validation_error      validation_format              an airport or city code the fake does not know, origin =
 *                                                            destination, a departure_date not YYYY-MM-DD or in the
 *                                                            past, a passenger neither `type: 'adult'` nor with an
 *                                                            age (fare_type is not supported), more lap infants than
 *                                                            adults, an unknown cabin_class, return_offers not a boolean
 *   POST /air/orders refusals (nothing is booked and nothing is paid; checked in this order: type and
 *   selected_offers, the offer, the passengers, the services, the payment):
 *   422 validation_error      validation_required            data, type, selected_offers, passengers, payments (or a
 *                                                            passenger's id, names, title, gender, born_on, email,
 *                                                            phone_number) missing
 *   422 validation_error      validation_format              type not `instant` (the fake holds no orders), not exactly
 *                                                            one selected offer, metadata not an object of strings,
 *                                                            a malformed passenger field, a service
 *                                                            listed twice or of quantity < 1, two seats for a passenger
 *                                                            (or one seat twice) on a segment, more than one payment,
 *                                                            a malformed amount
 *   404 invalid_request_error not_found                      the selected offer is unknown or another account's / mode's
 *   422 invalid_state_error   offer_no_longer_available      the offer is past `expires_at`, or already booked
 *   422 validation_error      passengers_mismatch            the passengers' ids are not exactly the offer's
 *   422 invalid_state_error   unavailable_service            a service that is not the offer's (a bag or a seat of its
 *                                                            seat maps) now (unknown, or gone)
 *   422 validation_error      maximum_quantity_exceeded      a bag above its maximum_quantity, a seat more than once
 *   422 validation_error      unsupported_payment_type       payment type other than `balance`
 *   422 validation_error      invalid_payment_currency       payment currency other than the offer's
 *   422 invalid_state_error   price_changed                  the amount is not the offer's total_amount plus the services'
 *                                                            current prices (Duffel's code for order creation)
 *   422 invalid_state_error   insufficient_balance           the account's balance cannot pay it
 *   Scenario switches:
 *   429 rate_limit_error      rate_limit_exceeded            with `Retry-After` and `ratelimit-*` headers
 *   500/502/503/504 api_error internal_server_error / bad_gateway / service_unavailable / gateway_timeout
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
  Aircraft, Airline, Airport, ApiResponseError, ApiResponseMeta, CabinClass, Offer, OfferAvailableServiceBaggage, OfferPassenger,
  OfferSlice, OfferSliceSegment, Order, OrderAvailableService, OrderPassenger, OrderService, OrderSlice, OrderSliceSegment,
  OrderSegmentPassenger, PassengerType, SeatMap, SeatMapCabin, SeatMapCabinRow, SeatMapCabinRowSectionAvailableService,
  SeatMapCabinRowSectionElement, SeatMapCabinRowSectionElementSeat, AddServices, OfferAvailableService, OfferAvailableServiceBaggageMetadata,
} from '../../../server/suppliers/duffel/types.ts'

// Duffel's types, as the adapter reads them (server/suppliers/duffel/types.ts), for the tests that build data.
export type {
  Aircraft, Airline, Airport, ApiResponseError, ApiResponseMeta, Offer, OfferAvailableService, OfferAvailableServiceBaggage,
  OfferAvailableServiceBaggageMetadata, OfferPassenger, OfferSlice, OfferSliceSegment, Order, OrderAvailableService, OrderPassenger,
  OrderService, OrderSlice, OrderSliceSegment, OrderSegmentPassenger, PassengerType, SeatMap, SeatMapCabin, SeatMapCabinRow,
  SeatMapCabinRowSectionAvailableService, SeatMapCabinRowSectionElement, SeatMapCabinRowSectionElementSeat, AddServices,
}

type DataOf<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>> extends { data: infer D } ? D : never
// Duffel's shapes of the seller's side (search and booking), read off the client's method signatures as
// server/suppliers/duffel/types.ts reads the adapter's (the adapter never searches nor books).
/** What POST /air/offer_requests answers (`offers` without their available services, as Duffel). */
export type OfferRequest = DataOf<Duffel['offerRequests']['get']>
export type CreateOfferRequest = Parameters<Duffel['offerRequests']['create']>[0]
export type CreateOrder = Parameters<Duffel['orders']['create']>[0]
export type CreateOrderPassenger = CreateOrder['passengers'][number]
type Place = OfferRequest['slices'][number]['origin']

/** The error envelope of every refusal. */
export interface DuffelErrorEnvelope { errors: ApiResponseError[]; meta: ApiResponseMeta }
/** The pagination of list answers as Duffel sends it (the package's type has no `null` for `before`). */
export interface ListMeta { limit: number; before: string | null; after: string | null }

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
  /** IATA aircraft code; by default a wide-body on long flights (over 3500 km), else an A320. */
  aircraft?: string
  cabin_class?: CabinClass
}

/**
 * A kind of extra bag the offer sells. Duffel sells baggage per passenger and per segment: one service covers
 * a whole slice (`scope: 'slice'`, as British Airways does) or one segment (`'segment'`, one service each).
 */
export interface BagSpec {
  type: 'checked' | 'carry_on'
  /** Price of one unit, a decimal string in the offer's currency ("45.00"). */
  total_amount: string
  maximum_quantity?: number
  /** `null`: the airline does not state a weight. */
  maximum_weight_kg?: number | null
  /** `null` (the default): the airline does not state dimensions. */
  dimensions?: { length: number; height: number; depth: number } | null
  scope?: 'slice' | 'segment'
  /** Who may buy it (default adults and children; Duffel sells infants without a seat no bags here). */
  passenger_types?: PassengerType[]
}

export interface AddOfferInput {
  /** The account (token) the offer belongs to: its prefix sets the mode. Default: the fake's test token. */
  token?: string
  id?: string
  passengers: Array<{ type: PassengerType; id?: string }>
  slices: Array<{ segments: SegmentInput[] }>
  /** Default: 30 minutes after the fake's now, as Duffel's offers. */
  expires_at?: string
  /** Default GBP. */
  currency?: string
  /** Extra bags for sale: `'none'`, or the list (replacing the airline's default list, see `defaultBags`). */
  bags?: 'none' | BagSpec[]
  /** Whether the segments have seat maps (default true). Without, GET /air/seat_maps answers `[]`. */
  seats?: boolean
}

export interface BookOrderOptions {
  /** The airline's record locator; default six random letters and digits. */
  booking_reference?: string
  /** The offer's services booked with the order (`ase_…` of its bags or its seats). */
  services?: Array<string | { id: string; quantity?: number }>
  /** Whether the order still sells bags after booking (`aso_…`, default true). */
  postBookingBags?: boolean
}

export interface FakeOffer { offer: Offer; seatMaps: SeatMap[] }
export interface FakeOrder { order: Order; availableServices: OrderAvailableService[] }

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
  /** Makes a token known (`duffel_test_…` or `duffel_live_…`), with its balance (default 10000.00 GBP; again: resets it). */
  addToken(token: string, opts?: { balance?: string; currency?: string }): void
  addOffer(input: AddOfferInput): FakeOffer
  /** An order of the offer, as the seller's booking makes it; the offer counts as booked (POST /air/orders refuses it). */
  bookOrder(offerId: string, opts?: BookOrderOptions): FakeOrder
  /** Sets `cancelled_at` (the order then sells nothing more and refuses purchases). */
  cancelOrder(orderId: string): Order
  /** Current state, as the fake holds it (before any scenario switch). */
  offer(offerId: string): FakeOffer
  order(orderId: string): FakeOrder
  /** The fake's clock (offer expiry, timestamps); null returns to the real clock. */
  setNow(date: Date | string | number | null): void
  now(): Date
  balance(token: string): { amount: string; currency: string }
  clearRequests(): void
  /** The offer's or order's available service (a bag, or a seat's service) now costs `newAmount`. */
  priceChange(serviceId: string, newAmount: string, opts?: SwitchOptions): void
  /** The service disappears from the offer, seat map or order's available services (and cannot be bought). */
  gone(serviceId: string, opts?: SwitchOptions): void
  /** 429 `rate_limit_exceeded` with `Retry-After` (default 1 s). */
  rateLimited(opts?: SwitchOptions & { retryAfterSeconds?: number }): void
  /** A 5xx envelope (default 500). */
  serverError(opts?: SwitchOptions & { status?: 500 | 502 | 503 | 504 }): void
  /** The request is never answered (until close): the client's time-out must fire. */
  timeout(opts?: SwitchOptions): void
  /** The request is carried out (a purchase is added and paid), then its connection is destroyed unanswered. */
  lostResponseAfterPurchase(opts?: SwitchOptions): void
  /** Turns every scenario switch off (data, balances and the request log stay). */
  reset(): void
}

/** Every seat of some seat maps, with its segment: what a test picks a seat service from. */
export function seatsOf(seatMaps: SeatMap[]): Array<{ segment_id: string; seat: SeatMapCabinRowSectionElementSeat }> {
  return seatMaps.flatMap((map) => map.cabins.flatMap((cabin) => cabin.rows.flatMap((row) => row.sections.flatMap((section) =>
    section.elements.filter(isSeat).map((seat) => ({ segment_id: map.segment_id, seat }))))))
}

/** The extra bags an airline sells when the offer says nothing: see `addOffer`'s `bags`. */
export function defaultBags(carrier: string): BagSpec[] {
  // easyJet states no weight for its hold bag (the airline's "up to 23 kg" is not in its data either), and
  // sells per flight: the case of a bag with neither weight nor size, and of per-segment services.
  if (carrier === 'U2') {
    return [
      { type: 'checked', total_amount: '39.99', maximum_quantity: 3, maximum_weight_kg: null, dimensions: null, scope: 'segment' },
      { type: 'carry_on', total_amount: '12.99', maximum_quantity: 1, maximum_weight_kg: 15, dimensions: { length: 56, height: 45, depth: 25 }, scope: 'segment' },
    ]
  }
  return [
    { type: 'checked', total_amount: '45.00', maximum_quantity: 2, maximum_weight_kg: 23, dimensions: null, scope: 'slice' },
    { type: 'carry_on', total_amount: '15.00', maximum_quantity: 1, maximum_weight_kg: 10, dimensions: { length: 56, height: 45, depth: 25 }, scope: 'slice' },
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

interface AirportFact { name: string; city: string; country: string; icao: string; lat: number; lon: number; tz: string; metro?: [string, string]; terminal?: string }
const AIRPORTS: Record<string, AirportFact> = {
  LHR: { name: 'Heathrow Airport', city: 'London', country: 'GB', icao: 'EGLL', lat: 51.470022, lon: -0.454295, tz: 'Europe/London', metro: ['LON', 'London'], terminal: '5' },
  LGW: { name: 'Gatwick Airport', city: 'London', country: 'GB', icao: 'EGKK', lat: 51.153662, lon: -0.182063, tz: 'Europe/London', metro: ['LON', 'London'], terminal: 'S' },
  MAN: { name: 'Manchester Airport', city: 'Manchester', country: 'GB', icao: 'EGCC', lat: 53.353744, lon: -2.27495, tz: 'Europe/London' },
  EDI: { name: 'Edinburgh Airport', city: 'Edinburgh', country: 'GB', icao: 'EGPH', lat: 55.950145, lon: -3.372288, tz: 'Europe/London' },
  DUB: { name: 'Dublin Airport', city: 'Dublin', country: 'IE', icao: 'EIDW', lat: 53.42128, lon: -6.270075, tz: 'Europe/Dublin', terminal: '2' },
  CDG: { name: 'Paris Charles de Gaulle Airport', city: 'Paris', country: 'FR', icao: 'LFPG', lat: 49.009691, lon: 2.547925, tz: 'Europe/Paris', metro: ['PAR', 'Paris'], terminal: '2E' },
  AMS: { name: 'Amsterdam Airport Schiphol', city: 'Amsterdam', country: 'NL', icao: 'EHAM', lat: 52.310539, lon: 4.768274, tz: 'Europe/Amsterdam' },
  FRA: { name: 'Frankfurt Airport', city: 'Frankfurt', country: 'DE', icao: 'EDDF', lat: 50.037933, lon: 8.562152, tz: 'Europe/Berlin', terminal: '1' },
  MAD: { name: 'Adolfo Suárez Madrid–Barajas Airport', city: 'Madrid', country: 'ES', icao: 'LEMD', lat: 40.498318, lon: -3.567598, tz: 'Europe/Madrid', terminal: '4' },
  BCN: { name: 'Barcelona–El Prat Airport', city: 'Barcelona', country: 'ES', icao: 'LEBL', lat: 41.297445, lon: 2.083294, tz: 'Europe/Madrid', terminal: '1' },
  DXB: { name: 'Dubai International Airport', city: 'Dubai', country: 'AE', icao: 'OMDB', lat: 25.253174, lon: 55.365673, tz: 'Asia/Dubai', terminal: '3' },
  JFK: { name: 'John F. Kennedy International Airport', city: 'New York', country: 'US', icao: 'KJFK', lat: 40.641311, lon: -73.778139, tz: 'America/New_York', metro: ['NYC', 'New York'], terminal: '8' },
  BOS: { name: 'Logan International Airport', city: 'Boston', country: 'US', icao: 'KBOS', lat: 42.365613, lon: -71.009560, tz: 'America/New_York', terminal: 'E' },
  LAX: { name: 'Los Angeles International Airport', city: 'Los Angeles', country: 'US', icao: 'KLAX', lat: 33.941589, lon: -118.40853, tz: 'America/Los_Angeles', terminal: 'B' },
}
const AIRLINES: Record<string, string> = {
  BA: 'British Airways', AA: 'American Airlines', IB: 'Iberia', U2: 'easyJet', ZZ: 'Duffel Airways', LH: 'Lufthansa',
  AF: 'Air France', KL: 'KLM', VS: 'Virgin Atlantic', EI: 'Aer Lingus', EK: 'Emirates',
}
const AIRCRAFT: Record<string, string> = {
  '320': 'Airbus A320', '319': 'Airbus A319', '321': 'Airbus A321', '32N': 'Airbus A320neo', '388': 'Airbus A380-800',
  '359': 'Airbus A350-900', '77W': 'Boeing 777-300ER', '789': 'Boeing 787-9', '738': 'Boeing 737-800',
}
const WIDE_BODY = new Set(['388', '359', '77W', '789'])

/** Invented travellers, given to an order's passengers in turn (given, family, gender, title). */
const NAMES: Record<PassengerType, Array<[string, string, 'm' | 'f', OrderPassenger['title']]>> = {
  adult: [['Maren', 'Holt', 'f', 'ms'], ['Idris', 'Okafor', 'm', 'mr'], ['Lena', 'Varga', 'f', 'mrs'], ['Tomas', 'Reyes', 'm', 'mr'], ['Priya', 'Nair', 'f', 'dr'], ['Noah', 'Lindqvist', 'm', 'mr']],
  child: [['Ada', 'Holt', 'f', 'miss'], ['Felix', 'Okafor', 'm', 'mr'], ['Suvi', 'Lindqvist', 'f', 'miss']],
  infant_without_seat: [['Milo', 'Holt', 'm', 'mr'], ['Iris', 'Varga', 'f', 'miss']],
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers: ids, money, time
// ---------------------------------------------------------------------------------------------------------

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const base62 = (bytes: Uint8Array, n: number) => Array.from(bytes.subarray(0, n), (b) => BASE62[b % 62]).join('')
/** Duffel's id shape: a prefix and 22 characters. Random, so two fakes (or two runs) never share an id. */
const newId = (prefix: string) => `${prefix}_0000${base62(randomBytes(18), 18)}`
/** Reference data keeps one id per code, like Duffel's airlines and aircraft. */
const stableId = (prefix: string, seed: string) => `${prefix}_0000${base62(createHash('sha256').update(seed).digest(), 18)}`
const newRequestId = () => base62(randomBytes(20), 20)
const newReference = () => Array.from(randomBytes(6), (b) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[b % 32]).join('')

/** Currencies whose minor unit is not the cent. */
const EXPONENT: Record<string, number> = { JPY: 0, KRW: 0, ISK: 0, CLP: 0, VND: 0, BHD: 3, KWD: 3, OMR: 3, JOD: 3, TND: 3 }
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
  const h = Math.sin(rad(b.lat - a.lat) / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lon - a.lon) / 2) ** 2
  return 2 * 6371 * Math.asin(Math.sqrt(h))
}

function airportOf(code: string): Airport {
  const a = AIRPORTS[code]
  if (!a) {
    // An airport the table does not know still gets Duffel's shape: tests may fly anywhere.
    return {
      id: `arp_${code.toLowerCase()}_zz`, type: 'airport', iata_code: code, icao_code: '', name: `${code} Airport`, city_name: code,
      iata_country_code: 'ZZ', iata_city_code: null, city: null, latitude: 0, longitude: 0, time_zone: 'UTC',
    }
  }
  const country = a.country.toLowerCase()
  return {
    id: `arp_${code.toLowerCase()}_${country}`, type: 'airport', iata_code: code, icao_code: a.icao, name: a.name, city_name: a.city,
    iata_country_code: a.country, iata_city_code: a.metro?.[0] ?? null,
    city: a.metro ? { id: `cit_${a.metro[0].toLowerCase()}_${country}`, type: 'city', iata_code: a.metro[0], iata_country_code: a.country, name: a.metro[1] } : null,
    latitude: a.lat, longitude: a.lon, time_zone: a.tz,
  }
}
function airlineOf(code: string): Airline {
  return {
    id: stableId('aln', code), name: AIRLINES[code] ?? `Airline ${code}`, iata_code: code,
    logo_symbol_url: `https://assets.duffel.com/img/airlines/for-light-background/full-color-logo/${code}.svg`,
    logo_lockup_url: `https://assets.duffel.com/img/airlines/for-light-background/full-color-lockup/${code}.svg`,
    conditions_of_carriage_url: null,
  }
}
const aircraftOf = (code: string): Aircraft => ({ id: stableId('arc', code), iata_code: code, name: AIRCRAFT[code] ?? `Aircraft ${code}` })

/**
 * What a search names (POST /air/offer_requests): an airport of the table, or a city of its airports
 * (LON, NYC, PAR), flown from its first airport. Null for a code the fake does not know: a search, unlike
 * the builders, cannot fly anywhere, for it must draw real distances and time zones.
 */
function placeOf(code: string): { place: Place; airport: string } | null {
  if (AIRPORTS[code]) return { place: airportOf(code), airport: code }
  const airports = Object.keys(AIRPORTS).filter((c) => AIRPORTS[c]!.metro?.[0] === code)
  const first = airports[0] ? AIRPORTS[airports[0]]! : undefined
  if (!first?.metro) return null
  return {
    place: { id: `cit_${code.toLowerCase()}_${first.country.toLowerCase()}`, type: 'city', iata_code: code, iata_country_code: first.country, name: first.metro[1], airports: airports.map(airportOf) },
    airport: airports[0]!,
  }
}
/**
 * The airlines a search finds, and the departures each may fly a slice at (local at the origin, "HH:MM"):
 * the first whose arrival is local daytime (06:00 to 23:30), as an eastbound Atlantic crossing leaves at night.
 */
const SEARCH_CARRIERS: Array<[string, string[]]> = [['ZZ', ['08:45', '10:30', '18:40', '21:50']], ['BA', ['13:20', '16:05', '19:10', '22:35']]]
/** A flight number that stays the same for a carrier on a route (as a timetable's). */
const flightNumber = (carrier: string, from: string, to: string) => String(100 + (createHash('sha256').update(`${carrier}${from}${to}`).digest().readUInt16BE(0) % 900))
const CABINS: readonly CabinClass[] = ['economy', 'premium_economy', 'business', 'first']
const TITLES: ReadonlyArray<OrderPassenger['title']> = ['mr', 'ms', 'mrs', 'miss', 'dr']
const DATE = /^\d{4}-\d{2}-\d{2}$/
/** A calendar date (YYYY-MM-DD) that exists. */
function isDate(v: unknown): v is string {
  if (typeof v !== 'string' || !DATE.test(v)) return false
  const ms = Date.parse(`${v}T00:00:00Z`)
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === v
}

/** Fare and tax per passenger and slice (Duffel states the tax apart on an offer, not on its services). */
const FARE: Record<PassengerType, [string, string]> = { adult: ['312.00', '96.40'], child: ['248.00', '96.40'], infant_without_seat: ['42.00', '21.10'] }

const isSeat = (e: SeatMapCabinRowSectionElement): e is SeatMapCabinRowSectionElementSeat => e.type === 'seat' || e.type === 'restricted_seat_general'
const clone = <T>(v: T): T => structuredClone(v)

// ---------------------------------------------------------------------------------------------------------
// Seat maps
// ---------------------------------------------------------------------------------------------------------

const EXIT_ROW = 14
const FIRST_ROW = 10
const LAST_ROW = 19
/** Seats already taken (no service for anyone): a fixed set, so that tests can name an occupied seat. */
const OCCUPIED = new Set(['10A', '11E', '12B', '12C', '13F', '14F', '15D', '16A', '16B', '17E', '18F', '11G', '13J', '15H', '17K'])
const EXIT_DISCLOSURES = [
  'Passengers in this seat must be at least 16 years old.',
  'Passengers in this seat must be able and willing to assist in an emergency evacuation.',
]

/**
 * One economy cabin of a few dozen seats, drawn as Duffel draws cabins: rows of sections (split by the
 * aisles) of elements. Galleys and lavatories at both ends, a bassinet row at the bulkhead (bassinets line up
 * with the seats of the row after), the exit as a row of `exit_row` elements of its own before the exit seats,
 * wings over the middle rows, a narrower last row (an `empty` in place of a seat) and one restricted seat.
 * Prices: bulkhead 28, exit 34, middle 16, back 11. Exit seats are sold to adults only (Duffel sells a seat per
 * passenger, and not every seat to every passenger); infants without a seat are sold none.
 */
function buildSeatMap(slice: OfferSlice, segment: OfferSliceSegment, passengers: OfferPassenger[], currency: string): SeatMap {
  const wide = WIDE_BODY.has(segment.aircraft.iata_code)
  const layout = wide ? [['A', 'B', 'C'], ['D', 'E', 'F', 'G'], ['H', 'J', 'K']] : [['A', 'B', 'C'], ['D', 'E', 'F']]
  const seated = passengers.filter((p) => p.type !== 'infant_without_seat')
  const adults = seated.filter((p) => p.type === 'adult')
  const rows: SeatMapCabinRow[] = []
  const facilities = (kinds: Array<'lavatory' | 'galley' | 'closet'>): SeatMapCabinRow =>
    ({ sections: layout.map((_, i) => ({ elements: [{ type: kinds[i % kinds.length]! }] })) })
  const seat = (row: number, column: string): SeatMapCabinRowSectionElement => {
    const designator = `${row}${column}`
    if (row === LAST_ROW && column === 'B') return { type: 'empty' }
    if (row === 18 && column === 'C') return { type: 'restricted_seat_general', designator, disclosures: [], available_services: [] }
    const exit = row === EXIT_ROW
    const [name, price] = row === FIRST_ROW ? ['Extra legroom seat', '28.00'] : exit ? ['Exit row seat', '34.00'] : row >= 17 ? ['Standard seat', '11.00'] : ['Standard seat', '16.00']
    const buyers = OCCUPIED.has(designator) ? [] : exit ? adults : seated
    return {
      type: 'seat', designator, name, disclosures: exit ? [...EXIT_DISCLOSURES] : [],
      available_services: buyers.map((p) => ({ id: newId('ase'), passenger_id: p.id, total_amount: price, total_currency: currency })),
    }
  }
  rows.push(facilities(wide ? ['lavatory', 'galley', 'lavatory'] : ['lavatory', 'galley']))
  rows.push({ sections: layout.map((cols, i) => ({ elements: cols.map((_, j): SeatMapCabinRowSectionElement => (i === 0 && j === 0) || (i === layout.length - 1 && j === cols.length - 1) ? { type: 'bassinet' } : { type: 'empty' }) })) })
  let wingFrom = 0
  let wingTo = 0
  for (let row = FIRST_ROW; row <= LAST_ROW; row++) {
    if (row === EXIT_ROW) rows.push({ sections: layout.map(() => ({ elements: [{ type: 'exit_row' }] })) })
    if (row === 13) wingFrom = rows.length
    if (row === 16) wingTo = rows.length
    rows.push({ sections: layout.map((cols) => ({ elements: cols.map((c) => seat(row, c)) })) })
  }
  rows.push(facilities(['galley', 'closet', 'lavatory']))
  return {
    id: newId('sea'), slice_id: slice.id, segment_id: segment.id,
    cabins: [{ deck: 0, cabin_class: 'economy', aisles: layout.length - 1, wings: { first_row_index: wingFrom, last_row_index: wingTo }, rows }],
  }
}

// ---------------------------------------------------------------------------------------------------------
// The fake
// ---------------------------------------------------------------------------------------------------------

interface Account { live: boolean; currency: string; balance: bigint }
/** `booked`: an order was made of it (by POST /air/orders or `bookOrder`); POST /air/orders refuses it then. */
interface OfferRecord { token: string; offer: Offer; seatMaps: SeatMap[]; booked: boolean }
interface AvailableRecord { service: OrderAvailableService; remaining: number }
interface OrderRecord { token: string; offerId: string; order: Order; available: AvailableRecord[]; seq: number }

type Failure =
  | { kind: 'timeout' }
  | { kind: 'rate'; retryAfterSeconds: number }
  | { kind: 'server'; status: 500 | 502 | 503 | 504 }
  | { kind: 'lost' }
type Switch = { remaining: number; match: (method: string, path: string) => boolean } & (
  | Failure
  | { kind: 'price'; serviceId: string; amount: string }
  | { kind: 'gone'; serviceId: string })

/** What the switches in force for one request make of the services. */
interface View { price(id: string): string | undefined; gone(id: string): boolean }

class Refusal extends Error {
  constructor(readonly status: number, readonly type: string, readonly code: string, readonly title: string, message: string, readonly headers: Record<string, string> = {}) {
    super(message)
  }
}
/** An id from the path; a malformed escape names nothing that exists. */
function pathId(raw: string): string {
  try { return decodeURIComponent(raw) } catch { throw notFound() }
}
const notFound = () => new Refusal(404, 'invalid_request_error', 'not_found', 'Not found', 'The resource you are trying to access does not exist.')
const invalid = (code: 'validation_required' | 'validation_format', message: string) => new Refusal(422, 'validation_error', code, code === 'validation_required' ? 'Required field' : 'Invalid field', message)

const SERVER_ERRORS = {
  500: ['internal_server_error', 'Internal server error', 'Something went wrong. Please contact our support team and attach the request_id to your message.'],
  502: ['bad_gateway', 'Bad gateway', 'Bad gateway error. Please contact our support team and attach the request_id to your message.'],
  503: ['service_unavailable', 'Service unavailable', 'There is a temporary issue with the server. Please retry later.'],
  504: ['gateway_timeout', 'Gateway timeout', 'Gateway timeout error. Please retry later.'],
} as const

function matcher(pattern: RequestPattern | undefined): (method: string, path: string) => boolean {
  if (pattern === undefined || pattern === '*') return () => true
  if (pattern instanceof RegExp) return (method, path) => new RegExp(pattern.source, pattern.flags.replace('g', '')).test(`${method} ${path}`)
  const space = pattern.indexOf(' ')
  const method = space < 0 ? '*' : pattern.slice(0, space).toUpperCase()
  const path = space < 0 ? pattern : pattern.slice(space + 1).trim()
  const re = path === '*' ? /.*/ : new RegExp(`^${path.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`)
  return (m, p) => (method === '*' || method === m) && re.test(p)
}

class Fake implements FakeDuffel {
  url = ''
  readonly token = `${DEFAULT_TOKEN_PREFIX}${base62(randomBytes(16), 16)}`
  private readonly server = createServer((req, res) => { void this.handle(req, res) })
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

  get requests(): readonly FakeRequest[] { return this.log }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, '127.0.0.1', () => { this.server.off('error', reject); resolve() })
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

  now(): Date { return new Date(this.fixedNow ?? Date.now()) }
  setNow(date: Date | string | number | null): void {
    if (date === null) { this.fixedNow = null; return }
    const ms = new Date(date).getTime()
    if (Number.isNaN(ms)) throw new Error(`setNow: ${String(date)} is not a date`)
    this.fixedNow = ms
  }
  private iso(): string { return this.now().toISOString() }

  addToken(token: string, opts: { balance?: string; currency?: string } = {}): void {
    const live = token.startsWith('duffel_live_')
    if (!live && !token.startsWith('duffel_test_')) throw new Error(`addToken: a Duffel token starts with duffel_test_ or duffel_live_ (got ${token.slice(0, 12)}…)`)
    const currency = opts.currency ?? DEFAULT_CURRENCY
    this.accounts.set(token, { live, currency, balance: mustMinor(opts.balance ?? DEFAULT_BALANCE, currency, 'addToken balance') })
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
    if (input.passengers.length === 0) throw new Error('addOffer: an offer has passengers')
    if (input.slices.length === 0 || input.slices.some((s) => s.segments.length === 0)) throw new Error('addOffer: an offer has slices of segments')
    const count = (t: PassengerType) => input.passengers.filter((p) => p.type === t).length
    if (count('infant_without_seat') > count('adult')) throw new Error('addOffer: each infant without a seat travels on an adult\'s lap')
    const passengers: OfferPassenger[] = input.passengers.map((p) => ({ id: p.id ?? newId('pas'), type: p.type, age: null, fare_type: null, loyalty_programme_accounts: [] }))
    if (new Set(passengers.map((p) => p.id)).size !== passengers.length) throw new Error('addOffer: passenger ids must differ')
    const first = input.slices[0]!.segments[0]!
    const owner = airlineOf(first.marketing_carrier)
    const now = this.now().getTime()

    const slices: OfferSlice[] = input.slices.map((s, si) => {
      const segments = s.segments.map((g, gi): OfferSliceSegment => {
        const what = `addOffer slice ${si} segment ${gi}`
        const from = airportOf(g.origin)
        const to = airportOf(g.destination)
        const dep = localTime(g.departing_at, from.time_zone, `${what} departing_at`)
        const arr = localTime(g.arriving_at, to.time_zone, `${what} arriving_at`)
        const a = AIRPORTS[g.origin]
        const b = AIRPORTS[g.destination]
        const km = a && b ? distanceKm(a, b) : null
        const aircraft = g.aircraft ?? (km !== null && km > 3500 ? '77W' : '320')
        const cabin = g.cabin_class ?? 'economy'
        const marketing = cabin === 'economy' ? 'Economy' : cabin === 'premium_economy' ? 'Premium Economy' : cabin === 'business' ? 'Business' : 'First'
        return {
          id: newId('seg'),
          origin: from, destination: to,
          origin_terminal: a?.terminal ?? null, destination_terminal: b?.terminal ?? null,
          departing_at: dep.local, arriving_at: arr.local, duration: duration(arr.utc - dep.utc),
          distance: km === null ? null : km.toFixed(1),
          marketing_carrier: airlineOf(g.marketing_carrier), marketing_carrier_flight_number: g.flight_number,
          operating_carrier: airlineOf(g.operating_carrier ?? g.marketing_carrier), operating_carrier_flight_number: g.flight_number,
          aircraft: aircraftOf(aircraft), stops: [],
          passengers: passengers.map((p) => ({
            passenger_id: p.id, cabin_class: cabin, cabin_class_marketing_name: marketing, fare_basis_code: 'QNC3R1',
            // The fare includes a cabin bag and no hold bag: extra bags are what is for sale.
            baggages: p.type === 'infant_without_seat' ? [] : [{ type: 'carry_on', quantity: 1 }, { type: 'checked', quantity: 0 }],
            cabin: { name: cabin, marketing_name: marketing, amenities: { wifi: { available: true, cost: 'paid' }, seat: { pitch: 'standard', type: 'standard' }, power: { available: true } } },
          })),
        }
      })
      const dep = localTime(segments[0]!.departing_at, segments[0]!.origin.time_zone, 'slice')
      const arr = localTime(segments.at(-1)!.arriving_at, segments.at(-1)!.destination.time_zone, 'slice')
      return {
        id: newId('sli'), origin: segments[0]!.origin, origin_type: 'airport', destination: segments.at(-1)!.destination, destination_type: 'airport',
        duration: duration(arr.utc - dep.utc), fare_brand_name: 'Economy Standard', segments, ngs_shelf: 2, comparison_key: base62(randomBytes(8), 8),
        conditions: {
          change_before_departure: { allowed: true, penalty_amount: '65.00', penalty_currency: currency },
          refund_before_departure: { allowed: false, penalty_amount: null, penalty_currency: null },
          advance_seat_selection: input.seats !== false, priority_boarding: false, priority_check_in: false,
        },
      }
    })

    let base = 0n
    let tax = 0n
    for (const p of passengers) {
      const [b, t] = FARE[p.type ?? 'adult']
      base += mustMinor(b, currency, 'fare') * BigInt(slices.length)
      tax += mustMinor(t, currency, 'tax') * BigInt(slices.length)
    }
    const emissions = slices.flatMap((s) => s.segments).reduce((kg, g) => kg + Math.round(Number(g.distance ?? 800) * 0.09), 0) * passengers.filter((p) => p.type !== 'infant_without_seat').length

    const bags = input.bags === 'none' ? [] : input.bags ?? defaultBags(first.marketing_carrier)
    const available_services: OfferAvailableServiceBaggage[] = []
    for (const spec of bags) {
      const price = mustMinor(spec.total_amount, currency, 'addOffer bag total_amount')
      for (const p of passengers) {
        if (!(spec.passenger_types ?? ['adult', 'child']).includes(p.type ?? 'adult')) continue
        for (const slice of slices) {
          const groups = (spec.scope ?? 'slice') === 'slice' ? [slice.segments] : slice.segments.map((g) => [g])
          for (const group of groups) {
            available_services.push({
              id: newId('ase'), type: 'baggage', passenger_ids: [p.id], segment_ids: group.map((g) => g.id),
              maximum_quantity: spec.maximum_quantity ?? 1, total_amount: fromMinor(price, currency), total_currency: currency,
              metadata: {
                type: spec.type, maximum_weight_kg: spec.maximum_weight_kg ?? null,
                maximum_length_cm: spec.dimensions?.length ?? null, maximum_height_cm: spec.dimensions?.height ?? null, maximum_depth_cm: spec.dimensions?.depth ?? null,
              },
            })
          }
        }
      }
    }

    const created = new Date(now).toISOString()
    const offer: Offer = {
      id: input.id ?? newId('off'), live_mode: account.live, created_at: created, updated_at: created,
      expires_at: input.expires_at ?? new Date(now + 30 * 60_000).toISOString(),
      owner, passengers, slices, available_services,
      base_amount: fromMinor(base, currency), base_currency: currency, tax_amount: fromMinor(tax, currency), tax_currency: currency,
      total_amount: fromMinor(base + tax, currency), total_currency: currency, total_emissions_kg: String(emissions),
      conditions: {
        change_before_departure: { allowed: true, penalty_amount: '65.00', penalty_currency: currency },
        refund_before_departure: { allowed: false, penalty_amount: null, penalty_currency: null },
      },
      payment_requirements: { requires_instant_payment: false, payment_required_by: new Date(now + 24 * 3600_000).toISOString(), price_guarantee_expires_at: new Date(now + 24 * 3600_000).toISOString() },
      passenger_identity_documents_required: false, supported_passenger_identity_document_types: ['passport'],
      supported_loyalty_programmes: [owner.iata_code ?? first.marketing_carrier], private_fares: [], partial: false,
    }
    if (this.offers.has(offer.id)) throw new Error(`addOffer: offer ${offer.id} exists`)
    const seatMaps = input.seats === false ? [] : slices.flatMap((s) => s.segments.map((g) => buildSeatMap(s, g, passengers, currency)))
    this.offers.set(offer.id, { token, offer, seatMaps, booked: false })
    return clone({ offer, seatMaps })
  }

  bookOrder(offerId: string, opts: BookOrderOptions = {}): FakeOrder {
    const rec = this.offers.get(offerId)
    if (!rec) throw new Error(`bookOrder: no offer ${offerId}`)
    return this.order(this.book(rec, opts).id)
  }

  /**
   * An order of the offer, as `bookOrder` and POST /air/orders make it. The route checks everything first
   * (the errors thrown here are the builder's); `price` gives a service's current price (the route's view
   * of the switches), `passengers` the travellers the seller named (else invented ones).
   */
  private book(rec: OfferRecord, opts: BookOrderOptions, given: { price?: (id: string) => string | undefined; passengers?: CreateOrderPassenger[]; metadata?: Record<string, string> } = {}): Order {
    const { offer } = rec
    const offerId = offer.id
    const priceOf = (s: { id: string; total_amount: string }) => given.price?.(s.id) ?? s.total_amount
    const currency = offer.total_currency
    const now = this.iso()

    // Duffel gives an order's slices and segments ids of their own; passengers keep the offer's ids.
    const segmentIds = new Map<string, string>()
    const slices: OrderSlice[] = offer.slices.map((s) => ({
      id: newId('sli'), origin: s.origin, origin_type: s.origin_type, destination: s.destination, destination_type: s.destination_type,
      duration: s.duration, fare_brand_name: s.fare_brand_name, conditions: { change_before_departure: s.conditions.change_before_departure },
      segments: s.segments.map((g): OrderSliceSegment => {
        const id = newId('seg')
        segmentIds.set(g.id, id)
        return {
          id, origin: g.origin, destination: g.destination, origin_terminal: g.origin_terminal ?? '', destination_terminal: g.destination_terminal ?? '',
          departing_at: g.departing_at, arriving_at: g.arriving_at, duration: g.duration ?? '', distance: g.distance ?? '',
          marketing_carrier: g.marketing_carrier, marketing_carrier_flight_number: g.marketing_carrier_flight_number,
          operating_carrier: g.operating_carrier, operating_carrier_flight_number: g.operating_carrier_flight_number,
          aircraft: g.aircraft, stops: [],
          passengers: g.passengers.map((p): OrderSegmentPassenger => ({ passenger_id: p.passenger_id, cabin_class: p.cabin_class, cabin_class_marketing_name: p.cabin_class_marketing_name, baggages: p.baggages.map((b) => ({ ...b })) })),
        }
      }),
    }))
    const mapSegments = (ids: string[]) => ids.map((id) => segmentIds.get(id)!)

    const used = new Map<PassengerType, number>()
    const year = this.now().getUTCFullYear()
    const passengers: OrderPassenger[] = offer.passengers.map((p, i) => {
      const type = p.type ?? 'adult'
      const n = used.get(type) ?? 0
      used.set(type, n + 1)
      const list = NAMES[type]
      const [given, family, gender, title] = list[n % list.length]!
      const born = type === 'adult' ? `${year - 38 - n}-04-1${n % 10}` : type === 'child' ? `${year - 8}-09-2${n % 10}` : `${year - 1}-0${(n % 9) + 1}-15`
      return {
        id: p.id, type, given_name: given, family_name: family, gender, title, born_on: born,
        email: `${given}.${family}@example.com`.toLowerCase(), phone_number: `+4420794600${String(10 + i).slice(-2)}`,
        loyalty_programme_accounts: [], infant_passenger_id: null,
      }
    })
    // Each infant without a seat sits on an adult's lap: Duffel names the infant on that adult.
    const infants = passengers.filter((p) => p.type === 'infant_without_seat')
    passengers.filter((p) => p.type === 'adult').forEach((adult, i) => { adult.infant_passenger_id = infants[i]?.id ?? null })
    if (given.passengers) {
      // The seller's travellers (the route checked them); whose lap an infant sits on, if the seller says.
      const pairs = given.passengers.some((g) => g.infant_passenger_id)
      for (const p of passengers) {
        const g = given.passengers.find((x) => x.id === p.id)!
        Object.assign(p, { given_name: g.given_name, family_name: g.family_name, title: g.title, gender: g.gender, born_on: g.born_on, email: g.email, phone_number: g.phone_number })
        if (pairs && p.type === 'adult') p.infant_passenger_id = g.infant_passenger_id ?? null
      }
    }

    const services: OrderService[] = []
    const bookedFromOffer = new Map<string, number>()
    const seatsTaken = new Set<string>()
    for (const wanted of opts.services ?? []) {
      const id = typeof wanted === 'string' ? wanted : wanted.id
      const quantity = typeof wanted === 'string' ? 1 : wanted.quantity ?? 1
      const bag = offer.available_services.find((s): s is OfferAvailableServiceBaggage => s.id === id && s.type === 'baggage')
      if (bag) {
        const total = (bookedFromOffer.get(id) ?? 0) + quantity
        if (quantity < 1 || total > bag.maximum_quantity) throw new Error(`bookOrder: ${id} allows at most ${bag.maximum_quantity}`)
        bookedFromOffer.set(id, total)
        services.push({
          id: newId('ser'), type: 'baggage', passenger_ids: [...bag.passenger_ids], segment_ids: mapSegments(bag.segment_ids), quantity,
          total_amount: fromMinor(mustMinor(priceOf(bag), currency, 'bag') * BigInt(quantity), currency), total_currency: currency, metadata: { ...bag.metadata },
        })
        continue
      }
      const seat = rec.seatMaps.flatMap((m) => seatsOf([m]).map((x) => ({ ...x, service: x.seat.available_services.find((s) => s.id === id) }))).find((x) => x.service)
      if (!seat?.service) throw new Error(`bookOrder: ${id} is not a service of offer ${offerId}`)
      const orderSegment = segmentIds.get(seat.segment_id)!
      const pid = seat.service.passenger_id
      if (seatsTaken.has(`${seat.segment_id}:${seat.seat.designator}`) || seatsTaken.has(`${seat.segment_id}:${pid}`)) throw new Error(`bookOrder: seat ${seat.seat.designator} or passenger ${pid} booked twice on a segment`)
      seatsTaken.add(`${seat.segment_id}:${seat.seat.designator}`).add(`${seat.segment_id}:${pid}`)
      const metadata = { designator: seat.seat.designator, disclosures: [...seat.seat.disclosures], name: seat.seat.name ?? null }
      services.push({ id: newId('ser'), type: 'seat', passenger_ids: [pid], segment_ids: [orderSegment], quantity: 1, total_amount: priceOf(seat.service), total_currency: currency, metadata })
      const onSegment = slices.flatMap((s) => s.segments).find((g) => g.id === orderSegment)!.passengers.find((p) => p.passenger_id === pid)
      if (onSegment) onSegment.seat = { ...metadata, disclosures: [...metadata.disclosures] }
    }
    const extras = services.reduce((sum, s) => sum + mustMinor(s.total_amount, currency, 'service'), 0n)

    const order: Order = {
      id: newId('ord'), live_mode: offer.live_mode, booking_reference: opts.booking_reference ?? newReference(),
      created_at: now, synced_at: now, cancelled_at: null, cancellation: null, content: 'self_managed',
      owner: offer.owner, slices, passengers, services,
      base_amount: fromMinor(mustMinor(offer.base_amount, currency, 'base') + extras, currency), base_currency: currency,
      tax_amount: offer.tax_amount ?? '0.00', tax_currency: currency,
      total_amount: fromMinor(mustMinor(offer.total_amount, currency, 'total') + extras, currency), total_currency: currency,
      conditions: clone(offer.conditions), metadata: { ...given.metadata }, airline_initiated_changes: [], available_actions: ['cancel', 'change', 'update'],
      payment_status: { awaiting_payment: false, paid_at: now },
      documents: passengers.map((p) => ({ type: 'electronic_ticket', passenger_ids: [p.id], unique_identifier: `125${Array.from(randomBytes(10), (b) => b % 10).join('')}` })),
    }
    // After booking, the same bags are sold again under new ids (`aso_…`), at the offer's prices, for what
    // the booking left of each maximum (a bag bought with the order counts against it).
    const available: AvailableRecord[] = opts.postBookingBags === false ? [] : offer.available_services
      .filter((s): s is OfferAvailableServiceBaggage => s.type === 'baggage')
      .map((s) => ({
        service: { ...clone(s), id: newId('aso'), segment_ids: mapSegments(s.segment_ids) },
        remaining: s.maximum_quantity - (bookedFromOffer.get(s.id) ?? 0),
      }))
    this.orders.set(order.id, { token: rec.token, offerId, order, available, seq: ++this.orderSeq })
    rec.booked = true
    return order
  }

  cancelOrder(orderId: string): Order {
    const rec = this.orders.get(orderId)
    if (!rec) throw new Error(`cancelOrder: no order ${orderId}`)
    rec.order.cancelled_at = this.iso()
    rec.order.available_actions = []
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
    return clone({ order: rec.order, availableServices: rec.available.filter((a) => a.remaining > 0).map((a) => ({ ...a.service, maximum_quantity: a.remaining })) })
  }

  clearRequests(): void { this.log.length = 0 }

  // --- scenario switches ------------------------------------------------------------------------------

  /** The currency of an available service (offer bag, seat, order bag), or undefined when there is none such. */
  private serviceCurrency(serviceId: string): string | undefined {
    for (const { offer, seatMaps } of this.offers.values()) {
      const found = offer.available_services.find((s) => s.id === serviceId)
        ?? seatsOf(seatMaps).flatMap((x) => x.seat.available_services).find((s) => s.id === serviceId)
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
    this.add({ kind: 'price', serviceId, amount: newAmount, remaining: opts.times ?? Infinity, match: matcher(opts.match) })
  }
  gone(serviceId: string, opts: SwitchOptions = {}): void {
    if (!this.serviceCurrency(serviceId)) throw new Error(`gone: no available service ${serviceId}`)
    this.add({ kind: 'gone', serviceId, remaining: opts.times ?? Infinity, match: matcher(opts.match) })
  }
  rateLimited(opts: SwitchOptions & { retryAfterSeconds?: number } = {}): void {
    this.add({ kind: 'rate', retryAfterSeconds: opts.retryAfterSeconds ?? 1, remaining: opts.times ?? 1, match: matcher(opts.match) })
  }
  serverError(opts: SwitchOptions & { status?: 500 | 502 | 503 | 504 } = {}): void {
    this.add({ kind: 'server', status: opts.status ?? 500, remaining: opts.times ?? 1, match: matcher(opts.match) })
  }
  timeout(opts: SwitchOptions = {}): void {
    this.add({ kind: 'timeout', remaining: opts.times ?? 1, match: matcher(opts.match) })
  }
  lostResponseAfterPurchase(opts: SwitchOptions = {}): void {
    this.add({ kind: 'lost', remaining: opts.times ?? 1, match: matcher(opts.match ?? 'POST /air/orders/*/services') })
  }
  reset(): void { this.switches = [] }

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
      if (sw.kind === 'price') { prices.set(sw.serviceId, sw.amount); sw.remaining-- }
      if (sw.kind === 'gone') { gone.add(sw.serviceId); sw.remaining-- }
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
      try { body = JSON.parse(raw) } catch { body = raw; malformed = true }
    }
    const authorization = req.headers.authorization
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? null
    const entry: FakeRequest = { method, path, query: Object.fromEntries(url.searchParams), body, token, at: this.iso(), status: null }
    this.log.push(entry)
    const requestId = newRequestId()

    let lose = false
    let status: number
    let payload: unknown
    let headers: Record<string, string> = {}
    try {
      if (authorization === undefined) throw new Refusal(401, 'authentication_error', 'missing_authorization_header', 'Missing authorization header', 'The Authorization header is missing: send "Authorization: Bearer <your access token>".')
      if (token === null) throw new Refusal(401, 'authentication_error', 'invalid_authorization_header', 'Invalid authorization header', 'The Authorization header must be "Bearer <your access token>".')
      const account = this.accounts.get(token)
      if (!account) throw new Refusal(401, 'authentication_error', 'invalid_access_token', 'Invalid access token', 'The access token used is not valid.')
      const version = req.headers['duffel-version']
      if (version !== 'v2') {
        throw new Refusal(400, 'invalid_request_error', 'unsupported_version', 'Unsupported version',
          version === undefined ? 'The Duffel-Version header is required (this API speaks "v2").' : `Duffel-Version "${String(version)}" is not supported: use "v2".`)
      }
      const failure = this.takeFailure(['timeout', 'rate', 'server'], method, path)
      if (failure?.kind === 'timeout') {
        this.hung.add(res)
        res.on('close', () => this.hung.delete(res))
        this.logLine?.(`${method} ${req.url ?? path} → (held unanswered: timeout switch)`)
        return
      }
      if (failure?.kind === 'rate') {
        throw new Refusal(429, 'rate_limit_error', 'rate_limit_exceeded', 'Rate limit exceeded', 'You have exceeded the rate limit. Please wait before retrying.', {
          'retry-after': String(failure.retryAfterSeconds), 'ratelimit-limit': '4000', 'ratelimit-remaining': '0',
          'ratelimit-reset': new Date(this.now().getTime() + failure.retryAfterSeconds * 1000).toUTCString(),
        })
      }
      if (failure?.kind === 'server') {
        const [code, title, message] = SERVER_ERRORS[failure.status]
        throw new Refusal(failure.status, 'api_error', code, title, message)
      }
      lose = this.takeFailure(['lost'], method, path) !== undefined
      const view = this.viewFor(method, path)
      if (malformed && method !== 'GET') throw new Refusal(400, 'invalid_request_error', 'invalid_json', 'Invalid JSON', 'The request body is not valid JSON.')
      const reply = this.route(method, path, url.searchParams, body, token, view)
      status = reply.status
      payload = reply.body
    } catch (e) {
      const r = e instanceof Refusal ? e : new Refusal(500, 'api_error', 'internal_server_error', 'Internal server error', `The fake failed: ${e instanceof Error ? e.message : String(e)}`)
      status = r.status
      headers = r.headers
      const envelope: DuffelErrorEnvelope = {
        errors: [{ type: r.type, code: r.code, title: r.title, message: r.message, documentation_url: DOCS }],
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
      'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)),
      'x-request-id': requestId, 'ratelimit-limit': '4000', ...headers,
    })
    res.end(text)
  }

  private route(method: string, path: string, query: URLSearchParams, body: unknown, token: string, view: View): { status: number; body: unknown } {
    let m: RegExpExecArray | null
    if (method === 'GET' && (m = /^\/air\/offers\/([^/]+)$/.exec(path))) {
      const rec = this.visibleOffer(pathId(m[1]!), token)
      return { status: 200, body: { data: this.viewOffer(rec, view, query.get('return_available_services') === 'true') } }
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
    if (method === 'POST' && path === '/air/offer_requests') return { status: 201, body: { data: this.createOfferRequest(body, query, token) } }
    if (method === 'POST' && path === '/air/orders') return { status: 201, body: { data: this.createOrder(body, token, view) } }
    throw notFound()
  }

  /** An offer of this token's account, or 404 (another account's or mode's offer does not exist for it). */
  private visibleOffer(id: string, token: string): OfferRecord {
    const rec = this.offers.get(id)
    if (!rec || rec.token !== token) throw notFound()
    if (this.now().getTime() >= Date.parse(rec.offer.expires_at)) {
      throw new Refusal(422, 'invalid_state_error', 'offer_no_longer_available', 'Offer no longer available', 'The requested offer is no longer available. Please search again.')
    }
    return rec
  }
  private visibleOrder(id: string, token: string): OrderRecord {
    const rec = this.orders.get(id)
    if (!rec || rec.token !== token) throw notFound()
    return rec
  }

  private viewOffer(rec: OfferRecord, view: View, withServices: boolean): Offer {
    const offer = clone(rec.offer)
    // Duffel returns available services only when asked: an adapter that forgets to ask sees no bags.
    offer.available_services = withServices
      ? offer.available_services.filter((s) => !view.gone(s.id)).map((s) => ({ ...s, total_amount: view.price(s.id) ?? s.total_amount }))
      : []
    return offer
  }
  private viewSeatMaps(rec: OfferRecord, view: View): SeatMap[] {
    const maps = clone(rec.seatMaps)
    for (const { seat } of seatsOf(maps)) {
      seat.available_services = seat.available_services.filter((s) => !view.gone(s.id)).map((s) => ({ ...s, total_amount: view.price(s.id) ?? s.total_amount }))
    }
    return maps
  }
  private viewAvailable(rec: OrderRecord, view: View): OrderAvailableService[] {
    if (rec.order.cancelled_at) return []
    return rec.available
      .filter((a) => a.remaining > 0 && !view.gone(a.service.id))
      .map((a) => ({ ...clone(a.service), maximum_quantity: a.remaining, total_amount: view.price(a.service.id) ?? a.service.total_amount }))
  }

  private listOrders(query: URLSearchParams, token: string): { data: Order[]; meta: ListMeta } {
    const limitText = query.get('limit')
    const limit = limitText === null ? 50 : Number(limitText)
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw invalid('validation_format', 'limit must be a whole number from 1 to 200.')
    const reference = query.get('booking_reference')
    let all = [...this.orders.values()].filter((o) => o.token === token).sort((a, b) => a.seq - b.seq)
    if (reference !== null) all = all.filter((o) => o.order.booking_reference.toUpperCase() === reference.trim().toUpperCase())
    // Cursors are order ids here (Duffel's are opaque): `after` pages forward, `before` back.
    const after = query.get('after')
    const before = query.get('before')
    let start = 0
    let end = all.length
    if (after) start = all.findIndex((o) => o.order.id === after) + 1
    if (before) end = Math.max(0, all.findIndex((o) => o.order.id === before))
    if (before && !after) start = Math.max(start, end - limit)
    const page = all.slice(start, Math.min(end, start + limit))
    const last = start + page.length
    return {
      data: page.map((o) => clone(o.order)),
      meta: { limit, after: last < all.length && page.length > 0 ? page.at(-1)!.order.id : null, before: start > 0 && page.length > 0 ? page[0]!.order.id : null },
    }
  }

  /**
   * POST /air/offer_requests: a search. For each requested slice, a direct flight on its date by each of
   * SEARCH_CARRIERS (morning by Duffel Airways, afternoon by British Airways), its length drawn from the
   * distance; each offer is the account's, built by `addOffer` (its bags, seat maps and half-hour expiry),
   * and its passengers keep the request's passenger ids, as Duffel's do.
   */
  private createOfferRequest(body: unknown, query: URLSearchParams, token: string): OfferRequest | Omit<OfferRequest, 'offers'> {
    const data = (body as { data?: unknown } | undefined)?.data as Partial<CreateOfferRequest> | undefined
    if (!data || typeof data !== 'object') throw invalid('validation_required', 'The request body must be { "data": { "slices": […], "passengers": […] } }.')
    const returnOffers = query.get('return_offers') ?? 'true'
    if (returnOffers !== 'true' && returnOffers !== 'false') throw invalid('validation_format', 'return_offers must be true or false.')
    const cabin = data.cabin_class ?? 'economy'
    if (!CABINS.includes(cabin)) throw invalid('validation_format', `cabin_class must be one of ${CABINS.join(', ')}.`)
    if (!Array.isArray(data.slices) || data.slices.length === 0) throw invalid('validation_required', 'data.slices must list at least one slice.')
    if (!Array.isArray(data.passengers) || data.passengers.length === 0) throw invalid('validation_required', 'data.passengers must list at least one passenger.')
    const today = this.iso().slice(0, 10)
    const slices = (data.slices as unknown[]).map((raw, i) => {
      const slice = raw as Partial<Record<'origin' | 'destination' | 'departure_date', unknown>> | null
      if (!slice || typeof slice !== 'object') throw invalid('validation_required', `data.slices[${i}] must be { origin, destination, departure_date }.`)
      for (const f of ['origin', 'destination', 'departure_date'] as const) {
        if (typeof slice[f] !== 'string' || slice[f] === '') throw invalid('validation_required', `data.slices[${i}].${f} is required.`)
      }
      const [origin, destination] = (['origin', 'destination'] as const).map((f) => {
        const code = String(slice[f])
        const found = /^[A-Z]{3}$/.test(code) ? placeOf(code) : null
        if (!found) throw invalid('validation_format', `data.slices[${i}].${f} "${code}" is not an airport or city IATA code (this fake knows ${Object.keys(AIRPORTS).join(', ')} and their cities).`)
        return found
      }) as [NonNullable<ReturnType<typeof placeOf>>, NonNullable<ReturnType<typeof placeOf>>]
      if (origin.place.iata_code === destination.place.iata_code || origin.airport === destination.airport) throw invalid('validation_format', `data.slices[${i}]: the origin and the destination must differ.`)
      if (!isDate(slice.departure_date)) throw invalid('validation_format', `data.slices[${i}].departure_date must be a date (YYYY-MM-DD).`)
      if (slice.departure_date < today) throw invalid('validation_format', `data.slices[${i}].departure_date ${slice.departure_date} is in the past.`)
      return { origin, destination, date: slice.departure_date }
    })
    const passengers = (data.passengers as unknown[]).map((raw, i): OfferRequest['passengers'][number] & { type: PassengerType } => {
      const p = raw as Record<string, unknown> | null
      if (!p || typeof p !== 'object') throw invalid('validation_required', `data.passengers[${i}] must be { "type": "adult" } or { "age": … }.`)
      if (p.fare_type !== undefined) throw invalid('validation_format', `data.passengers[${i}].fare_type: this fake prices no fare types.`)
      const names = { ...(typeof p.given_name === 'string' ? { given_name: p.given_name } : {}), ...(typeof p.family_name === 'string' ? { family_name: p.family_name } : {}) }
      if (p.type !== undefined) {
        if (p.type !== 'adult') throw invalid('validation_format', `data.passengers[${i}].type must be "adult" (give a child or an infant an age).`)
        return { id: newId('pas'), type: 'adult', ...names, loyalty_programme_accounts: [] }
      }
      if (p.age === undefined) throw invalid('validation_required', `data.passengers[${i}] needs a type ("adult") or an age.`)
      const age = p.age
      if (typeof age !== 'number' || !Number.isInteger(age) || age < 0 || age > 130) throw invalid('validation_format', `data.passengers[${i}].age must be a whole number of years.`)
      return { id: newId('pas'), type: age < 2 ? 'infant_without_seat' : age < 12 ? 'child' : 'adult', age, ...names, loyalty_programme_accounts: [] }
    })
    const count = (t: PassengerType) => passengers.filter((p) => p.type === t).length
    if (count('infant_without_seat') > count('adult')) throw invalid('validation_format', 'Each infant under 2 travels on an adult\'s lap: there are more infants than adults.')

    const created = this.now().getTime()
    const offers = SEARCH_CARRIERS.map(([carrier, times]) => {
      const { offer } = this.addOffer({
        token, expires_at: new Date(created + 30 * 60_000).toISOString(),
        passengers: passengers.map((p) => ({ type: p.type, id: p.id })),
        slices: slices.map(({ origin, destination, date }) => {
          const from = AIRPORTS[origin.airport]!
          const to = AIRPORTS[destination.airport]!
          // Block time: the distance at 820 km/h, plus half an hour on the ground, to the next 5 minutes.
          const blockMs = Math.ceil((distanceKm(from, to) / 820 * 60 + 30) / 5) * 5 * 60_000
          const flights = times.map((time) => {
            const departing = `${date}T${time}:00`
            const arrivingMs = localTime(departing, from.tz, 'search').utc + blockMs
            const local = new Date(arrivingMs + offsetMs(arrivingMs, to.tz)).toISOString().slice(11, 16)
            return { departing, arriving: new Date(arrivingMs).toISOString(), daytime: local >= '06:00' && local <= '23:30' }
          })
          const { departing, arriving } = flights.find((f) => f.daytime) ?? flights[0]!
          return { segments: [{ origin: origin.airport, destination: destination.airport, departing_at: departing, arriving_at: arriving, marketing_carrier: carrier, flight_number: flightNumber(carrier, origin.airport, destination.airport), cabin_class: cabin }] }
        }),
      })
      const { available_services: _services, ...listed } = offer
      return listed
    })
    const request: OfferRequest = {
      id: newId('orq'), live_mode: this.accounts.get(token)!.live, created_at: new Date(created).toISOString(), cabin_class: cabin,
      slices: slices.map(({ origin, destination, date }) => ({ origin: origin.place, origin_type: origin.place.type, destination: destination.place, destination_type: destination.place.type, departure_date: date })),
      passengers, offers,
    }
    if (returnOffers === 'true') return request
    const { offers: _offers, ...withoutOffers } = request
    return withoutOffers
  }

  /**
   * POST /air/orders: what `bookOrder` does, through the API and with its checks (every one first; then
   * the order is made, the offer is booked and the balance debited together). Services are the offer's
   * at their current price (after any priceChange or gone switch), as on POST /air/orders/{id}/services.
   */
  private createOrder(body: unknown, token: string, view: View): Order {
    const data = (body as { data?: unknown } | undefined)?.data as Record<string, unknown> | undefined
    if (!data || typeof data !== 'object') throw invalid('validation_required', 'The request body must be { "data": { "type", "selected_offers", "passengers", "payments", … } }.')
    if (data.type === undefined) throw invalid('validation_required', 'data.type is required ("instant").')
    if (data.type !== 'instant') throw invalid('validation_format', `data.type "${String(data.type)}": this fake books instant orders only (paid now, from the balance).`)
    const selected = data.selected_offers
    if (!Array.isArray(selected) || selected.length === 0) throw invalid('validation_required', 'data.selected_offers must name the offer to book.')
    if (selected.length !== 1 || typeof selected[0] !== 'string') throw invalid('validation_format', 'data.selected_offers must name exactly one offer id.')
    const metadata = data.metadata ?? {}
    if (typeof metadata !== 'object' || Array.isArray(metadata) || !Object.values(metadata).every((v) => typeof v === 'string')) {
      throw invalid('validation_format', 'data.metadata must be an object of strings.')
    }
    const rec = this.visibleOffer(selected[0], token)
    const { offer } = rec
    const currency = offer.total_currency
    if (rec.booked) throw new Refusal(422, 'invalid_state_error', 'offer_no_longer_available', 'Offer no longer available', 'The requested offer has already been booked. Please search again.')

    // Passengers: each with what an airline needs, and exactly the offer's.
    if (!Array.isArray(data.passengers) || data.passengers.length === 0) throw invalid('validation_required', 'data.passengers must list the offer\'s passengers.')
    const given = (data.passengers as unknown[]).map((raw, i): CreateOrderPassenger => {
      const p = raw as Record<string, unknown> | null
      const at = `data.passengers[${i}]`
      if (!p || typeof p !== 'object') throw invalid('validation_required', `${at} must be a passenger.`)
      for (const f of ['id', 'given_name', 'family_name', 'title', 'gender', 'born_on', 'email', 'phone_number'] as const) {
        if (typeof p[f] !== 'string' || (p[f] as string).trim() === '') throw invalid('validation_required', `${at}.${f} is required.`)
      }
      if (!TITLES.includes(p.title as OrderPassenger['title'])) throw invalid('validation_format', `${at}.title must be one of ${TITLES.join(', ')}.`)
      if (p.gender !== 'm' && p.gender !== 'f') throw invalid('validation_format', `${at}.gender must be "m" or "f".`)
      if (!isDate(p.born_on) || p.born_on > this.iso().slice(0, 10)) throw invalid('validation_format', `${at}.born_on must be a past date (YYYY-MM-DD).`)
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(p.email as string)) throw invalid('validation_format', `${at}.email is not an email address.`)
      if (!/^\+[1-9]\d{6,14}$/.test(p.phone_number as string)) throw invalid('validation_format', `${at}.phone_number must be in E.164 format (+442079460000).`)
      if (p.infant_passenger_id !== undefined && p.infant_passenger_id !== null && typeof p.infant_passenger_id !== 'string') throw invalid('validation_format', `${at}.infant_passenger_id must be a passenger id.`)
      return p as unknown as CreateOrderPassenger
    })
    const ids = offer.passengers.map((p) => p.id)
    if (given.length !== ids.length || new Set(given.map((p) => p.id)).size !== given.length || !given.every((p) => ids.includes(p.id))) {
      throw new Refusal(422, 'validation_error', 'passengers_mismatch', 'Passengers do not match the offer',
        `The passengers must be exactly the offer's (${ids.join(', ')}), each once; got ${given.map((p) => p.id).join(', ')}.`)
    }
    const typeOf = (id: string) => offer.passengers.find((p) => p.id === id)!.type
    const laps = given.filter((p) => p.infant_passenger_id).map((p) => [p.id, p.infant_passenger_id!] as const)
    if (laps.some(([adult, infant]) => typeOf(adult) !== 'adult' || typeOf(infant) !== 'infant_without_seat') || new Set(laps.map(([, infant]) => infant)).size !== laps.length) {
      throw invalid('validation_format', 'infant_passenger_id names an infant of the offer, on one adult each.')
    }

    // Services: the offer's bags and seats now (switches applied).
    const wanted = data.services ?? []
    if (!Array.isArray(wanted)) throw invalid('validation_format', 'data.services must be a list of { id, quantity }.')
    const seen = new Set<string>()
    for (const [i, s] of wanted.entries()) {
      const item = s as { id?: unknown; quantity?: unknown } | null
      if (!item || typeof item.id !== 'string') throw invalid('validation_required', `data.services[${i}].id is required.`)
      if (!Number.isInteger(item.quantity) || (item.quantity as number) < 1) throw invalid('validation_format', `data.services[${i}].quantity must be a whole number of at least 1.`)
      if (seen.has(item.id)) throw invalid('validation_format', `data.services lists ${item.id} twice.`)
      seen.add(item.id)
    }
    const bags = new Map(this.viewOffer(rec, view, true).available_services.map((s) => [s.id, s]))
    const seats = new Map(seatsOf(this.viewSeatMaps(rec, view)).flatMap(({ segment_id, seat }) => seat.available_services.map((s) => [s.id, { segment_id, designator: seat.designator, service: s }] as const)))
    const taken = new Set<string>()
    const chosen = (wanted as Array<{ id: string; quantity: number }>).map(({ id, quantity }) => {
      const bag = bags.get(id)
      const seat = seats.get(id)
      if (!bag && !seat) throw new Refusal(422, 'invalid_state_error', 'unavailable_service', 'Service not available', `The service ${id} is not available for this offer.`)
      const maximum = bag ? bag.maximum_quantity : 1
      if (quantity > maximum) {
        throw new Refusal(422, 'validation_error', 'maximum_quantity_exceeded', 'Maximum quantity exceeded', `The service ${id} can be booked at most ${maximum} time(s); ${quantity} were asked for.`)
      }
      if (seat) {
        const [bySeat, byPassenger] = [`${seat.segment_id}:${seat.designator}`, `${seat.segment_id}:${seat.service.passenger_id}`]
        if (taken.has(bySeat) || taken.has(byPassenger)) throw invalid('validation_format', `data.services: seat ${seat.designator}, or a seat for passenger ${seat.service.passenger_id}, twice on one segment.`)
        taken.add(bySeat).add(byPassenger)
      }
      return { id, quantity, price: (bag ?? seat!.service).total_amount }
    })

    // The payment: the offer's total and the services', from the balance.
    if (!Array.isArray(data.payments) || data.payments.length === 0) throw invalid('validation_required', 'data.payments is required for an instant order.')
    if (data.payments.length > 1) throw invalid('validation_format', 'data.payments: pay with one payment.')
    const payment = data.payments[0] as Record<string, unknown> | null
    if (!payment || typeof payment !== 'object') throw invalid('validation_required', 'data.payments[0] must be { type, currency, amount }.')
    for (const f of ['type', 'amount', 'currency'] as const) if (typeof payment[f] !== 'string') throw invalid('validation_required', `data.payments[0].${f} is required.`)
    if (payment.type !== 'balance') throw new Refusal(422, 'validation_error', 'unsupported_payment_type', 'Unsupported payment type', `Payment type "${String(payment.type)}" is not supported here: pay with "balance".`)
    if (payment.currency !== currency) {
      throw new Refusal(422, 'validation_error', 'invalid_payment_currency', 'Invalid payment currency', `The offer is priced in ${currency}; the payment is in ${String(payment.currency)}.`)
    }
    const paid = toMinor(payment.amount, currency)
    if (paid === null) throw invalid('validation_format', `data.payments[0].amount "${String(payment.amount)}" is not a decimal amount in ${currency}.`)
    const due = chosen.reduce((sum, c) => sum + mustMinor(c.price, currency, 'service') * BigInt(c.quantity), mustMinor(offer.total_amount, currency, 'offer total'))
    if (paid !== due) {
      throw new Refusal(422, 'invalid_state_error', 'price_changed', 'Price changed', `The payment of ${String(payment.amount)} ${currency} does not match the offer's total with its services, ${fromMinor(due, currency)} ${currency}.`)
    }
    const account = this.accounts.get(token)!
    if (account.currency !== currency || account.balance < due) {
      throw new Refusal(422, 'invalid_state_error', 'insufficient_balance', 'Insufficient balance', `Your balance of ${fromMinor(account.balance, account.currency)} ${account.currency} cannot pay ${fromMinor(due, currency)} ${currency}.`)
    }

    const order = this.book(rec, { services: chosen.map(({ id, quantity }) => ({ id, quantity })) }, { price: view.price, passengers: given, metadata: metadata as Record<string, string> })
    account.balance -= due
    return clone(order)
  }

  /**
   * POST /air/orders/{id}/services: every check first, then all or nothing (Duffel adds the services and
   * takes the payment together). The services added are the order's available ones at their current price
   * (after any priceChange switch), so a test can make the price a client pays differ from Duffel's.
   */
  private addServices(rec: OrderRecord, body: unknown, token: string, view: View): Order {
    const data = (body as { data?: unknown } | undefined)?.data as Partial<AddServices> | undefined
    if (!data || typeof data !== 'object') throw invalid('validation_required', 'The request body must be { "data": { "payment": …, "add_services": […] } }.')
    const payment = data.payment as Partial<AddServices['payment']> | undefined
    if (!payment || typeof payment !== 'object') throw invalid('validation_required', 'data.payment is required.')
    for (const f of ['type', 'amount', 'currency'] as const) if (typeof payment[f] !== 'string') throw invalid('validation_required', `data.payment.${f} is required.`)
    const wanted = data.add_services
    if (!Array.isArray(wanted) || wanted.length === 0) throw invalid('validation_required', 'data.add_services must list at least one service.')
    const seen = new Set<string>()
    for (const [i, s] of wanted.entries()) {
      const item = s as Partial<AddServices['add_services'][number]> | null
      if (!item || typeof item.id !== 'string') throw invalid('validation_required', `data.add_services[${i}].id is required.`)
      if (!Number.isInteger(item.quantity) || (item.quantity ?? 0) < 1) throw invalid('validation_format', `data.add_services[${i}].quantity must be a whole number of at least 1.`)
      if (seen.has(item.id)) throw invalid('validation_format', `data.add_services lists ${item.id} twice.`)
      seen.add(item.id)
    }
    if (rec.order.cancelled_at) throw new Refusal(422, 'invalid_state_error', 'order_cancelled', 'Order cancelled', 'Services cannot be added to a cancelled order.')
    const available = new Map(this.viewAvailable(rec, view).map((s) => [s.id, s]))
    const chosen = (wanted as AddServices['add_services']).map(({ id, quantity }) => {
      const service = available.get(id)
      if (!service) throw new Refusal(422, 'invalid_state_error', 'unavailable_service', 'Service not available', `The service ${id} is not available for this order.`)
      if (quantity > service.maximum_quantity) {
        throw new Refusal(422, 'validation_error', 'maximum_quantity_exceeded', 'Maximum quantity exceeded', `The service ${id} can be added at most ${service.maximum_quantity} time(s); ${quantity} were asked for.`)
      }
      return { service, quantity }
    })
    if (payment.type !== 'balance') throw new Refusal(422, 'validation_error', 'unsupported_payment_type', 'Unsupported payment type', `Payment type "${String(payment.type)}" is not supported here: pay with "balance".`)
    const currency = chosen[0]!.service.total_currency
    if (payment.currency !== currency || chosen.some((c) => c.service.total_currency !== currency)) {
      throw new Refusal(422, 'validation_error', 'invalid_payment_currency', 'Invalid payment currency', `The services are priced in ${currency}; the payment is in ${String(payment.currency)}.`)
    }
    const due = chosen.reduce((sum, c) => sum + mustMinor(c.service.total_amount, currency, 'service') * BigInt(c.quantity), 0n)
    const paid = toMinor(payment.amount, currency)
    if (paid === null) throw invalid('validation_format', `data.payment.amount "${String(payment.amount)}" is not a decimal amount in ${currency}.`)
    if (paid !== due) {
      throw new Refusal(422, 'invalid_state_error', 'price_changed', 'Price changed', `The payment of ${payment.amount} ${currency} does not match the services' total of ${fromMinor(due, currency)} ${currency}.`)
    }
    const account = this.accounts.get(token)!
    if (account.currency !== currency || account.balance < due) {
      throw new Refusal(422, 'invalid_state_error', 'insufficient_balance', 'Insufficient balance', `Your balance of ${fromMinor(account.balance, account.currency)} ${account.currency} cannot pay ${fromMinor(due, currency)} ${currency}.`)
    }

    account.balance -= due
    for (const { service, quantity } of chosen) {
      rec.available.find((a) => a.service.id === service.id)!.remaining -= quantity
      rec.order.services.push({
        id: newId('ser'), type: 'baggage', passenger_ids: [...service.passenger_ids], segment_ids: [...service.segment_ids], quantity,
        total_amount: fromMinor(mustMinor(service.total_amount, currency, 'service') * BigInt(quantity), currency), total_currency: currency,
        metadata: { ...service.metadata },
      })
    }
    const order = rec.order
    order.total_amount = fromMinor(mustMinor(order.total_amount, currency, 'total') + due, currency)
    order.base_amount = fromMinor(mustMinor(order.base_amount, currency, 'base') + due, currency)
    order.synced_at = this.iso()
    return clone(order)
  }
}
