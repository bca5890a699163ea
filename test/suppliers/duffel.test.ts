/**
 * Duffel against the Supplier contract (test/suppliers/contract.ts), over the fake Duffel on loopback
 * (test/fakes/duffel): each trip names an offer the fake holds for the trip's flights and passengers; the
 * seller's booking is the fake's order of that offer, with the handed-off services; what the adapter sold
 * is what the order holds beyond what was booked with it.
 */
import { after, before } from 'node:test'
import type { SupplierTrip } from '../../core/ports/supplier.ts'
import type { BasketItem } from '../../core/schemas/basket.ts'
import { createDuffelSupplier } from '../../server/suppliers/duffel/supplier.ts'
import { startFakeDuffel, type FakeDuffel } from '../fakes/duffel/server.ts'
import { supplierContract } from './contract.ts'
import { contractTrip } from './trips.ts'

let fake: FakeDuffel
before(async () => { fake = await startFakeDuffel() })
after(() => fake.close())

/** An offer of the fake for the contract trip's flights and passengers, and the trip naming it. */
export function duffelTrip(f: FakeDuffel, token = f.token): SupplierTrip {
  const plain = contractTrip()
  const offer = f.addOffer({
    token,
    passengers: plain.passengers.map((p) => ({ type: p.type === 'infant' ? 'infant_without_seat' as const : p.type })),
    slices: plain.journeys.map((j) => ({
      segments: j.segments.map((s) => ({
        origin: s.departure_airport, destination: s.arrival_airport,
        // Duffel's times are local at the airport, without an offset.
        departing_at: s.departure_time.slice(0, 19), arriving_at: s.arrival_time.slice(0, 19),
        marketing_carrier: s.marketing_airline, flight_number: s.marketing_flight_number,
      })),
    })),
  })
  return contractTrip({ metadata: { duffel_offer_id: offer.offer.id } })
}

const offerOf = (trip: SupplierTrip) => String(trip.tickets[0]!.metadata.duffel_offer_id)
/** Units of services an order holds. */
const units = (orderId: string) => fake.order(orderId).order.services.reduce((n, s) => n + s.quantity, 0)

supplierContract('Duffel (its fake)', async () => {
  /** booking reference → the order, and the units it held when booked (what was handed off). */
  const booked = new Map<string, { orderId: string; units: number }>()
  return {
    supplier: createDuffelSupplier({ baseUrl: fake.url, timeoutMs: 2000 }),
    call: { seller_id: 'seller-1', sandbox: true, credentials: fake.token },
    credentials: { sandbox: fake.token, live: 'duffel_live_abcdefgh12345678', notForSandbox: 'duffel_live_abcdefgh12345678', notForLive: fake.token },
    trip: async () => duffelTrip(fake),
    unknownTrip: () => contractTrip({ metadata: { duffel_offer_id: 'off_0000NoSuchOfferAtAll1' } }),
    async book(trip: SupplierTrip, handedOff: BasketItem[]) {
      const { order } = fake.bookOrder(offerOf(trip), { services: handedOff.flatMap((i) => i.supplier?.service_ids ?? []) })
      booked.set(order.booking_reference, { orderId: order.id, units: units(order.id) })
      return {
        ...trip,
        tickets: trip.tickets.map((t) => ({ ...t, status: 'booked' as const, access_details: { ...t.access_details, record_locator: order.booking_reference } })),
      }
    },
    async sold(trip: SupplierTrip) {
      const at = booked.get(trip.tickets[0]!.access_details.record_locator!)!
      return units(at.orderId) - at.units
    },
    async changePrice(_trip: SupplierTrip, item: BasketItem) {
      const unit = item.price.base.in_original_currency
      for (const id of item.supplier!.service_ids) fake.priceChange(id, ((unit.amount + 1000) / 10 ** unit.decimal_places).toFixed(unit.decimal_places))
    },
  }
})

