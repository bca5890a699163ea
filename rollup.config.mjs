// The browser SDK's builds (`npm run build` runs this, then the .d.ts, the elements manifest and the size check):
//   dist/javascript/v2.2/svc.min.js (+ .map)  the <script> tag's script: Lit bundled, minified, sets window.Svc at
//                                             once; the widget, the bag view and their parts (the first bag
//                                             control). AMD modules behind the small loader at its head
//                                             (sdk/chunk-loader.ts), so that:
//   dist/javascript/v2.2/chunks/<name>-<sha256>.js (+ <name>-<hash>.js.map)
//                                             the seat map, the option cards and the card/modal displays (the
//                                             dynamic imports of components/), each fetched by svc.min.js with a
//                                             <script> tag beside it the first time a widget shows it, importing
//                                             svc.min.js's own Lit, classes and context keys (one copy per page);
//                                             named by the SHA-256 of their bytes, which the loader checks as
//                                             their integrity, and which lets the server cache them for good
//   dist/svc-ancillaries/                     the npm package for bundlers (packages/svc-ancillaries/package.json,
//                                             copied in by scripts/assemble-package.mjs), laid out as it is imported:
//     index.js (+ .map)                       Session, ApiClient, SvcError, formatPrice, addLocale, createSvc,
//                                             init/showUpsell; registers no element (showUpsell loads <svc-upsell>
//                                             when first called); lit and @lit/context stay external
//     elements/index.js                       registers every element (`svc-ancillaries/elements`), and
//     elements/<tag>.js                       one per element, registering just that one; every entry shares
//                                             its code through chunks/, so mixing entries never loads an
//                                             element class (or a context key) twice
//     mock-server/index.js                    the offline sandbox for node tests (msw is the seller's own)
//     types/                                  declarations (npm run build:types, build:frameworks)
//   dist/javascript/v2.2/locales/<tag>.json   the translations svc.min.js fetches, and dist/svc-ancillaries/locales/
//                                             <tag>.js and .json for bundlers (scripts/rollup-locales.mjs)
//   dist/javascript/v2.2/svc-sandbox.min.js   IIFE of the offline sandbox (msw, mock-server, core, airports, every
//                                             locale table), loaded by svc.min.js only on `Svc.init({sandbox: true})`
import { builtinModules } from 'node:module'
import { join, relative, sep } from 'node:path'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import esbuild from 'rollup-plugin-esbuild'
import terser from '@rollup/plugin-terser'
import { transform } from 'esbuild'
import { literalsHtmlCssMinifier } from '@literals/rollup-plugin-html-css-minifier'
import { nodeResolve } from '@rollup/plugin-node-resolve'
import commonjs from '@rollup/plugin-commonjs'
import { localeBuild } from './scripts/rollup-locales.mjs'

const root = import.meta.dirname
/** The npm package's folder (dist/svc-ancillaries): its files sit where their import paths say. */
const PACKAGE_DIR = 'dist/svc-ancillaries'

// Legacy decorators come from tsconfig.json (experimentalDecorators, useDefineForClassFields: false);
// es2022 keeps them transformed (esnext would hand them to the browser raw).
const tsPlugin = (minify) => esbuild({ target: 'es2022', tsconfig: 'tsconfig.json', minify, legalComments: 'none', sourceMap: true })

/**
 * Fails the build when the browser bundle pulls in anything that must stay out of it: Node built-ins,
 * the server, the sandbox (mock-server, msw: loaded only on `sandbox: true`, from its own file), or
 * a database driver. Checked on module ids, so a comment mentioning one is no false alarm.
 */
function browserOnly() {
  const node = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)])
  const banned = [/^server\//, /^mock-server\//, /^test\//, /node_modules\/(msw|@mswjs|fastify|pg|better-sqlite3|typebox|jose)\//]
  return {
    name: 'svc-browser-only',
    resolveId(source) {
      if (node.has(source)) this.error(`${source} is a Node module and cannot be in the browser SDK`)
      return null
    },
    generateBundle() {
      for (const id of this.getModuleIds()) {
        const rel = relative(root, id).split(sep).join('/')
        if (banned.some((re) => re.test(rel))) this.error(`${rel} must not be in the browser SDK (imported from ${this.getModuleInfo(id)?.importers.map((i) => relative(root, i)).join(', ')})`)
      }
    },
  }
}

