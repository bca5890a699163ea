/**
 * Hashing for the core: synchronous SHA-256 from @noble/hashes (audited, no dependencies), the same in Node
 * and in browsers. WebCrypto's digest is asynchronous and costs ~50 µs a call in Node, which made deriving
 * a search's product ids most of a trip's cost; this one costs a few µs and needs no await on hot paths.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)))
}

/**
 * A UUID-shaped id derived from a hash (version nibble 5-like, RFC 4122 variant), so the same input
 * always names the same thing, e.g. one product offered to a trip keeps its product_id across searches.
 */
export function uuidFromHash(text: string): string {
  const h = sha256Hex(text)
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** JSON with object keys sorted at every level: the canonical form that state hashes are taken over. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
}

/** Constant-time comparison for secrets of equal length. */
export function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let d = 0
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return d === 0
}
