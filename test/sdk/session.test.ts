/**
 * The Session's ordering rules, with a fake client whose answers the test releases by hand: a read that
 * was overtaken by a change never puts back the older basket, out-of-order change answers keep the
 * newest, busy lasts until the last change, a disposed session stops polling, and a failed poll retries.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Session } from '../../sdk/session.ts'
import type { ApiClient, BasketView } from '../../sdk/client.ts'
import type { Basket, BasketItem } from '../../sdk/types.ts'

const FAR = new Date(Date.now() + 3600_000).toISOString()

function item(id: string, status: BasketItem['validity']['status'] = 'valid'): BasketItem {
  const money = { amount: 1000, currency: 'EUR', decimal_places: 2, in_original_currency: { amount: 1000, currency: 'EUR', decimal_places: 2 } }
  return {
    basket_item_id: id, display_name: id, product_id: `p-${id}`, product_type: 'bag', quantity: 1, ticket_id: 't', benefits: [],
    price: { base: money, total: money, fees: [], markups: [], taxes: [] }, product_details: {},
    validity: { status, valid_from: new Date().toISOString(), valid_to: FAR },
  } as unknown as BasketItem
}
const view = (...ids: string[]): BasketView => ({ trip_state_hash: ids.join(','), journeys: [], basket: Object.fromEntries(ids.map((id) => [id, item(id)])) as Basket })

/** A client whose every call waits until the test resolves it. */
function fakeClient() {
  const pending: Array<{ what: string; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = []
  const call = (what: string) => new Promise<never>((resolve, reject) => { pending.push({ what, resolve: resolve as (v: unknown) => void, reject }) })
  const client = {
    getTrip: () => Promise.resolve({ trip_id: 't', search_id: 's', currency: 'EUR', language: 'en-GB', journeys: [], passengers: [], tickets: [] }),
    getSearch: () => Promise.resolve({ search_id: 's', status: 'success', results: { products: {}, seatmaps: [] } }),
    getBasket: () => call('get'),
    addToBasket: () => call('add'),
    removeItem: () => call('remove'),
    acceptItem: () => call('accept'),
    checkBasket: () => call('check'),
  } as unknown as ApiClient
  const take = (what: string) => {
    const i = pending.findIndex((p) => p.what === what)
    assert.ok(i >= 0, `no pending ${what} call (pending: ${pending.map((p) => p.what).join(', ')})`)
    return pending.splice(i, 1)[0]!
  }
  return { client, pending, take }
}

const tick = () => new Promise((r) => setTimeout(r, 0))
const ids = (s: Session) => Object.keys(s.state.basket).sort()

async function loaded(pollMs = 1000) {
  const f = fakeClient()
  const s = new Session(f.client, { pollMs })
  const changes: string[][] = []
  s.addEventListener('basket-change', (e) => changes.push(Object.keys((e as CustomEvent<{ basket: Basket }>).detail.basket).sort()))
  const l = s.load()
  await tick()
  f.take('get').resolve(view('ticket'))
  await l
  changes.length = 0
  return { ...f, s, changes }
}

test('a read answered after a change does not put back the basket from before the change', async () => {
  const { s, take, changes } = await loaded()
  const read = s.refresh()
  const add = s.add('p-bag', 'p1')
  await tick()
  take('add').resolve(view('ticket', 'bag'))
  await add
  take('get').resolve(view('ticket')) // the read left before the click: stale
  await read
  assert.deepEqual(ids(s), ['bag', 'ticket'])
  assert.deepEqual(changes, [['bag', 'ticket']])
  s.dispose()
})

test('a read answered while a change is on its way is not shown either', async () => {
  const { s, take, changes } = await loaded()
  const add = s.add('p-bag', 'p1')
  const read = s.refresh()
  await tick()
  take('get').resolve(view('ticket'))
  await read
  take('add').resolve(view('ticket', 'bag'))
  await add
  assert.deepEqual(ids(s), ['bag', 'ticket'])
  assert.deepEqual(changes, [['bag', 'ticket']])
  s.dispose()
})

test('two changes answered out of order: the later change\'s answer stays', async () => {
  const { s, pending, changes } = await loaded()
  const first = s.add('p-a', 'p1')
  const second = s.add('p-b', 'p1')
  await tick()
  const [a, b] = [pending.shift()!, pending.shift()!]
  b.resolve(view('ticket', 'a', 'b'))
  await second
  assert.equal(s.state.busy, true, 'still busy: the first change has no answer yet')
  a.resolve(view('ticket', 'a'))
  await first
  assert.equal(s.state.busy, false)
  assert.deepEqual(ids(s), ['a', 'b', 'ticket'])
  assert.deepEqual(changes, [['a', 'b', 'ticket']])
  s.dispose()
})

test('a disposed session schedules nothing, even when a read in flight answers later', async () => {
  const { s, take, pending } = await loaded(5)
  const read = s.refresh()
  s.dispose()
  await tick()
  take('get').resolve({ ...view('ticket'), basket: { x: item('x', 'checking') } })
  await read
  await new Promise((r) => setTimeout(r, 30))
  assert.equal(pending.length, 0, 'no poll after dispose')
})

test('a failed poll is retried (it used to stop polling for good)', async () => {
  const { s, take, pending } = await loaded(5)
  const check = s.check()
  await tick()
  take('check').resolve({ ...view(), basket: { x: item('x', 'checking') } })
  await check
  await new Promise((r) => setTimeout(r, 20))
  take('get').reject(new Error('offline'))
  await new Promise((r) => setTimeout(r, 40))
  assert.ok(pending.some((p) => p.what === 'get'), 'polled again after the failure')
  take('get').resolve({ ...view(), basket: { x: item('x', 'valid') } })
  await tick()
  assert.equal(s.state.basket.x?.validity.status, 'valid')
  s.dispose()
})
