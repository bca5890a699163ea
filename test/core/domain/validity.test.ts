/**
 * core/domain/validity.ts called directly: the validity state machine of a basket item as a table, from
 * state × event to the next state or the refusal, then what each transition writes beside the status.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  abandonCheck,
  acceptPrice,
  checkableItems,
  checkedOffer,
  checkedOfferKey,
  finishCheck,
  itemsOfCheck,
  itemsOfPassengers,
  samePrice,
  startCheck,
  type ValidityContext,
} from '../../../core/domain/validity.ts'
import { effectiveStatus, validityWindow } from '../../../core/domain/trip.ts'
import type { RecheckResult } from '../../../core/ports/supplier.ts'
import type { TripRecord } from '../../../core/ports/records.ts'
import type { BasketItem, ValidityStatus } from '../../../core/schemas/basket.ts'
import {
  HOLD,
  HOLD_MS,
  ISO,
  NOW,
  eur,
  later,
  priceOf,
  refuses,
  ticketItem,
  tripRecord,
  withItem,
  withOrder,
} from '../../helpers/records.ts'

const ITEM = 'bag-1'
const CHECK = 'check-1'
const ctx = (now = NOW): ValidityContext => ({ now, holdWindow: HOLD })
const VALID_TO = later(HOLD_MS).toISOString()

/** The trip with its bag (for p1, 30.00) in each state an item can be stored in. */
function inState(state: ValidityStatus | 'price_changed_agreed'): TripRecord {
  const trip = tripRecord()
  switch (state) {
    case 'valid':
      return withItem(trip, { basket_item_id: ITEM })
    case 'checking':
      return startCheck(withItem(trip, { basket_item_id: ITEM }), [ITEM], CHECK, NOW)
    case 'price_changed':
      return withItem(trip, {
        basket_item_id: ITEM,
        price: priceOf(3500),
        validity: { status: 'price_changed', valid_from: ISO, valid_to: VALID_TO, previous_price: priceOf(3000) },
      })
    // A changed price awaiting the traveller, under a check again.
    case 'price_changed_agreed':
      return startCheck(inState('price_changed'), [ITEM], CHECK, NOW)
    case 'unavailable':
      return withItem(trip, {
        basket_item_id: ITEM,
        validity: { status: 'unavailable', valid_from: ISO, valid_to: VALID_TO, reason: 'no_longer_offered' },
      })
    case 'invalid':
      return withItem(trip, {
        basket_item_id: ITEM,
        validity: { status: 'invalid', valid_from: ISO, valid_to: VALID_TO, reason: 'check_failed' },
      })
  }
}

const answer =
  (...results: RecheckResult[]) =>
  (t: TripRecord) =>
    finishCheck(t, CHECK, results, ctx())
const EVENTS = {
  check: (t: TripRecord) => startCheck(t, checkableItems(t), 'check-2', NOW),
  'passenger p1 changes': (t: TripRecord) => startCheck(t, itemsOfPassengers(t, ['p1']), 'check-3', NOW),
  'supplier: valid': answer({ basket_item_id: ITEM, outcome: 'valid' }),
  'supplier: new price': answer({ basket_item_id: ITEM, outcome: 'price_changed', base: eur(3500), taxes: [] }),
  'supplier: same price': answer({ basket_item_id: ITEM, outcome: 'price_changed', base: eur(3000), taxes: [] }),
  'supplier: unavailable': answer({ basket_item_id: ITEM, outcome: 'unavailable', reason: 'no_longer_offered' }),
  'supplier: no answer': answer(),
  'check abandoned': (t: TripRecord) => abandonCheck(t, CHECK, NOW),
  accept: (t: TripRecord) => acceptPrice(t, ITEM, NOW),
  'valid_to passes': (t: TripRecord) => t,
} satisfies Record<string, (t: TripRecord) => TripRecord>

