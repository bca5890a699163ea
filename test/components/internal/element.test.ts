/**
 * `emit` (components/internal/element.ts) is keyed on the event map (components/events.ts): the lines marked
 * `@ts-expect-error` are the proof, checked by `tsc -p tsconfig.json` (npm run typecheck), which fails if one
 * of them compiles. The tests run it too, on a plain EventTarget: what it dispatches and what it returns.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { emit } from '../../../components/internal/element.ts'
import type { SvcEventMap } from '../../../components/events.ts'
import type { SvcError } from '../../../client/errors.ts'

test('emit dispatches a composed, bubbling CustomEvent with the detail, not cancelable unless asked', () => {
  const target = new EventTarget()
  const seen: CustomEvent[] = []
  target.addEventListener('svc-load', (e) => seen.push(e as CustomEvent))
  assert.equal(emit(target, 'svc-load', { product: 'bags', display: 'card' }), true)
  assert.equal(seen.length, 1)
  assert.deepEqual(seen[0]!.detail, { product: 'bags', display: 'card' })
  assert.equal(seen[0]!.bubbles, true)
  assert.equal(seen[0]!.composed, true)
  assert.equal(seen[0]!.cancelable, false)
})

test('emit returns false when a listener prevents a cancelable event', () => {
  const target = new EventTarget()
  target.addEventListener('svc-request-close', (e) => e.preventDefault())
  assert.equal(emit(target, 'svc-request-close', { source: 'escape' }, true), false)
})

test('a misspelt event name or a wrong detail does not compile', () => {
  const target = new EventTarget()
  const error = undefined as unknown as SvcError
  // Not called: each line only has to fail the typecheck.
  const never = () => {
    // @ts-expect-error: 'svc-laod' is not an svc event (the map has 'svc-load')
    emit(target, 'svc-laod', { product: 'bags', display: 'card' })
    // @ts-expect-error: a name outside the svc- events
    emit(target, 'click', {})
    // @ts-expect-error: svc-fail's detail needs its error
    emit(target, 'svc-fail', { product: 'bags', display: 'card' })
    // @ts-expect-error: 'left' is not a close source
    emit(target, 'svc-request-close', { source: 'left' }, true)
    // @ts-expect-error: svc-choose-another's detail is { product }
    emit(target, 'svc-choose-another', { product: 'luggage' })
    emit(target, 'svc-fail', { product: 'bags', display: 'card', error })
  }
  assert.equal(typeof never, 'function')
  // The map holds every event the elements fire, and only svc- ones.
  const names: Array<keyof SvcEventMap> = [
    'svc-basket-change',
    'svc-load',
    'svc-modal-close',
    'svc-fail',
    'svc-dialog-close',
    'svc-request-close',
    'svc-choose-another',
  ]
  const all: Record<keyof SvcEventMap, true> = {
    'svc-basket-change': true,
    'svc-load': true,
    'svc-modal-close': true,
    'svc-fail': true,
    'svc-dialog-close': true,
    'svc-request-close': true,
    'svc-choose-another': true,
  }
  assert.deepEqual(Object.keys(all).sort(), [...names].sort())
})
