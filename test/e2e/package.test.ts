/**
 * The npm package as a frontend installs it: `npm pack` of dist/svc-ancillaries (what `npm run build`
 * assembles from packages/svc-ancillaries: `npm test` builds first), installed into a fresh project in a
 * temp dir, then used from there only.
 *
 * Offline install: the registry is never asked. The packed package.json's `dependencies` are linked into
 * the fresh project's node_modules from the repo's node_modules before `npm install --offline <tarball>`,
 * so npm finds every dependency satisfied and only unpacks the tarball (npm without a lockfile builds on
 * the node_modules it finds; resolving a dependency afresh would need the registry's metadata, which the
 * npm cache of an `npm ci` does not hold). The linked packages are what the repo tests with, at versions
 * the ranges accept; after the install their own dependencies are linked at the top as npm would hoist them.
 *
 * Checks:
 * - what it installs: its dependencies' whole closure, fewer than 15 packages, none of the server's (fastify,
 *   pg, better-sqlite3, pino, tsx, esbuild) and nothing with an install script or a native build;
 * - the tarball: every `exports` target, the `customElements` manifest and each element's entry are in it;
 *   no tests, no sources but declarations, no server build;
 * - plain `node` in the fresh project imports `.` (init, showUpsell, formatPrice, Session: and registers no
 *   element), `./elements`, each `./elements/<tag>.js` (Lit's Node build has a customElements registry:
 *   each file registers its tag and not every other one, with the same class `./elements` exports),
 *   `./mock-server` (with the consumer's own msw), every `./locales/<tag>.js` and `.json`, and
 *   `./custom-elements.json`;
 * - the packed declarations import only dependencies, the optional peer msw and packed files;
 * - `tsc --noEmit` (the repo's TypeScript, under NodeNext and Bundler resolution) of a consumer's TS that
 *   imports every entry, a React 19 TSX file using `<svc-bag-upsell display="card">` through
 *   `svc-ancillaries/types/react`, and a Vue `GlobalComponents` use through `svc-ancillaries/types/vue`;
 *   wrong uses must fail (`@ts-expect-error`). Once more with `skipLibCheck: false` over `.`, one element and
 *   `./mock-server`, so every declaration a frontend reaches is checked, the libraries' among them.
 *   React's types are the repo's @types/react when installed (Storybook brings them), else a small stub;
 *   `vue` here is a stub declaring the two interfaces the typings use (`GlobalComponents`,
 *   `HTMLAttributes`), as in Vue's runtime-core / runtime-dom; the real Vue, with vue-tsc over a template,
 *   is test/e2e/frameworks.test.ts's (examples/vue);
 * - `tsc` with `skipLibCheck: false` in a second fresh project that has no msw (an optional peer, for
 *   `./mock-server` only), under Bundler and Node16 resolution, over `.`, `./elements`, one element and a
 *   locale: no declaration those entries reach may import msw;
 * - a Vite production build of a page that builds a `Session` and shows `<svc-bag-upsell>` alone: what it
 *   adds to the first load (the entry and what it imports statically, gzipped) is at most 20 KB over the
 *   same page without the widget, and registers `<svc-price>`, which the widget draws; the seat map and the
 *   rest stay out of it.
 */
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { patience } from '../helpers/patience.ts'

const run = promisify(execFile)
const root = join(import.meta.dirname, '..', '..')
const repoModules = realpathSync(join(root, 'node_modules'))
const NAME = 'svc-ancillaries'
/** The packed folder (npm run build assembles it). */
const PACKAGE = join(root, 'dist', NAME)

interface PackJson {
  filename: string
  files: { path: string }[]
}
interface Manifest {
  modules: { declarations?: { tagName?: string; name: string }[] }[]
}

let tmp: string
let tarball: string
let project: string
let files: Set<string>
let pkg: {
  exports: Record<string, string | Record<string, string>>
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
  customElements: string
  private: boolean
}
let tags: string[]

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    maxBuffer: 64 << 20,
  })
