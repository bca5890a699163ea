// rollup plugin of rollup.config.mjs; test: test/scripts/rollup/shared-decorate-helper.test.ts.

/**
 * esbuild gives every module with decorators its own copy of the `__decorateClass` helper (a dozen in
 * the SDK); this makes them all import one. The elements decorate fields only (`@property`, `@state`:
 * components/internal/element.ts), so the one helper is esbuild's for fields alone, and the build fails on
 * any other decorator (of a class, a method, an accessor) rather than run it wrong. The helper's lines
 * become one import line and blank lines, so nothing after it moves and the module's source map stays right.
 * @returns {import('rollup').Plugin}
 */
export function sharedDecorateHelper() {
  const ID = '\0svc-decorate-class'
  const helper = /^var __decorateClass = \(decorators, target, key, kind\) => \{\n(?:.*\n)*?\};\n/m
  return {
    name: 'svc-shared-decorate-helper',
    resolveId: (source) => (source === ID ? ID : null),
    load: (id) =>
      id === ID
        ? [
            // A field's decorators, last first (kind 2: no descriptor, nothing to define).
            'export const __decorateClass = (decorators, target, key) => {',
            '  for (var i = decorators.length; i--; ) decorators[i](target, key)',
            '}',
          ].join('\n')
        : null,
    transform(code, id) {
      if (id === ID) return null
      const m = helper.exec(code)
      if (!m) return null
      const calls = code.match(/\b__decorateClass\(/g)?.length ?? 0
      const fields = code.match(/\], [\w$]+\.prototype, "[^"]+", 2\);/g)?.length ?? 0
      if (calls !== fields)
        this.error('a decorator of something other than a field (the shared __decorateClass handles fields only)')
      const lines = m[0].split('\n').length - 1
      return {
        code:
          code.slice(0, m.index) +
          `import { __decorateClass } from ${JSON.stringify(ID)};` +
          '\n'.repeat(lines) +
          code.slice(m.index + m[0].length),
        map: null,
      }
    },
  }
}
