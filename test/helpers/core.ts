/**
 * Core tests run the core without HTTP on the memory store, with the same clock, ids and trip as the HTTP tests.
 * `api` calls the operations as the seller's API key, through the request pipeline the hosts run (test/helpers/operations.ts).
 */
import { createCore } from '../../core/core.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import type { Supplier, SupplierContext } from '../../core/ports/supplier.ts'
import { testClock, testIds, tripPayload } from './build.ts'
import { caller } from './operations.ts'

export { tripPayload as tripRequest }

/** A call of a sandbox seller, for tests that call a supplier directly. */
export const CALL: SupplierContext = { seller_id: 'seller-1', sandbox: true, credentials: null }

export async function coreFixture(opts: { supplier?: Supplier } = {}) {
  const store = new MemoryStore()
  const clock = testClock()
  const core = createCore({
    store,
    suppliers: [opts.supplier ?? createSandboxSupplier()],
    clock,
    ids: testIds('counting'),
  })
  await core.ensureSigningKey()
  const { seller, apiKey } = await core.createSeller({ name: 'Shop', origins: ['https://shop.example'], sandbox: true })
  return { store, clock, core, seller, apiKey, api: caller(core, { apiKey }) }
}
