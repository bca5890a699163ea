/**
 * Memory that stays flat under a steady load (`npm run bench -- soak` measures it over minutes; this is its
 * machine-independent check): thousands of basket writes and compressed reads through the app, then a
 * forced garbage collection, and what the process still holds has not grown with the count of requests.
 *
 * What it caught: each basket version's rendered body and its compressed copies were kept, and a kept
 * brotli copy was a view on zlib's 16 KiB output chunk, so 2,000 versions retained tens of megabytes of
 * external memory that the cache counted as a few hundred bytes each.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { build, createTrip, bearer, type Built, type CreatedTrip } from '../helpers/build.ts'
import { checkedBag, readSearch } from '../helpers/flows.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Heap used and external memory after full collections (twice: the first may only queue finalizers). */
function retained(): number {
  gc()
  gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.external
}

const MB = 1024 * 1024

describe('memory under a steady load', () => {
  let t: Built
  let trip: CreatedTrip
  before(async () => {
    t = await build()
    trip = await createTrip(t)
  })
  after(() => t.close())

  test('basket writes and compressed reads retain nothing per version', async () => {
    const bags = readSearch(t, trip).then((s) => [checkedBag(s, 'p1'), checkedBag(s, 'p2')])
    const [a, b] = await bags
    const auth = { authorization: bearer(trip.trip_access_token) }
    const url = `/v2.2/trip/${trip.trip_id}/basket`
    const cycle = async (i: number) => {
      const put = await t.app.inject({
        method: 'PUT',
        url,
        headers: auth,
        payload: [{ product_id: (i % 2 ? a : b)!.product_id, passenger_id: i % 2 ? 'p1' : 'p2', quantity: 1 }],
      })
      assert.equal(put.statusCode, 200, put.body)
      for (const encoding of ['br', 'gzip', 'identity']) {
        const res = await t.app.inject({ method: 'GET', url, headers: { ...auth, 'accept-encoding': encoding } })
        assert.equal(res.statusCode, 200)
        if (encoding !== 'identity')
          assert.equal(res.headers['content-encoding'], encoding, 'the basket is large enough to be compressed')
      }
    }
    // Warm up (code paths compiled, caches and pools at their working size), then measure.
    for (let i = 0; i < 200; i++) await cycle(i)
    const start = retained()
    for (let i = 0; i < 2_000; i++) await cycle(i)
    const grown = (retained() - start) / MB
    // Before the fix: about 50 MB (16 KiB of zlib chunk per compressed copy, plus every version's JSON).
    assert.ok(grown < 5, `2,000 basket versions retained ${grown.toFixed(1)} MB`)
  })
})
