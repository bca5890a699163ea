import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Plugin } from 'rollup'
import { context, hook, load } from './support.ts'

const { sandboxLocales } = await load<{ sandboxLocales(o: { root: string; dir?: string }): Plugin }>(
  'sandbox-locales.mjs',
)
const ID = '\0svc-locales'

test('sandboxLocales serves virtual:svc-locales: every locale table of the folder, keyed by its tag', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-locales-'))
  const dir = join(root, 'locales')
  mkdirSync(dir)
  for (const f of ['de-DE.ts', 'ar-EG.ts', 'notes.md', 'README.ts']) writeFileSync(join(dir, f), '')
  try {
    const p = sandboxLocales({ root, dir })
    assert.equal(hook(p, 'resolveId')('virtual:svc-locales'), ID)
    assert.equal(hook(p, 'resolveId')('./x.ts'), null)
    assert.equal(hook(p, 'load')('/r/x.ts'), null)
    const code = hook(p, 'load')(ID) as string
    assert.deepEqual(code.split('\n').slice(0, 2), [
      `import * as m0 from ${JSON.stringify(join(dir, 'ar-EG.ts'))}`,
      `import * as m1 from ${JSON.stringify(join(dir, 'de-DE.ts'))}`,
    ])
    assert.match(code, /export default \{"ar-EG": table\(m0\), "de-DE": table\(m1\)\}$/)
    assert.doesNotMatch(code, /README|notes/)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test('sandboxLocales warns when there is no table (the sandbox has English only)', () => {
  const ctx = context()
  const code = hook(sandboxLocales({ root: '/r', dir: '/r/nowhere' }), 'load', ctx)(ID) as string
  assert.deepEqual(ctx.warnings, ['no locale tables in nowhere: the sandbox has English only'])
  assert.match(code, /export default \{\}$/)
})

test("the repository's tables are the default folder", () => {
  const root = join(import.meta.dirname, '..', '..', '..')
  const code = hook(sandboxLocales({ root }), 'load')(ID) as string
  assert.match(code, /"de-DE": table\(m\d+\)/)
})
