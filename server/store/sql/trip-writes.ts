/**
 * A trip write, written once for both SQL stores: the trip's row (inserted at version 1, or replaced while
 * still at the version the write was made from) and what the write brings along (core/ports/records.ts
 * TripEffects: its search, seat maps, refresh token, jobs, orders and idempotent answer). Each table a
 * write touches is described once below (its columns with their PostgreSQL types, and what a key already
 * stored does), and from that description come:
 * - the statements SQLite runs one after the other in the write's IMMEDIATE transaction, one row each
 *   (server/store/sqlite.ts), which are also the inserts both stores make alone (enqueueJob,
 *   insertRefreshToken); the write's timeline entries ride in the trip's row instead (sqliteTripWrites),
 *   so a write that brings nothing else stays one statement with no transaction;
 * - the one statement PostgreSQL sends for the whole write (server/store/postgres.ts): the trip's own
 *   statement as CTE `t`, then a data-modifying CTE per table, its rows one JSON parameter read with
 *   json_to_recordset, written only when `t` wrote its row (a version conflict stores nothing). One round
 *   trip, atomic as a statement is (docs/performance.md; test/api/statements.test.ts counts it);
 * - PostgreSQL's UPDATE of several trips at once (updateTrips), from the same description of the row.
 * A new column is added to its table here, to its row mapper (rows.ts) and to a migration.
 */
import {
  MAX_SUPPLIER_CALLS,
  type OrderFeedItem,
  type TripEffects,
  type TripEventInput,
} from '../../../core/ports/records.ts'
import { iso } from '../../../core/adapters/store-times.ts'
import { SEAT_MAP_TOUCH_MS } from '../../../core/adapters/store-rules.ts'
import { json, postgres, type Dialect } from './dialect.ts'
import { checkedOrders } from './rows.ts'
import { nextTripSeq } from '../migrations.ts'

/** A column as a write names it, with its PostgreSQL type (json_to_recordset and VALUES lists need it). */
type Column = readonly [name: string, type: string]

/** A table rows go into: its columns, in its row mapper's order (rows.ts), and what a key already stored does. */
interface Table {
  readonly name: string
  readonly columns: readonly Column[]
  /** An ON CONFLICT clause (and RETURNING); absent, a key already stored fails the write, as a primary key does. */
  readonly conflict?: string
}

const names = (columns: readonly Column[]) => columns.map(([c]) => c).join(', ')
const tail = (t: Table) => (t.conflict ? ` ${t.conflict}` : '')

/** An INSERT of one row, the values its parameters $1, $2, … in column order. */
export const insertRow = (t: Table): string =>
  `INSERT INTO ${t.name} (${names(t.columns)}) VALUES (${t.columns.map((_, i) => `$${i + 1}`).join(', ')})${tail(t)}`

/**
 * PostgreSQL: an INSERT of the rows in JSON parameter `param` (objects keyed by column name), one per row
 * of `from`. `given`: columns whose value is an expression rather than a field of the JSON; `extra`:
 * fields of the JSON that are not columns.
 */
function insertRows(
  t: Table,
  param: number,
  opts: { from?: string; given?: Record<string, string>; extra?: readonly Column[] } = {},
): string {
  const given = opts.given ?? {}
  const read = [...(opts.extra ?? []), ...t.columns.filter(([c]) => !(c in given))]
  return `INSERT INTO ${t.name} (${names(t.columns)})
    SELECT ${t.columns.map(([c]) => given[c] ?? `x.${c}`).join(', ')}
    FROM ${opts.from ?? 't'}, json_to_recordset($${param}::json) AS x(${read.map(([c, type]) => `${c} ${type}`).join(', ')})${tail(t)}`
}

// ---------------------------------------------------------------- the tables

/**
 * The trip's row as a write gives it (rows.ts `tripRow`): what it is matched by (its id, the version the
 * write was made from, and its seller, which never changes, so it is matched and never written: its
 * foreign key is not checked again), then what it sets. `open` is core/adapters/store-rules.ts `isOpen`.
 */
