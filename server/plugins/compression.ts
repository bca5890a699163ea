/**
 * Compressed JSON: every JSON response of 1 KiB or more leaves brotli- or gzip-compressed when the client
 * accepts it (@fastify/compress). A body rendered once by the core (a search, which never changes; a
 * basket, until it changes) is also compressed once: its copies are kept on the body itself
 * (`Rendered.encoded`), so reading a trip's offers again costs a lookup, not a 450 KB stringify and a
 * brotli pass, and they go when the core lets the body go.
 *
 * Each kept copy is exactly its own size. zlib's output is a view on a 16 KiB chunk, and a small
 * `Buffer.from` a view on an 8 KiB pool slab: kept as they came, a 400-byte basket retained 16 KiB, and a
 * cache that counted 400 held forty times what it was allowed (the soak bench's memory grew 2 MB/s).
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import compress from '@fastify/compress'
import { Negotiator } from '@fastify/accept-negotiator'
import { LRUCache } from 'lru-cache'
import type { Rendered } from '../../core/shared/rendered.ts'
import { JSON_CONTENT_TYPE } from '../../core/api/dispatch.ts'

const ENCODINGS = ['br', 'gzip'] as const
type Encoding = (typeof ENCODINGS)[number]

/** Kept bodies are compressed harder than per-request ones (brotli 4, compress's default), since it happens once. */
const compressOnce: Record<Encoding, (json: string) => Uint8Array> = {
  br: (json) =>
    new Uint8Array(
      brotliCompressSync(json, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
      }),
    ),
  gzip: (json) => new Uint8Array(gzipSync(json, { level: 9 })),
}
// Uncompressed bodies are kept too, as UTF-8 bytes: a body with one non-Latin-1 character (the basket's
// "→") is a two-byte string that Node would otherwise transcode on every send. TextEncoder's array is
// exactly the body's size (a small Buffer.from is a view on a shared pool slab).
const utf8 = new TextEncoder()
const identity = (json: string) => utf8.encode(json)

declare module 'fastify' {
  interface FastifyReply {
    /** Sends a body the core rendered once, compressed once per encoding and kept. */
    sendRendered(this: FastifyReply, status: number, rendered: Rendered): FastifyReply
  }
}

export const compressionPlugin = fp(
  async (app: FastifyInstance) => {
    // Request bodies are never compressed here (a trip is a few KB): no decompression step on every route,
    // and no zip bomb to defuse.
    await app.register(compress, {
      global: true,
      globalDecompression: false,
      threshold: 1024,
      encodings: [...ENCODINGS],
    })
    const negotiator = new Negotiator({
      supportedValues: [...ENCODINGS],
      cache: new LRUCache<string, string>({ max: 200 }),
    })

    app.decorateReply('sendRendered', function (this: FastifyReply, status: number, rendered: Rendered) {
      const req: FastifyRequest = this.request
      const accept = req.headers['accept-encoding']
      const encoding = (typeof accept === 'string' ? negotiator.negotiate(accept) : null) as Encoding | null
      this.code(status).type(JSON_CONTENT_TYPE).header('vary', 'accept-encoding')
      const compressed = encoding !== null && rendered.json.length >= 1024
      const bytes = compressed
        ? rendered.encoded(encoding, compressOnce[encoding])
        : rendered.encoded('identity', identity)
      const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      // A set Content-Encoding tells @fastify/compress the body is compressed already.
      return compressed ? this.header('content-encoding', encoding).send(body) : this.send(body)
    })
  },
  { name: 'svc-compression', fastify: '5.x' },
)
