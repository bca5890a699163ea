/**
 * The operator console's sessions and page (server/plugins/console.ts) over app.inject: the cookie's
 * attributes (and Secure behind a proxy the server trusts), 8 hours with a fixed clock, sign-out, retention of
 * expired sessions, the CSRF token on every write through the cookie, the key's limits carried by its
 * session, the keys never crossing (an operator key on /v2.2, a seller key on /console/session), and the
 * page's headers.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LightMyRequestResponse } from 'fastify'
import { assertProblem, basic, bearer, body, build, type Built } from '../../helpers/build.ts'
import { buildApp } from '../../../server/app.ts'
import { CONSOLE_COOKIE, CONSOLE_CSP, readCookie } from '../../../server/plugins/console.ts'

const signIn = (t: Built, key: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/console/session', headers, payload: { operator_key: key } })

/** The cookie a sign-in set, as a browser sends it back. */
function cookieOf(res: LightMyRequestResponse): string {
  const set = String(res.headers['set-cookie'])
  const value = readCookie(set.split(';')[0], CONSOLE_COOKIE)
  assert.ok(value, set)
  return `${CONSOLE_COOKIE}=${value}`
}

async function setup() {
  const t = await build()
  const full = (await t.core.createOperatorKey({ name: 'ops' })).key
  const reader = (await t.core.createOperatorKey({ name: 'support', readOnly: true })).key
  const mine = (await t.core.createOperatorKey({ name: 'desk', sellerId: t.seller.seller_id })).key
  return { t, full, reader, mine }
}

test('sign-in sets an HttpOnly, SameSite=Strict cookie of 8 hours, holding neither the key nor anything the page sees', async () => {
  const { t, full } = await setup()
  try {
    const res = await signIn(t, full)
    assert.equal(res.statusCode, 201, res.body)
    const set = String(res.headers['set-cookie'])
    assert.match(set, /^svc_console=[A-Za-z0-9_-]{40,}; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict$/)
    assert.ok(!set.includes('Secure'), 'plain http: no Secure (a browser would drop it on http://localhost)')
    assert.ok(!set.includes(full) && !res.body.includes(full), 'the key is in neither the cookie nor the answer')
    const session = body(res)
    assert.deepEqual(session.operator, { name: 'ops', seller_id: null, read_only: false })
    assert.match(session.csrf_token, /^[0-9a-f]{64}$/)
    assert.equal(session.expires_at, new Date(t.clock.now().getTime() + 8 * 3600_000).toISOString())
    assert.ok(!set.includes(session.csrf_token), 'the CSRF token is not the cookie')
    assert.equal(res.headers['cache-control'], 'no-store')
    const again = await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: cookieOf(res) } })
    assert.equal(body(again).csrf_token, session.csrf_token)
  } finally {
    await t.close()
  }
})

test('Secure when the request came over https through a proxy the server trusts, and only then', async () => {
  const { t, full } = await setup()
  const trusting = await buildApp({ core: t.core, store: t.store, trustProxy: true })
  try {
    const proxied = await trusting.inject({
      method: 'POST',
      url: '/console/session',
      headers: { 'x-forwarded-proto': 'https' },
      payload: { operator_key: full },
    })
    assert.match(String(proxied.headers['set-cookie']), /; Secure$/)
    const spoofed = await signIn(t, full, { 'x-forwarded-proto': 'https' })
    assert.ok(!String(spoofed.headers['set-cookie']).includes('Secure'), 'an untrusted X-Forwarded-Proto is ignored')
  } finally {
    await trusting.close()
    await t.close()
  }
})

test('behind a TLS-terminating proxy, a sign-in from the https page needs TRUST_PROXY (docs/operations.md "Behind a proxy")', async () => {
  const { t, full } = await setup()
  const trusting = await buildApp({ core: t.core, store: t.store, trustProxy: true })
  const proxied = { origin: 'https://ops.example', host: 'ops.example', 'x-forwarded-proto': 'https' }
  try {
    const res = await trusting.inject({
      method: 'POST',
      url: '/console/session',
      headers: proxied,
      payload: { operator_key: full },
    })
    assert.equal(res.statusCode, 201, res.body)
    const forwardedHost = await trusting.inject({
      method: 'POST',
      url: '/console/session',
      headers: { ...proxied, host: '10.0.0.5:3000', 'x-forwarded-host': 'ops.example' },
      payload: { operator_key: full },
    })
    assert.equal(forwardedHost.statusCode, 201, 'or the host as X-Forwarded-Host')
    assertProblem(await signIn(t, full, proxied), 403, 'forbidden')
  } finally {
    await trusting.close()
    await t.close()
  }
})

