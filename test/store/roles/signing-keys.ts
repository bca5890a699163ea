/** The store contract of SigningKeyStore: the keys that sign session tokens. */
import assert from 'node:assert/strict'
import { iso, signingKey, type ContractContext } from '../fixtures.ts'

export function signingKeysContract({ it }: ContractContext): void {
  it('signing keys: add once per kid, listed in creation order', async (s) => {
    const k2 = signingKey('k2', { created_at: iso(60), retire_at: iso(120) })
    assert.equal(await s.addSigningKey(k2), true)
    assert.equal(await s.addSigningKey(signingKey('k1')), true)
    assert.equal(await s.addSigningKey(signingKey('k1', { created_at: iso(999) })), false)
    assert.deepEqual(await s.listSigningKeys(), [signingKey('k1'), k2])
  })

  it('a signing key is retired, or its private key replaced (sealed), in place', async (s) => {
    await s.addSigningKey(signingKey('k1'))
    await s.addSigningKey(signingKey('k2'))
    await s.updateSigningKey('k1', { retire_at: iso(300) })
    const sealed = { sealed: 'A256GCM' as const, iv: 'aXY', data: 'ZGF0YQ' }
    await s.updateSigningKey('k2', { private_jwk: sealed })
    await s.updateSigningKey('nope', { retire_at: iso(1) })
    assert.deepEqual(await s.listSigningKeys(), [
      signingKey('k1', { retire_at: iso(300) }),
      signingKey('k2', { private_jwk: sealed }),
    ])
  })
}
