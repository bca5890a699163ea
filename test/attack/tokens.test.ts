/**
 * Token and credential attacks (docs/decisions.md "Transport and auth"), run on both hosts of the API, which
 * share the tokens and authentication of core/application/ (jwt.ts, auth.ts): the Fastify app (app.inject) and the MSW sandbox (msw/node + fetch). Each attack is one
 * test; each must be refused with problem+json (401 or 403; 404 where the design hides another trip, so ids
 * leak nothing) and write nothing to the store.
 *
 * - Forged tokens: payload tampered under the original signature, signature bits flipped, the all-zero
 *   ECDSA signature, `alg: none`, HS256/384/512 keyed with the published public key (JWK, PEM, DER, raw
 *   point), other algorithms and another key under our kid, unknown and odd kids (and a flood of them does
 *   not flood the store), `jku`/`jwk`/`x5u`/`x5c` headers naming the attacker's key (never fetched).
 * - Tokens signed with our own key but wrong in their claims: issuer, no `exp`, `nbf` ahead (not yet
 *   valid), a use or a seller we never issue, another seller's token naming this trip.
 * - Tokens out of place: another trip's and another seller's on this trip's paths (and this trip's path
 *   naming another trip's search or items), access ↔ refresh tokens, a creation token as an access token.
 * - Lifetimes on the injected clock, cached tokens included; a revoked refresh family (tokens already
 *   verified and cached included); the 20-way concurrent refresh race.
 * - API key misuse: a password, no colon, unknown keys, another seller's key, Basic ↔ Bearer.
 * - Header smuggling: two Authorization headers (also on a real socket), scheme case, whitespace,
 *   trailing junk, 100 KB tokens.
 *
 * test/api/auth.test.ts has the permission matrix cell by cell; ./hardening.test.ts and test/api/read-path.test.ts
 * the server's refresh race and revoked-session read. Those reappear here only where this suite adds to
 * them: the sandbox host, writes that must change nothing, and every token of the family afterwards.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { createPublicKey } from 'node:crypto'
import { setupServer } from 'msw/node'
import type { LightMyRequestResponse } from 'fastify'
import {
  SignJWT,
  generateKeyPair,
  exportJWK,
  importJWK,
  decodeJwt,
  decodeProtectedHeader,
  base64url,
  type JWK,
} from 'jose'
import type { MemoryStore } from '../../core/adapters/memory-store.ts'
import { createSandbox } from '../../mock-server/sandbox.ts'
import {
  build,
  testClock,
  testIds,
  tripPayload,
  assertProblem,
  type CreatedTrip,
  type TestClock,
} from '../helpers/build.ts'
import { fulfillRequest } from '../helpers/flows.ts'
import {
  makeTarget,
  injectSend,
  fetchSend,
  watchWrites,
  problemViolations,
  bodyText,
  json,
  basicAuth,
  bearerAuth,
  type Req,
  type Res,
  type Send,
  type Target,
} from './support.ts'

const ORIGIN = 'http://sandbox.attack.test'
const MIN = 60_000

// ---------------------------------------------------------------- hosts

interface Host {
  name: 'server' | 'sandbox'
  send: Send
  /** The same GET with each of `values` as its own Authorization header line. */
  sendRepeated(url: string, values: string[]): Promise<Res>
  clock: TestClock
  store: MemoryStore
  apiKey: string
  otherApiKey: string
  target: Target
  writes: { readonly count: number }
  /** A snapshot of the store, taken again only when something was written since (see `refused`). */
  snap: { at: number; value: ReturnType<MemoryStore['snapshot']> } | null
  /** The host's active signing key, as the store keeps it (in the clear: no SIGNING_KEY_SECRET here). */
  signer: { kid: string; key: CryptoKey }
  /** Listens on a real socket (server host only). */
  listen?: () => Promise<number>
  close(): Promise<void>
}

const msw = setupServer()

async function signerOf(store: MemoryStore): Promise<Host['signer']> {
  const active = (await store.listSigningKeys()).find((k) => k.retire_at === null)!
  return { kid: active.kid, key: (await importJWK(active.private_jwk as JWK, 'ES256')) as CryptoKey }
}

async function serverHost(): Promise<Host> {
  const t = await build()
  const other = await t.otherSeller()
  const send = injectSend(t.app)
  const store = t.store as MemoryStore
  const writes = watchWrites(store)
  return {
    name: 'server',
    send,
    clock: t.clock,
    store,
    apiKey: t.apiKey,
    otherApiKey: other.apiKey,
    writes,
    snap: null,
    signer: await signerOf(store),
    target: await makeTarget(send, t.apiKey, other.apiKey, t.clock.now(), () => t.core.drainJobs()),
    async sendRepeated(url, values) {
      // light-my-request takes an array as repeated lines: every one in rawHeaders, the first in req.headers,
      // as Node's parser does (its types say string only).
      const res = await t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: values } as unknown as Record<string, string>,
      })
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v)
      return { status: res.statusCode, headers, raw: res.rawPayload }
    },
    async listen() {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
      return Number(new URL(address).port)
    },
    close: () => t.close(),
  }
}

