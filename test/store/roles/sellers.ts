/** The store contract of SellerStore: sellers and their API keys. */
import assert from 'node:assert/strict'
import { apiKey, iso, sealed, seller, trip, type ContractContext } from '../fixtures.ts'

export function sellersContract({ it }: ContractContext): void {
  it('sellers round-trip, list in creation order and change origins', async (s) => {
    await s.createSeller(seller('s2', { created_at: iso(10), sandbox: true, origins: [] }))
    await s.createSeller(seller('s1'))
    assert.deepEqual(await s.getSeller('s1'), seller('s1'))
    assert.equal(await s.getSeller('nope'), undefined)
    assert.deepEqual(await s.listSellers(), [
      seller('s1'),
      seller('s2', { created_at: iso(10), sandbox: true, origins: [] }),
    ])
    await s.updateSeller('s1', { origins: ['https://a.example', 'https://b.example'] })
    assert.deepEqual(
      await s.getSeller('s1'),
      seller('s1', { origins: ['https://a.example', 'https://b.example'] }),
      'the supplier stays',
    )
    assert.deepEqual(
      await s.getSeller('s2'),
      seller('s2', { created_at: iso(10), sandbox: true, origins: [] }),
      'another seller is untouched',
    )
    await assert.rejects(s.createSeller(seller('s1')))
  })

  it("a seller's supplier round-trips with its sealed credentials, and changes apart from its origins", async (s) => {
    const duffel = { name: 'duffel', credentials: sealed('c2VhbGVkLXRva2VuLWJ5dGVz') }
    await s.createSeller(seller('s1', { supplier: duffel }))
    await s.createSeller(seller('s2'))
    assert.deepEqual(await s.getSeller('s1'), seller('s1', { supplier: duffel }))
    assert.deepEqual(await s.listSellers(), [seller('s1', { supplier: duffel }), seller('s2')])
    // The supplier alone: the origins stay.
    await s.updateSeller('s2', { supplier: { name: 'duffel', credentials: sealed('b3RoZXI') } })
    assert.deepEqual(
      await s.getSeller('s2'),
      seller('s2', { supplier: { name: 'duffel', credentials: sealed('b3RoZXI') } }),
    )
    // Back to one without credentials: they are gone, not kept.
    await s.updateSeller('s1', { supplier: { name: 'sandbox', credentials: null } })
    assert.deepEqual(await s.getSeller('s1'), seller('s1'))
    // Both at once, and nothing at all.
    await s.updateSeller('s1', { origins: [], supplier: duffel })
    await s.updateSeller('s1', {})
    assert.deepEqual(await s.getSeller('s1'), seller('s1', { origins: [], supplier: duffel }))
    // Records are copies.
    ;(await s.getSeller('s1'))!.supplier.credentials!.data = 'changed'
    assert.deepEqual((await s.getSeller('s1'))?.supplier, duffel)
    // An unknown seller changes nothing and is no error.
    await s.updateSeller('ghost', { origins: ['https://x.example'] })
    assert.equal(await s.getSeller('ghost'), undefined)
  })

  it("a seller's end of trip tokens round-trips, changes nothing else, and stays through other changes", async (s) => {
    await s.createSeller(seller('s1'))
    await s.updateSeller('s1', { trip_tokens_after: iso(60) })
    assert.deepEqual(await s.getSeller('s1'), seller('s1', { trip_tokens_after: iso(60) }))
    await s.updateSeller('s1', { origins: [] })
    assert.deepEqual(await s.getSeller('s1'), seller('s1', { origins: [], trip_tokens_after: iso(60) }))
    await s.updateSeller('s1', { trip_tokens_after: iso(120) })
    assert.equal((await s.getSeller('s1'))?.trip_tokens_after, iso(120))
  })

  it('a seller is disabled and enabled again (disabled_at), keeps and drops kept credentials, and other changes leave both', async (s) => {
    const kept = { duffel: sealed('a2VwdA'), other: sealed('b3RoZXI') }
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    await s.updateSeller('s1', { disabled_at: '2030-01-01T01:00:00+01:00' })
    assert.deepEqual(
      await s.getSeller('s1'),
      seller('s1', { disabled_at: iso(0) }),
      'canonical, and nothing else changes',
    )
    await s.updateSeller('s1', { kept_credentials: kept })
    await s.updateSeller('s1', {
      origins: [],
      supplier: { name: 'duffel', credentials: sealed('bmV3') },
      trip_tokens_after: iso(30),
    })
    assert.deepEqual(
      await s.getSeller('s1'),
      seller('s1', {
        origins: [],
        supplier: { name: 'duffel', credentials: sealed('bmV3') },
        trip_tokens_after: iso(30),
        disabled_at: iso(0),
        kept_credentials: kept,
      }),
    )
    assert.deepEqual(
      (await s.listSellers()).map((x) => [x.seller_id, x.disabled_at, x.kept_credentials]),
      [
        ['s1', iso(0), kept],
        ['s2', undefined, undefined],
      ],
    )
    // Enabled again (null), and no credentials kept ({}): both fields are gone, not empty.
    await s.updateSeller('s1', { disabled_at: null, kept_credentials: {} })
    assert.deepEqual(
      await s.getSeller('s1'),
      seller('s1', {
        origins: [],
        supplier: { name: 'duffel', credentials: sealed('bmV3') },
        trip_tokens_after: iso(30),
      }),
    )
    await s.updateSeller('s1', { kept_credentials: { duffel: kept.duffel } })
    assert.deepEqual((await s.getSeller('s1'))?.kept_credentials, { duffel: kept.duffel }, 'replaced whole')
    ;(await s.getSeller('s1'))!.kept_credentials!.duffel!.data = 'changed'
    assert.deepEqual((await s.getSeller('s1'))?.kept_credentials, { duffel: kept.duffel }, 'records are copies')
    assert.deepEqual(await s.getSeller('s2'), seller('s2'), 'another seller is untouched')
    await s.updateSeller('ghost', { disabled_at: iso(0) })
    assert.equal(await s.getSeller('ghost'), undefined)
  })

  it('a seller created with every field round-trips', async (s) => {
    const full = seller('s1', {
      trip_tokens_after: iso(20),
      disabled_at: iso(10),
      kept_credentials: { duffel: sealed('a2VwdA') },
      supplier: { name: 'duffel', credentials: sealed('Y3VycmVudA') },
    })
    await s.createSeller(full)
    assert.deepEqual(await s.getSeller('s1'), full)
    await s.createSeller(seller('s2', { kept_credentials: {} }))
    assert.deepEqual(await s.getSeller('s2'), seller('s2'), 'none kept: absent')
  })

  it('revokeApiKeys: the named keys of that seller that still work stop at `at` and record it as their revocation', async (s) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    await s.addApiKey(apiKey('aa'))
    await s.addApiKey(apiKey('bb', 's1', { expires_at: iso(7200) }))
    await s.addApiKey(apiKey('cc', 's1', { expires_at: iso(100) }))
    await s.addApiKey(apiKey('dd', 's2'))
    await s.addApiKey(apiKey('ee'))
    // aa works, bb is in a grace period: both revoked; cc expired before: left; dd is another seller's; ee is not named.
    await s.revokeApiKeys(
      's1',
      ['aa'.repeat(32), 'bb'.repeat(32), 'cc'.repeat(32), 'dd'.repeat(32), 'ff'.repeat(32)],
      '2030-01-01T02:00:00+01:00',
    )
    assert.deepEqual(
      await s.findApiKey('aa'.repeat(32)),
      apiKey('aa', 's1', { expires_at: iso(3600), revoked_at: iso(3600) }),
    )
    assert.deepEqual(
      await s.findApiKey('bb'.repeat(32)),
      apiKey('bb', 's1', { expires_at: iso(3600), revoked_at: iso(3600) }),
    )
    assert.deepEqual(
      await s.findApiKey('cc'.repeat(32)),
      apiKey('cc', 's1', { expires_at: iso(100) }),
      'expired before: stays expired',
    )
    assert.deepEqual(await s.findApiKey('dd'.repeat(32)), apiKey('dd', 's2'))
    assert.deepEqual(await s.findApiKey('ee'.repeat(32)), apiKey('ee'))
    // Revoked again later: the first revocation stays; an expiry never undoes one.
    await s.revokeApiKeys('s1', ['aa'.repeat(32)], iso(5000))
    await s.expireApiKeys('s1', ['aa'.repeat(32)], iso(6000))
    await s.revokeApiKeys('s1', [], iso(0))
    assert.deepEqual(
      (await s.listApiKeys('s1')).map((k) => [k.prefix, k.expires_at, k.revoked_at]),
      [
        ['svc_live_aa', iso(3600), iso(3600)],
        ['svc_live_bb', iso(3600), iso(3600)],
        ['svc_live_cc', iso(100), undefined],
        ['svc_live_ee', null, undefined],
      ],
    )
    // A key stored with its revocation comes back with it.
    await s.addApiKey(apiKey('ab', 's2', { expires_at: iso(50), revoked_at: '2030-01-01T01:00:50+01:00' }))
    assert.deepEqual(
      await s.findApiKey('ab'.repeat(32)),
      apiKey('ab', 's2', { expires_at: iso(50), revoked_at: iso(50) }),
    )
  })

  it("listSellerTrips: one seller's trips by id, a page at a time, whole", async (s) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    const ids = ['t05', 't01', 't10', 't03', 't07']
    for (const id of ids) await s.insertTrip(trip(id, 's1', { country: `C-${id}` }))
    await s.insertTrip(trip('t02', 's2'))
    await s.insertTrip(trip('t04', 's2'))
    const first = await s.listSellerTrips('s1', { limit: 2 })
    assert.deepEqual(
      first,
      [trip('t01', 's1', { country: 'C-t01' }), trip('t03', 's1', { country: 'C-t03' })],
      'whole trips, lowest ids first',
    )
    assert.deepEqual(
      (await s.listSellerTrips('s1', { after: 't03', limit: 2 })).map((t) => t.trip_id),
      ['t05', 't07'],
    )
    assert.deepEqual(
      (await s.listSellerTrips('s1', { after: 't07', limit: 2 })).map((t) => t.trip_id),
      ['t10'],
    )
    assert.deepEqual(await s.listSellerTrips('s1', { after: 't10', limit: 2 }), [])
    assert.deepEqual(
      (await s.listSellerTrips('s1', { after: 't04', limit: 10 })).map((t) => t.trip_id),
      ['t05', 't07', 't10'],
      "after an id that is not the seller's",
    )
    assert.deepEqual(
      (await s.listSellerTrips('s2', { limit: 10 })).map((t) => t.trip_id),
      ['t02', 't04'],
    )
    assert.deepEqual(await s.listSellerTrips('ghost', { limit: 10 }), [])
    // A trip as written last: its current document.
    const v1 = (await s.getTrip('t05'))!
    assert.notEqual(await s.updateTrip({ ...v1.value, language: 'de' }, v1.version), null)
    assert.equal((await s.listSellerTrips('s1', { after: 't03', limit: 1 }))[0]?.language, 'de')
  })

  it('api keys are found by hash, expired or not, and must belong to a known seller', async (s) => {
    await s.createSeller(seller('s1'))
    const key = apiKey('ab')
    await s.addApiKey(key)
    assert.deepEqual(await s.findApiKey(key.key_hash), key)
    assert.equal(await s.findApiKey('cd'.repeat(32)), undefined)
    await assert.rejects(s.addApiKey(key))
    await assert.rejects(s.addApiKey({ ...key, key_hash: 'ef'.repeat(32), seller_id: 'ghost' }))
    assert.equal(await s.findApiKey('ef'.repeat(32)), undefined)
    // A key stored with an expiry (in the past or not) comes back with it, canonical.
    await s.addApiKey(apiKey('cd', 's1', { expires_at: '2030-01-01T01:00:00+01:00' }))
    assert.deepEqual(await s.findApiKey('cd'.repeat(32)), apiKey('cd', 's1', { expires_at: iso(0) }))
  })

  it("a seller's api keys are listed oldest first, and no other seller's", async (s) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    await s.addApiKey(apiKey('cc', 's1', { created_at: iso(30) }))
    await s.addApiKey(apiKey('aa', 's1', { created_at: iso(10) }))
    await s.addApiKey(apiKey('bb', 's2', { created_at: iso(20) }))
    await s.addApiKey(apiKey('dd', 's1', { created_at: iso(20), expires_at: iso(25) }))
    assert.deepEqual(await s.listApiKeys('s1'), [
      apiKey('aa', 's1', { created_at: iso(10) }),
      apiKey('dd', 's1', { created_at: iso(20), expires_at: iso(25) }),
      apiKey('cc', 's1', { created_at: iso(30) }),
    ])
    assert.deepEqual(await s.listApiKeys('s2'), [apiKey('bb', 's2', { created_at: iso(20) })])
    assert.deepEqual(await s.listApiKeys('ghost'), [])
  })

  it('expireApiKeys: only the named keys of that seller, and an earlier expiry is kept', async (s) => {
    await s.createSeller(seller('s1'))
    await s.createSeller(seller('s2'))
    await s.addApiKey(apiKey('aa'))
    await s.addApiKey(apiKey('bb'))
    await s.addApiKey(apiKey('cc', 's1', { expires_at: iso(100) }))
    await s.addApiKey(apiKey('dd', 's2'))
    await s.addApiKey(apiKey('ee'))
    // dd is another seller's: named, it is not touched; ee is not named.
    await s.expireApiKeys(
      's1',
      ['aa'.repeat(32), 'bb'.repeat(32), 'cc'.repeat(32), 'dd'.repeat(32), 'ff'.repeat(32)],
      iso(3600),
    )
    assert.deepEqual(await s.findApiKey('aa'.repeat(32)), apiKey('aa', 's1', { expires_at: iso(3600) }))
    assert.deepEqual(await s.findApiKey('bb'.repeat(32)), apiKey('bb', 's1', { expires_at: iso(3600) }))
    assert.deepEqual(
      await s.findApiKey('cc'.repeat(32)),
      apiKey('cc', 's1', { expires_at: iso(100) }),
      'an earlier expiry stays',
    )
    assert.deepEqual(await s.findApiKey('dd'.repeat(32)), apiKey('dd', 's2'))
    assert.deepEqual(await s.findApiKey('ee'.repeat(32)), apiKey('ee'))
    // An earlier time shortens (a revocation during a grace period), in any offset; a later one never lengthens.
    await s.expireApiKeys('s1', ['aa'.repeat(32)], '2030-01-01T01:00:10+01:00')
    await s.expireApiKeys('s1', ['bb'.repeat(32)], iso(7200))
    await s.expireApiKeys('s1', [], iso(0))
    assert.deepEqual(
      (await s.listApiKeys('s1')).map((k) => [k.prefix, k.expires_at]),
      [
        ['svc_live_aa', iso(10)],
        ['svc_live_bb', iso(3600)],
        ['svc_live_cc', iso(100)],
        ['svc_live_ee', null],
      ],
    )
  })
}
