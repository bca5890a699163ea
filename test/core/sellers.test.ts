/** Sellers and their API keys, on the core directly. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ProblemError } from '../../core/errors.ts'
import { coreFixture } from './fixtures.ts'

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
  await assert.rejects(core.addApiKey('no-such-seller'), (e: unknown) => e instanceof ProblemError && e.code === 'not_found')
  assert.equal((await store.listSellers()).length, 1)
})
