import type { TargetPolicy } from '../shared/network.ts'

/** What a receiver answered: its status and the first WEBHOOK_BODY_KEPT bytes of its body, as text. */
export interface WebhookAnswer {
  status: number
  body: string
}

/**
 * Delivers one webhook request; resolves with the HTTP status (a number, from a sender that does not read the
 * body) or the answer, rejects on a network failure, a time-out, or
 * a target that resolves to an address `policy` forbids (core/shared/network.ts), checked on the address it connects to.
 */
export interface WebhookSender {
  send(
    target: string,
    body: string,
    headers: Record<string, string>,
    policy: TargetPolicy,
  ): Promise<number | WebhookAnswer>
}
