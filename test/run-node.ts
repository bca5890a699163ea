/**
 * Runs every node:test suite under test/ (Node 20 has no test globs and cannot strip types itself).
 * Arguments narrow the run to paths containing any of them: `npm run test:node -- store basket`.
 * Node's own coverage is on (COVERAGE=0 turns it off): the spec reporter prints the table per file, and
 * test/coverage-summary.mjs the product code's total line, branch and function coverage at the end.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { PATIENCE } from './helpers/patience.ts'

const root = join(import.meta.dirname, '..')
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    // e2e/ runs after the build (npm run test:e2e), fixtures/ are not suites, and *.browser.test.ts run in
    // Chromium (@web/test-runner, web-test-runner.config.mjs).
    if (statSync(p).isDirectory()) return name === 'e2e' || name === 'fixtures' ? [] : walk(p)
    return p.endsWith('.test.ts') && !p.endsWith('.browser.test.ts') ? [p] : []
  })
const filters = process.argv.slice(2)
const files = walk(join(root, 'test'))
  .map((f) => relative(root, f))
  .sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}
// The PostgreSQL store contract needs a server: use DATABASE_URL_PG when given, else start a throwaway
// cluster when PostgreSQL is installed (the suite reports itself skipped when neither is possible).
const env = { ...process.env }
// tsx transforms with esbuild's transformSync, which esbuild runs on a worker thread of its own that waits in
// Atomics.wait for its answer; on a loaded machine that wait can last forever (a suite started, used no CPU
// and never ran a test: a clean-clone CI hung 13 minutes in test/client/session.test.ts, with esbuild 0.28.2
// and tsx 4.23.15 asleep). ESBUILD_WORKER_THREADS=0 is esbuild's own switch to its per-call path
// (node_modules/esbuild/lib/main.js); every suite and every process a suite starts inherits it.
env.ESBUILD_WORKER_THREADS = '0'
let pgDir: string | undefined
// A suite that reads DATABASE_URL_PG needs it, whatever its name.
if (!env.DATABASE_URL_PG && files.some((f) => readFileSync(join(root, f), 'utf8').includes('DATABASE_URL_PG'))) {
  const pg = spawnSync('bash', [join(root, 'scripts/pg-throwaway.sh')], { encoding: 'utf8' })
  if (pg.status === 0) {
    for (const line of pg.stdout.trim().split('\n')) {
      const [k, v] = line.split('=', 2) as [string, string]
      if (k === 'PG_DIR') pgDir = v
      if (k === 'DATABASE_URL_PG') env.DATABASE_URL_PG = v
    }
  } else {
    console.error(
      `PostgreSQL not started (${pg.stderr.trim() || `exit ${pg.status}`}); its store contract will be skipped`,
    )
  }
}
// Every wait of every suite is scaled by one factor (test/helpers/patience.ts), measured here once, before the
// suites load the machine themselves, so that every file and every process it starts agrees on it.
env.TEST_PATIENCE = String(PATIENCE)
console.log(`# patience: waits ×${PATIENCE.toFixed(2)} (TEST_PATIENCE sets it)`)
const coverage =
  process.env.COVERAGE !== '0'
    ? [
        '--experimental-test-coverage',
        '--test-reporter=./test/coverage-summary.mjs',
        '--test-reporter-destination=stdout',
      ]
    : []
// Files at once: node:test's default is one fewer than the cores, one on CI's two. The suites mostly wait
// (sockets, child processes, PostgreSQL, timers), so three files at once took the whole run from 243 s to
// 170 s on two cores, all passing (four: 163 s).
const concurrency = Math.max(3, availableParallelism() - 1)
// Whatever else goes wrong, a file that runs longer than this is stopped and fails, naming itself, instead of
// holding the run until CI's own limit (the slowest file takes about 2 minutes on two busy cores).
const FILE_LIMIT_MS = Math.round(20 * 60_000 * PATIENCE)
// Under CI=true a skipped test fails the run (test/ci-skips.mjs): a check that did not run is not green.
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${FILE_LIMIT_MS}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=./test/ci-skips.mjs',
    '--test-reporter-destination=stdout',
    ...coverage,
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env },
)
if (pgDir) spawnSync('bash', [join(root, 'scripts/pg-throwaway.sh'), 'stop', pgDir])
process.exit(r.status ?? 1)
