import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  checkItemMarkup,
  isPriceConsistent,
  markupRuleFor,
  priceOffer,
  sumPrices,
  ticketPrice,
} from '../../../core/domain/pricing.ts'
import { convert, decimalPlaces } from '../../../core/domain/money.ts'
import { EXCHANGE_RATES } from '../../../core/domain/data/exchange-rates.ts'
import { ProblemError } from '../../../core/shared/errors.ts'
import type { Money, Price } from '../../../core/schemas/common.ts'
import type { MarkupRule } from '../../../core/schemas/trip.ts'

const isValidationError = (e: unknown) => e instanceof ProblemError && e.code === 'validation_error'
const errorAt = (path: string) => (e: unknown) => isValidationError(e) && (e as ProblemError).errors?.[0]?.path === path
const orig = (amount: number, currency: string) => ({ amount, currency, decimal_places: decimalPlaces(currency) })
const inTrip = (amount: number, currency: string, original = orig(amount, currency)): Money => ({
  amount,
  currency,
  decimal_places: decimalPlaces(currency),
  in_original_currency: original,
})

test('markupRuleFor picks the product type, then default, then nothing', () => {
  const bag = { percentage: 10 }
  const fallback = { fixed: 100 }
  assert.equal(markupRuleFor({ bag, default: fallback }, 'bag'), bag)
  assert.equal(markupRuleFor({ bag, default: fallback }, 'seat'), fallback)
  assert.equal(markupRuleFor({ bag }, 'seat'), undefined)
  assert.equal(markupRuleFor({}, 'bag'), undefined)
  assert.equal(markupRuleFor(undefined, 'bag'), undefined)
})

test('priceOffer without a rule: no mark-up entry, taxes kept by type, total the exact sum', () => {
  const price = priceOffer({
    unitBase: orig(2500, 'EUR'),
    taxes: [{ tax_type: 'vat', amount: 500 }],
    quantity: 1,
    tripCurrency: 'EUR',
    markup: undefined,
    markupType: 'bag',
  })
  assert.deepEqual(price, {
    base: inTrip(2500, 'EUR'),
    total: inTrip(3000, 'EUR'),
    markups: [],
    taxes: [{ ...inTrip(500, 'EUR'), tax_type: 'vat' }],
    fees: [],
  })
})

test('priceOffer: quantity 3, two taxes, 12.5 % plus a fixed amount per unit', () => {
  const price = priceOffer({
    unitBase: orig(1999, 'EUR'),
    taxes: [
      { tax_type: 'vat', amount: 400 },
      { tax_type: 'airport', amount: 133 },
    ],
    quantity: 3,
    tripCurrency: 'EUR',
    markup: { percentage: 12.5, fixed: 150 },
    markupType: 'bag',
  })
  assert.deepEqual(price.base, inTrip(5997, 'EUR'))
  // 5997 × 12.5 % = 749.625 → 750, plus 3 × 150
  assert.deepEqual(price.markups, [{ ...inTrip(1200, 'EUR'), markup_type: 'bag' }])
  assert.deepEqual(price.taxes, [
    { ...inTrip(1200, 'EUR'), tax_type: 'vat' },
    { ...inTrip(399, 'EUR'), tax_type: 'airport' },
  ])
  assert.deepEqual(price.total, inTrip(8796, 'EUR'))
  assert.ok(isPriceConsistent(price))
})

