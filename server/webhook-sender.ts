/**
 * Webhook delivery from the server: node:http(s) with a DNS lookup that refuses, at connect time, any
 * address the seller may not reach (core/shared/network.ts). Checking the address actually connected to, not
 * the name when subscribed, closes DNS rebinding: a name that resolved to a public address at
 * subscription and to 169.254.169.254 at delivery is refused at delivery. Redirects are never followed.
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import type { LookupFunction } from 'node:net'
import type { WebhookAnswer, WebhookSender } from '../core/ports/webhook-sender.ts'
import { WEBHOOK_BODY_KEPT } from '../core/ports/records.ts'
import { addressAllowed, targetRefusal, type TargetPolicy } from '../core/shared/network.ts'

export function webhookSender(timeoutMs = 10_000): WebhookSender {
  return {
    send(target, body, headers, policy) {
      return new Promise<WebhookAnswer>((resolve, reject) => {
        const url = new URL(target)
        const refused = targetRefusal(url, policy)
        if (refused) return reject(new Error(`webhook target refused: ${refused}`))
        const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
          url,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': Buffer.byteLength(body) },
            lookup: checkedLookup(policy),
            timeout: timeoutMs,
          },
          (res) => {
            // The first KB of the body is kept for the delivery's history (an error page's first lines); the
            // rest is not read, and the connection is dropped rather than drained from a receiver that talks on.
            const chunks: Buffer[] = []
            let kept = 0
            const done = () => {
              const body = Buffer.concat(chunks).subarray(0, WEBHOOK_BODY_KEPT)
              resolve({ status: res.statusCode ?? 0, body: new TextDecoder().decode(body) })
            }
            res.on('data', (chunk: Buffer) => {
              chunks.push(chunk)
              kept += chunk.length
              if (kept >= WEBHOOK_BODY_KEPT) {
                done()
                res.destroy()
              }
            })
            res.on('end', done)
            res.on('error', done)
          },
        )
        req.on('timeout', () => req.destroy(new Error(`the receiver did not answer within ${timeoutMs} ms`)))
        req.on('error', reject)
        req.end(body)
      })
    },
  }
}

/** dns.lookup, refusing the name when any address it resolves to is not allowed. */
function checkedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0)
      const bad = addresses.find((a) => !addressAllowed(a.address, policy))
      if (bad || addresses.length === 0) {
        return callback(
          Object.assign(
            new Error(
              `webhook target refused: ${hostname} resolves to ${bad?.address ?? 'nothing'}, not a public address`,
            ),
            { code: 'EREFUSED' },
          ),
          '',
          0,
        )
      }
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
      else callback(null, addresses[0]!.address, addresses[0]!.family)
    })
  }
}
