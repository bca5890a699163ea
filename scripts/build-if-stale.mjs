// `npm start` runs this first: the server serves the browser SDK from dist/, so build it (rollup, a few
// seconds) when it is missing or older than any of its sources (a fresh clone, a pull, an edit). When it is
// fresh this costs a directory walk, not a build. The size budget only warns here: it fails
// `npm run build` and CI, never a local start. Without devDependencies (npm ci --omit=dev) it cannot
// build: it says so and lets the server start (a missing bundle answers 503 naming `npm run build`).
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'

const root = join(import.meta.dirname, '..')
const outputs = ['dist/javascript/v2.2/svc.min.js', 'dist/javascript/v2.2/svc.min.js.map', 'dist/esm/index.js', 'dist/javascript/v2.2/svc-sandbox.min.js']
const sources = ['sdk', 'components', 'core', 'mock-server', 'rollup.config.mjs', 'tsconfig.json', 'package-lock.json']
// A JSON per translation (scripts/rollup-locales.mjs): a dist from before a locale was added is rebuilt.
const localeDir = join(root, 'components', 'i18n', 'locales')
if (existsSync(localeDir)) outputs.push(...readdirSync(localeDir).filter((f) => f.endsWith('.ts')).map((f) => `dist/javascript/v2.2/locales/${f.slice(0, -3)}.json`))
sources.push('scripts/rollup-locales.mjs')

function newest(path) {
  if (!existsSync(path)) return 0
  const st = statSync(path)
  if (!st.isDirectory()) return st.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))))
}

const built = Math.min(...outputs.map((f) => (existsSync(join(root, f)) ? statSync(join(root, f)).mtimeMs : 0)))
const changed = Math.max(...sources.map((s) => newest(join(root, s))))
if (built > 0 && built >= changed) process.exit(0)

if (!existsSync(join(root, 'node_modules', '.bin', 'rollup'))) {
  console.warn('The browser SDK is not built and rollup is not installed (devDependencies); /javascript/v2.2/svc.min.js will answer 503 until `npm run build` runs.')
  process.exit(0)
}
console.log(built === 0 ? 'Building the browser SDK (first start)…' : 'Rebuilding the browser SDK (its sources changed)…')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const r = spawnSync(npm, ['run', '--silent', 'build:sdk'], { cwd: root, stdio: 'inherit' })
if (r.status !== 0) process.exit(r.status ?? 1)
const size = spawnSync(process.execPath, [join(root, 'scripts', 'check-bundle-size.mjs')], { cwd: root, stdio: 'inherit' })
if (size.status !== 0) console.warn('(over the size budget: `npm run build` and CI fail on this; the server starts anyway)')
