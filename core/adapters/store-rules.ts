/**
 * The rules of the store contract (core/ports/store.ts) that decide which rows a store reads, changes or
 * deletes, written once as pure functions of records. The memory store (./memory-store.ts) calls them; the
 * SQL stores (server/store/sql/) say the same in their statements' WHERE and ORDER BY clauses, each of
 * which names the rule it mirrors here, and the contract suite (test/store/) holds all three to it.
 * A rule changed here is changed in those statements in the same commit.
 */
import type {
  ConsoleSessionRecord,
  IdempotencyRecord,
  OrderFeedItem,
  JobRecord,
  OrderFeedQuery,
  PurgeCutoffs,
  RefreshTokenRecord,
  SearchRecord,
  TripRecord,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookDeliveryState,
} from '../ports/records.ts'
import { isFulfilled } from '../domain/fulfillment.ts'
import { leaseIso } from './store-times.ts'

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const before = (time: string, cutoff: Date) => Date.parse(time) < cutoff.getTime()

// ---------------------------------------------------------------- trips and searches

/** Whether a trip is open (column `trips.open`): not fulfilled yet, so retention may take it whole. */
export const isOpen = (trip: TripRecord): boolean => !isFulfilled(trip)

/**
 * A search is inserted, or completed once: a stored `in_progress` search (a remote supplier's) takes its
 * answer, a finished one is kept as it is (SQL: `ON CONFLICT (search_id) … WHERE searches.status = 'in_progress'`).
 */
export const searchWritable = (stored: SearchRecord | undefined): boolean =>
  stored === undefined || stored.status === 'in_progress'

/** A seat map's use is recorded at most this often, so a flight's row is not rewritten by every trip on it. */
export const SEAT_MAP_TOUCH_MS = 3600_000
/** Whether a search at `usedAt` records a use of a seat map last used at `lastUsed` (SQL: its upsert's WHERE). */
export const seatMapTouched = (lastUsed: string | undefined, usedAt: string): boolean =>
  lastUsed === undefined || Date.parse(lastUsed) < Date.parse(usedAt) - SEAT_MAP_TOUCH_MS

// ---------------------------------------------------------------- the orders feed

/** Whether an order numbered `seq` is on the page `q` asks for (SQL: listOrders' WHERE; pages go by seq). */
export const inFeedPage = (seq: number, order: { status: string; updated_at: string }, q: OrderFeedQuery): boolean =>
  seq > q.after &&
  (q.status === undefined || order.status === q.status) &&
  (q.updatedSince === undefined || Date.parse(order.updated_at) >= Date.parse(q.updatedSince))

// ---------------------------------------------------------------- sellers' keys

/**
 * Whether an API key still works at `at` (canonical ISO): a rotation or a revocation may stop it then, never an
 * expired or revoked one again (SQL: expireApiKeys, revokeApiKeys).
 */
export const keyWorksAt = (key: { expires_at: string | null }, at: string): boolean =>
  key.expires_at === null || at < key.expires_at

// ---------------------------------------------------------------- refresh tokens

/**
 * Why a refresh token cannot be consumed at `now`, or null when it can (SQL: the consuming UPDATE's WHERE,
 * and what the SQL stores answer when it changed nothing). A revoked family is reported first, a reuse
 * next; an expired token is left unused.
 */
export function refreshRefusal(t: RefreshTokenRecord, now: Date): 'revoked' | 'reused' | 'expired' | null {
  if (t.revoked_at !== null) return 'revoked'
  if (t.used_at !== null) return 'reused'
  if (Date.parse(t.expires_at) <= now.getTime()) return 'expired'
  return null
}

// ---------------------------------------------------------------- idempotency

/** Whether `owner` still holds the reservation without a response (SQL: renew, complete and release's WHERE). */
export const heldBy = (r: IdempotencyRecord, owner: string): boolean => r.owner === owner && r.response === null

/** Whether a reservation belonged to a process that died: no response, its lease over before `now` (SQL: takeover). */
export const lapsed = (r: IdempotencyRecord, now: Date): boolean =>
  r.response === null && Date.parse(r.lease_until) < now.getTime()

