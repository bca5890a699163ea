// rollup plugin of rollup.config.mjs (svc-sandbox.min.js); test: test/scripts/rollup/sandbox-bundle.test.ts.
import { builtinModules } from 'node:module'
import { relative, sep } from 'node:path'
import { gzipSync } from 'node:zlib'

/**
 * Refuses Node built-ins and the server in the sandbox bundle (it runs in a page), and prints its size.
 * @param {{ root: string }} opts `root`: the repository, which the refused paths are relative to
 * @returns {import('rollup').Plugin}
 */
export function sandboxBundle({ root }) {
  const node = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)])
  return {
    name: 'svc-sandbox-bundle',
    resolveId(source) {
      if (node.has(source)) this.error(`${source} is a Node module and cannot be in the sandbox bundle`)
      return null
    },
    generateBundle(_, bundle) {
      for (const id of this.getModuleIds()) {
        const rel = relative(root, id).split(sep).join('/')
        if (/^(server|test)\//.test(rel) || /node_modules\/(fastify|pg|better-sqlite3|lit|@lit)\//.test(rel))
          this.error(`${rel} must not be in the sandbox bundle`)
      }
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue
        const raw = Buffer.byteLength(chunk.code)
        console.log(
          `${chunk.fileName}: ${(raw / 1000).toFixed(1)} KB raw, ${(gzipSync(chunk.code, { level: 9 }).length / 1000).toFixed(1)} KB gzip (no budget: loaded only in sandbox mode)`,
        )
      }
    },
  }
}