test("priceOffer: an item's own mark-up is per unit, in the trip currency, listed after the type's", () => {
  const price = priceOffer({
    unitBase: orig(1999, 'EUR'),
    taxes: [{ tax_type: 'vat', amount: 400 }],
    quantity: 3,
    tripCurrency: 'EUR',
    markup: { percentage: 12.5, fixed: 150 },
    markupType: 'bag',
    itemMarkup: orig(275, 'EUR'),
  })
  assert.deepEqual(price.markups, [
    { ...inTrip(1200, 'EUR'), markup_type: 'bag' },
    { ...inTrip(825, 'EUR'), markup_type: 'item' },
  ])
  assert.deepEqual(price.total, inTrip(5997 + 1200 + 825 + 1200, 'EUR'))
  assert.ok(isPriceConsistent(price))
  // From a GBP offer: the item's entry is in EUR from the start, so the total has no single original.
  const converted = priceOffer({
    unitBase: orig(6500, 'GBP'),
    taxes: [],
    quantity: 1,
    tripCurrency: 'EUR',
    markup: undefined,
    markupType: 'bag',
    itemMarkup: orig(0, 'EUR'),
  })
  assert.deepEqual(converted.markups, [{ ...inTrip(0, 'EUR'), markup_type: 'item' }], 'a mark-up of 0 is listed')
  assert.deepEqual(converted.total.in_original_currency, orig(converted.total.amount, 'EUR'))
  assert.ok(isPriceConsistent(converted))
  // A mark-up in another currency never reaches pricing (checkItemMarkup refuses it): if it did, it is a bug.
  assert.throws(
    () =>
      priceOffer({
        unitBase: orig(100, 'EUR'),
        taxes: [],
        quantity: 1,
        tripCurrency: 'EUR',
        markup: undefined,
        markupType: 'bag',
        itemMarkup: orig(1, 'GBP'),
      }),
    (e: unknown) => e instanceof ProblemError && e.code === 'internal',
  )
})

test("checkItemMarkup: the trip's currency with its decimal places, else a validation error naming the field", () => {
  checkItemMarkup(orig(100, 'JPY'), 'JPY', '/0/markup')
  checkItemMarkup(orig(100, 'KWD'), 'KWD', '/0/markup')
  assert.throws(() => checkItemMarkup(orig(100, 'EUR'), 'JPY', '/2/markup'), errorAt('/2/markup/currency'))
  assert.throws(
    () => checkItemMarkup({ amount: 100, currency: 'JPY', decimal_places: 2 }, 'JPY', '/0/markup'),
    errorAt('/0/markup/decimal_places'),
  )
})

test('priceOffer: 0.01 % and percentage mark-ups that land exactly on a half', () => {
  const at = (base: number, percentage: number) =>
    priceOffer({
      unitBase: orig(base, 'EUR'),
      taxes: [],
      quantity: 1,
      tripCurrency: 'EUR',
      markup: { percentage },
      markupType: 'seat',
    }).markups[0]?.amount
  assert.equal(at(5000, 0.01), 1) // 0.5 → 1
  assert.equal(at(4999, 0.01), 0)
  assert.equal(at(3000, 1.15), 35) // 34.5 exactly, 34.4999... in floating point
})

test('priceOffer lists a rule that comes to zero, so the seller can see it applied', () => {
  const price = priceOffer({
    unitBase: orig(0, 'EUR'),
    taxes: [],
    quantity: 2,
    tripCurrency: 'EUR',
    markup: { percentage: 10 },
    markupType: 'bag',
  })
  assert.deepEqual(price.markups, [{ ...inTrip(0, 'EUR'), markup_type: 'bag' }])
  assert.equal(price.total.amount, 0)
})

test('priceOffer converts JPY and KWD supplier prices, rounding base and each tax once after the quantity', () => {
  const price = priceOffer({
    unitBase: orig(4999, 'JPY'),
    taxes: [{ tax_type: 'fuel', amount: 333 }],
    quantity: 3,
    tripCurrency: 'KWD',
    markup: { percentage: 12.5, fixed: 250 },
    markupType: 'bag',
  })
  const base = convert(orig(14997, 'JPY'), 'KWD')
  assert.deepEqual(price.base, inTrip(base, 'KWD', orig(14997, 'JPY')))
  assert.deepEqual(price.taxes, [
    { ...inTrip(convert(orig(999, 'JPY'), 'KWD'), 'KWD', orig(999, 'JPY')), tax_type: 'fuel' },
  ])
  const markup = Math.round(base * 0.125) + 750 // base is small and positive: Math.round is exact here
  assert.deepEqual(price.markups, [{ ...inTrip(markup, 'KWD'), markup_type: 'bag' }])
  assert.equal(price.total.decimal_places, 3)
  // origins differ (JPY parts, a KWD mark-up): the total's original repeats the trip-currency total
  assert.deepEqual(price.total.in_original_currency, orig(price.total.amount, 'KWD'))
  assert.ok(isPriceConsistent(price))

  const back = priceOffer({
    unitBase: orig(1250, 'KWD'),
    taxes: [{ tax_type: 'vat', amount: 125 }],
    quantity: 1,
    tripCurrency: 'JPY',
    markup: undefined,
    markupType: 'bag',
  })
  assert.equal(back.base.decimal_places, 0)
  // every part originates in KWD, so the total's original is their exact KWD sum
  assert.deepEqual(back.total.in_original_currency, orig(1375, 'KWD'))
  assert.ok(isPriceConsistent(back))
})

