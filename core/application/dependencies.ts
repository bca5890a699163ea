/**
 * The ports and configuration every part of the service works with; the caches built on them are in
 * context.ts. Kept apart so the caches can depend on this without depending on each other's module.
 */
import type { Clock, Ids } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'
import type { Suppliers } from '../ports/supplier.ts'
import type { WebhookSender } from '../ports/webhook-sender.ts'
import type { TokenService } from './jwt.ts'
import type { CoreConfig } from './config.ts'

export interface Ports {
  readonly config: CoreConfig
  readonly store: Store
  /** Every supplier this host offers, by name; a trip's offers come from its seller's (trips.ts `supplierFor`). */
  readonly suppliers: Suppliers
  readonly clock: Clock
  readonly ids: Ids
  readonly webhooks: WebhookSender
  readonly tokens: TokenService
}
