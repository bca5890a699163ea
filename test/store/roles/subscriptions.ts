/** The store contract of SubscriptionStore: webhook subscriptions. */
import assert from 'node:assert/strict'
import { iso, seller, subscription, type ContractContext } from '../fixtures.ts'

export function subscriptionsContract({ it }: ContractContext): void {
  it('subscriptions: listed oldest first per seller; a seller deletes only its own', async (s) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    assert.deepEqual(await s.listSubscriptions('s1'), [])
    const w3 = subscription('w3', 's1', { created_at: iso(20) })
    const w2 = subscription('w2', 's1', { created_at: iso(10), event_name: 'order.failed' })
    const w1 = subscription('w1', 's1', { created_at: iso(10) })
    const v1 = subscription('v1', 's2', { created_at: iso(5) })
    for (const x of [w3, w2, w1, v1]) await s.addSubscription(x)
    assert.deepEqual(await s.listSubscriptions('s1'), [w1, w2, w3])
    assert.deepEqual(await s.listSubscriptions('s2'), [v1])
    assert.deepEqual(await s.listSubscriptions('ghost'), [])

    assert.equal(await s.deleteSubscription('s2', 'w1'), false, 'another seller cannot delete it')
    assert.equal(await s.deleteSubscription('ghost', 'w1'), false)
    assert.equal(await s.deleteSubscription('s1', 'nope'), false)
    assert.deepEqual(await s.listSubscriptions('s1'), [w1, w2, w3])

    assert.equal(await s.deleteSubscription('s1', 'w1'), true)
    assert.equal(await s.deleteSubscription('s1', 'w1'), false)
    assert.deepEqual(await s.listSubscriptions('s1'), [w2, w3])
    assert.deepEqual(await s.listSubscriptions('s2'), [v1])
  })

  it('a subscription id is added once, needs a known seller, and comes back canonical and copied', async (s) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    const w1 = subscription('w1')
    await s.addSubscription(w1)
    await assert.rejects(s.addSubscription(subscription('w1', 's2')))
    await assert.rejects(s.addSubscription(subscription('w9', 'ghost')))
    assert.deepEqual(await s.listSubscriptions('s2'), [])

    await s.addSubscription(subscription('w2', 's1', { created_at: '2030-01-01T01:00:01+01:00' }))
    assert.deepEqual(await s.listSubscriptions('s1'), [
      subscription('w1'),
      subscription('w2', 's1', { created_at: iso(1) }),
    ])

    w1.target = 'https://evil.example'
    ;(await s.listSubscriptions('s1'))[0]!.secret = 'changed'
    assert.deepEqual((await s.listSubscriptions('s1'))[0], subscription('w1'))
  })
}