test('a session ends 8 hours after sign-in, at sign-out, and when its key is revoked', async () => {
  const { t, full } = await setup()
  try {
    const cookie = cookieOf(await signIn(t, full))
    const sellers = () => t.app.inject({ method: 'GET', url: '/admin/v1/sellers', headers: { cookie } })
    t.clock.advance(8 * 3600_000 - 1000)
    assert.equal((await sellers()).statusCode, 200, 'still on at 7:59:59')
    t.clock.advance(1000)
    assertProblem(await sellers(), 401, 'unauthorized')
    assertProblem(
      await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie } }),
      401,
      'unauthorized',
    )

    const second = cookieOf(await signIn(t, full))
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/admin/v1/sellers', headers: { cookie: second } })).statusCode,
      200,
    )
    const out = await t.app.inject({ method: 'DELETE', url: '/console/session', headers: { cookie: second } })
    assert.equal(out.statusCode, 204)
    assert.match(String(out.headers['set-cookie']), /^svc_console=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/)
    assertProblem(
      await t.app.inject({ method: 'GET', url: '/admin/v1/sellers', headers: { cookie: second } }),
      401,
      'unauthorized',
    )

    const third = cookieOf(await signIn(t, full))
    const [listed] = (await t.core.listOperatorKeys()).filter((k) => k.name === 'ops')
    await t.core.revokeOperatorKey(listed!.key_id)
    assertProblem(
      await t.app.inject({ method: 'GET', url: '/admin/v1/sellers', headers: { cookie: third } }),
      401,
      'unauthorized',
    )
  } finally {
    await t.close()
  }
})

test("retention (the worker's purge) deletes the sessions that expired, and keeps the live ones", async () => {
  const { t, full } = await setup()
  try {
    await signIn(t, full)
    t.clock.advance(4 * 3600_000)
    const later = cookieOf(await signIn(t, full))
    assert.equal((await t.core.purgeExpired()).console_sessions, 0, 'both still live')
    t.clock.advance(4 * 3600_000 + 1000)
    assert.equal((await t.core.purgeExpired()).console_sessions, 1, 'the first ended 8 hours after its sign-in')
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/admin/v1/sellers', headers: { cookie: later } })).statusCode,
      200,
    )
    t.clock.advance(4 * 3600_000)
    assert.equal((await t.core.purgeExpired()).console_sessions, 1)
    assert.equal((await t.core.purgeExpired()).console_sessions, 0)
  } finally {
    await t.close()
  }
})

test('every write through the cookie needs the CSRF token; the key limits its session', async () => {
  const { t, full, reader, mine } = await setup()
  try {
    const res = await signIn(t, full)
    const cookie = cookieOf(res)
    const csrf = body(res).csrf_token as string
    const disable = (headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: `/admin/v1/sellers/${t.seller.seller_id}/disable`, headers })
    assertProblem(await disable({ cookie }), 403, 'forbidden')
    assertProblem(await disable({ cookie, 'x-csrf-token': 'f'.repeat(64) }), 403, 'forbidden')
    const other = body(await signIn(t, full)).csrf_token as string
    assertProblem(await disable({ cookie, 'x-csrf-token': other }), 403, 'forbidden')
    assert.equal((await disable({ cookie, 'x-csrf-token': csrf })).statusCode, 200)
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/admin/v1/jobs', headers: { cookie } })).statusCode,
      200,
      'reads need no token',
    )
    // A bearer key is judged alone: a bad one is 401 even beside a good cookie.
    assertProblem(await disable({ cookie, authorization: bearer('svc_op_nope') }), 401, 'unauthorized')

    const readOnly = await signIn(t, reader)
    const roCookie = cookieOf(readOnly)
    assertProblem(await disable({ cookie: roCookie, 'x-csrf-token': body(readOnly).csrf_token }), 403, 'forbidden')

    const limited = await signIn(t, mine)
    assert.deepEqual(body(limited).operator, { name: 'desk', seller_id: t.seller.seller_id, read_only: false })
    const other2 = await t.otherSeller()
    assertProblem(
      await t.app.inject({
        method: 'GET',
        url: `/admin/v1/sellers/${other2.seller.seller_id}`,
        headers: { cookie: cookieOf(limited) },
      }),
      404,
      'not_found',
    )
  } finally {
    await t.close()
  }
})

