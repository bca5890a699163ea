// `npm start` runs this first: it builds what the server runs from when it is missing or older than any of
// its sources (a fresh clone, a pull, an edit), and costs a directory walk when everything is fresh:
// - `sdk`: the browser SDK the server serves from dist/javascript (rollup, a few seconds);
// - `demo`: the demo checkout's page script (examples/seller-checkout/app, rollup, a second or two), which
//   its backend serves as /demo/app.js;
// - `console`: the operator console's page (console/, rollup, a second or two), served at /console;
// - `server`: the server compiled to dist/node (tsc, about 15 s), which `npm start` runs without a loader.
// Arguments name the targets (default all four). The SDK's size budget only warns here: it fails `npm run build`
// and CI, never a local start. Without devDependencies (npm ci --omit=dev) nothing can be built: a missing
// SDK answers 503 naming `npm run build`, and a missing server says to run `npm run build` first.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'

const root = join(import.meta.dirname, '..')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

const sdkOutputs = [
  'dist/javascript/v2.2/svc.min.js',
  'dist/javascript/v2.2/svc.min.js.map',
  'dist/svc-ancillaries/index.js',
  'dist/javascript/v2.2/svc-sandbox.min.js',
]
// A JSON per translation (scripts/rollup-locales.mjs): a dist from before a locale was added is rebuilt.
const localeDir = join(root, 'components', 'i18n', 'locales')
if (existsSync(localeDir))
  sdkOutputs.push(
    ...readdirSync(localeDir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `dist/javascript/v2.2/locales/${f.slice(0, -3)}.json`),
  )

const targets = {
  sdk: {
    outputs: sdkOutputs,
    sources: [
      'sdk',
      'components',
      'core',
      'mock-server',
      'rollup.config.mjs',
      'scripts/rollup-locales.mjs',
      'tsconfig.json',
      'package-lock.json',
    ],
    tool: 'rollup',
    what: 'the browser SDK',
    build() {
      const r = spawnSync(npm, ['run', '--silent', 'build:sdk'], { cwd: root, stdio: 'inherit' })
      if (r.status !== 0) return r.status ?? 1
      const size = spawnSync(process.execPath, [join(root, 'scripts', 'check-bundle-size.mjs')], {
        cwd: root,
        stdio: 'inherit',
      })
      if (size.status !== 0)
        console.warn('(over the size budget: `npm run build` and CI fail on this; the server starts anyway)')
      return 0
    },
    missing:
      'The browser SDK is not built and rollup is not installed (devDependencies); /javascript/v2.2/svc.min.js will answer 503 until `npm run build` runs.',
  },
  demo: {
    outputs: ['dist/seller-checkout/app.js', 'dist/seller-checkout/app.js.map'],
    sources: [
      'examples/seller-checkout/app',
      'rollup.config.mjs',
      'scripts/rollup/typescript-as-written.mjs',
      'package-lock.json',
    ],
    tool: 'rollup',
    what: "the demo checkout's page",
    build() {
      return spawnSync(npm, ['run', '--silent', 'build:demo'], { cwd: root, stdio: 'inherit' }).status ?? 1
    },
    missing:
      "The demo checkout's page script is not built and rollup is not installed (devDependencies); /demo/app.js will answer 503 until `npm run build` runs.",
  },
  console: {
    outputs: ['dist/console/assets/console.js', 'dist/console/assets/console.js.map'],
    sources: ['console', 'components/theme.ts', 'components/theme-props.ts', 'rollup.config.mjs', 'package-lock.json'],
    tool: 'rollup',
    what: 'the operator console',
    build() {
      return spawnSync(npm, ['run', '--silent', 'build:console'], { cwd: root, stdio: 'inherit' }).status ?? 1
    },
    missing:
      'The operator console is not built and rollup is not installed (devDependencies); /console will answer 503 until `npm run build` runs.',
  },
  server: {
    outputs: [
      'dist/node/server/main.js',
      'dist/node/server/worker-main.js',
      'dist/node/server/cli/seller.js',
      'dist/node/server/cli/operator.js',
      'dist/node/examples/seller-checkout/main.js',
    ],
    sources: [
      'server',
      'core',
      // The demo's backend and page files (its page script is the `demo` target's).
      'examples/seller-checkout/main.ts',
      'examples/seller-checkout/backend.ts',
      'examples/seller-checkout/public',
      'scripts/copy-demo-assets.mjs',
      'tsconfig.json',
      'tsconfig.server.json',
      'package-lock.json',
    ],
    tool: 'tsc',
    what: 'the server',
    build() {
      return spawnSync(npm, ['run', '--silent', 'build:server'], { cwd: root, stdio: 'inherit' }).status ?? 1
    },
    missing:
      'The server is not compiled and TypeScript is not installed (devDependencies): run `npm run build` where it is, then copy dist/.',
    fatal: true,
  },
}

function newest(path) {
  if (!existsSync(path)) return 0
  const st = statSync(path)
  if (!st.isDirectory()) return st.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))))
}

const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(targets)
for (const name of wanted) {
  const t = targets[name]
  if (!t) {
    console.error(`unknown target ${name} (sdk, demo, console, server)`)
    process.exit(2)
  }
  const built = Math.min(...t.outputs.map((f) => (existsSync(join(root, f)) ? statSync(join(root, f)).mtimeMs : 0)))
  const changed = Math.max(...t.sources.map((s) => newest(join(root, s))))
  if (built > 0 && built >= changed) continue
  if (!existsSync(join(root, 'node_modules', '.bin', t.tool))) {
    console.warn(t.missing)
    if (t.fatal && built === 0) process.exit(1)
    continue
  }
  console.log(built === 0 ? `Building ${t.what} (first start)…` : `Rebuilding ${t.what} (its sources changed)…`)
  const status = t.build()
  if (status !== 0) process.exit(status)
}
