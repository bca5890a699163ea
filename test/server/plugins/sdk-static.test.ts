/**
 * The browser SDK as the server serves it: headers a seller's page and a CDN rely on (type, CORS, CORP,
 * caching, strong ETag and 304), compression, the published integrity hash, and a clear 503 when the
 * bundle was never built. Uses a temporary dist folder, so it runs without `npm run build`.
 */
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../../server/app.ts'
import { createCore } from '../../../core/core.ts'
import { MemoryStore } from '../../../core/adapters/memory-store.ts'
import { createSandboxSupplier } from '../../../core/adapters/sandbox-airline/adapter.ts'
import {
  CHUNK_CACHE_CONTROL,
  etagMatches,
  pickEncoding,
  SDK_CACHE_CONTROL,
} from '../../../server/plugins/sdk-static.ts'
import { assertProblem, body } from '../../helpers/build.ts'

const JS = '/javascript/v2.2/svc.min.js'

async function app(distDir?: string, rateLimit = { max: 100_000, timeWindow: 60_000 }): Promise<FastifyInstance> {
  const store = new MemoryStore()
  const core = createCore({
    store,
    suppliers: [createSandboxSupplier()],
    clock: { now: () => new Date() },
    ids: { uuid: () => randomUUID(), secret: (n) => randomBytes(n).toString('base64url') },
  })
  await core.ensureSigningKey()
  await core.createSeller({ name: 'Shop', origins: ['https://shop.example'], sandbox: true })
  const a = await buildApp({ core, store, logger: false, rateLimit, ...(distDir ? { sdkDistDir: distDir } : {}) })
  await a.ready()
  return a
}

function distWith(js: string, map = '{"version":3,"sources":[],"mappings":""}') {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dist-'))
  mkdirSync(join(dir, 'javascript', 'v2.2'), { recursive: true })
  writeFileSync(join(dir, 'javascript', 'v2.2', 'svc.min.js'), js)
  writeFileSync(join(dir, 'javascript', 'v2.2', 'svc.min.js.map'), map)
  return dir
}

// Big enough that compression is worth it, varied enough to be realistic.
const SCRIPT = `(function(){"use strict";${Array.from({ length: 400 }, (_, i) => `var a${i}=${i}*2;`).join('')}window.Svc={version:"2.2"}})();\n//# sourceMappingURL=svc.min.js.map\n`
const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url')
const sha384 = (s: string | Buffer) => `sha384-${createHash('sha384').update(s).digest('base64')}`

