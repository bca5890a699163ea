/**
 * Duffel's shapes as Duffel sends them. They start from the official @duffel/api package's types (its types
 * only: nothing of it runs here) and are overridden where Duffel's recorded answers contradict them (the
 * fixtures Duffel's own fixture recorder made from the live API, in its public duffel-components repository,
 * and the examples of its API reference). Each override says what the package gets wrong:
 *
 * - seat map elements: every element carries every key (`id`, `type`, `designator`, `name`, `disclosures`,
 *   `available_services`, and `seat_characteristics` on newer maps); the package types the non-seat
 *   elements as `{ type }` alone, and a seat's `designator` and `disclosures` as never null, where a
 *   `restricted_seat_general` (79 of them in a recorded Qantas map) has `designator: null` and
 *   `disclosures: null`, and every non-seat element has both null. Rows and sections have ids.
 * - an offer's `available_services`: also `seat` services (`metadata: { designator, disclosures, name }`,
 *   recorded on Spirit and Lufthansa offers), beside `baggage` and `cancel_for_any_reason`; the package
 *   knows the last two only. Other types may come: the adapter reads `baggage` and ignores the rest.
 * - an order: it has a `type` (`instant` or `hold`, Duffel's order reference), which the package leaves
 *   out; and its passengers may carry no `type` (the package says it is always there).
 * - amounts: decimal strings, not always with the currency's places ("20.0" GBP in recorded seat maps).
 *
 * The package's entry point exports its client classes; its model types live in ambient modules
 * (`@duffel/api/types`) that no file on disk backs, which the dependency check (`npm run lint:deps`,
 * not-to-unresolvable) rightly refuses. So they are read off the client's own method signatures. The
 * adapter reads Duffel's answers through its schemas (answers.ts), whose types these must fit (a
 * compile-time check there); the fake Duffel of the tests (test/fakes/duffel) builds its answers in these.
 */
import type { Duffel, DuffelError } from '@duffel/api'

type DataOf<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>> extends { data: infer D } ? D : never

type PackageOffer = DataOf<Duffel['offers']['get']>
type PackageSeatMap = DataOf<Duffel['seatMaps']['get']>[number]
type PackageOrder = DataOf<Duffel['orders']['get']>

export type OfferAvailableServiceBaggage = Extract<PackageOffer['available_services'][number], { type: 'baggage' }>
export type OfferAvailableServiceBaggageMetadata = OfferAvailableServiceBaggage['metadata']
export type OfferAvailableServiceCFAR = Extract<
  PackageOffer['available_services'][number],
  { type: 'cancel_for_any_reason' }
>
/** Override: a seat sold as an offer's service (the package has no such type). */
export interface OfferAvailableServiceSeat extends Omit<OfferAvailableServiceBaggage, 'type' | 'metadata'> {
  type: 'seat'
  metadata: { designator: string; disclosures: string[]; name: string | null }
}
export type OfferAvailableService = OfferAvailableServiceBaggage | OfferAvailableServiceCFAR | OfferAvailableServiceSeat
export interface Offer extends Omit<PackageOffer, 'available_services'> {
  available_services: OfferAvailableService[]
}
export type OfferPassenger = Offer['passengers'][number]
export type OfferSlice = Offer['slices'][number]
export type OfferSliceSegment = OfferSlice['segments'][number]
export type PassengerType = NonNullable<OfferPassenger['type']>
export type Airline = Offer['owner']
export type Airport = OfferSliceSegment['origin']
export type Aircraft = OfferSliceSegment['aircraft']
export type CabinClass = OfferSliceSegment['passengers'][number]['cabin_class']

export type SeatMapCabinRowSectionAvailableService = Extract<
  PackageSeatMap['cabins'][number]['rows'][number]['sections'][number]['elements'][number],
  { type: 'seat' | 'restricted_seat_general' }
>['available_services'][number]
/** Override: the element types Duffel draws (the package's list; recordings show all but `closet` and `stairs`). */
export type SeatMapElementType =
  'seat' | 'restricted_seat_general' | 'bassinet' | 'empty' | 'exit_row' | 'lavatory' | 'galley' | 'closet' | 'stairs'
/** Override: every element has every key; only a `seat` is sure to have a designator and disclosures. */
export interface SeatMapCabinRowSectionElement {
  id: string
  type: SeatMapElementType
  designator: string | null
  name: string | null
  disclosures: string[] | null
  available_services: SeatMapCabinRowSectionAvailableService[]
  seat_characteristics?: string[] | null
}
export type SeatMapCabinRowSectionElementSeat = SeatMapCabinRowSectionElement & {
  type: 'seat'
  designator: string
  disclosures: string[]
}
export interface SeatMapCabinRowSection {
  id: string
  elements: SeatMapCabinRowSectionElement[]
}
export interface SeatMapCabinRow {
  id: string
  sections: SeatMapCabinRowSection[]
}
export interface SeatMapCabin extends Omit<PackageSeatMap['cabins'][number], 'rows'> {
  rows: SeatMapCabinRow[]
}
export interface SeatMap extends Omit<PackageSeatMap, 'cabins'> {
  cabins: SeatMapCabin[]
}

