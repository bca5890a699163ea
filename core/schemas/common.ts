/**
 * Shared building blocks of the v2.2 contract. Every schema here is plain JSON Schema built with TypeBox,
 * so the same object validates requests (server and sandbox), types the code and documents the API.
 */
import { Type, type Static, type TSchema } from 'typebox'

export const Id = Type.String({ minLength: 1, maxLength: 128 })

/**
 * What a refused pattern means, in the words of the API's errors (core/shared/validate.ts reads it): a pattern
 * alone says nothing a seller can act on.
 */
/** What a field a schema does not know means where it is, by the path of its object (`/payment_details`), when "not a known field" would not say enough. */
export const UNKNOWN_FIELD_MESSAGES = new Map<string, string>()
/**
 * A string of a pattern, with what a value that does not match it must be (`x-message`, read by
 * core/shared/validate.ts from the field's own schema: two fields of one pattern, a currency and an
 * airport, each say what they hold).
 */
const patterned = (
  pattern: string,
  message: string,
  opts: { minLength?: number; maxLength: number; description?: string },
) => Type.String({ ...opts, pattern, 'x-message': message })

/*
 * Fields that reach an airline (names, titles, contact details, loyalty and document numbers) take what an
 * airline's systems take: no control characters (a NUL cut a name short in one), no invisible formatting
 * (a right-to-left override reorders what an agent reads), no private-use or unassigned code points
 * (noncharacters such as U+FFFF are unassigned), and no lone surrogate (no valid UTF-8 encodes one).
 */
const NO_CONTROLS = '^[^\\p{C}]*$'
/** One line of text: any script, digits and punctuation, but none of the characters above (tab and newline included). */
export const TextLine = (maxLength: number, minLength = 0, description?: string) =>
  patterned(NO_CONTROLS, 'must be one line of text without control or invisible characters', {
    minLength,
    maxLength,
    ...(description ? { description } : {}),
  })
/**
 * A person's given names or surname: letters and marks of any script, and spaces, apostrophes, hyphens and
 * dots after the first letter; at most 64 characters (what a booking's name field takes, e.g. Duffel's).
 */
export const PersonName = patterned(
  "^[\\p{L}\\p{M}][\\p{L}\\p{M} '’.-]*$",
  'must be letters (any script), with spaces, apostrophes, hyphens or dots between them',
  {
    minLength: 1,
    maxLength: 64,
    description: 'letters and marks of any script, with spaces, apostrophes, hyphens and dots; 1 to 64 characters',
  },
)
/** A title (Mr, Mrs, Dr.): letters, spaces and dots. */
export const Title = patterned('^[\\p{L}\\p{M}][\\p{L}\\p{M} .]*$', 'must be letters, with spaces or dots', {
  maxLength: 20,
  description: 'e.g. Mr, Ms, Dr',
})
/** A loyalty or document number: letters and digits (any script), with spaces or hyphens between them. */
export const ReferenceNumber = patterned(
  '^[\\p{L}\\p{N}][\\p{L}\\p{N} -]*$',
  'must be letters and digits, with spaces or hyphens between them',
  { minLength: 1, maxLength: 64 },
)
export const Uuid = Type.String({ format: 'uuid' })
/** The airline's booking reference (PNR): 5 to 13 letters or digits (most are 6; easyJet's 7, LATAM's 13). */
export const BookingReference = patterned(
  '^[A-Z0-9]{5,13}$',
  'must be a booking reference: 5 to 13 capital letters or digits',
  { maxLength: 13, description: 'the booking reference (PNR): 5 to 13 letters or digits (easyJet 7, LATAM 13)' },
)
export const TicketNumber = patterned('^[0-9]{13}$', 'must be a 13-digit e-ticket number', {
  maxLength: 13,
  description: '13-digit e-ticket number',
})
export const PhoneNumber = patterned(
  '^\\+?[0-9 ()-]{4,32}$',
  'must be a phone number: digits, spaces, brackets and hyphens, with an optional leading +',
  { maxLength: 33 },
)
/** A trip_state_hash as the basket read gives it. */
export const StateHash = patterned(
  '^[0-9a-f]{64}$',
  'must be the trip_state_hash of the basket read (64 lower-case hex digits)',
  { maxLength: 64 },
)

/** ISO 8601 timestamp with a UTC offset, as the spec requires for segment times (and as the API shows them). */
export const DateTimeWithOffset = patterned(
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$',
  'must be a date and time with its UTC offset, e.g. 2026-12-01T09:30:00+01:00',
  { maxLength: 40, description: 'ISO 8601 timestamp with UTC offset, e.g. 2026-12-01T09:30:00+01:00' },
)
/**
 * A segment time in a request: with its UTC offset, or without one, as tickets show times: the local time
 * at the segment's airport, which the service gives its offset from the airport's time zone.
 */
