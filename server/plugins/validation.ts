/**
 * Request validation and response serialization for routes with schemas.
 *
 * The v2.2 routes are validated once, by the core's request pipeline (core/api/dispatch.ts), and give their
 * schemas to Fastify for the OpenAPI document only. Any other route that validates goes through
 * core/shared/validate.ts here rather than Fastify's Ajv, so a bad request is worded as the API words it.
 * Response schemas exist for the OpenAPI document only: serializing with them would silently drop any
 * field a schema forgot, so responses are plain JSON.stringify.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { TSchema } from 'typebox'
import { validate } from '../../core/shared/validate.ts'
import { ProblemError } from '../../core/shared/errors.ts'
import { parseJsonBody } from '../../core/shared/json-body.ts'

const PART_NAMES: Record<string, string> = {
  body: 'request body',
  params: 'request path',
  querystring: 'query string',
  headers: 'request headers',
}

export const validationPlugin = fp(
  async (app: FastifyInstance) => {
    app.setValidatorCompiler(({ schema, httpPart }) => {
      const what = PART_NAMES[httpPart ?? 'body'] ?? 'request'
      // Fastify treats a thrown error as a 500, so failures are returned as `{ error }` instead.
      return (data: unknown) => {
        try {
          return { value: validate(schema as TSchema, data, what) }
        } catch (e) {
          if (e instanceof ProblemError) return { error: e }
          throw e
        }
      }
    })

    app.setSerializerCompiler(() => (data: unknown) => JSON.stringify(data))

    // JSON only: Fastify's built-in text/plain parser would hand handlers a string where they expect an object.
    // The body is read as bytes and parsed by the core (core/shared/json-body.ts), as the sandbox does: an empty body
    // sent with `Content-Type: application/json` (fetch clients often set it on every call) means "no body";
    // bytes that are not UTF-8 are refused, not silently replaced with U+FFFD.
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
      try {
        done(null, parseJsonBody(body as Buffer))
      } catch (e) {
        done(e as Error, undefined)
      }
    })
  },
  { name: 'svc-validation', fastify: '5.x' },
)