type PackageOrderPassenger = PackageOrder['passengers'][number]
/** Override: an order's passenger may carry no type. */
export interface OrderPassenger extends Omit<PackageOrderPassenger, 'type'> {
  type?: PackageOrderPassenger['type'] | null
}
/** Override: an order says whether it was paid at once (`instant`) or is held to be paid later (`hold`). */
export type OrderType = 'instant' | 'hold'
export interface Order extends Omit<PackageOrder, 'passengers'> {
  type: OrderType
  passengers: OrderPassenger[]
}
export type OrderService = Order['services'][number]
export type OrderSlice = Order['slices'][number]
export type OrderSliceSegment = OrderSlice['segments'][number]
export type OrderSegmentPassenger = OrderSliceSegment['passengers'][number]
export type OrderAvailableService = DataOf<Duffel['orders']['getAvailableServices']>[number]
export type AddServices = Parameters<Duffel['orders']['addServices']>[1]
export type ApiResponseError = InstanceType<typeof DuffelError>['errors'][number]
export type ApiResponseMeta = InstanceType<typeof DuffelError>['meta']

// ---------------------------------------------------------------------------------------------------------
// Where the recordings are wider still: what Duffel sends around what the adapter reads (the fake sends these)
// ---------------------------------------------------------------------------------------------------------

/** A city as Duffel nests it in an airport: a place's keys, those of an airport null. */
export interface WireCity {
  id: string
  type: 'city'
  iata_code: string
  iata_city_code: string
  iata_country_code: string
  name: string
  city_name: null
  icao_code: null
  latitude: null
  longitude: null
  time_zone: null
}
/** An airport with a place's `airports` (null) and its metropolitan city in full (null when it has none). */
export interface WireAirport extends Omit<Airport, 'city' | 'iata_city_code'> {
  iata_city_code: string
  city: WireCity | null
  airports: null
}
/** A city as a search's origin or destination: its airports (listed without their own city), and no city. */
export interface WireCityPlace extends WireCity {
  airports: Array<Omit<WireAirport, 'city' | 'airports'>>
  city: null
}
export type WirePlace = WireAirport | WireCityPlace
/** What a fare allows on a segment, per passenger (recorded on Duffel Airways' offers in a search). */
export interface WireSegmentConditions {
  advance_seat_selection: boolean
  priority_boarding: boolean
  priority_check_in: boolean
}
export interface WireSegmentPassenger extends Omit<OfferSliceSegment['passengers'][number], 'fare_basis_code'> {
  fare_basis_code: string | null
  conditions?: WireSegmentConditions
}
/** A segment: an airline may state no aircraft nor operating flight number (recorded on low-cost carriers). */
export interface WireSegment extends Omit<
  OfferSliceSegment,
  'aircraft' | 'operating_carrier_flight_number' | 'origin' | 'destination' | 'passengers'
> {
  origin: WireAirport
  destination: WireAirport
  aircraft: Aircraft | null
  operating_carrier_flight_number: string | null
  passengers: WireSegmentPassenger[]
}
export interface WireSlice extends Omit<OfferSlice, 'origin' | 'destination' | 'segments'> {
  origin: WirePlace
  destination: WirePlace
  segments: WireSegment[]
}
/** An offer's passenger: its names are null until a search gives them. */
export interface WireOfferPassenger extends Omit<OfferPassenger, 'given_name' | 'family_name'> {
  given_name: string | null
  family_name: string | null
}
/** An offer, with the keys Duffel sends beside the package's (and `partial` null for some airlines). */
export interface WireOffer extends Omit<Offer, 'slices' | 'passengers' | 'partial'> {
  slices: WireSlice[]
  passengers: WireOfferPassenger[]
  partial: boolean | null
  ngs_shelf: number | null
  available_payment_types: string[]
  intended_payment_methods: string[]
  allowed_passenger_identity_document_types: string[]
}
/** GET /air/offers/{id}: `available_services` is null unless asked for. */
export type WireOfferAnswer = Omit<WireOffer, 'available_services'> & {
  available_services: OfferAvailableService[] | null
}
/** An offer as a search lists it: without its services (null). */
export type ListedOffer = Omit<WireOffer, 'available_services'> & { available_services: null }
/** An order's segment: what its offer's segment states, nulls included (the package types them never null). */
export interface WireOrderSegment extends Omit<
  OrderSliceSegment,
  | 'aircraft'
  | 'origin'
  | 'destination'
  | 'origin_terminal'
  | 'destination_terminal'
  | 'distance'
  | 'duration'
  | 'operating_carrier_flight_number'
> {
  origin: WireAirport
  destination: WireAirport
  aircraft: Aircraft | null
  origin_terminal: string | null
  destination_terminal: string | null
  distance: string | null
  duration: string | null
  operating_carrier_flight_number: string | null
}
export interface WireOrderSlice extends Omit<OrderSlice, 'origin' | 'destination' | 'segments'> {
  origin: WirePlace
  destination: WirePlace
  segments: WireOrderSegment[]
}
export interface WireOrder extends Omit<Order, 'slices'> {
  slices: WireOrderSlice[]
}
