/**
 * A request body as both hosts read it (server/plugins/validation.ts, mock-server/host.ts), so a body is
 * refused the same way by either: bytes that are not UTF-8, text that is not JSON, a `__proto__` key or a
 * `constructor.prototype` (secure-json-parse's rules, which Fastify applies), or nesting deeper or arrays and
 * objects wider than any request of the contract needs. Empty means no body.
 */
import { ProblemError } from './errors.ts'

/** No request of the contract nests deeper than 8; this leaves room and keeps every walk over a body shallow. */
export const MAX_JSON_DEPTH = 32
/**
 * No array or object of the contract holds more than a few hundred members (a PUT basket of 9 passengers ×
 * every product). Wider ones are refused here, before schema validation, whose error report walks the whole
 * value: a 240 KB body of 100,000 zeros cost 150–200 ms of CPU to refuse (found by test/attack/fuzz.test.ts).
 */
export const MAX_JSON_MEMBERS = 1000

const notJson = () =>
  new ProblemError('validation_error', 'The request body is not valid JSON.', [
    { path: '/', message: 'is not valid JSON' },
  ])

export function parseJsonBody(bytes: Uint8Array): unknown {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new ProblemError('validation_error', 'The request body is not valid UTF-8.', [
      { path: '/', message: 'is not valid UTF-8' },
    ])
  }
  if (text.trim() === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch {
    throw notJson()
  }
  // Level by level, not recursively: the check itself must not be what overflows.
  let level: unknown[] = [value]
  for (let depth = 1; level.length > 0; depth++) {
    const next: unknown[] = []
    for (const node of level) {
      if (!node || typeof node !== 'object') continue
      if (depth > MAX_JSON_DEPTH) {
        throw new ProblemError(
          'validation_error',
          `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`,
          [{ path: '/', message: `is nested more than ${MAX_JSON_DEPTH} levels deep` }],
        )
      }
      const members = Object.values(node)
      if (members.length > MAX_JSON_MEMBERS) {
        throw new ProblemError(
          'validation_error',
          `The request body has an array or object of more than ${MAX_JSON_MEMBERS} members.`,
          [{ path: '/', message: `has an array or object of more than ${MAX_JSON_MEMBERS} members` }],
        )
      }
      if (Object.hasOwn(node, '__proto__')) throw notJson()
      const ctor = (node as { constructor?: unknown }).constructor
      if (
        Object.hasOwn(node, 'constructor') &&
        ctor !== null &&
        typeof ctor === 'object' &&
        Object.hasOwn(ctor, 'prototype')
      )
        throw notJson()
      for (const v of members) if (v && typeof v === 'object') next.push(v)
    }
    level = next
  }
  return value
}