async function sandboxHost(): Promise<Host> {
  const clock = testClock()
  const sandbox = await createSandbox({ baseUrl: ORIGIN, clock, ids: testIds(), autoRunJobs: false })
  msw.resetHandlers(...sandbox.handlers)
  const other = await sandbox.core.createSeller({ name: 'Other', origins: [], sandbox: true })
  const send = fetchSend(ORIGIN)
  const writes = watchWrites(sandbox.store)
  return {
    name: 'sandbox',
    send,
    clock,
    store: sandbox.store,
    apiKey: sandbox.apiKey,
    otherApiKey: other.apiKey,
    writes,
    snap: null,
    signer: await signerOf(sandbox.store),
    target: await makeTarget(send, sandbox.apiKey, other.apiKey, clock.now(), () => sandbox.runJobs()),
    async sendRepeated(url, values) {
      const headers = new Headers()
      for (const v of values) headers.append('authorization', v) // fetch joins them with ", "
      const res = await fetch(`${ORIGIN}${url}`, { headers })
      const h: Record<string, string> = {}
      res.headers.forEach((v, k) => {
        h[k] = v
      })
      return { status: res.status, headers: h, raw: Buffer.from(await res.arrayBuffer()) }
    },
    close: async () => {
      sandbox.dispose()
      msw.resetHandlers()
    },
  }
}

// ---------------------------------------------------------------- requests and verdicts

function req(method: string, url: string, authorization?: string, body?: unknown): Req {
  const headers: Record<string, string> = {}
  if (authorization !== undefined) headers.authorization = authorization
  if (body !== undefined) headers['content-type'] = 'application/json'
  return {
    method,
    url,
    headers,
    ...(body !== undefined ? { body: new TextEncoder().encode(JSON.stringify(body)) } : {}),
  }
}

const asInjected = (res: Res) =>
  ({ statusCode: res.status, headers: res.headers, body: bodyText(res) }) as unknown as LightMyRequestResponse

async function sent(h: Host, r: Req): Promise<Res> {
  const res = await h.send(r)
  assert.ok(res, `[${h.name}] ${r.method} ${r.url}: the client refused to send it`)
  return res
}

/** The store as it is now, snapshotted again only when a write happened since the last snapshot. */
function current(h: Host) {
  if (!h.snap || h.snap.at !== h.writes.count) h.snap = { at: h.writes.count, value: h.store.snapshot() }
  return h.snap.value
}

type Snapshot = ReturnType<MemoryStore['snapshot']>
/** The snapshot without when refresh tokens were used or revoked: what retiring a dead token changes. */
const withoutRetirement = (s: Snapshot) => ({
  ...s,
  refreshTokens: s.refreshTokens.map(({ used_at: _u, revoked_at: _r, ...t }) => t),
})

/**
 * Sends `r`, asserts the refusal (RFC 9457 shape, status, code) and that the store is exactly as before;
 * with `retiring`, that it differs at most in refresh tokens marked used or revoked (no token issued, no
 * trip touched).
 */
async function refused(h: Host, r: Req, status: number, code: string, opts: { retiring?: boolean } = {}) {
  const before = current(h)
  const writes = h.writes.count
  const res = await sent(h, r)
  const where = `[${h.name}] ${r.method} ${r.url} (${(r.headers.authorization ?? '').slice(0, 60)}…)`
  assert.deepEqual(problemViolations(res, r.method), [], `${where}: ${res.status} ${bodyText(res).slice(0, 300)}`)
  const p = assertProblem(asInjected(res), status, code)
  if (h.writes.count !== writes) {
    if (opts.retiring)
      assert.deepEqual(withoutRetirement(h.store.snapshot()), withoutRetirement(before), `${where} changed the store`)
    else assert.deepEqual(h.store.snapshot(), before, `${where} changed the store`)
  }
  return p
}

async function accepted(h: Host, r: Req): Promise<Res> {
  const res = await sent(h, r)
  assert.ok(
    res.status >= 200 && res.status < 300,
    `[${h.name}] ${r.method} ${r.url}: expected success, got ${res.status} ${bodyText(res).slice(0, 300)}`,
  )
  return res
}

/**
 * Requests on a trip: reads, and writes that would change it if the credential were taken. A trip other than
 * the target's three is probed with the foreign search id: its probes are refused before any search is read.
 */
function probes(t: Target, tripId = t.trip.trip_id) {
  const searchId =
    tripId === t.trip.trip_id
      ? t.trip.search_id
      : tripId === t.sibling.trip_id
        ? t.sibling.search_id
        : t.foreign.search_id
  return [
    (a: string) => req('GET', `/v2.2/trip/${tripId}/basket`, a),
    (a: string) => req('GET', `/v2.2/trip/${tripId}`, a),
    (a: string) => req('GET', `/v2.2/trip/${tripId}/search/${searchId}?product_types=bag`, a),
    (a: string) =>
      req('PATCH', `/v2.2/trip/${tripId}/basket`, a, [
        { product_id: t.products.bagP2, passenger_id: 'p2', quantity: 1 },
      ]),
    (a: string) => req('DELETE', `/v2.2/trip/${tripId}/basket/${t.items.bag}`, a),
    (a: string) => req('PUT', `/v2.2/trip/${tripId}/basket`, a, []),
    (a: string) => req('POST', `/v2.2/trip/${tripId}/basket/check`, a),
    (a: string) =>
      req('PATCH', `/v2.2/trip/${tripId}`, a, { passengers: [{ passenger_id: 'p1', surname: 'Mallory' }] }),
    (a: string) => req('POST', `/v2.2/trip/${tripId}/search`, a, { bag: { search: true } }),
  ]
}

