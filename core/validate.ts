/**
 * Request validation shared by the server and the sandbox: TypeBox compiles each schema once, and every
 * failure becomes a `validation_error` problem listing each bad field as a JSON pointer with a message.
 */
import type { TSchema, Static } from 'typebox'
import { Compile } from 'typebox/compile'
import { ProblemError, type FieldError } from './errors.ts'

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

export function fieldErrors(schema: TSchema, value: unknown): FieldError[] {
  const out: FieldError[] = []
  const seen = new Set<string>()
  for (const e of checker(schema).Errors(value)) {
    // `additionalProperties: false` reports both the parent and each child as "schema is false"; keep the clearer one.
    if (e.keyword === 'boolean') continue
    const path = e.keyword === 'additionalProperties'
      ? `${e.instancePath}/${String((e.params as { additionalProperties?: string[] }).additionalProperties?.[0] ?? '')}`
      : e.instancePath || '/'
    const message = e.keyword === 'additionalProperties' ? 'is not a known field' : e.message
    const k = `${path}\u0000${message}`
    if (!seen.has(k)) { seen.add(k); out.push({ path, message }) }
  }
  return out
}

/** Returns `value` typed by `schema`, or throws a `validation_error` naming every bad field. */
export function validate<S extends TSchema>(schema: S, value: unknown, what = 'request body'): Static<S> {
  if (checker(schema).Check(value)) return value as Static<S>
  const errors = fieldErrors(schema, value)
  const first = errors[0]
  throw new ProblemError('validation_error',
    first ? `The ${what} is invalid: ${first.path} ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}.` : `The ${what} is invalid.`,
    errors)
}