const node = (code: string) =>
  run(process.execPath, ['--input-type=module', '-e', code], {
    cwd: project,
    env: { ...process.env, NODE_OPTIONS: '' },
  }).then((r) => JSON.parse(r.stdout.trim().split('\n').at(-1) ?? 'null'))
const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}
const link = (target: string, path: string) => {
  mkdirSync(dirname(path), { recursive: true })
  symlinkSync(target, path, 'dir')
}

before(
  async () => {
    for (const f of [
      'index.js',
      'elements/index.js',
      'mock-server/index.js',
      'types/frameworks/react.d.ts',
      'custom-elements.json',
      'package.json',
    ]) {
      assert.ok(existsSync(join(PACKAGE, f)), `dist/${NAME}/${f} is missing: run \`npm run build\` first`)
    }
    tmp = mkdtempSync(join(tmpdir(), 'svc-package-'))
    // --ignore-scripts: the package has no scripts; the test packs what the build made.
    const { stdout } = await npm(['pack', PACKAGE, '--json', '--ignore-scripts', '--pack-destination', tmp], root)
    const [packed] = JSON.parse(stdout) as PackJson[]
    assert.ok(packed)
    files = new Set(packed.files.map((f) => f.path))
    tarball = join(tmp, packed.filename)

    project = join(tmp, 'consumer')
    pkg = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'))
    await install(project)
    // The consumer's own msw, for ./mock-server (an optional peer: the install above did not bring it).
    for (const dep of ['msw', ...closure(['msw'])])
      if (!existsSync(join(project, 'node_modules', dep)))
        link(join(repoModules, dep), join(project, 'node_modules', dep))
    // Type-checking tools, linked after the install (npm would drop them as extraneous).
    // SVC_PACKAGE_REACT_STUB=1 tries the stub where @types/react is installed.
    if (existsSync(join(repoModules, '@types/react')) && process.env.SVC_PACKAGE_REACT_STUB !== '1')
      link(join(repoModules, '@types/react'), join(project, 'node_modules/@types/react'))
    else writeReactStub()
    writeVueStub()

    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules', NAME, 'custom-elements.json'), 'utf8'),
    ) as Manifest
    tags = manifest.modules
      .flatMap((m) => m.declarations ?? [])
      .flatMap((d) => (d.tagName ? [d.tagName] : []))
      .sort()
  },
  { timeout: patience(120_000) },
)

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

/** The packed package installed into a fresh project at `dir`, with its dependencies and nothing else (no msw). */
async function install(dir: string): Promise<void> {
  write(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2),
  )
  for (const dep of Object.keys(pkg.dependencies)) link(join(repoModules, dep), join(dir, 'node_modules', dep))
  await npm(['install', '--offline', '--ignore-scripts', tarball], dir)
  // Then their own dependencies at the top, as npm's flat install puts them (lit-html, @lit/reactive-element, ...).
  for (const dep of closure(Object.keys(pkg.dependencies))) {
    if (!existsSync(join(dir, 'node_modules', dep))) link(join(repoModules, dep), join(dir, 'node_modules', dep))
  }
}

/** The packages `deps` need, as the repo's node_modules resolves them at its top level (nested copies stay inside their package). */
function closure(deps: string[]): Set<string> {
  const seen = new Set<string>()
  const queue = [...deps]
  for (let dep = queue.pop(); dep !== undefined; dep = queue.pop()) {
    if (seen.has(dep) || !existsSync(join(repoModules, dep, 'package.json'))) continue
    seen.add(dep)
    const p = JSON.parse(readFileSync(join(repoModules, dep, 'package.json'), 'utf8')) as {
      dependencies?: object
      peerDependencies?: object
    }
    for (const d of Object.keys({ ...p.dependencies, ...p.peerDependencies }))
      if (!existsSync(join(repoModules, dep, 'node_modules', d))) queue.push(d)
  }
  return seen
}

