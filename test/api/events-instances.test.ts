/**
 * A change made on one instance reaches the event streams open on another (docs/decisions.md "Live basket
 * updates"): on PostgreSQL through LISTEN/NOTIFY (no polling: the check interval is set to an hour), on
 * SQLite through the version check of followed trips (two instances on one file, as the server and a
 * worker process are). Each instance is a real server on a socket.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pgSchemas } from '../helpers/pg-schemas.ts'
import { SqliteStore } from '../../server/store/sqlite.ts'
import { build, createTrip, bearer, basic, type Built } from '../helpers/build.ts'
import { checkedBag, readSearch, changeBasket } from '../helpers/flows.ts'
import { openEvents, type EventReader } from '../helpers/sse.ts'
import { until } from '../helpers/wait.ts'
import { defaultConfig, type CoreConfig } from '../../core/core.ts'
import type { Store } from '../../core/ports/store.ts'

const HOUR = 3_600_000

/** Two instances on one database; a stream opened on b sees a basket change made on a. */
function suite(
  name: string,
  open: () => Promise<{ stores: () => Promise<[Store, Store]>; cleanup: () => Promise<void> }>,
  live: CoreConfig['live'],
) {
  describe(name, () => {
    let a: Built
    let b: Built
    let baseB: string
    let cleanup: () => Promise<void>
    const readers: EventReader[] = []
    before(async () => {
      const db = await open()
      cleanup = db.cleanup
      const [sa, sb] = await db.stores()
      a = await build({ store: sa, config: { live } })
      b = await build({ store: sb, config: { live } })
      await b.app.listen({ port: 0, host: '127.0.0.1' })
      baseB = `http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      for (const r of readers) r.close()
      await a?.close()
      await b?.close()
      await a?.store.close()
      await b?.store.close()
      await cleanup?.()
    })

    test('a basket change on instance a is an event on instance b', async () => {
      const trip = await createTrip(a)
      const r = await openEvents(`${baseB}/v2.2/trip/${trip.trip_id}/events`, {
        authorization: bearer(trip.trip_access_token),
      })
      readers.push(r)
      assert.equal(r.response.status, 200)
      assert.equal((await r.next()).event, 'retry')
      assert.equal((await r.next()).event, 'search')
      const opened = await r.next()
      const bag = checkedBag(await readSearch(a, trip))
      const res = await changeBasket(
        a,
        trip,
        'PATCH',
        [{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }],
        basic(a.apiKey),
      )
      assert.equal(res.statusCode, 200, res.body)
      const changed = await r.next(3_000)
      assert.equal(changed.event, 'basket')
      assert.equal(Number(changed.id), Number(opened.id) + 1)
      assert.deepEqual(JSON.parse(changed.data), JSON.parse(res.body), 'b streams what a answered')
      assert.equal(b.core.context.live.streams, 1)
      r.close()
      await waitFor(() => b.core.context.live.streams === 0, 'the stream ended with its client')
    })
  })
}

const waitFor = (ok: () => boolean, what: string) => until(what, 2_000, () => (ok() ? true : undefined))

const url = process.env.DATABASE_URL_PG
if (!url) {
  test('event streams across instances on PostgreSQL', { skip: 'DATABASE_URL_PG not set' }, () => {})
} else {
  suite(
    'event streams across instances on PostgreSQL (LISTEN/NOTIFY)',
    async () => {
      const schemas = pgSchemas(url, 'svc_events')
      const schema = await schemas.fresh()
      const openStore = () => schemas.store(schema)
      return {
        stores: async () => {
          const first = openStore()
          await first.migrate()
          return [first, openStore()]
        },
        cleanup: () => schemas.drop(),
      }
    },
    { ...defaultConfig.live, pollMs: HOUR },
  )
}

suite(
  'event streams across instances on SQLite (version check)',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-events-'))
    const file = join(dir, 'svc.db')
    return {
      stores: async () => {
        const first = new SqliteStore(file)
        await first.migrate()
        return [first, new SqliteStore(file)]
      },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    }
  },
  { ...defaultConfig.live, pollMs: 100 },
)
