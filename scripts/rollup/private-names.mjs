// rollup plugin of rollup.config.mjs; test: test/scripts/rollup/private-names.test.ts.
import { transform } from 'esbuild'

/**
 * esbuild's renaming of the identifiers, before terser's: terser names each private member (`#host`) once
 * for the whole bundle, so they run to two letters and differ from class to class; esbuild names them
 * class by class, most used first, and the same few short names repeat (about 130 B less gzip). Terser's
 * own renaming after it keeps those names.
 * @returns {import('rollup').Plugin}
 */
export function privateNames() {
  return {
    name: 'svc-private-names',
    renderChunk: async (code) => {
      const { code: out, map } = await transform(code, { minifyIdentifiers: true, target: 'es2022', sourcemap: true })
      return { code: out, map }
    },
  }
}
