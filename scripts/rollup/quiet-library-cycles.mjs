// The `onwarn` of rollup.config.mjs's sandbox builds; test: test/scripts/rollup/quiet-library-cycles.test.ts.

/**
 * typebox's schema engine is a ring of modules that import each other: harmless, and not ours to fix. Cycles
 * among our own modules still warn.
 * @param {import('rollup').RollupLog} w
 * @param {(w: import('rollup').RollupLog) => void} warn
 */
export function quietLibraryCycles(w, warn) {
  if (w.code === 'CIRCULAR_DEPENDENCY' && w.ids?.every((id) => id.includes('/node_modules/'))) return
  warn(w)
}
