/**
 * Webhook targets cannot reach inside our network: refused when subscribed (IP literals, localhost) and,
 * for a name, when delivered (the address actually connected to), so a name re-pointed after subscribing
 * at a private address gets nothing. Sandbox sellers may use loopback.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { hostname } from 'node:os'
import { lookup } from 'node:dns/promises'
import { build, basic, assertProblem, legacyLiveSeller } from '../../helpers/build.ts'
import { addressAllowed } from '../../../core/shared/network.ts'
import { webhookSender } from '../../../server/webhook-sender.ts'

test('the address rules: public unicast for live sellers, plus loopback for sandbox ones', () => {
  for (const ip of ['8.8.8.8', '2606:4700:4700::1111', '93.184.216.34']) assert.ok(addressAllowed(ip, 'public'), ip)
  for (const ip of [
    '127.0.0.1',
    '::1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    'fe80::1',
    'fd00::1',
    '100.64.0.1',
    '0.0.0.0',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '224.0.0.1',
    '255.255.255.255',
    'not an ip',
  ]) {
    assert.ok(!addressAllowed(ip, 'public'), ip)
  }
  assert.ok(addressAllowed('127.0.0.1', 'public_or_loopback'))
  assert.ok(addressAllowed('::1', 'public_or_loopback'))
  for (const ip of ['169.254.169.254', '10.0.0.1', 'fe80::1']) assert.ok(!addressAllowed(ip, 'public_or_loopback'), ip)
})

test('a live seller cannot subscribe a private, loopback, link-local or metadata target; a sandbox seller may use loopback', async () => {
  const t = await build()
  try {
    const live = await legacyLiveSeller(t.core, 'Live')
    const subscribe = (apiKey: string, target: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v2.2/callback_subscription',
        headers: { authorization: basic(apiKey) },
        payload: { delivery_method: 'http', target, event_name: 'order_status_changed' },
      })
    for (const target of [
      'https://127.0.0.1/hook',
      'https://[::1]/hook',
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://localhost/hook',
      'https://api.localhost/hook',
      'https://[::ffff:192.168.0.1]/hook',
    ]) {
      const p = assertProblem(await subscribe(live.apiKey, target), 400, 'validation_error')
      assert.equal(p.errors?.[0]?.path, '/target', target)
    }
    assert.equal((await subscribe(live.apiKey, 'https://hooks.example.com/svc')).statusCode, 201)
    assert.equal((await subscribe(t.apiKey, 'http://127.0.0.1:8080/hook')).statusCode, 201, 'sandbox: loopback')
    assertProblem(await subscribe(t.apiKey, 'http://169.254.169.254/'), 400, 'validation_error')
  } finally {
    await t.close()
  }
})

test('at delivery, a name is resolved and refused when it points at a private address; loopback is delivered for sandbox', async () => {
  let hits = 0
  const receiver = createServer((_req, res) => {
    hits++
    res.end('ok')
  })
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()))
  const port = (receiver.address() as { port: number }).port
  try {
    const send = webhookSender(2000).send
    // This machine's own name resolves to one of its own addresses: never a public one here.
    const own = (await lookup(hostname(), { all: true })).map((a) => a.address)
    assert.ok(
      own.every((a) => !addressAllowed(a, 'public')),
      `${hostname()} → ${own.join(', ')}`,
    )
    await assert.rejects(send(`http://${hostname()}:${port}/hook`, '{}', {}, 'public'), /refused/)
    await assert.rejects(send(`http://127.0.0.1:${port}/hook`, '{}', {}, 'public'), /refused/)
    assert.equal(hits, 0)
    assert.deepEqual(await send(`http://127.0.0.1:${port}/hook`, '{}', {}, 'public_or_loopback'), {
      status: 200,
      body: 'ok',
    })
    assert.equal(hits, 1)
  } finally {
    receiver.close()
  }
})
