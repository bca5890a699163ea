/**
 * Serves the browser SDK that `npm run build` writes to dist/: `GET /javascript/v2.2/svc.min.js`, its
 * source map, and its Subresource Integrity hash (`.sri` as text, `integrity.json` as JSON) so sellers
 * can load it with `integrity=`; and beside it the offline sandbox `svc-sandbox.min.js` (+ map), which
 * svc.min.js loads from its own folder on `Svc.init({ sandbox: true })`, with the same headers, as are
 * the translations it fetches for the traveller's locale (`locales/<tag>.json`), and its chunks
 * (`chunks/<name>-<hash>.js` + map: the seat map, the option cards, the card and modal displays), which it
 * fetches the first time a widget shows them.
 *
 * Caching: the URL carries the API version, not a content hash, so a release replaces the file under the
 * same URL. A year of `immutable` would pin visitors to an old build; instead browsers and CDNs keep it
 * five minutes and then revalidate with the strong ETag (a 304 costs no body), serving the cached copy
 * meanwhile for up to a day (`stale-while-revalidate`). A chunk's name is its content's hash, so a chunk
 * URL never serves other code: chunks are `immutable` for a year (a new build names new chunks, which only
 * the new svc.min.js asks for).
 *
 * Sellers' pages load it from their own origin, so it is public to every origin (CORS `*`, CORP
 * `cross-origin`; `crossorigin="anonymous"` with `integrity=` needs the CORS header). Files are read once
 * per build (re-read when their size or mtime changes) and kept compressed in memory.
 */
import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ERROR_CODES, problemTypeUri } from '../../core/shared/errors.ts'
import { PROBLEM_CONTENT_TYPE } from '../../core/api/dispatch.ts'

export const SDK_PREFIX = '/javascript/v2.2'
export const SDK_FILE = 'svc.min.js'
/** The sandbox bundle (sdk/sandbox.ts SANDBOX_FILE), fetched only in sandbox mode. */
export const SANDBOX_FILE = 'svc-sandbox.min.js'
export const SDK_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=86400'
/** The chunks' (named by their content's hash, rollup.config.mjs). */
export const CHUNK_CACHE_CONTROL = 'public, max-age=31536000, immutable'
/** A translation's file name under `locales/`: a BCP 47 tag and `.json` (never a path). */
const LOCALE_FILE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})+\.json$/
/** A chunk's file name under `chunks/`: `<name>-<hash>.js` or its `.map` (one dot-free name: never a path). */
const CHUNK_FILE = /^[A-Za-z0-9_-]+\.js(\.map)?$/

export interface SdkStaticOptions {
  /** The build output folder (holding javascript/v2.2/svc.min.js); default `<repo>/dist`. */
  distDir?: string
}

type Encoding = 'br' | 'gzip' | 'identity'

interface Asset {
  size: number
  mtimeMs: number
  body: Buffer
  /** sha256 of the bytes, base64url: the ETag's core. */
  sha256: string
  /** `sha384-<base64>`, the value of an `integrity` attribute. */
  integrity: string
  compressed: Partial<Record<Exclude<Encoding, 'identity'>, Buffer>>
}

/** The package's dist/: found from here upwards, as this file runs from server/plugins (tsx) or dist/node/server/plugins (compiled). */
export function packageDist(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist')
    if (dirname(dir) === dir) return join(import.meta.dirname, '..', '..', 'dist')
  }
}

const DEFAULT_DIST = packageDist()

/** The encoding to send: brotli, then gzip, else none (q=0 refuses one). */
export function pickEncoding(header: string | undefined): Encoding {
  const accepted = new Map<string, number>()
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (!name) continue
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    accepted.set(name, q === undefined ? 1 : Number(q))
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0
  if (ok('br')) return 'br'
  if (ok('gzip')) return 'gzip'
  return 'identity'
}

/** True when If-None-Match names this ETag (weak comparison, as RFC 9110 asks for this header) or `*`. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch.trim() === '*') return true
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)
}

/** What every route needs of the build: one cache for them all, and one answer when nothing is built. */
interface BuiltFiles {
  load(name: string): Promise<Asset | null>
  notBuilt(req: FastifyRequest, reply: FastifyReply): FastifyReply
}

/**
 * Public, cacheable files: not rate-limited (a busy seller's visitors share NAT addresses), not in the
 * OpenAPI document, and outside the API's per-origin CORS (its `Vary: Origin` and seller lookup would
 * split CDN caches and cost a database read per page view; these answer `*` themselves).
 */
