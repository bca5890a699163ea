// The elements' entries of rollup.config.mjs's package build (and of esmTypes); test: test/scripts/rollup/element-entries.test.ts.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'

/**
 * The registration module of each element: components/<dir>/<name>.ts calling `define('svc-…', Class)`, keyed by
 * its tag. Found, not listed, so a new element gets its `svc-ancillaries/elements/<tag>.js` entry by itself.
 * @param {string} root the repository (the paths returned are relative to it, with `/`)
 * @param {string} [dir] the folder searched (default: root's components/)
 * @returns {Record<string, string>} tag → module path
 */
export function elementEntries(root, dir = join(root, 'components')) {
  const entries = {}
  const walk = (dir) => {
    for (const f of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, f.name)
      if (f.isDirectory()) walk(path)
      else if (/\.ts$/.test(f.name) && !/\.(test|component|styles|stories)\.ts$/.test(f.name)) {
        for (const [, tag] of readFileSync(path, 'utf8').matchAll(/\bdefine\(\s*'(svc-[a-z-]+)'\s*,/g))
          entries[tag] = relative(root, path).split(sep).join('/')
      }
    }
  }
  walk(dir)
  if (Object.keys(entries).length === 0)
    throw new Error(
      `rollup: no element registration (\`define('svc-…', Class)\`) found in ${relative(root, dir) || '.'}/`,
    )
  return entries
}
