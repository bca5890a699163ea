/**
 * A trip's timeline through the admin API, on SQLite and (with DATABASE_URL_PG) PostgreSQL: a trip driven
 * through create, search, basket, check and fulfill records each step in order (with the outcome per product
 * type, the basket's amounts, the check's answer, the orders' statuses), its supplier calls are listed apart,
 * the seller's supplier health counts them, a key of another seller finds none of it, and no entry holds a
 * token, a card field or a passenger's document.
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { build, bearer, body, type Built } from '../helpers/build.ts'
import {
  readSearch,
  checkedBag,
  addItems,
  fulfill,
  fulfillRequest,
  checkBasket,
  pollUntilChecked,
} from '../helpers/flows.ts'
import { createTrip } from '../helpers/build.ts'
import { sqlStores } from '../helpers/sql-stores.ts'

// DATABASE_URL_PG: the runner starts PostgreSQL for this file (test/run-node.ts).
const stores = sqlStores('svc_timeline')

const get = (t: Built, url: string, key: string) =>
  t.app.inject({ method: 'GET', url, headers: { authorization: bearer(key) } })

for (const [name, open] of stores) {
  describe(`a trip's timeline on ${name}`, () => {
    test('create, search, basket, check and fulfill, read back through the admin API', async () => {
      const t = await build({ store: await open() })
      try {
        const ops = (await t.core.createOperatorKey({ name: 'ops' })).key
        const other = await t.core.createSeller({ name: 'Other', origins: [], sandbox: true })
        const theirs = (await t.core.createOperatorKey({ name: 'theirs', sellerId: other.seller.seller_id })).key

        const trip = await createTrip(t)
        const search = await readSearch(t, trip)
        await addItems(t, trip, [{ product_id: checkedBag(search, 'p1').product_id, passenger_id: 'p1' }])
        assert.equal((await checkBasket(t, trip)).statusCode < 300, true)
        const checked = await pollUntilChecked(t, trip)
        const res = await fulfill(t, trip, fulfillRequest(trip, checked.trip_state_hash))
        assert.equal(res.statusCode, 202, res.body)
        await t.core.drainJobs()

        const url = `/admin/v1/trips/${trip.trip_id}/events`
        const all = body<{ data: any[]; next_after: string | null }>(await get(t, `${url}?limit=200`, ops))
        const kinds = all.data.map((e) => e.kind)
        const changes = kinds.filter((k) => k !== 'supplier_call')
        const order = ['trip_created', 'search_started', 'search_ended', 'basket_changed', 'fulfill_accepted']
        assert.deepEqual(
          changes.filter((k) => order.includes(k)),
          order,
          `in order: ${kinds.join(', ')}`,
        )
        assert.ok(changes.includes('validity_checked'), kinds.join(', '))
        const seqs = all.data.map((e) => Number(e.seq))
        assert.deepEqual(
          seqs,
          [...seqs].sort((a, b) => a - b),
          'oldest first',
        )
        assert.ok(all.data.every((e) => e.trip_id === trip.trip_id && e.seller_id === t.seller.seller_id))

        const ended = all.data.find((e) => e.kind === 'search_ended')
        assert.equal(ended.detail.status, 'success')
        assert.ok(
          Object.values(ended.detail.types).every((v) => v === 'ok'),
          JSON.stringify(ended.detail),
        )
        const basket = all.data.find((e) => e.kind === 'basket_changed')
        assert.equal(basket.detail.added[0].product_type, 'bag')
        assert.equal(typeof basket.detail.total.amount, 'number')
        const statuses = all.data.filter((e) => e.kind === 'order_status').map((e) => e.detail.status)
        assert.equal(statuses.at(-1), 'succeeded', statuses.join(', '))
        assert.ok(
          all.data.find((e) => e.kind === 'order_status' && e.detail.status === 'succeeded').detail.supplier_reference,
        )

        // Paged: two at a time gives the same entries.
        const paged: any[] = []
        let after: string | null = null
        do {
          const p: { data: any[]; next_after: string | null } = body(
            await get(t, `${url}?limit=2${after ? `&after=${after}` : ''}`, ops),
          )
          paged.push(...p.data)
          after = p.next_after
        } while (after)
        assert.deepEqual(paged, all.data)

        // The supplier calls apart: the search's, the check's, the booking's.
        const calls = body<{ data: any[] }>(await get(t, `/admin/v1/trips/${trip.trip_id}/supplier-calls`, ops)).data
        assert.deepEqual([...new Set(calls.map((c) => c.detail.operation))].sort(), ['fulfill', 'recheck', 'search'])
        for (const c of calls) {
          assert.equal(c.detail.outcome, 'ok')
          assert.equal(typeof c.detail.duration_ms, 'number')
        }
        const health = body<any>(await get(t, `/admin/v1/sellers/${t.seller.seller_id}/supplier-health`, ops))
        assert.equal(health.calls, calls.length)
        assert.equal(health.errors, 0)
        assert.equal(typeof health.p50_ms, 'number')
        assert.ok(health.p95_ms >= health.p50_ms)

        // Nothing secret: no token, card or document anywhere in the timeline.
        const text = JSON.stringify(all.data)
        assert.doesNotMatch(text, /eyJ|svc_|card|cvc|passport|document|date_of_birth/i)

        // Another seller's key: not found, for the trip and the seller alike.
        assert.equal((await get(t, url, theirs)).statusCode, 404)
        assert.equal((await get(t, `/admin/v1/trips/${trip.trip_id}/supplier-calls`, theirs)).statusCode, 404)
        assert.equal((await get(t, `/admin/v1/sellers/${t.seller.seller_id}/supplier-health`, theirs)).statusCode, 404)
        assert.equal((await get(t, `/admin/v1/trips/nope/events`, ops)).statusCode, 404)
        assert.equal((await get(t, `${url}?after=abc`, ops)).statusCode, 400)
      } finally {
        await t.close()
      }
    })
  })
}