test('priceOffer stays exact at 1e12 minor units', () => {
  const price = priceOffer({
    unitBase: orig(1e12, 'EUR'),
    taxes: [{ tax_type: 'vat', amount: 1e11 + 1 }],
    quantity: 3,
    tripCurrency: 'EUR',
    markup: { percentage: 0.01, fixed: 7 },
    markupType: 'bag',
  })
  assert.equal(price.base.amount, 3e12)
  assert.equal(price.markups[0]?.amount, 3e8 + 21)
  assert.equal(price.total.amount, 3e12 + 3e8 + 21 + 3e11 + 3)
  assert.throws(
    () =>
      priceOffer({
        unitBase: orig(2 ** 49, 'EUR'),
        taxes: [],
        quantity: 3,
        tripCurrency: 'EUR',
        markup: undefined,
        markupType: 'bag',
      }),
    isValidationError,
  )
})

test('priceOffer refuses bad input with validation errors', () => {
  const ok = {
    unitBase: orig(100, 'EUR'),
    taxes: [],
    quantity: 1,
    tripCurrency: 'EUR',
    markup: undefined,
    markupType: 'bag',
  }
  assert.throws(() => priceOffer({ ...ok, quantity: 0 }), isValidationError)
  assert.throws(() => priceOffer({ ...ok, quantity: 1.5 }), isValidationError)
  assert.throws(() => priceOffer({ ...ok, tripCurrency: 'XXX' }), isValidationError)
  assert.throws(
    () => priceOffer({ ...ok, unitBase: { amount: 100, currency: 'XXX', decimal_places: 2 } }),
    isValidationError,
  )
  assert.throws(
    () => priceOffer({ ...ok, unitBase: { amount: 100, currency: 'JPY', decimal_places: 2 } }),
    isValidationError,
  )
  assert.throws(() => priceOffer({ ...ok, markup: { percentage: 1.234 } }), isValidationError)
})

test('ticketPrice keeps a consistent offered price and labels its mark-up "ticket"', () => {
  const price = ticketPrice(
    { currency: 'EUR', decimal_places: 2, base_price: 10000, markup: 1500, total: 11500 },
    'EUR',
  )
  assert.deepEqual(price, {
    base: inTrip(10000, 'EUR'),
    total: inTrip(11500, 'EUR'),
    markups: [{ ...inTrip(1500, 'EUR'), markup_type: 'ticket' }],
    taxes: [],
    fees: [],
  })
})

test('ticketPrice converts a foreign ticket; the total is the sum of the converted parts', () => {
  const offered = { currency: 'USD', decimal_places: 2, base_price: 12345, markup: 1001, total: 13346 }
  const price = ticketPrice(offered, 'JPY')
  assert.equal(price.base.amount, convert(orig(12345, 'USD'), 'JPY'))
  assert.equal(price.markups[0]?.amount, convert(orig(1001, 'USD'), 'JPY'))
  assert.equal(price.total.amount, price.base.amount + (price.markups[0]?.amount ?? 0))
  assert.deepEqual(price.total.in_original_currency, orig(13346, 'USD'))
  assert.ok(isPriceConsistent(price))
})

test('ticketPrice rejects an inconsistent offered price, naming the field', () => {
  const good = { currency: 'EUR', decimal_places: 2, base_price: 10000, markup: 1500, total: 11500 }
  assert.throws(() => ticketPrice({ ...good, total: 11501 }, 'EUR', 2), errorAt('/tickets/2/offered_price/total'))
  assert.throws(
    () => ticketPrice({ ...good, decimal_places: 3 }, 'EUR', 1),
    errorAt('/tickets/1/offered_price/decimal_places'),
  )
  assert.throws(() => ticketPrice({ ...good, currency: 'XXX' }, 'EUR'), errorAt('/tickets/0/offered_price/currency'))
  assert.throws(
    () => ticketPrice({ ...good, currency: 'JPY', decimal_places: 2 }, 'EUR'),
    errorAt('/tickets/0/offered_price/decimal_places'),
  )
  assert.throws(() => ticketPrice(good, 'XXX'), isValidationError)
})

