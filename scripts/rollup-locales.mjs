// The translations' build (rollup.config.mjs includes it, so `npm run build` and `npm start` make it): each
// components/i18n/locales/<tag>.ts becomes
//   dist/javascript/v2.2/locales/<tag>.json  what svc.min.js fetches for the traveller's locale (sdk/svc.ts);
//                                            the server sends it like the script (server/plugins/sdk-static.ts)
//   dist/esm/locales/<tag>.js (+ .d.ts)      for bundlers: `import de from 'svc-ancillaries/locales/de-DE.js'`,
//                                            then `addLocale('de-DE', de)` before the widgets render
// en-US is the reference table inside svc.min.js and dist/esm/index.js, so it has neither.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import esbuild from 'rollup-plugin-esbuild'

const root = join(import.meta.dirname, '..')
export const LOCALE_DIR = join(root, 'components', 'i18n', 'locales')
export const LOCALE_JSON_DIR = join(root, 'dist', 'javascript', 'v2.2', 'locales')

/** The tags of the translation modules, from their file names. */
export function localeTags() {
  return readdirSync(LOCALE_DIR).filter((f) => /^[a-z]{2,3}(-[A-Za-z0-9]+)+\.ts$/.test(f)).map((f) => f.slice(0, -3)).sort()
}

/**
 * Turns each built module into its JSON: the module is plain data (its only import is a type), so its
 * default export is evaluated as it stands and serialised. Fails the build when one exports no table.
 */
function localeJson() {
  const tables = new Map()
  return {
    name: 'svc-locale-json',
    async generateBundle(_, bundle) {
      tables.clear()
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.isEntry) continue
        const mod = await import(`data:text/javascript;base64,${Buffer.from(chunk.code).toString('base64')}`)
        const table = mod.default
        if (table === null || typeof table !== 'object' || Array.isArray(table)) this.error(`${chunk.name}: the module has no default export of a table`)
        tables.set(chunk.name, JSON.stringify(table))
        this.emitFile({
          type: 'asset',
          fileName: `${chunk.name}.d.ts`,
          source: `// ${chunk.name} texts for addLocale (declarations of Strings: dist/types).\nimport type { Strings } from '../../types/components/i18n/index.js'\ndeclare const strings: Strings\nexport default strings\n`,
        })
      }
    },
    writeBundle() {
      mkdirSync(LOCALE_JSON_DIR, { recursive: true })
      for (const [tag, json] of tables) writeFileSync(join(LOCALE_JSON_DIR, `${tag}.json`), json)
    },
  }
}

export function localeBuild() {
  return {
    input: Object.fromEntries(localeTags().map((tag) => [tag, `components/i18n/locales/${tag}.ts`])),
    output: { dir: 'dist/esm/locales', format: 'es', entryFileNames: '[name].js' },
    plugins: [esbuild({ target: 'es2022', tsconfig: 'tsconfig.json', charset: 'utf8' }), localeJson()],
  }
}
