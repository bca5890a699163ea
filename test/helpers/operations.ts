/**
 * Calls an operation of the table (core/api/operations.ts) by its id, through the pipeline both hosts run
 * (core/api/dispatch.ts `admit`, then `dispatch`): credentials from an Authorization header, path, query
 * and body validated by the operation's schemas, Idempotency-Key where the operation honours it, and the
 * answer as the response a host writes. Only the host's own part is left out (routing, reading bytes).
 *
 * A refusal rejects with the ProblemError that a host answers as application/problem+json (its `code`,
 * `status`, `errors`); `refusal()` hands it over for asserting. Nothing here is node-only: a browser test
 * can use it with the core of its sandbox.
 */
import type { Static } from 'typebox'
import type * as S from '../../core/schemas/index.ts'
import { operations, type BasketView, type Jwks } from '../../core/api/operations.ts'
import { admit, dispatch } from '../../core/api/dispatch.ts'
import type { Core } from '../../core/core.ts'
import { isProblemError, type ProblemError } from '../../core/shared/errors.ts'
import { EventStream, Rendered } from '../../core/shared/rendered.ts'

/** What each operation answers with when it succeeds (its `responses`), as a client reads it. */
interface Answers {
  authorize: Static<typeof S.AuthorizeResponse>
  createTrip: Static<typeof S.Trip>
  getTrip: Static<typeof S.Trip>
  getTripEvents: EventStream
  patchTrip: Static<typeof S.Trip>
  startSearch: Static<typeof S.SearchStarted>
  getSearch: Static<typeof S.Search>
  getBasket: Static<typeof BasketView>
  addToBasket: Static<typeof BasketView>
  replaceBasket: Static<typeof BasketView>
  removeFromBasket: Static<typeof BasketView>
  checkBasket: Static<typeof BasketView>
  acceptItem: Static<typeof BasketView>
  fulfill: Static<typeof S.FulfillResponse>
  quoteCancellation: Static<typeof S.ToCancel>
  getCancellationQuote: Static<typeof S.ToCancel>
  confirmCancellation: Static<typeof S.CancellationStarted>
  listOrders: Static<typeof S.OrdersPage>
  createSubscription: Static<typeof S.Subscription>
  listSubscriptions: Static<typeof S.SubscriptionList>
  deleteSubscription: null
  refreshToken: Static<typeof S.RefreshResponse>
  jwks: Static<typeof Jwks>
}

export type OperationId = keyof Answers

/** Who calls: the seller's API key (HTTP Basic) or a token (Bearer), as the hosts receive them. */
export type Caller = { apiKey: string } | { token: string }

export interface Call {
  /** Sent as the Authorization header; none for a public operation (or to be refused as anonymous). */
  as?: Caller
  params?: Record<string, string>
  query?: Record<string, string>
  /** Sent as JSON: what the operation receives is what a host parses from it. */
  body?: unknown
  /** Any other request header, lower-case (`idempotency-key`, `if-none-match`, `origin`, `authorization`). */
  headers?: Record<string, string>
}

export interface Reply<T> {
  status: number
  headers: Record<string, string>
  /** The JSON parsed; null for 204 and 304; an event stream as the operation answers it. */
  body: T
}

const byId = new Map(operations.map((op) => [op.id, op]))

const authorization = (as: Caller | undefined): string | undefined =>
  as === undefined ? undefined : 'apiKey' in as ? `Basic ${btoa(`${as.apiKey}:`)}` : `Bearer ${as.token}`

/** Answers operation `id` as a host would; rejects with the ProblemError a host answers with. */
export async function call<Id extends OperationId>(
  core: Core,
  id: Id,
  request: Call = {},
): Promise<Reply<Answers[Id]>> {
  const op = byId.get(id)
  if (!op) throw new Error(`no operation ${id} in core/api/operations.ts`)
  const credential = authorization(request.as)
  const headers: Record<string, string> = { ...(credential ? { authorization: credential } : {}), ...request.headers }
  const params = request.params ?? {}
  const principal = await admit(core, op, headers.authorization, params, headers.origin)
  const body = request.body === undefined ? undefined : JSON.parse(JSON.stringify(request.body))
  const res = await dispatch(core, op, principal, {
    params,
    query: request.query ?? {},
    header: (name) => headers[name.toLowerCase()],
    body,
  })
  const parsed =
    res.body === null || res.body instanceof EventStream
      ? res.body
      : JSON.parse(res.body instanceof Rendered ? res.body.json : res.body)
  return { status: res.status, headers: res.headers, body: parsed as Answers[Id] }
}

/** The body of a successful `call`. */
export async function answer<Id extends OperationId>(core: Core, id: Id, request: Call = {}): Promise<Answers[Id]> {
  return (await call(core, id, request)).body
}

/** The problem `pending` (a `call`) was refused with; fails when it succeeded or failed otherwise. */
export async function refusal(pending: Promise<unknown>): Promise<ProblemError> {
  let reply: unknown
  try {
    reply = await pending
  } catch (e) {
    if (isProblemError(e)) return e
    throw e
  }
  throw new Error(`expected a problem, got ${JSON.stringify(reply).slice(0, 300)}`)
}

/** `answer` for one core and one caller: `const api = caller(core, { apiKey }); await api('getTrip', { params: { trip_id } })`. */
export function caller(core: Core, as?: Caller) {
  return <Id extends OperationId>(id: Id, request: Call = {}): Promise<Answers[Id]> =>
    answer(core, id, { as, ...request })
}