const TRIP_MATCH: readonly Column[] = [
  ['trip_id', 'text'],
  ['version', 'integer'],
  ['seller_id', 'text'],
]
const TRIP_SET: readonly Column[] = [
  ['doc', 'json'],
  ['updated_at', 'timestamptz'],
  ['search_id', 'text'],
  ['open', 'boolean'],
]
const TRIP_ROW = [...TRIP_MATCH, ...TRIP_SET]
/** Inserted: the row at version 1, and when the trip was created (which no update changes). */
const TRIPS: Table = { name: 'trips', columns: [...TRIP_ROW, ['created_at', 'timestamptz']] }

/** Inserted, or completed: a stored `in_progress` search takes its answer once (store-rules.ts `searchWritable`). */
const SEARCHES: Table = {
  name: 'searches',
  columns: [
    ['search_id', 'text'],
    ['trip_id', 'text'],
    ['status', 'text'],
    ['created_at', 'timestamptz'],
    ['offers', 'json'],
  ],
  conflict: `ON CONFLICT (search_id) DO UPDATE SET status = excluded.status, offers = excluded.offers
    WHERE searches.status = 'in_progress'`,
}

/** Inserted once per key; a map in use gets its used_at refreshed at most hourly (store-rules.ts `seatMapTouched`). */
const seatMaps = (d: Dialect): Table => ({
  name: 'seat_maps',
  columns: [
    ['key', 'text'],
    ['doc', 'json'],
    ['used_at', 'timestamptz'],
  ],
  conflict: `ON CONFLICT (key) DO UPDATE SET used_at = excluded.used_at
    WHERE seat_maps.used_at < ${d.earlier('excluded.used_at', SEAT_MAP_TOUCH_MS)}`,
})

export const REFRESH_TOKENS: Table = {
  name: 'refresh_tokens',
  columns: [
    ['token_hash', 'text'],
    ['family_id', 'text'],
    ['trip_id', 'text'],
    ['seller_id', 'text'],
    ['expires_at', 'timestamptz'],
    ['used_at', 'timestamptz'],
    ['revoked_at', 'timestamptz'],
  ],
}

export const JOBS: Table = {
  name: 'jobs',
  columns: [
    ['job_id', 'text'],
    ['kind', 'text'],
    ['payload', 'jsonb'],
    ['run_at', 'timestamptz'],
    ['attempts', 'integer'],
    ['max_attempts', 'integer'],
    ['locked_until', 'timestamptz'],
    ['last_error', 'text'],
    ['status', 'text'],
    ['created_at', 'timestamptz'],
    ['lane', 'text'],
  ],
}

/**
 * The orders feed (core/domain/order-feed.ts): a write that moves n orders moves its seller's counter on
 * by n, and its orders take the numbers up to the counter's new value, in the order given. The counter's
 * row stays locked (SQLite: the one write lock) until the write commits, so numbers follow commit order.
 */
const ORDER_FEEDS: Table = {
  name: 'order_feeds',
  columns: [
    ['seller_id', 'text'],
    ['seq', 'bigint'],
  ],
  conflict: 'ON CONFLICT (seller_id) DO UPDATE SET seq = order_feeds.seq + excluded.seq RETURNING seq',
}
/** An order as the feed shows it (doc), with what the feed filters and pages by; moved again, it takes its new number. */
const ORDERS: Table = {
  name: 'orders',
  columns: [
    ['order_id', 'text'],
    ['seller_id', 'text'],
    ['trip_id', 'text'],
    ['seq', 'bigint'],
    ['status', 'text'],
    ['updated_at', 'timestamptz'],
    ['doc', 'json'],
  ],
  conflict: `ON CONFLICT (order_id) DO UPDATE SET seq = excluded.seq, status = excluded.status,
    updated_at = excluded.updated_at, doc = excluded.doc`,
}

/**
 * A trip's timeline (core/domain/trip-events.ts): entries appended, in the order given, from one JSON
 * parameter (eventRows), `seq` numbered by the database. Only ever inserted, and deleted with the trip.
 */
export const EVENT_COLUMNS: readonly Column[] = [
  ['trip_id', 'text'],
  ['seller_id', 'text'],
  ['at', 'timestamptz'],
  ['kind', 'text'],
  ['detail', 'json'],
]
/** The entries of JSON parameter `param`, from `from` (PostgreSQL: the write's CTE, so a refused write appends none). */
export function insertEvents(d: Dialect, param: number, from = '', on = '', where = ''): string {
  // SQLite numbers each trip's entries on from its last (migrations.ts nextTripSeq); PostgreSQL's identity does.
  const seq =
    d.name === 'sqlite'
      ? {
          name: 'seq, ',
          value: `${nextTripSeq('x.trip_id')} + row_number() OVER (PARTITION BY x.trip_id ORDER BY x.i), `,
        }
      : { name: '', value: '' }
  return `INSERT INTO trip_events (${seq.name}${names(EVENT_COLUMNS)})
    SELECT ${seq.value}${EVENT_COLUMNS.map(([c]) => `x.${c}`).join(', ')}
    FROM ${from}${d.jsonRows(param, EVENT_COLUMNS)}${on}${where} ORDER BY x.i`
}

