/**
 * What a seller's page downloads for the SDK: raw, gzip and brotli sizes of the built script, and how that
 * compares with a typical peer's ancillaries web component (about 120 KB gzipped), then the chunks it
 * fetches only when a widget first shows them. It also splits the script by source (Lit vs ours) from the
 * source map, so a regression shows where it came from.
 * Run `npm run build` first, then `npm run bench:size`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const PEER_GZIP = 120_000 // bytes: a peer's single web-component bundle, gzipped
const BUDGET_GZIP = 25_600 // scripts/check-bundle-size.mjs

const dir = join(import.meta.dirname, '..', 'dist', 'javascript', 'v2.2')
const file = join(dir, 'svc.min.js')
if (!existsSync(file)) {
  console.error('dist/javascript/v2.2/svc.min.js is missing: run `npm run build` first')
  process.exit(1)
}

const raw = readFileSync(file)
const gzip = gzipSync(raw, { level: 9 }).length
const brotli = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length
const kb = (n: number) => `${(n / 1000).toFixed(1).padStart(6)} KB`

console.log('svc.min.js (the <script> a seller loads)')
console.log(`  raw     ${kb(raw.length)}`)
console.log(
  `  gzip    ${kb(gzip)}   budget ${kb(BUDGET_GZIP).trim()} (${Math.round((gzip / BUDGET_GZIP) * 100)} % used)`,
)
console.log(`  brotli  ${kb(brotli)}`)
console.log(
  `  vs a peer's ~${PEER_GZIP / 1000} KB gzipped component: ${(gzip / PEER_GZIP).toFixed(2)}× (${(PEER_GZIP / gzip).toFixed(1)} times smaller)`,
)

// Which sources the minified bytes come from, by decoding the source map (every segment's bytes up to the
// next segment count for the source it maps to): Lit vs the elements vs the SDK itself.
const mapFile = `${file}.map`
if (existsSync(mapFile)) {
  const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[]; mappings: string }
  const lines = raw.toString('utf8').split('\n')
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  const bytes = new Map<string, number>()
  const group = (src: string) =>
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(src)?.[1] ??
    (src.startsWith('components/') ? src.split('/').slice(0, 2).join('/') : src.split('/')[0]!)
  let source = 0
  map.mappings.split(';').forEach((line, li) => {
    let col = 0
    const segs: Array<[number, number]> = []
    for (const seg of line.split(',')) {
      if (!seg) continue
      const vals: number[] = []
      let v = 0
      let shift = 0
      for (const ch of seg) {
        const d = B64.indexOf(ch)
        v += (d & 31) << shift
        if (d & 32) shift += 5
        else {
          vals.push(v & 1 ? -(v >>> 1) : v >>> 1)
          v = 0
          shift = 0
        }
      }
      col += vals[0]!
      if (vals.length > 1) source += vals[1]!
      segs.push([col, vals.length > 1 ? source : -1])
    }
    segs.forEach(([c, s], i) => {
      const end = i + 1 < segs.length ? segs[i + 1]![0] : (lines[li]?.length ?? c)
      const key = s < 0 ? '(glue)' : group(map.sources[s]!)
      bytes.set(key, (bytes.get(key) ?? 0) + end - c)
    })
  })
  const total = [...bytes.values()].reduce((a, b) => a + b, 0)
  console.log('  minified bytes of svc.min.js by source:')
  for (const [g, n] of [...bytes].sort((a, b) => b[1] - a[1])) {
    console.log(
      `    ${g.padEnd(26)} ${kb(n)} ${Math.round((n / total) * 100)
        .toString()
        .padStart(3)} %`,
    )
  }
}

// The chunks, each fetched the first time a widget shows what it holds (the seat map, the option cards,
// the card and modal displays): a page that shows everything downloads the script and all of them.
const chunks = join(dir, 'chunks')
if (existsSync(chunks)) {
  let all = gzip
  console.log('chunks (on demand)')
  for (const name of readdirSync(chunks)
    .filter((f) => f.endsWith('.js'))
    .sort()) {
    const body = readFileSync(join(chunks, name))
    const gz = gzipSync(body, { level: 9 }).length
    all += gz
    console.log(`  ${name.padEnd(30)} ${kb(body.length)} raw ${kb(gz)} gzip`)
  }
  console.log(`  script and every chunk: ${kb(all).trim()} gzip`)
}
