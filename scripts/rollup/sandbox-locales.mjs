// rollup plugin of rollup.config.mjs (svc-sandbox.min.js); test: test/scripts/rollup/sandbox-locales.test.ts.
import { existsSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'

/**
 * `virtual:svc-locales` (sdk/sandbox-locales.d.ts): every table in components/i18n/locales, keyed by its
 * file name (the tag), each module's default export or else its first object export. The sandbox hands
 * them to the SDK, so a page opened from disk never fetches a locale file.
 * @param {{ root: string, dir?: string }} opts `root`: the repository; `dir`: the tables' folder (default: components/i18n/locales)
 * @returns {import('rollup').Plugin}
 */
export function sandboxLocales({ root, dir = join(root, 'components', 'i18n', 'locales') }) {
  const ID = '\0svc-locales'
  return {
    name: 'svc-sandbox-locales',
    resolveId: (source) => (source === 'virtual:svc-locales' ? ID : null),
    load(id) {
      if (id !== ID) return null
      const files = existsSync(dir)
        ? readdirSync(dir)
            .filter((f) => /^[a-z]{2,3}(-[A-Za-z0-9]+)*\.ts$/.test(f))
            .sort()
        : []
      if (files.length === 0) this.warn(`no locale tables in ${relative(root, dir)}: the sandbox has English only`)
      return [
        ...files.map((f, i) => `import * as m${i} from ${JSON.stringify(join(dir, f))}`),
        'const table = (m) => m.default ?? Object.values(m).find((v) => v !== null && typeof v === "object")',
        `export default {${files.map((f, i) => `${JSON.stringify(f.slice(0, -3))}: table(m${i})`).join(', ')}}`,
      ].join('\n')
    },
  }
}