describe('GET /javascript/v2.2/svc.min.js', () => {
  let dir: string
  let a: FastifyInstance
  before(async () => {
    dir = distWith(SCRIPT)
    a = await app(dir)
  })
  after(async () => {
    await a.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test('serves the bundle as JavaScript, to any origin, cached briefly and revalidated', async () => {
    const res = await a.inject({ method: 'GET', url: JS })
    assert.equal(res.statusCode, 200)
    assert.equal(res.body, SCRIPT)
    assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8')
    // No content hash in the URL: never `immutable`, or visitors would keep an old build for a year.
    assert.equal(res.headers['cache-control'], 'public, max-age=300, stale-while-revalidate=86400')
    assert.equal(res.headers['cache-control'], SDK_CACHE_CONTROL)
    assert.equal(res.headers['access-control-allow-origin'], '*')
    assert.equal(res.headers['cross-origin-resource-policy'], 'cross-origin')
    assert.equal(res.headers['x-content-type-options'], 'nosniff')
    assert.equal(res.headers.vary, 'Accept-Encoding')
    assert.equal(res.headers['content-encoding'], undefined)
  })

  test('the ETag is strong and is the sha256 of the file', async () => {
    const res = await a.inject({ method: 'GET', url: JS })
    assert.equal(res.headers.etag, `"${sha256(SCRIPT)}"`)
  })

  test('If-None-Match with the ETag (strong or weak form, or in a list) answers 304 without a body', async () => {
    const etag = String((await a.inject({ method: 'GET', url: JS })).headers.etag)
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await a.inject({ method: 'GET', url: JS, headers: { 'if-none-match': inm } })
      assert.equal(res.statusCode, 304, inm)
      assert.equal(res.body, '')
      assert.equal(res.headers.etag, etag)
      assert.equal(res.headers['cache-control'], SDK_CACHE_CONTROL)
      assert.equal(res.headers['access-control-allow-origin'], '*')
    }
    const changed = await a.inject({ method: 'GET', url: JS, headers: { 'if-none-match': '"something-else"' } })
    assert.equal(changed.statusCode, 200)
    assert.equal(changed.body, SCRIPT)
  })

  test('gzip and brotli when accepted, each its own representation with its own ETag', async () => {
    const br = await a.inject({ method: 'GET', url: JS, headers: { 'accept-encoding': 'gzip, deflate, br' } })
    assert.equal(br.headers['content-encoding'], 'br')
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), SCRIPT)
    assert.ok(br.rawPayload.length < SCRIPT.length / 2)
    const gz = await a.inject({ method: 'GET', url: JS, headers: { 'accept-encoding': 'gzip' } })
    assert.equal(gz.headers['content-encoding'], 'gzip')
    assert.equal(gunzipSync(gz.rawPayload).toString(), SCRIPT)
    const etags = new Set([br.headers.etag, gz.headers.etag, `"${sha256(SCRIPT)}"`])
    assert.equal(etags.size, 3)
    const again = await a.inject({
      method: 'GET',
      url: JS,
      headers: { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) },
    })
    assert.equal(again.statusCode, 304)
    const refused = await a.inject({ method: 'GET', url: JS, headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } })
    assert.equal(refused.headers['content-encoding'], undefined)
    assert.equal(refused.body, SCRIPT)
  })

  test('HEAD answers the headers only', async () => {
    const res = await a.inject({ method: 'HEAD', url: JS })
    assert.equal(res.statusCode, 200)
    assert.equal(res.body, '')
    assert.equal(res.headers.etag, `"${sha256(SCRIPT)}"`)
  })

  test('the source map is served beside it as JSON', async () => {
    const res = await a.inject({ method: 'GET', url: `${JS}.map` })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(body<{ version: number }>(res).version, 3)
    assert.equal(res.headers['access-control-allow-origin'], '*')
    assert.ok(res.headers.etag)
  })

  test('the published integrity hash is the sha384 of the very bytes served', async () => {
    const script = await a.inject({ method: 'GET', url: JS })
    const expected = sha384(script.rawPayload)
    assert.equal(expected, sha384(SCRIPT))
    const sri = await a.inject({ method: 'GET', url: `${JS}.sri` })
    assert.equal(sri.statusCode, 200)
    assert.equal(sri.headers['content-type'], 'text/plain; charset=utf-8')
    assert.equal(sri.body, expected)
    assert.equal(sri.headers['access-control-allow-origin'], '*')
    const json = await a.inject({ method: 'GET', url: '/javascript/v2.2/integrity.json' })
    assert.equal(json.statusCode, 200)
    assert.match(String(json.headers['content-type']), /^application\/json/)
    assert.deepEqual(body(json), { 'svc.min.js': expected })
  })

  test('a rebuilt bundle is picked up at once, with a new ETag and hash', async () => {
    const next = SCRIPT.replace('"2.2"', '"2.2",build:2')
    writeFileSync(join(dir, 'javascript', 'v2.2', 'svc.min.js'), next)
    const later = new Date(Date.now() + 5000)
    utimesSync(join(dir, 'javascript', 'v2.2', 'svc.min.js'), later, later)
    const res = await a.inject({ method: 'GET', url: JS })
    assert.equal(res.body, next)
    assert.equal(res.headers.etag, `"${sha256(next)}"`)
    assert.equal((await a.inject({ method: 'GET', url: `${JS}.sri` })).body, sha384(next))
    writeFileSync(join(dir, 'javascript', 'v2.2', 'svc.min.js'), SCRIPT)
    utimesSync(join(dir, 'javascript', 'v2.2', 'svc.min.js'), new Date(), new Date())
  })

  test("a seller page origin gets `*`, not the API's per-origin CORS (which would Vary on Origin)", async () => {
    for (const origin of ['https://shop.example', 'https://unknown.example']) {
      const res = await a.inject({ method: 'GET', url: JS, headers: { origin } })
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.doesNotMatch(String(res.headers.vary ?? ''), /origin/i)
    }
  })

  test('the SDK files are not in the OpenAPI document', async () => {
    const doc = body<{ paths: Record<string, unknown> }>(await a.inject({ method: 'GET', url: '/v2.2/openapi.json' }))
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/javascript')))
  })

  test('other methods are refused (405) and other files are 404', async () => {
    assertProblem(await a.inject({ method: 'POST', url: JS }), 405, 'method_not_allowed')
    assertProblem(await a.inject({ method: 'GET', url: '/javascript/v2.2/other.js' }), 404, 'not_found')
    assertProblem(await a.inject({ method: 'GET', url: '/javascript/v2.2/../../package.json' }), 404, 'not_found')
  })
})

