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
import { duffelOfferFor } from '../helpers/duffel.ts'

let fake: FakeDuffel
before(async () => {
  fake = await startFakeDuffel()
})
after(() => fake.close())

/** An offer of the fake for the contract trip's flights and passengers, and the trip naming it. */
export function duffelTrip(f: FakeDuffel, token = f.token): SupplierTrip {
  const offer = duffelOfferFor(f, contractTrip(), { token })
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
    credentials: {
      sandbox: fake.token,
      live: 'duffel_live_abcdefgh12345678',
      notForSandbox: 'duffel_live_abcdefgh12345678',
      notForLive: fake.token,
    },
    trip: async () => duffelTrip(fake),
    unknownTrip: () => contractTrip({ metadata: { duffel_offer_id: 'off_0000NoSuchOfferAtAll1' } }),
    async book(trip: SupplierTrip, handedOff: BasketItem[]) {
      // An airline that sells bags after booking, as the contract's after-booking case needs (most do not:
      // test/server/duffel.test.ts holds the search of such an order to `not_offered_after_booking`).
      const { order } = fake.bookOrder(offerOf(trip), {
        services: handedOff.flatMap((i) => i.supplier?.service_ids ?? []),
        postBookingBags: true,
      })
      booked.set(order.booking_reference, { orderId: order.id, units: units(order.id) })
      return {
        ...trip,
        tickets: trip.tickets.map((t) => ({
          ...t,
          status: 'booked' as const,
          access_details: { ...t.access_details, record_locator: order.booking_reference },
        })),
      }
    },
    async sold(trip: SupplierTrip) {
      const at = booked.get(trip.tickets[0]!.access_details.record_locator!)!
      return units(at.orderId) - at.units
    },
    async changePrice(_trip: SupplierTrip, item: BasketItem) {
      const unit = item.price.base.in_original_currency
      for (const id of item.supplier!.service_ids)
        fake.priceChange(id, ((unit.amount + 1000) / 10 ** unit.decimal_places).toFixed(unit.decimal_places))
    },
  }
})
