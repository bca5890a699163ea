import type { WebhookSender } from '../ports/webhook-sender.ts'
import { targetRefusal } from '../shared/network.ts'
import { WEBHOOK_BODY_KEPT } from '../ports/records.ts'

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
    // The first KB of the answer, for the delivery's history; the rest is not read.
    const reader = res.body?.getReader()
    const chunks: Uint8Array[] = []
    let kept = 0
    while (reader && kept < WEBHOOK_BODY_KEPT) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      kept += value.length
    }
    await reader?.cancel()
    const bytes = new Uint8Array(kept)
    let at = 0
    for (const c of chunks) {
      bytes.set(c, at)
      at += c.length
    }
    return { status: res.status, body: new TextDecoder().decode(bytes.subarray(0, WEBHOOK_BODY_KEPT)) }
  },
})
