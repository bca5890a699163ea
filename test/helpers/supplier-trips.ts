/**
 * The trip the supplier contract sells on, as a supplier sees it: the sandbox's default trip (two adults
 * and a lap infant, LHR → JFK and back on BA, 30 and 37 days from now), built by the core's own rules from
 * the create request a seller sends, with the ticket metadata a supplier reads (Duffel's offer id).
 */
import { buildTrip } from '../../core/domain/trip.ts'
import { supplierView } from '../../core/domain/search.ts'
import type { SupplierTrip } from '../../core/ports/supplier.ts'
import { sandboxTripRequest } from '../../mock-server/fixtures.ts'
import { testClock, testIds } from './build.ts'

export function contractTrip(opts: { flight?: string; metadata?: Record<string, string> } = {}): SupplierTrip {
  const clock = testClock(new Date().toISOString())
  const req = sandboxTripRequest(clock.now(), opts.flight ? { flight: opts.flight } : {})
  if (opts.metadata) req.tickets = req.tickets.map((t) => ({ ...t, metadata: { ...t.metadata, ...opts.metadata } }))
  return supplierView(
    buildTrip(req, { sellerId: 'seller-1', sandbox: true, clock, ids: testIds('counting'), holdWindow: 1800 }),
  )
}
