/** Sellers and their API keys, on the core directly. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ProblemError } from '../../../core/shared/errors.ts'
import { createCore } from '../../../core/core.ts'
import { MemoryStore } from '../../../core/adapters/memory-store.ts'
import { createSandboxSupplier } from '../../../core/adapters/sandbox-airline/adapter.ts'
import { Sealer, UnsealError } from '../../../core/shared/sealing.ts'
import type { Supplier } from '../../../core/ports/supplier.ts'
import type { TripRecord } from '../../../core/ports/records.ts'
import { notYetFulfilled } from '../../../core/core.ts'
import { tripSupplier } from '../../../core/application/suppliers.ts'
import { SupplierError } from '../../../core/ports/supplier-errors.ts'
import { START, testClock, testIds, type TestClock } from '../../helpers/build.ts'
import { trip as storeTrip } from '../../store/fixtures.ts'
import { coreFixture } from '../../helpers/core.ts'

test('addApiKey: a further key for an existing seller authenticates as that seller; the first key keeps working', async () => {
  const { core, seller, apiKey } = await coreFixture()
  const second = await core.addApiKey(seller.seller_id)
  assert.notEqual(second, apiKey)
  assert.match(second, /^svc_test_/, 'a sandbox seller gets a test key')
  assert.equal((await core.findSellerByApiKey(second))?.seller_id, seller.seller_id)
  assert.equal((await core.findSellerByApiKey(apiKey))?.seller_id, seller.seller_id)
  const principal = await core.authenticate(`Basic ${Buffer.from(`${second}:`).toString('base64')}`)
  assert.equal(principal?.kind === 'api_key' && principal.seller.seller_id, seller.seller_id)
  assert.notEqual(await core.addApiKey(seller.seller_id), second, 'each call issues a new key')
})

test('addApiKey: an unknown seller is not_found and nothing is stored', async () => {
  const { core, store } = await coreFixture()
  await assert.rejects(
    core.addApiKey('no-such-seller'),
    (e: unknown) => e instanceof ProblemError && e.code === 'not_found',
  )
  assert.equal((await store.listSellers()).length, 1)
})

// ------------------------------------------------------------ suppliers, sealed credentials, key rotation and revocation

const SECRET = 'x'.repeat(16) + 'correct horse battery staple'
const TEST_TOKEN = 'duffel_test_0123456789abcdefABCDEF'
const LIVE_TOKEN = 'duffel_live_0123456789abcdefABCDEF'
const SECOND = 1000
const HOUR = 3_600_000

/** A supplier named `duffel` with Duffel's rule for credentials (server/suppliers/duffel); it is never called here. */
const stubDuffel: Supplier = {
  name: 'duffel',
  capabilities: {
    simulated: false,
    products: ['bag', 'seat'],
    remote: true,
    afterBooking: ['bag'],
    seatsAtBookingOnly: true,
    cancels: false,
    findsBookingByLocator: true,
  },
  credentialsProblem(credentials, sandbox) {
    const want = sandbox ? 'duffel_test_' : 'duffel_live_'
    if (credentials === null) return `Duffel needs the seller's own Duffel access token (${want}…).`
    return credentials.startsWith(want)
      ? null
      : `A ${sandbox ? 'sandbox' : 'live'} seller takes a Duffel token starting ${want}.`
  },
  search: () => {
    throw new Error('not called')
  },
  recheck: () => {
    throw new Error('not called')
  },
  fulfill: () => {
    throw new Error('not called')
  },
  quoteCancellation: () => {
    throw new Error('not called')
  },
  cancel: () => {
    throw new Error('not called')
  },
}

/** A live seller as one made before live sellers needed a real supplier is stored: on the sandbox airline. */
async function legacyLiveSeller(store: MemoryStore, id = 'legacy-live'): Promise<string> {
  await store.createSeller({
    seller_id: id,
    name: 'Live from before',
    origins: [],
    sandbox: false,
    supplier: { name: 'sandbox', credentials: null },
    created_at: '2026-01-01T00:00:00.000Z',
  })
  return id
}

function sellersCore(opts: { store?: MemoryStore; clock?: TestClock; secret?: string | null } = {}) {
  const store = opts.store ?? new MemoryStore()
  const clock = opts.clock ?? testClock()
  const secret = opts.secret === undefined ? SECRET : opts.secret
  const core = createCore({
    store,
    clock,
    ids: testIds('counting'),
    suppliers: [createSandboxSupplier(), stubDuffel],
    config: secret === null ? {} : { signingKeySecret: secret },
  })
  return { store, clock, core }
}

const problem = (code: string, pattern: RegExp) => (e: unknown) =>
  e instanceof ProblemError && e.code === code && pattern.test(e.message)