function publicRouteOptions() {
  return {
    schema: { hide: true },
    config: { rateLimit: false as const, cors: false as const },
    logLevel: 'warn' as const,
  }
}

type PublicRoute = ReturnType<typeof publicRouteOptions>

export async function sdkStaticPlugin(app: FastifyInstance, opts: SdkStaticOptions) {
  const dir = join(opts.distDir ?? DEFAULT_DIST, 'javascript', 'v2.2')
  const files: BuiltFiles = { load: assetLoader(dir), notBuilt: (req, reply) => sendNotBuilt(req, reply, dir) }
  const route = publicRouteOptions()
  registerScriptRoutes(app, route, files)
  registerIntegrityRoutes(app, route, files)
  registerLocaleRoute(app, route, files)
  registerChunkRoute(app, route, files)
}

/** Reads a file of `dir` once per build: the cached copy serves until the file's size or mtime changes. */
function assetLoader(dir: string): BuiltFiles['load'] {
  const cache = new Map<string, Asset>()
  return async (name) => {
    const path = join(dir, name)
    const st = await stat(path).catch(() => null)
    if (!st?.isFile()) {
      cache.delete(name)
      return null
    }
    const hit = cache.get(name)
    if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs) return hit
    const body = await readFile(path)
    const asset: Asset = {
      size: st.size,
      mtimeMs: st.mtimeMs,
      body,
      sha256: createHash('sha256').update(body).digest('base64url'),
      integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
      compressed: {},
    }
    cache.set(name, asset)
    return asset
  }
}

/** Compressed on first request and kept with the asset, so a build costs one compression per encoding. */
function compressedBody(asset: Asset, enc: Encoding): Buffer {
  if (enc === 'identity') return asset.body
  asset.compressed[enc] ??=
    enc === 'br'
      ? brotliCompressSync(asset.body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: asset.body.length },
        })
      : gzipSync(asset.body, { level: 9 })
  return asset.compressed[enc]!
}

/** What lets a seller's page, on any origin, load these files with `integrity=` and time them. */
function setPublicHeaders(reply: FastifyReply) {
  reply
    .header('access-control-allow-origin', '*')
    .header('cross-origin-resource-policy', 'cross-origin')
    .header('timing-allow-origin', '*')
    .header('x-content-type-options', 'nosniff')
}

/** 503 problem+json: the server runs but nobody built the SDK (the error handler would hide this detail on a 5xx). */
function sendNotBuilt(req: FastifyRequest, reply: FastifyReply, dir: string) {
  req.log.warn({ dir }, 'browser SDK requested but not built')
  setPublicHeaders(reply)
  return reply
    .code(503)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .header('cache-control', 'no-store')
    .send({
      type: problemTypeUri('unavailable'),
      title: ERROR_CODES.unavailable.title,
      status: 503,
      detail: `The browser SDK is not built on this server: run \`npm run build\` (npm start does it when ${SDK_FILE} is missing).`,
      code: 'unavailable',
      request_id: req.id,
    })
}

/**
 * Sends one representation with its validators, or a 304 when the client already has it. With
 * `compress`, brotli or gzip as the client accepts; each encoding is its own representation with its
 * own strong ETag.
 */
function sendRepresentation(
  req: FastifyRequest,
  reply: FastifyReply,
  r: { tag: string; type: string; body: (enc: Encoding) => Buffer | string; compress: boolean; cache?: string },
) {
  const enc = r.compress ? pickEncoding(req.headers['accept-encoding']) : 'identity'
  const etag = `"${r.tag}${enc === 'identity' ? '' : enc === 'br' ? '-br' : '-gz'}"`
  setPublicHeaders(reply)
  reply.header('cache-control', r.cache ?? SDK_CACHE_CONTROL).header('etag', etag)
  if (r.compress) reply.header('vary', 'Accept-Encoding')
  if (etagMatches(req.headers['if-none-match'], etag)) return reply.code(304).send()
  if (enc !== 'identity') reply.header('content-encoding', enc)
  return reply.type(r.type).send(r.body(enc))
}

/**
 * A name under `locales/` or `chunks/` that is not there: 503 when the SDK itself is not built, else a 404
 * that still carries CORS `*`, so the page reads it as an answer rather than a network error.
 */
