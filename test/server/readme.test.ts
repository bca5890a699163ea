/**
 * The README's curl walk-through, run as written against a started server, so the first thing a reader
 * tries cannot rot.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { root, startServer } from '../helpers/process.ts'

test('the README walk-through runs against npm start', async (t) => {
  if (spawnSync('curl', ['--version']).status !== 0) return t.skip('curl is not installed')
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const block = /<!-- walkthrough:start -->\s*```bash\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(readme)?.[1]
  assert.ok(block, 'README.md has a walkthrough block')
  const key = 'svc_test_readme_0123456789abcdef'
  const server = await startServer({ DATABASE_URL: 'memory:', SVC_DEMO_API_KEY: key })
  try {
    const run = spawnSync('bash', ['-c', block], {
      env: { ...process.env, BASE: server.base, KEY: key }, encoding: 'utf8', timeout: 60_000,
    })
    assert.equal(run.status, 0, `walk-through failed:\n${run.stdout}\n${run.stderr}\nserver:\n${server.output()}`)
    assert.match(run.stdout, /^trip [0-9a-f-]+, search [0-9a-f-]+$/m)
    assert.match(run.stdout, /creation token expires in 600 s/)
    assert.match(run.stdout, /\d+ paths in the OpenAPI document/)
  } finally {
    await server.stop()
  }
})
