// The SDK's size budget (run by `npm run build`, so CI fails on a regression): the gzipped IIFE that a
// seller's page downloads must stay within 35 KB. Exits 1 over budget, or when the bundle is missing.
import { readFileSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync, brotliCompressSync, constants } from 'node:zlib'

const BUDGET_GZIP = 35_000 // bytes (35 KB)
const file = join(import.meta.dirname, '..', 'dist', 'javascript', 'v2.2', 'svc.min.js')

if (!existsSync(file)) {
  console.error(`bundle size: ${file} is missing; run \`npm run build\` first`)
  process.exit(1)
}
const raw = readFileSync(file)
// Level 9, as a CDN or our own server would compress it.
const gz = gzipSync(raw, { level: 9 }).length
const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length
const kb = (n) => `${(n / 1000).toFixed(1)} KB`
const line = `svc.min.js: ${kb(raw.length)} raw, ${kb(gz)} gzip, ${kb(br)} brotli (budget ${kb(BUDGET_GZIP)} gzip, ${Math.round((gz / BUDGET_GZIP) * 100)} % used)`

// The translations svc.min.js fetches (one per page, for the traveller's locale): listed, no budget.
const locales = join(import.meta.dirname, '..', 'dist', 'javascript', 'v2.2', 'locales')
if (existsSync(locales)) {
  for (const name of readdirSync(locales).filter((f) => f.endsWith('.json')).sort()) {
    const body = readFileSync(join(locales, name))
    console.log(`locales/${name}: ${kb(body.length)} raw, ${kb(gzipSync(body, { level: 9 }).length)} gzip, ${kb(brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length)} brotli`)
  }
}

// Every translation module must have been emitted (scripts/rollup-locales.mjs): a missing JSON means the
// SDK would fall back to English for that locale.
const modules = join(import.meta.dirname, '..', 'components', 'i18n', 'locales')
const missing = readdirSync(modules).filter((f) => f.endsWith('.ts')).map((f) => `${f.slice(0, -3)}.json`)
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
