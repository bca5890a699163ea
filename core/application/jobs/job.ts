/**
 * The jobs the service leaves for its workers, one schema per kind. A payload is read back from the store
 * (written by this or an older version of the service), so the runner checks it against its kind's schema
 * rather than trusting it: what the runner gets is typed by that check.
 */
import { Type, type Static } from 'typebox'
import type { Clock, Ids } from '../../ports/clock.ts'
import type { JobRecord } from '../../ports/records.ts'
import { TestPingEvent, WebhookEvent } from '../../schemas/fulfillment.ts'
import { validate } from '../../shared/validate.ts'

const JobSchema = Type.Union([
  Type.Object({
    kind: Type.Literal('basket_check'),
    payload: Type.Object({ trip_id: Type.String(), check_id: Type.String(), started_at: Type.String() }),
  }),
  Type.Object({
    kind: Type.Literal('fulfill_order'),
    payload: Type.Object({ trip_id: Type.String(), order_id: Type.String() }),
  }),
  Type.Object({
    kind: Type.Literal('cancel_order'),
    payload: Type.Object({ trip_id: Type.String(), order_id: Type.String() }),
  }),
  Type.Object({
    kind: Type.Literal('ticketing_timeout'),
    payload: Type.Object({ trip_id: Type.String(), fulfillment_id: Type.String() }),
  }),
  Type.Object({
    kind: Type.Literal('webhook'),
    payload: Type.Object({
      seller_id: Type.String(),
      subscription_id: Type.String(),
      event: Type.Union([WebhookEvent, TestPingEvent]),
      /** The delivery this one sends again (an operator's resend). */
      resend_of: Type.Optional(Type.String()),
    }),
  }),
  Type.Object({
    kind: Type.Literal('supplier_search'),
    payload: Type.Object({ trip_id: Type.String(), search_id: Type.String() }),
  }),
])

export type Job = Static<typeof JobSchema>
export type JobKind = Job['kind']
export const JOB_KINDS: JobKind[] = [
  'basket_check',
  'fulfill_order',
  'cancel_order',
  'ticketing_timeout',
  'webhook',
  'supplier_search',
]

/** What one run of the job runner did, for the worker's log (ids and outcome only, never a payload). */
export interface JobReport {
  job_id: string
  kind: string
  attempt: number
  max_attempts: number
  /** done; waiting (the supplier's answer is not ready); retry (failed, will run again); dead (given up); lease_lost. */
  outcome: 'done' | 'waiting' | 'retry' | 'dead' | 'lease_lost'
  error?: string
  retry_at?: string
  /**
   * What the run was about, for the log line (flat fields there): the runner puts in whose job it was from
   * its payload (seller_id, trip_id, order_id, subscription_id), the kind's handler adds what it knows (a
   * webhook: its delivery, event, status, duration). One bag for both, so a line never names a field twice.
   */
  about?: JobAbout
}

/** A job report's log fields (JobReport.about). */
export type JobAbout = Record<string, string | number | null>

/** What making a job needs of the core's ports (named here, not imported, so config.ts may name JobKind). */
interface JobPorts {
  clock: Clock
  ids: Ids
  config: { maxAttempts: Record<JobKind, number> }
}

/** A new pending job, due at `runAt`, for the caller to store (with the change that asks for it); `lane`: whose it is, where claims are fair (JobRecord.lane). */
export function newJob(ports: JobPorts, job: Job, runAt = ports.clock.now(), lane?: string): JobRecord {
  return {
    job_id: ports.ids.uuid(),
    kind: job.kind,
    payload: job.payload,
    run_at: runAt.toISOString(),
    attempts: 0,
    max_attempts: ports.config.maxAttempts[job.kind],
    locked_until: null,
    last_error: null,
    status: 'pending',
    created_at: ports.clock.now().toISOString(),
    ...(lane ? { lane } : {}),
  }
}

/**
 * The jobs that call a remote supplier to search: run in a lane of their own, fair between sellers, so that
 * no seller's searches (a traveller's browser can start them) delay another's checks, orders or webhooks.
 */
export const SEARCH_KINDS: JobKind[] = ['supplier_search']
export const OTHER_KINDS: JobKind[] = JOB_KINDS.filter((k) => !SEARCH_KINDS.includes(k))

/** The job a stored record describes; a kind this version does not know, or a payload not of its kind, is an error. */
export function parseJob(record: JobRecord): Job {
  if (!(JOB_KINDS as string[]).includes(record.kind)) throw new Error(`unknown job kind ${record.kind}`)
  return validate(JobSchema, { kind: record.kind, payload: record.payload }, `${record.kind} job`)
}
