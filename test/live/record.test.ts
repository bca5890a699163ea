/**
 * The live run (`npm run test:duffel-live -- --record DIR`, test/live/duffel.live.ts) against the fake
 * Duffel, in CI: no machine of CI reaches Duffel, so this holds the script itself to working (the contract,
 * Duffel's test routes, the service end to end, all green against the fake), and its record mode to writing
 * what a seller's run against Duffel would: each answer under its route, redacted (no token, no traveller's
 * name, birth date or contact), in the form test/fakes/duffel/shapes.test.ts compares the fake with.
 *
 * What only a run against Duffel's test mode confirms is listed in docs/suppliers.md.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startFakeDuffel } from '../fakes/duffel/server.ts'
import { signature } from '../fakes/duffel/shapes.ts'
import { root } from '../helpers/process.ts'
import { redacted, routeOf } from './recorder.ts'
import { patience } from '../helpers/patience.ts'

test(
  'the live run passes against the fake, and --record writes each answer by route, redacted, in the form shapes.test reads',
  { timeout: patience(300_000) },
  async () => {
    const fake = await startFakeDuffel()
    const dir = mkdtempSync(join(tmpdir(), 'svc-record-'))
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/live/duffel.live.ts', '--record', dir], {
        cwd: root,
        env: { ...process.env, DUFFEL_TEST_TOKEN: fake.token, DUFFEL_API_URL: fake.url, CI: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let out = ''
      child.stdout.on('data', (c) => {
        out += String(c)
      })
      child.stderr.on('data', (c) => {
        out += String(c)
      })
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
      assert.equal(code, 0, out.slice(-4000))
      assert.ok(!out.includes(fake.token), 'the token is never printed')
      assert.match(out, /not run: airline_unknown/, 'a case without a route says it was not run')

      const routes = readdirSync(dir).sort()
      for (const route of [
        'offer',
        'seat_maps',
        'offer_request',
        'order',
        'order_available_services',
        'order_services',
        'order_create',
      ]) {
        assert.ok(routes.includes(route), `${route} recorded (${routes.join(', ')})`)
      }
      for (const route of routes) {
        for (const file of readdirSync(join(dir, route))) {
          const text = readFileSync(join(dir, route, file), 'utf8')
          const r = JSON.parse(text) as { route: string; method: string; path: string; status: number; body: unknown }
          assert.equal(r.route, route)
          // A traveller's given name is a whole JSON string ("Ada", "Adab"): as a bare word it can also end random
          // ids of the fake's seat maps (…4kAda"), which failed this in one clean-clone run.
          assert.ok(
            !text.includes(fake.token) && !/Lovelace|"Ada[a-h]?"|ada@example|\+44207946|1985-12-10/.test(text),
            `${route}/${file} holds no token and no traveller`,
          )
          assert.ok(
            !/(off|ord|pas)_[A-Za-z0-9]{6,}/.test(r.path),
            `${route}/${file}: ids are out of the path (${r.path})`,
          )
          // What shapes.test.ts reads of a recording: a route's answer whose paths it can sign.
          if (['offer', 'seat_maps'].includes(route) && r.status < 300)
            assert.ok(Object.keys(signature(route, [r.body]).paths).length > 10, `${route}/${file}`)
        }
      }
    } finally {
      await fake.close()
      rmSync(dir, { recursive: true, force: true })
    }
  },
)

test("the recorder names routes as the fake's shapes do, and redacts a traveller whatever the shape, keeping JSON types", () => {
  assert.equal(routeOf('GET', '/air/offers/off_1'), 'offer')
  assert.equal(routeOf('GET', '/air/seat_maps'), 'seat_maps')
  assert.equal(routeOf('POST', '/air/offer_requests'), 'offer_request')
  assert.equal(routeOf('GET', '/air/orders/ord_1/available_services'), 'order_available_services')
  assert.equal(routeOf('POST', '/air/orders/ord_1/services'), 'order_services')
  assert.equal(routeOf('DELETE', '/air/whatever'), 'other')
  const before = {
    data: {
      passengers: [
        {
          id: 'pas_1',
          given_name: 'Ada',
          family_name: 'Lovelace',
          born_on: '1985-12-10',
          age: 7,
          email: 'a@b.c',
          loyalty_programme_accounts: [{ account_number: '1' }],
        },
      ],
      note: 'Bearer duffel_test_abcdefgh123',
    },
  }
  assert.deepEqual(redacted(before), {
    data: {
      passengers: [
        {
          id: 'pas_1',
          given_name: '[redacted]',
          family_name: '[redacted]',
          born_on: '[redacted]',
          age: 7,
          email: '[redacted]',
          loyalty_programme_accounts: [],
        },
      ],
      note: 'Bearer [token]',
    },
  })
  assert.deepEqual(
    redacted({ given_name: null, title: null }),
    { given_name: null, title: null },
    'a null stays null: the shape is the point',
  )
})