/**
 * Minifies the text of the elements' Lit templates, which the JS minifier leaves alone (a third of the
 * elements' code): html`...`/svg`...` through html-minifier-next, css`...` through lightningcss, with the
 * templates found by the TypeScript parser (@literals/rollup-plugin-html-css-minifier, maintained; it
 * replaced our own). Before esbuild, on the sources, so the source maps it makes follow the edits. The
 * options keep what the page shows: whitespace collapses to one space rather than away (a trailing
 * "Label: " in a visually hidden span is read aloud), and `<path/>` keeps its slash (in an svg`...`
 * fragment, an unclosed element would swallow its siblings); attribute quotes go where HTML allows.
 */
const minifyTemplates = () => literalsHtmlCssMinifier({
  include: /\/components\/.*\.ts$/,
  failOnError: true,
  options: { minifyOptions: { conservativeCollapse: true, keepClosingSlash: true, removeAttributeQuotes: true } },
})

/**
 * esbuild gives every module with decorators its own copy of the `__decorateClass` helper (a dozen in
 * the SDK); this makes them all import one. The elements decorate fields only (`@property`, `@state`:
 * components/shared/element.ts), so the one helper is esbuild's for fields alone, and the build fails on
 * any other decorator (of a class, a method, an accessor) rather than run it wrong. The helper's lines
 * become one import line and blank lines, so nothing after it moves and the module's source map stays right.
 */
function sharedDecorateHelper() {
  const ID = '\0svc-decorate-class'
  const helper = /^var __decorateClass = \(decorators, target, key, kind\) => \{\n(?:.*\n)*?\};\n/m
  return {
    name: 'svc-shared-decorate-helper',
    resolveId: (source) => (source === ID ? ID : null),
    load: (id) => (id === ID ? [
      // A field's decorators, last first (kind 2: no descriptor, nothing to define).
      'export const __decorateClass = (decorators, target, key) => {',
      '  for (var i = decorators.length; i--; ) decorators[i](target, key)',
      '}',
    ].join('\n') : null),
    transform(code, id) {
      if (id === ID) return null
      const m = helper.exec(code)
      if (!m) return null
      const calls = code.match(/\b__decorateClass\(/g)?.length ?? 0
      const fields = code.match(/\], [\w$]+\.prototype, "[^"]+", 2\);/g)?.length ?? 0
      if (calls !== fields) this.error("a decorator of something other than a field (the shared __decorateClass handles fields only)")
      const lines = m[0].split('\n').length - 1
      return { code: code.slice(0, m.index) + `import { __decorateClass } from ${JSON.stringify(ID)};` + '\n'.repeat(lines) + code.slice(m.index + m[0].length), map: null }
    },
  }
}

/**
 * Lit's BSD-3-Clause notice once, instead of its eleven per-file copies (dropped by the minifier). At the
 * end, after minification, so no mapping moves.
 */
const licenseNotice = {
  name: 'svc-license-notice',
  renderChunk: (code, chunk) => (chunk.isEntry ? { code: `${code}\n/*! svc browser SDK v2.2. Includes Lit and @lit/context, (c) Google LLC, BSD-3-Clause: https://github.com/lit/lit/blob/main/LICENSE */`, map: null } : null),
}

/**
 * esbuild's renaming of the identifiers, before terser's: terser names each private member (`#host`) once
 * for the whole bundle, so they run to two letters and differ from class to class; esbuild names them
 * class by class, most used first, and the same few short names repeat (about 130 B less gzip). Terser's
 * own renaming after it keeps those names.
 */
const privateNames = {
  name: 'svc-private-names',
  renderChunk: async (code) => {
    const { code: out, map } = await transform(code, { minifyIdentifiers: true, target: 'es2022', sourcemap: true })
    return { code: out, map }
  },
}