export const LocalOrOffsetDateTime = patterned(
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})?$',
  'must be a date and time, ISO 8601 (with a UTC offset, or the local time at the airport)',
  {
    maxLength: 40,
    description:
      'ISO 8601, e.g. 2026-12-01T09:30:00+01:00; without an offset it is the local time at the airport (2026-12-01T09:30)',
  },
)
export const UtcTimestamp = Type.String({ format: 'date-time', description: 'UTC timestamp, ISO 8601' })
/** A calendar date (2023-02-30 and 1982-13-45 are refused, 2024-02-29 is not). */
export const IsoDate = Type.String({ format: 'date', description: 'a calendar date, YYYY-MM-DD' })
export const CurrencyCode = patterned('^[A-Z]{3}$', 'must be an ISO 4217 currency code: three capital letters (EUR)', {
  maxLength: 3,
  description: 'ISO 4217 currency code',
})
export const CountryCode = patterned('^[A-Z]{2}$', 'must be two capital letters, an ISO 3166-1 country code (GB)', {
  maxLength: 2,
  description: 'ISO 3166-1 alpha-2 country code',
})
export const LanguageTag = patterned('^[a-z]{2}-[A-Z]{2}$', 'must be a locale tag of the form xx-XX (en-GB)', {
  maxLength: 5,
  description: 'locale tag xx-XX',
})
export const AirportCode = patterned('^[A-Z]{3}$', 'must be an IATA airport code: three capital letters (LHR)', {
  maxLength: 3,
  description: 'IATA airport code',
})
export const AirlineCode = patterned(
  '^[A-Z0-9]{2}$',
  'must be an IATA airline designator: two capital letters or digits (BA, U2)',
  { maxLength: 2, description: 'IATA airline designator' },
)
export const FlightNumber = patterned(
  '^[0-9]{1,4}[A-Z]?$',
  'must be a flight number: 1 to 4 digits and an optional letter (117, 9001A)',
  { maxLength: 5 },
)
/**
 * The seller's free key/value map, bounded: it is stored with the trip, hashed into its state and echoed in
 * every read, so it may hold scalars, lists of scalars and one level of nested maps, no deeper (a map
 * nested thousands deep once overflowed the stack of every walk over the trip).
 */
// A Record's key schema only selects properties (patternProperties): additionalProperties: false makes it bind.
const MetadataKey = Type.String({ pattern: '^.{1,64}$' })
const MetadataScalar = Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean(), Type.Null()])
const MetadataLeaf = Type.Union([MetadataScalar, Type.Array(MetadataScalar, { maxItems: 50 })])
export const Metadata = Type.Record(
  MetadataKey,
  Type.Union([
    MetadataLeaf,
    Type.Record(MetadataKey, MetadataLeaf, { maxProperties: 50, additionalProperties: false }),
  ]),
  {
    maxProperties: 50,
    additionalProperties: false,
    description:
      'free key/value map supplied by the seller: up to 50 keys of 1–64 characters; values are strings (≤ 1024), numbers, booleans, null, lists of those (≤ 50), or one nested map of the same',
  },
)

/** Integers in minor units. 2^50 keeps every sum and product of the pricing rules exact in a JS number. */
export const MinorUnits = Type.Integer({ minimum: -(2 ** 50), maximum: 2 ** 50 })
export const DecimalPlaces = Type.Integer({ minimum: 0, maximum: 4 })

export const OriginalMoney = Type.Object({
  amount: MinorUnits,
  currency: CurrencyCode,
  decimal_places: DecimalPlaces,
})
export type OriginalMoney = Static<typeof OriginalMoney>

/** A money object of the spec: trip-currency amount plus the supplier's original. */
export const Money = Type.Object({
  amount: MinorUnits,
  currency: CurrencyCode,
  decimal_places: DecimalPlaces,
  in_original_currency: OriginalMoney,
})
export type Money = Static<typeof Money>

export const Markup = Type.Intersect([Money, Type.Object({ markup_type: Type.String() })])
export type Markup = Static<typeof Markup>
export const Tax = Type.Intersect([Money, Type.Object({ tax_type: Type.String() })])
export type Tax = Static<typeof Tax>
export const Fee = Type.Intersect([Money, Type.Object({ fee_type: Type.String() })])
export type Fee = Static<typeof Fee>

/** total = base + Σmarkups + Σtaxes + Σfees, exactly, in minor units. */
export const Price = Type.Object({
  base: Money,
  total: Money,
  markups: Type.Array(Markup),
  taxes: Type.Array(Tax),
  fees: Type.Array(Fee),
})
export type Price = Static<typeof Price>

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])
