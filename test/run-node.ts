/**
 * Runs every node:test suite under test/ (Node 20 has no test globs and cannot strip types itself).
 * Arguments narrow the run to paths containing any of them: `npm run test:node -- store basket`.
 */
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { spawnSync } from 'node:child_process'

const root = join(import.meta.dirname, '..')
const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
  const p = join(dir, name)
  if (statSync(p).isDirectory()) return name === 'browser' || name === 'fixtures' ? [] : walk(p)
  return p.endsWith('.test.ts') ? [p] : []
})
const filters = process.argv.slice(2)
const files = walk(join(root, 'test')).map((f) => relative(root, f)).sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], { cwd: root, stdio: 'inherit' })
process.exit(r.status ?? 1)
