// The SDK's size budget (run by `npm run build`, so CI fails on a regression): the gzipped script that a
// seller's page downloads, svc.min.js, must stay within 25.6 KB. Exits 1 over budget, or when the bundle is
// missing. The files it fetches later, each only when a widget first needs it (its chunks: the seat map,
// the option cards, the card and modal displays, the trip's event stream follower; and one locale's texts),
// are listed with no budget.
import { readFileSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync, brotliCompressSync, constants } from 'node:zlib'

const BUDGET_GZIP = 25_600 // bytes (25.6 KB; the goal is 25 KB)
const dir = join(import.meta.dirname, '..', 'dist', 'javascript', 'v2.2')
const file = join(dir, 'svc.min.js')

if (!existsSync(file)) {
  console.error(`bundle size: ${file} is missing; run \`npm run build\` first`)
  process.exit(1)
}
const kb = (n) => `${(n / 1000).toFixed(1)} KB`
// Level 9, as a CDN or our own server would compress it.
const sizes = (body) => ({
  raw: body.length,
  gz: gzipSync(body, { level: 9 }).length,
  br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
})
const { raw, gz, br } = sizes(readFileSync(file))
const line = `svc.min.js: ${kb(raw)} raw, ${kb(gz)} gzip, ${kb(br)} brotli (budget ${kb(BUDGET_GZIP)} gzip, ${Math.round((gz / BUDGET_GZIP) * 100)} % used)`

for (const sub of ['chunks', 'locales']) {
  const folder = join(dir, sub)
  if (!existsSync(folder)) continue
  for (const name of readdirSync(folder)
    .filter((f) => /\.js(on)?$/.test(f))
    .sort()) {
    const s = sizes(readFileSync(join(folder, name)))
    console.log(`${sub}/${name}: ${kb(s.raw)} raw, ${kb(s.gz)} gzip, ${kb(s.br)} brotli`)
  }
}

// Every translation module must have been emitted (scripts/rollup-locales.mjs): a missing JSON means the
// SDK would fall back to English for that locale.
const locales = join(dir, 'locales')
const modules = join(import.meta.dirname, '..', 'components', 'i18n', 'locales')
const missing = readdirSync(modules)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => `${f.slice(0, -3)}.json`)
  .filter((name) => !existsSync(join(locales, name)))
if (missing.length > 0) {
  console.error(`locale JSON missing from ${locales}: ${missing.join(', ')}`)
  process.exit(1)
}

if (gz > BUDGET_GZIP) {
  console.error(`bundle size over budget: ${line}`)
  process.exit(1)
}
console.log(`bundle size ok: ${line}`)
