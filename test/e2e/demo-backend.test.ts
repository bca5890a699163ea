/**
 * The demo checkout's backend (examples/seller-checkout/backend.ts) without a browser: its form rules, its
 * routes on a started server, and how `npm start` gives it an API key on any database.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { root, startServer } from '../helpers/process.ts'
import {
  ageOn,
  checkCancelRequest,
  checkShownQuote,
  checkTravellerForm,
  recordLocator,
  ticketNumber,
} from '../../examples/seller-checkout/backend.ts'
import { patience } from '../helpers/patience.ts'

const trip = {
  passengers: [
    { passenger_id: 'p1', type: 'adult' },
    { passenger_id: 'p2', type: 'adult' },
    { passenger_id: 'p3', type: 'infant', on_lap_of: 'p1' },
  ],
  journeys: [
    { segments: [{ departure_time: '2027-03-10T09:30:00+00:00' }] },
    { segments: [{ departure_time: '2027-03-17T18:30:00-05:00' }] },
  ],
} as unknown as Parameters<typeof checkTravellerForm>[1]

const good = {
  passengers: [
    { passenger_id: 'p1', first_names: ' Ada  Augusta ', surname: 'Lovelace', date_of_birth: '1985-12-10' },
    { passenger_id: 'p2', first_names: 'Charles', surname: "O'Neil-Babbage", date_of_birth: '2015-03-10' },
    { passenger_id: 'p3', first_names: 'Byron', surname: 'Lovelace', date_of_birth: '2025-03-18' },
  ],
  contact: { email: 'ada@example.com', phone: '+44 20 7946 0000' },
}

const problemOf = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    return (e as { problem: { status: number; code: string; errors: Array<{ path: string; message: string }> } })
      .problem
  }
  assert.fail('expected a refusal')
}

test('the traveller form: names as on a passport, adults 12+ when they fly out, a lap infant under 2 when they fly back', () => {
  const form = checkTravellerForm(good, trip, '2026-11-22')
  assert.equal(form.passengers[0]!.first_names, 'Ada Augusta', 'spaces are tidied')
  assert.equal(form.passengers[1]!.date_of_birth, '2015-03-10', 'exactly 12 on the day of travel is an adult')

  const p = problemOf(() =>
    checkTravellerForm(
      {
        passengers: [
          { passenger_id: 'p1', first_names: '', surname: 'L0velace', date_of_birth: '2023-02-30' },
          { passenger_id: 'p2', first_names: 'Charles', surname: 'Babbage', date_of_birth: '2015-03-11' },
          { passenger_id: 'p3', first_names: 'Byron', surname: 'Lovelace', date_of_birth: '2025-03-17' },
        ],
        contact: { email: 'ada@', phone: 'call me' },
      },
      trip,
      '2026-11-22',
    ),
  )
  assert.equal(p.status, 400)
  assert.equal(p.code, 'validation_error')
  assert.deepEqual(
    p.errors.map((e) => e.path),
    [
      '/passengers/0/first_names',
      '/passengers/0/surname',
      '/passengers/0/date_of_birth',
      '/passengers/1/date_of_birth',
      '/passengers/2/date_of_birth',
      '/contact/email',
      '/contact/phone',
    ],
  )
  assert.match(p.errors[3]!.message, /12 or older/)
  assert.match(p.errors[4]!.message, /under 2 on the return flight/)

  const missing = problemOf(() => checkTravellerForm({ passengers: [good.passengers[0]] }, trip, '2026-11-22'))
  assert.ok(missing.errors.some((e) => e.path === '/passengers/1/first_names' && e.message === 'is required'))
  const future = problemOf(() =>
    checkTravellerForm(
      {
        ...good,
        passengers: [good.passengers[0], good.passengers[1], { ...good.passengers[2], date_of_birth: '2026-12-01' }],
      },
      trip,
      '2026-11-22',
    ),
  )
  assert.deepEqual(future.errors, [{ path: '/passengers/2/date_of_birth', message: 'is in the future' }])
})

test('ages, record locators and ticket numbers', () => {
  assert.equal(ageOn('2000-02-29', '2016-02-28'), 15)
  assert.equal(ageOn('2000-02-29', '2016-03-01'), 16)
  assert.equal(ageOn('2010-06-15', '2022-06-15'), 12)
  for (let i = 0; i < 50; i++) {
    assert.match(recordLocator(), /^[A-HJ-NP-Z2-9]{6}$/)
    assert.match(ticketNumber(), /^125\d{10}$/)
  }
})

test('the after-sale requests: which extras to cancel, and the quote the traveller was shown', () => {
  assert.deepEqual(checkCancelRequest({ basket_item_ids: ['a-1', 'b_2'] }), { basket_item_ids: ['a-1', 'b_2'] })
  for (const [body, paths] of [
    [undefined, ['/basket_item_ids']],
    [{ basket_item_ids: [] }, ['/basket_item_ids']],
    [{ basket_item_ids: 'a' }, ['/basket_item_ids']],
    [{ basket_item_ids: Array.from({ length: 21 }, (_, i) => `i${i}`) }, ['/basket_item_ids']],
    [{ basket_item_ids: ['ok', '../x', 7] }, ['/basket_item_ids/1', '/basket_item_ids/2']],
    [{ basket_item_ids: ['a', 'a'] }, ['/basket_item_ids']],
  ] as const) {
    const p = problemOf(() => checkCancelRequest(body))
    assert.equal(p.status, 400)
    assert.deepEqual(
      p.errors.map((e) => e.path),
      paths,
      JSON.stringify(body),
    )
  }
  const shown = { basket_item_ids: ['a'], refund: 7150, quote_expires_at: '2026-11-22T10:15:00.000Z' }
  assert.deepEqual(checkShownQuote(shown), shown)
  const p = problemOf(() => checkShownQuote({ ...shown, refund: 71.5, quote_expires_at: 'soon' }))
  assert.deepEqual(
    p.errors.map((e) => e.path),
    ['/expected/refund', '/expected/quote_expires_at'],
  )
})

// ---------------------------------------------------------------- over HTTP

const KEY = 'svc_test_demo_backend_0123456789'
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`

/** A browser in miniature: keeps the shop's cookie, speaks JSON. */
function shopper(base: string) {
  let cookie = ''
  return {
    get cookie() {
      return cookie
    },
    set cookie(v: string) {
      cookie = v
    },
    async call(method: string, path: string, body?: unknown) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(cookie ? { cookie } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const set = res.headers.get('set-cookie')
      if (set) cookie = set.split(';')[0]!
      const text = await res.text()
      return {
        status: res.status,
        type: res.headers.get('content-type') ?? '',
        headers: res.headers,
        text,
        json: text ? JSON.parse(text) : null,
      }
    },
  }
}

