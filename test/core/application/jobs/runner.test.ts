/** Validity, fulfillment and the job runner, exercised on the core directly with a scripted supplier. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { coreFixture, tripRequest } from '../../../helpers/core.ts'
import { createSandboxSupplier } from '../../../../core/adapters/sandbox-airline/adapter.ts'
import { ProblemError } from '../../../../core/shared/errors.ts'
import type { FulfillOutcome, Supplier, RecheckResult, SupplierItem } from '../../../../core/ports/supplier.ts'
import type { Product } from '../../../../core/schemas/search.ts'

/** The sandbox airline, with recheck and fulfill answers a test can script. */
function scripted() {
  const sandbox = createSandboxSupplier()
  const state = {
    recheck: null as null | ((id: string) => RecheckResult),
    recheckThrows: false,
    fulfillCalls: [] as string[],
    /** What fulfill answers instead of the sandbox airline's booking, and what it was asked. */
    fulfill: null as null | ((item: SupplierItem) => FulfillOutcome),
    fulfillItems: [] as SupplierItem[],
  }
  const supplier: Supplier = {
    ...sandbox,
    async recheck(call, t, items) {
      if (state.recheckThrows) throw new Error('airline timeout')
      if (!state.recheck) return sandbox.recheck(call, t, items)
      return { results: items.map(({ item }) => state.recheck!(item.basket_item_id)) }
    },
    async fulfill(call, t, order, item) {
      state.fulfillCalls.push(order.order_id)
      state.fulfillItems.push(item)
      return state.fulfill ? state.fulfill(item) : sandbox.fulfill(call, t, order, item)
    },
  }
  return { supplier, state }
}

/** The airline's next check of the fixture's bag answers a price 10.00 higher (every other item valid). */
function airlineRaisesBag(f: Awaited<ReturnType<typeof withBag>>) {
  const old = f.bagItem.price
  const higher = { ...old.base.in_original_currency, amount: old.base.in_original_currency.amount + 1000 }
  f.state.recheck = (id) =>
    id === f.bagItem.basket_item_id
      ? { basket_item_id: id, outcome: 'price_changed', base: higher, taxes: [] }
      : { basket_item_id: id, outcome: 'valid' }
  return { old, higher }
}

async function withBag() {
  const s = scripted()
  const f = await coreFixture({ supplier: s.supplier })
  const trip = await f.api('createTrip', { body: tripRequest(f.clock.now()) })
  const search = await f.api('getSearch', { params: { trip_id: trip.trip_id, search_id: trip.search_id! } })
  const bag = Object.values(search.results.products.bag ?? {}).find(
    (b) => (b as Product).product_details.checked && (b as Product).price_and_availability.p1?.available,
  ) as Product
  const view = await f.api('addToBasket', {
    params: { trip_id: trip.trip_id },
    body: [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  const bagItem = Object.values(view.basket).find((i) => i.product_type === 'bag')!
  return { ...f, ...s, trip, bagItem }
}

const statuses = async (f: Awaited<ReturnType<typeof withBag>>) =>
  Object.fromEntries(
    Object.values((await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })).basket).map((i) => [
      i.product_type,
      i.validity.status,
    ]),
  )

test('a check moves items to checking, and the job brings them back valid with a new window', async () => {
  const f = await withBag()
  f.clock.advance(60_000)
  const checking = await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  assert.ok(Object.values(checking.basket).every((i) => i.validity.status === 'checking'))
  assert.equal(await f.core.drainJobs(), 1)
  const after = await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })
  const bag = after.basket[f.bagItem.basket_item_id]!
  assert.equal(bag.validity.status, 'valid')
  assert.equal(bag.validity.valid_from, f.clock.now().toISOString())
})

