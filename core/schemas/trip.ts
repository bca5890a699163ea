/** Trip resources: the create request, passengers, contact details, tickets, journeys and the trip representation. */
import { Type, type Static, type TOptional, type TSchema } from 'typebox'
import {
  AirlineCode,
  AirportCode,
  CountryCode,
  CurrencyCode,
  DateTimeWithOffset,
  DecimalPlaces,
  Id,
  IsoDate,
  LanguageTag,
  LocalOrOffsetDateTime,
  Metadata,
  PhoneNumber,
  MinorUnits,
  Nullable,
  FlightNumber,
  PersonName,
  ReferenceNumber,
  TextLine,
  Title,
  UtcTimestamp,
} from './common.ts'
import { Basket } from './basket.ts'
import { PRODUCT_TYPE_NAMES, type ProductTypeName as ProductType } from './product-types.ts'

export const PassengerType = Type.Union([Type.Literal('adult'), Type.Literal('child'), Type.Literal('infant')])
export type PassengerType = Static<typeof PassengerType>

export const LoyaltyProgram = Type.Object(
  {
    airline_id: AirlineCode,
    program_name: Type.Optional(TextLine(100)),
    number: ReferenceNumber,
    tier_name: Type.Optional(Nullable(TextLine(64))),
  },
  { additionalProperties: false },
)
export type LoyaltyProgram = Static<typeof LoyaltyProgram>

export const IdentityDocument = Type.Object(
  {
    document_type: TextLine(64, 1, 'e.g. passport, known_traveller'),
    document_number: ReferenceNumber,
  },
  { additionalProperties: false },
)

const Gender = Type.Union([Type.Literal('male'), Type.Literal('female'), Type.Literal('unspecified')])

/**
 * Passenger in a create request. `passenger_id` may be left out: the service assigns `p1`, `p2`, … in
 * request order (never one given to another passenger) and returns it. `loyalty_program` (one, as some
 * integrations send it) is taken as `loyalty_programs: [it]`.
 */
export const PassengerRequest = Type.Object(
  {
    passenger_id: Type.Optional(Id),
    passenger_type: PassengerType,
    on_lap_of: Type.Optional(Nullable(Id)),
    first_names: Type.Optional(PersonName),
    surname: Type.Optional(PersonName),
    date_of_birth: Type.Optional(IsoDate),
    gender: Type.Optional(Gender),
    title: Type.Optional(Title),
    metadata: Type.Optional(Metadata),
    loyalty_programs: Type.Optional(Type.Array(LoyaltyProgram, { maxItems: 10 })),
    loyalty_program: Type.Optional(LoyaltyProgram),
    identity_documents: Type.Optional(Type.Array(IdentityDocument, { maxItems: 10 })),
  },
  { additionalProperties: false },
)
export type PassengerRequest = Static<typeof PassengerRequest>

/** Passenger as the API returns it (`type` here, `passenger_type` in requests, as the spec names them). */
export const Passenger = Type.Object({
  passenger_id: Id,
  type: PassengerType,
  on_lap_of: Nullable(Id),
  first_names: Nullable(Type.String()),
  surname: Nullable(Type.String()),
  date_of_birth: Nullable(IsoDate),
  gender: Nullable(Type.String()),
  title: Nullable(Type.String()),
  metadata: Metadata,
  loyalty_programs: Type.Array(LoyaltyProgram),
  identity_documents: Type.Array(IdentityDocument),
})
export type Passenger = Static<typeof Passenger>

/** PATCH /v2.2/trip/{id}: passengers are matched by passenger_id; given fields replace stored ones. */
export const PassengerUpdate = Type.Object(
  {
    passenger_id: Id,
    first_names: Type.Optional(PersonName),
    surname: Type.Optional(PersonName),
    date_of_birth: Type.Optional(IsoDate),
    on_lap_of: Type.Optional(Nullable(Id)),
    gender: Type.Optional(Gender),
    title: Type.Optional(Title),
    metadata: Type.Optional(Metadata),
    loyalty_programs: Type.Optional(Type.Array(LoyaltyProgram, { maxItems: 10 })),
    identity_documents: Type.Optional(Type.Array(IdentityDocument, { maxItems: 10 })),
  },
  { additionalProperties: false },
)
export type PassengerUpdate = Static<typeof PassengerUpdate>

