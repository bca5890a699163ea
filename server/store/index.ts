/**
 * Opens the Store a database URL names:
 *   sqlite:PATH                  a file, relative to the working directory or absolute; `sqlite::memory:` too
 *   postgres://… postgresql://…  PostgreSQL
 *   memory:                      in-process only, gone on exit
 */
import { resolve } from 'node:path'
import type { Store } from '../../core/ports/store.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { PostgresStore } from './postgres.ts'
import { SqliteStore } from './sqlite.ts'

export function openStore(databaseUrl: string, opts: { poolSize?: number } = {}): Store {
  if (databaseUrl === 'memory:') return new MemoryStore()
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) {
    return new PostgresStore({ connectionString: databaseUrl, ...(opts.poolSize ? { max: opts.poolSize } : {}) })
  }
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length)
    if (path === ':memory:') return new SqliteStore(path)
    if (path !== '') return new SqliteStore(resolve(path))
  }
  throw new Error(
    `unsupported database URL ${JSON.stringify(redact(databaseUrl))}: expected sqlite:PATH, sqlite::memory:, ` +
    'postgres://…, postgresql://… or memory:')
}

/** Keeps a password out of the error message and whatever logs it. */
function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@')
}