async function sendMissing(req: FastifyRequest, reply: FastifyReply, files: BuiltFiles) {
  if (!(await files.load(SDK_FILE))) return files.notBuilt(req, reply)
  setPublicHeaders(reply)
  return reply.callNotFound()
}

/** svc.min.js and svc-sandbox.min.js, each with its source map (a missing map is a 404 only once the script is built). */
function registerScriptRoutes(app: FastifyInstance, route: PublicRoute, files: BuiltFiles) {
  for (const file of [SDK_FILE, SANDBOX_FILE]) {
    app.get(`${SDK_PREFIX}/${file}`, route, async (req, reply) => {
      const js = await files.load(file)
      if (!js) return files.notBuilt(req, reply)
      return sendRepresentation(req, reply, {
        tag: js.sha256,
        type: 'text/javascript; charset=utf-8',
        body: (enc) => compressedBody(js, enc),
        compress: true,
      })
    })

    app.get(`${SDK_PREFIX}/${file}.map`, route, async (req, reply) => {
      const map = await files.load(`${file}.map`)
      if (!map) return (await files.load(file)) ? reply.callNotFound() : files.notBuilt(req, reply)
      return sendRepresentation(req, reply, {
        tag: map.sha256,
        type: 'application/json; charset=utf-8',
        body: (enc) => compressedBody(map, enc),
        compress: true,
      })
    })
  }
}

/** svc.min.js's Subresource Integrity hash, as text and as JSON. */
function registerIntegrityRoutes(app: FastifyInstance, route: PublicRoute, files: BuiltFiles) {
  /** The `integrity` attribute's value as plain text: `integrity="$(curl -s .../svc.min.js.sri)"`. */
  app.get(`${SDK_PREFIX}/${SDK_FILE}.sri`, route, async (req, reply) => {
    const js = await files.load(SDK_FILE)
    if (!js) return files.notBuilt(req, reply)
    return sendRepresentation(req, reply, {
      tag: `${js.sha256}-sri`,
      type: 'text/plain; charset=utf-8',
      body: () => js.integrity,
      compress: false,
    })
  })

  /** The same as JSON keyed by file name (the shape SRI manifest tools use). */
  app.get(`${SDK_PREFIX}/integrity.json`, route, async (req, reply) => {
    const js = await files.load(SDK_FILE)
    if (!js) return files.notBuilt(req, reply)
    return sendRepresentation(req, reply, {
      tag: `${js.sha256}-json`,
      type: 'application/json; charset=utf-8',
      body: () => JSON.stringify({ [SDK_FILE]: js.integrity }),
      compress: false,
    })
  })
}

/**
 * The translations svc.min.js fetches for the traveller's locale (`locales/<tag>.json`, made by
 * scripts/rollup-locales.mjs), with the script's headers. A tag without a table is a 404 with CORS `*`
 * (sendMissing), so the page shows English.
 */
function registerLocaleRoute(app: FastifyInstance, route: PublicRoute, files: BuiltFiles) {
  app.get(`${SDK_PREFIX}/locales/:file`, route, async (req, reply) => {
    const { file } = req.params as { file: string }
    const json = LOCALE_FILE.test(file) ? await files.load(`locales/${file}`) : null
    if (!json) return sendMissing(req, reply, files)
    return sendRepresentation(req, reply, {
      tag: json.sha256,
      type: 'application/json; charset=utf-8',
      body: (enc) => compressedBody(json, enc),
      compress: true,
    })
  })
}

/**
 * svc.min.js's chunks, with the script's headers but cached for good (their names are their content's
 * hash; the maps keep the script's caching). An unknown name is a 404 with CORS `*`, as for a locale.
 */
function registerChunkRoute(app: FastifyInstance, route: PublicRoute, files: BuiltFiles) {
  app.get(`${SDK_PREFIX}/chunks/:file`, route, async (req, reply) => {
    const { file } = req.params as { file: string }
    const asset = CHUNK_FILE.test(file) ? await files.load(`chunks/${file}`) : null
    if (!asset) return sendMissing(req, reply, files)
    const map = file.endsWith('.map')
    return sendRepresentation(req, reply, {
      tag: asset.sha256,
      type: map ? 'application/json; charset=utf-8' : 'text/javascript; charset=utf-8',
      body: (enc) => compressedBody(asset, enc),
      compress: true,
      ...(map ? {} : { cache: CHUNK_CACHE_CONTROL }),
    })
  })
}