test('price_changed keeps the old price for display; accept makes it valid; DELETE rejects it', async () => {
  const f = await withBag()
  const { old } = airlineRaisesBag(f)
  await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  await f.core.drainJobs()
  const item = (await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })).basket[f.bagItem.basket_item_id]!
  assert.equal(item.validity.status, 'price_changed')
  assert.deepEqual(item.validity.previous_price, old)
  assert.ok(item.price.total.amount > old.total.amount)
  await assert.rejects(
    f.api('acceptItem', { params: { trip_id: f.trip.trip_id, basket_item_id: f.trip.tickets[0]!.basket_item_id } }),
    (e) => e instanceof ProblemError && e.code === 'basket_rule_violation',
  )
  const accepted = await f.api('acceptItem', {
    params: { trip_id: f.trip.trip_id, basket_item_id: f.bagItem.basket_item_id },
  })
  assert.equal(accepted.basket[f.bagItem.basket_item_id]!.validity.status, 'valid')
  assert.equal(accepted.basket[f.bagItem.basket_item_id]!.validity.previous_price, undefined)
})

test('a second check never accepts a changed price for the traveller', async () => {
  const f = await withBag()
  const { old } = airlineRaisesBag(f)
  await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  await f.core.drainJobs()
  const changed = (await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })).basket[f.bagItem.basket_item_id]!
  for (const answer of ['same new price', 'supplier says valid'] as const) {
    if (answer === 'supplier says valid') f.state.recheck = (id) => ({ basket_item_id: id, outcome: 'valid' })
    await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
    await f.core.drainJobs()
    const again = (await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })).basket[f.bagItem.basket_item_id]!
    assert.equal(again.validity.status, 'price_changed', answer)
    assert.deepEqual(again.validity.previous_price, old, `${answer}: the price the traveller agreed to is still shown`)
    assert.deepEqual(again.price, changed.price)
  }
  // The price going back to what was agreed needs no acceptance.
  f.state.recheck = (id) =>
    id === f.bagItem.basket_item_id
      ? { basket_item_id: id, outcome: 'price_changed', base: old.base.in_original_currency, taxes: [] }
      : { basket_item_id: id, outcome: 'valid' }
  await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  await f.core.drainJobs()
  const back = (await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })).basket[f.bagItem.basket_item_id]!
  assert.equal(back.validity.status, 'valid')
  assert.deepEqual(back.price, old)
})

test('an unavailable item says why; a supplier that keeps failing leaves items invalid after the last attempt', async () => {
  const f = await withBag()
  f.state.recheck = (id) => ({ basket_item_id: id, outcome: 'unavailable', reason: 'sold_out' })
  await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  await f.core.drainJobs()
  const item = (await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })).basket[f.bagItem.basket_item_id]!
  assert.equal(item.validity.status, 'unavailable')
  assert.equal(item.validity.reason, 'sold_out')

  const g = await withBag()
  g.state.recheckThrows = true
  await g.api('checkBasket', { params: { trip_id: g.trip.trip_id } })
  for (let i = 0; i < g.core.config.maxAttempts.basket_check; i++) {
    await g.core.drainJobs()
    assert.equal((await statuses(g)).bag, i < g.core.config.maxAttempts.basket_check - 1 ? 'checking' : 'invalid')
    g.clock.advance(g.core.config.backoffCapMs)
  }
  const [job] = await g.store.listJobs(['basket_check'])
  assert.equal(job!.status, 'dead')
  assert.match(job!.last_error ?? '', /airline timeout/)
})

test('a late answer of a superseded check does not overwrite the newer one', async () => {
  const f = await withBag()
  await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  const jobs = await f.store.listJobs(['basket_check'])
  assert.equal(jobs.length, 2)
  f.state.recheck = (id) => ({ basket_item_id: id, outcome: 'unavailable', reason: 'stale answer' })
  // Only the second check's items are pending; the first check's job finds nothing of its own to apply.
  const { value } = (await f.store.getTrip(f.trip.trip_id))!
  const secondCheck = (jobs[1]!.payload as { check_id: string }).check_id
  assert.ok(Object.values(value.pending_checks).every((c) => c === secondCheck))
})

/** The fixture's trip fulfilled: its bag ordered, the order queued. */
async function fulfilled(f: Awaited<ReturnType<typeof withBag>>) {
  const view = await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })
  await f.api('fulfill', { params: { trip_id: f.trip.trip_id }, body: fulfillRequest(f, view.trip_state_hash) })
}

