/**
 * One webhook delivery, signed; any answer but 2xx is a failure, retried with backoff. Each attempt is
 * recorded as it ends (the delivery whose id is the job's, with the status or the network error, the
 * duration and the first 1 KB of the answer) in one store call, whatever becomes of the job's lease: the
 * receiver was called, so the history says so.
 */
import { signatureHeader } from '../../shared/webhook-signature.ts'
import { targetPolicy } from '../../shared/network.ts'
import type { WebhookAttemptRecord, WebhookDeliveryRecord } from '../../ports/records.ts'
import { WEBHOOK_BODY_KEPT } from '../../ports/records.ts'
import type { Context } from '../context.ts'
import type { Job, JobAbout } from './job.ts'

type Payload = Extract<Job, { kind: 'webhook' }>['payload']

/** Which run of the job this is. */
export interface WebhookRun {
  job_id: string
  attempt: number
  max_attempts: number
  created_at: string
}

/** The delivery a job makes, as the store keeps it (without its attempts): its id is the job's. */
export function deliveryOf(
  payload: Payload,
  run: Pick<WebhookRun, 'job_id' | 'created_at'>,
  state: WebhookDeliveryRecord['state'],
  now: string,
): Omit<WebhookDeliveryRecord, 'attempts'> {
  const { event } = payload
  const order = 'trip_id' in event ? (event.data.order as { order_id?: unknown } | undefined) : undefined
  return {
    delivery_id: run.job_id,
    event_id: event.event_id,
    event_name: event.event_name,
    subscription_id: payload.subscription_id,
    seller_id: payload.seller_id,
    trip_id: 'trip_id' in event ? event.trip_id : null,
    order_id: typeof order?.order_id === 'string' ? order.order_id : null,
    resend_of: payload.resend_of ?? null,
    state,
    created_at: run.created_at,
    updated_at: now,
    event: event as Record<string, unknown>,
  }
}

/**
 * Sends the event. `about` is filled with what the worker's log line names (ids, status, duration), and
 * keeps what it got when the delivery fails.
 */
export async function run(ctx: Context, payload: Payload, job: WebhookRun, about: JobAbout = {}): Promise<undefined> {
  const { seller_id, subscription_id, event } = payload
  const now = ctx.clock.now()
  const delivery = deliveryOf(payload, job, 'pending', now.toISOString())
  Object.assign(about, {
    seller_id,
    subscription_id,
    delivery_id: delivery.delivery_id,
    event_name: event.event_name,
    event_id: event.event_id,
    trip_id: delivery.trip_id,
    order_id: delivery.order_id,
    ...('fulfillment_id' in event && event.fulfillment_id ? { fulfillment_id: event.fulfillment_id } : {}),
    ...('cancellation_id' in event && event.cancellation_id ? { cancellation_id: event.cancellation_id } : {}),
  })
  const sub = (await ctx.store.listSubscriptions(seller_id)).find((s) => s.subscription_id === subscription_id)
  if (!sub) return undefined // unsubscribed since: nothing to deliver
  // Checked at every delivery: the sender resolves the name and refuses a private address then (a name
  // that pointed elsewhere when subscribed may point inside now).
  const policy = targetPolicy((await ctx.sellers.get(seller_id))?.sandbox ?? false)
  const body = JSON.stringify(event)
  // Real time, not the context's clock (which tests fix): how long the receiver took.
  const started = performance.now()
  let status: number | null = null
  let answer: string | null = null
  let error: string | null = null
  try {
    const got = await ctx.webhooks.send(
      sub.target,
      body,
      {
        'content-type': 'application/json',
        'user-agent': 'svc-webhooks/2.2',
        'svc-event-id': event.event_id,
        'svc-event-name': event.event_name,
        'svc-signature': await signatureHeader(sub.secret, body, now),
      },
      policy,
    )
    status = typeof got === 'number' ? got : got.status
    answer = typeof got === 'number' ? null : got.body.slice(0, WEBHOOK_BODY_KEPT)
  } catch (e) {
    error = e instanceof Error ? e.message : String(e)
  }
  const durationMs = Math.round(performance.now() - started)
  const ok = status !== null && status >= 200 && status < 300
  about.http_status = status
  about.duration_ms = durationMs
  const attempt: WebhookAttemptRecord = {
    attempt: job.attempt,
    at: now.toISOString(),
    status,
    error,
    duration_ms: durationMs,
    response_body: answer,
  }
  const state = ok ? 'succeeded' : job.attempt >= job.max_attempts ? 'given_up' : 'failed'
  await ctx.store.recordWebhookAttempt({ ...delivery, state, updated_at: ctx.clock.now().toISOString() }, attempt)
  if (error !== null) throw new Error(error)
  if (!ok) throw new Error(`the receiver answered HTTP ${status}`)
  return undefined
}

/** A job that died before recording its last attempt: its delivery is given up. */
export async function giveUp(ctx: Context, jobId: string): Promise<void> {
  await ctx.store.giveUpWebhookDelivery(jobId, ctx.clock.now().toISOString())
}