/** The hook svc.min.js and its chunks define their modules with (sdk/chunk-loader.ts, which installs it). */
const DEFINE_KEY = 'svc.v2.2.define'
/** sdk/chunk-loader.ts as the script it is (no module: nothing imports it), for the head of svc.min.js. */
const CHUNK_LOADER = await (async () => {
  const src = readFileSync(join(root, 'sdk', 'chunk-loader.ts'), 'utf8')
  if (!src.includes(`Symbol.for('${DEFINE_KEY}')`)) throw new Error(`rollup: sdk/chunk-loader.ts must install Symbol.for('${DEFINE_KEY}')`)
  return (await transform(src, { loader: 'ts', format: 'iife', target: 'es2022', legalComments: 'none' })).code
})()

/** A chunk's name as rollup writes it: a placeholder of the length of the digest that replaces it (sdkChunks). */
const CHUNK_FILE_NAMES = `chunks/[name]-[hash:21]${'_'.repeat(22)}.js`
const DIGEST_PLACEHOLDER = /-([A-Za-z0-9_-]{21}_{22})\.js$/

/**
 * svc.min.js's chunks (dist/javascript/v2.2/chunks): old ones are removed before a build; the build fails
 * if the bundle itself would need one to start, since the loader runs the bundle at once; and each chunk
 * is named by the SHA-256 of its bytes as written (base64url), which sdk/chunk-loader.ts also uses as the
 * chunk's Subresource Integrity, so pinning svc.min.js pins its chunks. The digest replaces a placeholder
 * of its length, so svc.min.js's source map stays right; a chunk's own map is named apart
 * (`sourcemapFileNames`), since a chunk naming itself could not be named by its own digest.
 */
function sdkChunks() {
  return {
    name: 'svc-sdk-chunks',
    buildStart() { rmSync(join(root, 'dist', 'javascript', 'v2.2', 'chunks'), { recursive: true, force: true }) },
    generateBundle(_, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk')
      const entry = chunks.find((c) => c.isEntry)
      if (entry.imports.length > 0) this.error(`${entry.fileName} imports ${entry.imports.join(', ')} statically: the bundle must start without a chunk`)
      for (const chunk of chunks.filter((c) => !c.isEntry)) {
        const placeholder = DIGEST_PLACEHOLDER.exec(chunk.fileName)?.[1]
        if (!placeholder) this.error(`${chunk.fileName}: a chunk's name must end in the digest placeholder (CHUNK_FILE_NAMES)`)
        // Only the bundle names the chunks (a chunk naming another would change that one's digest).
        if ([...chunk.imports, ...chunk.dynamicImports].some((f) => f !== entry.fileName)) this.error(`${chunk.fileName} imports another chunk: name the chunks in their order`)
        const digest = createHash('sha256').update(chunk.code).digest('base64url')
        delete bundle[chunk.fileName]
        chunk.fileName = chunk.fileName.replace(placeholder, digest)
        bundle[chunk.fileName] = chunk
        const map = chunk.sourcemapFileName && bundle[chunk.sourcemapFileName]
        if (map?.type === 'asset') map.source = String(map.source).replace(placeholder, digest)
        if (!entry.code.includes(placeholder)) this.error(`${entry.fileName} does not name ${chunk.fileName}`)
        entry.code = entry.code.replaceAll(placeholder, digest)
      }
    },
  }
}

/**
 * The registration module of each element: components/<dir>/<name>.ts calling `define('svc-…', Class)`, keyed by
 * its tag. Found, not listed, so a new element gets its `svc-ancillaries/elements/<tag>.js` entry by itself.
 */
function elementEntries() {
  const entries = {}
  const walk = (dir) => {
    for (const f of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, f.name)
      if (f.isDirectory()) walk(path)
      else if (/\.ts$/.test(f.name) && !/\.(test|component|styles|stories)\.ts$/.test(f.name)) {
        for (const [, tag] of readFileSync(path, 'utf8').matchAll(/\bdefine\(\s*'(svc-[a-z-]+)'\s*,/g)) entries[tag] = relative(root, path).split(sep).join('/')
      }
    }
  }
  walk(join(root, 'components'))
  if (Object.keys(entries).length === 0) throw new Error('rollup: no element registration (`define(\'svc-…\', Class)`) found in components/')
  return entries
}
const ELEMENTS = elementEntries()

/**
 * The .d.ts beside each entry of the package (the declarations themselves come from tsconfig.build.json
 * into its types/), so TypeScript finds them from the package's `exports` and from a plain path alike.
 */
