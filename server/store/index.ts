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

/** `onStatement`: told each SQL statement the store runs (a round trip on PostgreSQL); the bench counts them. */
export function openStore(
  databaseUrl: string,
  opts: { poolSize?: number; onStatement?: (sql: string) => void } = {},
): Store {
  if (databaseUrl === 'memory:') return new MemoryStore()
  const counted = { onStatement: opts.onStatement }
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) {
    return new PostgresStore(
      { connectionString: databaseUrl, ...(opts.poolSize ? { max: opts.poolSize } : {}) },
      counted,
    )
  }
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length)
    if (path === ':memory:') return new SqliteStore(path, counted)
    // A service's file checkpoints its WAL on a thread of its own, off the requests' event loop.
    if (path !== '') return new SqliteStore(resolve(path), { ...counted, checkpointThread: {} })
  }
  throw new Error(
    `unsupported database URL ${JSON.stringify(redact(databaseUrl))}: expected sqlite:PATH, sqlite::memory:, ` +
      'postgres://…, postgresql://… or memory:',
  )
}

/** Keeps a password out of the error message and whatever logs it. */
function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@')
}