/** A few lines of React 19's types, for a machine without @types/react: JSX.IntrinsicElements and the props types. */
function writeReactStub() {
  const dir = join(project, 'node_modules/@types/react')
  write(
    join(dir, 'package.json'),
    JSON.stringify({
      name: '@types/react',
      version: '19.0.0',
      types: 'index.d.ts',
      exports: { '.': { types: './index.d.ts' }, './jsx-runtime': { types: './jsx-runtime.d.ts' } },
    }),
  )
  write(
    join(dir, 'index.d.ts'),
    [
      'export = React; export as namespace React',
      'declare namespace React {',
      '  interface Attributes { key?: string | number | null }',
      '  interface HTMLAttributes<T> { id?: string; className?: string; hidden?: boolean; children?: unknown; onClick?: (event: MouseEvent & { currentTarget: T }) => void }',
      '  type DetailedHTMLProps<E, T> = Attributes & E & { ref?: { current: T | null } | ((el: T | null) => void) }',
      '  namespace JSX { interface Element {} interface IntrinsicElements { div: DetailedHTMLProps<HTMLAttributes<HTMLDivElement>, HTMLDivElement> } interface IntrinsicAttributes extends Attributes {} }',
      '}',
    ].join('\n'),
  )
  write(
    join(dir, 'jsx-runtime.d.ts'),
    [
      "import type * as React from './index.js'",
      'export namespace JSX { interface Element extends React.JSX.Element {} interface IntrinsicElements extends React.JSX.IntrinsicElements {} interface IntrinsicAttributes extends React.JSX.IntrinsicAttributes {} }',
      'export declare function jsx(type: unknown, props: unknown, key?: unknown): JSX.Element',
      'export declare const jsxs: typeof jsx, Fragment: unique symbol',
    ].join('\n'),
  )
}

/** The two interfaces svc-ancillaries/types/vue augments and uses, as Vue declares them (examples/vue checks the real Vue). */
function writeVueStub() {
  const dir = join(project, 'node_modules/vue')
  write(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'vue', version: '3.5.0', type: 'module', exports: { '.': { types: './index.d.ts' } } }),
  )
  write(
    join(dir, 'index.d.ts'),
    [
      '/** runtime-core: the components every template knows (augmented by libraries). */',
      'export interface GlobalComponents {}',
      '/** runtime-dom: the attributes of any HTML element in a template. */',
      'export interface HTMLAttributes { id?: string; class?: unknown; style?: unknown; title?: string; hidden?: boolean; onClick?: (event: MouseEvent) => void }',
    ].join('\n'),
  )
}

describe('what it installs', () => {
  test('lit, @lit/context and typebox, under 15 packages in all, nothing of the server and nothing compiled', () => {
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['@lit/context', 'lit', 'typebox'])
    assert.deepEqual(Object.keys(pkg.peerDependencies), ['msw'], 'msw is a peer, for ./mock-server only')
    const added = [...closure(Object.keys(pkg.dependencies))].sort()
    assert.ok(added.length < 15, `${added.length} packages: ${added.join(', ')}`)
    for (const server of ['fastify', 'pg', 'better-sqlite3', 'pino', 'tsx', 'esbuild', 'jose', 'lru-cache'])
      assert.ok(!added.includes(server), `${server} is installed`)
    const compiled = added.filter((dep) => {
      const dir = join(repoModules, dep)
      const scripts =
        (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ??
        {}
      return existsSync(join(dir, 'binding.gyp')) || ['preinstall', 'install', 'postinstall'].some((k) => k in scripts)
    })
    assert.deepEqual(compiled, [], 'packages that run a script or a native build at install')
  })
})