/** Every probe with `authorization` is refused with `status`/`code` and writes nothing. */
async function allRefused(h: Host, authorization: string, status = 401, code = 'unauthorized', tripId?: string) {
  for (const probe of probes(h.target, tripId)) await refused(h, probe(authorization), status, code)
}

/** One read and one write: for attacks that come in many variants. */
async function readAndWriteRefused(h: Host, authorization: string, status = 401, code = 'unauthorized') {
  const [read, , , write] = probes(h.target)
  await refused(h, read!(authorization), status, code)
  await refused(h, write!(authorization), status, code)
}

// ---------------------------------------------------------------- token crafting

const b64json = (o: unknown) => base64url.encode(JSON.stringify(o))
const parts = (token: string) => token.split('.') as [string, string, string]
const compact = (header: unknown, payload: unknown, signature = '') =>
  `${b64json(header)}.${b64json(payload)}.${signature}`

/** The token with its payload replaced, signature kept. */
function tampered(token: string, change: (claims: Record<string, unknown>) => Record<string, unknown>) {
  const [h, , s] = parts(token)
  return `${h}.${b64json(change(decodeJwt(token) as Record<string, unknown>))}.${s}`
}

/** The token with bit `bit` of its signature flipped. */
function flipped(token: string, bit: number) {
  const [h, p, s] = parts(token)
  const sig = base64url.decode(s)
  sig[bit >> 3]! ^= 1 << (bit & 7)
  return `${h}.${p}.${base64url.encode(sig)}`
}

/** A token signed with the host's real private key: what only the service could sign, wrong in its claims. */
function mint(h: Host, claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: h.signer.kid, typ: 'JWT', ...header })
    .sign(h.signer.key)
}

const attackerKeys = new Map<string, Awaited<ReturnType<typeof generateKeyPair>>>()
async function attackerKey(alg: string) {
  let k = attackerKeys.get(alg)
  if (!k) attackerKeys.set(alg, (k = await generateKeyPair(alg, { extractable: true })))
  return k
}

/** A token signed by a key of the attacker's, with any header. */
async function signedByAttacker(claims: Record<string, unknown>, header: Record<string, unknown>, alg = 'ES256') {
  return new SignJWT(claims)
    .setProtectedHeader({ alg, typ: 'JWT', ...header } as { alg: string })
    .sign((await attackerKey(alg)).privateKey)
}

async function freshTrip(h: Host) {
  const payload = { ...tripPayload(h.clock.now()), search: { bag: { search: true } } }
  return json(await accepted(h, req('POST', '/v2.2/trip', basicAuth(h.apiKey), payload))) as {
    trip_id: string
    trip_access_token: string
    refresh_token: string
  }
}

/** A fulfil request that is well-formed for the target trip (only the credential is wrong). */
const fulfilBody = (t: Target) => fulfillRequest({ tickets: t.trip.tickets } as unknown as CreatedTrip, t.stateHash)

const refresh = (refreshToken: unknown) =>
  req('POST', '/v2.2/refresh_token', undefined, { refresh_token: refreshToken })

// ---------------------------------------------------------------- the suites

before(() => msw.listen({ onUnhandledRequest: 'error' }))
after(() => msw.close())

