/**
 * Duffel's answers as the adapter reads them, checked at the boundary (docs/decisions.md "Duffel as it
 * really answers"): each route's `data` is parsed with a schema of
 * the fields the adapter reads, in the shapes Duffel records (types.ts says where they differ from
 * @duffel/api's types). What does not fit is a `supplier_invalid_answer` for the part of the search (or the
 * order) it belongs to, never a TypeError retried as an outage.
 *
 * What the adapter reads part by part (an offer's services, a seat map's elements) is left `unknown` here
 * and parsed where it is used, so that a malformed service of another kind (a cancel-for-any-reason) or one
 * seat map cannot fail the part that does not need it.
 */
import { Type, type Static, type TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { Nullable } from '../../../core/schemas/common.ts'
import { SupplierError } from '../../../core/ports/supplier-errors.ts'
import { decimalPlaces, isSupportedCurrency } from '../../../core/domain/money.ts'
import type { OriginalMoney } from '../../../core/schemas/common.ts'
import type * as Duffel from './types.ts'

/**
 * Limits (docs/decisions.md "A supplier is an untrusted upstream"): an answer past one is not read. Ids and
 * codes are short; lists are bounded by what a trip can hold (9 passengers, 4 tickets of 8 journeys of 8
 * segments) with room to spare; 500 services an offer; 2,000 seats a segment's map (checked in seats.ts).
 */
export const LIMITS = { services: 500, seatsPerMap: 2_000, elementsPerMap: 10_000, text: 200 } as const
const DuffelId = Type.String({ minLength: 1, maxLength: 100 })
const Code = Type.Object({ iata_code: Nullable(Type.String({ maxLength: 8 })) })
/** Text Duffel writes for people (a seat's notices, an aircraft's name): read whole up to a bound, then kept to `LIMITS.text` characters where it is kept. */
const Text = Type.String({ maxLength: 10_000 })
export const cut = (text: string) => text.slice(0, LIMITS.text)

export const Segment = Type.Object({
  id: DuffelId,
  origin: Code,
  destination: Code,
  marketing_carrier: Code,
  marketing_carrier_flight_number: Type.String({ maxLength: 8 }),
  /** Local time at the origin, without an offset. */
  departing_at: Type.String({ maxLength: 40 }),
  aircraft: Type.Optional(Nullable(Type.Object({ name: Type.Optional(Nullable(Text)) }))),
})

export const OfferPassenger = Type.Object({
  id: DuffelId,
  type: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  /** Set (and `type` null) for a passenger searched by age. */
  age: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 130 }))),
  given_name: Type.Optional(Nullable(Text)),
  family_name: Type.Optional(Nullable(Text)),
})

export const Offer = Type.Object({
  id: DuffelId,
  expires_at: Type.String({ maxLength: 40 }),
  passengers: Type.Array(OfferPassenger, { minItems: 1, maxItems: 20 }),
  slices: Type.Array(Type.Object({ segments: Type.Array(Segment, { minItems: 1, maxItems: 16 }) }), {
    minItems: 1,
    maxItems: 16,
  }),
  /** Read part by part (bags.ts): a malformed service of another kind fails nothing. */
  available_services: Type.Optional(Nullable(Type.Array(Type.Unknown()))),
})
export type Offer = Static<typeof Offer>

/** An offer's or an order's service for sale, as bags read it (other types are never parsed). */
export const ServiceForSale = Type.Object({
  id: DuffelId,
  type: Type.String({ maxLength: 40 }),
  passenger_ids: Type.Array(DuffelId, { minItems: 1, maxItems: 20 }),
  segment_ids: Type.Array(DuffelId, { minItems: 1, maxItems: 64 }),
  total_amount: Type.String({ maxLength: 24 }),
  total_currency: Type.String({ maxLength: 8 }),
  maximum_quantity: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  metadata: Type.Optional(Nullable(Type.Unknown())),
})
export type ServiceForSale = Static<typeof ServiceForSale>

/** What a bag's metadata says, in sizes a bag can have (a 1,000 kg "bag" is an answer not to read). */
export const BaggageMetadata = Type.Object({
  type: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  maximum_weight_kg: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 500 }))),
  maximum_length_cm: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1_000 }))),
  maximum_height_cm: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1_000 }))),
  maximum_depth_cm: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1_000 }))),
})
export type BaggageMetadata = Static<typeof BaggageMetadata>

const SeatService = Type.Object({
  id: DuffelId,
  passenger_id: DuffelId,
  total_amount: Type.String({ maxLength: 24 }),
  total_currency: Type.String({ maxLength: 8 }),
})

/** Any element of a cabin: a seat, a restricted seat (no designator), a galley, a type not known yet. */
export const Element = Type.Object({
  type: Type.String({ maxLength: 40 }),
  designator: Type.Optional(Nullable(Type.String({ maxLength: 8 }))),
  name: Type.Optional(Nullable(Text)),
  disclosures: Type.Optional(Nullable(Type.Array(Text, { maxItems: 20 }))),
  available_services: Type.Optional(Nullable(Type.Array(SeatService, { maxItems: 20 }))),
})
export type Element = Static<typeof Element>

export const SeatMap = Type.Object({
  segment_id: DuffelId,
  cabins: Type.Array(
    Type.Object({
      deck: Type.Integer({ minimum: 0, maximum: 10 }),
      cabin_class: Type.String({ maxLength: 40 }),
      wings: Type.Optional(Nullable(Type.Object({ first_row_index: Type.Integer(), last_row_index: Type.Integer() }))),
      rows: Type.Array(
        Type.Object({ sections: Type.Array(Type.Object({ elements: Type.Array(Element) }), { maxItems: 10 }) }),
        { maxItems: 200 },
      ),
    }),
    { maxItems: 10 },
  ),
})
export type SeatMap = Static<typeof SeatMap>
export const SeatMaps = Type.Array(Type.Unknown(), { maxItems: 64 })