describe('the tarball', () => {
  test('holds every exports target, the manifest and an entry per element; no tests, sources or server', () => {
    assert.equal(pkg.private, true, 'the package stays private (not published)')
    assert.equal(
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string }).name,
      `${NAME}-service`,
      'the repository is the service, not the package',
    )
    assert.ok(files.has('package.json') && files.has('README.md'))
    assert.ok(files.has(pkg.customElements), `customElements: ${pkg.customElements}`)
    const targets = Object.values(pkg.exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t)))
    for (const target of targets) {
      const path = target.replace(/^\.\//, '')
      if (path.includes('*')) {
        const [pre, post] = path.split('*') as [string, string]
        assert.ok(
          [...files].some((f) => f.startsWith(pre) && f.endsWith(post)),
          `nothing packed for ${target}`,
        )
      } else {
        assert.ok(files.has(path), `${target} is not packed`)
      }
    }
    assert.ok(tags.length >= 8, `the manifest lists ${tags.length} elements`)
    for (const tag of tags) {
      assert.ok(files.has(`elements/${tag}.js`), `elements/${tag}.js`)
      assert.ok(files.has(`elements/${tag}.d.ts`), `elements/${tag}.d.ts`)
    }
    // Every chunk is one an entry loads (rollup leaves no earlier build's chunks behind).
    const esm = [...files].filter((f) => !f.startsWith('mock-server/') && f.endsWith('.js'))
    const code = esm.map((f) => readFileSync(join(PACKAGE, f), 'utf8')).join('\n')
    const orphans = esm.filter((f) => f.startsWith('chunks/')).filter((f) => !code.includes(`/${f.split('/').at(-1)}'`))
    assert.deepEqual(orphans, [], 'chunks no entry imports')
    // Code only as built modules; sources only as declarations, and none of the server's.
    const stray = [...files].filter(
      (f) =>
        /^(test|server|core|components|client|sdk|scripts|examples|stories|bench|dist|node)\//.test(f) ||
        f.startsWith('types/server/') ||
        /\.test\.|(?<!\.d)\.ts$/.test(f),
    )
    assert.deepEqual(stray, [])
  })
})

describe('the declarations', () => {
  test("import only the package's dependencies (and lit's own), and relative files that are packed", () => {
    // lit-html: the elements' inferred `render()` types name lit-html's TemplateResult; lit depends on it and
    // npm installs it at the top, a strict layout (pnpm) would not. The framework typings import their framework.
    const allowed = new Set([
      ...Object.keys(pkg.dependencies),
      ...Object.keys(pkg.peerDependencies),
      'lit-html',
      'react',
      'vue',
    ])
    const problems: string[] = []
    for (const file of [...files].filter((f) => f.endsWith('.d.ts'))) {
      const text = readFileSync(join(project, 'node_modules', NAME, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '')
      // Side-effect imports too (`import './events.js'`: the event map the elements' typings augment).
      for (const [, spec] of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)) {
        if (!spec) continue
        if (spec.startsWith('.')) {
          const target = join(dirname(file), spec).replace(/\.(ts|js)$/, '.d.ts')
          if (!files.has(target)) problems.push(`${file}: ${spec} (${target} not packed)`)
        } else {
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!
          if (!allowed.has(name)) problems.push(`${file}: ${spec} is not a dependency`)
        }
      }
    }
    assert.deepEqual(problems, [])
  })
})

