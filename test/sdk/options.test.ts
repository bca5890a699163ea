/**
 * The SDK's option checks (DOM-free, so they run here): every problem named at once, callbacks from
 * `eventCallbacks` winning, unknown callback names ignored, product lists and theme keys checked.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { checkInitOptions, checkShowOptions, needsAction } from '../../sdk/options.ts'
import { SvcError } from '../../client/errors.ts'
import type { BasketChange, CallbackBasketItem } from '../../client/types.ts'

const BASE = 'https://svc.example'
const noop = () => {}

function rejects(fn: () => unknown, code: string, ...parts: RegExp[]) {
  try {
    fn()
  } catch (e) {
    assert.ok(e instanceof SvcError, String(e))
    assert.equal(e.code, code)
    for (const p of parts) assert.match(e.message, p)
    return
  }
  assert.fail('expected an SvcError')
}

test('init: tripId, tripAccessToken and onBasketChange are required, all named in one error', () => {
  rejects(
    () => checkInitOptions({}, BASE),
    'invalid_options',
    /tripId is required/,
    /tripAccessToken is required/,
    /onBasketChange is required/,
  )
  rejects(() => checkInitOptions(undefined, BASE), 'invalid_options', /options must be an object/)
  rejects(
    () => checkInitOptions({ tripId: 't', tripAccessToken: 'a', onBasketChange: 'nope' }, BASE),
    'invalid_options',
    /onBasketChange must be a function/,
  )
})

test('init: onBasketChange may come under eventCallbacks, which wins over the top-level one', () => {
  const top = () => {}
  const grouped = () => {}
  const o = checkInitOptions(
    {
      tripId: 't',
      tripAccessToken: 'a',
      onBasketChange: top,
      onBagLoad: top,
      eventCallbacks: { onBasketChange: grouped },
    },
    BASE,
  )
  assert.equal(o.callbacks.onBasketChange, grouped)
  assert.equal(o.callbacks.onBagLoad, top)
  const only = checkInitOptions(
    { tripId: 't', tripAccessToken: 'a', eventCallbacks: { onBasketChange: grouped } },
    BASE,
  )
  assert.equal(only.callbacks.onBasketChange, grouped)
})

test('init: unknown callback names are ignored; known ones that are not functions are refused', () => {
  const o = checkInitOptions(
    { tripId: 't', tripAccessToken: 'a', onBasketChange: noop, onSomethingNew: 42, eventCallbacks: { onFuture: 'x' } },
    BASE,
  )
  assert.deepEqual(Object.keys(o.callbacks), ['onBasketChange'])
  rejects(
    () =>
      checkInitOptions(
        { tripId: 't', tripAccessToken: 'a', onBasketChange: noop, eventCallbacks: { onSeatFail: 1 } },
        BASE,
      ),
    'invalid_options',
    /eventCallbacks\.onSeatFail must be a function/,
  )
})

test('init: base URL defaults to the script origin; without one it is required; it must be http(s)', () => {
  assert.equal(checkInitOptions({ tripId: 't', tripAccessToken: 'a', onBasketChange: noop }, BASE).baseUrl, BASE)
  assert.equal(
    checkInitOptions(
      { tripId: 't', tripAccessToken: 'a', onBasketChange: noop, baseUrl: 'http://127.0.0.1:3000/' },
      BASE,
    ).baseUrl,
    'http://127.0.0.1:3000',
  )
  rejects(
    () => checkInitOptions({ tripId: 't', tripAccessToken: 'a', onBasketChange: noop }, null),
    'invalid_options',
    /baseUrl is required/,
  )
  rejects(
    () =>
      checkInitOptions(
        { tripId: 't', tripAccessToken: 'a', onBasketChange: noop, baseUrl: 'javascript:alert(1)' },
        BASE,
      ),
    'invalid_options',
    /baseUrl must be an absolute http\(s\) URL/,
  )
})

test('init: strings by en-US key; values must be texts or plural forms', () => {
  const ok = { tripId: 't', tripAccessToken: 'a', onBasketChange: noop }
  const strings = { bags_title: 'Luggage', bags_selected: { one: '{count} case', other: '{count} cases' } }
  assert.deepEqual(checkInitOptions({ ...ok, strings }, BASE).strings, strings)
  assert.equal(checkInitOptions(ok, BASE).strings, undefined)
  rejects(
    () =>
      checkInitOptions({ ...ok, strings: { bags_title: 3, seats_title: { one: 'x' }, close: null } as never }, BASE),
    'invalid_options',
    /strings\.bags_title must be a string.*strings\.seats_title must be a string.*strings\.close must be a string/,
  )
  rejects(
    () => checkInitOptions({ ...ok, strings: 'Luggage' as never }, BASE),
    'invalid_options',
    /strings must be an object of texts/,
  )
})

test('init: locale is canonicalised; a malformed one is refused', () => {
  assert.equal(
    checkInitOptions({ tripId: 't', tripAccessToken: 'a', onBasketChange: noop, locale: 'de-de' }, BASE).locale,
    'de-DE',
  )
  assert.equal(checkInitOptions({ tripId: 't', tripAccessToken: 'a', onBasketChange: noop }, BASE).locale, null)
  rejects(
    () => checkInitOptions({ tripId: 't', tripAccessToken: 'a', onBasketChange: noop, locale: 'not a locale!' }, BASE),
    'invalid_options',
    /locale/,
  )
})

test('init: sandbox: true needs no trip, tokens or baseUrl (the sandbox names them); given ones are kept', () => {
  const bare = checkInitOptions({ sandbox: true, onBasketChange: noop }, null)
  assert.equal(bare.sandbox, true)
  assert.equal(bare.tripId, '')
  assert.equal(bare.tripAccessToken, '')
  const given = checkInitOptions(
    { sandbox: true, tripId: 't', tripAccessToken: 'a', refreshToken: 'r', onBasketChange: noop },
    BASE,
  )
  assert.deepEqual([given.tripId, given.tripAccessToken, given.refreshToken, given.sandbox], ['t', 'a', 'r', true])
  assert.equal(
    checkInitOptions({ tripId: 't', tripAccessToken: 'a', onBasketChange: noop, sandbox: false }, BASE).sandbox,
    false,
  )
  // Still checked: an empty or non-string trip, the callback, and sandbox itself.
  rejects(
    () => checkInitOptions({ sandbox: true, tripId: '', tripAccessToken: 7, onBasketChange: noop }, null),
    'invalid_options',
    /tripId is required/,
    /tripAccessToken is required/,
  )
  rejects(() => checkInitOptions({ sandbox: true }, null), 'invalid_options', /onBasketChange is required/)
  rejects(
    () => checkInitOptions({ sandbox: 'yes', onBasketChange: noop }, BASE),
    'invalid_options',
    /sandbox must be true or false/,
    /tripId is required/,
  )
  // Without the sandbox, the SDK must know where the API is.
  rejects(
    () => checkInitOptions({ tripId: 't', tripAccessToken: 'a', onBasketChange: noop }, null),
    'invalid_options',
    /baseUrl is required/,
  )
})

test('showUpsell: container and display are required; display is one of three', () => {
  rejects(
    () => checkShowOptions({}),
    'invalid_options',
    /container is required/,
    /display must be one of card, embedded, modal/,
  )
  rejects(() => checkShowOptions({ container: 'x', display: 'popup' }), 'invalid_options', /display must be one of/)
})

test('showUpsell: products are allowed minus excluded, in the canonical order; unknown names refused', () => {
  assert.deepEqual(checkShowOptions({ container: 'x', display: 'card' }).products, [
    'bags',
    'seats',
    'priority_boarding',
    'automatic_check_in',
    'fare_family_upsell',
  ])
  assert.deepEqual(
    checkShowOptions({ container: 'x', display: 'card', allowProducts: ['seats', 'bags', 'bags'] }).products,
    ['bags', 'seats'],
  )
  assert.deepEqual(
    checkShowOptions({ container: 'x', display: 'card', excludeProducts: ['seats', 'fare_family_upsell'] }).products,
    ['bags', 'priority_boarding', 'automatic_check_in'],
  )
  rejects(
    () => checkShowOptions({ container: 'x', display: 'card', allowProducts: ['bag', 'meals'] }),
    'invalid_options',
    /unknown product names "bag", "meals"/,
  )
  rejects(
    () => checkShowOptions({ container: 'x', display: 'card', excludeProducts: 'seats' }),
    'invalid_options',
    /excludeProducts must be an array/,
  )
  rejects(
    () => checkShowOptions({ container: 'x', display: 'card', allowProducts: ['bags'], excludeProducts: ['bags'] }),
    'invalid_options',
    /leaves no product/,
  )
})

test('showUpsell: theme values must be strings; unknown keys are reported, not fatal', () => {
  const o = checkShowOptions({
    container: 'x',
    display: 'card',
    theme: { textPrimary: '#111', primry: 'red', dark: { textPrimary: '#eee', radius: '2px' } },
  })
  assert.deepEqual(o.theme, { textPrimary: '#111', dark: { textPrimary: '#eee' } })
  assert.deepEqual(o.unknownThemeKeys, ['theme.primry', 'theme.dark.radius'])
  rejects(
    () => checkShowOptions({ container: 'x', display: 'card', theme: { primary: 3 } }),
    'invalid_options',
    /theme\.primary must be a string/,
  )
})

test('needsAction: price_changed, unavailable and invalid items need the seller to act', () => {
  const item = (state: CallbackBasketItem['validity']['state']) =>
    ({ basket: { a: { validity: { state } } } }) as unknown as BasketChange
  assert.equal(needsAction(item('valid')), false)
  assert.equal(needsAction(item('checking')), false)
  for (const s of ['price_changed', 'unavailable', 'invalid'] as const) assert.equal(needsAction(item(s)), true, s)
})
