/**
 * The Store contract: every adapter (memory, SQLite, PostgreSQL) registers these tests with its own `make`.
 * `make` returns a fresh, empty store; each test migrates it, uses it alone and closes it. The tests are
 * written per role port (core/ports/store.ts), one file each under test/store/roles/; this runner applies
 * all of them. Time is always explicit (the store never reads a clock), so nothing here sleeps.
 */
import { describe, test } from 'node:test'
import type { Store } from '../../core/ports/store.ts'
import { seller, trip, type ContractContext, type ContractOptions, type MigratableStore } from './fixtures.ts'
import { lifecycleContract } from './roles/lifecycle.ts'
import { sellersContract } from './roles/sellers.ts'
import { signingKeysContract } from './roles/signing-keys.ts'
import { tripsContract } from './roles/trips.ts'
import { ordersContract } from './roles/orders.ts'
import { retentionContract } from './roles/retention.ts'
import { refreshTokensContract } from './roles/refresh-tokens.ts'
import { idempotencyContract } from './roles/idempotency.ts'
import { subscriptionsContract } from './roles/subscriptions.ts'
import { jobsContract } from './roles/jobs.ts'
import { operatorsContract } from './roles/operators.ts'
import { webhookDeliveriesContract } from './roles/webhook-deliveries.ts'
import { consoleSessionsContract } from './roles/console-sessions.ts'
import { eventsContract } from './roles/events.ts'

export {
  seller,
  apiKey,
  trip,
  job,
  feedOrder,
  tripWithOrders,
  type ContractOptions,
  type MigratableStore,
} from './fixtures.ts'

export function storeContract(name: string, make: () => Promise<MigratableStore>, opts: ContractOptions = {}): void {
  const it = (title: string, fn: (s: Store) => Promise<void>) =>
    test(title, async () => {
      const s = await make()
      try {
        await s.migrate()
        await fn(s)
      } finally {
        await s.close()
      }
    })
  const withTrip = async (s: Store) => {
    await s.createSeller(seller('s1'))
    await s.insertTrip(trip('t1'))
  }
  const ctx: ContractContext = { it, make, opts, withTrip }

  describe(`${name} store contract`, () => {
    lifecycleContract(ctx)
    sellersContract(ctx)
    signingKeysContract(ctx)
    tripsContract(ctx)
    ordersContract(ctx)
    retentionContract(ctx)
    refreshTokensContract(ctx)
    idempotencyContract(ctx)
    subscriptionsContract(ctx)
    jobsContract(ctx)
    operatorsContract(ctx)
    webhookDeliveriesContract(ctx)
    consoleSessionsContract(ctx)
    eventsContract(ctx)
  })
}
