/**
 * What differs between the two SQL stores in the statements they share (server/store/sql/statements.ts):
 * placeholders, lists, and how times, JSON and booleans are written and read. A shared statement is
 * written once in PostgreSQL's form ($n placeholders, ::type casts where PostgreSQL needs the type) and
 * compiled for SQLite once, when the store is built: `?` placeholders in the order they appear, no casts
 * (so `::` appears in a shared statement only as a cast).
 *
 * Column types (server/store/migrations.ts): SQLite keeps times as canonical ISO text and JSON as text,
 * booleans as 0/1; PostgreSQL has timestamptz, json/jsonb (pg parses both when reading) and boolean.
 * Beside those, the few fragments a statement or a migration written once takes from its dialect: row
 * locks, retention's row key, time arithmetic and column types.
 *
 * Why this layer and not a query builder (Kysely, the well-kept one of the field): the statements here are
 * constant text, built once when a store is made, so a request pays nothing to build or compile one; a
 * builder builds and compiles at every call (Kysely 0.28.19, measured here on an idle machine: 4.5 µs for
 * PUT basket's UPDATE, 26 µs for POST trip's statement with three of its seven CTEs, where the whole of a
 * PUT basket is ~170 µs of the service's CPU, docs/performance.md). Its drivers would also take what the
 * stores are built on: PostgreSQL's named statements (planned once per connection; Kysely's driver sends
 * unnamed ones, parsed and planned at every call) and SQLite's synchronous reads (its SQLite driver is
 * asynchronous and prepares the statement again at every call). And what differs between the dialects
 * here (a trip write with its effects: one statement of data-modifying CTEs on PostgreSQL, which SQLite
 * does not have, statements in one transaction on SQLite; SKIP LOCKED) is not what a builder abstracts:
 * it would be composed twice with one as well. So the shared layer, and no dependency:
 * ./{statements,trip-writes,retention}.ts write each statement once over this dialect, and a new query
 * is one entry there.
 */
import { iso, isoOrNull } from '../../../core/adapters/store-times.ts'

export type Row = Record<string, unknown>

/** A statement of one dialect: its name (PostgreSQL prepares it once per connection by name) and its text. */
export interface Statement {
  readonly name: string
  readonly text: string
  /**
   * SQLite only: which parameter ($1 = 0) each `?` takes, when that is not simply the parameters in order
   * (PostgreSQL names a parameter by number and may use it twice; SQLite's `?` is used once, in order).
   */
  readonly order?: readonly number[]
}

export interface Dialect {
  readonly name: 'sqlite' | 'postgres'
  /** A statement written with `$n` placeholders and PostgreSQL casts, for this dialect. */
  statement(name: string, text: string): Statement
  /** The parameters of a call as this dialect binds them. */
  args(statement: Statement, params: readonly unknown[]): readonly unknown[]
  /** `column ${d.in(n)}`: the column is one of the list passed as parameter n (written with `list`). */
  in(n: number): string
  list(values: readonly string[]): unknown
  /** A time parameter (SQLite: canonical text, which sorts; PostgreSQL: parsed by timestamptz). */
  time(time: string): unknown
  timeOrNull(time: string | null): unknown
  bool(value: boolean): unknown
  /** A time column read back, in canonical ISO form. */
  readTime(value: unknown): string
  readTimeOrNull(value: unknown): string | null
  /** A json/jsonb column read back (SQLite: text to parse; pg has parsed it). */
  readJson<T>(value: unknown): T
  readBool(value: unknown): boolean
  /**
   * How a statement that picks rows to change locks them: PostgreSQL `FOR UPDATE [OF table] SKIP LOCKED`,
   * so concurrent pickers pass over a row another one is taking instead of waiting for it; nothing on
   * SQLite, whose one writer holds the database's write lock from the start of each write statement.
   */
  lock(of?: string): string
  /** The column retention's batches name a row by: SQLite's rowid (every table has one), PostgreSQL's key columns. */
  rowKey(key: string): string
  /** A time `ms` before the time `expression` (a column or an `excluded.` value), to compare with another. */
  earlier(expression: string, ms: number): string
  /** A text field of a JSON document column (`doc->>'failure_reason'`), NULL where it is absent. */
  field(column: string, name: string): string
  /**
   * Whether the trip document `column` has a ticket whose record locator is the text `param` (the operator's
   * question, store-rules.ts tripMatches): walks the document's tickets, so it reads every row it is asked of.
   */
  hasRecordLocator(column: string, param: string): string
  /** The JSON array `column` with the one element of the JSON array `one` appended (an upsert's `excluded.` value). */
  appendOne(column: string, one: string): string
  /**
   * The rows of JSON parameter `param` (an array of objects keyed by column name) as a relation `x` with
   * those columns and `x.i`, each row's place in the array (what keeps their order when inserted): PostgreSQL
   * json_to_recordset (the objects carry `i`), SQLite json_each (its `key` is the place).
   */
  jsonRows(param: number, columns: ReadonlyArray<readonly [name: string, type: string]>): string
  /** Column types, for a migration written once (migrations.ts `writtenOnce`). */
  readonly type: ColumnTypes
}