// ---------------------------------------------------------------- jobs

/** Whether the job is pending and still leased by exactly `lease` (SQL: complete, fail, renew and defer's WHERE). */
export const holdsLease = (j: JobRecord, lease: string): boolean => {
  const l = leaseIso(lease)
  return l !== null && j.status === 'pending' && j.locked_until === l
}

/**
 * The job a claim at `now` (canonical ISO) takes, if any (SQL: claimJob, claimJobFair): a pending job of
 * one of `kinds`, due, with no live lease. With `perLane`, fair between lanes: a lane holding `perLane`
 * live leases already is passed over, and the least busy lane comes first; then the oldest run_at, ties
 * by job_id.
 */
export function jobToClaim(
  jobs: Iterable<JobRecord>,
  kinds: readonly string[],
  now: string,
  perLane?: number,
): JobRecord | undefined {
  const all = [...jobs]
  const leased = (j: JobRecord) => j.locked_until !== null && j.locked_until > now
  const busy = new Map<string, number>()
  if (perLane !== undefined)
    for (const j of all)
      if (j.lane !== undefined && j.status === 'pending' && leased(j)) busy.set(j.lane, (busy.get(j.lane) ?? 0) + 1)
  const busyness = (j: JobRecord) => (j.lane === undefined ? 0 : (busy.get(j.lane) ?? 0))
  let due: JobRecord | undefined
  for (const j of all) {
    if (j.status !== 'pending' || j.run_at > now || leased(j) || !kinds.includes(j.kind)) continue
    if (perLane !== undefined && busyness(j) >= perLane) continue
    if (!due || (busyness(j) - busyness(due) || compare(j.run_at, due.run_at) || compare(j.job_id, due.job_id)) < 0)
      due = j
  }
  return due
}

// ---------------------------------------------------------------- the operator's questions (OperationsStore)

/** What findTrips is asked: one seller's trips, and/or those with a ticket of one record locator. */
export interface TripQuery {
  sellerId?: string
  recordLocator?: string
  after?: string
}

/** Whether a trip answers `q` (SQL: findTrips' WHERE; pages go by trip_id). */
export const tripMatches = (t: TripRecord, q: TripQuery): boolean =>
  t.trip_id > (q.after ?? '') &&
  (q.sellerId === undefined || t.seller_id === q.sellerId) &&
  (q.recordLocator === undefined ||
    t.tickets.some((ticket) => ticket.access_details.record_locator === q.recordLocator))

/** What findOrders is asked: each filter optional. */
export interface OrderQuery {
  sellerId?: string
  status?: string
  failureReason?: string
  after?: string
}

/** Whether an order of the feed answers `q` (SQL: findOrders' WHERE; pages go by order_id). */
export const orderMatches = (sellerId: string, o: OrderFeedItem, q: OrderQuery): boolean =>
  o.order_id > (q.after ?? '') &&
  (q.sellerId === undefined || sellerId === q.sellerId) &&
  (q.status === undefined || o.status === q.status) &&
  (q.failureReason === undefined || o.failure_reason === q.failureReason)

/**
 * A dead job given one more attempt at `runAt` (SQL: retryDeadJob): pending, unleased, with one attempt left,
 * so a job that fails again is dead again at once rather than retried with backoff behind the operator's back.
 * Null when the job is not dead.
 */
export const retried = (j: JobRecord, runAt: string): JobRecord | null =>
  j.status !== 'dead'
    ? null
    : { ...j, status: 'pending', run_at: runAt, locked_until: null, max_attempts: j.attempts + 1 }

// ---------------------------------------------------------------- webhook deliveries (WebhookDeliveryStore)

/** What findWebhookDeliveries is asked: each filter optional. */
export interface DeliveryQuery {
  sellerId?: string
  state?: WebhookDeliveryState
  subscriptionId?: string
  tripId?: string
  after?: string
}

