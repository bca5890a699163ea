/**
 * The documentation, checked: the curl walk-through of docs/api.md run as written against a started
 * server, so the first thing a reader tries cannot rot; and every relative link and #anchor in README.md
 * and docs/*.md pointing at something that exists.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { root, startServer } from '../helpers/process.ts'
import { patience } from '../helpers/patience.ts'

test('the docs/api.md walk-through runs against npm start', async (t) => {
  if (spawnSync('curl', ['--version']).status !== 0) return t.skip('curl is not installed')
  const doc = readFileSync(join(root, 'docs', 'api.md'), 'utf8')
  const block = /<!-- walkthrough:start -->\s*```bash\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(doc)?.[1]
  assert.ok(block, 'docs/api.md has a walkthrough block')
  const key = 'svc_test_readme_0123456789abcdef'
  const server = await startServer({ DATABASE_URL: 'memory:', SVC_DEMO_API_KEY: key })
  try {
    const run = spawnSync('bash', ['-c', block], {
      env: { ...process.env, BASE: server.base, KEY: key },
      encoding: 'utf8',
      timeout: patience(60_000),
    })
    assert.equal(run.status, 0, `walk-through failed:\n${run.stdout}\n${run.stderr}\nserver:\n${server.output()}`)
    assert.match(run.stdout, /^trip [0-9a-f-]+, search [0-9a-f-]+$/m)
    assert.match(run.stdout, /^basket Checked bag 23 kg for p1: ordered, succeeded$/m)
    assert.match(run.stdout, /^basket Checked bag 23 kg for p2: new, valid$/m)
    assert.match(run.stdout, /^later fulfillment [0-9a-f-]+ queued$/m)
    assert.match(run.stdout, /^new order Checked bag 23 kg: succeeded SBX\w+$/m)
    assert.match(run.stdout, /^cancellation [0-9a-f-]+ queued$/m)
    assert.match(run.stdout, /^order .*: cancelled, refunded \d+$/m)
    assert.match(run.stdout, /^feed (bag|seat) [0-9a-f-]+: cancelled at \S+$/m)
    assert.match(run.stdout, /creation token expires in 600 s/)
    assert.match(run.stdout, /\d+ paths in the OpenAPI document/)
  } finally {
    await server.stop()
  }
})

// ---------------------------------------------------------------- links

/** The Markdown a reader walks: the README, docs/, and the examples' READMEs. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(root, 'docs', f))
  const examples = readdirSync(join(root, 'examples'))
    .map((d) => join(root, 'examples', d, 'README.md'))
    .filter((f) => existsSync(f))
  return [join(root, 'README.md'), ...docs, ...examples]
}

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '')
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2... on repeats. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '')
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!)
  return out
}

test('every relative link and anchor in README.md and docs/*.md points at something that exists', () => {
  const files = markdownFiles()
  assert.ok(files.length >= 8, `found ${files.length} Markdown files`)
  const broken: string[] = []
  let checked = 0
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    for (const m of prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // https:, mailto:, ...
      checked++
      const [path = '', anchor] = target.split('#', 2)
      const resolved =
        path === '' ? file : path.startsWith('/') ? join(root, path) : join(dirname(file), decodeURIComponent(path))
      const where = `${relative(root, file)}: ${target}`
      if (!existsSync(resolved)) {
        broken.push(`${where} (no ${relative(root, resolved) || '.'})`)
        continue
      }
      if (anchor === undefined) continue
      if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
        broken.push(`${where} (an anchor into a file that is not Markdown)`)
        continue
      }
      if (!anchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor)))
        broken.push(`${where} (no heading #${anchor})`)
    }
  }
  assert.ok(checked >= 30, `only ${checked} relative links found: is the link pattern still right?`)
  assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`)
})

test("the heading anchors are GitHub's", () => {
  const a = anchors(
    '# Sandbox (offline)\n## In the browser: `Svc.init({ sandbox: true })`\n## Reading cheaply: search views, ETags, compression\n## Notes\n## Notes\n```sh\n# not a heading\n```\n',
  )
  assert.deepEqual(
    [...a],
    [
      'sandbox-offline',
      'in-the-browser-svcinit-sandbox-true-',
      'reading-cheaply-search-views-etags-compression',
      'notes',
      'notes-1',
    ],
  )
})
