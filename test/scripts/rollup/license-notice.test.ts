import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Plugin } from 'rollup'
import { hook, load } from './support.ts'

const { licenseNotice } = await load<{ licenseNotice(): Plugin }>('license-notice.mjs')

test("licenseNotice appends Lit's notice, once, to an entry only", () => {
  const renderChunk = hook(licenseNotice(), 'renderChunk')
  const out = renderChunk('var a=1;', { isEntry: true }) as { code: string; map: null }
  assert.equal(out.code.split('\n')[0], 'var a=1;')
  assert.match(
    out.code,
    /\n\/\*! svc browser SDK v2\.2\. Includes Lit and @lit\/context, \(c\) Google LLC, BSD-3-Clause: \S+ \*\/$/,
  )
  assert.equal(out.map, null)
  assert.equal(renderChunk('var b=2;', { isEntry: false }), null)
})
