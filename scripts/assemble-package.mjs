// `npm run build` ends with this: it completes dist/svc-ancillaries, the npm package for bundlers, whose
// code rollup and tsc have written there, with its manifest and README (packages/svc-ancillaries) and the
// elements' manifest (custom-elements.json). `npm run pack:browser` packs the folder.
// The package is not the repository's package.json: that one is the service, whose dependencies (fastify,
// pg, better-sqlite3…) a frontend must not install. Each dependency the package names must be one the
// repository tests with, at the same range, or the build fails: the two manifests cannot drift apart.
import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { join, posix, sep } from 'node:path'

const root = join(import.meta.dirname, '..')
const source = join(root, 'packages', 'svc-ancillaries')
const out = join(root, 'dist', 'svc-ancillaries')

const service = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const pkg = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'))
const tested = { ...service.devDependencies, ...service.dependencies }
const drift = Object.entries({ ...pkg.dependencies, ...pkg.peerDependencies })
  .filter(([name, range]) => tested[name] !== range)
  .map(([name, range]) => `${name}: ${range} in packages/svc-ancillaries, ${tested[name] ?? 'absent'} in package.json`)
if (drift.length > 0) {
  console.error(
    `assemble-package: the package's dependencies must be the ones the repository tests with:\n  ${drift.join('\n  ')}`,
  )
  process.exit(1)
}
if (pkg.version !== service.version) {
  console.error(
    `assemble-package: packages/svc-ancillaries is ${pkg.version}, the service ${service.version}; they are released together`,
  )
  process.exit(1)
}
for (const f of [
  'index.js',
  'elements/index.js',
  'mock-server/index.js',
  'types/sdk/esm.d.ts',
  'types/frameworks/react.d.ts',
]) {
  if (!existsSync(join(out, f))) {
    console.error(
      `assemble-package: ${f} is missing in dist/svc-ancillaries (npm run build runs rollup, build:types and build:frameworks first)`,
    )
    process.exit(1)
  }
}
// tsc writes a declaration for every module the entries' code reaches (the sandbox's whole core among
// them); the package keeps those the entries' declarations reach, so none it holds names a library it
// does not install (the core's services name jose and lru-cache).
const reached = new Set()
const queue = [
  'index.d.ts',
  'types/mock-server/index.d.ts',
  'types/frameworks/react.d.ts',
  'types/frameworks/vue.d.ts',
  ...['elements', 'locales'].flatMap((dir) =>
    readdirSync(join(out, dir))
      .filter((f) => f.endsWith('.d.ts'))
      .map((f) => `${dir}/${f}`),
  ),
]
for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
  if (reached.has(file)) continue
  reached.add(file)
  // Comments out first: a doc comment that quotes an import (mock-server/index.ts's tells a page to take
  // createSandbox from mock-server/sandbox.ts) would otherwise keep that file, and all it reaches, in the package.
  const text = readFileSync(join(out, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
  for (const [, spec] of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)) {
    const target = posix.join(posix.dirname(file), spec).replace(/\.(ts|js)$/, '.d.ts')
    if (!existsSync(join(out, target))) {
      console.error(`assemble-package: ${file} imports ${spec}, and ${target} was not built`)
      process.exit(1)
    }
    queue.push(target)
  }
}
let pruned = 0
for (const file of readdirSync(join(out, 'types'), { recursive: true }).map((f) =>
  posix.join('types', String(f).split(sep).join('/')),
)) {
  const declaration = file.replace(/\.d\.ts\.map$/, '.d.ts')
  if (/\.d\.ts(\.map)?$/.test(file) && !reached.has(declaration)) {
    rmSync(join(out, file))
    pruned++
  }
}
copyFileSync(join(source, 'package.json'), join(out, 'package.json'))
copyFileSync(join(source, 'README.md'), join(out, 'README.md'))
copyFileSync(join(root, 'custom-elements.json'), join(out, 'custom-elements.json'))
console.log(
  `dist/svc-ancillaries: the npm package (npm run pack:browser packs it); ${reached.size} declarations, ${pruned} unreached files of tsc's left out`,
)
