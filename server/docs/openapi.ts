/**
 * What the OpenAPI document says beyond the operations' own schemas, built from the core's tables so that
 * nothing here is a second list to keep in step:
 * - named schemas (core/api/components.ts), referred to with `$ref` wherever they appear;
 * - per operation, its error responses: one per status, each `code` it can answer with (core/api/dispatch.ts
 *   `problemCodes`) in the description and as an example problem keyed by the code;
 * - the webhooks the service sends (core/api/webhooks.ts);
 * - example request bodies (core/api/examples.ts).
 *
 * server/plugins/openapi.ts hands these to @fastify/swagger, and server/routes/v2.2.ts gives each route its
 * documented schemas. Validation never sees any of it: the core validates with the TypeBox schemas as they are.
 */
import type { TSchema } from 'typebox'
import { COMPONENTS } from '../../core/api/components.ts'
import { problemCodes, type Operation } from '../../core/api/dispatch.ts'
import { REQUEST_EXAMPLES } from '../../core/api/examples.ts'
import { WEBHOOK_DELIVERY, WEBHOOK_HEADERS, WEBHOOKS } from '../../core/api/webhooks.ts'
import { ERROR_CODES, ProblemError, toProblem, type ErrorCode } from '../../core/shared/errors.ts'

type Json = unknown

const SCHEMAS = '#/components/schemas/'
const EXAMPLES = '#/components/examples/'

// Keywords whose value is a schema, a list of schemas, or a map of names to schemas (JSON Schema 2020-12).
// Every other keyword's value is data (`enum`, `const`, `default`, `examples`, `required`) and is copied.
const SUBSCHEMA = new Set([
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
])
const SUBSCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems'])
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas'])

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const keysOf = (o: object) => Object.keys(o).filter((k) => !k.startsWith('~'))

/**
 * The named schemas, and any schema as the document shows it: plain JSON (TypeBox's own markers left out),
 * each named schema inside it replaced by a `$ref` to its component.
 */
class SchemaNames {
  readonly #named: Array<[Record<string, unknown>, string]>

  constructor(components: Record<string, TSchema>) {
    this.#named = Object.entries(components).map(([name, schema]) => [schema as Record<string, unknown>, name])
    for (const [schema, name] of this.#named) {
      const other = this.#named.find(([s, n]) => n !== name && this.#same(s, schema))
      // Two names for one schema: each place it appears could only refer to one of them.
      if (other) throw new Error(`components ${name} and ${other[1]} are the same schema`)
    }
  }

  /**
   * Whether `schema` is `named`: the very object, or a modifier's copy of it. Type.Optional copies a schema's
   * keys into a new object (marked optional, which the enclosing object's `required` already says), so a
   * named schema made optional is still that schema.
   */
  #same(schema: Record<string, unknown>, named: Record<string, unknown>): boolean {
    if (schema === named) return true
    const keys = keysOf(schema)
    return keys.length === keysOf(named).length && keys.every((k) => Object.hasOwn(named, k) && schema[k] === named[k])
  }

  nameOf(schema: unknown): string | undefined {
    if (!isObject(schema)) return undefined
    return this.#named.find(([named]) => this.#same(schema, named))?.[1]
  }

  /** `schema` for the document; `self` is the component being written out, which is not a reference to itself. */
  document(schema: unknown, self?: string): Json {
    if (!isObject(schema)) return schema
    const name = this.nameOf(schema)
    if (name !== undefined && name !== self) return { $ref: `${SCHEMAS}${name}` }
    const out: Record<string, Json> = {}
    for (const key of keysOf(schema)) {
      const value = schema[key]
      if (SUBSCHEMA.has(key) && isObject(value)) out[key] = this.document(value)
      else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map((s) => this.document(s))
      else if (SUBSCHEMA_MAPS.has(key) && isObject(value))
        out[key] = Object.fromEntries(Object.entries(value).map(([k, s]) => [k, this.document(s)]))
      else out[key] = structuredClone(value)
    }
    return out
  }

  /** Every named schema, written out once. */
  components(): Record<string, Json> {
    return Object.fromEntries(this.#named.map(([schema, name]) => [name, this.document(schema, name)]))
  }
}

export const schemaNames = new SchemaNames(COMPONENTS)

/** The document's `$ref` to a named schema. */
const ref = (name: string) => {
  if (!COMPONENTS[name]) throw new Error(`no component ${name}`)
  return { $ref: `${SCHEMAS}${name}` }
}

// ---------------------------------------------------------------- problems

const EXAMPLE_REQUEST_ID = 'c0ffee00-1234-4abc-9def-0123456789ab'

