/**
 * Request validation shared by the server and the sandbox: TypeBox compiles each schema once, and every
 * failure becomes a `validation_error` problem listing each bad field as a JSON pointer with a message.
 */
import type { TSchema, Static } from 'typebox'
import { Compile } from 'typebox/compile'
import { Settings } from 'typebox/system'
import { ProblemError, type FieldError } from './errors.ts'
import { UNKNOWN_FIELD_MESSAGES } from '../schemas/common.ts'

/**
 * Every bad field of a request is named at once (a seller learns all that is wrong in one round trip).
 * TypeBox stops after 8 raw errors by default, and a union's branches each count: a fulfill with eight
 * mistakes listed one. A request is at most 256 KiB with bounded arrays, so its errors are bounded too.
 */
Settings.Set({ maxErrors: 1000 })

type Checker = ReturnType<typeof Compile>
const compiled = new WeakMap<TSchema, Checker>()

function checker(schema: TSchema): Checker {
  let c = compiled.get(schema)
  if (!c) {
    c = Compile(schema)
    compiled.set(schema, c)
  }
  return c
}

/** What each string format means, in the words of the API's errors. */
const FORMATS: Record<string, string> = {
  date: 'must be a calendar date, YYYY-MM-DD',
  'date-time': 'must be a date and time, ISO 8601',
  uuid: 'must be a UUID',
  email: 'must be an e-mail address',
  uri: 'must be a URL',
}

/**
 * The schema an error's `schemaPath` names (`#/properties/tickets/items/…`), where a field's own words are
 * kept: `x-message` (what a value of its pattern must be) and `x-missing` (what to do when it is left out).
 */
function nodeAt(root: TSchema, schemaPath: string): Record<string, unknown> | undefined {
  let node: unknown = root
  for (const escaped of schemaPath.replace(/^#\/?/, '').split('/')) {
    if (!escaped) continue
    const part = escaped.replace(/~1/g, '/').replace(/~0/g, '~')
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined
    node = (node as Record<string, unknown>)[part]
  }
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : undefined
}
const words = (node: Record<string, unknown> | undefined, key: 'x-message' | 'x-missing') => {
  const v = node?.[key]
  return typeof v === 'string' ? v : undefined
}

interface RawError {
  keyword: string
  schemaPath: string
  instancePath: string
  params: Record<string, unknown>
  message: string
}

/**
 * Turns TypeBox's errors into one readable line per bad field: a missing property is reported at its own
 * path, and the branches of a union collapse into "must be one of ..." instead of one line per branch.
 */
export function fieldErrors(schema: TSchema, value: unknown): FieldError[] {
  const out: FieldError[] = []
  // A field whose pattern says in words what it must be ("a locale tag of the form xx-XX") is told only
  // that, not also its length: one line per bad field.
  const worded = new Set<string>()
  const lengths = new Set<FieldError>()
  const seen = new Set<string>()
  const push = (path: string, message: string) => {
    const k = `${path}\u0000${message}`
    if (seen.has(k)) return undefined
    seen.add(k)
    const error = { path: path || '/', message }
    out.push(error)
    return error
  }
  // Branch-level failures of one union at one place, gathered so they read as one line. Grouped by schema
  // path rather than by TypeBox's closing `anyOf` error, which its capped error list may leave out.
  const unions = new Map<string, { path: string; consts: string[]; types: string[]; other: string[] }>()
  for (const e of checker(schema).Errors(value) as Iterable<RawError>) {
    const branch = /^(.*)\/anyOf\/\d+$/.exec(e.schemaPath)
    if (branch) {
      const key = `${branch[1]}\u0000${e.instancePath}`
      const u = unions.get(key) ?? { path: e.instancePath, consts: [], types: [], other: [] }
      unions.set(key, u)
      if (e.keyword === 'const') u.consts.push(JSON.stringify(e.params.allowedValue))
      else if (e.keyword === 'type') u.types.push(String(e.params.type))
      else u.other.push(e.message)
      continue
    }
    // `additionalProperties: false` also reports each extra child as "schema is false"; the parent's line says it better.
    if (e.keyword === 'boolean' || e.keyword === 'anyOf') continue
    if (e.keyword === 'required') {
      const properties = nodeAt(schema, e.schemaPath)?.properties as Record<string, Record<string, unknown>> | undefined
      for (const p of (e.params.requiredProperties as string[] | undefined) ?? []) {
        push(
          `${e.instancePath}/${p}`,
          words(properties && Object.hasOwn(properties, p) ? properties[p] : undefined, 'x-missing') ?? 'is required',
        )
      }
    } else if (e.keyword === 'additionalProperties') {
      const message = UNKNOWN_FIELD_MESSAGES.get(e.instancePath) ?? 'is not a known field'
      for (const p of (e.params.additionalProperties as string[] | undefined) ?? [])
        push(`${e.instancePath}/${p}`, message)
    } else if (e.keyword === 'const') {
      push(e.instancePath, `must be ${JSON.stringify(e.params.allowedValue)}`)
    } else if (e.keyword === 'format') {
      push(e.instancePath, FORMATS[String(e.params.format)] ?? e.message)
    } else if (e.keyword === 'pattern') {
      const said = words(nodeAt(schema, e.schemaPath), 'x-message')
      if (said) worded.add(e.instancePath || '/')
      push(e.instancePath, said ?? e.message)
    } else if (e.keyword === 'minLength' || e.keyword === 'maxLength') {
      const error = push(e.instancePath, e.message)
      if (error) lengths.add(error)
    } else {
      push(e.instancePath, e.message)
    }
  }
  for (const u of unions.values()) {
    if (u.consts.length && !u.types.length && !u.other.length) push(u.path, `must be one of ${u.consts.join(', ')}`)
    else if (u.types.length && !u.consts.length && !u.other.length) push(u.path, `must be ${u.types.join(' or ')}`)
    else
      push(
        u.path,
        [...u.consts.map((c) => `must be ${c}`), ...u.types.map((t) => `must be ${t}`), ...u.other].join('; or '),
      )
  }
  return out.filter((e) => !(lengths.has(e) && worded.has(e.path)))
}

/** Returns `value` typed by `schema`, or throws a `validation_error` naming every bad field. */
export function validate<S extends TSchema>(schema: S, value: unknown, what = 'request body'): Static<S> {
  if (checker(schema).Check(value)) return value as Static<S>
  throw invalid(what, fieldErrors(schema, value))
}

/** Whether `value` is what `schema` describes. */
export function accepts(schema: TSchema, value: unknown): boolean {
  return checker(schema).Check(value)
}

/** The `validation_error` of `what` (the request body…), naming each of `errors`, the first in its detail. */
export function invalid(what: string, errors: FieldError[]): ProblemError {
  const first = errors[0]
  return new ProblemError(
    'validation_error',
    first
      ? `The ${what} is invalid: ${first.path} ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}.`
      : `The ${what} is invalid.`,
    errors,
  )
}