const fulfillRequest = (f: Awaited<ReturnType<typeof withBag>>, hash: string) => ({
  trip_state_hash: hash,
  contact_details: { contact_details_type: 'passenger', passenger_id: 'p1', email: 'ada@example.com' },
  passengers: [
    {
      passenger_id: 'p1',
      first_names: 'Ada',
      surname: 'Lovelace',
      date_of_birth: '1985-12-10',
      passenger_type: 'adult',
    },
    {
      passenger_id: 'p2',
      first_names: 'Charles',
      surname: 'Babbage',
      date_of_birth: '1981-12-26',
      passenger_type: 'adult',
    },
    {
      passenger_id: 'p3',
      first_names: 'Byron',
      surname: 'Lovelace',
      date_of_birth: '2026-05-01',
      passenger_type: 'infant',
    },
  ],
  tickets: [
    {
      ticket_id: f.trip.tickets[0]!.ticket_id,
      access_details: { record_locator: 'ABC123', ticket_number: '1251234567890' },
      status: 'booked',
    },
  ],
  payment_details: { payment_type: 'service_settlement' },
})

const theOrder = async (f: Awaited<ReturnType<typeof withBag>>) => {
  const trip = await f.api('getTrip', { params: { trip_id: f.trip.trip_id } })
  return Object.values(trip.orders)[0] as Record<string, unknown> & { status: string; order_id: string }
}

test('an order the supplier cannot act on yet waits in_progress, its runs not counted as attempts, until the supplier answers', async () => {
  const f = await withBag()
  f.state.fulfill = () => ({ ok: 'waiting', reason: 'awaiting_payment' })
  await fulfilled(f)
  for (let i = 0; i < 15; i++) {
    await f.core.drainJobs()
    assert.equal((await theOrder(f)).status, 'in_progress')
    f.clock.advance(10 * 60_000)
  }
  const [job] = await f.store.listJobs(['fulfill_order'])
  assert.equal(job!.status, 'pending', 'fifteen waits, and the job (10 attempts) is not dead')
  assert.equal(job!.attempts, 0)
  f.state.fulfill = () => ({ ok: true, reference: 'PNR123', refs: { order_id: 'ord_1', service_ids: ['ser_1'] } })
  await f.core.drainJobs()
  const order = await theOrder(f)
  assert.equal(order.status, 'succeeded')
  assert.deepEqual(order.supplier_refs, { order_id: 'ord_1', service_ids: ['ser_1'] })
})

test('a purchase whose answer was lost is only looked for from then on, and fails supplier_outcome_unknown after the reconcile window', async () => {
  const f = await withBag()
  f.state.fulfill = () => ({ ok: 'unknown', reason: 'timed out', refs: { order_id: 'ord_1', request_id: 'req_1' } })
  await fulfilled(f)
  await f.core.drainJobs()
  assert.equal((await theOrder(f)).status, 'in_progress')
  assert.equal(f.state.fulfillItems[0]!.purchase_sent, undefined, 'the first run may buy')
  f.state.fulfill = () => ({ ok: 'unknown', reason: 'not in the order yet' })
  for (let elapsed = 0; elapsed < 9 * 60_000; elapsed += 30_000) {
    f.clock.advance(30_000)
    await f.core.drainJobs()
  }
  assert.ok(
    f.state.fulfillItems.slice(1).length >= 10 && f.state.fulfillItems.slice(1).every((i) => i.purchase_sent === true),
    'every later run only looks',
  )
  assert.equal((await theOrder(f)).status, 'in_progress', 'still looking within the window')
  f.clock.advance(60_000)
  await f.core.drainJobs()
  const order = await theOrder(f)
  assert.equal(order.status, 'failed')
  assert.equal(order.failure_reason, 'supplier_outcome_unknown')
  assert.deepEqual(
    order.supplier_refs,
    { order_id: 'ord_1', request_id: 'req_1' },
    'with what the seller needs to settle it with the supplier',
  )
  assert.equal('purchase_unknown_since' in order, false)
})