test('Sealer: unseals what the release before it sealed (the signing keys), and only with that secret and additional data', async () => {
  // Sealed by the code tokens.ts had before sealing.ts, with this secret, the kid `kid-1` as additional data.
  const before = {
    sealed: 'A256GCM' as const,
    iv: 'nUyphpAx256xyD-p',
    data: 'avj4_-rsjCtv9xmfuSLfJjB8rmR8vqwa81Ph57-Q78vxFVVrE8qbQ93DnAMs371AzlwOcLkO5SVhqxHDIALM2ZNVyEqDAl5rWhnPZGHNlKw',
  }
  assert.deepEqual(JSON.parse(await new Sealer(SECRET).unseal(before, 'kid-1')), {
    kty: 'EC',
    crv: 'P-256',
    x: 'x',
    y: 'y',
    d: 'd',
    kid: 'kid-1',
  })
  await assert.rejects(
    new Sealer(SECRET).unseal(before, 'kid-2'),
    (e) => e instanceof UnsealError && /SIGNING_KEY_SECRET/.test(e.message),
  )
  await assert.rejects(new Sealer('y'.repeat(40)).unseal(before, 'kid-1'), UnsealError)
  const sealer = new Sealer(SECRET)
  const a = await sealer.seal('ünïcode ✈ secret', 'aad')
  const b = await sealer.seal('ünïcode ✈ secret', 'aad')
  assert.notEqual(a.iv, b.iv, 'a fresh IV each time')
  assert.equal(await sealer.unseal(b, 'aad'), 'ünïcode ✈ secret')
  await assert.rejects(sealer.unseal({ ...a, data: b.data }, 'aad'), UnsealError)
})

test('create: a supplier with credentials is checked by its adapter, sealed for that seller, and unsealed for calls', async () => {
  const { store, core } = sellersCore()
  const { seller } = await core.createSeller({
    name: 'Shop',
    origins: [],
    sandbox: true,
    supplier: { name: 'duffel', credentials: TEST_TOKEN },
  })
  assert.equal(seller.supplier.name, 'duffel')
  const stored = (await store.getSeller(seller.seller_id))!
  assert.equal(stored.supplier.credentials?.sealed, 'A256GCM')
  assert.ok(!JSON.stringify(store.snapshot()).includes(TEST_TOKEN), 'the token is nowhere in the store in the clear')
  assert.equal(await core.context.sellers.credentials(stored), TEST_TOKEN)

  // Sealed for this seller and supplier: copied onto another seller, it does not unseal.
  const { seller: other } = await core.createSeller({ name: 'Other', origins: [], sandbox: true })
  await assert.rejects(
    core.context.sellers.credentials({ ...other, supplier: stored.supplier }),
    problem('internal', /cannot be unsealed/),
  )
  // Another secret cannot read it; no secret says to set it.
  await assert.rejects(
    sellersCore({ store, secret: 'y'.repeat(40) }).core.context.sellers.credentials(stored),
    problem('internal', /not the secret/),
  )
  await assert.rejects(
    sellersCore({ store, secret: null }).core.context.sellers.credentials(stored),
    problem('internal', /SIGNING_KEY_SECRET is not set/),
  )

  // Without a supplier: the sandbox airline, no credentials, for a sandbox seller; a live seller is refused, saying what to pass.
  const { seller: plain } = await core.createSeller({ name: 'Plain', origins: [], sandbox: true })
  assert.deepEqual(plain.supplier, { name: 'sandbox', credentials: null })
  assert.equal(await core.context.sellers.credentials(plain), null)
  const sellers = (await store.listSellers()).length
  await assert.rejects(
    core.createSeller({ name: 'Plain live', origins: [], sandbox: false }),
    problem(
      'validation_error',
      /^A live seller needs a real supplier: the sandbox airline sells simulated offers and cannot serve live trips\. Pass the real supplier and the seller's own token for it, e\.g\. --supplier duffel --duffel-token duffel_live_…/,
    ),
  )
  assert.equal((await store.listSellers()).length, sellers, 'nothing stored')
  assert.match(
    (
      await core.createSeller({
        name: 'Live',
        origins: [],
        sandbox: false,
        supplier: { name: 'duffel', credentials: LIVE_TOKEN },
      })
    ).apiKey,
    /^svc_live_/,
  )
})

