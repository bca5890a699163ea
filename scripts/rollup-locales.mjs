// The translations' build (rollup.config.mjs includes it, so `npm run build` and `npm start` make it): each
// components/i18n/locales/<tag>.ts becomes
//   dist/javascript/v2.2/locales/<tag>.json  what svc.min.js fetches for the traveller's locale (sdk/svc.ts);
//                                            the server sends it like the script (server/plugins/sdk-static.ts)
//   <package>/locales/<tag>.js (+ .d.ts, and the .json) for bundlers: `import de from 'svc-ancillaries/locales/de-DE.js'`,
//                                            then `addLocale('de-DE', de)` before the widgets render
// en-US is the reference table inside svc.min.js and the package's index.js, so it has neither.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import esbuild from 'rollup-plugin-esbuild'

const root = join(import.meta.dirname, '..')
export const LOCALE_DIR = join(root, 'components', 'i18n', 'locales')
export const LOCALE_JSON_DIR = join(root, 'dist', 'javascript', 'v2.2', 'locales')

/** The tags of the translation modules, from their file names. */
export function localeTags() {
  return readdirSync(LOCALE_DIR)
    .filter((f) => /^[a-z]{2,3}(-[A-Za-z0-9]+)+\.ts$/.test(f))
    .map((f) => f.slice(0, -3))
    .sort()
}

/**
 * Turns each built module into its JSON: once the modules are written, each one's default export is
 * imported from its file (so a table built on another, en-AU on en-US, ar-EG on ar-SA, finds the chunk
 * they share) and serialised. Fails the build when one exports no table.
 */
function localeJson() {
  return {
    name: 'svc-locale-json',
    generateBundle(_, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.isEntry) continue
        this.emitFile({
          type: 'asset',
          fileName: `${chunk.name}.d.ts`,
          source: `// ${chunk.name} texts for addLocale (declarations of Strings: the package's types/).\nimport type { Strings } from '../types/components/i18n/index.js'\ndeclare const strings: Strings\nexport default strings\n`,
        })
      }
    },
    async writeBundle(options, bundle) {
      mkdirSync(LOCALE_JSON_DIR, { recursive: true })
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.isEntry) continue
        // A query per build: a watching rollup must not get the module Node cached from the last one.
        const mod = await import(`${pathToFileURL(join(options.dir, chunk.fileName)).href}?build=${Date.now()}`)
        const table = mod.default
        if (table === null || typeof table !== 'object' || Array.isArray(table))
          this.error(`${chunk.name}: the module has no default export of a table`)
        const json = JSON.stringify(table)
        // The same table twice: where the script fetches it, and in the package beside its module.
        writeFileSync(join(LOCALE_JSON_DIR, `${chunk.name}.json`), json)
        writeFileSync(join(options.dir, `${chunk.name}.json`), json)
      }
    },
  }
}

/** @param {string} packageDir the npm package's folder (its locales/ holds the modules and their JSON) */
export function localeBuild(packageDir) {
  return {
    input: Object.fromEntries(localeTags().map((tag) => [tag, `components/i18n/locales/${tag}.ts`])),
    // A table others build on (en-US, ar-SA) is a chunk they share: kept apart from the tags a seller imports.
    output: {
      dir: join(packageDir, 'locales'),
      format: 'es',
      entryFileNames: '[name].js',
      chunkFileNames: 'shared/[name]-[hash].js',
    },
    plugins: [esbuild({ target: 'es2022', tsconfig: 'tsconfig.json', charset: 'utf8' }), localeJson()],
  }
}