type Row = [from: Parameters<typeof inState>[0], event: keyof typeof EVENTS, to: ValidityStatus | { refused: string }]
const TABLE: Row[] = [
  ['valid', 'check', 'checking'],
  ['valid', 'passenger p1 changes', 'checking'],
  ['valid', 'valid_to passes', 'invalid'],
  ['valid', 'accept', { refused: 'basket_rule_violation' }],
  ['checking', 'supplier: valid', 'valid'],
  ['checking', 'supplier: new price', 'price_changed'],
  ['checking', 'supplier: same price', 'valid'],
  ['checking', 'supplier: unavailable', 'unavailable'],
  ['checking', 'supplier: no answer', 'invalid'],
  ['checking', 'check abandoned', 'invalid'],
  ['checking', 'check', 'checking'],
  ['checking', 'accept', { refused: 'basket_rule_violation' }],
  ['price_changed', 'accept', 'valid'],
  ['price_changed', 'check', 'checking'],
  ['price_changed', 'passenger p1 changes', 'checking'],
  ['price_changed', 'valid_to passes', 'invalid'],
  // A check does not accept a changed price for the traveller: the airline confirming it leaves it to accept.
  ['price_changed_agreed', 'supplier: valid', 'price_changed'],
  // Back at the price the traveller agreed to, it is valid again.
  ['price_changed_agreed', 'supplier: same price', 'valid'],
  ['price_changed_agreed', 'supplier: no answer', 'invalid'],
  ['unavailable', 'check', 'unavailable'],
  ['unavailable', 'passenger p1 changes', 'unavailable'],
  ['unavailable', 'valid_to passes', 'unavailable'],
  ['unavailable', 'accept', { refused: 'basket_rule_violation' }],
  ['invalid', 'check', 'checking'],
  ['invalid', 'accept', { refused: 'basket_rule_violation' }],
]

for (const [from, event, to] of TABLE) {
  const expected = typeof to === 'string' ? to : `refused (${to.refused})`
  test(`validity: ${from} × ${event} → ${expected}`, () => {
    const trip = inState(from)
    const at = event === 'valid_to passes' ? later(HOLD_MS + 1) : NOW
    if (typeof to !== 'string') {
      const before = structuredClone(trip)
      refuses(() => EVENTS[event](trip), to.refused)
      assert.deepEqual(trip, before)
      return
    }
    const next = EVENTS[event](trip)
    assert.equal(effectiveStatus(next, next.basket[ITEM]!, at), to)
  })
}

test("validity: the state reached after the window of a check's answer has passed is invalid until checked again", () => {
  const next = EVENTS['supplier: valid'](inState('checking'))
  assert.equal(effectiveStatus(next, next.basket[ITEM]!, later(HOLD_MS)), 'valid', 'valid through valid_to')
  assert.equal(effectiveStatus(next, next.basket[ITEM]!, later(HOLD_MS + 1)), 'invalid')
  assert.equal(effectiveStatus(EVENTS.check(next), EVENTS.check(next).basket[ITEM]!, later(HOLD_MS + 1)), 'checking')
})

test("accept after the new price's window is refused as expired", () => {
  const e = refuses(() => acceptPrice(inState('price_changed'), ITEM, later(HOLD_MS + 1)), 'basket_rule_violation')
  assert.match(e.message, /has expired/)
})

test('startCheck: items go to checking under the check, their reason dropped; a later check supersedes', () => {
  const trip = inState('invalid')
  const next = startCheck(trip, [ITEM, 'no-such-item'], CHECK, later(1000))
  assert.deepEqual(next.basket[ITEM]!.validity, { status: 'checking', valid_from: ISO, valid_to: VALID_TO })
  assert.deepEqual(next.pending_checks, { [ITEM]: CHECK })
  assert.equal(next.updated_at, later(1000).toISOString())
  assert.deepEqual(
    itemsOfCheck(next, CHECK).map((i) => i.basket_item_id),
    [ITEM],
  )
  const again = startCheck(next, [ITEM], 'check-2', NOW)
  assert.deepEqual(itemsOfCheck(again, CHECK), [])
  // The first check's late answer changes nothing of the item.
  assert.deepEqual(
    finishCheck(again, CHECK, [{ basket_item_id: ITEM, outcome: 'unavailable', reason: 'x' }], ctx()).basket[ITEM],
    again.basket[ITEM],
  )
})