test('create: a supplier that does not fit the seller is refused, and nothing is stored', async () => {
  const { store, core } = sellersCore()
  const refusals: Array<[Parameters<typeof core.createSeller>[0], RegExp]> = [
    [
      { name: 'Live', origins: [], sandbox: false, supplier: { name: 'duffel', credentials: TEST_TOKEN } },
      /live seller.*duffel_live_/,
    ],
    [
      { name: 'Test', origins: [], sandbox: true, supplier: { name: 'duffel', credentials: LIVE_TOKEN } },
      /sandbox seller.*duffel_test_/,
    ],
    [
      { name: 'No token', origins: [], sandbox: true, supplier: { name: 'duffel' } },
      /Duffel access token \(duffel_test_…\)/,
    ],
    [{ name: 'Live sandbox', origins: [], sandbox: false, supplier: { name: 'sandbox' } }, /simulated offers/],
    [
      { name: 'Sandbox with a token', origins: [], sandbox: true, supplier: { name: 'sandbox', credentials: 'x' } },
      /takes no credentials/,
    ],
    [
      { name: 'Unknown', origins: [], sandbox: true, supplier: { name: 'amadeus' } },
      /no supplier "amadeus": this service offers sandbox, duffel/,
    ],
  ]
  for (const [input, message] of refusals)
    await assert.rejects(core.createSeller(input), problem('validation_error', message), input.name)
  assert.deepEqual(await store.listSellers(), [])

  // Credentials without SIGNING_KEY_SECRET: refused, saying to set it (never stored in the clear).
  const bare = sellersCore({ secret: null })
  await assert.rejects(
    bare.core.createSeller({
      name: 'Shop',
      origins: [],
      sandbox: true,
      supplier: { name: 'duffel', credentials: TEST_TOKEN },
    }),
    problem('validation_error', /SIGNING_KEY_SECRET.*not set: set SIGNING_KEY_SECRET/),
  )
  assert.deepEqual(await bare.store.listSellers(), [])
  // A supplier without credentials needs no secret.
  assert.ok(await bare.core.createSeller({ name: 'Shop', origins: [], sandbox: true, supplier: { name: 'sandbox' } }))
})

test('update: origins added and removed, the supplier changed or kept; every change is seen here at once', async () => {
  const { store, core } = sellersCore()
  const { seller } = await core.createSeller({ name: 'Shop', origins: ['https://a.example'], sandbox: true })
  const id = seller.seller_id
  // Cached before the update: the update empties the caches.
  assert.equal(await core.isAllowedOrigin('https://a.example'), true)
  assert.deepEqual((await core.context.sellers.get(id))?.origins, ['https://a.example'])

  let { seller: updated } = await core.updateSeller(id, {
    addOrigins: ['https://B.example:443/', 'https://c.example'],
    removeOrigins: ['https://a.example'],
  })
  assert.deepEqual(updated.origins, ['https://b.example', 'https://c.example'])
  assert.deepEqual((await core.context.sellers.get(id))?.origins, ['https://b.example', 'https://c.example'])
  assert.equal(await core.isAllowedOrigin('https://a.example'), false)
  assert.equal(await core.isAllowedOrigin('https://b.example'), true)
  assert.deepEqual((await store.getSeller(id))?.supplier, { name: 'sandbox', credentials: null }, 'the supplier stays')
  await assert.rejects(
    core.updateSeller(id, { removeOrigins: ['https://zzz.example'] }),
    problem(
      'validation_error',
      /https:\/\/zzz\.example is not an origin of seller .*its origins: https:\/\/b\.example, https:\/\/c\.example/,
    ),
  )

  // To Duffel with a token (sealed), then Duffel again without one keeps it, then back to the sandbox airline keeps it aside.
  ;({ seller: updated } = await core.updateSeller(id, { supplier: { name: 'duffel', credentials: TEST_TOKEN } }))
  assert.equal(updated.supplier.name, 'duffel')
  assert.deepEqual((await store.getSeller(id))?.origins, ['https://b.example', 'https://c.example'], 'the origins stay')
  const sealed = (await store.getSeller(id))!.supplier.credentials
  assert.equal(await core.context.sellers.credentials((await core.context.sellers.get(id))!), TEST_TOKEN)
  await core.updateSeller(id, { supplier: { name: 'duffel' } })
  assert.deepEqual((await store.getSeller(id))?.supplier, { name: 'duffel', credentials: sealed })
  await assert.rejects(
    core.updateSeller(id, { supplier: { name: 'duffel', credentials: LIVE_TOKEN } }),
    problem('validation_error', /duffel_test_/),
  )
  await core.updateSeller(id, { supplier: { name: 'sandbox' } })
  assert.deepEqual((await core.context.sellers.get(id))?.supplier, { name: 'sandbox', credentials: null })
  assert.deepEqual(
    (await store.getSeller(id))?.kept_credentials,
    { duffel: sealed },
    'the token of the supplier left is kept, sealed',
  )

  // A live seller made before live sellers needed a real supplier (on the sandbox airline) may leave it, never
  // stay on it through another change, nor go back to it.
  const live = await legacyLiveSeller(store)
  await assert.rejects(
    core.updateSeller(live, { addOrigins: ['https://live.example'] }),
    problem(
      'validation_error',
      new RegExp(
        `^Seller ${live} is live and would be left without a real supplier: its supplier sandbox sells simulated offers and cannot serve live trips\\. Pass its real supplier and the seller's own token for it with this update, e\\.g\\. --supplier duffel --duffel-token duffel_live_…`,
      ),
    ),
  )
  assert.deepEqual((await store.getSeller(live))?.origins, [], 'nothing changed')
  await assert.rejects(
    core.updateSeller(live, { supplier: { name: 'sandbox' } }),
    problem('validation_error', /simulated offers/),
  )
  await core.updateSeller(live, {
    addOrigins: ['https://live.example'],
    supplier: { name: 'duffel', credentials: LIVE_TOKEN },
  })
  assert.equal((await store.getSeller(live))?.supplier.name, 'duffel')
  await assert.rejects(
    core.updateSeller(live, { supplier: { name: 'sandbox' } }),
    problem('validation_error', /simulated offers/),
  )
  await assert.rejects(core.updateSeller('ghost', { addOrigins: ['https://x.example'] }), problem('not_found', /ghost/))
  // addSellerOrigins (the demo hosts) still adds, once.
  await core.addSellerOrigins(id, ['https://b.example', 'https://d.example'])
  assert.deepEqual((await store.getSeller(id))?.origins, [
    'https://b.example',
    'https://c.example',
    'https://d.example',
  ])
})