describe('installed, from plain node', () => {
  test('`.` has init, showUpsell, formatPrice and the session, and registers no element', async () => {
    // Lit first: its Node build installs the customElements registry an element would register in.
    const r = await node(`
      await import('lit')
      const m = await import('${NAME}')
      console.log(JSON.stringify({ keys: Object.keys(m), price: m.formatPrice(2550, 2, 'EUR', 'en-US'), registered: ${JSON.stringify(tags)}.filter((t) => customElements.get(t)) }))`)
    for (const k of [
      'init',
      'showUpsell',
      'destroy',
      'formatPrice',
      'createSvc',
      'Session',
      'ApiClient',
      'SvcError',
      'addLocale',
    ])
      assert.ok(r.keys.includes(k), `${NAME} exports ${k}`)
    assert.equal(r.price, '€25.50')
    assert.deepEqual(r.registered, [], 'importing `.` registers no element (showUpsell loads <svc-upsell> when called)')
  })

  test('`./elements` registers every element of the manifest', async () => {
    const r = await node(`
      await import('${NAME}/elements')
      console.log(JSON.stringify(${JSON.stringify(tags)}.filter((t) => !customElements.get(t))))`)
    assert.deepEqual(r, [])
  })

  test('each `./elements/<tag>.js` registers its element, shares its class with `.`, and not every other', async () => {
    for (const tag of tags) {
      const r = await node(`
        const el = await import('${NAME}/elements/${tag}.js')
        const cls = customElements.get('${tag}')
        const registered = ${JSON.stringify(tags)}.filter((t) => customElements.get(t))
        const all = await import('${NAME}/elements')
        console.log(JSON.stringify({ registered, exported: Object.values(el).includes(cls), same: Object.values(all).includes(cls) }))`)
      assert.ok(r.registered.includes(tag), `${tag} registered`)
      assert.ok(r.registered.length < tags.length, `${tag}.js registered every element: ${r.registered}`)
      assert.ok(r.exported, `${tag}.js exports the registered class`)
      assert.ok(r.same, `${tag}: the class \`./elements\` exports is the registered one (one copy of each element)`)
    }
  })

  test('`./mock-server` gives the sandbox handlers', async () => {
    const r = await node(`
      const m = await import('${NAME}/mock-server')
      console.log(JSON.stringify({ handlers: m.sandboxHandlers.length, create: typeof m.createSandbox, key: typeof m.SANDBOX_API_KEY }))`)
    assert.ok(r.handlers > 10, `${r.handlers} handlers`)
    assert.equal(r.create, 'function')
    assert.equal(r.key, 'string')
  })

  test('`./locales/<tag>.js` and `.json`, and `./custom-elements.json`', async () => {
    const locales = readdirSync(join(project, 'node_modules', NAME, 'locales'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => f.slice(0, -3))
    assert.ok(locales.includes('de-DE'), `locales: ${locales}`)
    const r = await node(`
      const out = {}
      for (const tag of ${JSON.stringify(locales)}) {
        const js = (await import('${NAME}/locales/' + tag + '.js')).default
        const json = (await import('${NAME}/locales/' + tag + '.json', { with: { type: 'json' } })).default
        out[tag] = Object.keys(js).length > 10 && JSON.stringify(js) === JSON.stringify(json)
      }
      const manifest = (await import('${NAME}/custom-elements.json', { with: { type: 'json' } })).default
      console.log(JSON.stringify({ out, schema: manifest.schemaVersion }))`)
    for (const tag of locales) assert.equal(r.out[tag], true, `${tag}: the module and the JSON hold the same table`)
    assert.ok(r.schema, 'custom-elements.json has a schemaVersion')
  })
})

describe('installed, type-checked', () => {
  const consumerTs = `
import { init, showUpsell, formatPrice, createSvc, Session, SvcError, addLocale, type InitOptions, type BasketChange } from '${NAME}'
import { SvcUpsell } from '${NAME}/elements'
import { SvcBagUpsell } from '${NAME}/elements/svc-bag-upsell.js'
import { SvcSeatMap } from '${NAME}/elements/svc-seat-map.js'
import { setupServerHandlers } from './handlers.js'
import de from '${NAME}/locales/de-DE.js'
import manifest from '${NAME}/custom-elements.json' with { type: 'json' }

const options: InitOptions = { baseUrl: 'https://svc.example', tripId: 't', tripAccessToken: 'a', onBasketChange: (c: BasketChange) => void c }
export async function start(): Promise<string> {
  addLocale('de-DE', de)
  await init(options)
  await showUpsell({ container: 'extras', display: 'embedded', allowProducts: ['bags'] })
  const el: SvcBagUpsell = document.createElement('svc-bag-upsell')
  el.display = 'card'
  const seat: SvcSeatMap | null = document.querySelector('svc-seat-map')
  const upsell: typeof SvcUpsell = SvcUpsell
  void [seat, upsell, createSvc(), Session, setupServerHandlers, manifest.schemaVersion]
  // @ts-expect-error not a display
  el.display = 'sideways'
  return formatPrice(2550, 2, 'EUR', 'de-DE') + String(new SvcError('network', 'x').code)
}
`
  const handlersTs = `
import { sandboxHandlers, createSandbox, type Sandbox } from '${NAME}/mock-server'
export const setupServerHandlers = sandboxHandlers
export const make: () => Promise<Sandbox> = () => createSandbox()
`
  const reactTsx = `
import type {} from '${NAME}/types/react'
import '${NAME}/elements/svc-bag-upsell.js'

export function Extras({ onLoad }: { onLoad: (product: string) => void }) {
  return (
    <div>
      <svc-bag-upsell display="card" framed locale="de-DE" onsvc-load={(e) => onLoad(e.detail.product)} />
      <svc-spinner label="Loading" hide-label />
      {/* @ts-expect-error not a display */}
      <svc-bag-upsell display="sideways" />
      {/* @ts-expect-error not an element of the package */}
      <svc-nope />
    </div>
  )
}
`
  const vueTs = `
import type { GlobalComponents } from 'vue'
import type {} from '${NAME}/types/vue'

type Props<T extends keyof GlobalComponents> = InstanceType<GlobalComponents[T]>['$props']
// <svc-bag-upsell display="card" framed @svc-load="(e) => ...">, as vue-tsc checks a template
export const bag: Props<'svc-bag-upsell'> = { display: 'card', framed: true, class: 'extras', onSvcLoad: (e) => void e.detail.display }
export const spinner: Props<'svc-spinner'> = { label: 'Loading', 'hide-label': true }
// @ts-expect-error not a display
export const wrong: Props<'svc-bag-upsell'> = { display: 'sideways' }
// @ts-expect-error not an element of the package
export const none: Props<'svc-nope'> = {}
`

  for (const resolution of ['NodeNext', 'Bundler'] as const) {
    test(`tsc --noEmit with ${resolution} resolution: every entry, React 19 JSX, Vue GlobalComponents`, async () => {
      const dir = join(project, `src-${resolution.toLowerCase()}`)
      write(join(dir, 'consumer.ts'), consumerTs)
      write(join(dir, 'handlers.ts'), handlersTs)
      write(join(dir, 'react.tsx'), reactTsx)
      write(join(dir, 'vue.ts'), vueTs)
      write(
        join(dir, 'tsconfig.json'),
        JSON.stringify(
          {
            compilerOptions: {
              target: 'ES2022',
              lib: ['ES2023', 'DOM', 'DOM.Iterable'],
              module: resolution === 'NodeNext' ? 'NodeNext' : 'ESNext',
              moduleResolution: resolution,
              // skipLibCheck: checking every library's declarations (typebox's alone are hundreds of files) takes
              // a minute here; the package's own declarations are checked for what they import above, and every
              // type the consumer files use from them is checked.
              jsx: 'react-jsx',
              strict: true,
              noEmit: true,
              skipLibCheck: true,
              resolveJsonModule: true,
              types: [],
            },
            include: ['*.ts', '*.tsx'],
          },
          null,
          2,
        ),
      )
      const tsc = join(repoModules, 'typescript/bin/tsc')
      const r = await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: project }).catch(
        (e: { stdout: string; stderr: string }) => e,
      )
      assert.equal(`${r.stdout}${r.stderr}`.trim(), '', 'tsc reports nothing')
    })
  }
})