test('finishCheck: an answer gives a new window from now, and clears the pending check', () => {
  const now = later(60_000)
  const next = finishCheck(inState('checking'), CHECK, [{ basket_item_id: ITEM, outcome: 'valid' }], ctx(now))
  assert.deepEqual(next.basket[ITEM]!.validity, {
    status: 'valid',
    valid_from: now.toISOString(),
    valid_to: new Date(now.getTime() + HOLD_MS).toISOString(),
  })
  assert.deepEqual(next.pending_checks, {})
  assert.equal(next.updated_at, now.toISOString())
  assert.equal(next.checked_offers, undefined, 'an unchanged offer records nothing')
})

test("finishCheck: the window never runs past the supplier's offers", () => {
  const expires = later(60_000).toISOString()
  const next = finishCheck(
    { ...inState('checking'), offers_expire_at: expires },
    CHECK,
    [{ basket_item_id: ITEM, outcome: 'valid' }],
    ctx(),
  )
  assert.equal(next.basket[ITEM]!.validity.valid_to, expires)
})

test('finishCheck: a new price is shown beside the old one and kept for the offer', () => {
  const trip = inState('checking')
  const next = finishCheck(
    trip,
    CHECK,
    [{ basket_item_id: ITEM, outcome: 'price_changed', base: eur(3500), taxes: [] }],
    ctx(),
  )
  const item = next.basket[ITEM]!
  assert.deepEqual(item.price, priceOf(3500))
  assert.deepEqual(item.validity, {
    status: 'price_changed',
    valid_from: ISO,
    valid_to: VALID_TO,
    previous_price: priceOf(3000),
  })
  const key = checkedOfferKey(item.product_id, 'p1')
  assert.deepEqual(
    { ...next.checked_offers },
    { [key]: { status: 'price_changed', base: eur(3500), taxes: [], valid_from: ISO, valid_to: VALID_TO } },
  )
  assert.deepEqual(checkedOffer(next, item.product_id, 'p1', later(HOLD_MS)), next.checked_offers![key])
  assert.equal(
    checkedOffer(next, item.product_id, 'p1', later(HOLD_MS + 1)),
    undefined,
    'past its window the answer is gone',
  )
  assert.equal(checkedOffer(next, item.product_id, 'p2', NOW), undefined)
})

test('finishCheck: unavailable is kept with its reason, for the item and the offer', () => {
  const next = finishCheck(
    inState('checking'),
    CHECK,
    [{ basket_item_id: ITEM, outcome: 'unavailable', reason: 'no_longer_offered' }],
    ctx(),
  )
  const item = next.basket[ITEM]!
  assert.deepEqual(item.validity, {
    status: 'unavailable',
    valid_from: ISO,
    valid_to: VALID_TO,
    reason: 'no_longer_offered',
  })
  assert.deepEqual(
    { ...next.checked_offers },
    {
      [checkedOfferKey(item.product_id, 'p1')]: {
        status: 'unavailable',
        reason: 'no_longer_offered',
        valid_to: VALID_TO,
      },
    },
  )
})

test('finishCheck: an item without an answer becomes invalid (check_failed), keeping a price awaiting the traveller', () => {
  const plain = finishCheck(inState('checking'), CHECK, [], ctx())
  assert.deepEqual(plain.basket[ITEM]!.validity, {
    status: 'invalid',
    valid_from: ISO,
    valid_to: VALID_TO,
    reason: 'check_failed',
  })
  const agreed = abandonCheck(inState('price_changed_agreed'), CHECK, NOW)
  assert.deepEqual(agreed.basket[ITEM]!.validity, {
    status: 'invalid',
    valid_from: ISO,
    valid_to: VALID_TO,
    previous_price: priceOf(3000),
    reason: 'check_failed',
  })
})

test('finishCheck: answers past their window are dropped from checked_offers; a confirmed changed price gets a new window', () => {
  const trip = inState('checking')
  const key = checkedOfferKey(trip.basket[ITEM]!.product_id, 'p1')
  const old = { status: 'unavailable' as const, reason: 'gone', valid_to: later(-1).toISOString() }
  const held = {
    status: 'price_changed' as const,
    base: eur(3000),
    taxes: [],
    valid_from: later(-60_000).toISOString(),
    valid_to: later(1000).toISOString(),
  }
  const next = finishCheck(
    { ...trip, checked_offers: { 'other/p2': old, [key]: held } },
    CHECK,
    [{ basket_item_id: ITEM, outcome: 'valid' }],
    ctx(),
  )
  assert.deepEqual({ ...next.checked_offers }, { [key]: { ...held, valid_from: ISO, valid_to: VALID_TO } })
})