/**
 * The trip's supplier calls but the latest `keep` (store-rules.ts keptEvents), `trip` its id: the newest
 * older call to go is the one `keep` places below the newest.
 */
const trimCalls = (trip: string, keep: string): string =>
  `DELETE FROM trip_events WHERE trip_id = ${trip} AND kind = 'supplier_call' AND seq <= (
    SELECT seq FROM trip_events WHERE trip_id = ${trip} AND kind = 'supplier_call' ORDER BY seq DESC LIMIT 1 OFFSET ${keep})`

/** A write's entries as insertEvents reads them: times canonical (SQLite compares them as text), each with its place. */
export const eventRows = (events: readonly TripEventInput[] = []): string =>
  json(events.map((e, i) => ({ ...e, at: iso(e.at), i })))

/**
 * SQLite: a write's entries as the trip's row carries them to migration 15's triggers (`pending_events`),
 * the trip's id and seller being the row's own; `keep` (how many of its supplier calls stay, the new ones
 * in) only when it brings calls, so a write without calls deletes nothing.
 */
export function pendingEvents(events: readonly TripEventInput[]): string {
  const calls = events.some((e) => e.kind === 'supplier_call')
  return json({
    events: events.map((e) => ({ at: iso(e.at), kind: e.kind, detail: e.detail })),
    ...(calls ? { keep: MAX_SUPPLIER_CALLS } : {}),
  })
}

/** How many of a trip's older supplier calls stay when `events` are appended: null when it brings none (nothing goes). */
export function callsKept(events: readonly TripEventInput[] = []): number | null {
  const calls = events.filter((e) => e.kind === 'supplier_call').length
  return calls === 0 ? null : Math.max(0, MAX_SUPPLIER_CALLS - calls)
}

/**
 * An Idempotency-Key reservation its owner still holds without a response (store-rules.ts `heldBy`): `row`
 * qualifies the table's columns, the others are the key's scope, key and owner.
 */
export const held = (row: string, scope: string, key: string, owner: string): string =>
  `${row}scope = ${scope} AND ${row}key = ${key} AND ${row}owner = ${owner} AND ${row}response IS NULL`

// ---------------------------------------------------------------- the statements

/** The trip's row matched (its id, the version written from, its seller) and set, as updateTrip's parameters. */
const tripMatch = TRIP_MATCH.map(([c], i) => `${c} = $${i + 1}`).join(' AND ')
const tripSet = TRIP_SET.map(([c], i) => `${c} = $${TRIP_MATCH.length + i + 1}`).join(', ')

/**
 * The statements of a trip write that both stores run as they are (SQLite every piece; PostgreSQL a plain
 * write alone). The refresh token's and the jobs' inserts are statements.ts `insertRefreshToken` and
 * `insertJob`, and the idempotent answer its `completeIdempotency`, which the stores also run alone.
 */
export function tripWrites(d: Dialect) {
  const s = (name: string, text: string) => d.statement(name, text)
  return {
    /** The trip at version 1 (rows.ts `tripRow`, then created_at). */
    insertTrip: s('insertTrip', insertRow(TRIPS)),
    /** The trip replaced if still at the version given (rows.ts `tripRow`): one row changed, or none on a conflict. */
    updateTrip: s('updateTrip', `UPDATE trips SET ${tripSet}, version = version + 1 WHERE ${tripMatch}`),
    search: s('insertSearch', insertRow(SEARCHES)),
    seatMap: s('insertSeatMap', insertRow(seatMaps(d))),
    /** The seller's counter moved on by $2 orders: its new value (`seq`). */
    orderCounter: s('moveOrderCounter', insertRow(ORDER_FEEDS)),
    order: s('upsertOrder', insertRow(ORDERS)),
    /** A write's timeline entries ($1, eventRows). */
    events: s('insertEvents', insertEvents(d, 1)),
    /** SQLite, after the write's entries: the trip's ($1) supplier calls but its latest $2. */
    trimCalls: s('trimCalls', trimCalls('$1', '$2')),
  }
}
export type TripWrites = ReturnType<typeof tripWrites>

