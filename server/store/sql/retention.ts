/**
 * Retention's batches (RetentionStore.purge), written once for both SQL stores: what may go is
 * core/adapters/store-rules.ts `purgeable` (which the memory store runs), said here in SQL. Each batch
 * takes at most `batch` rows of one kind ($2), due before its cutoff ($1), and a store runs batches of a
 * kind until one comes back short, so no write lock is held for long and the API's writes interleave with
 * a long purge (server/store/sql/base.ts `purge`).
 *
 * Two shapes of batch:
 * - a delete: one statement in both dialects, its rows locked SKIP LOCKED on PostgreSQL so instances
 *   purging at once pass over each other's rows instead of waiting;
 * - a pick (trips, searches): the rows picked, then what goes with them. SQLite runs the pick and its writes
 *   one after the other in one IMMEDIATE transaction (`pick`, then each of `writes` with the picked keys as
 *   a list); PostgreSQL runs them as one statement of data-modifying CTEs (`composed`), no transaction left
 *   open between round trips.
 */
import type { PurgeCounts, PurgeCutoffs } from '../../../core/ports/records.ts'
import type { Dialect, Statement } from './dialect.ts'

/** What goes with the picked rows: `write` applied to the rows whose `column` is the `key` of a picked row. */
interface PickedWrite {
  /** The statement up to its WHERE clause. */
  readonly write: string
  readonly column: string
  readonly key: string
  /** Only picked rows where this boolean column of the pick holds. */
  readonly only?: string
  /** What the rows it changes count as, if anything. */
  readonly count?: keyof PurgeCounts
}

export type PurgeStep = { readonly cutoff: keyof PurgeCutoffs } & (
  | { readonly kind: 'delete'; readonly count: keyof PurgeCounts; readonly statement: Statement }
  | {
      readonly kind: 'pick'
      /** SQLite: the rows of the batch, then each write with their keys as list parameter $1. */
      readonly pick: Statement
      readonly writes: ReadonlyArray<PickedWrite & { readonly statement: Statement }>
      /** PostgreSQL: all of it as one statement, answering `picked` and a column per write (w0, w1, …). */
      readonly composed: Statement
    }
)

/** The batches of a purge, in the order they run: a trip that goes takes its searches, tokens and orders with it. */
export function retention(d: Dialect): PurgeStep[] {
  const pick = (
    name: string,
    cutoff: keyof PurgeCutoffs,
    select: string,
    lockOf: string | undefined,
    writes: PickedWrite[],
  ): PurgeStep => {
    const picked = `${select} LIMIT $2 ${d.lock(lockOf)}`
    const ctes = writes.map(
      (w, i) =>
        `w${i} AS (${w.write} WHERE ${w.column} IN (SELECT ${w.key} FROM p${w.only ? ` WHERE ${w.only}` : ''}) RETURNING 1)`,
    )
    const counts = writes.map((_, i) => `(SELECT count(*) FROM w${i}) AS w${i}`)
    return {
      kind: 'pick',
      cutoff,
      pick: d.statement(`${name}Pick`, picked),
      writes: writes.map((w, i) => ({
        ...w,
        statement: d.statement(`${name}${i}`, `${w.write} WHERE ${w.column} ${d.in(1)}`),
      })),
      composed: d.statement(
        name,
        `WITH p AS (${picked}), ${ctes.join(', ')} SELECT (SELECT count(*) FROM p) AS picked, ${counts.join(', ')}`,
      ),
    }
  }
  /** Rows of `table` matching `where` ($1 the cutoff), named by `key`. */
  const del = (
    name: string,
    cutoff: keyof PurgeCutoffs,
    table: string,
    key: string,
    where: string,
    count: keyof PurgeCounts,
  ): PurgeStep => ({
    kind: 'delete',
    cutoff,
    count,
    statement: d.statement(
      name,
      `DELETE FROM ${table} WHERE (${d.rowKey(key)}) IN (
        SELECT ${d.rowKey(key)} FROM ${table} WHERE ${where} LIMIT $2 ${d.lock()})`,
    ),
  })
  const byTrip = (table: string, count?: keyof PurgeCounts): PickedWrite => ({
    write: `DELETE FROM ${table}`,
    column: 'trip_id',
    key: 'trip_id',
    ...(count ? { count } : {}),
  })
  return [
    // purgeable.trip: open trips created before the cutoff, with their searches, tokens and orders (an open
    // trip has none: fulfilling one closes it; were there any, they would go with it).
    pick(
      'purgeTrips',
      'tripsBefore',
      'SELECT trip_id FROM trips WHERE created_at < $1::timestamptz AND open',
      undefined,
      [
        byTrip('searches', 'searches'),
        byTrip('refresh_tokens', 'refresh_tokens'),
        byTrip('orders'),
        // Its timeline: kept as long as the trip, not a day more.
        byTrip('trip_events'),
        byTrip('trips', 'trips'),
      ],
    ),
    // purgeable.search: old searches, unless the current search of an open trip; a trip whose current search
    // goes is left without one, at a new version, so every instance reads it again.
    pick(
      'purgeSearches',
      'searchesBefore',
      `SELECT s.search_id, s.trip_id, t.search_id = s.search_id AS current
      FROM searches s JOIN trips t ON t.trip_id = s.trip_id
      WHERE s.created_at < $1::timestamptz AND NOT (t.open AND t.search_id IS NOT DISTINCT FROM s.search_id)`,
      's',
      [
        { write: 'DELETE FROM searches', column: 'search_id', key: 'search_id', count: 'searches' },
        {
          write: 'UPDATE trips SET search_id = NULL, version = version + 1',
          column: 'trip_id',
          key: 'trip_id',
          only: 'current',
        },
      ],
    ),
    del('purgeSeatMaps', 'seatMapsBefore', 'seat_maps', 'key', 'used_at < $1::timestamptz', 'seat_maps'),
    del(
      'purgeTokens',
      'tokensBefore',
      'refresh_tokens',
      'token_hash',
      'expires_at < $1::timestamptz',
      'refresh_tokens',
    ),
    // purgeable.consoleSession: an expired session is refused (core/application/console-sessions.ts) and goes.
    del(
      'purgeConsoleSessions',
      'tokensBefore',
      'console_sessions',
      'session_hash',
      'expires_at < $1::timestamptz',
      'console_sessions',
    ),
    del(
      'purgeIdempotency',
      'idempotencyBefore',
      'idempotency_keys',
      'scope, key',
      'created_at < $1::timestamptz',
      'idempotency_keys',
    ),
    del('purgeJobs', 'jobsBefore', 'jobs', 'job_id', `created_at < $1::timestamptz AND status <> 'pending'`, 'jobs'),
    // purgeable.delivery: ended deliveries only (webhook_deliveries_ended); one still being tried stays.
    del(
      'purgeWebhookDeliveries',
      'deliveriesBefore',
      'webhook_deliveries',
      'delivery_id',
      `created_at < $1::timestamptz AND state IN ('succeeded', 'given_up')`,
      'webhook_deliveries',
    ),
    del('purgeSigningKeys', 'signingKeysBefore', 'signing_keys', 'kid', 'retire_at < $1::timestamptz', 'signing_keys'),
  ]
}