test('credentials: unsealed once, then kept 10 s at most', async (t) => {
  const { clock, core, store } = sellersCore()
  const { seller } = await core.createSeller({
    name: 'Shop',
    origins: [],
    sandbox: true,
    supplier: { name: 'duffel', credentials: TEST_TOKEN },
  })
  const stored = (await store.getSeller(seller.seller_id))!
  const decrypt = t.mock.method(crypto.subtle, 'decrypt')
  assert.equal(await core.context.sellers.credentials(stored), TEST_TOKEN)
  assert.equal(decrypt.mock.callCount(), 1)
  clock.advance(9_999)
  assert.equal(await core.context.sellers.credentials(stored), TEST_TOKEN)
  assert.equal(decrypt.mock.callCount(), 1, 'kept within 10 s')
  clock.advance(1)
  assert.equal(await core.context.sellers.credentials(stored), TEST_TOKEN)
  assert.equal(decrypt.mock.callCount(), 2, 'unsealed again after 10 s')
})

test('rotateKey: a new key at once; the keys that worked keep working for the grace period, to the millisecond', async () => {
  const { clock, core } = sellersCore()
  const { seller, apiKey: first } = await core.createSeller({
    name: 'Shop',
    origins: [],
    sandbox: false,
    supplier: { name: 'duffel', credentials: LIVE_TOKEN },
  })
  const id = seller.seller_id
  assert.equal((await core.findSellerByApiKey(first))?.seller_id, id)
  clock.advance(SECOND)
  const start = clock.now().getTime()
  const rotated = await core.rotateApiKey(id)
  assert.match(rotated.apiKey, /^svc_live_/)
  assert.equal(rotated.prefix, rotated.apiKey.slice(0, 12))
  assert.equal(rotated.graceUntil, new Date(start + 24 * HOUR).toISOString())
  assert.deepEqual(rotated.previous, [
    { prefix: first.slice(0, 12), created_at: seller.created_at, expires_at: rotated.graceUntil },
  ])
  assert.equal((await core.findSellerByApiKey(rotated.apiKey))?.seller_id, id)
  clock.set(new Date(start + 24 * HOUR - 1))
  assert.equal((await core.findSellerByApiKey(first))?.seller_id, id, 'the old key works until the grace ends')
  clock.set(new Date(start + 24 * HOUR))
  assert.equal(await core.findSellerByApiKey(first), undefined, 'then it stops')
  await assert.rejects(
    core.authenticate(`Basic ${Buffer.from(`${first}:`).toString('base64')}`),
    problem('unauthorized', /not valid/),
  )
  assert.equal((await core.findSellerByApiKey(rotated.apiKey))?.seller_id, id)

  // A second rotation with no grace: the key before stops now; an expired key is left as it was.
  clock.advance(SECOND)
  const again = await core.rotateApiKey(id, 0)
  assert.deepEqual(
    again.previous.map((k) => k.prefix),
    [rotated.prefix],
  )
  assert.equal(await core.findSellerByApiKey(rotated.apiKey), undefined)
  assert.equal((await core.findSellerByApiKey(again.apiKey))?.seller_id, id)
  const listed = (await core.listSellers()).find((l) => l.seller.seller_id === id)!
  assert.deepEqual(
    listed.keys.map((k) => [k.prefix, k.expires_at]),
    [
      [first.slice(0, 12), new Date(start + 24 * HOUR).toISOString()],
      [rotated.prefix, clock.now().toISOString()],
      [again.prefix, null],
    ],
  )
  assert.deepEqual(
    Object.keys(listed.keys[0]!).sort(),
    ['created_at', 'expires_at', 'prefix', 'revoked_at', 'state'],
    'never a key or its hash',
  )
  assert.deepEqual(
    listed.keys.map((k) => k.state),
    ['expired', 'expired', 'active'],
    'rotated away and past its grace (24 h, or none): expired, not revoked',
  )

  for (const hours of [-1, Number.NaN, Number.POSITIVE_INFINITY, 24 * 366]) {
    await assert.rejects(core.rotateApiKey(id, hours), problem('validation_error', /number of hours/))
  }
  await assert.rejects(core.rotateApiKey('ghost'), problem('not_found', /ghost/))
})

