import { test } from 'node:test'
import assert from 'node:assert/strict'
import { validate } from '../../../core/shared/validate.ts'
import { ProblemError } from '../../../core/shared/errors.ts'
import { TripCreateRequest, ContactDetails } from '../../../core/schemas/index.ts'

test('validate names every bad field as a JSON pointer', () => {
  try {
    validate(TripCreateRequest, {
      language: 'en',
      currency: 'eur',
      country: 'GB',
      tickets: [],
      passengers: [],
      extra: 1,
    })
    assert.fail('expected a validation error')
  } catch (e) {
    assert.ok(e instanceof ProblemError)
    assert.equal(e.code, 'validation_error')
    assert.equal(e.status, 400)
    const paths = (e.errors ?? []).map((x) => x.path)
    for (const p of ['/language', '/currency', '/tickets', '/passengers', '/extra'])
      assert.ok(paths.includes(p), `missing ${p} in ${paths}`)
  }
})

test('validate returns the value when it matches', () => {
  const v = { contact_details_type: 'passenger', email: 'a@example.com' }
  assert.equal(validate(ContactDetails, v), v)
})