describe('installed, type-checked with skipLibCheck: false', () => {
  test('a frontend that builds a Session, shows one element and tests with ./mock-server: every declaration it reaches checks', async () => {
    const dir = join(project, 'src-strict')
    write(
      join(dir, 'frontend.ts'),
      `
import { ApiClient, Session, type BasketChange } from '${NAME}'
import { SvcBagUpsell } from '${NAME}/elements/svc-bag-upsell.js'
import { sandboxHandlers, createSandbox } from '${NAME}/mock-server'

export function mount(tripId: string, accessToken: string): () => void {
  const session = new Session(new ApiClient({ baseUrl: 'https://svc.example', tripId, accessToken }))
  session.addEventListener('basket-change', (e) => void (e as CustomEvent<BasketChange>).detail.basket)
  session.follow()
  const el: SvcBagUpsell = document.createElement('svc-bag-upsell')
  el.session = session
  document.body.append(el)
  return () => { el.remove(); session.dispose() }
}
export const handlers = sandboxHandlers.length
export const sandbox = () => createSandbox({ baseUrl: 'https://svc.example' }).then((s) => s.createTrip())
`,
    )
    write(
      join(dir, 'tsconfig.json'),
      JSON.stringify(
        {
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2023', 'DOM', 'DOM.Iterable'],
            module: 'ESNext',
            moduleResolution: 'Bundler',
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: [],
          },
          include: ['*.ts'],
        },
        null,
        2,
      ),
    )
    const tsc = join(repoModules, 'typescript/bin/tsc')
    const r = await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], {
      cwd: project,
      maxBuffer: 16 << 20,
    }).catch((e: { stdout: string; stderr: string }) => e)
    assert.equal(`${r.stdout}${r.stderr}`.trim(), '', 'tsc reports nothing')
  })
})

