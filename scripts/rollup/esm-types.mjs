// rollup plugin of rollup.config.mjs (the npm package's ESM build); test: test/scripts/rollup/esm-types.test.ts.
import { rmSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The .d.ts beside each entry of the package (the declarations themselves come from tsconfig.build.json
 * into its types/), so TypeScript finds them from the package's `exports` and from a plain path alike.
 * @param {{ packageDir: string, elements: Record<string, string> }} opts `packageDir`: the package's folder
 *   (absolute); `elements`: tag → registration module (elementEntries)
 * @returns {import('rollup').Plugin}
 */
export function esmTypes({ packageDir, elements }) {
  return {
    name: 'svc-esm-types',
    // Chunk names carry a hash: without this, every build would leave its old chunks behind for npm pack.
    buildStart() {
      for (const dir of ['chunks', 'elements']) rmSync(join(packageDir, dir), { recursive: true, force: true })
    },
    generateBundle() {
      const dts = (fileName, target) =>
        this.emitFile({
          type: 'asset',
          fileName,
          source: `// Declarations: types/ (npm run build:types).\nexport * from '${target}'\n`,
        })
      dts('index.d.ts', './types/sdk/esm.js')
      dts('elements/index.d.ts', '../types/components/index.js')
      for (const [tag, src] of Object.entries(elements))
        dts(`elements/${tag}.d.ts`, `../types/${src.replace(/\.ts$/, '.js')}`)
    },
  }
}
