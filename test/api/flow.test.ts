/**
 * The spec's integration flow ("What the service does", steps 3–8) end to end over HTTP, each step with the
 * credential the spec gives it: the seller's backend (API key) creates the trip, the browser (access token)
 * searches and fills the basket, the backend reads and revalidates the basket, completes the passengers,
 * charges for the current trip_state_hash and fulfills; the worker books the orders.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { build, basic, bearer, body, createTrip } from '../helpers/build.ts'
import {
  checkedBag,
  seats,
  changeBasket,
  readBasket,
  checkBasket,
  patchTrip,
  readTrip,
  fulfill,
  fulfillRequest,
  pollUntilChecked,
  statuses,
  type SearchProduct,
} from '../helpers/flows.ts'

test('the whole flow: create → search → basket → check → PATCH passengers → check → fulfill with the current hash → orders succeeded, tickets booked', async () => {
  const t = await build()
  try {
    // 3. The seller's backend creates the trip with its API key.
    const trip = await createTrip(t)
    const browser = bearer(trip.trip_access_token)

    // 5. The widget searches with the access token.
    const started = await t.app.inject({
      method: 'POST',
      url: `/v2.2/trip/${trip.trip_id}/search`,
      headers: { authorization: browser },
      payload: { bag: { search: true }, seat: { search: true } },
    })
    assert.equal(started.statusCode, 201, started.body)
    const { search_id } = body(started)
    const read = await t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${trip.trip_id}/search/${search_id}`,
      headers: { authorization: browser },
    })
    assert.equal(read.statusCode, 200, read.body)
    const search = body<{
      search_id: string
      status: string
      results: { products: Record<string, Record<string, SearchProduct>>; seatmaps: unknown[] }
    }>(read)
    assert.equal(search.status, 'success')

    // The traveller picks a bag each for p1 and p2 and a seat for p2.
    const added = await changeBasket(
      t,
      trip,
      'PATCH',
      [
        { product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1', quantity: 1 },
        { product_id: checkedBag(search, 'p2').product_id, passenger_id: 'p2', quantity: 1 },
        { product_id: seats(search, 'p2')[0]!.product_id, passenger_id: 'p2', quantity: 1 },
      ],
      browser,
    )
    assert.equal(added.statusCode, 200, added.body)

    // 7. The backend reads the basket and revalidates it, polling until nothing is `checking`.
    const basket = await readBasket(t, trip)
    const items = Object.values(basket.basket)
    assert.deepEqual(items.map((i) => i.product_type).sort(), ['bag', 'bag', 'seat', 'ticket'])
    const check = await checkBasket(t, trip)
    assert.equal(check.statusCode, 202, check.body)
    assert.ok(Object.values(statuses(body(check))).every((s) => s === 'checking'))
    const checked = await pollUntilChecked(t, trip)
    assert.deepEqual(new Set(Object.values(statuses(checked))), new Set(['valid']))

    // 8. Passenger details; the items that depend on them are checked again, then the whole basket once more.
    const patched = await patchTrip(t, trip, {
      passengers: [
        {
          passenger_id: 'p1',
          first_names: 'Ada',
          surname: 'Lovelace',
          date_of_birth: '1985-12-10',
          gender: 'female',
          title: 'Ms',
        },
        {
          passenger_id: 'p2',
          first_names: 'Charles',
          surname: 'Babbage',
          date_of_birth: '1981-12-26',
          gender: 'male',
          title: 'Mr',
        },
        { passenger_id: 'p3', first_names: 'Byron', surname: 'Lovelace', date_of_birth: '2026-06-01', on_lap_of: 'p1' },
      ],
    })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.ok(Object.values(statuses(body(patched))).includes('checking'), "the passengers' items are being checked")
    assert.equal((await checkBasket(t, trip)).statusCode, 202)
    const final = await pollUntilChecked(t, trip)
    assert.deepEqual(
      new Set(Object.values(statuses(final))),
      new Set(['valid']),
      'everything valid: the traveller may be charged',
    )
    assert.notEqual(final.trip_state_hash, basket.trip_state_hash)

    // The charge is for exactly this state: fulfill with its hash.
    const res = await fulfill(t, trip, fulfillRequest(trip, final.trip_state_hash), {
      'idempotency-key': `charge-${trip.trip_id}`,
    })
    assert.equal(res.statusCode, 202, res.body)
    assert.equal(body(res).status, 'queued')

    await t.core.drainJobs()
    const done = await readTrip(t, trip)
    const orders = Object.values(done.orders) as Array<{
      status: string
      basket_item_id: string
      supplier_reference?: string
    }>
    assert.equal(orders.length, 3, 'one order per ancillary')
    assert.deepEqual(
      new Set(orders.map((o) => o.basket_item_id)),
      new Set(items.filter((i) => i.product_type !== 'ticket').map((i) => i.basket_item_id)),
    )
    for (const o of orders) {
      assert.equal(o.status, 'succeeded')
      assert.ok(o.supplier_reference)
    }
    for (const ticket of done.tickets) {
      assert.equal(ticket.status, 'booked')
      assert.equal(ticket.access_details.record_locator, 'ABC120')
    }
    // The browser can follow it too.
    const seen = await t.app.inject({
      method: 'GET',
      url: `/v2.2/trip/${trip.trip_id}`,
      headers: { authorization: browser },
    })
    assert.deepEqual(body(seen).orders, done.orders)
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: `/v2.2/trip/${trip.trip_id}`,
          headers: { authorization: basic(t.apiKey) },
        })
      ).statusCode,
      200,
    )
  } finally {
    await t.close()
  }
})