/**
 * SQLite's trip writes that bring timeline entries: insertTrip's and updateTrip's with `pending_events` (the
 * last parameter, pendingEvents) set too, which migration 15's triggers append to trip_events within the
 * statement. One statement from JavaScript, where an INSERT INTO trip_events beside it would need a
 * transaction around the two.
 */
export function sqliteTripWrites(d: Dialect) {
  const s = (name: string, text: string) => d.statement(name, text)
  return {
    insertTripEvents: s(
      'insertTripEvents',
      `INSERT INTO trips (${names(TRIPS.columns)}, pending_events) VALUES (${[...TRIPS.columns, null].map((_, i) => `$${i + 1}`).join(', ')})`,
    ),
    updateTripEvents: s(
      'updateTripEvents',
      `UPDATE trips SET ${tripSet}, pending_events = $${TRIP_ROW.length + 1}, version = version + 1 WHERE ${tripMatch}`,
    ),
  }
}

// ---------------------------------------------------------------- PostgreSQL: a write and its effects as one statement

/**
 * The CTEs that store a trip write's effects, after the trip's own CTE `t` (which returns trip_id and
 * seller_id), parameters $e to $e+8 in effectParams' order ($e+8, `keep`, only with `trim`). The trip's row is locked first (`t`), the
 * seller's counter after (`n`), in every write, so two writes never wait on each other in a cycle.
 */
function effectsCtes(e: number, trim = true): string {
  const count = `$${e + 5}::bigint`
  // Older calls go before the new ones are in (a CTE sees the table as the statement found it): the latest
  // MAX_SUPPLIER_CALLS less the new ones stay, and none go when the write brings no call (keep null).
  const keep = `$${e + 8}::integer`
  return `
  s AS (${insertRows(SEARCHES, e)}),
  m AS (${insertRows(seatMaps(postgres), e + 1)}),
  r AS (${insertRows(REFRESH_TOKENS, e + 2)}),
  j AS (${insertRows(JOBS, e + 3)}),
  n AS (INSERT INTO ${ORDER_FEEDS.name} (${names(ORDER_FEEDS.columns)}) SELECT t.seller_id, ${count} FROM t WHERE ${count} > 0
    ${ORDER_FEEDS.conflict}),
  o AS (${insertRows(ORDERS, e + 4, {
    from: 't, n',
    given: { seller_id: 't.seller_id', trip_id: 't.trip_id', seq: `n.seq - ${count} + x.i` },
    extra: [['i', 'bigint']],
  })}),
  i AS (UPDATE idempotency_keys k SET response = x.response::jsonb
    FROM t, json_to_recordset($${e + 6}::json) AS x(scope text, key text, owner text, response json)
    WHERE ${held('k.', 'x.scope', 'x.key', 'x.owner')}),
  ev AS (${insertEvents(postgres, e + 7, 't, ')})${
    trim
      ? `,
  c AS (${trimCalls('(SELECT trip_id FROM t)', keep)} AND ${keep} IS NOT NULL)`
      : ''
  }`
}

/**
 * What a trip write brings along, as the parameters of effectsCtes (empty arrays when absent). Seat maps
 * come with the search that names them and take its time as their use. Each order carries its place `i`
 * (1, 2, …) among the write's orders: it is numbered the seller's counter, less their count, plus `i`.
 */
export function effectParams(tripId: string, e: TripEffects = {}, trim = true): Array<string | number | null> {
  const usedAt = e.search?.created_at ?? new Date().toISOString()
  const orders = checkedOrders(tripId, e)
  return [
    json(e.search ? [e.search] : []),
    json((e.seatMaps ?? []).map((m) => ({ key: m.key, doc: m, used_at: usedAt }))),
    json(e.refreshToken ? [e.refreshToken] : []),
    json(e.jobs ?? []),
    json(
      orders.map((o, i) => {
        const doc: OrderFeedItem = { ...o, updated_at: new Date(o.updated_at).toISOString() }
        return { i: i + 1, order_id: o.order_id, status: o.status, updated_at: doc.updated_at, doc }
      }),
    ),
    orders.length,
    json(e.idempotency ? [e.idempotency] : []),
    eventRows(e.events),
    // No `keep` without the trim that reads it (a new trip's: effectsCtes `trim`).
    ...(trim ? [callsKept(e.events) as number] : []),
  ]
}

