/**
 * The tree a newcomer reads must be the one the docs describe: core/'s layers as docs/architecture.md lists
 * them, the README's folder table as the repository has them, no file name that means two things, and
 * package.json's dependencies as the code uses them.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
const read = (p: string) => readFileSync(join(root, p), 'utf8')
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && existsSync(join(root, f)) && statSync(join(root, f)).isFile())
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort()

test('no file name is used twice in core/ (outside schemas/, the contract shapes of the same subjects)', () => {
  const seen = new Map<string, string[]>()
  for (const f of files.filter((x) => x.startsWith('core/') && !x.startsWith('core/schemas/') && x.endsWith('.ts'))) {
    seen.set(basename(f), [...(seen.get(basename(f)) ?? []), f])
  }
  assert.deepEqual(
    [...seen.values()].filter((paths) => paths.length > 1),
    [],
  )
})

test("docs/architecture.md's layer table is core/'s tree", () => {
  const onDisk = sorted(
    files.filter((f) => f.startsWith('core/')).map((f) => (f.split('/').length > 2 ? `core/${f.split('/')[1]}/` : f)),
  )
  const table = read('docs/architecture.md').split('## The layers of `core/`')[1]!.split('\n## ')[0]!
  const documented = sorted([...table.matchAll(/^\| `(core\/[^`]+)` \|/gm)].map((m) => m[1]!))
  assert.deepEqual(documented, onDisk)
})

test("the README's folder table is the repository's top level", () => {
  const table = read('README.md').split('| folder |')[1]!.split('\n\n')[0]!
  const documented = sorted([...table.matchAll(/^\| `([^`]+)\/` \|/gm)].map((m) => m[1]!.split('/')[0]!))
  // Folders of code or docs that are tracked; generated output, data and scratch are not part of the layout.
  const tracked = sorted(files.filter((f) => f.includes('/') && !f.startsWith('.')).map((f) => f.split('/')[0]!))
  assert.deepEqual(documented, tracked)
})

test("docs/architecture.md's folder table is the repository's top level too", () => {
  const table = read('docs/architecture.md').split('## The folders, and which way they point')[1]!.split('\n### ')[0]!
  const documented = sorted([...table.matchAll(/^\| `([^`/]+)\/` \|/gm)].map((m) => m[1]!))
  const tracked = sorted(files.filter((f) => f.includes('/') && !f.startsWith('.')).map((f) => f.split('/')[0]!))
  assert.deepEqual(documented, tracked)
})

const manifest = JSON.parse(read('package.json')) as {
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}

test('every runtime dependency is imported by code that runs in production, and none is a dev tool', () => {
  const runtime = files.filter(
    (f) =>
      /^(core|server|mock-server|client|sdk|components|examples\/seller-checkout)\//.test(f) &&
      /\.(ts|mjs|js)$/.test(f),
  )
  const sources = runtime.map(read).join('\n')
  const unused = Object.keys(manifest.dependencies).filter(
    (name) => !new RegExp(`from '${name}(/[^']*)?'|import\\('${name}(/[^']*)?'\\)`).test(sources),
  )
  assert.deepEqual(unused, [], 'declared in dependencies, imported by nothing that runs in production')
  const tools = ['tsx', 'typescript', 'esbuild', 'rollup', 'vite', 'vitest', 'eslint', 'storybook'].filter(
    (t) => t in manifest.dependencies,
  )
  assert.deepEqual(tools, [], 'a build or test tool in dependencies: `npm ci --omit=dev` would install it on a server')
})

test('every dev dependency is used by something in the repository', () => {
  const text =
    files
      .filter(
        (f) =>
          !/(^|\/)package(-lock)?\.json$/.test(f) &&
          !/\.(png|jpg|woff2?|db)$/.test(f) &&
          !f.startsWith('core/domain/data/'),
      )
      .map(read)
      .join('\n') + JSON.stringify(JSON.parse(read('package.json')).scripts)
  // A types package is used when what it types is; a command-line tool when a script runs its command.
  const named = (pkg: string) => text.includes(pkg.startsWith('@types/') ? pkg.slice('@types/'.length) : pkg)
  const commands = (pkg: string) => {
    const { bin } = JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as {
      bin?: string | Record<string, string>
    }
    return typeof bin === 'string' ? [pkg.split('/').pop()!] : Object.keys(bin ?? {})
  }
  const scripts = Object.values((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts).join(
    '\n',
  )
  const unused = Object.keys(manifest.devDependencies).filter(
    (pkg) => !named(pkg) && !commands(pkg).some((c) => new RegExp(`(^|[\\s&;(])${c}\\b`, 'm').test(scripts)),
  )
  assert.deepEqual(unused, [])
})