describe('installed without msw, type-checked with skipLibCheck: false', () => {
  // msw is an optional peer, for ./mock-server only: a frontend that never imports the sandbox does not
  // install it, and with skipLibCheck: false every declaration its entries reach is checked, so none of
  // them may import msw (mock-server/types.ts, which the SDK's sandbox types name, once did).
  let bare: string
  before(
    async () => {
      bare = join(tmp, 'consumer-without-msw')
      await install(bare)
    },
    { timeout: patience(120_000) },
  )

  test(
    '`.`, `./elements`, one element and a locale check under Bundler and Node16 resolution',
    { timeout: patience(180_000) },
    async () => {
      // The project must really be without msw: not installed, and not reachable from the package's folder
      // (the tmp dir has no node_modules above it; the dependencies are links into the repo's, which TypeScript
      // follows to their real paths, where msw is not looked up from the package's own declarations).
      assert.ok(!existsSync(join(bare, 'node_modules', 'msw')), 'msw is installed')
      assert.throws(
        () => createRequire(join(bare, 'node_modules', NAME, 'package.json')).resolve('msw'),
        /Cannot find module/,
      )
      const source = `
import { ApiClient, Session, init, showUpsell, createSvc, type BasketChange, type SvcApi } from '${NAME}'
import { SvcUpsell } from '${NAME}/elements'
import { SvcBagUpsell } from '${NAME}/elements/svc-bag-upsell.js'
import de from '${NAME}/locales/de-DE.js'

export async function mount(tripId: string, accessToken: string): Promise<() => void> {
  const session = new Session(new ApiClient({ baseUrl: 'https://svc.example', tripId, accessToken }))
  session.addEventListener('basket-change', (e) => void (e as CustomEvent<BasketChange>).detail.basket)
  const el: SvcBagUpsell = document.createElement('svc-bag-upsell')
  el.session = session
  document.body.append(el)
  await init({ baseUrl: 'https://svc.example', tripId, tripAccessToken: accessToken })
  await showUpsell({ container: 'extras', display: 'embedded' })
  const svc: SvcApi = createSvc()
  void [svc, SvcUpsell, de]
  return () => { el.remove(); session.dispose() }
}
`
      const check = async (resolution: 'Bundler' | 'Node16') => {
        const dir = join(bare, `src-${resolution.toLowerCase()}`)
        write(join(dir, 'frontend.ts'), source)
        write(
          join(dir, 'tsconfig.json'),
          JSON.stringify(
            {
              compilerOptions: {
                target: 'ES2022',
                lib: ['ES2023', 'DOM', 'DOM.Iterable'],
                module: resolution === 'Node16' ? 'Node16' : 'ESNext',
                moduleResolution: resolution,
                strict: true,
                noEmit: true,
                skipLibCheck: false,
                types: [],
              },
              include: ['*.ts'],
            },
            null,
            2,
          ),
        )
        const tsc = join(repoModules, 'typescript/bin/tsc')
        const r = await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], {
          cwd: bare,
          maxBuffer: 16 << 20,
        }).catch((e: { stdout: string; stderr: string }) => e)
        return `${r.stdout}${r.stderr}`.trim()
      }
      // Both at once: each is a full check of the libraries' declarations (about 15 s here).
      const [bundler, node16] = await Promise.all([check('Bundler'), check('Node16')])
      assert.equal(bundler, '', 'tsc (Bundler) reports nothing')
      assert.equal(node16, '', 'tsc (Node16) reports nothing')
    },
  )
})