test('a run whose lease lapsed (its process stalled, another worker claimed the job) is stopped before it buys, and the next run only looks', async () => {
  const f = await withBag()
  let bought = 0
  f.state.fulfill = null
  const sandboxFulfill = f.supplier.fulfill
  f.supplier.fulfill = async (call, t, order, item) => {
    if (item.purchase_sent) return { ok: 'unknown', reason: "not found in the supplier's order" }
    // Stalled past the lease: another worker claims the job meanwhile.
    f.clock.advance(61_000)
    assert.ok(await f.store.claimJob(['fulfill_order'], f.clock.now(), 60_000), 'the other worker claims it')
    await item.beforePurchase!()
    bought++
    return sandboxFulfill(call, t, order, item)
  }
  await fulfilled(f)
  const report = await f.core.processNextJob(['fulfill_order'])
  assert.equal(report?.outcome, 'lease_lost')
  assert.equal(bought, 0, 'never bought by a run that lost its job')
})

test('a purchase noted as sent before it went (its answer never came back) is only looked for by the next run', async () => {
  const f = await withBag()
  const asked: Array<boolean | undefined> = []
  f.supplier.fulfill = async (_call, _t, _order, item) => {
    asked.push(item.purchase_sent)
    if (!item.purchase_sent) {
      await item.beforePurchase!()
      throw new Error('the process died with the purchase on its way')
    }
    return { ok: true, reference: 'PNR1', refs: { order_id: 'ord_1', service_ids: ['ser_1'] } }
  }
  await fulfilled(f)
  await f.core.drainJobs()
  f.clock.advance(60_000)
  await f.core.drainJobs()
  assert.deepEqual(asked, [undefined, true], 'the second run knew a purchase had been sent')
  assert.equal((await theOrder(f)).status, 'succeeded')
})

test("a lost answer found in the supplier's order later succeeds", async () => {
  const f = await withBag()
  f.state.fulfill = () => ({ ok: 'unknown', reason: 'timed out' })
  await fulfilled(f)
  await f.core.drainJobs()
  f.state.fulfill = (item) =>
    item.purchase_sent
      ? { ok: true, reference: 'PNR123', refs: { order_id: 'ord_1', service_ids: ['ser_9'] } }
      : { ok: false, reason: 'bought twice' }
  f.clock.advance(30_000)
  await f.core.drainJobs()
  assert.equal((await theOrder(f)).status, 'succeeded')
})

test("price_changed at fulfill: the order fails with the airline's price now, and its item is back in the basket price_changed at it; accepted, a fulfill orders it again", async () => {
  const f = await withBag()
  const unit = f.bagItem.price.base.in_original_currency
  const higher = { ...unit, amount: unit.amount / f.bagItem.quantity + 500 }
  f.state.fulfill = () => ({
    ok: false,
    reason: 'price_changed',
    refs: { order_id: 'ord_1' },
    price: { base: higher, taxes: [] },
  })
  await fulfilled(f)
  await f.core.drainJobs()
  const order = await theOrder(f)
  assert.equal(order.status, 'failed')
  assert.equal(order.failure_reason, 'price_changed')
  const view = await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })
  const item = view.basket[f.bagItem.basket_item_id]!
  assert.equal(item.validity.status, 'price_changed')
  assert.equal(item.order_id, undefined, 'the item is not ordered any more')
  assert.equal(item.price.base.in_original_currency.amount, higher.amount * item.quantity)
  assert.deepEqual(order.current_price, item.price, 'the order shows the price the item is offered at now')
  assert.deepEqual(item.validity.previous_price, f.bagItem.price)
  const accepted = await f.api('acceptItem', {
    params: { trip_id: f.trip.trip_id, basket_item_id: item.basket_item_id },
  })
  f.state.fulfill = null
  await f.api('fulfill', {
    params: { trip_id: f.trip.trip_id },
    body: { trip_state_hash: accepted.trip_state_hash, payment_details: { payment_type: 'service_settlement' } },
  })
  await f.core.drainJobs()
  const trip = await f.api('getTrip', { params: { trip_id: f.trip.trip_id } })
  const orders = Object.values(trip.orders) as Array<{ status: string; price: { total: { amount: number } } }>
  assert.deepEqual(orders.map((o) => o.status).sort(), ['failed', 'succeeded'])
  assert.equal(
    orders.find((o) => o.status === 'succeeded')!.price.total.amount,
    item.price.total.amount,
    'ordered at the new price',
  )
})

