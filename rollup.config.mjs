// The browser SDK's builds (`npm run build` runs this, then the .d.ts, the elements manifest and the size check):
//   dist/javascript/v2.2/svc.min.js (+ .map)  the <script> tag's script: Lit bundled, minified, sets window.Svc at
//                                             once; the widget, the bag view and their parts (the first bag
//                                             control). AMD modules behind the small loader at its head
//                                             (sdk/chunk-loader.ts), so that:
//   dist/javascript/v2.2/chunks/<name>-<sha256>.js (+ <name>-<hash>.js.map)
//                                             the seat map, the option cards and the card/modal displays (the
//                                             dynamic imports of components/), and the trip's event stream
//                                             follower (client/follow.ts, once init follows the trip), each
//                                             fetched by svc.min.js with a
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
//     elements/<tag>.js                       one per element, registering that one and the ones it draws
//                                             (scripts/rollup/element-registrations.mjs checks); every entry shares
//                                             its code through chunks/, so mixing entries never loads an
//                                             element class (or a context key) twice
//     mock-server/index.js                    the offline sandbox for node tests (msw is the seller's own)
//     types/                                  declarations (npm run build:types, build:frameworks)
//   dist/javascript/v2.2/locales/<tag>.json   the translations svc.min.js fetches, and dist/svc-ancillaries/locales/
//                                             <tag>.js and .json for bundlers (scripts/rollup-locales.mjs)
//   dist/javascript/v2.2/svc-sandbox.min.js   IIFE of the offline sandbox (msw, mock-server, core, airports, every
//                                             locale table), loaded by svc.min.js only on `Svc.init({sandbox: true})`
// and, with `--configDemo` alone (npm run build:demo, which `npm run build` and `npm start` run too):
//   dist/seller-checkout/app.js (+ .map)      the demo checkout's page script (examples/seller-checkout/app/), an
//                                             IIFE its backend serves as /demo/app.js beside svc.min.js's <script>
// and, with `--configConsole` alone (npm run build:console, which `npm run build` and `npm start` run too):
//   dist/console/assets/console.js (+ .map)   the operator console (console/): one ES module, Lit bundled, minified,
//                                             which the server serves at /console/assets/ (server/plugins/console.ts)
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import esbuild from 'rollup-plugin-esbuild'
import terser from '@rollup/plugin-terser'
import { transform } from 'esbuild'
import { literalsHtmlCssMinifier } from '@literals/rollup-plugin-html-css-minifier'
import { nodeResolve } from '@rollup/plugin-node-resolve'
import commonjs from '@rollup/plugin-commonjs'
import { localeBuild } from './scripts/rollup-locales.mjs'
// Our own plugins, each in its file with its test (test/scripts/rollup/<name>.test.ts).
import { browserOnly } from './scripts/rollup/browser-only.mjs'
import { sharedDecorateHelper } from './scripts/rollup/shared-decorate-helper.mjs'
import { licenseNotice } from './scripts/rollup/license-notice.mjs'
import { privateNames } from './scripts/rollup/private-names.mjs'
import { CHUNK_FILE_NAMES, sdkChunks } from './scripts/rollup/sdk-chunks.mjs'
import { elementEntries } from './scripts/rollup/element-entries.mjs'
import { elementRegistrations } from './scripts/rollup/element-registrations.mjs'
import { esmTypes } from './scripts/rollup/esm-types.mjs'
import { jsonModules } from './scripts/rollup/json-modules.mjs'
import { sandboxLocales } from './scripts/rollup/sandbox-locales.mjs'
import { sandboxBundle } from './scripts/rollup/sandbox-bundle.mjs'
import { quietLibraryCycles } from './scripts/rollup/quiet-library-cycles.mjs'
import { typescriptAsWritten } from './scripts/rollup/typescript-as-written.mjs'

const root = import.meta.dirname
/** The npm package's folder (dist/svc-ancillaries): its files sit where their import paths say. */
const PACKAGE_DIR = 'dist/svc-ancillaries'

// Legacy decorators come from tsconfig.json (experimentalDecorators, useDefineForClassFields: false);
// es2022 keeps them transformed (esnext would hand them to the browser raw).
const tsPlugin = (minify) =>
  esbuild({ target: 'es2022', tsconfig: 'tsconfig.json', minify, legalComments: 'none', sourceMap: true })

/**
 * Minifies the text of the elements' Lit templates, which the JS minifier leaves alone (a third of the
 * elements' code): html`...`/svg`...` through html-minifier-next, css`...` through lightningcss, with the
 * templates found by the TypeScript parser (@literals/rollup-plugin-html-css-minifier, maintained; it
 * replaced our own). Before esbuild, on the sources, so the source maps it makes follow the edits. The
 * options keep what the page shows: whitespace collapses to one space rather than away (a trailing
 * "Label: " in a visually hidden span is read aloud), and `<path/>` keeps its slash (in an svg`...`
 * fragment, an unclosed element would swallow its siblings); attribute quotes go where HTML allows.
 */
const minifyTemplates = () =>
  literalsHtmlCssMinifier({
    include: /\/components\/.*\.ts$/,
    failOnError: true,
    options: { minifyOptions: { conservativeCollapse: true, keepClosingSlash: true, removeAttributeQuotes: true } },
  })