export const Address = Type.Object(
  {
    city: TextLine(100),
    country: CountryCode,
    postal_code: TextLine(20),
    street_address_1: TextLine(200),
    street_address_2: Type.Optional(Nullable(TextLine(200))),
    state: Type.Optional(Nullable(TextLine(100))),
  },
  { additionalProperties: false },
)

export const ContactDetails = Type.Object(
  {
    contact_details_type: TextLine(32, 1, 'e.g. passenger'),
    passenger_id: Type.Optional(Nullable(Id)),
    email: Type.String({ format: 'email', maxLength: 254 }),
    phone_number: Type.Optional(Nullable(PhoneNumber)),
    address: Type.Optional(Address),
  },
  { additionalProperties: false },
)
export type ContactDetails = Static<typeof ContactDetails>

export const TripPatchRequest = Type.Object(
  {
    passengers: Type.Optional(Type.Array(PassengerUpdate, { minItems: 1, maxItems: 9 })),
    contact_details: Type.Optional(ContactDetails),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type TripPatchRequest = Static<typeof TripPatchRequest>

export const SegmentRequest = Type.Object(
  {
    departure_airport: AirportCode,
    arrival_airport: AirportCode,
    departure_time: LocalOrOffsetDateTime,
    arrival_time: LocalOrOffsetDateTime,
    fare_basis: Type.Optional(Nullable(Type.String({ maxLength: 16 }))),
    fare_class: Nullable(Type.String({ maxLength: 2 })),
    fare_family: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    marketing_airline: AirlineCode,
    marketing_flight_number: FlightNumber,
    operating_airline: Type.Optional(AirlineCode),
    operating_flight_number: Type.Optional(FlightNumber),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
)
export type SegmentRequest = Static<typeof SegmentRequest>

export const OfferedPriceRequest = Type.Object(
  {
    currency: CurrencyCode,
    decimal_places: DecimalPlaces,
    base_price: Type.Integer({ minimum: 0, maximum: 2 ** 50 }),
    markup: Type.Integer({ minimum: 0, maximum: 2 ** 50 }),
    total: Type.Integer({ minimum: 0, maximum: 2 ** 50 }),
  },
  { additionalProperties: false },
)

/**
 * A ticket on offer. `status` can only be `offered`, so it may be left out; `state` is taken for it, as one
 * of the real product's published samples sends it (docs/decisions.md "Drop-in, second round").
 */
export const TicketOfferRequest = Type.Object(
  {
    status: Type.Optional(Type.Literal('offered')),
    state: Type.Optional(Type.Literal('offered', { description: 'the same as status (some integrations name it so)' })),
    offered_price: OfferedPriceRequest,
    journeys: Type.Array(
      Type.Object(
        {
          /** Ignored: the service gives every journey its own id (some integrations send theirs). */
          journey_id: Type.Optional(
            Type.String({ maxLength: 128, description: 'ignored: the service assigns journey ids' }),
          ),
          segments: Type.Array(SegmentRequest, { minItems: 1, maxItems: 8 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 8 },
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
)
export type TicketOfferRequest = Static<typeof TicketOfferRequest>

/** The product types on sale besides tickets, in the order a search lists them (product-types.ts). */
export { PRODUCT_TYPE_NAMES }
export const ProductTypeName = Type.Unsafe<ProductType>(Type.Union(PRODUCT_TYPE_NAMES.map((t) => Type.Literal(t))))
export type ProductTypeName = ProductType

/** An object with one optional property per product type, each its own schema (made by `schema`). */
const perProductType = <S extends TSchema>(schema: () => S) =>
  Object.fromEntries(PRODUCT_TYPE_NAMES.map((t) => [t, Type.Optional(schema())])) as {
    [T in ProductType]: TOptional<S>
  }

/** `{bag: {search: true}, seat: {search: true}, ...}`: which product types to search. */
export const SearchSelection = Type.Object(
  perProductType(() => Type.Object({ search: Type.Boolean() }, { additionalProperties: false })),
  { additionalProperties: false },
)
export type SearchSelection = Static<typeof SearchSelection>

/** A seller mark-up rule: a percentage of the base and/or a fixed amount in the trip currency's minor units. */
export const MarkupRule = Type.Object(
  {
    percentage: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, multipleOf: 0.01 })),
    fixed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 40 })),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type MarkupRule = Static<typeof MarkupRule>

export const MarkupConfig = Type.Object(
  {
    default: Type.Optional(MarkupRule),
    ...perProductType(() => MarkupRule),
  },
  { additionalProperties: false },
)
export type MarkupConfig = Static<typeof MarkupConfig>

export const CorporateIdentifiers = Type.Record(
  Type.String(),
  Type.Object(
    {
      corporate_id: Type.String({ maxLength: 64 }),
      name: Type.String({ maxLength: 200 }),
    },
    { additionalProperties: false },
  ),
)

export const TripCreateRequest = Type.Object(
  {
    language: LanguageTag,
    currency: CurrencyCode,
    country: CountryCode,
    search: Type.Optional(SearchSelection),
    tickets: Type.Array(TicketOfferRequest, { minItems: 1, maxItems: 4 }),
    passengers: Type.Array(PassengerRequest, { minItems: 1, maxItems: 9 }),
    contact_details: Type.Optional(ContactDetails),
    corporate_identifiers: Type.Optional(CorporateIdentifiers),
    markups: Type.Optional(MarkupConfig),
  },
  { additionalProperties: false },
)
export type TripCreateRequest = Static<typeof TripCreateRequest>

export const Segment = Type.Object({
  segment_id: Id,
  departure_airport: AirportCode,
  departure_airport_name: Type.String(),
  departure_city: Type.String(),
  departure_city_name: Type.String(),
  arrival_airport: AirportCode,
  arrival_airport_name: Type.String(),
  arrival_city: Type.String(),
  arrival_city_name: Type.String(),
  departure_time: DateTimeWithOffset,
  arrival_time: DateTimeWithOffset,
  marketing_airline: AirlineCode,
  operating_airline: AirlineCode,
  marketing_flight_number: FlightNumber,
  operating_flight_number: FlightNumber,
  number_of_stops: Type.Integer({ minimum: 0 }),
  metadata: Metadata,
  fare_basis: Nullable(Type.String()),
  fare_class: Nullable(Type.String()),
  fare_family: Nullable(Type.String()),
})
export type Segment = Static<typeof Segment>

export const Journey = Type.Object({ journey_id: Id, segments: Type.Array(Segment) })
export type Journey = Static<typeof Journey>

export const TicketStatus = Type.Union([Type.Literal('offered'), Type.Literal('in_basket'), Type.Literal('booked')])
export type TicketStatus = Static<typeof TicketStatus>

export const AccessDetails = Type.Object({
  record_locator: Nullable(Type.String()),
  ticket_number: Nullable(Type.String()),
  reference_name: Nullable(Type.String()),
  reference_email: Nullable(Type.String()),
  ticketing_channel: Type.Object({ record_locator: Nullable(Type.String()), name: Nullable(Type.String()) }),
})

export const Ticket = Type.Object({
  ticket_id: Id,
  status: TicketStatus,
  journey_ids: Type.Array(Id),
  basket_item_ids: Type.Array(Id),
  basket_item_id: Id,
  offered_price: Type.Optional(
    Type.Object({ currency: CurrencyCode, decimal_places: DecimalPlaces, total: MinorUnits }),
  ),
  access_details: AccessDetails,
  metadata: Metadata,
})
export type Ticket = Static<typeof Ticket>

export { ORDER_STATUSES, OrderStatus } from './basket.ts'

/** The trip representation of GET and PATCH (create adds the tokens). */
export const Trip = Type.Object({
  trip_id: Id,
  trip_state_hash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  trip_access_token: Type.Optional(Type.String()),
  refresh_token: Type.Optional(Type.String()),
  search_id: Nullable(Id),
  country: CountryCode,
  currency: CurrencyCode,
  language: LanguageTag,
  journeys: Type.Array(Journey),
  orders: Type.Record(Type.String(), Type.Unknown()),
  to_cancel: Type.Record(Type.String(), Type.Unknown()),
  basket: Basket,
  passengers: Type.Array(Passenger),
  contact_details: Type.Union([ContactDetails, Type.Object({}, { additionalProperties: false })]),
  tickets: Type.Array(Ticket),
  corporate_identifiers: CorporateIdentifiers,
  created_at: UtcTimestamp,
})
export type Trip = Static<typeof Trip>

export { MinorUnits }
