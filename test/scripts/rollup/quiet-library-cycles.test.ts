import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { RollupLog } from 'rollup'
import { load } from './support.ts'

const { quietLibraryCycles } = await load<{ quietLibraryCycles(w: RollupLog, warn: (w: RollupLog) => void): void }>(
  'quiet-library-cycles.mjs',
)

test('quietLibraryCycles drops a cycle among libraries only, and passes every other warning on', () => {
  const passed: RollupLog[] = []
  const warn = (w: RollupLog) => passed.push(w)
  const library = {
    code: 'CIRCULAR_DEPENDENCY',
    message: 'cycle',
    ids: ['/r/node_modules/typebox/a.mjs', '/r/node_modules/typebox/b.mjs'],
  }
  const ours = { code: 'CIRCULAR_DEPENDENCY', message: 'cycle', ids: ['/r/core/a.ts', '/r/node_modules/typebox/b.mjs'] }
  const other = { code: 'EVAL', message: 'eval', ids: ['/r/node_modules/x/index.js'] }
  quietLibraryCycles(library, warn)
  quietLibraryCycles(ours, warn)
  quietLibraryCycles(other, warn)
  assert.deepEqual(passed, [ours, other])
})
