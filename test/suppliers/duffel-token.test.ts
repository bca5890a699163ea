/**
 * Duffel's access-token rules (server/suppliers/duffel/supplier.ts `duffelTokenProblem`), as the operator meets
 * them when a seller's token is set: each refusal names the one rule that failed, and never repeats the token;
 * what the rules allow is taken, whatever else it looks like.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createDuffelSupplier, duffelTokenProblem } from '../../server/suppliers/duffel/supplier.ts'

test("a token is refused by the rule it breaks, in that rule's words, never echoed", () => {
  const cases: Array<[string | null, boolean, string]> = [
    [null, true, "Duffel needs the seller's own Duffel access token (duffel_test_…)."],
    [null, false, "Duffel needs the seller's own Duffel access token (duffel_live_…)."],
    // The user's case: the prefix is right, the length is not.
    [
      'duffel_test_walk',
      true,
      'Too short: a Duffel access token is at least 20 characters (duffel_test_ and at least 8 more); this one has 16.',
    ],
    [
      'duffel_live_1234567',
      false,
      'Too short: a Duffel access token is at least 20 characters (duffel_live_ and at least 8 more); this one has 19.',
    ],
    [
      'duffel_test_',
      true,
      'Too short: a Duffel access token is at least 20 characters (duffel_test_ and at least 8 more); this one has 12.',
    ],
    [
      'duffel_test_abcd"efgh1234',
      true,
      'After duffel_test_ a Duffel access token has only letters, digits, _ and -; this one has another character (the 17th of the token, e.g. a space or a quote pasted with it).',
    ],
    [
      'duffel_test_ü1234567890',
      true,
      'After duffel_test_ a Duffel access token has only letters, digits, _ and -; this one has another character (the 13th of the token, e.g. a space or a quote pasted with it).',
    ],
    [
      'Duffel_test_abcdefgh1234',
      true,
      'A Duffel access token starts with duffel_test_ or duffel_live_; this one does not.',
    ],
    [
      'duffel_prod_abcdefgh1234',
      true,
      'A Duffel access token starts with duffel_test_ or duffel_live_; this one does not.',
    ],
    [
      '  duffel_test_abcdefgh1234',
      true,
      'A Duffel access token starts with duffel_test_ or duffel_live_; this one does not.',
    ],
    // The mode is named before the rest: a live token for a sandbox seller says so, however short.
    ['duffel_live_x', true, 'A sandbox seller takes a Duffel test token (duffel_test_…), never a live one.'],
    [
      'duffel_test_abcdefgh1234',
      false,
      'A live seller takes a Duffel live token (duffel_live_…): a test token sells nothing real.',
    ],
  ]
  for (const [token, sandbox, why] of cases) {
    const problem = duffelTokenProblem(token, sandbox)
    assert.equal(problem, why, String(token))
    if (token && token.length >= 16) assert.ok(!problem!.includes(token.slice(12)), 'the secret part is never repeated')
  }
})

test("what the rules allow is taken: the shortest, the characters allowed, a real token's length", () => {
  for (const token of [
    'duffel_test_walk1234',
    'duffel_test_a-b_c-d_e',
    `duffel_test_${'A9_-'.repeat(11)}`,
    'duffel_test_________',
  ]) {
    assert.equal(duffelTokenProblem(token, true), null, token)
  }
  assert.equal(duffelTokenProblem('duffel_live_walk1234', false), null)
  // The adapter's own check is this one.
  const duffel = createDuffelSupplier({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 })
  assert.equal(duffel.credentialsProblem('duffel_test_walk', true), duffelTokenProblem('duffel_test_walk', true))
})
