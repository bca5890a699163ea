/** Shared fixtures for core tests: a controllable clock, counting ids, a core on the memory store. */
import { createCore, type Principal } from '../../core/service.ts'
import { MemoryStore } from '../../core/store/memory.ts'
import { createSandboxSupplier } from '../../core/supplier/sandbox/supplier.ts'
import type { Supplier } from '../../core/ports.ts'
import type { TripCreateRequest } from '../../core/schemas/trip.ts'

export function testClock(start = '2026-11-22T10:00:00.000Z') {
  let t = Date.parse(start)
  return { now: () => new Date(t), advance: (ms: number) => { t += ms } }
}

export function testIds() {
  let n = 0
  return {
    uuid: () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`,
    secret: (bytes: number) => `s${(++n).toString(36)}`.padEnd(Math.ceil(bytes * 4 / 3), 'x'),
  }
}

export async function coreFixture(opts: { supplier?: Supplier } = {}) {
  const store = new MemoryStore()
  const clock = testClock()
  const core = createCore({ store, supplier: opts.supplier ?? createSandboxSupplier(), clock, ids: testIds() })
  await core.ensureSigningKey()
  const { seller, apiKey } = await core.createSeller({ name: 'Shop', origins: ['https://shop.example'], sandbox: true })
  const principal: Principal = { kind: 'api_key', seller }
  return { store, clock, core, seller, apiKey, principal }
}

const day = 24 * 3600 * 1000
const at = (base: Date, days: number, hours: number) => new Date(base.getTime() + days * day + hours * 3600 * 1000).toISOString().replace('.000Z', 'Z')

/** Two adults and a lap infant, London → New York and back on BA, 30 days after `now`. */
export function tripRequest(now: Date, over: Partial<TripCreateRequest> = {}): TripCreateRequest {
  const seg = (from: string, to: string, d: number, flight: string) => ({
    departure_airport: from, arrival_airport: to, departure_time: at(now, d, 0), arrival_time: at(now, d, 8),
    fare_basis: 'YLOW', fare_class: 'Y', fare_family: 'light', marketing_airline: 'BA', marketing_flight_number: flight,
  })
  return {
    language: 'en-GB', currency: 'EUR', country: 'GB',
    search: { bag: { search: true }, seat: { search: true } },
    tickets: [{
      status: 'offered',
      offered_price: { currency: 'EUR', decimal_places: 2, base_price: 80000, markup: 2500, total: 82500 },
      journeys: [{ segments: [seg('LHR', 'JFK', 30, '117')] }, { segments: [seg('JFK', 'LHR', 37, '112')] }],
      metadata: { offer: 'abc' },
    }],
    passengers: [
      { passenger_id: 'p1', passenger_type: 'adult' },
      { passenger_id: 'p2', passenger_type: 'adult' },
      { passenger_id: 'p3', passenger_type: 'infant', on_lap_of: 'p1' },
    ],
    ...over,
  }
}
