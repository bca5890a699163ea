/**
 * Webhook signatures: `Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed by
 * the subscription's secret. Signing the timestamp with the body lets a receiver refuse replays of old
 * deliveries. WebCrypto, so the browser sandbox signs exactly like the server.
 */

const hex = (buf: ArrayBuffer) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('')

export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  return hex(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(message)))
}

export async function signatureHeader(secret: string, body: string, now: Date): Promise<string> {
  const t = Math.floor(now.getTime() / 1000)
  return `t=${t},v1=${await hmacSha256Hex(secret, `${t}.${body}`)}`
}

/** What a seller's receiver does (docs/webhooks.md shows the same check with node:crypto). */
export async function verifySignature(
  secret: string,
  header: string,
  body: string,
  now: Date,
  toleranceSeconds = 300,
): Promise<boolean> {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.trim().split('=', 2) as [string, string]))
  const t = Number(parts.t)
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(now.getTime() / 1000 - t) > toleranceSeconds) return false
  const expected = await hmacSha256Hex(secret, `${t}.${body}`)
  let diff = expected.length ^ parts.v1.length
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ (parts.v1.charCodeAt(i) || 0)
  return diff === 0
}