test('the script is not rate-limited (every visitor of a seller behind one NAT loads it)', async () => {
  const dir = distWith(SCRIPT)
  const a = await app(dir, { max: 2, timeWindow: 60_000 })
  try {
    for (let i = 0; i < 6; i++) assert.equal((await a.inject({ method: 'GET', url: JS })).statusCode, 200)
    // The API itself still is.
    let limited = false
    for (let i = 0; i < 4; i++) limited ||= (await a.inject({ method: 'GET', url: '/nowhere' })).statusCode === 429
    assert.ok(limited)
  } finally {
    await a.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('without a build every SDK URL answers 503 problem+json naming `npm run build`', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dist-empty-'))
  const a = await app(dir)
  try {
    for (const url of [JS, `${JS}.map`, `${JS}.sri`, '/javascript/v2.2/integrity.json']) {
      const res = await a.inject({ method: 'GET', url })
      const p = assertProblem(res, 503, 'unavailable')
      assert.match(p.detail, /npm run build/, url)
      assert.equal(res.headers['cache-control'], 'no-store', url)
      assert.equal(res.headers['access-control-allow-origin'], '*', url)
    }
  } finally {
    await a.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('a build without its map: the script is served, the map is 404', async () => {
  const dir = distWith(SCRIPT)
  rmSync(join(dir, 'javascript', 'v2.2', 'svc.min.js.map'))
  const a = await app(dir)
  try {
    assert.equal((await a.inject({ method: 'GET', url: JS })).statusCode, 200)
    assertProblem(await a.inject({ method: 'GET', url: `${JS}.map` }), 404, 'not_found')
  } finally {
    await a.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the sandbox bundle and its map are served beside svc.min.js, with the same headers; 503 before a build', async () => {
  const SANDBOX = '/javascript/v2.2/svc-sandbox.min.js'
  const code = `(function(){window.SvcSandbox={version:"2.2"}})();\n//# sourceMappingURL=svc-sandbox.min.js.map\n`
  const dir = distWith(SCRIPT)
  writeFileSync(join(dir, 'javascript', 'v2.2', 'svc-sandbox.min.js'), code)
  writeFileSync(join(dir, 'javascript', 'v2.2', 'svc-sandbox.min.js.map'), '{"version":3,"sources":[],"mappings":""}')
  const a = await app(dir)
  try {
    const res = await a.inject({ method: 'GET', url: SANDBOX })
    assert.equal(res.statusCode, 200)
    assert.equal(res.body, code)
    assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8')
    assert.equal(res.headers['cache-control'], SDK_CACHE_CONTROL)
    assert.equal(res.headers['access-control-allow-origin'], '*')
    assert.equal(res.headers.etag, `"${sha256(code)}"`)
    const gz = await a.inject({ method: 'GET', url: SANDBOX, headers: { 'accept-encoding': 'gzip' } })
    assert.equal(gunzipSync(gz.rawPayload).toString(), code)
    const map = await a.inject({ method: 'GET', url: `${SANDBOX}.map` })
    assert.equal(map.statusCode, 200)
    assert.equal(map.headers['content-type'], 'application/json; charset=utf-8')
  } finally {
    await a.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const empty = mkdtempSync(join(tmpdir(), 'svc-dist-empty-'))
  const b = await app(empty)
  try {
    for (const url of [SANDBOX, `${SANDBOX}.map`])
      assert.match(assertProblem(await b.inject({ method: 'GET', url }), 503, 'unavailable').detail, /npm run build/)
  } finally {
    await b.close()
    rmSync(empty, { recursive: true, force: true })
  }
})

test("the app serves the repo's dist by default", async () => {
  // The node suites run before `npm run build` in npm test, after it when run alone: what the answer must be
  // follows from whether the repo's dist has the bundle, and it is exactly that file, or a 503 saying to build.
  const file = join(import.meta.dirname, '..', '..', '..', 'dist', 'javascript', 'v2.2', 'svc.min.js')
  const a = await app()
  try {
    const res = await a.inject({ method: 'GET', url: JS })
    if (existsSync(file)) {
      assert.equal(res.statusCode, 200)
      assert.equal(res.body, readFileSync(file, 'utf8'))
    } else {
      assert.match(assertProblem(res, 503, 'unavailable').detail, /npm run build/)
    }
  } finally {
    await a.close()
  }
})

test('Accept-Encoding negotiation and If-None-Match matching', () => {
  assert.equal(pickEncoding(undefined), 'identity')
  assert.equal(pickEncoding('gzip, deflate, br, zstd'), 'br')
  assert.equal(pickEncoding('gzip'), 'gzip')
  assert.equal(pickEncoding('br;q=0, gzip;q=0.5'), 'gzip')
  assert.equal(pickEncoding('*'), 'br')
  assert.equal(pickEncoding('*;q=0'), 'identity')
  assert.equal(pickEncoding('identity'), 'identity')
  assert.ok(etagMatches('"a", W/"b"', '"b"'))
  assert.ok(!etagMatches('"a"', '"b"'))
  assert.ok(!etagMatches(undefined, '"b"'))
})

describe('GET /javascript/v2.2/locales/<tag>.json', () => {
  const DE = JSON.stringify({
    bags_title: 'Gepäck',
    bags_selected: { one: '{count} Gepäckstück ausgewählt', other: '{count} Gepäckstücke ausgewählt' },
    note: 'x'.repeat(2000),
  })
  const URL_DE = '/javascript/v2.2/locales/de-DE.json'
  let dir: string
  let a: FastifyInstance
  before(async () => {
    dir = distWith(SCRIPT)
    mkdirSync(join(dir, 'javascript', 'v2.2', 'locales'))
    writeFileSync(join(dir, 'javascript', 'v2.2', 'locales', 'de-DE.json'), DE)
    writeFileSync(join(dir, 'javascript', 'v2.2', 'locales.json'), '{}')
    a = await app(dir)
  })
  after(async () => {
    await a.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test("served as UTF-8 JSON with the script's caching, CORS `*`, strong ETag and 304", async () => {
    const res = await a.inject({ method: 'GET', url: URL_DE, headers: { origin: 'https://unknown.example' } })
    assert.equal(res.statusCode, 200)
    assert.equal(res.body, DE)
    assert.deepEqual(body(res), JSON.parse(DE))
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(res.headers['cache-control'], SDK_CACHE_CONTROL)
    assert.equal(res.headers['access-control-allow-origin'], '*')
    assert.equal(res.headers['cross-origin-resource-policy'], 'cross-origin')
    assert.equal(res.headers['x-content-type-options'], 'nosniff')
    assert.equal(res.headers.vary, 'Accept-Encoding')
    assert.equal(res.headers.etag, `"${sha256(DE)}"`)
    const again = await a.inject({ method: 'GET', url: URL_DE, headers: { 'if-none-match': String(res.headers.etag) } })
    assert.equal(again.statusCode, 304)
    assert.equal(again.body, '')
    assert.equal(again.headers['access-control-allow-origin'], '*')
  })

  test('compressed when accepted', async () => {
    const gz = await a.inject({ method: 'GET', url: URL_DE, headers: { 'accept-encoding': 'gzip' } })
    assert.equal(gz.headers['content-encoding'], 'gzip')
    assert.equal(gunzipSync(gz.rawPayload).toString(), DE)
    const br = await a.inject({ method: 'GET', url: URL_DE, headers: { 'accept-encoding': 'br' } })
    assert.equal(br.headers['content-encoding'], 'br')
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), DE)
    assert.notEqual(br.headers.etag, gz.headers.etag)
  })

  test('a tag without a table is a 404 the page can read (CORS `*`); anything but a tag is never a path', async () => {
    const none = await a.inject({ method: 'GET', url: '/javascript/v2.2/locales/uk-UA.json' })
    assertProblem(none, 404, 'not_found')
    assert.equal(none.headers['access-control-allow-origin'], '*')
    for (const url of [
      '/javascript/v2.2/locales/..%2Flocales.json',
      '/javascript/v2.2/locales/de-DE.js',
      '/javascript/v2.2/locales/de.json',
      '/javascript/v2.2/locales/%2e%2e%2fsvc.min.js',
    ]) {
      assertProblem(await a.inject({ method: 'GET', url }), 404, 'not_found')
    }
  })

  test('without a build: 503 naming `npm run build`', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-dist-empty-'))
    const b = await app(empty)
    try {
      const res = await b.inject({ method: 'GET', url: URL_DE })
      assert.match(assertProblem(res, 503, 'unavailable').detail, /npm run build/)
      assert.equal(res.headers['access-control-allow-origin'], '*')
    } finally {
      await b.close()
      rmSync(empty, { recursive: true, force: true })
    }
  })

  test("the repo's build has a table for every shipped locale but en-US", async () => {
    const b = await app()
    try {
      const js = await b.inject({ method: 'GET', url: JS })
      // Not built, or built before the translations were: the tests above cover the route.
      if (
        js.statusCode !== 200 ||
        !existsSync(join(import.meta.dirname, '..', '..', '..', 'dist', 'javascript', 'v2.2', 'locales'))
      )
        return
      const { LOCALES } = await import('../../../components/i18n/index.ts')
      for (const tag of LOCALES.filter((t) => t !== 'en-US')) {
        const res = await b.inject({ method: 'GET', url: `/javascript/v2.2/locales/${tag}.json` })
        assert.equal(res.statusCode, 200, tag)
        assert.equal(typeof body<Record<string, unknown>>(res)['bags_title'], 'string', tag)
      }
    } finally {
      await b.close()
    }
  })
})

describe('GET /javascript/v2.2/chunks/<name>-<hash>.js', () => {
  const NAME = 'seat-map-Bx3_9-kQ.js'
  const URL_CHUNK = `/javascript/v2.2/chunks/${NAME}`
  const CHUNK = `self[Symbol.for("svc.v2.2.define")](["exports","../svc.min"],function(e,s){${'e.x=s.a;'.repeat(300)}});\n//# sourceMappingURL=${NAME}.map\n`
  let dir: string
  let a: FastifyInstance
  before(async () => {
    dir = distWith(SCRIPT)
    mkdirSync(join(dir, 'javascript', 'v2.2', 'chunks'))
    writeFileSync(join(dir, 'javascript', 'v2.2', 'chunks', NAME), CHUNK)
    writeFileSync(join(dir, 'javascript', 'v2.2', 'chunks', `${NAME}.map`), '{"version":3,"sources":[],"mappings":""}')
    a = await app(dir)
  })
  after(async () => {
    await a.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test("served as JavaScript to any origin, cached for good (its name is its content's hash), with a strong ETag", async () => {
    const res = await a.inject({ method: 'GET', url: URL_CHUNK, headers: { origin: 'https://unknown.example' } })
    assert.equal(res.statusCode, 200)
    assert.equal(res.body, CHUNK)
    assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8')
    assert.equal(res.headers['cache-control'], CHUNK_CACHE_CONTROL)
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable')
    assert.equal(res.headers['access-control-allow-origin'], '*')
    assert.equal(res.headers['cross-origin-resource-policy'], 'cross-origin')
    assert.equal(res.headers['x-content-type-options'], 'nosniff')
    assert.equal(res.headers.etag, `"${sha256(CHUNK)}"`)
    const again = await a.inject({
      method: 'GET',
      url: URL_CHUNK,
      headers: { 'if-none-match': String(res.headers.etag) },
    })
    assert.equal(again.statusCode, 304)
    const gz = await a.inject({ method: 'GET', url: URL_CHUNK, headers: { 'accept-encoding': 'gzip' } })
    assert.equal(gz.headers['content-encoding'], 'gzip')
    assert.equal(gunzipSync(gz.rawPayload).toString(), CHUNK)
  })

  test("its source map is JSON with the script's short caching", async () => {
    const res = await a.inject({ method: 'GET', url: `${URL_CHUNK}.map` })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(res.headers['cache-control'], SDK_CACHE_CONTROL)
    assert.equal(body<{ version: number }>(res).version, 3)
  })

  test('an unknown chunk is a 404 the page can read (CORS `*`); anything but a file name is never a path', async () => {
    const none = await a.inject({ method: 'GET', url: '/javascript/v2.2/chunks/seat-map-00000000.js' })
    assertProblem(none, 404, 'not_found')
    assert.equal(none.headers['access-control-allow-origin'], '*')
    for (const url of [
      '/javascript/v2.2/chunks/..%2Fsvc.min.js',
      '/javascript/v2.2/chunks/%2e%2e%2fsvc.min.js',
      '/javascript/v2.2/chunks/x.min.js',
      '/javascript/v2.2/chunks/x.txt',
    ]) {
      assertProblem(await a.inject({ method: 'GET', url }), 404, 'not_found')
    }
  })

  test('without a build: 503 naming `npm run build`', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-dist-empty-'))
    const b = await app(empty)
    try {
      const res = await b.inject({ method: 'GET', url: URL_CHUNK })
      assert.match(assertProblem(res, 503, 'unavailable').detail, /npm run build/)
      assert.equal(res.headers['access-control-allow-origin'], '*')
    } finally {
      await b.close()
      rmSync(empty, { recursive: true, force: true })
    }
  })

  test("the repo's build: every chunk svc.min.js names is served", async () => {
    const b = await app()
    try {
      const js = await b.inject({ method: 'GET', url: JS })
      if (js.statusCode !== 200) return // not built: the tests above cover the route
      const names = [...js.body.matchAll(/"\.\/chunks\/([A-Za-z0-9_-]+)"/g)].map((m) => m[1]!)
      assert.ok(names.length >= 3, `chunks named in svc.min.js: ${names.join(', ')}`)
      for (const name of names) {
        const res = await b.inject({ method: 'GET', url: `/javascript/v2.2/chunks/${name}.js` })
        assert.equal(res.statusCode, 200, name)
        assert.match(res.body, /^self\[Symbol\.for\("svc\.v2\.2\.define"\)\]\(\[("exports",)?"\.\.\/svc\.min"/, name)
      }
    } finally {
      await b.close()
    }
  })
})