test('revokeKeys: the key a prefix names stops now; without a prefix every key but the newest; a revocation shortens a grace period', async () => {
  const { clock, core } = sellersCore()
  const { seller, apiKey: k1 } = await core.createSeller({ name: 'Shop', origins: [], sandbox: true })
  const id = seller.seller_id
  clock.advance(SECOND)
  const k2 = await core.addApiKey(id)
  clock.advance(SECOND)
  const k3 = await core.addApiKey(id)
  for (const k of [k1, k2, k3]) assert.equal((await core.findSellerByApiKey(k))?.seller_id, id)

  clock.advance(SECOND)
  const byPrefix = await core.revokeApiKeys(id, k2.slice(0, 12))
  assert.deepEqual(byPrefix, {
    revoked: [
      {
        prefix: k2.slice(0, 12),
        created_at: new Date(Date.parse(seller.created_at) + SECOND).toISOString(),
        expires_at: clock.now().toISOString(),
      },
    ],
    alreadyExpired: [],
    kept: null,
  })
  assert.equal(await core.findSellerByApiKey(k2), undefined, 'refused at once here')
  assert.equal((await core.findSellerByApiKey(k1))?.seller_id, id)
  // Again: already expired, nothing changes.
  assert.deepEqual(
    (await core.revokeApiKeys(id, k2)).alreadyExpired.map((k) => k.prefix),
    [k2.slice(0, 12)],
    'the whole key names it too',
  )
  await assert.rejects(
    core.revokeApiKeys(id, 'svc_test_zzz'),
    problem('not_found', /no API key with prefix svc_test_zzz/),
  )
  await assert.rejects(core.revokeApiKeys(id, 'svc_test_'), problem('validation_error', /names 3 keys/))

  // A rotation's grace, cut short by revoking every key but the newest.
  clock.advance(SECOND)
  const rotated = await core.rotateApiKey(id)
  assert.equal((await core.findSellerByApiKey(k1))?.seller_id, id, 'in its grace period')
  const all = await core.revokeApiKeys(id)
  assert.deepEqual(
    all.revoked.map((k) => k.prefix),
    [k1, k3].map((k) => k.slice(0, 12)),
  )
  assert.deepEqual(
    all.alreadyExpired.map((k) => k.prefix),
    [k2.slice(0, 12)],
  )
  assert.equal(all.kept?.prefix, rotated.prefix)
  for (const k of [k1, k2, k3]) assert.equal(await core.findSellerByApiKey(k), undefined)
  assert.equal((await core.findSellerByApiKey(rotated.apiKey))?.seller_id, id)
  // Keys made at one instant: the rotation's new key (the one that never expires) is the newest.
  const sameInstant = await core.rotateApiKey(id)
  assert.equal((await core.revokeApiKeys(id)).kept?.prefix, sameInstant.prefix)
  assert.equal((await core.findSellerByApiKey(sameInstant.apiKey))?.seller_id, id)
  await assert.rejects(core.revokeApiKeys('ghost'), problem('not_found', /ghost/))
})

test('a key revoked by another process (the CLI) stops working here within 10 s: keys are read again at most every 10 s', async (t) => {
  const store = new MemoryStore()
  const clock = testClock()
  const server = sellersCore({ store, clock }).core
  const cli = sellersCore({ store, clock }).core
  const { seller, apiKey } = await cli.createSeller({ name: 'Shop', origins: [], sandbox: true })
  assert.equal((await server.findSellerByApiKey(apiKey))?.seller_id, seller.seller_id)
  clock.advance(5 * SECOND)
  await cli.revokeApiKeys(seller.seller_id, apiKey.slice(0, 12))
  clock.advance(4_999)
  assert.equal(
    (await server.findSellerByApiKey(apiKey))?.seller_id,
    seller.seller_id,
    'kept for 10 s after it was read',
  )
  clock.advance(1)
  assert.equal(await server.findSellerByApiKey(apiKey), undefined, 'read again: refused')

  // A rotation with a grace period (15 s): the expiry read with the key holds to the millisecond, without a new read.
  const next = await cli.addApiKey(seller.seller_id)
  assert.ok(await server.findSellerByApiKey(next))
  const { graceUntil } = await cli.rotateApiKey(seller.seller_id, 15 / 3600)
  clock.advance(9_999)
  assert.ok(await server.findSellerByApiKey(next), 'the cached key, read before the rotation, is kept')
  clock.advance(1)
  const reads = t.mock.method(store, 'findApiKey')
  assert.ok(await server.findSellerByApiKey(next), 'read again, with its expiry')
  clock.set(new Date(Date.parse(graceUntil) - 1))
  assert.ok(await server.findSellerByApiKey(next))
  clock.set(graceUntil)
  assert.equal(await server.findSellerByApiKey(next), undefined)
  assert.equal(reads.mock.callCount(), 1, 'one read: the expiry came with it')
})

