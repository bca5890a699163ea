/**
 * What the code cites must be where a newcomer can read it: every repository path named in a comment or a
 * guide exists, and every section of docs/decisions.md that a comment quotes is a heading there. A file moved
 * or a decision renamed without its citations fails here, not months later in a reader's hands.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n').filter((f) => f && existsSync(join(root, f)) && statSync(join(root, f)).isFile())
// What a clean clone has: tracked files and the folders that hold them (a folder emptied by a move may linger
// in a working tree, and would pass an existence check here but not in CI).
const inRepository = new Set(tracked.flatMap((f) => f.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))))
const exists = (p: string) => inRepository.has(p.replace(/\/$/, ''))
const code = tracked.filter((f) => /\.(ts|tsx|mts|mjs|cjs|js|vue)$/.test(f) && !f.startsWith('packages/') || f === '.dependency-cruiser.cjs')
const guides = tracked.filter((f) => f.endsWith('.md') && !f.startsWith('scratch/'))

/** The comments of a source file: what a reader reads as prose. */
const comments = (text: string) => [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/[^\n]*/g)].map((m) => m[0]).join('\n')

const TOP = ['core', 'server', 'mock-server', 'client', 'sdk', 'components', 'test', 'bench', 'scripts', 'stories', 'examples', 'docs', 'packages']
// A repository path: a top folder, then segments; not part of a URL or of a longer path (…/node_modules/x/core/…).
const PATH = new RegExp(`(?<![\\w./@-])(?:${TOP.join('|')})/[\\w.@-]+(?:/[\\w.@-]+)*`, 'g')
const isPattern = (p: string) => /[*<>{}]/.test(p)

// A source file named relative to the file that names it ("./" or "../", then a name ending .ts, .md, …);
// other relative names in comments are paths at run time or in the package (a database file, an export).
const RELATIVE = /(?<![\w./-])\.{1,2}\/(?![\w.@/-]*dist\/)[\w.@/-]*\.(?:ts|tsx|mts|mjs|md|css|html|vue)\b/g

/** The repository paths a file names in its prose, each as a path from the repository's root. */
function namedPaths(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  const prose = file.endsWith('.md') ? text : comments(text)
  const found = (re: RegExp, resolve: (p: string) => string) => [...prose.matchAll(re)]
    // A name followed by `*` or `<` is a pattern (`fixtures/csp*.html`), not a path.
    .filter((m) => !isPattern(prose.slice(m.index, m.index + m[0].length + 1)))
    .map((m) => resolve(m[0].replace(/[.,:;)]+$/, '')))
  return [...found(PATH, (p) => p), ...found(RELATIVE, (p) => join(dirname(file), p))]
}

test('every repository path a comment or a guide names exists', () => {
  const missing: string[] = []
  for (const file of [...code, ...guides]) {
    for (const p of namedPaths(file)) {
      // `x.js` names what `x.ts` compiles to (how TypeScript's imports name a source), so either is there.
      if (!exists(p) && !(p.endsWith('.js') && exists(p.replace(/\.js$/, '.ts')))) missing.push(`${file}: ${p}`)
    }
  }
  assert.deepEqual(missing, [], `paths named but not in the repository:\n${missing.join('\n')}`)
})

test('every docs/decisions.md section a comment quotes is a heading there', () => {
  const headings = [...readFileSync(join(root, 'docs/decisions.md'), 'utf8').matchAll(/^## (.+)$/gm)].map((m) => m[1]!)
  const missing: string[] = []
  let cited = 0
  for (const file of [...code, ...guides]) {
    const text = readFileSync(join(root, file), 'utf8')
    // `docs/decisions.md "A", "B"`: each quoted name, up to the first thing that is not a quoted name.
    for (const m of text.matchAll(/docs\/decisions\.md((?:[ ,]*(?:and )?"[^"\n]+")+)/g)) {
      for (const q of m[1]!.matchAll(/"([^"\n]+)"/g)) {
        cited++
        if (!headings.some((h) => h.startsWith(q[1]!))) missing.push(`${file}: "${q[1]}"`)
      }
    }
  }
  assert.ok(cited > 20, `only ${cited} citations found: the pattern no longer matches how the code cites`)
  assert.deepEqual(missing, [], `sections quoted but not in docs/decisions.md:\n${missing.join('\n')}`)
})

test('no comment cites a document outside the repository', () => {
  const outside = [...code, ...guides].flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8')
    const prose = file.endsWith('.md') ? text : comments(text)
    return [...prose.matchAll(/(?<![\w/-])(?:(?:\.\.\/)+shared\/)?(?:design|spec)\/[\w-]+\.md/g)].map((m) => `${file}: ${m[0]}`)
  })
  assert.deepEqual(outside, [])
})
