/**
 * The store contract of ConsoleSessionStore (the operator console's sessions): kept by the hash of their
 * secret with the operator key they act with, ended at sign-out, purged by retention once expired.
 */
import assert from 'node:assert/strict'
import type { ConsoleSessionRecord, OperatorKeyRecord, PurgeCutoffs } from '../../../core/ports/records.ts'
import { at, iso, seller, type ContractContext } from '../fixtures.ts'

const key = (key_id: string, over: Partial<OperatorKeyRecord> = {}): OperatorKeyRecord => ({
  key_id,
  key_hash: `hash-${key_id}`,
  name: `ops ${key_id}`,
  prefix: `svc_op_${key_id}`,
  seller_id: null,
  read_only: false,
  created_at: iso(0),
  revoked_at: null,
  ...over,
})

const session = (hash: string, key_id: string, over: Partial<ConsoleSessionRecord> = {}): ConsoleSessionRecord => ({
  session_hash: hash,
  key_id,
  created_at: iso(0),
  expires_at: iso(8 * 3600),
  ...over,
})

export function consoleSessionsContract({ it }: ContractContext): void {
  it('a console session is found by its hash with the key it acts with, and ends once', async (s) => {
    await s.createSeller(seller('s1'))
    await s.addOperatorKey(key('k1', { seller_id: 's1', read_only: true }))
    await s.addConsoleSession(session('h1', 'k1', { created_at: '2030-01-01T01:00:00+01:00' }))
    const found = await s.findConsoleSession('h1')
    assert.deepEqual(found, {
      session: session('h1', 'k1', { created_at: iso(0) }),
      key: key('k1', { seller_id: 's1', read_only: true }),
    })
    assert.equal(await s.findConsoleSession('h2'), undefined)
    assert.equal(await s.endConsoleSession('h1'), true)
    assert.equal(await s.endConsoleSession('h1'), false)
    assert.equal(await s.findConsoleSession('h1'), undefined)
  })

  it("a revoked key's session is still found, with the key's revocation (the caller refuses it)", async (s) => {
    await s.addOperatorKey(key('k1'))
    await s.addConsoleSession(session('h1', 'k1'))
    await s.revokeOperatorKey('k1', iso(60))
    assert.equal((await s.findConsoleSession('h1'))?.key.revoked_at, iso(60))
  })

  it('a session needs its operator key', async (s) => {
    await assert.rejects(s.addConsoleSession(session('h0', 'ghost')))
  })

  it('retention purges the sessions expired before its cutoff, batch by batch, and keeps the live ones', async (s) => {
    await s.addOperatorKey(key('k1'))
    for (const [hash, expires] of [
      ['h1', 10],
      ['h2', 20],
      ['h3', 30],
      ['h4', 50],
      ['h5', 100],
    ] as const)
      await s.addConsoleSession(session(hash, 'k1', { expires_at: iso(expires) }))
    const never = at(-1_000_000)
    const cutoffs: PurgeCutoffs = {
      tripsBefore: never,
      searchesBefore: never,
      seatMapsBefore: never,
      tokensBefore: at(50),
      idempotencyBefore: never,
      jobsBefore: never,
      signingKeysBefore: never,
      deliveriesBefore: never,
    }
    // Batches of two: full, full (one row), then an empty one ends it.
    assert.equal((await s.purge(cutoffs, 2)).console_sessions, 3)
    for (const gone of ['h1', 'h2', 'h3']) assert.equal(await s.findConsoleSession(gone), undefined, gone)
    assert.ok(await s.findConsoleSession('h4'), 'a session expiring at the cutoff itself stays until the next run')
    assert.ok(await s.findConsoleSession('h5'))
    assert.equal((await s.purge(cutoffs, 2)).console_sessions, 0)
    assert.equal((await s.purge({ ...cutoffs, tokensBefore: at(101) })).console_sessions, 2)
    assert.equal(await s.findConsoleSession('h5'), undefined)
  })
}