test('list and show: each key with its state, a revoked key apart from an expired one', async () => {
  const { clock, core } = sellersCore()
  const { seller, apiKey: k1 } = await core.createSeller({ name: 'Shop', origins: [], sandbox: true })
  const id = seller.seller_id
  clock.advance(SECOND)
  const k2 = await core.addApiKey(id)
  clock.advance(SECOND)
  const rotated = await core.rotateApiKey(id, 1)
  clock.advance(SECOND)
  const revokedAt = clock.now().toISOString()
  await core.revokeApiKeys(id, k2.slice(0, 12))
  const states = async () => (await core.showSeller(id)).keys.map((k) => [k.prefix, k.state, k.revoked_at])
  assert.deepEqual(await states(), [
    [k1.slice(0, 12), 'grace', null],
    [k2.slice(0, 12), 'revoked', revokedAt],
    [rotated.prefix, 'active', null],
  ])
  clock.advance(HOUR)
  assert.deepEqual(
    await states(),
    [
      [k1.slice(0, 12), 'expired', null],
      [k2.slice(0, 12), 'revoked', revokedAt],
      [rotated.prefix, 'active', null],
    ],
    'past its grace the rotated key is expired; the revoked one stays revoked',
  )
  // Revoking an expired key changes nothing: it stays expired.
  await core.revokeApiKeys(id, k1.slice(0, 12))
  assert.equal((await core.showSeller(id)).keys[0]!.state, 'expired')
  assert.deepEqual(
    (await core.listSellers()).find((l) => l.seller.seller_id === id),
    await core.showSeller(id),
    "show is list's entry",
  )
  await assert.rejects(core.showSeller('ghost'), problem('not_found', /Seller ghost does not exist/))
})

test("disable and enable: a disabled seller's key and tokens are refused (seller_disabled) here at once, on another instance within 10 s; enable restores them", async () => {
  const store = new MemoryStore()
  const clock = testClock()
  const server = sellersCore({ store, clock }).core
  const cli = sellersCore({ store, clock }).core
  await server.ensureSigningKey()
  const { seller, apiKey } = await cli.createSeller({ name: 'Shop', origins: [], sandbox: true })
  const id = seller.seller_id
  const basicAuth = `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`
  const creation = `Bearer ${await server.tokens.sign('trip_creation', id, 600)}`
  const access = `Bearer ${await server.tokens.sign('trip_access', id, 1800, 'trip-1', null)}`
  const all = [basicAuth, creation, access]
  for (const a of all) assert.ok(await server.authenticate(a), 'works before')

  clock.advance(SECOND)
  const disabled = await cli.disableSeller(id)
  assert.deepEqual([disabled.changed, disabled.seller.disabled_at], [true, clock.now().toISOString()])
  for (const a of all)
    await assert.rejects(
      cli.authenticate(a),
      problem('seller_disabled', /disabled by the operator/),
      'refused at once on the instance that disabled it',
    )
  clock.advance(8_999)
  for (const a of all) assert.ok(await server.authenticate(a), 'another instance read the seller less than 10 s ago')
  clock.advance(1)
  for (const a of all)
    await assert.rejects(
      server.authenticate(a),
      problem('seller_disabled', /until it is enabled again/),
      'read again: refused',
    )
  const e = await server.authenticate(basicAuth).catch((x: unknown) => x)
  assert.ok(e instanceof ProblemError && e.status === 403)

  // Disabling again changes nothing (it stays disabled since then); enabling restores every key and token.
  clock.advance(SECOND)
  assert.deepEqual(
    [(await cli.disableSeller(id)).changed, (await store.getSeller(id))?.disabled_at],
    [false, disabled.seller.disabled_at],
  )
  const enabled = await cli.enableSeller(id)
  assert.deepEqual([enabled.changed, enabled.seller.disabled_at], [true, undefined])
  assert.equal((await store.getSeller(id))?.disabled_at, undefined)
  for (const a of all) assert.ok(await cli.authenticate(a), 'enabled: works here at once')
  clock.advance(10 * SECOND)
  for (const a of all) assert.ok(await server.authenticate(a), 'and on the other instance within 10 s')
  assert.equal((await cli.enableSeller(id)).changed, false)
  await assert.rejects(cli.disableSeller('ghost'), problem('not_found', /ghost/))
})