test(
  'the shop backend: the page and its files, checkouts bound to their browser, tokens without refresh tokens, form checks, pay, and API refusals passed through',
  { timeout: patience(120_000) },
  async () => {
    const server = await startServer({ DATABASE_URL: 'memory:', SVC_DEMO_API_KEY: KEY })
    try {
      const base = server.base
      const page = await fetch(`${base}/`)
      assert.equal(page.status, 200)
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
      assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'; style-src 'self'/)
      assert.match(await page.text(), /<script src="\/javascript\/v2\.2\/svc\.min\.js" defer><\/script>/)
      assert.match((await fetch(`${base}/demo/app.js`)).headers.get('content-type') ?? '', /^text\/javascript/)
      const nope = await fetch(`${base}/demo/backend.ts`)
      assert.equal(nope.status, 404, "only the page's own files are served")
      assert.match(nope.headers.get('content-type') ?? '', /problem\+json/)

      const ada = shopper(base)
      for (const scenario of ['meteor_strike', 'toString']) {
        const bad = await ada.call('POST', '/demo/api/checkout', { scenario })
        assert.equal(bad.status, 400, scenario)
        assert.equal(bad.json.code, 'validation_error')
      }

      const created = await ada.call('POST', '/demo/api/checkout', { scenario: 'normal' })
      assert.equal(created.status, 201, created.text)
      assert.match(
        created.headers.get('set-cookie') ?? '',
        /^skyshop_session=[\w-]{16,}; Path=\/demo\/api; HttpOnly; SameSite=Strict$/,
      )
      const tripId: string = created.json.trip.trip_id
      assert.ok(created.json.trip_access_token)
      assert.doesNotMatch(created.text, /refresh_token|svc_test_/, 'no refresh token and no key for the page')
      assert.equal(created.json.trip.journeys[0].segments[0].marketing_flight_number, '117')
      assert.equal(created.json.trip.passengers.length, 3)

      // Another browser (or none) cannot see or use Ada's checkout.
      const eve = shopper(base)
      assert.equal((await eve.call('GET', `/demo/api/checkout/${tripId}/status`)).status, 404)
      eve.cookie = 'skyshop_session=someone-elses-session-id'
      assert.equal((await eve.call('POST', `/demo/api/checkout/${tripId}/token`)).json.code, 'not_found')

      // Tokens: several at once (the refresh token rotates: one refresh at a time), each works on the API.
      const tokens = await Promise.all([1, 2, 3].map(() => ada.call('POST', `/demo/api/checkout/${tripId}/token`)))
      for (const t of tokens) {
        assert.equal(t.status, 200, t.text)
        assert.deepEqual(Object.keys(t.json), ['trip_access_token'])
        const read = await fetch(`${base}/v2.2/trip/${tripId}`, {
          headers: { authorization: `Bearer ${t.json.trip_access_token}` },
        })
        assert.equal(read.status, 200)
      }
      assert.equal(
        (await ada.call('POST', `/demo/api/checkout/${tripId}/token`)).status,
        200,
        'the session survives concurrent renewals',
      )

      // A bag for passenger 1, as the widget would add it with the access token.
      const token = tokens[0]!.json.trip_access_token
      const search = (await (
        await fetch(`${base}/v2.2/trip/${tripId}/search/${created.json.trip.search_id}`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as {
        results: {
          products: {
            bag: Record<
              string,
              {
                product_id: string
                product_details: { checked: boolean }
                included?: boolean
                price_and_availability: Record<string, { available: boolean }>
              }
            >
          }
        }
      }
      const bag = Object.values(search.results.products.bag).find(
        (p) => p.product_details.checked && !p.included && p.price_and_availability['p1']!.available,
      )!
      const added = await fetch(`${base}/v2.2/trip/${tripId}/basket`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify([{ product_id: bag.product_id, passenger_id: 'p1', quantity: 1 }]),
      })
      assert.equal(added.status, 200)

      // Paying before the travellers' details are known is refused before any charge.
      const early = await ada.call('POST', `/demo/api/checkout/${tripId}/pay`, { expected: {} })
      assert.equal(early.status, 400)
      assert.equal(early.json.code, 'validation_error')

      const refused = await ada.call('PATCH', `/demo/api/checkout/${tripId}/passengers`, {
        passengers: [],
        contact: {},
      })
      assert.equal(refused.status, 400)
      assert.match(refused.type, /^application\/problem\+json/)
      assert.equal(refused.json.errors.length, 11, JSON.stringify(refused.json.errors))
      const infantDob = new Date(Date.now() - 100 * 86_400_000).toISOString().slice(0, 10)
      const saved = await ada.call('PATCH', `/demo/api/checkout/${tripId}/passengers`, {
        ...good,
        passengers: [
          good.passengers[0],
          { ...good.passengers[1], date_of_birth: '1981-12-26' },
          { ...good.passengers[2], date_of_birth: infantDob },
        ],
      })
      assert.equal(saved.status, 200, saved.text)
      assert.deepEqual(
        saved.json.passengers.map((p: { first_names: string }) => p.first_names),
        ['Ada Augusta', 'Charles', 'Byron'],
      )
      assert.equal(saved.json.contact_details.email, 'ada@example.com')
      assert.ok(!('trip_access_token' in saved.json))

      // The traveller saw another basket than the one checked: nothing is charged, the basket comes back.
      const stale = await ada.call('POST', `/demo/api/checkout/${tripId}/pay`, {
        expected: { items: [], total: 122500, currency: 'GBP' },
      })
      assert.equal(stale.json.outcome, 'total_changed', stale.text)
      const items = Object.values(stale.json.basket) as Array<{
        basket_item_id: string
        price: { total: { amount: number } }
      }>
      const total = items.reduce((n, i) => n + i.price.total.amount, 0)
      assert.equal((await ada.call('GET', `/demo/api/checkout/${tripId}/status`)).json.payment, null)

      const paid = await ada.call('POST', `/demo/api/checkout/${tripId}/pay`, {
        expected: { items: items.map((i) => i.basket_item_id), total, currency: 'GBP' },
      })
      assert.equal(paid.json.outcome, 'paid', paid.text)
      assert.equal(paid.json.trip.payment.status, 'captured')
      assert.equal(paid.json.trip.payment.amount, total)
      assert.equal(paid.json.trip.tickets[0].status, 'booked')
      assert.match(paid.json.trip.tickets[0].access_details.record_locator, /^[A-Z2-9]{6}$/)
      assert.equal(
        (await ada.call('POST', `/demo/api/checkout/${tripId}/pay`, { expected: {} })).json.code,
        'already_paid',
      )

      // The API's refusals reach the page as the API wrote them: a bought item is read-only.
      const final = await ada.call('DELETE', `/demo/api/checkout/${tripId}/item/${items[1]!.basket_item_id}`)
      assert.equal(final.status, 409)
      assert.equal(final.json.code, 'item_ordered')
      assert.match(final.json.request_id, /\w/)
      assert.match(final.type, /^application\/problem\+json/)
      const unknown = await ada.call('POST', `/demo/api/checkout/${tripId}/accept/no-such-item`)
      assert.equal(unknown.status, 404)

      // The API's truth, as the shop reads it: the orders end.
      let status: { orders: Record<string, { status: string }> } = { orders: {} }
      for (let i = 0; i < 60; i++) {
        status = (await ada.call('GET', `/demo/api/checkout/${tripId}/status`)).json
        if (Object.values(status.orders).every((o) => o.status === 'succeeded' || o.status === 'failed')) break
        await new Promise((r) => setTimeout(r, 250))
      }
      assert.deepEqual(
        Object.values(status.orders).map((o) => o.status),
        ['succeeded'],
      )
    } finally {
      await server.stop()
    }
  },
)

test(
  'the shop backend after booking: quotes a cancellation, confirms only the quote the traveller saw (a retry answers the same), and charges and orders a bag added later',
  { timeout: patience(120_000) },
  async () => {
    const server = await startServer({ DATABASE_URL: 'memory:', SVC_DEMO_API_KEY: KEY })
    try {
      const base = server.base
      const ada = shopper(base)
      const created = await ada.call('POST', '/demo/api/checkout', { scenario: 'normal' })
      const tripId: string = created.json.trip.trip_id
      const token: string = created.json.trip_access_token
      const at = (path: string) => `/demo/api/checkout/${tripId}${path}`

      // Nothing to manage before the booking is paid.
      for (const [path, body] of [
        ['/cancellation', { basket_item_ids: ['x'] }],
        ['/cancellation/confirm', {}],
        ['/extras/pay', {}],
      ] as const) {
        const early = await ada.call('POST', at(path), body)
        assert.equal(early.status, 409, path)
        assert.equal(early.json.code, 'not_booked')
      }

      type Search = {
        results: {
          products: {
            bag: Record<
              string,
              {
                product_id: string
                product_details: { checked: boolean }
                included?: boolean
                price_and_availability: Record<string, { available: boolean }>
              }
            >
          }
        }
      }
      const search = (await (
        await fetch(`${base}/v2.2/trip/${tripId}/search/${created.json.trip.search_id}`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as Search
      const bag = Object.values(search.results.products.bag).find(
        (p) => p.product_details.checked && !p.included && p.price_and_availability['p1']!.available,
      )!
      const addBag = async (passenger: string) => {
        const res = await fetch(`${base}/v2.2/trip/${tripId}/basket`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify([{ product_id: bag.product_id, passenger_id: passenger, quantity: 1 }]),
        })
        assert.equal(res.status, 200, await res.text())
      }
      type Item = {
        basket_item_id: string
        product_type: string
        order_id?: string
        price: { total: { amount: number; currency: string } }
      }
      type Status = {
        basket: Record<string, Item>
        orders: Record<string, { status: string; basket_item_id: string; refund?: { amount: number } }>
        extra_payments: Array<{ status: string; amount: number; basket_item_ids: string[] }>
      }
      const status = async () => (await ada.call('GET', at('/status'))).json as Status
      const settled = async (done: (s: Status) => boolean) => {
        for (let i = 0; i < 80; i++) {
          const s = await status()
          if (done(s)) return s
          await new Promise((r) => setTimeout(r, 250))
        }
        assert.fail('the orders did not settle')
      }

      await addBag('p1')
      const infantDob = new Date(Date.now() - 100 * 86_400_000).toISOString().slice(0, 10)
      const saved = await ada.call('PATCH', at('/passengers'), {
        ...good,
        passengers: [
          good.passengers[0],
          { ...good.passengers[1], date_of_birth: '1981-12-26' },
          { ...good.passengers[2], date_of_birth: infantDob },
        ],
      })
      assert.equal(saved.status, 200, saved.text)
      const before = Object.values((await status()).basket)
      // Paid from two tabs at once: one charge; the other is refused while it is on its way (or finds it paid).
      const expected = {
        items: before.map((i) => i.basket_item_id),
        total: before.reduce((n, i) => n + i.price.total.amount, 0),
        currency: 'GBP',
      }
      const twice = await Promise.all([1, 2].map(() => ada.call('POST', at('/pay'), { expected })))
      const paid = twice.find((r) => r.status === 200)!
      assert.equal(paid.json.outcome, 'paid', paid.text)
      const second = twice.find((r) => r !== paid)!
      assert.equal(second.status, 409, second.text)
      assert.match(second.json.code, /^(payment_in_progress|already_paid)$/)
      const booked = await settled((s) => Object.values(s.orders).every((o) => o.status === 'succeeded'))
      const bagItem = Object.values(booked.basket).find((i) => i.product_type === 'bag')!.basket_item_id

      // Nothing new to pay for yet; a malformed or foreign cancellation is refused as problem+json.
      assert.equal((await ada.call('POST', at('/extras/pay'), { expected: {} })).json.code, 'nothing_to_pay')
      const bad = await ada.call('POST', at('/cancellation'), { basket_item_ids: [] })
      assert.equal(bad.status, 400)
      assert.match(bad.type, /^application\/problem\+json/)
      assert.deepEqual(
        bad.json.errors.map((e: { path: string }) => e.path),
        ['/basket_item_ids'],
      )
      const unknown = await ada.call('POST', at('/cancellation'), { basket_item_ids: ['no-such-item'] })
      assert.equal(unknown.status, 404, "the API's refusal, passed through")
      assert.equal(
        (await shopper(base).call('POST', at('/cancellation'), { basket_item_ids: [bagItem] })).status,
        404,
        'another browser cannot cancel it',
      )

      const quote = await ada.call('POST', at('/cancellation'), { basket_item_ids: [bagItem] })
      assert.equal(quote.status, 200, quote.text)
      assert.deepEqual(Object.keys(quote.json), ['to_cancel', 'quote_expires_at'])
      const quoted = quote.json.to_cancel[bagItem]
      assert.equal(quoted.cancellable, true)
      assert.equal(quoted.refund.amount, 7150)
      const shown = { basket_item_ids: [bagItem], refund: 7150, quote_expires_at: quote.json.quote_expires_at }

      // A refund other than the one quoted (the page showed an older quote) is not confirmed.
      const other = await ada.call('POST', at('/cancellation/confirm'), { expected: { ...shown, refund: 7000 } })
      assert.equal(other.json.outcome, 'quote_changed', other.text)
      assert.equal(other.json.quote.to_cancel[bagItem].refund.amount, 7150)
      assert.equal(
        (await status()).orders[booked.basket[bagItem]!.order_id!]!.status,
        'succeeded',
        'nothing was cancelled',
      )

      const confirmed = await ada.call('POST', at('/cancellation/confirm'), { expected: shown })
      assert.equal(confirmed.json.outcome, 'confirmed', confirmed.text)
      assert.match(confirmed.json.cancellation_id, /\w/)
      assert.ok(!('trip_access_token' in confirmed.json.trip))
      const retried = await ada.call('POST', at('/cancellation/confirm'), { expected: shown })
      assert.equal(
        retried.json.cancellation_id,
        confirmed.json.cancellation_id,
        'a retry answers as the first confirmation did',
      )
      const cancelled = await settled((s) => Object.values(s.orders).every((o) => o.status !== 'cancelling'))
      assert.deepEqual(
        Object.values(cancelled.orders).map((o) => [o.status, o.refund?.amount]),
        [['cancelled', 7150]],
      )

      // A bag after booking: the page's total must be the new items' total; then one charge, one new order.
      await addBag('p2')
      const added = Object.values((await status()).basket).filter((i) => i.product_type === 'bag' && !i.order_id)
      assert.equal(added.length, 1)
      const stale = await ada.call('POST', at('/extras/pay'), {
        expected: { items: added.map((i) => i.basket_item_id), total: 1, currency: 'GBP' },
      })
      assert.equal(stale.json.outcome, 'total_changed', stale.text)
      assert.deepEqual((await status()).extra_payments, [], 'nothing charged')
      // Paid from two tabs at once: one charge, the other refused.
      const both = await Promise.all(
        [1, 2].map(() =>
          ada.call('POST', at('/extras/pay'), {
            expected: { items: added.map((i) => i.basket_item_id), total: 7150, currency: 'GBP' },
          }),
        ),
      )
      const later = both.find((r) => r.status === 200)!
      assert.equal(later.json.outcome, 'paid', later.text)
      const refused = both.find((r) => r !== later)!
      assert.equal(refused.status, 409, refused.text)
      assert.match(refused.json.code, /^(payment_in_progress|nothing_to_pay)$/)
      assert.deepEqual(
        later.json.trip.extra_payments.map((p: { status: string; amount: number; basket_item_ids: string[] }) => [
          p.status,
          p.amount,
          p.basket_item_ids,
        ]),
        [['captured', 7150, [added[0]!.basket_item_id]]],
      )
      const done = await settled((s) =>
        Object.values(s.orders).every((o) => o.status === 'succeeded' || o.status === 'cancelled'),
      )
      assert.deepEqual(
        Object.values(done.orders)
          .map((o) => [o.basket_item_id, o.status])
          .sort(),
        [
          [bagItem, 'cancelled'],
          [added[0]!.basket_item_id, 'succeeded'],
        ].sort(),
      )
      assert.equal(
        (await ada.call('POST', at('/pay'), { expected: {} })).json.code,
        'already_paid',
        'the booking itself is paid once',
      )
    } finally {
      await server.stop()
    }
  },
)

test(
  'npm start on a database that already has sellers: the demo checkout gets a key of its own that is never printed',
  { timeout: patience(120_000) },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-demo-key-'))
    const env = { DATABASE_URL: `sqlite:${join(dir, 'svc.db')}` }
    const checkout = async (base: string) => shopper(base).call('POST', '/demo/api/checkout', { scenario: 'normal' })
    try {
      const first = await startServer(env)
      const printed = /API key\s+(\S+)/.exec(first.output())?.[1]
      try {
        assert.ok(printed, first.output())
        // The demo URL is the first thing the banner names, as the README shows it.
        const demoLine = /is running\n\n( {2}Demo {7}http:\/\/127\.0\.0\.1:)\d+(\/ .*)\n/.exec(first.output())
        assert.ok(demoLine, first.output())
        assert.ok(
          readFileSync(join(root, 'README.md'), 'utf8').includes(`is running\n\n${demoLine[1]}3000${demoLine[2]}\n`),
          'the README shows the banner as printed',
        )
        const made = await checkout(first.base)
        assert.equal(made.status, 201, made.text)
        // On the first start the demo checkout is the demo seller: its printed key reads the trip.
        const read = await fetch(`${first.base}/v2.2/trip/${made.json.trip.trip_id}`, {
          headers: { authorization: basic(printed) },
        })
        assert.equal(read.status, 200)
      } finally {
        assert.equal(await first.stop(), 0)
      }

      for (const round of [2, 3]) {
        const again = await startServer(env)
        try {
          assert.doesNotMatch(again.output(), /API key\s+svc_/, 'a key is printed once, on the start that made it')
          assert.match(again.output(), /Demo {7}http:\/\/127\.0\.0\.1:\d+\//)
          const made = await checkout(again.base)
          assert.equal(made.status, 201, `start ${round}: ${made.text}`)
          // A seller of its own ("Demo checkout"): the printed key does not see its trips.
          const read: Response = await fetch(`${again.base}/v2.2/trip/${made.json.trip.trip_id}`, {
            headers: { authorization: basic(printed!) },
          })
          assert.equal(read.status, 404)
          assert.doesNotMatch(again.output(), /svc_test_/, "the demo checkout's key is never printed")
        } finally {
          assert.equal(await again.stop(), 0)
        }
      }
      const list = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/seller.ts', 'list'], {
        cwd: root,
        env: { ...process.env, ...env },
        encoding: 'utf8',
      })
      assert.equal(list.status, 0, list.stderr)
      assert.equal(
        list.stdout.match(/Demo checkout/g)?.length,
        1,
        `one "Demo checkout" seller, reused:\n${list.stdout}`,
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
)
