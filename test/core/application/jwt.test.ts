/**
 * Token signing keys: sealed at rest under SIGNING_KEY_SECRET, unreadable without it, sealed in place when
 * the secret is set later, and rotated on schedule with the retired key verifying (and published) until its
 * tokens have expired, then deleted.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { decodeProtectedHeader } from 'jose'
import { MemoryStore } from '../../../core/adapters/memory-store.ts'
import { createCore, type CoreConfig } from '../../../core/core.ts'
import { createSandboxSupplier } from '../../../core/adapters/sandbox-airline/adapter.ts'
import { SigningKeySecretError } from '../../../core/application/jwt.ts'
import { testClock, testIds, type TestClock } from '../../helpers/build.ts'
import { answer } from '../../helpers/operations.ts'

const SECRET = 'x'.repeat(16) + 'correct horse battery staple'
const MIN = 60_000
const DAY = 86_400_000

function coreOn(store: MemoryStore, clock: TestClock, config: Partial<CoreConfig> = {}) {
  return createCore({ store, suppliers: [createSandboxSupplier()], clock, ids: testIds(), config })
}

async function seller(core: ReturnType<typeof coreOn>) {
  const { seller } = await core.createSeller({ name: 'Shop', origins: [], sandbox: true })
  return seller
}

test('with a secret, private keys are stored sealed, and read back only with that secret', async () => {
  const store = new MemoryStore()
  const clock = testClock()
  const a = coreOn(store, clock, { signingKeySecret: SECRET })
  await a.ensureSigningKey()
  const [stored] = await store.listSigningKeys()
  assert.equal((stored!.private_jwk as { sealed?: string }).sealed, 'A256GCM')
  assert.ok(!JSON.stringify(stored!.private_jwk).includes('"d"'), 'no private scalar in the clear')
  const s = await seller(a)
  const token = await a.tokens.sign('trip_access', s.seller_id, 600, 'trip-1')

  // Another instance with the same secret signs and verifies with the same key.
  const b = coreOn(store, clock, { signingKeySecret: SECRET })
  await b.ensureSigningKey()
  assert.equal((await b.tokens.verify(token)).sub, 'trip-1')
  assert.equal(decodeProtectedHeader(await b.tokens.sign('trip_access', s.seller_id, 600, 'trip-2')).kid, stored!.kid)

  await assert.rejects(
    coreOn(store, clock).ensureSigningKey(),
    (e) => e instanceof SigningKeySecretError && /SIGNING_KEY_SECRET is not set/.test(e.message),
  )
  await assert.rejects(
    coreOn(store, clock, { signingKeySecret: 'y'.repeat(40) }).ensureSigningKey(),
    (e) => e instanceof SigningKeySecretError && /not the secret/.test(e.message),
  )
})

test('keys stored in the clear are sealed in place once a secret is set; tokens they signed still verify', async () => {
  const store = new MemoryStore()
  const clock = testClock()
  const plain = coreOn(store, clock)
  await plain.ensureSigningKey()
  const s = await seller(plain)
  const token = await plain.tokens.sign('trip_access', s.seller_id, 600, 'trip-1')
  assert.ok('d' in (await store.listSigningKeys())[0]!.private_jwk)

  const sealed = coreOn(store, clock, { signingKeySecret: SECRET })
  await sealed.ensureSigningKey()
  const keys = await store.listSigningKeys()
  assert.equal(keys.length, 1, 'the same key, sealed, not a new one')
  assert.equal((keys[0]!.private_jwk as { sealed?: string }).sealed, 'A256GCM')
  assert.equal((await sealed.tokens.verify(token)).sub, 'trip-1')
})

test('rotation: after the period a new key signs; the old one verifies and is published until its tokens expire, then goes', async () => {
  const store = new MemoryStore()
  const clock = testClock()
  const core = coreOn(store, clock, { signingKeyRotationDays: 30, signingKeySecret: SECRET })
  await core.ensureSigningKey()
  const s = await seller(core)
  const [first] = await store.listSigningKeys()

  clock.advance(30 * DAY - 10 * MIN)
  const oldToken = await core.tokens.sign('trip_access', s.seller_id, 30 * 60, 'trip-1')
  assert.equal(decodeProtectedHeader(oldToken).kid, first!.kid)

  clock.advance(10 * MIN)
  await core.purgeExpired() // the worker's tick rotates
  const keys = await store.listSigningKeys()
  assert.equal(keys.length, 2)
  const second = keys.find((k) => k.kid !== first!.kid)!
  assert.equal(keys.find((k) => k.kid === first!.kid)!.retire_at, clock.now().toISOString())
  assert.equal(decodeProtectedHeader(await core.tokens.sign('trip_access', s.seller_id, 600, 'trip-2')).kid, second.kid)
  assert.equal((await core.tokens.verify(oldToken)).sub, 'trip-1', 'a token of the retired key still verifies')
  assert.deepEqual(
    (await answer(core, 'jwks')).keys.map((k) => (k as { kid?: string }).kid).sort(),
    [first!.kid, second.kid].sort(),
  )

  // Past every token's lifetime (and a margin), the retired key is unpublished, and the retention job deletes it.
  clock.advance(3 * 60 * MIN)
  assert.deepEqual(
    (await answer(core, 'jwks')).keys.map((k) => (k as { kid?: string }).kid),
    [second.kid],
  )
  await core.purgeExpired()
  assert.deepEqual(
    (await store.listSigningKeys()).map((k) => k.kid),
    [second.kid],
  )
  await assert.rejects(core.tokens.verify(oldToken))
})