for (const makeHost of [serverHost, sandboxHost]) {
  describe(`token attacks on the ${makeHost === serverHost ? 'server' : 'sandbox'}`, () => {
    let h: Host
    let claims: Record<string, unknown>
    let kid: string
    before(async () => {
      h = await makeHost()
      claims = decodeJwt(h.target.trip.access_token) as Record<string, unknown>
      kid = decodeProtectedHeader(h.target.trip.access_token).kid!
    })
    after(() => h.close())

    // -------------------------------------------------------------- forged tokens

    test('the genuine access token reads its trip (the attacks below start from it)', async () => {
      await accepted(h, probes(h.target)[0]!(bearerAuth(h.target.trip.access_token)))
      assert.equal(claims.sub, h.target.trip.trip_id)
      assert.equal(claims.token_use, 'trip_access')
    })

    test('payload tampered, original signature: sub, exp, sid, token_use or fam changed', async () => {
      const { trip, sibling, foreign } = h.target
      const token = trip.access_token
      const sellerOf = (t: string) => decodeJwt(t).sid
      // The attacker's aim: the other trip's paths.
      await allRefused(
        h,
        bearerAuth(tampered(token, (c) => ({ ...c, sub: sibling.trip_id }))),
        401,
        'unauthorized',
        sibling.trip_id,
      )
      await allRefused(
        h,
        bearerAuth(tampered(foreign.access_token, (c) => ({ ...c, sub: trip.trip_id, sid: sellerOf(token) }))),
      )
      await allRefused(h, bearerAuth(tampered(token, (c) => ({ ...c, exp: (c.exp as number) + 86_400 * 365 }))))
      await allRefused(h, bearerAuth(tampered(token, (c) => ({ ...c, sid: sellerOf(foreign.access_token) }))))
      await readAndWriteRefused(h, bearerAuth(tampered(token, (c) => ({ ...c, token_use: 'trip_creation' }))))
      await readAndWriteRefused(h, bearerAuth(tampered(token, ({ fam: _fam, ...c }) => c)))
      // Same claims, re-encoded (key order, whitespace): a different payload byte string is a forgery too.
      const [hh, , s] = parts(token)
      const reordered = Object.fromEntries(Object.entries(claims).reverse())
      await readAndWriteRefused(h, bearerAuth(`${hh}.${b64json(reordered)}.${s}`))
      await readAndWriteRefused(h, bearerAuth(`${hh}.${base64url.encode(` ${JSON.stringify(claims)}`)}.${s}`))
    })

    test('a flipped signature bit, a truncated or extended signature, the all-zero ECDSA signature', async () => {
      const token = h.target.trip.access_token
      for (const bit of [0, 7, 100, 255, 256, 300, 511]) await readAndWriteRefused(h, bearerAuth(flipped(token, bit)))
      const [hh, p, s] = parts(token)
      const sig = base64url.decode(s)
      assert.equal(sig.length, 64, 'ES256 signatures are r‖s, 64 bytes')
      for (const forged of [
        `${hh}.${p}.${base64url.encode(sig.subarray(0, 63))}`,
        `${hh}.${p}.${base64url.encode(new Uint8Array([...sig, 0]))}`,
        `${hh}.${p}.${base64url.encode(new Uint8Array(64))}`, // r = s = 0 ("psychic signature", CVE-2022-21449)
        `${hh}.${p}.${s}${s}`,
        `${hh}.${p}.${s}=`,
        `${hh}.${p}`,
        `${hh}.${p}.${s}.${s}`,
      ])
        await readAndWriteRefused(h, bearerAuth(forged))
    })

    test('alg none: unsigned with an empty signature, and with the original signature', async () => {
      const [, , s] = parts(h.target.trip.access_token)
      for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
        await allRefused(h, bearerAuth(compact({ alg, typ: 'JWT' }, claims)))
        await readAndWriteRefused(h, bearerAuth(compact({ alg, kid, typ: 'JWT' }, claims, s)))
        await readAndWriteRefused(
          h,
          bearerAuth(compact({ alg, kid, typ: 'JWT' }, { ...claims, sub: h.target.sibling.trip_id })),
        )
      }
      await readAndWriteRefused(h, bearerAuth(compact({ kid, typ: 'JWT' }, claims, s))) // no alg at all
      await readAndWriteRefused(h, bearerAuth(compact({ alg: '', kid, typ: 'JWT' }, claims, s)))
    })

    test('HS256/384/512 keyed with the public key the server publishes (JWK, PEM, DER and raw forms)', async () => {
      const res = await accepted(h, req('GET', '/v2.2/.well-known/jwks.json'))
      const jwk = (json(res).keys as JWK[]).find((k) => k.kid === kid)
      assert.ok(jwk, 'the signing key of the genuine token is published')
      const spki = createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' })
      const pem = spki.export({ type: 'spki', format: 'pem' }) as string
      const xy = new Uint8Array([...base64url.decode(jwk.x!), ...base64url.decode(jwk.y!)])
      const enc = (s: string) => new TextEncoder().encode(s)
      const secrets: Record<string, Uint8Array> = {
        'JWK as published': enc(JSON.stringify(jwk)),
        'JWK, public members only': enc(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })),
        PEM: enc(pem),
        'PEM, no final newline': enc(pem.trimEnd()),
        DER: new Uint8Array(spki.export({ type: 'spki', format: 'der' })),
        'uncompressed point': new Uint8Array([4, ...xy]),
        'x‖y': xy,
      }
      for (const [form, secret] of Object.entries(secrets)) {
        for (const alg of ['HS256', 'HS384', 'HS512']) {
          const token = await new SignJWT(claims).setProtectedHeader({ alg, kid, typ: 'JWT' }).sign(secret)
          await readAndWriteRefused(h, bearerAuth(token)).catch((e: Error) => {
            throw new Error(`${alg} with the ${form}: ${e.message}`)
          })
        }
      }
    })

    test("other algorithms, and another ES256 key, under the server's kid", async () => {
      for (const alg of ['ES256', 'ES384', 'ES512', 'RS256', 'PS256', 'EdDSA']) {
        await readAndWriteRefused(h, bearerAuth(await signedByAttacker(claims, { kid }, alg)))
      }
    })

    test('a kid that does not exist, is missing, or names a built-in property; a flood of them reads the keys at most once', async () => {
      let reads = 0
      const list = h.store.listSigningKeys.bind(h.store)
      h.store.listSigningKeys = () => {
        reads++
        return list()
      }
      try {
        // A validly signed token is refused too when its kid names no key: verification never tries every key.
        const odd = [
          '6f1d2b8e-0000-4000-8000-000000000000',
          '',
          '__proto__',
          'constructor',
          'toString',
          '../../../etc/passwd',
          'k'.repeat(10_000),
          `${kid} `,
          kid.toUpperCase(),
        ]
        for (const k of odd) {
          await readAndWriteRefused(h, bearerAuth(await signedByAttacker(claims, { kid: k })))
          await readAndWriteRefused(h, bearerAuth(await mint(h, claims, { kid: k })))
        }
        await readAndWriteRefused(h, bearerAuth(await signedByAttacker(claims, {})))
        for (const k of [42, null, [kid], { kid }])
          await readAndWriteRefused(h, bearerAuth(await signedByAttacker(claims, { kid: k })))
        // The clock did not move: every unknown kid above shared one store read, at most.
        assert.ok(reads <= 1, `the signing keys were read ${reads} times for a flood of unknown kids`)
      } finally {
        h.store.listSigningKeys = list
      }
    })

    test("jku, jwk, x5u and x5c headers naming the attacker's key are ignored: refused, and nothing is fetched", async () => {
      const fetched: string[] = []
      const realFetch = globalThis.fetch
      globalThis.fetch = (input, init) => {
        const url = input instanceof Request ? input.url : String(input)
        if (!url.startsWith(ORIGIN)) fetched.push(url)
        return realFetch(input, init)
      }
      try {
        const { publicKey } = await attackerKey('ES256')
        const attackerJwk = { ...(await exportJWK(publicKey)), kid: 'attacker', alg: 'ES256', use: 'sig' }
        const headers: Array<Record<string, unknown>> = [
          { kid: 'attacker', jwk: attackerJwk },
          { kid, jwk: { ...attackerJwk, kid } },
          { jwk: attackerJwk },
          { kid: 'attacker', jku: 'https://attacker.example/.well-known/jwks.json' },
          { kid, jku: 'https://attacker.example/.well-known/jwks.json' },
          { kid: 'attacker', x5u: 'https://attacker.example/cert.pem' },
          { kid, x5u: 'https://attacker.example/cert.pem' },
          { kid, x5c: ['MIIBszCCAVmgAwIBAgIUattacker'] },
          { kid, jku: `${ORIGIN}/v2.2/.well-known/jwks.json`, jwk: { ...attackerJwk, kid } },
        ]
        for (const header of headers) await allRefused(h, bearerAuth(await signedByAttacker(claims, header)))
        assert.deepEqual(fetched, [], 'no key was fetched from where a token pointed')
      } finally {
        globalThis.fetch = realFetch
      }
    })

    // -------------------------------------------------------------- our own key, wrong claims

    test('signed with our own key but not ours to accept: other issuer, no exp, no sub, a use we never issue', async () => {
      const { iss: _iss, ...noIss } = claims
      const { exp: _exp, ...noExp } = claims
      const { sub: _sub, ...noSub } = claims
      const { sid: _sid, ...noSid } = claims
      const { token_use: _use, ...noUse } = claims
      for (const c of [
        { ...claims, iss: 'https://attacker.example' },
        noIss,
        noExp,
        { ...claims, exp: String(claims.exp) },
        noSub,
        noSid,
        { ...claims, sid: 42 },
        noUse,
        { ...claims, token_use: 'refresh' },
        { ...claims, token_use: 'admin' },
        // A seller that does not exist (the nearest the service has to a revoked seller: keys are never revoked).
        { ...claims, sid: '6f1d2b8e-0000-4000-8000-000000000000' },
      ])
        await readAndWriteRefused(h, bearerAuth(await mint(h, c)))
    })

    test('not yet valid: nbf ahead of the clock', async () => {
      const now = Math.floor(h.clock.now().getTime() / 1000)
      await allRefused(h, bearerAuth(await mint(h, { ...claims, nbf: now + 60 })))
      await readAndWriteRefused(
        h,
        bearerAuth(await mint(h, { ...claims, nbf: now + 3600, iat: now + 3600, exp: now + 7200 })),
      )
    })

    test('signed with our key for another seller, naming this trip: 404, as if it did not exist', async () => {
      const other = decodeJwt(h.target.foreign.access_token).sid
      await allRefused(h, bearerAuth(await mint(h, { ...claims, sid: other })), 404, 'not_found')
    })

    // -------------------------------------------------------------- tokens out of place

    test("another trip's access token on this trip's paths (same seller, and another seller): 404", async () => {
      for (const other of [h.target.sibling, h.target.foreign]) {
        for (const probe of probes(h.target)) {
          const p = await refused(h, probe(bearerAuth(other.access_token)), 404, 'not_found')
          assert.match(p.detail, /^Trip .* does not exist\.$/, 'refused for the trip, not for a wrong path')
        }
      }
    })

    test("this trip's own token and path, naming another trip's search or basket items: 404", async () => {
      const { trip, sibling, foreign } = h.target
      const auth = bearerAuth(trip.access_token)
      const id = trip.trip_id
      await refused(h, req('GET', `/v2.2/trip/${id}/search/${sibling.search_id}`, auth), 404, 'not_found')
      await refused(h, req('GET', `/v2.2/trip/${id}/search/${foreign.search_id}`, auth), 404, 'not_found')
      await refused(h, req('DELETE', `/v2.2/trip/${id}/basket/${foreign.ticket_item_id}`, auth), 404, 'not_found')
      await refused(h, req('POST', `/v2.2/trip/${id}/basket/${foreign.ticket_item_id}/accept`, auth), 404, 'not_found')
      await refused(h, req('DELETE', `/v2.2/trip/${id}/basket/${h.target.items.bag}x`, auth), 404, 'not_found')
      // A product of another trip's search is no product of this trip.
      const p = await refused(
        h,
        req('PATCH', `/v2.2/trip/${id}/basket`, auth, [
          { product_id: foreign.bag_product_id, passenger_id: 'p1', quantity: 1 },
        ]),
        400,
        'validation_error',
      )
      assert.ok(
        p.errors?.some((e) => e.path === '/0/product_id'),
        JSON.stringify(p.errors),
      )
    })

    test('an access token is not a refresh token, a refresh token is not an access token', async () => {
      const { trip } = h.target
      await refused(h, refresh(trip.access_token), 401, 'unauthorized')
      await refused(h, refresh(h.target.creationToken), 401, 'unauthorized')
      await refused(h, refresh(h.apiKey), 401, 'unauthorized')
      await refused(h, refresh(`rt_${trip.access_token}`), 401, 'unauthorized')
      await allRefused(h, bearerAuth(trip.refresh_token))
      await readAndWriteRefused(h, basicAuth(trip.refresh_token))
      // Neither attempt used up the refresh token: it still refreshes once.
      const fresh = await freshTrip(h)
      await refused(h, refresh(fresh.trip_access_token), 401, 'unauthorized')
      await accepted(h, refresh(fresh.refresh_token))
    })

    test('a trip creation token is not an access token: 403 on trip paths, fulfill, authorize and webhooks', async () => {
      const creation = bearerAuth(h.target.creationToken)
      await allRefused(h, creation, 403, 'forbidden')
      const id = h.target.trip.trip_id
      await refused(h, req('POST', `/v2.2/trip/${id}/fulfill`, creation, fulfilBody(h.target)), 403, 'forbidden')
      await refused(h, req('POST', '/v2.2/authorize', creation), 403, 'forbidden')
      await refused(h, req('GET', '/v2.2/callback_subscription', creation), 403, 'forbidden')
      await refused(
        h,
        req('DELETE', `/v2.2/callback_subscription/${h.target.subscriptionId}`, creation),
        403,
        'forbidden',
      )
      // Not even one that names the trip (signed with our key): a creation token is never bound to a trip.
      const named = await mint(h, { ...decodeJwt(h.target.creationToken), sub: id })
      await allRefused(h, bearerAuth(named), 403, 'forbidden')
    })

    // -------------------------------------------------------------- lifetimes

    test('expired: access token (also once verified and cached), creation token, refresh token', async () => {
      const start = h.clock.now()
      try {
        const trip = await freshTrip(h)
        const creation = json(await accepted(h, req('POST', '/v2.2/authorize', basicAuth(h.apiKey))))
          .trip_creation_token as string
        await accepted(h, req('GET', `/v2.2/trip/${trip.trip_id}/basket`, bearerAuth(trip.trip_access_token))) // verified, now cached
        h.clock.advance(10 * MIN)
        await refused(
          h,
          req('POST', '/v2.2/trip', bearerAuth(creation), tripPayload(h.clock.now())),
          401,
          'token_expired',
        )
        h.clock.advance(20 * MIN)
        for (const probe of probes(h.target, trip.trip_id))
          await refused(h, probe(bearerAuth(trip.trip_access_token)), 401, 'token_expired')
        h.clock.advance(15 * MIN)
        const p = await refused(h, refresh(trip.refresh_token), 401, 'token_expired')
        assert.match(p.detail, /expired/)
      } finally {
        h.clock.set(start)
      }
    })

    test('an expired refresh token presented again is still just expired: its refusal used nothing up, so no reuse is seen', async () => {
      const start = h.clock.now()
      try {
        const trip = await freshTrip(h)
        h.clock.advance(45 * MIN + 1000)
        for (let i = 0; i < 3; i++) await refused(h, refresh(trip.refresh_token), 401, 'token_expired')
      } finally {
        h.clock.set(start)
      }
    })

    // -------------------------------------------------------------- refresh families

    test('a revoked family: every token of it refused, even those already verified and cached, reads and writes', async () => {
      const trip = await freshTrip(h)
      const read = (token: string) => req('GET', `/v2.2/trip/${trip.trip_id}/basket`, bearerAuth(token))
      await accepted(h, read(trip.trip_access_token)) // verified and cached
      const rotated = json(await accepted(h, refresh(trip.refresh_token)))
      await accepted(h, read(rotated.trip_access_token)) // verified and cached
      // Reuse of the first refresh token: the family is revoked (that write is the point of this request).
      const reuse = await sent(h, refresh(trip.refresh_token))
      assert.deepEqual(problemViolations(reuse, 'POST'), [])
      assertProblem(asInjected(reuse), 401, 'unauthorized')
      for (const token of [trip.trip_access_token, rotated.trip_access_token]) {
        for (const probe of probes(h.target, trip.trip_id))
          await refused(h, probe(bearerAuth(token)), 401, 'unauthorized')
      }
      for (const token of [rotated.refresh_token, trip.refresh_token])
        await refused(h, refresh(token), 401, 'unauthorized')
      // The backend's API key still reads the trip; the session is what ended.
      await accepted(h, req('GET', `/v2.2/trip/${trip.trip_id}/basket`, basicAuth(h.apiKey)))
    })

    test("twenty concurrent refreshes with one token: one winner, then every token of the family refused, the winner's too", async () => {
      const trip = await freshTrip(h)
      const answers = await Promise.all(Array.from({ length: 20 }, () => sent(h, refresh(trip.refresh_token))))
      const won = answers.filter((r) => r.status === 200)
      assert.equal(won.length, 1, `statuses: ${answers.map((r) => r.status).join(',')}`)
      for (const r of answers.filter((x) => x.status !== 200)) {
        assert.deepEqual(problemViolations(r, 'POST'), [])
        assertProblem(asInjected(r), 401, 'unauthorized')
      }
      const winner = json(won[0]!)
      // The winner may have stored its new refresh token after a loser revoked the family: the trip's record
      // of revoked families refuses it then, and consuming it marks it used. Nothing else may change.
      for (const token of [winner.refresh_token, trip.refresh_token])
        await refused(h, refresh(token), 401, 'unauthorized', { retiring: true })
      for (const token of [trip.trip_access_token, winner.trip_access_token]) {
        for (const probe of probes(h.target, trip.trip_id))
          await refused(h, probe(bearerAuth(token)), 401, 'unauthorized')
      }
    })

    // -------------------------------------------------------------- API keys

    const tripUrl = () => `/v2.2/trip/${h.target.trip.trip_id}`
    const basicRaw = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`

    test('Basic with a non-empty password', async () => {
      for (const raw of [
        `${h.apiKey}:x`,
        `${h.apiKey}: `,
        `${h.apiKey}::`,
        `${h.apiKey}:${h.apiKey}`,
        `${h.apiKey}:\u0000`,
      ]) {
        await readAndWriteRefused(h, basicRaw(raw))
      }
    })

    test('Basic without the colon, or with the key as the password', async () => {
      for (const raw of [h.apiKey, `:${h.apiKey}`, `${h.apiKey.slice(0, 8)}:${h.apiKey.slice(8)}`, ':', ''])
        await readAndWriteRefused(h, basicRaw(raw))
      await readAndWriteRefused(h, `Basic ${h.apiKey}`) // not base64 of anything with a colon
    })

    test('unknown API keys: random, case-changed, truncated, extended, the other key of the pair', async () => {
      const key = h.apiKey
      const flippedCase = key.replace(/[a-z]/, (c) => c.toUpperCase())
      assert.notEqual(flippedCase, key)
      for (const k of [
        'svc_test_unknownunknownunknown',
        flippedCase,
        key.slice(0, -1),
        `${key}x`,
        ` ${key}`,
        `${key}\u0000`,
      ]) {
        await readAndWriteRefused(h, basicAuth(k))
      }
    })

    test("another seller's API key: this seller's trip and subscription do not exist for it (404)", async () => {
      const other = basicAuth(h.otherApiKey)
      for (const probe of probes(h.target)) await refused(h, probe(other), 404, 'not_found')
      await refused(h, req('POST', `${tripUrl()}/fulfill`, other, fulfilBody(h.target)), 404, 'not_found')
      await refused(h, req('DELETE', `/v2.2/callback_subscription/${h.target.subscriptionId}`, other), 404, 'not_found')
    })

    test('Bearer where Basic is required, and Basic where a Bearer token was issued', async () => {
      const access = bearerAuth(h.target.trip.access_token)
      // Fulfil and webhooks are the backend's (API key) only.
      await refused(h, req('POST', `${tripUrl()}/fulfill`, access, fulfilBody(h.target)), 403, 'forbidden')
      await refused(h, req('POST', '/v2.2/authorize', access), 403, 'forbidden')
      await refused(h, req('POST', '/v2.2/trip', access, tripPayload(h.clock.now())), 403, 'forbidden')
      await refused(h, req('GET', '/v2.2/callback_subscription', access), 403, 'forbidden')
      // The API key is no bearer token, and a token is no API key.
      await readAndWriteRefused(h, bearerAuth(h.apiKey))
      await refused(h, req('POST', '/v2.2/authorize', bearerAuth(h.apiKey)), 401, 'unauthorized')
      await readAndWriteRefused(h, basicAuth(h.target.trip.access_token))
      await readAndWriteRefused(h, `Basic ${h.target.trip.access_token}`)
      await refused(
        h,
        req('POST', '/v2.2/trip', basicAuth(h.target.creationToken), tripPayload(h.clock.now())),
        401,
        'unauthorized',
      )
      for (const scheme of ['Digest', 'Token', 'JWT', 'ApiKey', 'Negotiate'])
        await readAndWriteRefused(h, `${scheme} ${h.target.trip.access_token}`)
    })

    // -------------------------------------------------------------- header smuggling

    test('two Authorization headers are refused, whichever comes first and even when both are valid', async () => {
      const key = basicAuth(h.apiKey)
      const access = bearerAuth(h.target.trip.access_token)
      const url = `${tripUrl()}/basket`
      for (const pair of [
        [key, 'Bearer forged'],
        ['Bearer forged', key],
        [key, key],
        [access, access],
        [access, key],
        [key, basicAuth(h.otherApiKey)],
        [bearerAuth(h.target.sibling.access_token), access],
        [key, ''],
        ['', key],
      ]) {
        const res = await h.sendRepeated(url, pair)
        assert.deepEqual(
          problemViolations(res, 'GET'),
          [],
          `${pair.map((v) => v.slice(0, 20)).join(' | ')}: ${res.status}`,
        )
        assertProblem(asInjected(res), 401, 'unauthorized')
      }
      // One header is still fine.
      assert.equal((await h.sendRepeated(url, [key])).status, 200)
    })

    if (makeHost === serverHost) {
      test('two Authorization headers on a real socket (Node keeps only the first in req.headers)', async () => {
        const port = await h.listen!()
        const raw = (head: string) =>
          new Promise<string>((resolve, reject) => {
            const socket = net.connect(port, '127.0.0.1')
            let out = ''
            socket.on('data', (d) => {
              out += d
            })
            socket.on('close', () => resolve(out))
            socket.on('error', reject)
            socket.write(`${head}Host: api.test\r\nConnection: close\r\n\r\n`)
          })
        const url = `${tripUrl()}/basket`
        const twice = await raw(
          `GET ${url} HTTP/1.1\r\nAuthorization: ${basicAuth(h.apiKey)}\r\nAuthorization: Bearer forged\r\n`,
        )
        assert.match(twice, /^HTTP\/1\.1 401 /, twice.slice(0, 200))
        assert.match(twice, /content-type: application\/problem\+json/i)
        const once = await raw(`GET ${url} HTTP/1.1\r\nAuthorization: ${basicAuth(h.apiKey)}\r\n`)
        assert.match(once, /^HTTP\/1\.1 200 /, once.slice(0, 200))
      })
    }

    test('scheme case and spacing are not an attack (RFC 9110 §11.1: case-insensitive, 1*SP), and forged tokens stay refused in every spelling', async () => {
      const token = h.target.trip.access_token
      const key = basicAuth(h.apiKey).slice('Basic '.length)
      const forged = flipped(token, 9)
      const read = (a: string) => probes(h.target)[0]!(a)
      for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
        for (const space of [' ', '   ', '\t']) {
          await accepted(h, read(`${scheme}${space}${token}`))
          await accepted(h, read(` ${scheme}${space}${token}  `))
          await readAndWriteRefused(h, `${scheme}${space}${forged}`)
        }
      }
      for (const scheme of ['Basic', 'basic', 'BASIC']) {
        await accepted(h, read(`${scheme}  ${key}`))
        await readAndWriteRefused(h, `${scheme} ${basicAuth('svc_test_unknownunknownunknown').slice(6)}`)
      }
      // No space at all is no scheme.
      await readAndWriteRefused(h, `Bearer${token}`)
      await readAndWriteRefused(h, `Basic${key}`)
    })

    test('anything after the credential is refused, not ignored: a second credential, junk, a split token', async () => {
      const token = h.target.trip.access_token
      const key = basicAuth(h.apiKey)
      const [hh, p, s] = parts(token)
      for (const value of [
        `Bearer ${token} junk`,
        `Bearer ${token} ${token}`,
        `Bearer ${flipped(token, 3)} ${token}`,
        `Bearer ${token} Bearer ${h.target.sibling.access_token}`,
        `${key} junk`,
        `${key} ${key.slice(6)}`,
        `${key} Bearer ${token}`,
        `Bearer ${token}, ${key}`,
        `${key}, Bearer ${token}`,
        `Bearer ${hh}. ${p}.${s}`,
        `Bearer ${hh}.${p} .${s}`,
        `Bearer ${token},`,
        `Bearer "${token}"`,
        `Bearer token=${token}`,
      ])
        await readAndWriteRefused(h, value)
    })

    test('100 KB tokens: junk, a genuine header and signature around a 100 KB payload, a 100 KB kid, a 100 KB Basic value', async () => {
      const [hh, , s] = parts(h.target.trip.access_token)
      const big = 'A'.repeat(100 * 1024)
      for (const value of [
        `Bearer ${big}`,
        `Bearer ${hh}.${b64json({ ...claims, pad: big })}.${s}`,
        `Bearer ${await signedByAttacker({ ...claims, pad: big }, { kid })}`,
        `Bearer ${await signedByAttacker(claims, { kid: big })}`,
        `Bearer ${h.target.trip.access_token}${big}`,
        `Basic ${Buffer.from(`${big}:`).toString('base64')}`,
        `Basic ${big}`,
      ])
        await readAndWriteRefused(h, value)
    })

    // -------------------------------------------------------------- last: the probes were real

    test("with the genuine credentials every probe succeeds: the refusals above were the attacks' doing", async () => {
      const token = bearerAuth(h.target.trip.access_token)
      for (const probe of probes(h.target)) await accepted(h, probe(token))
    })
  })
}
