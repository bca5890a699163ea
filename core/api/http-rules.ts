/**
 * What both hosts answer before an operation runs, so the server and the sandbox refuse a request in the
 * same words: the limits the server's Fastify options set, and the answer for a path no route takes.
 */
import { ProblemError } from '../shared/errors.ts'

/** Largest request body (the server's default `bodyLimit`). Trip payloads are a few KiB. */
export const BODY_LIMIT = 256 * 1024
/** Path parameters longer than this never reach a route (the router's `maxParamLength`). Ids are up to 128. */
export const MAX_PARAM_LENGTH = 256

export const paramTooLong = () =>
  new ProblemError('validation_error', `A path segment is longer than ${MAX_PARAM_LENGTH} characters.`)

/**
 * A path no route takes: 405 with the methods it is known under (for the `Allow` header), else 404. `allowed`
 * are the methods of the routes whose pattern matches the path.
 */
export function noRoute(
  method: string,
  rawPath: string,
  allowed: (path: string) => Iterable<string>,
): { problem: ProblemError; allow?: string } {
  const path = rawPath.slice(0, 300)
  const methods = new Set(allowed(path))
  methods.delete('OPTIONS')
  if (methods.size > 0 && !methods.has(method)) {
    return {
      problem: new ProblemError('method_not_allowed', `${method} is not allowed on ${path}.`),
      allow: [...methods].sort().join(', '),
    }
  }
  return { problem: new ProblemError('not_found', `No resource at ${method} ${path}.`) }
}