/** PostgreSQL's trip writes with their effects, each one statement (prepared once per connection by name). */
export function postgresTripWrites(w: TripWrites) {
  return {
    /**
     * The trip at version 1 with what it brings along ($1…$8 as insertTrip's, then effectParams without
     * `keep`): a new trip has no older supplier calls to trim, so no DELETE of them is planned or run.
     */
    insertTripWith: {
      name: 'insertTripWith',
      text: `WITH t AS (${w.insertTrip.text} RETURNING trip_id, seller_id),${effectsCtes(TRIPS.columns.length + 1, false)}
      SELECT 1`,
    },
    /** The trip replaced with what it brings along ($1…$7 as updateTrip's, then effectParams): its version, or no row. */
    updateTripWith: {
      name: 'updateTripWith',
      text: `WITH t AS (${w.updateTrip.text} RETURNING trip_id, seller_id, version),${effectsCtes(TRIP_ROW.length + 1)}
      SELECT version FROM t`,
    },
    /**
     * A plain write with its timeline entries ($1…$7 as updateTrip's, $8 eventRows): one statement still,
     * the entries appended only when the trip's row was written. Its version, or no row.
     */
    updateTripEvents: {
      name: 'updateTripEvents',
      // `t` returns the version alone: the entries carry their trip's id, and `FROM t` only gates them.
      text: `WITH t AS (${w.updateTrip.text} RETURNING version),
      ev AS (${insertEvents(postgres, TRIP_ROW.length + 1, 't, ')})
      SELECT version FROM t`,
    },
    /**
     * updateTripEvents with one entry, the common case (a basket change): its at, kind and detail as
     * parameters $8…$10, the trip's id and seller from the row written, so no JSON array is expanded or sorted.
     */
    updateTripEvent: {
      name: 'updateTripEvent',
      text: `WITH t AS (${w.updateTrip.text} RETURNING trip_id, seller_id, version),
      ev AS (INSERT INTO trip_events (${names(EVENT_COLUMNS)})
        SELECT t.trip_id, t.seller_id, $${TRIP_ROW.length + 1}::timestamptz, $${TRIP_ROW.length + 2}, $${TRIP_ROW.length + 3}::json FROM t)
      SELECT version FROM t`,
    },
    /** A search that changes no trip, with its seat maps ($1 the trip, then effectParams): `found` 0 without the trip. */
    putSearch: {
      name: 'putSearch',
      text: `WITH t AS (SELECT trip_id, seller_id FROM trips WHERE trip_id = $1),${effectsCtes(2)}
      SELECT (SELECT count(*) FROM t) AS found`,
    },
  }
}

/**
 * PostgreSQL: one UPDATE of `rows` trips, each conditional on its own version, as updateTrip's rule (rows.ts
 * `tripRow` each, one after the other). The rows are a VALUES list, each document a parameter of its own:
 * one JSON parameter holding them all cost the database ~50 µs a document in json_to_recordset, and a
 * json[] parameter made pg escape every quote of every document (7 % of a PUT's time under load).
 */
export function updateTripsText(rows: number): string {
  const values = Array.from(
    { length: rows },
    (_, r) => `(${TRIP_ROW.map(([, type], c) => `$${r * TRIP_ROW.length + c + 1}::${type}`).join(', ')})`,
  )
  // The writes' timeline entries are the last parameter (eventRows), appended for the rows written only.
  return `WITH w AS (UPDATE trips t SET ${TRIP_SET.map(([c]) => `${c} = u.${c}`).join(', ')}, version = t.version + 1
    FROM (VALUES ${values.join(', ')}) AS u (${names(TRIP_ROW)})
    WHERE ${TRIP_MATCH.map(([c]) => `t.${c} = u.${c}`).join(' AND ')}
    RETURNING t.trip_id, t.version),
  ev AS (${insertEvents(postgres, rows * TRIP_ROW.length + 1, 'w JOIN ', ' ON x.trip_id = w.trip_id')})
  SELECT trip_id, version FROM w`
}
