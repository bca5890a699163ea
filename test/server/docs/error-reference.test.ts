/**
 * The error reference: every problem's `type` lands on its entry of the page the service serves at
 * /docs/errors; every API code and SDK code has an entry saying what it means and what to do (their
 * Records make that a type error too); and docs/errors.md is what `npm run gen:errors` writes from them.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { build, assertProblem } from '../../helpers/build.ts'
import { ERROR_CODES, problemTypeUri, type ErrorCode } from '../../../core/shared/errors.ts'
import { SVC_ERROR_CODES } from '../../../client/error-codes.ts'
import { ERRORS_MD, errorReferenceMarkdown } from '../../../scripts/gen-errors.ts'

test("a problem's type is its entry in the reference the service serves at /docs/errors", async () => {
  const t = await build()
  try {
    const refused = assertProblem(await t.app.inject({ method: 'GET', url: '/v2.2/trip/nope' }), 401, 'unauthorized')
    assert.equal(refused.type, '/docs/errors#unauthorized')
    const page = await t.app.inject({ method: 'GET', url: refused.type })
    assert.equal(page.statusCode, 200)
    assert.match(String(page.headers['content-type']), /^text\/html/)
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/)
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const anchor = problemTypeUri(code).split('#')[1]
      assert.match(
        page.body,
        new RegExp(`<section id="${anchor}"><h3><code>${code}</code> ${ERROR_CODES[code].status} `),
        code,
      )
    }
  } finally {
    await t.close()
  }
})

test('every API and SDK code says what it means and what to do', () => {
  for (const [code, e] of [...Object.entries(ERROR_CODES), ...Object.entries(SVC_ERROR_CODES)]) {
    assert.ok(e.meaning.length > 20 && e.action.length > 10, code)
  }
})

test('docs/errors.md is what npm run gen:errors writes from the codes', () => {
  assert.equal(readFileSync(ERRORS_MD, 'utf8'), errorReferenceMarkdown(), 'run npm run gen:errors')
})
