import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseAst } from 'rollup/parseAst'
import type { Plugin } from 'rollup'
import { hook, load } from './support.ts'

const { elementRegistrations, renderedTags } = await load<{
  elementRegistrations(opts: { root: string; elements: Record<string, string> }): Plugin
  renderedTags(ast: unknown): Set<string>
}>('element-registrations.mjs')

test('renderedTags reads the tags in tagged templates only, not in comments or plain strings', () => {
  const ast = parseAst(`
    // draws <svc-modal> (a comment)
    const warn = \`<svc-upsell> has no session\`
    const a = html\`<div><svc-price .amount=\${x}></svc-price>\${y ? svg\`<svc-spinner/>\` : ''}</div>\`
    const b = html\`<svc-seat-map
      display=card></svc-seat-map><svc-pricey>\`
  `)
  assert.deepEqual([...renderedTags(ast)].sort(), ['svc-price', 'svc-pricey', 'svc-seat-map', 'svc-spinner'])
})

interface Mod {
  code: string
  imports?: string[]
  lazy?: string[]
  entry?: boolean
}

/** The plugin over a module graph (ids under /r/), as rollup would call it: every module parsed, then buildEnd. */
function build(modules: Record<string, Mod>) {
  const plugin = elementRegistrations({
    root: '/r',
    elements: { 'svc-price': 'price.ts', 'svc-card': 'card.ts', 'svc-seats': 'seats.ts' },
  })
  const ids = Object.keys(modules).map((m) => `/r/${m}`)
  const ctx = {
    error(message: string): never {
      throw new Error(message)
    },
    getModuleIds: () => ids[Symbol.iterator](),
    getModuleInfo: (id: string) => {
      const m = modules[id.slice('/r/'.length)]
      return m
        ? {
            isEntry: m.entry ?? false,
            importedIds: (m.imports ?? []).map((i) => `/r/${i}`),
            dynamicallyImportedIds: (m.lazy ?? []).map((i) => `/r/${i}`),
          }
        : null
    },
  }
  hook(plugin, 'buildStart', ctx as never)()
  for (const [id, m] of Object.entries(modules))
    hook(plugin, 'moduleParsed', ctx as never)({ id: `/r/${id}`, ast: parseAst(m.code) })
  return () => hook(plugin, 'buildEnd', ctx as never)()
}

const PRICE = { code: "define('svc-price', P)" }

test('a module that draws an element it imports (or that something it imports imports) passes', () => {
  assert.doesNotThrow(
    build({
      'card.ts': { code: "define('svc-card', C)", imports: ['card.component.ts'], entry: true },
      'card.component.ts': { code: 'html`<svc-price></svc-price>${notice()}`', imports: ['notice.ts'] },
      'notice.ts': { code: 'html`<svc-price></svc-price>`', imports: ['styles.ts', 'price.ts'] },
      'styles.ts': { code: '' },
      'price.ts': PRICE,
    }),
  )
})

test('a module that draws an element registered only where another module imports it lazily fails, naming the entries it breaks', () => {
  // The bug this guards against: <svc-bag-upsell>'s embedded view drew <svc-price>, registered only by the
  // card display's frames, which a lazy import brings to the card and modal displays alone.
  const run = build({
    'card.ts': { code: "define('svc-card', C)", imports: ['card.component.ts'], entry: true },
    'card.component.ts': { code: 'html`<li><svc-price></svc-price></li>`', imports: ['display.ts'] },
    'display.ts': { code: "const DIALOG = () => import('./frames.ts')", lazy: ['frames.ts'] },
    'frames.ts': { code: 'html`<svc-price></svc-price>`', imports: ['price.ts'] },
    'price.ts': PRICE,
  })
  assert.throws(
    run,
    /card\.component\.ts draws <svc-price> but does not import price\.ts, which registers it \(entries that reach it: card\.ts\)/,
  )
})

test('a module may draw an element it imports lazily itself (it draws it once the import has settled)', () => {
  assert.doesNotThrow(
    build({
      'card.ts': {
        code: "define('svc-card', C)\nconst SEATS = () => import('./seats.ts')\nrender(html`<svc-seats></svc-seats>`)",
        lazy: ['seats.ts'],
        entry: true,
      },
      'seats.ts': { code: "define('svc-seats', S)" },
    }),
  )
})

test('a tag no module registers fails', () => {
  assert.throws(
    build({ 'card.ts': { code: 'html`<svc-nowhere></svc-nowhere>`', entry: true } }),
    /card\.ts draws <svc-nowhere>, which no components\/ module registers/,
  )
})
