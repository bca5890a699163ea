/**
 * The admin API's routes (./operations.ts) and its own OpenAPI document, at `/admin/v1/openapi.json`. Kept
 * out of the public document (`schema.hide`): a seller reads /v2.2/openapi.json and has nothing to do here.
 *
 * The same order as the public routes (server/routes/v2.2.ts): the operator key is checked before the body
 * is parsed, so an unauthenticated caller costs no parsing and learns nothing of what a valid body is; then
 * the path, the query and the body are validated with the public API's validation (core/shared/validate.ts:
 * one `validation_error` naming every bad field); errors leave as problem+json with the request id
 * (server/plugins/errors.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TObject, TSchema } from 'typebox'
import type { Core } from '../../core/core.ts'
import { authenticateOperator, type Operator } from '../../core/application/operators.ts'
import { ProblemError } from '../../core/shared/errors.ts'
import { validate } from '../../core/shared/validate.ts'
import { Problem } from '../../core/schemas/problem.ts'
import { adminOperations, type AdminInput, type AdminOperation } from './operations.ts'
import { assertCsrf } from '../../core/application/console-sessions.ts'
import { CONSOLE_COOKIE, CSRF_HEADER, readCookie, sessionOf } from '../plugins/console.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by an admin route's auth hook. */
    operator: Operator | null
  }
}

/** Every request's answer is the operator's view of the moment, and may hold a new key: no cache keeps it. */
const NO_STORE = 'no-store'

export async function adminRoutes(app: FastifyInstance, { core }: { core: Core }) {
  app.decorateRequest('operator', null)
  const document = adminOpenApi()
  app.get('/admin/v1/openapi.json', { schema: { hide: true } }, async () => document)

  for (const op of adminOperations) {
    app.route<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>({
      method: op.method,
      url: op.path,
      schema: { hide: true },
      // Validated below, with the core's validation, so a bad request reads as the public API's do.
      validatorCompiler: () => () => true,
      preParsing: async (req) => {
        req.operator = await operatorOf(core, req, op.write)
        if (op.write && req.operator.read_only)
          throw new ProblemError(
            'forbidden',
            `Operator key "${req.operator.name}" is read-only: it may not change anything.`,
          )
      },
      handler: async (req, reply) => {
        const body = await op.handler(core.context, req.operator!, inputOf(op, req))
        return reply.header('cache-control', NO_STORE).send(body)
      },
    })
  }
}

/**
 * Who is calling: an operator key (`Authorization: Bearer`), or else the operator console's session cookie
 * (server/plugins/console.ts), whose writes need the session's CSRF token as well (403 without it). A request
 * with an Authorization header is judged by it alone, so a bad key is never rescued by a cookie.
 */
async function operatorOf(core: Core, req: FastifyRequest, write: boolean): Promise<Operator> {
  if (req.headers.authorization !== undefined || !readCookie(req.headers.cookie, CONSOLE_COOKIE))
    return authenticateOperator(core.context, req.headers.authorization)
  const session = await sessionOf(core, req)
  if (write) assertCsrf(session, req.headers[CSRF_HEADER] as string | undefined)
  return session.operator
}

function inputOf(op: AdminOperation, req: FastifyRequest): AdminInput {
  return {
    params: (op.params ? validate(op.params, req.params, 'request path') : {}) as AdminInput['params'],
    query: (op.query ? validate(op.query, req.query, 'query string') : {}) as AdminInput['query'],
    // A POST without a body is one with nothing to say: {}.
    body: (op.body ? validate(op.body, req.body ?? {}, 'request body') : {}) as AdminInput['body'],
  }
}

/** `/admin/v1/sellers/:seller_id` → `/admin/v1/sellers/{seller_id}`. */
const openApiPath = (path: string) => path.replace(/:([a-z_]+)/g, '{$1}')

function parameters(schema: TSchema | undefined, where: 'path' | 'query') {
  const properties = (schema as TObject | undefined)?.properties ?? {}
  const required = new Set((schema as TObject | undefined)?.required ?? [])
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: s,
  }))
}

/** The admin API's OpenAPI 3.1 document, made once from the table. */
export function adminOpenApi() {
  const problem = (description: string) => ({
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  })
  const paths: Record<string, Record<string, unknown>> = {}
  for (const op of adminOperations) {
    ;(paths[openApiPath(op.path)] ??= {})[op.method.toLowerCase()] = {
      operationId: op.id,
      summary: op.summary,
      security: [{ operatorKey: [] }],
      parameters: [...parameters(op.params, 'path'), ...parameters(op.query, 'query')],
      ...(op.body ? { requestBody: { content: { 'application/json': { schema: op.body } } } } : {}),
      responses: {
        200: { description: 'OK' },
        400: problem('validation_error: `errors` names every bad field'),
        401: problem('unauthorized: no operator key, or one unknown or revoked (a seller key is never one)'),
        403: problem(
          op.write ? 'forbidden: a read-only key, or a key of one seller asking of every seller' : 'forbidden',
        ),
        404: problem("not_found: no such object, or another seller's to a key of one seller"),
      },
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ancillary selling service: admin API',
      version: '1.0.0',
      description:
        "The operator's API (docs/operations.md): sellers, trips, orders and jobs across sellers, with an operator key made by `npm run operator -- create`. Lists page by id: `?after=<next_after>&limit=`.",
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        operatorKey: { type: 'http', scheme: 'bearer', description: 'An operator key, svc_op_…' },
      },
      schemas: { Problem },
    },
    paths,
  }
}
