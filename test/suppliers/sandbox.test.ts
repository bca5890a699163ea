/**
 * The sandbox airline against the Supplier contract (test/suppliers/contract.ts). It books per order id
 * (the same order always gets the same booking), so what it "sold" is the orders it booked; its price
 * change is its test scenario 9001 (a check sees bags 20 % dearer on such a flight).
 */
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import type { Supplier, SupplierTrip } from '../../core/ports/supplier.ts'
import { supplierContract } from './contract.ts'
import { contractTrip } from './trips.ts'

supplierContract('sandbox airline', async () => {
  const sandbox = createSandboxSupplier()
  const booked = new Set<string>()
  const supplier: Supplier = {
    ...sandbox,
    async fulfill(call, trip, order, item) {
      const r = await sandbox.fulfill(call, trip, order, item)
      if (r.ok === true) booked.add(order.order_id)
      return r
    },
  }
  return {
    supplier,
    call: { seller_id: 'seller-1', sandbox: true, credentials: null },
    credentials: { sandbox: null, live: null, notForSandbox: 'a-token', notForLive: null },
    trip: async () => contractTrip(),
    unknownTrip: () => contractTrip({ flight: '4321' }),
    async book(trip: SupplierTrip) {
      return {
        ...trip,
        tickets: trip.tickets.map((t) => ({
          ...t,
          status: 'booked' as const,
          access_details: { ...t.access_details, record_locator: 'SBX123' },
        })),
      }
    },
    sold: async () => booked.size,
    async changePrice(trip: SupplierTrip) {
      for (const j of trip.journeys) for (const s of j.segments) s.marketing_flight_number = '9001'
    },
  }
})