test("the keys never cross: an operator key is no credential on /v2.2, a seller's key none on /console/session", async () => {
  const { t, full } = await setup()
  try {
    assertProblem(await signIn(t, t.apiKey), 401, 'unauthorized')
    assertProblem(await signIn(t, 'svc_op_unknown'), 401, 'unauthorized')
    assertProblem(await signIn(t, full, { origin: 'https://shop.example' }), 403, 'forbidden')
    assertProblem(await signIn(t, full, { origin: 'http://localhost:8080' }), 403, 'forbidden')
    // app.inject sends Host: localhost:80, so this is the request's own origin.
    assert.equal((await signIn(t, full, { origin: 'http://localhost:80' })).statusCode, 201)
    assertProblem(await t.app.inject({ method: 'POST', url: '/console/session', payload: {} }), 400, 'validation_error')
    for (const authorization of [bearer(full), basic(full)])
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/v2.2/authorize', headers: { authorization } })).statusCode,
        401,
      )
    // Nor is a console cookie a credential of the public API.
    const cookie = cookieOf(await signIn(t, full))
    assert.equal((await t.app.inject({ method: 'POST', url: '/v2.2/authorize', headers: { cookie } })).statusCode, 401)
  } finally {
    await t.close()
  }
})

test('the page and its assets: strict CSP, never framed or sniffed, deep links answer the page, 503 before a build', async () => {
  const dist = mkdtempSync(join(tmpdir(), 'svc-console-'))
  const t = await build()
  const app = await buildApp({ core: t.core, store: t.store, sdkDistDir: dist })
  try {
    for (const url of ['/console', '/console/trips/abc', '/console/sellers/x/y']) {
      const res = await app.inject({ method: 'GET', url })
      assert.equal(res.statusCode, 200, url)
      assert.match(String(res.headers['content-type']), /^text\/html/)
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP)
      assert.match(CONSOLE_CSP, /default-src 'self'/)
      assert.match(CONSOLE_CSP, /frame-ancestors 'none'/)
      assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/)
      assert.equal(res.headers['x-frame-options'], 'DENY')
      assert.equal(res.headers['x-content-type-options'], 'nosniff')
      assert.equal(res.headers['cache-control'], 'no-cache')
      assert.match(res.body, /<script type="module" src="\/console\/assets\/console\.js"><\/script>/)
      assert.doesNotMatch(res.body, /<script>|<style|style=/, 'nothing inline')
    }
    assertProblem(await app.inject({ method: 'GET', url: '/console/assets/console.js' }), 503, 'unavailable')
    mkdirSync(join(dist, 'console', 'assets'), { recursive: true })
    writeFileSync(join(dist, 'console', 'assets', 'console.js'), 'export {}\n')
    const js = await app.inject({ method: 'GET', url: '/console/assets/console.js' })
    assert.equal(js.statusCode, 200)
    assert.match(String(js.headers['content-type']), /^text\/javascript/)
    assert.equal(js.headers['x-content-type-options'], 'nosniff')
    const etag = String(js.headers.etag)
    assert.equal(
      (await app.inject({ method: 'GET', url: '/console/assets/console.js', headers: { 'if-none-match': etag } }))
        .statusCode,
      304,
    )
    assertProblem(await app.inject({ method: 'GET', url: '/console/assets/..%2Fpackage.json' }), 404, 'not_found')
  } finally {
    await app.close()
    await t.close()
    rmSync(dist, { recursive: true, force: true })
  }
})