/** The hook svc.min.js and its chunks define their modules with (sdk/chunk-loader.ts, which installs it). */
const DEFINE_KEY = 'svc.v2.2.define'
/** sdk/chunk-loader.ts as the script it is (no module: nothing imports it), for the head of svc.min.js. */
const CHUNK_LOADER = await (async () => {
  const src = readFileSync(join(root, 'sdk', 'chunk-loader.ts'), 'utf8')
  if (!src.includes(`Symbol.for('${DEFINE_KEY}')`))
    throw new Error(`rollup: sdk/chunk-loader.ts must install Symbol.for('${DEFINE_KEY}')`)
  return (await transform(src, { loader: 'ts', format: 'iife', target: 'es2022', legalComments: 'none' })).code
})()

/** tag → registration module of each element (components/<name>/<name>.ts), each an entry `elements/<tag>.js` of the package. */
const ELEMENTS = elementEntries(root)

/**
 * The demo checkout's page: its modules in one plain script (the page loads it with `defer`, after
 * svc.min.js, under a CSP that allows only its own origin's scripts). It takes the SDK from window.Svc and
 * imports only the SDK's types, so nothing of the SDK is bundled. Not minified, and its code as written
 * (typescriptAsWritten): sellers read it as an example, and test/e2e/checkout.test.ts edits it by its text.
 */
const demoCheckout = {
  input: 'examples/seller-checkout/app/main.ts',
  output: {
    file: 'dist/seller-checkout/app.js',
    format: 'iife',
    sourcemap: true,
    sourcemapPathTransform: (p) => p.replace(/^(\.\.\/)+/, ''),
  },
  plugins: [typescriptAsWritten()],
  // Nothing is resolved from node_modules: an import of a package (or a Node module) is a mistake, not a global.
  onwarn(warning, warn) {
    if (warning.code === 'UNRESOLVED_IMPORT')
      throw new Error(`the demo page imports ${warning.exporter}: ${warning.message}`)
    warn(warning)
  },
}

/**
 * The operator console's page (console/): its own Lit, bundled (the page loads nothing else, from no CDN),
 * minified. An ES module (the page loads it with type="module", under a CSP of its own origin only).
 */
const operatorConsole = {
  input: 'console/main.ts',
  output: {
    file: 'dist/console/assets/console.js',
    format: 'es',
    sourcemap: true,
    sourcemapPathTransform: (p) => p.replace(/^(\.\.\/)+/, ''),
  },
  plugins: [
    nodeResolve({ browser: true, exportConditions: ['browser', 'production'] }),
    tsPlugin(false),
    terser({ ecma: 2022, module: true, format: { comments: false } }),
  ],
}

/**
 * `rollup -c` (npm run build:sdk): the SDK's builds; `rollup -c --configDemo` (npm run build:demo): the demo's
 * page; `rollup -c --configConsole` (npm run build:console): the operator console.
 */
export default (args) => (args.configConsole ? [operatorConsole] : args.configDemo ? [demoCheckout] : sdkBuilds)

const sdkBuilds = [
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
    plugins: [
      browserOnly({ root }),
      sdkChunks({ chunksDir: join(root, 'dist', 'javascript', 'v2.2', 'chunks') }),
      nodeResolve({ browser: true, exportConditions: ['browser', 'production'] }),
      minifyTemplates(),
      tsPlugin(false),
      sharedDecorateHelper(),
      privateNames(),
      terser({ ecma: 2022, toplevel: true, compress: { passes: 3, inline: 1 }, format: { comments: false } }),
      licenseNotice(),
    ],
  },
  {
    input: {
      index: 'sdk/esm.ts',
      'elements/index': 'components/index.ts',
      ...Object.fromEntries(Object.entries(ELEMENTS).map(([tag, src]) => [`elements/${tag}`, src])),
    },
    output: {
      dir: PACKAGE_DIR,
      format: 'es',
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
      sourcemap: true,
      sourcemapPathTransform: (p) => p.replace(/^(\.\.\/)+/, ''),
    },
    external: (id) => id === 'lit' || id.startsWith('lit/') || id.startsWith('@lit/'),
    // elementRegistrations: the build fails if an entry draws an element nothing it imports registers.
    plugins: [
      browserOnly({ root }),
      nodeResolve({ browser: true }),
      minifyTemplates(),
      tsPlugin(false),
      sharedDecorateHelper(),
      esmTypes({ packageDir: join(root, PACKAGE_DIR), elements: ELEMENTS }),
      elementRegistrations({ root, elements: ELEMENTS }),
    ],
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
    plugins: [
      sandboxBundle({ root }),
      sandboxLocales({ root }),
      jsonModules(),
      nodeResolve({ browser: true, exportConditions: ['browser', 'production'] }),
      commonjs(),
      tsPlugin(true),
    ],
  },
  // mock-server/index.js (+ .map) of the package: the offline sandbox as ESM for a seller's node tests
  // (`svc-ancillaries/mock-server`; declarations in types/mock-server). msw stays external, so the seller's
  // own msw (an optional peer) is the one whose setupServer runs the handlers, and so does typebox (a
  // dependency of the package, whose types it names); the rest of what the core runs on (jose, lru-cache,
  // ipaddr.js, @noble/hashes) is bundled, so a frontend that never imports it installs none of them.
  {
    input: 'mock-server/index.ts',
    output: {
      file: `${PACKAGE_DIR}/mock-server/index.js`,
      format: 'es',
      sourcemap: true,
      sourcemapPathTransform: (p) => p.replace(/^(\.\.\/)+/, ''),
    },
    external: (id) => /^(msw|typebox)(\/|$)/.test(id),
    onwarn: quietLibraryCycles,
    plugins: [
      jsonModules(),
      nodeResolve({ exportConditions: ['node'], preferBuiltins: true }),
      commonjs(),
      esbuild({ target: 'es2022', tsconfig: 'tsconfig.json', sourceMap: true }),
    ],
  },
  localeBuild(PACKAGE_DIR),
]
