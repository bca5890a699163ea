/** One webhook delivery, signed; any answer but 2xx is a failure, retried with backoff. */
import { signatureHeader } from '../../shared/webhook-signature.ts'
import { targetPolicy } from '../../shared/network.ts'
import type { Context } from '../context.ts'
import type { Job } from './job.ts'

type Payload = Extract<Job, { kind: 'webhook' }>['payload']

export async function run(ctx: Context, { seller_id, subscription_id, event }: Payload): Promise<undefined> {
  const now = ctx.clock.now()
  const sub = (await ctx.store.listSubscriptions(seller_id)).find((s) => s.subscription_id === subscription_id)
  if (!sub) return undefined // unsubscribed since: nothing to deliver
  // Checked at every delivery: the sender resolves the name and refuses a private address then (a name
  // that pointed elsewhere when subscribed may point inside now).
  const policy = targetPolicy((await ctx.sellers.get(seller_id))?.sandbox ?? false)
  const body = JSON.stringify(event)
  const status = await ctx.webhooks.send(
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
  if (status < 200 || status >= 300) throw new Error(`the receiver answered HTTP ${status}`)
  return undefined
}
