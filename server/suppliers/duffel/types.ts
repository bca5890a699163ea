/**
 * Duffel's own types, from the official @duffel/api package (its types only: nothing of it runs here). The
 * package's entry point exports its client classes; its model types live in ambient modules
 * (`@duffel/api/types`) that no file on disk backs, which the dependency check (`npm run lint:deps`,
 * not-to-unresolvable) rightly refuses. So they are read off the client's own method signatures: the very
 * types the client declares for each route's answer, through an import that resolves. The adapter and the
 * fake Duffel of the tests (test/fakes/duffel) both take them from here.
 */
import type { Duffel, DuffelError } from '@duffel/api'

type DataOf<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>> extends { data: infer D } ? D : never

export type Offer = DataOf<Duffel['offers']['get']>
export type OfferAvailableService = Offer['available_services'][number]
export type OfferAvailableServiceBaggage = Extract<OfferAvailableService, { type: 'baggage' }>
export type OfferAvailableServiceBaggageMetadata = OfferAvailableServiceBaggage['metadata']
export type OfferPassenger = Offer['passengers'][number]
export type OfferSlice = Offer['slices'][number]
export type OfferSliceSegment = OfferSlice['segments'][number]
export type PassengerType = NonNullable<OfferPassenger['type']>
export type Airline = Offer['owner']
export type Airport = OfferSliceSegment['origin']
export type Aircraft = OfferSliceSegment['aircraft']
export type CabinClass = OfferSliceSegment['passengers'][number]['cabin_class']
export type SeatMap = DataOf<Duffel['seatMaps']['get']>[number]
export type SeatMapCabin = SeatMap['cabins'][number]
export type SeatMapCabinRow = SeatMapCabin['rows'][number]
export type SeatMapCabinRowSectionElement = SeatMapCabinRow['sections'][number]['elements'][number]
export type SeatMapCabinRowSectionElementSeat = Extract<SeatMapCabinRowSectionElement, { type: 'seat' | 'restricted_seat_general' }>
export type SeatMapCabinRowSectionAvailableService = SeatMapCabinRowSectionElementSeat['available_services'][number]
export type Order = DataOf<Duffel['orders']['get']>
export type OrderService = Order['services'][number]
export type OrderPassenger = Order['passengers'][number]
export type OrderSlice = Order['slices'][number]
export type OrderSliceSegment = OrderSlice['segments'][number]
export type OrderSegmentPassenger = OrderSliceSegment['passengers'][number]
export type OrderAvailableService = DataOf<Duffel['orders']['getAvailableServices']>[number]
export type AddServices = Parameters<Duffel['orders']['addServices']>[1]
export type ApiResponseError = InstanceType<typeof DuffelError>['errors'][number]
export type ApiResponseMeta = InstanceType<typeof DuffelError>['meta']
