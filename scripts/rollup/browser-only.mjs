// rollup plugin of rollup.config.mjs (svc.min.js and the npm package's ESM build); test: test/scripts/rollup/browser-only.test.ts.
import { builtinModules } from 'node:module'
import { relative, sep } from 'node:path'

/**
 * Fails the build when the browser bundle pulls in anything that must stay out of it: Node built-ins,
 * the server, the sandbox (mock-server, msw: loaded only on `sandbox: true`, from its own file), or
 * a database driver. Checked on module ids, so a comment mentioning one is no false alarm.
 * @param {{ root: string }} opts `root`: the repository, which the banned paths are relative to
 * @returns {import('rollup').Plugin}
 */
export function browserOnly({ root }) {
  const node = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)])
  const banned = [
    /^server\//,
    /^mock-server\//,
    /^test\//,
    /node_modules\/(msw|@mswjs|fastify|pg|better-sqlite3|typebox|jose)\//,
  ]
  return {
    name: 'svc-browser-only',
    resolveId(source) {
      if (node.has(source)) this.error(`${source} is a Node module and cannot be in the browser SDK`)
      return null
    },
    generateBundle() {
      for (const id of this.getModuleIds()) {
        const rel = relative(root, id).split(sep).join('/')
        if (banned.some((re) => re.test(rel)))
          this.error(
            `${rel} must not be in the browser SDK (imported from ${this.getModuleInfo(id)
              ?.importers.map((i) => relative(root, i))
              .join(', ')})`,
          )
      }
    },
  }
}
