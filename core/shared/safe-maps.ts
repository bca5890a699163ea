/**
 * Maps keyed by outside input (passenger ids, basket item ids from a path, product ids from a body) must
 * not reach an object's built-in properties: `basket['__proto__']` is Object.prototype, and an assignment
 * to it replaces a prototype. Lookups go through `own`; maps built from such keys start from `table()`.
 */

/** The value stored under `key` itself, never one inherited from Object.prototype. */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined
}

/** An empty map with no prototype: any string is an ordinary key in it, `__proto__` included. */
export function table<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>
}
