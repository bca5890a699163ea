import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { measurePatience } from './patience.ts'

const factorIn = (env: Record<string, string | undefined>) =>
  Number(
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('${join(import.meta.dirname, 'patience.ts')}').then((m) => console.log(m.patience(1000)))`,
      ],
      { env: { ...process.env, ...env }, encoding: 'utf8' },
    ).trim(),
  ) / 1000

test('TEST_PATIENCE, when it is a factor of at least 1, is every process’s factor', () => {
  assert.equal(factorIn({ TEST_PATIENCE: '3' }), 3)
  assert.equal(factorIn({ TEST_PATIENCE: '1.5' }), 1.5)
})

test('without a usable TEST_PATIENCE the machine is measured: never below 1, never above 10', () => {
  for (const given of [undefined, '0.2', 'slow', ''])
    assert.ok(factorIn({ TEST_PATIENCE: given }) >= 1 && factorIn({ TEST_PATIENCE: given }) <= 10, String(given))
  const measured = measurePatience()
  assert.ok(measured >= 1 && measured <= 10, String(measured))
})
