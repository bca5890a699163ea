import type { TargetPolicy } from '../shared/network.ts'

/**
 * Delivers one webhook request; resolves with the HTTP status, rejects on a network failure, a time-out, or
 * a target that resolves to an address `policy` forbids (core/shared/network.ts), checked on the address it connects to.
 */
export interface WebhookSender {
  send(target: string, body: string, headers: Record<string, string>, policy: TargetPolicy): Promise<number>
}
