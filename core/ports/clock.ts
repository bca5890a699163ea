/** Clock and ids: what the core reads the time and makes identifiers with (tests fix both). */
export interface Clock {
  now(): Date
}
export interface Ids {
  /** A random UUID (v4). */
  uuid(): string
  /** `bytes` of randomness, base64url; for API keys and refresh tokens. */
  secret(bytes: number): string
}