export const OrderPassenger = Type.Object({
  id: DuffelId,
  type: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  given_name: Type.Optional(Nullable(Text)),
  family_name: Type.Optional(Nullable(Text)),
  born_on: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
})

/** A service an order holds (booked with it, or added after). */
export const BookedService = Type.Object({
  id: DuffelId,
  type: Type.String({ maxLength: 40 }),
  passenger_ids: Type.Array(DuffelId, { maxItems: 20 }),
  segment_ids: Type.Array(DuffelId, { maxItems: 64 }),
  quantity: Type.Integer({ minimum: 0, maximum: 100 }),
  metadata: Type.Optional(Nullable(Type.Unknown())),
})
export type BookedService = Static<typeof BookedService>

export const Order = Type.Object({
  id: DuffelId,
  /** `hold`: booked, to be paid by `payment_status.payment_required_by`, else released. */
  type: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  booking_reference: Type.String({ maxLength: 40 }),
  cancelled_at: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  payment_status: Type.Optional(
    Nullable(
      Type.Object({
        awaiting_payment: Type.Boolean(),
        payment_required_by: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
      }),
    ),
  ),
  passengers: Type.Array(OrderPassenger, { minItems: 1, maxItems: 20 }),
  slices: Type.Array(
    Type.Object({
      segments: Type.Array(
        Type.Intersect([
          Segment,
          Type.Object({
            passengers: Type.Optional(
              Nullable(
                Type.Array(
                  Type.Object({
                    passenger_id: Type.Optional(DuffelId),
                    seat: Type.Optional(
                      Nullable(Type.Object({ designator: Type.Optional(Nullable(Type.String({ maxLength: 8 }))) })),
                    ),
                  }),
                  { maxItems: 20 },
                ),
              ),
            ),
          }),
        ]),
        { minItems: 1, maxItems: 16 },
      ),
    }),
    { minItems: 1, maxItems: 16 },
  ),
  services: Type.Optional(Nullable(Type.Array(BookedService, { maxItems: LIMITS.services }))),
})
export type Order = Static<typeof Order>
export const Orders = Type.Array(Order, { maxItems: 20 })
export const ServicesForSale = Type.Array(Type.Unknown())

/** The answers Duffel records fit what is read of them: a change on either side breaks the build here. */
export type Fits<Full, Read> = Full extends Read ? true : never
export const shapesFit: [
  Fits<Duffel.WireOfferAnswer, Offer>,
  Fits<Duffel.SeatMap, SeatMap>,
  Fits<Duffel.WireOrder, Order>,
  Fits<Duffel.OfferAvailableServiceBaggage, ServiceForSale>,
  Fits<Duffel.OfferAvailableServiceBaggageMetadata, BaggageMetadata>,
  Fits<Duffel.OrderService, BookedService>,
] = [true, true, true, true, true, true]

type Checker = ReturnType<typeof Compile>
const checkers = new WeakMap<TSchema, Checker>()

/**
 * `value` typed by `schema`, or a `supplier_invalid_answer` naming where it does not fit (a path and
 * TypeBox's message, never the value: supplier text stays out of logs).
 */
export function read<S extends TSchema>(schema: S, value: unknown, what: string): Static<S> {
  let c = checkers.get(schema)
  if (!c) checkers.set(schema, (c = Compile(schema)))
  if (c.Check(value)) return value as Static<S>
  const first = c.Errors(value)[0] as { instancePath?: string; message?: string } | undefined
  throw new SupplierError(
    'supplier_invalid_answer',
    `Duffel's ${what} is not as documented: ${first?.instancePath || '/'} ${first?.message ?? 'does not fit'}`,
  )
}

/** The largest amount read from Duffel, in major units: anything above is not a price of a bag or a seat. */
export const MAX_MAJOR_UNITS = 100_000

/**
 * A Duffel amount ("45.00", or "20.0" as recorded seat maps write it) in the currency's minor units. The
 * currency must be one this service prices in, the amount a plain decimal, exact in that currency's places,
 * not negative and at most MAX_MAJOR_UNITS: anything else is a `supplier_invalid_answer`, never a price a
 * traveller sees. Free (0) is a price: airlines give some seats away.
 */
export function amount(text: string, currency: string, what: string): OriginalMoney {
  const invalid = (why: string) => new SupplierError('supplier_invalid_answer', `Duffel's ${what} has ${why}`)
  if (!isSupportedCurrency(currency))
    throw invalid(`a currency this service does not price in (${currency.slice(0, 8)})`)
  const places = decimalPlaces(currency)
  const m = /^(\d{1,9})(?:\.(\d{1,9}))?$/.exec(text)
  if (!m) throw invalid(`an amount that is not a decimal number (${text.slice(0, 20)})`)
  const frac = m[2] ?? ''
  if (/[^0]/.test(frac.slice(places)))
    throw invalid(`an amount finer than ${currency}'s ${places} decimal places (${text})`)
  const minor = Number(m[1]) * 10 ** places + Number(frac.slice(0, places).padEnd(places, '0') || '0')
  if (minor > MAX_MAJOR_UNITS * 10 ** places) throw invalid(`an amount over ${MAX_MAJOR_UNITS} ${currency} (${text})`)
  return { amount: minor, currency, decimal_places: places }
}
