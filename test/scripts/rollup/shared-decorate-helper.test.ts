import { test } from 'node:test'
import assert from 'node:assert/strict'
import { transform } from 'esbuild'
import type { Plugin } from 'rollup'
import { hook, load } from './support.ts'

const { sharedDecorateHelper } = await load<{ sharedDecorateHelper(): Plugin }>('shared-decorate-helper.mjs')
const ID = '\0svc-decorate-class'

/** What esbuild makes of TypeScript with legacy decorators, as rollup.config.mjs compiles the elements. */
const compile = async (ts: string) =>
  (
    await transform(ts, {
      loader: 'ts',
      target: 'es2022',
      format: 'esm',
      tsconfigRaw: { compilerOptions: { experimentalDecorators: true, useDefineForClassFields: false } },
    })
  ).code

test("sharedDecorateHelper replaces esbuild's helper with an import of the one shared helper, keeping every line where it was", async () => {
  const code = await compile(
    'const prop = () => (p: object, k: string) => {}\nexport class A { @prop() a = 1; @prop() b = 2 }\n',
  )
  assert.match(code, /^var __decorateClass = /m, 'esbuild writes its helper')
  const out = hook(sharedDecorateHelper(), 'transform')(code, '/r/components/a.ts') as { code: string; map: null }
  assert.doesNotMatch(out.code, /var __decorateClass/)
  assert.ok(out.code.split('\n').includes(`import { __decorateClass } from ${JSON.stringify(ID)};`))
  assert.equal(out.code.split('\n').length, code.split('\n').length, 'the lines after the helper stay put')
  assert.equal(out.map, null)
})

test('sharedDecorateHelper fails on a decorator of anything but a field, and leaves modules without the helper alone', async () => {
  const method = await compile('const dec = (...a: unknown[]) => {}\nexport class A { @dec m() {} }\n')
  assert.throws(
    () => hook(sharedDecorateHelper(), 'transform')(method, '/r/components/a.ts'),
    /a decorator of something other than a field/,
  )
  assert.equal(hook(sharedDecorateHelper(), 'transform')('export const x = 1\n', '/r/a.ts'), null)
})

test("the shared helper applies a field's decorators, last first", async () => {
  const p = sharedDecorateHelper()
  assert.equal(hook(p, 'resolveId')(ID), ID)
  assert.equal(hook(p, 'resolveId')('lit'), null)
  assert.equal(hook(p, 'load')('/r/a.ts'), null)
  const source = hook(p, 'load')(ID) as string
  const { __decorateClass } = (await import(`data:text/javascript,${encodeURIComponent(source)}`)) as {
    __decorateClass(d: Array<(t: object, k: string) => void>, t: object, k: string): void
  }
  const calls: string[] = []
  const target = {}
  __decorateClass(
    [(t, k) => calls.push(`first ${k} ${t === target}`), (t, k) => calls.push(`second ${k} ${t === target}`)],
    target,
    'open',
  )
  assert.deepEqual(calls, ['second open true', 'first open true'])
})