test('fulfill books the tickets, queues one order per ancillary, and the runner books each once', async () => {
  const f = await withBag()
  const view = await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })
  const req = fulfillRequest(f, view.trip_state_hash)
  const stale = { ...req, trip_state_hash: '0'.repeat(64) }
  await assert.rejects(
    f.api('fulfill', { params: { trip_id: f.trip.trip_id }, body: stale }),
    (e) => e instanceof ProblemError && e.code === 'trip_state_conflict',
  )
  const res = await f.api('fulfill', { params: { trip_id: f.trip.trip_id }, body: req })
  assert.equal(res.status, 'queued')
  const trip = await f.api('getTrip', { params: { trip_id: f.trip.trip_id } })
  assert.equal(trip.tickets[0]!.status, 'booked')
  assert.equal(trip.tickets[0]!.access_details.record_locator, 'ABC123')
  const orders = Object.values(trip.orders) as Array<{ order_id: string; status: string }>
  assert.equal(orders.length, 1)
  assert.equal(orders[0]!.status, 'queued')
  await assert.rejects(
    f.api('fulfill', { params: { trip_id: f.trip.trip_id }, body: req }),
    (e) => e instanceof ProblemError && e.code === 'trip_state_conflict',
  )
  await f.core.drainJobs()
  await f.core.drainJobs()
  const done = Object.values((await f.api('getTrip', { params: { trip_id: f.trip.trip_id } })).orders) as Array<{
    status: string
    supplier_reference?: string
  }>
  assert.equal(done[0]!.status, 'succeeded')
  assert.match(done[0]!.supplier_reference ?? '', /^SBX/)
  assert.deepEqual(f.state.fulfillCalls, [orders[0]!.order_id])
  await assert.rejects(
    f.api('addToBasket', { params: { trip_id: f.trip.trip_id }, body: [] }),
    (e) => e instanceof ProblemError,
  )
})

test("a check's new price sticks to the offer: removed and added again, or put back by PUT, the product comes back price_changed", async () => {
  const f = await withBag()
  const { old, higher } = airlineRaisesBag(f)
  await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  await f.core.drainJobs()
  const changed = (await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })).basket[f.bagItem.basket_item_id]!
  assert.equal(changed.validity.status, 'price_changed')
  f.clock.advance(60_000)

  const line = { product_id: f.bagItem.product_id, passenger_id: 'p1', quantity: 1 }
  const bagOf = (view: {
    basket: Record<string, { product_type: string; product_details: Record<string, unknown> }>
  }) =>
    Object.values(view.basket).find(
      (i) => i.product_type === 'bag' && i.product_details.passenger_id === 'p1',
    ) as typeof changed
  await f.api('removeFromBasket', { params: { trip_id: f.trip.trip_id, basket_item_id: f.bagItem.basket_item_id } })
  const readded = bagOf(await f.api('addToBasket', { params: { trip_id: f.trip.trip_id }, body: [line] }))
  assert.equal(readded.validity.status, 'price_changed', 'DELETE then PATCH does not undo the check')
  assert.deepEqual(readded.price, changed.price, 'at the price the check found')
  assert.deepEqual(readded.validity.previous_price, old, 'beside the price the traveller saw')
  assert.equal(readded.validity.valid_to, changed.validity.valid_to, "for what is left of the new price's window")

  await f.api('replaceBasket', { params: { trip_id: f.trip.trip_id }, body: [] })
  const put = bagOf(await f.api('replaceBasket', { params: { trip_id: f.trip.trip_id }, body: [line] }))
  assert.equal(put.validity.status, 'price_changed', 'PUT does not undo the check')
  assert.deepEqual(put.price, changed.price)

  // Two units are priced at the new unit price, and still need the traveller's word.
  const two = bagOf(
    await f.api('replaceBasket', { params: { trip_id: f.trip.trip_id }, body: [{ ...line, quantity: 2 }] }),
  )
  assert.equal(two.validity.status, 'price_changed')
  assert.equal(two.price.base.in_original_currency.amount, higher.amount * 2)
  assert.equal(two.validity.previous_price!.base.in_original_currency.amount, old.base.in_original_currency.amount * 2)

  const accepted = bagOf(
    await f.api('acceptItem', { params: { trip_id: f.trip.trip_id, basket_item_id: two.basket_item_id } }),
  )
  assert.equal(accepted.validity.status, 'valid')

  // A new search is the airline's newer word on its offers: what the older check said no longer applies.
  await f.api('startSearch', { params: { trip_id: f.trip.trip_id }, body: { bag: { search: true } } })
  await f.api('replaceBasket', { params: { trip_id: f.trip.trip_id }, body: [] })
  const fresh = bagOf(await f.api('addToBasket', { params: { trip_id: f.trip.trip_id }, body: [line] }))
  assert.equal(fresh.validity.status, 'valid')
  assert.deepEqual(fresh.price, old)
})