const esmTypes = {
  name: 'svc-esm-types',
  // Chunk names carry a hash: without this, every build would leave its old chunks behind for npm pack.
  buildStart() {
    for (const dir of ['chunks', 'elements']) rmSync(join(root, PACKAGE_DIR, dir), { recursive: true, force: true })
  },
  generateBundle() {
    const dts = (fileName, target) => this.emitFile({ type: 'asset', fileName, source: `// Declarations: types/ (npm run build:types).\nexport * from '${target}'\n` })
    dts('index.d.ts', './types/sdk/esm.js')
    dts('elements/index.d.ts', '../types/components/index.js')
    for (const [tag, src] of Object.entries(ELEMENTS)) dts(`elements/${tag}.d.ts`, `../types/${src.replace(/\.ts$/, '.js')}`)
  },
}

/** JSON modules (core/domain/airports.ts imports its table `with { type: 'json' }`), parsed by JSON.parse: faster than a literal. */
const jsonModules = {
  name: 'svc-json',
  transform(code, id) {
    if (!id.endsWith('.json')) return null
    return { code: `export default JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(code)))})`, map: { mappings: '' } }
  },
}

/**
 * `virtual:svc-locales` (sdk/sandbox-locales.d.ts): every table in components/i18n/locales, keyed by its
 * file name (the tag), each module's default export or else its first object export. The sandbox hands
 * them to the SDK, so a page opened from disk never fetches a locale file.
 */
function sandboxLocales() {
  const ID = '\0svc-locales'
  const dir = join(root, 'components', 'i18n', 'locales')
  return {
    name: 'svc-sandbox-locales',
    resolveId: (source) => (source === 'virtual:svc-locales' ? ID : null),
    load(id) {
      if (id !== ID) return null
      const files = existsSync(dir) ? readdirSync(dir).filter((f) => /^[a-z]{2,3}(-[A-Za-z0-9]+)*\.ts$/.test(f)).sort() : []
      if (files.length === 0) this.warn(`no locale tables in ${relative(root, dir)}: the sandbox has English only`)
      return [
        ...files.map((f, i) => `import * as m${i} from ${JSON.stringify(join(dir, f))}`),
        'const table = (m) => m.default ?? Object.values(m).find((v) => v !== null && typeof v === "object")',
        `export default {${files.map((f, i) => `${JSON.stringify(f.slice(0, -3))}: table(m${i})`).join(', ')}}`,
      ].join('\n')
    },
  }
}

/** Refuses Node built-ins and the server in the sandbox bundle (it runs in a page), and prints its size. */
function sandboxBundle() {
  const node = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)])
  return {
    name: 'svc-sandbox-bundle',
    resolveId(source) {
      if (node.has(source)) this.error(`${source} is a Node module and cannot be in the sandbox bundle`)
      return null
    },
    generateBundle(_, bundle) {
      for (const id of this.getModuleIds()) {
        const rel = relative(root, id).split(sep).join('/')
        if (/^(server|test)\//.test(rel) || /node_modules\/(fastify|pg|better-sqlite3|lit|@lit)\//.test(rel)) this.error(`${rel} must not be in the sandbox bundle`)
      }
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue
        const raw = Buffer.byteLength(chunk.code)
        console.log(`${chunk.fileName}: ${(raw / 1000).toFixed(1)} KB raw, ${(gzipSync(chunk.code, { level: 9 }).length / 1000).toFixed(1)} KB gzip (no budget: loaded only in sandbox mode)`)
      }
    },
  }
}

/**
 * typebox's schema engine is a ring of modules that import each other: harmless, and not ours to fix. Cycles
 * among our own modules still warn.
 */
function quietLibraryCycles(w, warn) {
  if (w.code === 'CIRCULAR_DEPENDENCY' && w.ids?.every((id) => id.includes('/node_modules/'))) return
  warn(w)
}