/** A trip of the seller, on `supplier`, departing `departsInMs` from `now`, with these basket items and orders. */
function tripOf(
  id: string,
  sellerId: string,
  now: Date,
  o: {
    supplier?: string
    departsInMs?: number | null
    items?: Array<{ type: string; order?: string }>
    orders?: Record<string, string>
  } = {},
): TripRecord {
  const departs =
    o.departsInMs === null ? 'not a time' : new Date(now.getTime() + (o.departsInMs ?? 30 * 24 * HOUR)).toISOString()
  const basket = Object.fromEntries(
    (o.items ?? []).map((it, i) => [
      `b${i}`,
      { basket_item_id: `b${i}`, product_type: it.type, ...(it.order ? { order_id: it.order } : {}) },
    ]),
  )
  const orders = Object.fromEntries(
    Object.entries(o.orders ?? {}).map(([oid, status]) => [oid, { order_id: oid, status }]),
  )
  return storeTrip(id, sellerId, {
    ...(o.supplier ? { supplier: o.supplier } : {}),
    journeys: [{ journey_id: 'j1', segments: [{ departure_time: departs }] }],
    basket,
    orders,
  } as unknown as Partial<TripRecord>)
}

test('notYetFulfilled: departure still ahead, and an extra not yet ordered or an order not final', () => {
  const now = new Date(START)
  const of = (o: Parameters<typeof tripOf>[3]) => notYetFulfilled(tripOf('t', 's', now, o), now)
  assert.equal(of({ items: [{ type: 'ticket' }, { type: 'bag' }] }), true, 'a bag not ordered')
  assert.equal(of({ items: [{ type: 'ticket' }] }), false, 'the ticket alone is never ordered here')
  assert.equal(of({ items: [{ type: 'bag', order: 'o1' }], orders: { o1: 'succeeded' } }), false, 'ordered, final')
  for (const status of ['awaiting_ticketing', 'queued', 'in_progress', 'cancelling'])
    assert.equal(of({ items: [{ type: 'bag', order: 'o1' }], orders: { o1: status } }), true, status)
  for (const status of ['failed', 'cancelled'])
    assert.equal(of({ items: [{ type: 'seat', order: 'o1' }], orders: { o1: status } }), false, status)
  assert.equal(of({ departsInMs: -1, items: [{ type: 'bag' }] }), false, 'departed')
  assert.equal(of({ departsInMs: 0, items: [{ type: 'bag' }] }), false, 'departing now')
  assert.equal(of({ departsInMs: null, items: [{ type: 'bag' }] }), true, 'no readable departure counts as ahead')
})

