/**
 * The SQL stores a suite of the API runs on: SQLite in memory, and PostgreSQL when the runner gives one
 * (DATABASE_URL_PG), each store made fresh and migrated by its factory, in a schema of its own that is
 * dropped after the file.
 */
import { after } from 'node:test'
import type { Store } from '../../core/ports/store.ts'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { pgSchemas } from './pg-schemas.ts'

export function sqlStores(schemaPrefix: string): Array<[string, () => Promise<Store>]> {
  const stores: Array<[string, () => Promise<Store>]> = [
    [
      'SQLite',
      async () => {
        const store = new SqliteStore(':memory:')
        await store.migrate()
        return store
      },
    ],
  ]
  const url = process.env.DATABASE_URL_PG
  const schemas = url ? pgSchemas(url, schemaPrefix) : undefined
  if (schemas) {
    stores.push([
      'PostgreSQL',
      async () => {
        const store = schemas.store(await schemas.fresh())
        await store.migrate()
        return store
      },
    ])
    after(() => schemas.drop())
  }
  return stores
}
