import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Plugin } from 'rollup'
import { context, hook, load } from './support.ts'

const { esmTypes } = await load<{ esmTypes(o: { packageDir: string; elements: Record<string, string> }): Plugin }>(
  'esm-types.mjs',
)

test("esmTypes writes a .d.ts beside each entry, pointing into the package's types/", () => {
  const ctx = context()
  hook(
    esmTypes({ packageDir: '/nonexistent', elements: { 'svc-modal': 'components/modal/modal.ts' } }),
    'generateBundle',
    ctx,
  )()
  assert.deepEqual(
    ctx.emitted.map((f) => [f.type, f.fileName, f.source.split('\n')[1]]),
    [
      ['asset', 'index.d.ts', "export * from './types/sdk/esm.js'"],
      ['asset', 'elements/index.d.ts', "export * from '../types/components/index.js'"],
      ['asset', 'elements/svc-modal.d.ts', "export * from '../types/components/modal/modal.js'"],
    ],
  )
})

test("esmTypes removes the package's old chunks/ and elements/ when a build starts, and nothing else", () => {
  const packageDir = mkdtempSync(join(tmpdir(), 'svc-package-'))
  try {
    for (const dir of ['chunks', 'elements', 'types']) {
      mkdirSync(join(packageDir, dir))
      writeFileSync(join(packageDir, dir, 'old.js'), '')
    }
    hook(esmTypes({ packageDir, elements: {} }), 'buildStart')()
    assert.equal(existsSync(join(packageDir, 'chunks')), false)
    assert.equal(existsSync(join(packageDir, 'elements')), false)
    assert.equal(existsSync(join(packageDir, 'types', 'old.js')), true)
  } finally {
    rmSync(packageDir, { recursive: true, force: true })
  }
})