test('sumPrices adds totals exactly in the trip currency', () => {
  const a = ticketPrice({ currency: 'USD', decimal_places: 2, base_price: 999, markup: 1, total: 1000 }, 'EUR')
  const b = priceOffer({
    unitBase: orig(1250, 'KWD'),
    taxes: [],
    quantity: 2,
    tripCurrency: 'EUR',
    markup: { fixed: 99 },
    markupType: 'bag',
  })
  const total = sumPrices([a, b], 'EUR')
  assert.deepEqual(total, inTrip(a.total.amount + b.total.amount, 'EUR'))
  assert.deepEqual(sumPrices([], 'JPY'), inTrip(0, 'JPY'))
  // every total originates in USD: the basket total keeps that exact sum
  const usd = sumPrices([a, a], 'EUR')
  assert.deepEqual(usd.in_original_currency, orig(2000, 'USD'))
  assert.throws(
    () => sumPrices([a], 'JPY'),
    (e: unknown) => e instanceof ProblemError && e.code === 'internal',
  )
})

test('isPriceConsistent catches a wrong total, a fraction or a currency mix', () => {
  const price = ticketPrice({ currency: 'EUR', decimal_places: 2, base_price: 100, markup: 5, total: 105 }, 'EUR')
  assert.ok(isPriceConsistent(price))
  assert.equal(isPriceConsistent({ ...price, total: { ...price.total, amount: 106 } }), false)
  assert.equal(
    isPriceConsistent({ ...price, base: { ...price.base, amount: 99.5 }, total: { ...price.total, amount: 104.5 } }),
    false,
  )
  assert.equal(isPriceConsistent({ ...price, taxes: [{ ...inTrip(0, 'USD'), tax_type: 'vat' }] }), false)
})

test('property: thousands of random offers and tickets always add up, in integers', () => {
  // Deterministic LCG (Numerical Recipes constants) so a failure reproduces.
  let seed = 20250630
  const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0)
  const int = (n: number) => Math.floor((next() / 2 ** 32) * n) // high bits: an LCG's low bits cycle quickly
  const big = () => int(1000) * 1_000_000 + int(1_000_000) // up to ~1e9, built from two draws
  const codes = Object.keys(EXCHANGE_RATES)
  const pick = () => codes[int(codes.length)] as string

  const check = (price: Price, label: string) => {
    const parts = [price.base, ...price.markups, ...price.taxes, ...price.fees]
    for (const m of [...parts, price.total]) {
      assert.ok(Number.isSafeInteger(m.amount) && Number.isSafeInteger(m.in_original_currency.amount), label)
    }
    const sum = parts.reduce((s, m) => s + BigInt(m.amount), 0n)
    assert.equal(BigInt(price.total.amount), sum, label)
    assert.ok(isPriceConsistent(price), label)
  }

  for (let i = 0; i < 4000; i++) {
    const from = pick()
    const trip = pick()
    const rules: Array<MarkupRule | undefined> = [
      undefined,
      { percentage: int(100001) / 100 },
      { fixed: big() % 100000 },
      { percentage: int(10001) / 100, fixed: int(5000) },
    ]
    const markup = rules[int(rules.length)]
    const quantity = 1 + int(9)
    const taxes = Array.from({ length: int(4) }, (_, k) => ({
      tax_type: `t${k}`,
      amount: int(3) === 0 ? big() : int(10000),
    }))
    const unit = int(4) === 0 ? big() : int(100000)
    const label = `case ${i}: ${unit} ${from} × ${quantity} → ${trip} ${JSON.stringify(markup)} ${JSON.stringify(taxes)}`
    const price = priceOffer({
      unitBase: orig(unit, from),
      taxes,
      quantity,
      tripCurrency: trip,
      markup,
      markupType: 'bag',
    })
    check(price, label)
    assert.equal(price.base.amount, convert(orig(unit * quantity, from), trip), label)
    assert.equal(price.markups.length, markup ? 1 : 0, label)
    assert.equal(price.taxes.length, taxes.length, label)

    const basePrice = big()
    const ticketMarkup = int(100000)
    const currency = pick()
    check(
      ticketPrice(
        {
          currency,
          decimal_places: decimalPlaces(currency),
          base_price: basePrice,
          markup: ticketMarkup,
          total: basePrice + ticketMarkup,
        },
        trip,
        i,
      ),
      `ticket ${label}`,
    )
  }
})
