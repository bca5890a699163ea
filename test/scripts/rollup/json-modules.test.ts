import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Plugin } from 'rollup'
import { hook, load } from './support.ts'

const { jsonModules } = await load<{ jsonModules(): Plugin }>('json-modules.mjs')

test('jsonModules turns a .json module into a JSON.parse of its (compacted) text, and leaves other modules alone', async () => {
  const transform = hook(jsonModules(), 'transform')
  const out = transform('{\n  "LHR": { "city": "London" },\n  "n": [1, 2]\n}\n', '/r/core/domain/airports.json') as {
    code: string
  }
  assert.match(out.code, /^export default JSON\.parse\(/)
  const mod = (await import(`data:text/javascript,${encodeURIComponent(out.code)}`)) as { default: unknown }
  assert.deepEqual(mod.default, { LHR: { city: 'London' }, n: [1, 2] })
  assert.equal(transform('export const x = 1', '/r/core/a.ts'), null)
  assert.throws(() => transform('{ not json', '/r/x.json'), SyntaxError)
})
