/**
 * What the tests of our rollup plugins (scripts/rollup/*.mjs) share: loading a plugin module, and a stand-in
 * for the context rollup calls a hook with (`this.error` throws, as rollup's does; `this.warn` and
 * `this.emitFile` are recorded).
 */
import type { Plugin } from 'rollup'

/**
 * A module of scripts/rollup/, typed by the test. The modules are plain JavaScript, as rollup.config.mjs
 * loads them (tsconfig.json checks no JavaScript), so they are imported by URL.
 */
export const load = <T>(file: string): Promise<T> =>
  import(new URL(`../../../scripts/rollup/${file}`, import.meta.url).href) as Promise<T>

export interface FakeContext {
  warnings: string[]
  emitted: Array<{ type: string; fileName: string; source: string }>
  error(message: string): never
  warn(message: string): void
  emitFile(file: { type: string; fileName: string; source: string }): string
  getModuleIds(): IterableIterator<string>
  getModuleInfo(id: string): { importers: string[] } | null
}

/** The context of a hook: the bundle's module ids, and each one's importers. */
export function context(modules: Record<string, string[]> = {}): FakeContext {
  const ctx: FakeContext = {
    warnings: [],
    emitted: [],
    error(message) {
      throw new Error(message)
    },
    warn(message) {
      ctx.warnings.push(message)
    },
    emitFile(file) {
      ctx.emitted.push(file)
      return file.fileName
    },
    getModuleIds: () => Object.keys(modules)[Symbol.iterator](),
    getModuleInfo: (id) => (id in modules ? { importers: modules[id]! } : null),
  }
  return ctx
}

/** A hook of a plugin as a function called on `ctx` (rollup's types allow `{ handler }` objects, which ours never are). */
export function hook(plugin: Plugin, name: keyof Plugin, ctx: FakeContext = context()) {
  const h = plugin[name]
  if (typeof h !== 'function') throw new Error(`${plugin.name} has no ${String(name)} hook`)
  return (...args: any[]): any => (h as (...a: any[]) => any).apply(ctx, args)
}
