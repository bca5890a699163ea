/**
 * The locale JSON the build ships (dist/javascript/v2.2/locales, what the SDK fetches) and the ESM locale
 * modules are the translation tables of components/i18n/locales, as built: one per shipped locale but
 * en-US (inside svc.min.js), each exactly its table, and nothing else. Runs after `npm run build`, as the
 * whole e2e suite does: a missing or stale build fails it.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Strings } from '../../components/i18n/en-US.ts'
import { LOCALES } from '../../components/i18n/index.ts'

const root = join(import.meta.dirname, '..', '..')
const dir = join(root, 'components', 'i18n', 'locales')
const out = join(root, 'dist', 'javascript', 'v2.2', 'locales')

test('the built locale JSON is each translation table, one per shipped locale but en-US', async () => {
  assert.ok(existsSync(out), `${out} is missing: run npm run build first`)
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
  const emitted = readdirSync(out)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort()
  const built = Math.min(...emitted.map((tag) => statSync(join(out, `${tag}.json`)).mtimeMs))
  const newer = files.filter((f) => statSync(join(dir, f)).mtimeMs > built)
  assert.deepEqual(newer, [], 'tables changed since the build: run npm run build')
  assert.deepEqual(emitted, LOCALES.filter((tag) => tag !== 'en-US').sort(), 'a JSON per shipped locale but en-US')
  for (const f of files) {
    const tag = f.slice(0, -3)
    const table = ((await import(join(dir, f))) as { default: Strings }).default
    assert.deepEqual(JSON.parse(readFileSync(join(out, `${tag}.json`), 'utf8')), table, tag)
    assert.ok(
      existsSync(join(root, 'dist', 'svc-ancillaries', 'locales', `${tag}.js`)),
      `dist/svc-ancillaries/locales/${tag}.js`,
    )
  }
})
