/**
 * The design tokens' private side (issue 12): every private `--_*` alias is declared before it is read (in
 * tokenVars, which every element adopts first, or in the same stylesheet) or read with a fallback, so no
 * alias silently resolves to nothing. The public `--svc-*` tokens (each one an element reads is documented
 * with @cssproperty, and each documented one is read) are checked element by element in Chromium, through
 * the CSSOM: test/components/theme.browser.test.ts.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
const sources = walk(join(root, 'components')).map((f) => ({ file: relative(root, f), text: readFileSync(f, 'utf8') }))

/** The text of every css`…` literal of a file (the elements' stylesheets). */
const cssOf = (text: string): string[] => [...text.matchAll(/\bcss`([^`]*)`/g)].map((m) => m[1]!)

test('every private --_* alias is declared before it is read, or read with a fallback', () => {
  const theme = sources.find((s) => s.file === join('components', 'theme.ts'))!
  const tokenVars = /export const tokenVars = css`([^`]*)`/.exec(theme.text)![1]!
  const declaredIn = (css: string) => new Set([...css.matchAll(/(--_[\w-]+)\s*:/g)].map((m) => m[1]!))
  const global = declaredIn(tokenVars)
  assert.ok(global.has('--_text') && global.has('--_space'), 'tokenVars declares the aliases')
  const problems: string[] = []
  for (const { file, text } of sources) {
    for (const css of cssOf(text)) {
      const own = declaredIn(css)
      for (const m of css.matchAll(/var\((--_[\w-]+)\s*([,)])/g)) {
        const [, name, next] = m
        if (next === ',' || global.has(name!)) continue
        // Declared in the same stylesheet, before the first use.
        const at = css.search(new RegExp(`${name!.replace(/[-]/g, '\\-')}\\s*:`))
        if (!own.has(name!) || at > m.index!) problems.push(`${name} in ${file}`)
      }
    }
  }
  assert.deepEqual(problems, [], 'aliases read but never declared (or declared after their use)')
})