test('update --supplier: the token left is kept and serves the trips created with it; a switch waits for trips not yet fulfilled unless forced; --remove-token', async () => {
  const { store, clock, core } = sellersCore()
  const { seller } = await core.createSeller({
    name: 'Shop',
    origins: [],
    sandbox: true,
    supplier: { name: 'duffel', credentials: TEST_TOKEN },
  })
  const id = seller.seller_id
  const now = clock.now()
  const trips = [
    tripOf('t-bag', id, now, { supplier: 'duffel', items: [{ type: 'ticket' }, { type: 'bag' }] }),
    tripOf('t-queued', id, now, {
      supplier: 'duffel',
      items: [{ type: 'bag', order: 'o1' }],
      orders: { o1: 'queued' },
    }),
    tripOf('t-done', id, now, {
      supplier: 'duffel',
      items: [{ type: 'bag', order: 'o2' }],
      orders: { o2: 'succeeded' },
    }),
    tripOf('t-gone', id, now, { supplier: 'duffel', departsInMs: -HOUR, items: [{ type: 'bag' }] }),
    // On the sandbox airline: a switch to it leaves this trip where it is.
    tripOf('t-sandbox', id, now, { items: [{ type: 'bag' }] }),
  ]
  for (const t of trips) await store.insertTrip(t)
  const sealedToken = (await store.getSeller(id))!.supplier.credentials

  await assert.rejects(
    core.updateSeller(id, { supplier: { name: 'sandbox' } }),
    problem(
      'validation_error',
      new RegExp(
        `^Seller ${id} has 2 trips not yet fulfilled on duffel \\(trips whose first departure is still ahead and that have an extra in the basket not yet ordered, or an order not final \\(awaiting_ticketing, queued, in_progress or cancelling\\)\\): t-bag, t-queued\\. They would stay on duffel, served with its kept token, while new trips go to sandbox\\. Run this again once they are fulfilled or have departed, or add --force to switch now\\.$`,
      ),
    ),
  )
  assert.deepEqual((await store.getSeller(id))?.supplier.name, 'duffel', 'nothing changed')

  const forced = await core.updateSeller(id, { supplier: { name: 'sandbox' }, force: true })
  assert.deepEqual(forced.unfinished, { count: 2, tripIds: ['t-bag', 't-queued'], suppliers: ['duffel'], stranded: [] })
  assert.deepEqual(forced.seller.supplier, { name: 'sandbox', credentials: null })
  assert.deepEqual(forced.seller.kept_credentials, { duffel: sealedToken })
  assert.deepEqual(await store.getSeller(id), forced.seller)
  // A trip created on Duffel is still served with the kept token; a new trip goes to the sandbox airline.
  const call = await tripSupplier(core.context, trips[0]!)
  assert.deepEqual([call.supplier.name, call.call.credentials], ['duffel', TEST_TOKEN])

  // Back to Duffel without a token: the kept one is taken up again (none are left kept); a trip on the sandbox
  // airline is left there, and it needs no token, so the switch goes ahead, saying so.
  const back = await core.updateSeller(id, { supplier: { name: 'duffel' }, force: true })
  assert.deepEqual(back.seller.supplier, { name: 'duffel', credentials: sealedToken })
  assert.equal(back.seller.kept_credentials, undefined)
  assert.deepEqual(back.unfinished, { count: 1, tripIds: ['t-sandbox'], suppliers: ['sandbox'], stranded: [] })
  assert.equal((await store.getSeller(id))?.kept_credentials, undefined)
  await assert.rejects(
    core.updateSeller(id, { removeToken: true }),
    problem(
      'validation_error',
      /keeps no token of a supplier it does not sell from: --remove-token has nothing to remove/,
    ),
  )

  // Away again, removing the token: refused while its trips need it; forced, they are left without it.
  await assert.rejects(
    core.updateSeller(id, { supplier: { name: 'sandbox' }, removeToken: true }),
    problem(
      'validation_error',
      /has 2 trips not yet fulfilled on duffel .*: t-bag, t-queued\. They would stay on duffel, and duffel would have no token for them: their checks, fulfillment and orders would fail \(supplier_not_configured\)\. .* add --force to switch now\.$/,
    ),
  )
  await core.updateSeller(id, { supplier: { name: 'sandbox' }, force: true })
  await assert.rejects(
    core.updateSeller(id, { removeToken: true }),
    problem('validation_error', /2 trips not yet fulfilled on duffel .* add --force to remove the token now\.$/),
  )
  const removed = await core.updateSeller(id, { removeToken: true, force: true })
  assert.deepEqual(removed.unfinished, {
    count: 2,
    tripIds: ['t-bag', 't-queued'],
    suppliers: ['duffel'],
    stranded: ['duffel'],
  })
  assert.equal((await store.getSeller(id))?.kept_credentials, undefined)
  await assert.rejects(
    tripSupplier(core.context, trips[0]!),
    (e: unknown) =>
      e instanceof SupplierError &&
      e.reason === 'supplier_not_configured' &&
      /trip t-bag: Duffel needs the seller's own Duffel access token/.test(e.message),
  )

  // Origins alone never look at trips.
  assert.equal((await core.updateSeller(id, { addOrigins: ['https://x.example'] })).unfinished, null)
})

test("update --supplier: trips not yet fulfilled are found on every page of the seller's trips, and a few are named", async () => {
  const { store, clock, core } = sellersCore()
  const { seller } = await core.createSeller({ name: 'Shop', origins: [], sandbox: true })
  const { seller: other } = await core.createSeller({ name: 'Other', origins: [], sandbox: true })
  const now = clock.now()
  for (let i = 0; i < 450; i++) {
    // Every third one not yet fulfilled; another seller's never count.
    await store.insertTrip(
      tripOf(`t${String(i).padStart(3, '0')}`, seller.seller_id, now, {
        items: [{ type: 'bag', ...(i % 3 ? { order: 'o' } : {}) }],
        orders: i % 3 ? { o: 'succeeded' } : {},
      }),
    )
    await store.insertTrip(tripOf(`u${i}`, other.seller_id, now, { items: [{ type: 'bag' }] }))
  }
  await assert.rejects(
    core.updateSeller(seller.seller_id, { supplier: { name: 'duffel', credentials: TEST_TOKEN } }),
    problem(
      'validation_error',
      /has 150 trips not yet fulfilled on sandbox .*: t000, t003, t006, t009, t012, …\. They would stay on sandbox, while new trips go to duffel\./,
    ),
  )
})