test('checkableItems: every item but unavailable or bought ones, or only those asked', () => {
  const trip = withItem(
    withItem(withItem(tripRecord(), { basket_item_id: 'a' }), {
      basket_item_id: 'b',
      validity: { status: 'unavailable', valid_from: ISO, valid_to: VALID_TO },
    }),
    { basket_item_id: 'c' },
  )
  const ordered = withOrder(trip, 'c', 'o-1', 'succeeded')
  assert.deepEqual(checkableItems(ordered), [ticketItem(trip).basket_item_id, 'a'])
  assert.deepEqual(checkableItems(ordered, ['a', 'b', 'c']), ['a'])
  const booked = { ...ordered, tickets: ordered.tickets.map((t) => ({ ...t, status: 'booked' as const })) }
  assert.deepEqual(checkableItems(booked), ['a'])
})

test('itemsOfPassengers: the checkable items of those passengers only', () => {
  const trip = withItem(withItem(tripRecord(), { basket_item_id: 'a' }), {
    basket_item_id: 'b',
    product_details: { checked: true, journey_id: 'j', passenger_id: 'p2' },
  } as Partial<BasketItem> & { basket_item_id: string })
  assert.deepEqual(itemsOfPassengers(trip, ['p2']), ['b'])
  assert.deepEqual(itemsOfPassengers(trip, ['p1', 'p2']), ['a', 'b'])
  assert.deepEqual(itemsOfPassengers(trip, ['p3']), [])
})

test('acceptPrice: the new price becomes valid in its own window; refusals name the state', () => {
  const next = acceptPrice(inState('price_changed'), ITEM, later(1000))
  assert.deepEqual(next.basket[ITEM]!.validity, { status: 'valid', valid_from: ISO, valid_to: VALID_TO })
  assert.deepEqual(next.basket[ITEM]!.price, priceOf(3500))
  assert.equal(next.updated_at, later(1000).toISOString())
  assert.match(
    refuses(() => acceptPrice(inState('valid'), ITEM, NOW), 'basket_rule_violation').message,
    /this one is valid/,
  )
  refuses(() => acceptPrice(inState('valid'), 'nope', NOW), 'not_found')
  refuses(() => acceptPrice(withOrder(inState('price_changed'), ITEM, 'o-1', 'succeeded'), ITEM, NOW), 'item_ordered')
})

test('samePrice and checkedOfferKey', () => {
  assert.equal(samePrice(priceOf(100), priceOf(100)), true)
  assert.equal(samePrice(priceOf(100), priceOf(101)), false)
  assert.equal(checkedOfferKey('prod', 'p1'), 'prod/p1')
  assert.equal(checkedOfferKey('prod', undefined), 'prod/')
})

test("validityWindow: the hold window (seconds) from now, never past the supplier's offers", () => {
  assert.deepEqual(validityWindow(NOW, HOLD), { valid_from: ISO, valid_to: VALID_TO })
  assert.deepEqual(validityWindow(NOW, 90), { valid_from: ISO, valid_to: later(90_000).toISOString() })
  assert.deepEqual(validityWindow(NOW, HOLD, later(60_000).toISOString()), {
    valid_from: ISO,
    valid_to: later(60_000).toISOString(),
  })
  assert.deepEqual(validityWindow(NOW, HOLD, later(HOLD_MS + 60_000).toISOString()), {
    valid_from: ISO,
    valid_to: VALID_TO,
  })
  assert.deepEqual(validityWindow(NOW, HOLD, null), { valid_from: ISO, valid_to: VALID_TO })
  assert.deepEqual(
    validityWindow(NOW, HOLD, 'not a time'),
    { valid_from: ISO, valid_to: VALID_TO },
    'an expiry that is no instant is ignored',
  )
})
