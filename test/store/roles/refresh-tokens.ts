/** The store contract of RefreshTokenStore: refresh tokens, consumed once, revoked by family. */
import assert from 'node:assert/strict'
import { at, iso, refreshToken, seller, trip, type ContractContext } from '../fixtures.ts'

export function refreshTokensContract({ it, withTrip }: ContractContext): void {
  it('a refresh token is consumed once, then reported reused', async (s) => {
    await withTrip(s)
    await s.insertRefreshToken(refreshToken('r1', 'f1'))
    assert.deepEqual(await s.consumeRefreshToken('r1', at(60)), {
      status: 'ok',
      record: refreshToken('r1', 'f1', { used_at: iso(60) }),
    })
    assert.deepEqual(await s.consumeRefreshToken('r1', at(90)), {
      status: 'reused',
      record: refreshToken('r1', 'f1', { used_at: iso(60) }),
    })
    assert.deepEqual(await s.consumeRefreshToken('nope', at(90)), { status: 'unknown' })
    await assert.rejects(s.insertRefreshToken(refreshToken('r1', 'f1')))
    await assert.rejects(s.insertRefreshToken(refreshToken('r9', 'f1', { trip_id: 'ghost' })))
  })

  it('an expired refresh token is reported expired and left unused; a used one stays a reuse after expiry', async (s) => {
    await withTrip(s)
    await s.insertRefreshToken(refreshToken('r1', 'f1', { expires_at: iso(100) }))
    await s.insertRefreshToken(refreshToken('r2', 'f1', { expires_at: iso(100), used_at: iso(10) }))
    for (const t of [100, 130]) {
      assert.deepEqual(await s.consumeRefreshToken('r1', at(t)), {
        status: 'expired',
        record: refreshToken('r1', 'f1', { expires_at: iso(100) }),
      })
    }
    assert.equal((await s.consumeRefreshToken('r2', at(130))).status, 'reused')
  })

  it('revoking a family revokes every token in it, once, and no other family', async (s) => {
    await withTrip(s)
    await s.insertRefreshToken(refreshToken('r1', 'f1', { used_at: iso(10) }))
    await s.insertRefreshToken(refreshToken('r2', 'f1'))
    await s.insertRefreshToken(refreshToken('r3', 'f2'))
    await s.revokeRefreshFamily('f1', at(20))
    await s.revokeRefreshFamily('f1', at(30))
    assert.deepEqual(await s.consumeRefreshToken('r2', at(40)), {
      status: 'revoked',
      record: refreshToken('r2', 'f1', { revoked_at: iso(20) }),
    })
    // A used token in a revoked family reports revoked: the family's state is what matters.
    assert.deepEqual(await s.consumeRefreshToken('r1', at(40)), {
      status: 'revoked',
      record: refreshToken('r1', 'f1', { used_at: iso(10), revoked_at: iso(20) }),
    })
    assert.equal((await s.consumeRefreshToken('r3', at(40))).status, 'ok')
  })

  it("revoking a seller's refresh tokens revokes its unused ones, of every trip, and no other seller's", async (s) => {
    await withTrip(s)
    await s.createSeller(seller('s2'))
    await s.insertTrip(trip('t2', 's2'))
    await s.insertRefreshToken(refreshToken('r1', 'f1'))
    await s.insertRefreshToken(refreshToken('r2', 'f1', { used_at: iso(10) }))
    await s.insertRefreshToken(refreshToken('r3', 'f3', { trip_id: 't2', seller_id: 's2' }))
    await s.revokeSellerRefreshTokens('s1', at(20))
    assert.deepEqual(await s.consumeRefreshToken('r1', at(30)), {
      status: 'revoked',
      record: refreshToken('r1', 'f1', { revoked_at: iso(20) }),
    })
    assert.equal((await s.consumeRefreshToken('r2', at(30))).status, 'reused', 'a used one stays what it was')
    assert.equal((await s.consumeRefreshToken('r3', at(30))).status, 'ok')
  })

  it('concurrent consumes of one refresh token: exactly one succeeds', async (s) => {
    await withTrip(s)
    await s.insertRefreshToken(refreshToken('r1', 'f1'))
    const results = await Promise.all(Array.from({ length: 5 }, () => s.consumeRefreshToken('r1', at(60))))
    assert.deepEqual(results.map((r) => r.status).sort(), ['ok', 'reused', 'reused', 'reused', 'reused'])
  })
}
