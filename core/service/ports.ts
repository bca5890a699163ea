/**
 * The ports and configuration every part of the service works with; the caches built on them are in
 * context.ts. Kept apart so the caches can depend on this without depending on each other's module.
 */
import type { Clock, Ids, Store, Supplier, WebhookSender } from '../ports.ts'
import type { TokenService } from '../auth/tokens.ts'
import type { CoreConfig } from './config.ts'

export interface Ports {
  readonly config: CoreConfig
  readonly store: Store
  readonly supplier: Supplier
  readonly clock: Clock
  readonly ids: Ids
  readonly webhooks: WebhookSender
  readonly tokens: TokenService
}
