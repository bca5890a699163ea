/** A throwaway PostgreSQL for a benchmark run (scripts/pg-throwaway.sh), or DATABASE_URL_PG when set. */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

const script = join(import.meta.dirname, '..', '..', 'scripts', 'pg-throwaway.sh')

export interface Pg {
  url: string
  stop(): void
}

/** null when PostgreSQL is neither given nor installed (the PostgreSQL figures are then skipped). */
export function startPg(): Pg | null {
  if (process.env.DATABASE_URL_PG) return { url: process.env.DATABASE_URL_PG, stop: () => {} }
  // fsync stays on: both stores sync the commits that queue work and leave the others to the next sync
  // (SQLite synchronous=NORMAL, PostgreSQL synchronous_commit=off), and the figures compare the two.
  const r = spawnSync('bash', [script], { encoding: 'utf8', env: { ...process.env, PG_FSYNC: 'on' } })
  if (r.status !== 0) {
    console.error(`PostgreSQL not started (${r.stderr.trim() || `exit ${r.status}`}); its figures are skipped`)
    return null
  }
  const vars = Object.fromEntries(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('=', 2) as [string, string]),
  )
  return {
    url: vars.DATABASE_URL_PG!,
    stop: () => {
      spawnSync('bash', [script, 'stop', vars.PG_DIR!])
    },
  }
}