describe('in a Vite app', () => {
  /** The files a built page loads before it runs (its entry and what that imports statically), gzipped. */
  async function firstLoad(name: string, main: string): Promise<{ bytes: number; code: string }> {
    const dir = join(project, name)
    write(
      join(dir, 'index.html'),
      '<!doctype html><html lang="en"><body><a href="#orders">Orders</a><script type="module" src="./main.js"></script></body></html>',
    )
    write(join(dir, 'main.js'), main)
    write(join(dir, 'orders.js'), "export const show = () => document.body.append('Your orders')\n")
    const { build } = await import('vite')
    await build({
      root: dir,
      configFile: false,
      logLevel: 'silent',
      build: { outDir: join(dir, 'dist'), emptyOutDir: true },
    })
    const html = readFileSync(join(dir, 'dist', 'index.html'), 'utf8')
    const urls = [
      ...html.matchAll(/<(?:script type="module"[^>]*src|link rel="modulepreload"[^>]*href)="([^"]+)"/g),
    ].map((m) => m[1]!)
    assert.ok(urls.length > 0, `${name}: no script in ${html}`)
    const files = urls.map((u) => readFileSync(join(dir, 'dist', u.replace(/^\//, ''))))
    return { bytes: files.reduce((n, f) => n + gzipSync(f, { level: 9 }).length, 0), code: files.join('\n') }
  }

  const widget = `import { ApiClient, Session } from '${NAME}'
import '${NAME}/elements/svc-bag-upsell.js'
const session = new Session(new ApiClient({ baseUrl: location.origin, tripId: 'trip', accessToken: 'token' }))
document.body.append(Object.assign(document.createElement('svc-bag-upsell'), { session }))
`

  test(
    'a Session and <svc-bag-upsell> alone add at most 20 KB gzip to the first load, its prices included; the seat map is not in it',
    { timeout: patience(120_000) },
    async () => {
      // A checkout page as apps are built: a route loaded when first opened (so the page already carries
      // Vite's preload helper, which the widget's own lazy import, the card and modal frames, also needs).
      const page =
        "document.body.append('Checkout')\ndocument.querySelector('a').onclick = () => import('./orders.js').then((m) => m.show())\n"
      const base = await firstLoad('app-base', page)
      const bag = await firstLoad('app-bag', page + widget)
      // And a page with no lazy import of its own, for which the widget brings the helper.
      const bare = await firstLoad('app-bare', "document.body.append('Checkout')\n")
      const bareBag = await firstLoad('app-bare-bag', "document.body.append('Checkout')\n" + widget)
      const added = bag.bytes - base.bytes
      console.log(
        `# first load: the bag widget adds ${(added / 1000).toFixed(1)} KB gzip to a page that loads a route lazily (${base.bytes} B → ${bag.bytes} B), ${((bareBag.bytes - bare.bytes) / 1000).toFixed(1)} KB to one that has no lazy import (${bare.bytes} B → ${bareBag.bytes} B)`,
      )
      assert.ok(bag.code.includes('svc-bag-upsell'), 'the widget is in the first load')
      // 20.5 KB from when the widget registered the <svc-price> it draws (some 300 B of it) until the trip's
      // event stream follower (client/follow.ts) left the first load for Session.follow() to load: 19.6 KB.
      assert.ok(added <= 20_000, `the bag widget adds ${added} B gzip to the first load`)
      // A registration, `define('svc-price', SvcPrice)` once minified: the tag as a string (Vite writes it in
      // backquotes), then the class.
      const registers = (tag: string) => new RegExp(`[\`'"]${tag}[\`'"],`).test(bag.code)
      assert.ok(registers('svc-price'), 'the first load registers <svc-price>, which the widget draws')
      assert.ok(bareBag.bytes - bare.bytes - added <= 1_000, "Vite's preload helper is all that differs")
      for (const later of ['svc-seat-map', 'svc-option-card', 'svc-modal'])
        assert.ok(!registers(later), `${later} is in the first load`)
    },
  )
})
