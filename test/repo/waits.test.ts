/**
 * Every limit a node or end-to-end suite puts on a wait (a node:test timeout, a child process's, a browser's,
 * a deadline) goes through patience() (test/helpers/patience.ts), so a busy machine never fails a test from
 * slowness alone. The helpers that wait (until, eventually, expectText, startServer, the SSE reader) scale
 * the limit they are given themselves; a number written straight into a timeout or a deadline fails here.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
const RAW = [/\btimeout: \d/, /\bdeadline = Date\.now\(\) \+ \d/, /^const (?:TEST_)?TIMEOUT\w* = \d/m]

test('no node or end-to-end suite waits with a limit that does not scale with the machine', () => {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'test'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    // In-page waits of the Chromium suites (@web/test-runner) wait on the page's own work, not on a process.
    .filter((f) => /\.(ts|mjs)$/.test(f) && !f.includes('.browser.') && !f.startsWith('test/browser/'))
  const raw = files.flatMap((f) => {
    let text: string
    try {
      text = readFileSync(join(root, f), 'utf8')
    } catch {
      return [] // deleted in the working tree
    }
    return text
      .split('\n')
      .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
      .filter(({ line }) => RAW.some((re) => re.test(line)))
      .map(({ line, at }) => `${at}: ${line.trim()}`)
  })
  assert.deepEqual(raw, [], 'wrap these limits in patience() (test/helpers/patience.ts)')
})