/** What one field of a refused request looks like in `errors`. */
const EXAMPLE_FIELD_ERRORS: Partial<Record<ErrorCode, Array<{ path: string; message: string }>>> = {
  validation_error: [{ path: '/passengers/0/date_of_birth', message: 'must be a calendar date, YYYY-MM-DD' }],
  basket_not_valid: [
    { path: '/basket/b7e4c2a9-1f3d-4a8b-9e6c-0d2f5a7b3c41', message: 'Checked bag 23 kg is price_changed' },
  ],
}

/** One example problem per code (`components.examples.<code>`), made by the function that makes the real ones. */
export function problemExamples(): Record<string, { summary: string; value: Json }> {
  return Object.fromEntries(
    (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
      const { title, meaning } = ERROR_CODES[code]
      const detail = meaning.split(/(?<=\.) /)[0]!
      return [
        code,
        {
          summary: `${ERROR_CODES[code].status} ${title}`,
          value: toProblem(new ProblemError(code, detail, EXAMPLE_FIELD_ERRORS[code]), EXAMPLE_REQUEST_ID),
        },
      ]
    }),
  )
}

const SUCCESS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  304: 'Not modified: the ETag in If-None-Match is current',
}

/**
 * An operation's responses: its own success schemas, then one response per error status. Each error
 * response names its codes twice: in the description (for people) and as `examples` keyed by code (for
 * tools, and for the fuzz suite, which checks every code it sees is one of them).
 */
export function responsesFor(op: Operation): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [status, schema] of Object.entries(op.responses)) {
    const description = SUCCESS_TEXT[Number(status)] ?? 'Success'
    out[status] =
      status === '304'
        ? { description }
        : {
            description,
            content: {
              [op.eventStream ? 'text/event-stream' : 'application/json']: { schema: schemaNames.document(schema) },
            },
          }
  }
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of problemCodes(op)) {
    const status = ERROR_CODES[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  for (const [status, codes] of byStatus) {
    const retried = codes.filter((c) => c === 'rate_limited' || c === 'idempotency_in_progress')
    out[status] = {
      description: `${codes.length > 1 ? 'One of these problems; its `code` says which.' : 'This problem:'}\n\n${codes.map((c) => `- \`${c}\`: ${ERROR_CODES[c].meaning}`).join('\n')}`,
      ...(retried.length
        ? {
            headers: {
              'Retry-After': {
                type: 'integer',
                minimum: 0,
                description: `seconds to wait before sending the request again (with ${retried.map((c) => `\`${c}\``).join(', ')})`,
              },
            },
          }
        : {}),
      content: {
        'application/problem+json': {
          schema: ref('Problem'),
          examples: Object.fromEntries(codes.map((c) => [c, { $ref: `${EXAMPLES}${c}` }])),
        },
      },
    }
  }
  return out
}

// ---------------------------------------------------------------- webhooks and examples

/** The OpenAPI 3.1 `webhooks`: a POST the service sends to the seller's target, per event. */
export function webhooksObject(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOKS.map((w) => [
      w.event,
      {
        post: {
          operationId: `${w.event.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}Webhook`,
          summary: w.summary,
          description: `${w.sentTo ?? `POSTed to the target of each subscription to \`${w.event}\` (POST /v2.2/callback_subscription).`} ${WEBHOOK_DELIVERY}`,
          tags: ['webhooks'],
          parameters: Object.entries(WEBHOOK_HEADERS).map(([name, h]) => ({
            in: 'header',
            name,
            required: true,
            description: h.description,
            schema: { type: 'string', ...(h.pattern ? { pattern: h.pattern } : {}) },
          })),
          requestBody: { required: true, content: { 'application/json': { schema: schemaNames.document(w.body) } } },
          responses: { '2XX': { description: 'Received. Any other answer (or none within 10 s) is retried.' } },
        },
      },
    ]),
  )
}

/** The path of an operation as the document writes it (`{trip_id}`, not `:trip_id`). */
export const documentPath = (op: Pick<Operation, 'path'>) => op.path.replace(/:(\w+)/g, '{$1}')

/**
 * Adds each operation's example bodies to its request body. @fastify/swagger rebuilds a request body from
 * its schema alone (and drops what sits beside a `$ref`), so they are added to the finished document.
 */
export function withRequestExamples<D extends { paths?: object }>(doc: D, operations: Operation[]): D {
  const paths = doc.paths as
    | Record<
        string,
        Record<string, { requestBody?: { content?: Record<string, { examples?: unknown }> } } | undefined> | undefined
      >
    | undefined
  for (const op of operations) {
    const examples = REQUEST_EXAMPLES[op.id]
    const media = paths?.[documentPath(op)]?.[op.method.toLowerCase()]?.requestBody?.content?.['application/json']
    if (examples && media) media.examples = structuredClone(examples)
  }
  return doc
}
