/**
 * Hashing for the core: synchronous SHA-256 from @noble/hashes (audited, no dependencies), the same in Node
 * and in browsers. WebCrypto's digest is asynchronous and costs ~50 µs a call in Node, which made deriving
 * a search's product ids most of a trip's cost; this one costs a few µs and needs no await on hot paths.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

let digestHex = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)))

/**
 * Lets a host put a faster SHA-256 of its own in (the server: Node's native one, ~5× faster on the
 * kilobytes a state hash or an ETag covers). It must compute SHA-256 as hex: stored hashes depend on it.
 */
export function useSha256(impl: (text: string) => string): void {
  if (impl('abc') !== 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad') throw new Error('not SHA-256')
  digestHex = impl
}

export function sha256Hex(text: string): string {
  return digestHex(text)
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

/**
 * JSON with object keys sorted at every level: the canonical form that state hashes are taken over
 * (a document may come back from a store with its keys in another order). Written with an explicit stack,
 * not recursion: it runs over whole trips, and no stored value, however deep, may overflow it.
 */
export function canonicalJson(value: unknown): string {
  let out = ''
  // Work left to do, last first: a value to write, or text (punctuation, a key) to append as it is.
  const todo: Array<{ text: string } | { value: unknown }> = [{ value }]
  while (todo.length > 0) {
    const next = todo.pop()!
    if ('text' in next) {
      out += next.text
      continue
    }
    const v = next.value
    if (v === null || typeof v !== 'object') {
      out += JSON.stringify(v) ?? 'null'
      continue
    }
    const parts: Array<{ text: string } | { value: unknown }> = []
    if (Array.isArray(v)) {
      parts.push({ text: '[' })
      v.forEach((item, i) => {
        if (i) parts.push({ text: ',' })
        parts.push({ value: item })
      })
      parts.push({ text: ']' })
    } else {
      const record = v as Record<string, unknown>
      parts.push({ text: '{' })
      let first = true
      for (const k of Object.keys(record).sort()) {
        if (record[k] === undefined) continue
        parts.push({ text: `${first ? '' : ','}${JSON.stringify(k)}:` }, { value: record[k] })
        first = false
      }
      parts.push({ text: '}' })
    }
    for (let i = parts.length - 1; i >= 0; i--) todo.push(parts[i]!)
  }
  return out
}

/** Constant-time comparison for secrets of equal length. */
export function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let d = 0
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return d === 0
}
