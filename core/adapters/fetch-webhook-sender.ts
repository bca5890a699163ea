import type { WebhookSender } from '../ports/webhook-sender.ts'
import { targetRefusal } from '../shared/network.ts'

/**
 * Delivery over `fetch`, which Node 20 and browsers both have; a slow receiver counts as a failed attempt.
 * It cannot see the address a name resolves to, so it checks IP literals only: the server delivers with
 * server/webhook-sender.ts, which checks the address it connects to.
 */
export const fetchSender = (timeoutMs = 10_000): WebhookSender => ({
  async send(target, body, headers, policy) {
    const refused = targetRefusal(new URL(target), policy)
    if (refused) throw new Error(`webhook target refused: ${refused}`)
    const res = await fetch(target, {
      method: 'POST',
      body,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    })
    await res.body?.cancel()
    return res.status
  },
})