export default [
  {
    input: { 'svc.min': 'sdk/index.ts' },
    // The bundle exports nothing to the page (it sets window.Svc); what it exports, its chunks import.
    preserveEntrySignatures: false,
    output: {
      dir: 'dist/javascript/v2.2',
      // AMD for the chunk loader at its head (sdk/chunk-loader.ts): the bundle runs at once, as a plain
      // script; each dynamic import becomes a chunk fetched beside it, importing the bundle's own modules.
      format: 'amd',
      amd: { define: `self[Symbol.for(${JSON.stringify(DEFINE_KEY)})]` },
      banner: (chunk) => (chunk.isEntry ? CHUNK_LOADER : ''),
      entryFileNames: '[name].js',
      // Named by content (the SHA-256 of its bytes, also its integrity; sdkChunks): a chunk's URL never
      // serves other code, so it may be cached for good.
      chunkFileNames: CHUNK_FILE_NAMES,
      sourcemapFileNames: (chunk) => (chunk.isEntry ? '[name].js.map' : 'chunks/[name]-[hash].js.map'),
      minifyInternalExports: true,
      esModule: false,
      generatedCode: { preset: 'es2015', symbols: false },
      sourcemap: true,
      // The map names sources relative to the repo, not this machine's paths.
      sourcemapPathTransform: (p) => p.replace(/^(\.\.\/)+/, ''),
    },
    // Lit's production build (no dev-mode warnings), the browser variants of anything that has one.
    // esbuild compiles (one shared decorator helper) and names the private members (privateNames); terser
    // minifies (three passes; top level mangled: the script has no globals of its own; `inline: 1` inlines
    // only simple functions, which gzips smaller here).
    plugins: [browserOnly(), sdkChunks(), nodeResolve({ browser: true, exportConditions: ['browser', 'production'] }), minifyTemplates(), tsPlugin(false), sharedDecorateHelper(), privateNames,
      terser({ ecma: 2022, toplevel: true, compress: { passes: 3, inline: 1 }, format: { comments: false } }), licenseNotice],
  },
  {
    input: { index: 'sdk/esm.ts', 'elements/index': 'components/index.ts', ...Object.fromEntries(Object.entries(ELEMENTS).map(([tag, src]) => [`elements/${tag}`, src])) },
    output: {
      dir: PACKAGE_DIR,
      format: 'es',
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
      sourcemap: true,
      sourcemapPathTransform: (p) => p.replace(/^(\.\.\/)+/, ''),
    },
    external: (id) => id === 'lit' || id.startsWith('lit/') || id.startsWith('@lit/'),
    plugins: [browserOnly(), nodeResolve({ browser: true }), minifyTemplates(), tsPlugin(false), sharedDecorateHelper(), esmTypes],
  },
  {
    input: 'sdk/sandbox-bundle.ts',
    output: {
      file: 'dist/javascript/v2.2/svc-sandbox.min.js',
      format: 'iife',
      sourcemap: true,
      sourcemapPathTransform: (p) => p.replace(/^(\.\.\/)+/, ''),
    },
    onwarn: quietLibraryCycles,
    // commonjs: ipaddr.js (the webhook target policy the sandbox applies as the server does) ships CommonJS only.
    plugins: [sandboxBundle(), sandboxLocales(), jsonModules, nodeResolve({ browser: true, exportConditions: ['browser', 'production'] }), commonjs(), tsPlugin(true)],
  },
  // mock-server/index.js (+ .map) of the package: the offline sandbox as ESM for a seller's node tests
  // (`svc-ancillaries/mock-server`; declarations in types/mock-server). msw stays external, so the seller's
  // own msw (an optional peer) is the one whose setupServer runs the handlers, and so does typebox (a
  // dependency of the package, whose types it names); the rest of what the core runs on (jose, lru-cache,
  // ipaddr.js, @noble/hashes) is bundled, so a frontend that never imports it installs none of them.
  {
    input: 'mock-server/index.ts',
    output: { file: `${PACKAGE_DIR}/mock-server/index.js`, format: 'es', sourcemap: true, sourcemapPathTransform: (p) => p.replace(/^(\.\.\/)+/, '') },
    external: (id) => /^(msw|typebox)(\/|$)/.test(id),
    onwarn: quietLibraryCycles,
    plugins: [jsonModules, nodeResolve({ exportConditions: ['node'], preferBuiltins: true }), commonjs(), esbuild({ target: 'es2022', tsconfig: 'tsconfig.json', sourceMap: true })],
  },
  localeBuild(PACKAGE_DIR),
]
