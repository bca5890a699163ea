/**
 * docs/sdk.md's table of the elements' DOM events is every event they dispatch: the `svc-*` events declared in
 * `GlobalEventHandlersEventMap` by components/ (components/events.ts and the elements that alone fire
 * theirs), which `emit` (components/internal/element.ts) is limited to. An event added to the code without
 * its line in the guide, or a line left for an event that is gone, fails here.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
const read = (p: string) => readFileSync(join(root, p), 'utf8')

test("docs/sdk.md's event table lists every svc-* event the elements declare, and only those", () => {
  const sources = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'components'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f.endsWith('.ts'))
  const declared = new Set(
    sources.flatMap((f) => [...read(f).matchAll(/^\s*'(svc-[a-z-]+)': CustomEvent</gm)].map((m) => m[1]!)),
  )
  const table =
    read('docs/sdk.md').split('\n| Event | Dispatched by |')[1]?.split('\n\n')[0] ??
    assert.fail('docs/sdk.md has no "| Event | Dispatched by |" table')
  const listed = [...table.matchAll(/^\| `(svc-[a-z-]+)` \|/gm)].map((m) => m[1]!)
  assert.ok(
    declared.has('svc-basket-change') && declared.size >= 7,
    `only ${[...declared].join(', ')} found: the pattern no longer matches how the events are declared`,
  )
  assert.deepEqual([...listed].sort(), [...declared].sort())
})
