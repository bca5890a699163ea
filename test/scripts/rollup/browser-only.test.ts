import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import type { Plugin } from 'rollup'
import { context, hook, load } from './support.ts'

const { browserOnly } = await load<{ browserOnly(o: { root: string }): Plugin }>('browser-only.mjs')
const root = '/repo'

test('browserOnly refuses a Node built-in, with or without node:, and leaves other ids to the resolvers', () => {
  const resolveId = hook(browserOnly({ root }), 'resolveId')
  assert.throws(() => resolveId('fs'), /fs is a Node module/)
  assert.throws(() => resolveId('node:crypto'), /node:crypto is a Node module/)
  assert.equal(resolveId('lit'), null)
  assert.equal(resolveId('./components/index.ts'), null)
})

test('browserOnly fails the bundle on the server, the sandbox, the tests or a server library, naming the importer', () => {
  const ok = context({ [join(root, 'components/index.ts')]: [], [join(root, 'node_modules/lit/index.js')]: [] })
  hook(browserOnly({ root }), 'generateBundle', ok)({}, {})
  for (const banned of [
    'server/main.ts',
    'mock-server/index.ts',
    'test/helpers.ts',
    'node_modules/msw/lib/index.js',
    'node_modules/jose/dist/index.js',
  ]) {
    const ctx = context({ [join(root, banned)]: [join(root, 'sdk/svc.ts')] })
    assert.throws(
      () => hook(browserOnly({ root }), 'generateBundle', ctx)({}, {}),
      new RegExp(`${banned.replace(/[./]/g, '\\$&')} must not be in the browser SDK \\(imported from sdk/svc\\.ts\\)`),
    )
  }
})
