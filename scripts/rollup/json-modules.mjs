// rollup plugin of rollup.config.mjs; test: test/scripts/rollup/json-modules.test.ts.

/**
 * JSON modules (core/domain/airports.ts imports its table `with { type: 'json' }`), parsed by JSON.parse: faster than a literal.
 * @returns {import('rollup').Plugin}
 */
export function jsonModules() {
  return {
    name: 'svc-json',
    transform(code, id) {
      if (!id.endsWith('.json')) return null
      return {
        code: `export default JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(code)))})`,
        map: { mappings: '' },
      }
    },
  }
}