/** A column's type in each dialect: SQLite's affinities (times as canonical ISO text), PostgreSQL's types. */
export interface ColumnTypes {
  readonly text: string
  readonly integer: string
  readonly bigint: string
  /** An instant: SQLite canonical ISO text (sorts as it should), PostgreSQL timestamptz. */
  readonly time: string
  /** A document read and written whole (PostgreSQL json: kept as text, never parsed by a write). */
  readonly doc: string
  /** JSON queried or compared inside (PostgreSQL jsonb). */
  readonly jsonb: string
  /** SQLite keeps 0 or 1 (a CHECK may say so), PostgreSQL boolean. */
  readonly bool: string
  /** A key the database numbers, ascending: SQLite's rowid, PostgreSQL an identity column. */
  readonly serialKey: string
}

/** SQLite (better-sqlite3). */
export const sqlite: Dialect = {
  name: 'sqlite',
  statement(name, text) {
    const order: number[] = []
    const compiled = text
      .replace(/\$(\d+)(::[a-z]+(\[\])?)?/g, (_, n: string) => {
        order.push(Number(n) - 1)
        return '?'
      })
      .replace(/::[a-z]+(\[\])?/g, '')
    const inOrder = order.every((n, i) => n === i)
    return inOrder ? { name, text: compiled } : { name, text: compiled, order }
  },
  args: (s, params) => (s.order ? s.order.map((i) => params[i]) : params),
  in: (n) => `IN (SELECT value FROM json_each($${n}))`,
  list: (values) => JSON.stringify(values),
  time: iso,
  timeOrNull: isoOrNull,
  bool: (value) => (value ? 1 : 0),
  readTime: (value) => value as string,
  readTimeOrNull: (value) => value as string | null,
  readJson: <T>(value: unknown) => JSON.parse(value as string) as T,
  readBool: (value) => value === 1,
  lock: () => '',
  rowKey: () => 'rowid',
  // Canonical ISO text again (strftime's %f is seconds with milliseconds), so it compares as text should.
  earlier: (expression, ms) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${expression}, '-${ms / 1000} seconds')`,
  field: (column, name) => `json_extract(${column}, '$.${name}')`,
  hasRecordLocator: (column, param) =>
    `EXISTS (SELECT 1 FROM json_each(${column}, '$.tickets') t WHERE json_extract(t.value, '$.access_details.record_locator') = ${param})`,
  appendOne: (column, one) => `json_insert(${column}, '$[#]', json(json_extract(${one}, '$[0]')))`,
  jsonRows: (param, columns) =>
    `(SELECT ${columns.map(([c]) => `json_extract(value, '$.${c}') AS ${c}`).join(', ')}, key AS i FROM json_each($${param})) AS x`,
  type: {
    text: 'TEXT',
    integer: 'INTEGER',
    bigint: 'INTEGER',
    time: 'TEXT',
    doc: 'TEXT',
    jsonb: 'TEXT',
    bool: 'INTEGER',
    serialKey: 'INTEGER PRIMARY KEY',
  },
}

/** PostgreSQL (pg): times go as given (timestamptz parses them) and come back as Dates. */
export const postgres: Dialect = {
  name: 'postgres',
  statement: (name, text) => ({ name, text }),
  args: (_, params) => params,
  in: (n) => `= ANY($${n}::text[])`,
  // A JS array goes as a PostgreSQL array (the JSON columns are always given a string: see `json`).
  list: (values) => values,
  time: (time) => time,
  timeOrNull: (time) => time,
  bool: (value) => value,
  readTime: (value) => (value as Date).toISOString(),
  readTimeOrNull: (value) => (value === null ? null : (value as Date).toISOString()),
  readJson: <T>(value: unknown) => value as T,
  readBool: (value) => value as boolean,
  lock: (of) => `FOR UPDATE${of ? ` OF ${of}` : ''} SKIP LOCKED`,
  rowKey: (key) => key,
  earlier: (expression, ms) => `(${expression} - interval '${ms} milliseconds')`,
  field: (column, name) => `(${column}->>'${name}')`,
  hasRecordLocator: (column, param) =>
    `EXISTS (SELECT 1 FROM json_array_elements(${column}->'tickets') t WHERE t->'access_details'->>'record_locator' = ${param})`,
  appendOne: (column, one) => `(${column}::jsonb || ${one}::jsonb)::json`,
  jsonRows: (param, columns) =>
    `json_to_recordset($${param}::json) AS x(${columns.map(([c, type]) => `${c} ${type}`).join(', ')}, i integer)`,
  type: {
    text: 'text',
    integer: 'integer',
    bigint: 'bigint',
    time: 'timestamptz',
    doc: 'json',
    jsonb: 'jsonb',
    bool: 'boolean',
    serialKey: 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
  },
}

/** A JSON parameter: always a string (pg would send a JS array as a PostgreSQL array, not as JSON). */
export const json = (value: unknown): string => JSON.stringify(value)