test("a check's new price holds for its window only; after it the search's price is used again", async () => {
  const f = await withBag()
  const { old } = airlineRaisesBag(f)
  await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  await f.core.drainJobs()
  const changed = (await f.api('getBasket', { params: { trip_id: f.trip.trip_id } })).basket[f.bagItem.basket_item_id]!
  await f.api('removeFromBasket', { params: { trip_id: f.trip.trip_id, basket_item_id: f.bagItem.basket_item_id } })
  f.clock.set(new Date(Date.parse(changed.validity.valid_to) + 1000))
  const view = await f.api('addToBasket', {
    params: { trip_id: f.trip.trip_id },
    body: [{ product_id: f.bagItem.product_id, passenger_id: 'p1', quantity: 1 }],
  })
  const bag = Object.values(view.basket).find((i) => i.product_type === 'bag')!
  assert.equal(bag.validity.status, 'valid')
  assert.deepEqual(bag.price, old)
  const { value } = (await f.store.getTrip(f.trip.trip_id))!
  assert.equal(Object.keys(value.checked_offers ?? {}).length, 1, 'kept until the next check prunes it')
  await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  f.state.recheck = (id) => ({ basket_item_id: id, outcome: 'valid' })
  await f.core.drainJobs()
  assert.deepEqual(
    (await f.store.getTrip(f.trip.trip_id))!.value.checked_offers,
    {},
    'an expired entry is dropped by the next check',
  )
})

test('a product a check found unavailable cannot be put back for that passenger (409 product_unavailable), by PATCH or PUT', async () => {
  const f = await withBag()
  f.state.recheck = (id) =>
    id === f.bagItem.basket_item_id
      ? { basket_item_id: id, outcome: 'unavailable', reason: 'sold_out' }
      : { basket_item_id: id, outcome: 'valid' }
  await f.api('checkBasket', { params: { trip_id: f.trip.trip_id } })
  await f.core.drainJobs()
  assert.equal((await statuses(f)).bag, 'unavailable')
  await f.api('removeFromBasket', { params: { trip_id: f.trip.trip_id, basket_item_id: f.bagItem.basket_item_id } })

  const before = await f.store.getTrip(f.trip.trip_id)
  const line = { product_id: f.bagItem.product_id, passenger_id: 'p1', quantity: 1 }
  const refused = (e: unknown) => {
    assert.ok(e instanceof ProblemError && e.code === 'product_unavailable', String(e))
    assert.match(e.message, /sold_out/)
    assert.deepEqual(
      e.errors?.map((x) => x.path),
      ['/0/product_id'],
    )
    return true
  }
  await assert.rejects(f.api('addToBasket', { params: { trip_id: f.trip.trip_id }, body: [line] }), refused)
  await assert.rejects(f.api('replaceBasket', { params: { trip_id: f.trip.trip_id }, body: [line] }), refused)
  assert.deepEqual(await f.store.getTrip(f.trip.trip_id), before, 'refused, nothing changed')

  // What the airline said of p1's offer is p1's: p2's offer of the product is its own, checked when p2 holds it.
  const view = await f.api('addToBasket', {
    params: { trip_id: f.trip.trip_id },
    body: [{ ...line, passenger_id: 'p2' }],
  })
  assert.equal(Object.values(view.basket).find((i) => i.product_type === 'bag')!.validity.status, 'valid')
})
