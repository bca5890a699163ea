import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Plugin } from 'rollup'
import { hook, load } from './support.ts'

const { sdkChunks, CHUNK_FILE_NAMES, DIGEST_PLACEHOLDER } = await load<{
  sdkChunks(o: { chunksDir: string }): Plugin
  CHUNK_FILE_NAMES: string
  DIGEST_PLACEHOLDER: RegExp
}>('sdk-chunks.mjs')

const placeholder = `AbCdEfGhIjKlMnOpQrStU${'_'.repeat(22)}`
const chunkName = `chunks/seat-map-${placeholder}.js`
const bundle = (
  over: { entryImports?: string[]; chunkImports?: string[]; entryCode?: string; chunkName?: string } = {},
) => {
  const name = over.chunkName ?? chunkName
  return {
    'svc.min.js': {
      type: 'chunk',
      isEntry: true,
      fileName: 'svc.min.js',
      imports: over.entryImports ?? [],
      dynamicImports: [name],
      code: over.entryCode ?? `load("${name}")`,
    },
    [name]: {
      type: 'chunk',
      isEntry: false,
      fileName: name,
      imports: over.chunkImports ?? ['svc.min.js'],
      dynamicImports: [],
      code: 'define(["svc.min"], function () {})',
      sourcemapFileName: 'chunks/seat-map-x.js.map',
    },
    'chunks/seat-map-x.js.map': {
      type: 'asset',
      fileName: 'chunks/seat-map-x.js.map',
      source: `{"file":"seat-map-${placeholder}.js"}`,
    },
  } as Record<string, any>
}

test('a chunk name is a placeholder as long as the SHA-256 digest that replaces it', () => {
  const digest = createHash('sha256').update('x').digest('base64url')
  assert.equal(`${'x'.repeat(21)}${'_'.repeat(22)}`.length, digest.length)
  assert.equal(CHUNK_FILE_NAMES, `chunks/[name]-[hash:21]${'_'.repeat(22)}.js`)
  assert.equal(DIGEST_PLACEHOLDER.exec(chunkName)?.[1], placeholder)
})

test('sdkChunks names each chunk by the SHA-256 of its bytes, in the bundle, in its name and in its map', () => {
  const b = bundle()
  hook(sdkChunks({ chunksDir: '/nonexistent' }), 'generateBundle')({}, b)
  const digest = createHash('sha256').update('define(["svc.min"], function () {})').digest('base64url')
  const renamed = `chunks/seat-map-${digest}.js`
  assert.deepEqual(Object.keys(b).sort(), ['chunks/seat-map-x.js.map', renamed, 'svc.min.js'].sort())
  assert.equal(b[renamed].fileName, renamed)
  assert.equal(b['svc.min.js'].code, `load("${renamed}")`)
  assert.equal(b['chunks/seat-map-x.js.map'].source, `{"file":"seat-map-${digest}.js"}`)
})

test('sdkChunks fails when the bundle needs a chunk to start, a chunk imports another, a name lacks its placeholder, or the bundle does not name a chunk', () => {
  const run = (b: Record<string, any>) => hook(sdkChunks({ chunksDir: '/nonexistent' }), 'generateBundle')({}, b)
  assert.throws(
    () => run(bundle({ entryImports: [chunkName] })),
    /imports .* statically: the bundle must start without a chunk/,
  )
  assert.throws(() => run(bundle({ chunkImports: ['svc.min.js', 'chunks/other.js'] })), /imports another chunk/)
  assert.throws(() => run(bundle({ chunkName: 'chunks/seat-map-abc.js' })), /must end in the digest placeholder/)
  assert.throws(() => run(bundle({ entryCode: 'nothing' })), /svc\.min\.js does not name/)
})

test('sdkChunks empties the chunks folder when a build starts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-chunks-'))
  const chunksDir = join(dir, 'chunks')
  mkdirSync(chunksDir)
  writeFileSync(join(chunksDir, 'old.js'), '')
  try {
    hook(sdkChunks({ chunksDir }), 'buildStart')()
    assert.equal(existsSync(chunksDir), false)
    hook(sdkChunks({ chunksDir }), 'buildStart')()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
