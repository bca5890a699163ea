/**
 * Stores on the test runner's PostgreSQL (DATABASE_URL_PG), each in a schema of its own named for this run,
 * so runs and files sharing the database never see each other's rows. `drop()` removes every schema made.
 */
import pg from 'pg'
import { PostgresStore } from '../../server/store/postgres.ts'

export interface PgSchemas {
  /** A new, empty schema. */
  fresh(): Promise<string>
  /** A store on `schema` (not migrated); `options` are more server settings (`-c name=value`). */
  store(schema: string, opts?: { options?: string; onStatement?: (sql: string) => void }): PostgresStore
  /** The database, for what a test does outside any store. */
  readonly admin: pg.Pool
  drop(): Promise<void>
}

export function pgSchemas(url: string, prefix: string): PgSchemas {
  const admin = new pg.Pool({ connectionString: url, max: 2 })
  const run = `${prefix}_${process.pid}_${Date.now().toString(36)}`
  const made: string[] = []
  return {
    admin,
    async fresh() {
      const schema = `${run}_${made.length + 1}`
      made.push(schema)
      await admin.query(`CREATE SCHEMA ${schema}`)
      return schema
    },
    store: (schema, opts = {}) =>
      new PostgresStore(
        { connectionString: url, options: [`-c search_path=${schema}`, opts.options].filter(Boolean).join(' ') },
        opts.onStatement ? { onStatement: opts.onStatement } : {},
      ),
    async drop() {
      for (const schema of made) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await admin.end()
    },
  }
}
