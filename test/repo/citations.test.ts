/**
 * What the code cites must be where a newcomer can read it: every repository path named in a comment or a
 * guide exists, every section of a guide that a comment or a guide quotes by name is there,
 * and every link to a heading (`sdk.md#install-as-a-package`) finds it in the file it names. A file moved, a
 * decision renamed or a heading reworded without its citations fails here, not months later in a reader's hands.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && existsSync(join(root, f)) && statSync(join(root, f)).isFile())
// What a clean clone has: tracked files and the folders that hold them (a folder emptied by a move may linger
// in a working tree, and would pass an existence check here but not in CI).
const inRepository = new Set(tracked.flatMap((f) => f.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))))
const exists = (p: string) => inRepository.has(p.replace(/\/$/, ''))
const code = tracked.filter(
  (f) => (/\.(ts|tsx|mts|mjs|cjs|js|vue)$/.test(f) && !f.startsWith('packages/')) || f === '.dependency-cruiser.cjs',
)
const guides = tracked.filter((f) => f.endsWith('.md') && !f.startsWith('scratch/'))

/** The comments of a source file: what a reader reads as prose. */
const comments = (text: string) =>
  [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/[^\n]*/g)].map((m) => m[0]).join('\n')

const TOP = [
  'core',
  'server',
  'mock-server',
  'client',
  'sdk',
  'components',
  'test',
  'bench',
  'scripts',
  'stories',
  'examples',
  'docs',
  'packages',
]
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
  const found = (re: RegExp, resolve: (p: string) => string) =>
    [...prose.matchAll(re)]
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

/** A guide without its fenced code (a `# 11. …` line in a shell block is no heading). */
const withoutCode = (text: string) => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')

/**
 * The sections of a guide a citation may quote: its headings, and the bold leads its paragraphs start with
 * (docs/sdk.md's "**Without the Svc global.**"), as written.
 */
function sectionsOf(file: string): string[] {
  const text = withoutCode(readFileSync(join(root, file), 'utf8'))
  return [...text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm), ...text.matchAll(/^\*\*(.+?)\*\*/gm)].map((m) => m[1]!)
}

test('every section of a guide that a comment or a guide quotes (docs/<name>.md "Section") is there', () => {
  const missing: string[] = []
  const cited = new Map<string, number>()
  for (const file of [...code, ...guides]) {
    const text = readFileSync(join(root, file), 'utf8')
    // `docs/decisions.md "A", "B"` or `docs/api.md, "Authentication"`: each quoted name, up to the first thing
    // that is not a quoted name.
    for (const m of text.matchAll(/docs\/([\w-]+)\.md((?:[ ,]*(?:and )?"[^"\n]+")+)/g)) {
      const guide = `docs/${m[1]}.md`
      if (!exists(guide)) continue // the path test above reports it
      const sections = sectionsOf(guide)
      for (const q of m[2]!.matchAll(/"([^"\n]+)"/g)) {
        cited.set(guide, (cited.get(guide) ?? 0) + 1)
        if (!sections.some((h) => h.startsWith(q[1]!))) missing.push(`${file}: ${guide} "${q[1]}"`)
      }
    }
  }
  assert.ok(
    (cited.get('docs/decisions.md') ?? 0) > 20,
    `only ${cited.get('docs/decisions.md')} citations of docs/decisions.md found: the pattern no longer matches how the code cites`,
  )
  assert.deepEqual(
    missing,
    [],
    `sections quoted but not in the guide named (a heading or a paragraph's bold lead):\n${missing.join('\n')}`,
  )
})

/**
 * GitHub's anchor of a heading: its text without markup, lower case, punctuation other than `-` and `_`
 * dropped, each space a `-`; a repeated one gets `-1`, `-2`… Explicit `<a id>`/`<a name>` anchors count too.
 */
function anchorsOf(file: string): Set<string> {
  const text = withoutCode(readFileSync(join(root, file), 'utf8'))
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    anchors.add(n === 0 ? slug : `${slug}-${n}`)
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!)
  return anchors
}

test('every #anchor a guide links to (or a comment names) is a heading of the file it points into', () => {
  const broken: string[] = []
  let checked = 0
  const check = (file: string, target: string, anchor: string, link: string) => {
    checked++
    if (!target.endsWith('.md')) broken.push(`${file}: ${link} (an anchor into ${target}, which is no guide)`)
    else if (!exists(target)) broken.push(`${file}: ${link} (${target} is not in the repository)`)
    else if (!anchorsOf(target).has(decodeURIComponent(anchor)))
      broken.push(`${file}: ${link} (no such heading in ${target})`)
  }
  for (const file of guides) {
    // Markdown links with an anchor, into another file or this one, outside code; addresses of other sites are theirs.
    for (const m of withoutCode(readFileSync(join(root, file), 'utf8')).matchAll(
      /\]\(<?([^)\s>#]*)#([^)\s>]+)>?(?:\s+"[^"]*")?\)/g,
    )) {
      if (/^[a-z]+:/i.test(m[1]!)) continue
      check(file, m[1] ? join(dirname(file), m[1]) : file, m[2]!, m[0])
    }
  }
  for (const file of code) {
    // A comment naming a section by its anchor: `docs/sdk.md#install-as-a-package`.
    for (const m of comments(readFileSync(join(root, file), 'utf8')).matchAll(
      /(?<![\w./-])((?:docs\/)?[\w-]+\.md)#([\w-]+)/g,
    )) {
      check(file, m[1]!.includes('/') || m[1] === 'README.md' ? m[1]! : `docs/${m[1]}`, m[2]!, m[0])
    }
  }
  assert.ok(checked > 40, `only ${checked} anchored links found: the pattern no longer matches how the guides link`)
  assert.deepEqual(broken, [], `links to headings that are not there:\n${broken.join('\n')}`)
})

test('no comment cites a document outside the repository', () => {
  const outside = [...code, ...guides].flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8')
    const prose = file.endsWith('.md') ? text : comments(text)
    return [...prose.matchAll(/(?<![\w/-])(?:(?:\.\.\/)+shared\/)?(?:design|spec)\/[\w-]+\.md/g)].map(
      (m) => `${file}: ${m[0]}`,
    )
  })
  assert.deepEqual(outside, [])
})
