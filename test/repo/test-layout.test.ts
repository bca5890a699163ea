/**
 * Tests mirror the code (docs/development.md "Where the tests are"): the test of `<dir>/<name>.ts` is
 * `test/<dir>/<name>.test.ts`, and in Chromium `test/<dir>/<name>.browser.test.ts`; one file per unit and
 * runner. A test of test code sits beside it (test/helpers/operations.test.ts). What tests no single unit
 * lives in one of the behaviour folders below, each with why. A test anywhere else, or a second file for one
 * unit, fails here.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** The folders of suites that test no single unit (or are not ours to lay out), and why each is one. */
export const BEHAVIOUR_FOLDERS: Record<string, string> = {
  'test/api/': 'the HTTP API across operations and flows (app.inject, a socket, or started processes): no one unit',
  'test/attack/':
    'attacks on both hosts of the API (tokens, crafted requests, fuzzing, properties, a hostile supplier)',
  'test/parity/': 'the same scenarios on the Fastify server and the MSW sandbox, compared',
  'test/e2e/': 'the built artefacts (Storybook, the demo, the package) in Chromium, after `npm run build`',
  'test/live/': "the live run against Duffel's test mode, and its record mode held to working against the fake",
  'test/repo/': 'the repository itself: docs, citations, folder tables, dependencies, this layout',
  'test/fakes/': 'fakes of the services we call, with their own tests (the fake Duffel against its recordings)',
  'test/store/': 'the store contract, one suite run on the memory, SQLite and PostgreSQL stores',
}

const root = join(import.meta.dirname, '..', '..')
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && existsSync(join(root, f)) && statSync(join(root, f)).isFile())
const present = new Set(files)
const tests = files.filter((f) => f.startsWith('test/') && f.endsWith('.test.ts'))

const BROWSER = '.browser.test.ts'
const inBehaviourFolder = (f: string) => Object.keys(BEHAVIOUR_FOLDERS).some((dir) => f.startsWith(dir))

/**
 * The unit a test file mirrors, with the runner it is for: `test/<path>.test.ts` → `<path>.ts` (or .mjs, .js,
 * .tsx) outside test/, else the test code `test/<path>.ts` beside it; undefined when there is none.
 */
function unitOf(f: string): { unit: string; runner: 'node' | 'browser' } | undefined {
  const runner = f.endsWith(BROWSER) ? 'browser' : 'node'
  const stem = f.slice(0, -(runner === 'browser' ? BROWSER : '.test.ts').length)
  for (const ext of ['.ts', '.mjs', '.js', '.tsx']) {
    const source = stem.slice('test/'.length) + ext
    if (!source.startsWith('test/') && present.has(source)) return { unit: source, runner }
  }
  if (present.has(`${stem}.ts`)) return { unit: `${stem}.ts`, runner }
  return undefined
}

test('every test mirrors an existing source file, or is in a behaviour folder', () => {
  const misplaced = tests.filter((f) => !inBehaviourFolder(f) && !unitOf(f))
  assert.deepEqual(
    misplaced,
    [],
    `tests that mirror no file (the test of <dir>/<name>.ts is test/<dir>/<name>.test.ts, or .browser.test.ts) and sit in no folder of BEHAVIOUR_FOLDERS:\n${misplaced.join('\n')}`,
  )
})

test('no unit has two test files for one runner', () => {
  const byUnit = new Map<string, string[]>()
  for (const f of tests.filter((x) => !inBehaviourFolder(x))) {
    const u = unitOf(f)
    if (!u) continue
    const key = `${u.unit} (${u.runner})`
    byUnit.set(key, [...(byUnit.get(key) ?? []), f])
  }
  const twice = [...byUnit].filter(([, fs]) => fs.length > 1).map(([u, fs]) => `${u}: ${fs.join(', ')}`)
  assert.deepEqual(twice, [], `units tested by two files (merge them):\n${twice.join('\n')}`)
})

test('a test runs where its name says: Chromium suites are *.browser.test.ts, and only they', () => {
  // @web/test-runner runs test/**/*.browser.test.ts (web-test-runner.config.mjs), test/run-node.ts the rest;
  // test/e2e drives Chromium from Node (playwright-core), so it is a node suite.
  const wrong = tests.filter((f) => {
    const chai = /from '@esm-bundle\/chai'/.test(readFileSync(join(root, f), 'utf8'))
    return chai !== f.endsWith(BROWSER)
  })
  assert.deepEqual(wrong, [], `tests whose name does not say their runner:\n${wrong.join('\n')}`)
})

test('every behaviour folder is there and holds tests', () => {
  const empty = Object.keys(BEHAVIOUR_FOLDERS).filter((dir) => !tests.some((f) => f.startsWith(dir)))
  assert.deepEqual(empty, [], 'folders listed in BEHAVIOUR_FOLDERS without a test: drop them from the list')
})
