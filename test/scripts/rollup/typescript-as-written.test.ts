import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Plugin } from 'rollup'
import { hook, load } from './support.ts'

const { typescriptAsWritten } = await load<{ typescriptAsWritten(): Plugin }>('typescript-as-written.mjs')

test('typescriptAsWritten erases the types of a .ts module and keeps the rest as written, with a source map', () => {
  const transform = hook(typescriptAsWritten(), 'transform')
  const source = [
    "import type { SvcApi } from '../../../sdk/types.ts'",
    '',
    '// why the page waits: a comment sellers read',
    'export function greet(svc: SvcApi | undefined, name: string): string {',
    "  const who = name as string // kept as 'written'",
    '  return svc ? \'Hello, \' + who : "no SDK"',
    '}',
    '',
  ].join('\n')
  const out = transform(source, '/r/examples/seller-checkout/app/greet.ts') as { code: string; map: string }
  assert.doesNotMatch(out.code, /SvcApi|: string|as string/, 'types erased, type-only import dropped')
  assert.match(out.code, /\/\/ why the page waits: a comment sellers read\n/)
  assert.match(out.code, /return svc \? 'Hello, ' \+ who : "no SDK"/, 'quotes and expression as written')
  assert.match(out.code, /\/\/ kept as 'written'/)
  assert.doesNotMatch(out.code, /sourceMappingURL/, 'the map is handed to rollup, not left as a comment')
  assert.deepEqual(JSON.parse(out.map).sources, ['greet.ts'])
  assert.equal(transform('export const x = 1', '/r/app/x.js'), null, 'only .ts modules')
})
