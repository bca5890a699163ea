/**
 * A product type is named one by one in as few places as possible: its entry in the registry
 * (core/schemas/product-types.ts), from which the lists are derived, and its own places (its sandbox module in
 * core/adapters/sandbox-airline/products/, the sandbox catalogue's prices for it, its element, its locale
 * texts, its stories and tests). This counts the lines of production code elsewhere that name a product type
 * literally (a quoted API or browser name, or one of the unambiguous API names anywhere in code), comments
 * left out, and fails when there are more than `MAX_PLACES`.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The count after the registry (141 before it, counted the same way). It must never rise: derive a new list from the registry
 * instead of writing one. To lower it, derive another place from the registry (or move a product's own code
 * into its module) and write the new count here.
 */
const MAX_PLACES = 76

const root = join(import.meta.dirname, '..', '..')
const SCANNED = /^(core|client|components|sdk|mock-server|server)\/.*\.ts$/
/** A product type's own places, expected to name it (see the comment at the top). */
const OWN = [
  'core/schemas/product-types.ts',
  'core/adapters/sandbox-airline/products/',
  // The sandbox catalogue: each airline's prices and taxes per product type, data a new product's offers need.
  'core/adapters/sandbox-airline/airlines.ts',
  'core/adapters/sandbox-airline/types.ts',
  // The product views, each its products' own element.
  'components/bag-upsell/',
  'components/seat-map/',
  'components/option-card/',
  // The locale text tables.
  'components/i18n/',
]
const NAME =
  /(['"`])(bags?|seats?|priority_boarding|automatic_check_in|fare_family_upsell)\1|\b(priority_boarding|automatic_check_in|fare_family_upsell)\b|\b(bag|seat)\??:\s/

/** The text without its comments, lines kept where they were. */
const code = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/(?<![:'"`\w\\])\/\/[^\n]*/g, '')

test('product types are named one by one only in the registry and their own places', () => {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => SCANNED.test(f) && !OWN.some((own) => f.startsWith(own)))
  const places: string[] = []
  for (const f of files) {
    code(readFileSync(join(root, f), 'utf8'))
      .split('\n')
      .forEach((line, i) => {
        if (NAME.test(line)) places.push(`${f}:${i + 1}: ${line.trim()}`)
      })
  }
  assert.ok(
    places.length <= MAX_PLACES,
    `${places.length} places name a product type outside core/schemas/product-types.ts and the products' own places (at most ${MAX_PLACES}): derive from the registry instead.\n${places.join('\n')}`,
  )
})
