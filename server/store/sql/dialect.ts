/**
 * What differs between the two SQL stores in the statements they share (server/store/sql/statements.ts):
 * placeholders, lists, and how times, JSON and booleans are written and read. A shared statement is
 * written once in PostgreSQL's form ($n placeholders, ::type casts where PostgreSQL needs the type) and
 * compiled for SQLite once, when the store is built: `?` placeholders in the order they appear, no casts
 * (so `::` appears in a shared statement only as a cast).
 *
 * Column types (server/store/migrations.ts): SQLite keeps times as canonical ISO text and JSON as text,
 * booleans as 0/1; PostgreSQL has timestamptz, json/jsonb (pg parses both when reading) and boolean.
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
}

/** A JSON parameter: always a string (pg would send a JS array as a PostgreSQL array, not as JSON). */
export const json = (value: unknown): string => JSON.stringify(value)
