// The browser SDK's builds (`npm run build` runs this, then the .d.ts, the elements manifest and the size check):
//   dist/javascript/v2.2/svc.min.js (+ .map)  IIFE for the <script> tag: Lit bundled, minified, sets window.Svc
//   dist/esm/index.js (+ .map)                ESM for bundlers: every element class, Session, ApiClient, SvcError,
//                                             formatPrice, createSvc; lit and @lit/context stay external peers
import { builtinModules } from 'node:module'
import { relative, sep } from 'node:path'
import esbuild from 'rollup-plugin-esbuild'
import { transform } from 'esbuild'
import ts from 'typescript'
import { nodeResolve } from '@rollup/plugin-node-resolve'

const root = import.meta.dirname

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
 * elements' code): css`...` through esbuild's CSS minifier, html`...`/svg`...` by dropping the
 * indentation after each newline (HTML collapses that whitespace anyway; templates with <pre> or
 * <textarea> are left as written). Templates are found with the TypeScript parser, so strings, comments
 * and expressions are never touched; css literals with `${}` or backslashes are skipped. Every newline
 * stays, so the source maps of the code around a template stay right.
 */
function minifyTemplates() {
  return {
    name: 'svc-minify-templates',
    async transform(code, id) {
      if (!/\/components\/.*\.ts$/.test(id) || !/\b(css|html|svg)`/.test(code)) return null
      const file = ts.createSourceFile(id, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
      const edits = [] // [start, end, text] of template text between its delimiters
      const pending = []
      const visit = (node) => {
        if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag)) {
          const tag = node.tag.text
          const t = node.template
          const pieces = ts.isNoSubstitutionTemplateLiteral(t) ? [t] : [t.head, ...t.templateSpans.map((s) => s.literal)]
          // Text between the delimiters: ` or } before, ${ or ` after.
          const ranges = pieces.map((p) => {
            const start = p.getStart(file) + 1
            const end = p.end - (p.kind === ts.SyntaxKind.TemplateHead || p.kind === ts.SyntaxKind.TemplateMiddle ? 2 : 1)
            return [start, end]
          })
          const raw = ranges.map(([a, b]) => code.slice(a, b))
          if (tag === 'css' && pieces.length === 1 && !raw[0].includes('\\')) {
            const [a, b] = ranges[0]
            pending.push(transform(raw[0], { loader: 'css', minify: true, logLevel: 'silent' }).then((r) => {
              const min = r.code.trim()
              if (!min.includes('`') && !min.includes('${') && !min.includes('\\')) edits.push([a, b, min + '\n'.repeat(raw[0].split('\n').length - 1)])
            }, () => {})) // not plain CSS to esbuild: leave it as written
          } else if ((tag === 'html' || tag === 'svg') && !raw.some((r) => /<(pre|textarea)\b/i.test(r))) {
            ranges.forEach(([a, b], i) => edits.push([a, b, raw[i].replace(/[ \t]*\n[ \t]*/g, '\n')]))
          }
        }
        ts.forEachChild(node, visit)
      }
      visit(file)
      await Promise.all(pending)
      if (edits.length === 0) return null
      edits.sort((x, y) => y[0] - x[0])
      let out = code
      for (const [a, b, text] of edits) out = out.slice(0, a) + text + out.slice(b)
      return { code: out, map: null }
    },
  }
}

/**
 * Lit's BSD-3-Clause notice once, instead of its eleven per-file copies (dropped by the minifier). At the
 * end, after minification, so no mapping moves.
 */
const licenseNotice = {
  name: 'svc-license-notice',
  renderChunk: (code) => ({ code: `${code}\n/*! svc browser SDK v2.2. Includes Lit and @lit/context, (c) Google LLC, BSD-3-Clause: https://github.com/lit/lit/blob/main/LICENSE */`, map: null }),
}

/** dist/esm/index.d.ts, so a bundler's TypeScript finds the declarations (made by tsconfig.build.json) beside the JS. */
const esmTypes = {
  name: 'svc-esm-types',
  generateBundle() {
    this.emitFile({ type: 'asset', fileName: 'index.d.ts', source: "// Declarations: dist/types (npm run build:types).\nexport * from '../types/sdk/esm.js'\n" })
  },
}

export default [
  {
    input: 'sdk/index.ts',
    output: {
      file: 'dist/javascript/v2.2/svc.min.js',
      format: 'iife',
      sourcemap: true,
      // The map names sources relative to the repo, not this machine's paths.
      sourcemapPathTransform: (p) => p.replace(/^(\.\.\/)+/, ''),
    },
    // Lit's production build (no dev-mode warnings), the browser variants of anything that has one.
    plugins: [browserOnly(), nodeResolve({ browser: true, exportConditions: ['browser', 'production'] }), minifyTemplates(), tsPlugin(true), licenseNotice],
  },
  {
    input: 'sdk/esm.ts',
    output: { file: 'dist/esm/index.js', format: 'es', sourcemap: true, sourcemapPathTransform: (p) => p.replace(/^(\.\.\/)+/, '') },
    external: (id) => id === 'lit' || id.startsWith('lit/') || id.startsWith('@lit/'),
    plugins: [browserOnly(), nodeResolve({ browser: true }), minifyTemplates(), tsPlugin(false), esmTypes],
  },
]