/** Whether a delivery answers `q` (SQL: findWebhookDeliveries' WHERE; pages go by delivery_id). */
export const deliveryMatches = (d: WebhookDeliveryRecord, q: DeliveryQuery): boolean =>
  d.delivery_id > (q.after ?? '') &&
  (q.sellerId === undefined || d.seller_id === q.sellerId) &&
  (q.state === undefined || d.state === q.state) &&
  (q.subscriptionId === undefined || d.subscription_id === q.subscriptionId) &&
  (q.tripId === undefined || d.trip_id === q.tripId)

/**
 * A delivery with one more attempt (SQL: recordWebhookAttempt's upsert): the stored one, when there is one,
 * keeps what it is (its event, its link to what it resends, its creation) and takes the new state.
 */
export const withAttempt = (
  stored: WebhookDeliveryRecord | undefined,
  d: Omit<WebhookDeliveryRecord, 'attempts'>,
  a: WebhookAttemptRecord,
): WebhookDeliveryRecord =>
  stored
    ? { ...stored, state: d.state, updated_at: d.updated_at, attempts: [...stored.attempts, a] }
    : { ...d, attempts: [a] }

/** A delivery whose job died, given up at `at` (SQL: giveUpWebhookDelivery); null when it had ended. */
export const deliveryGivenUp = (d: WebhookDeliveryRecord, at: string): WebhookDeliveryRecord | null =>
  d.state === 'pending' || d.state === 'failed' ? { ...d, state: 'given_up', updated_at: at } : null

// ---------------------------------------------------------------- retention

/**
 * What `purge` deletes, row by row (core/ports/records.ts PurgeCutoffs; SQL: server/store/sql/retention.ts).
 * A trip that goes takes its searches, refresh tokens and orders with it, whatever their age.
 */
export const purgeable = {
  trip: (t: TripRecord, c: PurgeCutoffs): boolean => isOpen(t) && before(t.created_at, c.tripsBefore),
  /** An old search, unless it is the current search of an open trip. */
  search: (s: SearchRecord, trip: TripRecord | undefined, c: PurgeCutoffs): boolean =>
    before(s.created_at, c.searchesBefore) && !(trip !== undefined && isOpen(trip) && trip.search_id === s.search_id),
  seatMap: (usedAt: string, c: PurgeCutoffs): boolean => before(usedAt, c.seatMapsBefore),
  refreshToken: (t: RefreshTokenRecord, c: PurgeCutoffs): boolean => before(t.expires_at, c.tokensBefore),
  consoleSession: (x: ConsoleSessionRecord, c: PurgeCutoffs): boolean => before(x.expires_at, c.tokensBefore),
  idempotency: (r: IdempotencyRecord, c: PurgeCutoffs): boolean => before(r.created_at, c.idempotencyBefore),
  /** A finished job (done or dead); pending ones always stay. */
  job: (j: JobRecord, c: PurgeCutoffs): boolean => j.status !== 'pending' && before(j.created_at, c.jobsBefore),
  /** An ended delivery (succeeded or given up); one still being tried stays. */
  delivery: (d: WebhookDeliveryRecord, c: PurgeCutoffs): boolean =>
    (d.state === 'succeeded' || d.state === 'given_up') && before(d.created_at, c.deliveriesBefore),
  signingKey: (k: { retire_at: string | null }, c: PurgeCutoffs): boolean =>
    k.retire_at !== null && before(k.retire_at, c.signingKeysBefore),
}

/**
 * A trip's timeline after entries are appended: every entry but the `supplier_call`s beyond the trip's
 * MAX_SUPPLIER_CALLS latest (ordered by seq), which go. The SQL stores delete the same rows after an append.
 */
export function keptEvents<E extends { seq: number; kind: string }>(events: E[], max: number): E[] {
  const calls = events.filter((e) => e.kind === 'supplier_call')
  if (calls.length <= max) return events
  const firstKept = calls[calls.length - max]?.seq ?? Infinity
  return events.filter((e) => e.kind !== 'supplier_call' || e.seq >= firstKept)
}
