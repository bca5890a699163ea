/** Webhook subscriptions of a seller. */
import type { Static } from 'typebox'
import type { SubscriptionRecord } from '../ports/records.ts'
import { ProblemError } from '../shared/errors.ts'
import type { SubscriptionRequest } from '../schemas/fulfillment.ts'
import { targetPolicy, targetRefusal } from '../shared/network.ts'
import type { Context } from './context.ts'
import type { Principal } from './principal.ts'

export async function createSubscription(ctx: Context, p: Principal, req: Static<typeof SubscriptionRequest>) {
  const url = new URL(req.target)
  const httpAllowed = p.seller.sandbox && url.protocol === 'http:'
  if ((url.protocol !== 'https:' && !httpAllowed) || url.username || url.password) {
    throw new ProblemError(
      'validation_error',
      'The target must be an https URL without credentials (http is allowed for sandbox sellers).',
      [{ path: '/target', message: 'must be an https URL without credentials' }],
    )
  }
  const refused = targetRefusal(url, targetPolicy(p.seller.sandbox))
  if (refused) {
    throw new ProblemError(
      'validation_error',
      `The target must be reachable on the internet: ${refused} (loopback is allowed for sandbox sellers).`,
      [{ path: '/target', message: 'must not be a private, loopback or link-local address' }],
    )
  }
  const sub: SubscriptionRecord = {
    subscription_id: ctx.ids.uuid(),
    seller_id: p.seller.seller_id,
    event_name: req.event_name,
    delivery_method: 'http',
    target: url.toString(),
    secret: `whsec_${ctx.ids.secret(24)}`,
    created_at: ctx.clock.now().toISOString(),
  }
  await ctx.store.addSubscription(sub)
  return { ...publicSubscription(sub), secret: sub.secret }
}

export async function listSubscriptions(ctx: Context, p: Principal) {
  return { subscriptions: (await ctx.store.listSubscriptions(p.seller.seller_id)).map(publicSubscription) }
}

export async function deleteSubscription(ctx: Context, p: Principal, subscriptionId: string): Promise<null> {
  if (!(await ctx.store.deleteSubscription(p.seller.seller_id, subscriptionId))) {
    throw new ProblemError('not_found', `Subscription ${subscriptionId} does not exist.`)
  }
  return null
}

/** A subscription as listed: its secret is shown once, when it is created. */
function publicSubscription(s: SubscriptionRecord) {
  return {
    subscription_id: s.subscription_id,
    delivery_method: s.delivery_method,
    target: s.target,
    event_name: s.event_name,
    created_at: s.created_at,
  }
}
