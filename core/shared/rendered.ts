/**
 * A response body serialized once and kept (a search never changes; a basket until its next version),
 * named by its ETag. A host sends the JSON as it is, and keeps the encodings it makes of it (compressed
 * copies) on the body itself, so they live exactly as long as the core keeps the body: one cache, one bound.
 */
export class Rendered {
  readonly #encoded = new Map<string, Uint8Array>()

  constructor(
    readonly json: string,
    readonly etag: string,
  ) {}

  /** The body in `encoding` (e.g. `br`), made by `encode` on first use and kept with the body. */
  encoded(encoding: string, encode: (json: string) => Uint8Array): Uint8Array {
    let bytes = this.#encoded.get(encoding)
    if (!bytes) this.#encoded.set(encoding, (bytes = encode(this.json)))
    return bytes
  }

  /**
   * What a cache counts for this body, in bytes, before any encoding is made: the string (one or two bytes
   * a character), and room for the host's copies (its UTF-8 bytes, a character each for this ASCII JSON
   * but an arrow or a name here and there, and brotli and gzip copies, each well under a fifth of it).
   */
  get weight(): number {
    return this.json.length * 4 + 256
  }
}

/**
 * A JSON body the operation serialized itself (from parts rendered once, see core/application/trips.ts
 * `readTrip`): sent as it is, and compressed per request like any body, since it is not kept.
 */
export class Serialized {
  constructor(readonly json: string) {}
}

/**
 * A `text/event-stream` body: the host opens it once the response starts and writes each chunk as it
 * comes; aborting the signal (the client went away, the host is closing) ends it.
 */
export class EventStream {
  constructor(readonly open: (signal: AbortSignal) => AsyncIterable<string>) {}
}
