import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { load } from './support.ts'

const { elementEntries } = await load<{ elementEntries(root: string, dir?: string): Record<string, string> }>(
  'element-entries.mjs',
)

test("elementEntries finds each element's registration module, by tag, skipping classes, styles, tests and stories", () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-elements-'))
  const file = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  try {
    file('components/card/card.ts', "import { define } from '../internal/element.ts'\ndefine('svc-card', SvcCard)\n")
    file('components/card/card.component.ts', "define('svc-not-an-entry', X)\n")
    file('components/card/card.styles.ts', "define('svc-styles', X)\n")
    file('components/deep/er/two.ts', "define(\n  'svc-one', One)\ndefine('svc-two', Two)\n")
    file('components/internal/element.ts', 'export function define(tag, ctor) {}\n')
    file('components/readme.md', "define('svc-md', X)\n")
    assert.deepEqual(elementEntries(root), {
      'svc-card': 'components/card/card.ts',
      'svc-one': 'components/deep/er/two.ts',
      'svc-two': 'components/deep/er/two.ts',
    })
    mkdirSync(join(root, 'empty'))
    assert.throws(() => elementEntries(root, join(root, 'empty')), /no element registration .* found in empty\//)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test("the repository's elements: one folder each, the package's elements/<tag>.js entries", () => {
  const root = join(import.meta.dirname, '..', '..', '..')
  const entries = elementEntries(root)
  assert.deepEqual(Object.keys(entries).sort(), [
    'svc-bag-upsell',
    'svc-basket',
    'svc-modal',
    'svc-option-card',
    'svc-price',
    'svc-seat-map',
    'svc-spinner',
    'svc-upsell',
  ])
  for (const [tag, path] of Object.entries(entries)) {
    const name = tag.slice('svc-'.length)
    assert.equal(path, `components/${name}/${name}.ts`)
  }
})
