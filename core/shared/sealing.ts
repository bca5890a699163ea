/**
 * Secrets at rest: AES-256-GCM under a key derived from SIGNING_KEY_SECRET by HKDF-SHA-256, with what the
 * secret belongs to as additional data, so a sealed value copied onto another row does not unseal there.
 * The token signing keys (core/application/jwt.ts, the kid as additional data) and the sellers' supplier
 * credentials (core/application/sellers.ts) are sealed with it. WebCrypto only, so any host of the core can do it.
 *
 * The derivation (salt, info, 12-byte IV) is fixed: values sealed by earlier releases must keep unsealing.
 */
import { base64url } from 'jose'

/** A secret as stored: AES-256-GCM over its UTF-8 bytes, with what it belongs to as additional data. */
export interface SealedSecret {
  sealed: 'A256GCM'
  iv: string
  data: string
}

/** A stored value that is sealed (rather than one stored in the clear before a secret was set). */
export const isSealed = (value: unknown): value is SealedSecret =>
  typeof value === 'object' && value !== null && (value as SealedSecret).sealed === 'A256GCM'

/** Thrown when a sealed value cannot be unsealed: another secret, other additional data, or a damaged value. */
export class UnsealError extends Error {
  constructor(
    message = 'The value cannot be unsealed: SIGNING_KEY_SECRET is not the secret it was sealed with (or it belongs to something else).',
  ) {
    super(message)
    this.name = 'UnsealError'
  }
}

const text = new TextEncoder()
/** base64url to bytes WebCrypto takes (an ArrayBuffer-backed view). */
const bytes = (b64: string) => new Uint8Array(base64url.decode(b64))

export class Sealer {
  #key: Promise<CryptoKey> | null = null
  readonly #secret: string

  constructor(secret: string) {
    if (!secret) throw new Error('a Sealer needs a secret')
    this.#secret = secret
  }

  /** `plaintext` (UTF-8) sealed with a fresh random IV; `aad` must be given again to unseal it. */
  async seal(plaintext: string, aad: string): Promise<SealedSecret> {
    const iv = crypto.getRandomValues(new Uint8Array(12))
    const data = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData: text.encode(aad) },
      await this.#sealingKey(),
      text.encode(plaintext),
    )
    return { sealed: 'A256GCM', iv: base64url.encode(iv), data: base64url.encode(new Uint8Array(data)) }
  }

  /** The plaintext of a value sealed with `aad`; an UnsealError when the secret or `aad` is not the one it was sealed with. */
  async unseal(sealed: SealedSecret, aad: string): Promise<string> {
    const key = await this.#sealingKey()
    try {
      const plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: bytes(sealed.iv), additionalData: text.encode(aad) },
        key,
        bytes(sealed.data),
      )
      return new TextDecoder('utf-8', { fatal: true }).decode(plain)
    } catch {
      throw new UnsealError()
    }
  }

  #sealingKey(): Promise<CryptoKey> {
    this.#key ??= (async () => {
      const ikm = await crypto.subtle.importKey('raw', text.encode(this.#secret), 'HKDF', false, ['deriveKey'])
      return crypto.subtle.deriveKey(
        { name: 'HKDF', hash: 'SHA-256', salt: text.encode('svc signing keys'), info: text.encode('A256GCM v1') },
        ikm,
        { name: 'AES-GCM', length: 256 },
        false,
        ['encrypt', 'decrypt'],
      )
    })()
    return this.#key
  }
}
