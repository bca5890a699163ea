import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Plugin } from 'rollup'
import { hook, load } from './support.ts'

const { privateNames } = await load<{ privateNames(): Plugin }>('private-names.mjs')

test('privateNames renames private members class by class, keeps behaviour, and returns a source map', async () => {
  const code = [
    'export class A { #someLongPrivateName = 1; #another = 2; get v() { return this.#someLongPrivateName + this.#another } }',
    'export class B { #yetAnotherLongName = 40; get v() { return this.#yetAnotherLongName + 2 } }',
  ].join('\n')
  const out = (await hook(privateNames(), 'renderChunk')(code)) as { code: string; map: string }
  assert.doesNotMatch(out.code, /someLongPrivateName|yetAnotherLongName|#another/)
  assert.ok(out.code.length < code.length)
  assert.equal(JSON.parse(out.map).version, 3)
  const mod = (await import(`data:text/javascript,${encodeURIComponent(out.code)}`)) as {
    A: new () => { v: number }
    B: new () => { v: number }
  }
  assert.equal(new mod.A().v, 3)
  assert.equal(new mod.B().v, 42)
})
