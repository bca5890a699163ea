import { test, mock } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import type { Plugin } from 'rollup'
import { context, hook, load } from './support.ts'

const { sandboxBundle } = await load<{ sandboxBundle(o: { root: string }): Plugin }>('sandbox-bundle.mjs')
const root = '/repo'

test('sandboxBundle refuses a Node built-in', () => {
  const resolveId = hook(sandboxBundle({ root }), 'resolveId')
  assert.throws(() => resolveId('node:fs'), /node:fs is a Node module and cannot be in the sandbox bundle/)
  assert.throws(() => resolveId('path'), /path is a Node module/)
  assert.equal(resolveId('msw'), null)
})

test('sandboxBundle refuses the server, the tests, a database driver and Lit, and prints the size of what it keeps', () => {
  for (const banned of [
    'server/main.ts',
    'test/dom.ts',
    'node_modules/pg/lib/index.js',
    'node_modules/lit/index.js',
    'node_modules/@lit/context/index.js',
  ]) {
    const ctx = context({ [join(root, banned)]: [] })
    assert.throws(
      () => hook(sandboxBundle({ root }), 'generateBundle', ctx)({}, {}),
      /must not be in the sandbox bundle/,
    )
  }
  const log = mock.method(console, 'log', () => {})
  try {
    const ctx = context({
      [join(root, 'mock-server/index.ts')]: [],
      [join(root, 'node_modules/msw/lib/index.mjs')]: [],
    })
    hook(
      sandboxBundle({ root }),
      'generateBundle',
      ctx,
    )(
      {},
      {
        'svc-sandbox.min.js': { type: 'chunk', fileName: 'svc-sandbox.min.js', code: 'x'.repeat(2000) },
        'a.map': { type: 'asset' },
      },
    )
    assert.equal(log.mock.callCount(), 1)
    assert.match(
      String(log.mock.calls[0]!.arguments[0]),
      /^svc-sandbox\.min\.js: 2\.0 KB raw, 0\.0 KB gzip \(no budget: loaded only in sandbox mode\)$/,
    )
  } finally {
    log.mock.restore()
  }
})
