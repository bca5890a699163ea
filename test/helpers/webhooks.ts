/**
 * Webhook receivers for tests: a real HTTP server on 127.0.0.1 that records every delivery, and the
 * signature check a seller runs, written exactly as docs/webhooks.md shows it.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'

// ---------------------------------------------------------------- docs/webhooks.md's verification, typed

/**
 * True when `rawBody` (the exact bytes received) was signed with `secret` within `toleranceSeconds` of `now`.
 * docs/webhooks.md's snippet, line for line, with types added.
 */
export function verifyWebhook(
  secret: string,
  signatureHeader: string,
  rawBody: string,
  now = Date.now(),
  toleranceSeconds = 300,
): boolean {
  const parts = Object.fromEntries(signatureHeader.split(',').map((kv) => kv.trim().split('=', 2)))
  const t = Number(parts.t)
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return false
  if (Math.abs(now / 1000 - t) > toleranceSeconds) return false // an old delivery replayed
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest()
  return timingSafeEqual(expected, Buffer.from(parts.v1, 'hex'))
}

/** docs/webhooks.md's snippet itself (the block between the webhook-verify markers), loaded as a module. */
export async function readmeVerifier(): Promise<typeof verifyWebhook> {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'webhooks.md'), 'utf8')
  const code = /<!-- webhook-verify:start -->\s*```js\n([\s\S]*?)```\s*<!-- webhook-verify:end -->/.exec(doc)?.[1]
  if (!code) throw new Error('docs/webhooks.md has no webhook-verify block')
  const mod = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as {
    verifyWebhook?: typeof verifyWebhook
  }
  if (typeof mod.verifyWebhook !== 'function')
    throw new Error('the docs/webhooks.md snippet does not export verifyWebhook')
  return mod.verifyWebhook
}

// ---------------------------------------------------------------- a receiver

export interface Delivery {
  headers: IncomingHttpHeaders
  /** The raw body, as the signature covers it. */
  raw: string
  body: {
    event_id: string
    event_name: string
    created_at: string
    trip_id: string
    fulfillment_id: string
    data: Record<string, any>
  }
  /** The status the receiver answered with. */
  status: number
}

export interface Receiver {
  url: string
  /** Every request received, answered or not with 2xx. */
  deliveries: Delivery[]
  /** Statuses to answer the next requests with, in order; after them, 200. */
  answer(...statuses: number[]): void
  close(): Promise<void>
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const deliveries: Delivery[] = []
  const queue: number[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const status = queue.shift() ?? 200
      let parsed: Delivery['body']
      try {
        parsed = JSON.parse(raw)
      } catch {
        parsed = { raw } as never
      }
      deliveries.push({ headers: req.headers, raw, body: parsed, status })
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${path}`,
    deliveries,
    answer: (...statuses) => {
      queue.push(...statuses)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A URL on 127.0.0.1 where nothing listens (a receiver that is down). */
export async function deadTarget(): Promise<string> {
  const r = await startReceiver()
  await r.close()
  return r.url
}
