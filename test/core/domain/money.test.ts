import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  applyPercentage,
  convert,
  convertMoney,
  decimalPlaces,
  isSupportedCurrency,
  money,
  originalOf,
  parseDecimal,
  roundHalfAwayFromZero,
} from '../../../core/domain/money.ts'
import { EXCHANGE_RATES, RATES_AS_OF, RATES_BASE } from '../../../core/domain/data/exchange-rates.ts'
import { ProblemError } from '../../../core/shared/errors.ts'

/** A small table with round numbers, so expected conversions can be worked out by hand. */
const RATES = { EUR: '1', USD: '1.25', JPY: '160', KWD: '0.33', BHD: '0.4', GBP: '1.005' }

const isValidationError = (e: unknown) => e instanceof ProblemError && e.code === 'validation_error'
const eur = (amount: number) => ({ amount, currency: 'EUR', decimal_places: 2 })

test('the rate table covers the required currencies with positive decimal rates against EUR', () => {
  assert.match(RATES_AS_OF, /^\d{4}-\d{2}-\d{2}$/)
  assert.equal(RATES_BASE, 'EUR')
  assert.equal(EXCHANGE_RATES.EUR, '1')
  const required =
    'EUR USD GBP CHF SEK NOK DKK PLN CZK HUF ISK JPY KRW CNY HKD SGD INR THB AUD NZD CAD MXN BRL CLP ZAR TRY AED SAR QAR KWD BHD OMR JOD'
  for (const c of required.split(' ')) assert.ok(isSupportedCurrency(c), c)
  for (const [c, rate] of Object.entries(EXCHANGE_RATES)) {
    assert.match(rate, /^\d+(\.\d+)?$/, c)
    assert.ok(Number(rate) > 0, c)
  }
})

test('decimalPlaces follows ISO 4217: 0, 2 and 3 decimal currencies', () => {
  const expected = { EUR: 2, USD: 2, GBP: 2, HUF: 2, JPY: 0, KRW: 0, CLP: 0, ISK: 0, KWD: 3, BHD: 3, OMR: 3, JOD: 3 }
  for (const [c, places] of Object.entries(expected)) assert.equal(decimalPlaces(c), places, c)
  for (const c of Object.keys(EXCHANGE_RATES)) assert.ok([0, 2, 3].includes(decimalPlaces(c)), c)
})

test('unsupported currencies are validation errors', () => {
  assert.equal(isSupportedCurrency('XXX'), false)
  assert.equal(isSupportedCurrency('eur'), false)
  assert.equal(isSupportedCurrency('toString'), false)
  assert.throws(() => decimalPlaces('XXX'), isValidationError)
  assert.throws(() => convert({ amount: 100, currency: 'XXX', decimal_places: 2 }, 'EUR'), isValidationError)
  assert.throws(() => convert(eur(100), 'XXX'), isValidationError)
  assert.throws(() => convert(eur(100), 'CHF', RATES), isValidationError) // supported, but not in this table
})

test('decimal_places that contradict the currency, and fractional amounts, are validation errors', () => {
  assert.throws(() => convert({ amount: 100, currency: 'JPY', decimal_places: 2 }, 'EUR'), isValidationError)
  assert.throws(() => convert({ amount: 100, currency: 'KWD', decimal_places: 2 }, 'KWD'), isValidationError)
  assert.throws(() => convert(eur(10.5), 'USD'), isValidationError)
})

test('roundHalfAwayFromZero rounds ties away from zero on both signs', () => {
  const cases: Array<[bigint, bigint, bigint]> = [
    [5n, 2n, 3n],
    [-5n, 2n, -3n],
    [3n, 2n, 2n],
    [-3n, 2n, -2n],
    [1n, 2n, 1n],
    [-1n, 2n, -1n],
    [1n, 3n, 0n],
    [2n, 3n, 1n],
    [-2n, 3n, -1n],
    [-1n, 3n, 0n],
    [7n, -2n, -4n],
    [0n, 5n, 0n],
    [10n, 5n, 2n],
    [149n, 100n, 1n],
    [150n, 100n, 2n],
    [-149n, 100n, -1n],
    [-150n, 100n, -2n],
  ]
  for (const [n, d, r] of cases) assert.equal(roundHalfAwayFromZero(n, d), r, `${n}/${d}`)
  assert.throws(() => roundHalfAwayFromZero(1n, 0n), RangeError)
})

test('parseDecimal is exact and refuses exponents and excess decimals', () => {
  assert.deepEqual(parseDecimal('1.0832'), { num: 10832n, den: 10000n })
  assert.deepEqual(parseDecimal('160'), { num: 160n, den: 1n })
  assert.deepEqual(parseDecimal('-0.5'), { num: -5n, den: 10n })
  for (const bad of ['1e-7', '', '.5', '1.', 'abc', '1,5'])
    assert.throws(() => parseDecimal(bad), isValidationError, bad)
  assert.throws(() => parseDecimal('12.345', 2), isValidationError)
})

test('convert: same currency is the identity', () => {
  assert.equal(convert(eur(1999), 'EUR'), 1999)
  assert.equal(convert({ amount: 1250, currency: 'KWD', decimal_places: 3 }, 'KWD'), 1250)
  assert.equal(convert({ amount: -7, currency: 'JPY', decimal_places: 0 }, 'JPY'), -7)
})

test('convert between 0, 2 and 3 decimal currencies, worked by hand', () => {
  // 19.99 EUR × 160 = 3198.4 JPY
  assert.equal(convert(eur(1999), 'JPY', RATES), 3198)
  // 1.250 KWD / 0.33 = 3.78787... EUR
  assert.equal(convert({ amount: 1250, currency: 'KWD', decimal_places: 3 }, 'EUR', RATES), 379)
  // 1000 JPY / 160 × 0.33 = 2.0625 KWD: a tie at the fils, both signs
  assert.equal(convert({ amount: 1000, currency: 'JPY', decimal_places: 0 }, 'KWD', RATES), 2063)
  assert.equal(convert({ amount: -1000, currency: 'JPY', decimal_places: 0 }, 'KWD', RATES), -2063)
  // 1.250 BHD / 0.4 × 160 = 500 JPY exactly; 0.001 BHD = 0.4 JPY → 0
  assert.equal(convert({ amount: 1250, currency: 'BHD', decimal_places: 3 }, 'JPY', RATES), 500)
  assert.equal(convert({ amount: 1, currency: 'BHD', decimal_places: 3 }, 'JPY', RATES), 0)
  // 1 JPY / 160 × 0.4 = 0.0025 BHD = 2.5 fils
  assert.equal(convert({ amount: 1, currency: 'JPY', decimal_places: 0 }, 'BHD', RATES), 3)
  // KWD → BHD, both 3 decimals: 3.300 KWD = 10 EUR = 4.000 BHD
  assert.equal(convert({ amount: 3300, currency: 'KWD', decimal_places: 3 }, 'BHD', RATES), 4000)
})

test('convert rounds exact halves away from zero on both signs', () => {
  assert.equal(convert(eur(2), 'USD', RATES), 3) // 2.5
  assert.equal(convert(eur(-2), 'USD', RATES), -3)
  assert.equal(convert(eur(6), 'USD', RATES), 8) // 7.5
  assert.equal(convert(eur(-6), 'USD', RATES), -8)
  assert.equal(convert(eur(1), 'USD', RATES), 1) // 1.25
  assert.equal(convert(eur(-1), 'USD', RATES), -1)
  // 100 × 1.005 is 100.49999999999999 in floating point; exactly it is the tie 100.5
  assert.equal(convert(eur(100), 'GBP', RATES), 101)
  assert.equal(convert(eur(-100), 'GBP', RATES), -101)
})

test('convert stays exact for large amounts', () => {
  assert.equal(convert(eur(1e12), 'JPY', RATES), 1.6e12) // 1e10 EUR × 160
  assert.equal(convert({ amount: 1.6e12, currency: 'JPY', decimal_places: 0 }, 'EUR', RATES), 1e12)
  // 9999999999.99 EUR × 1.0832 = 10831999999.989168 USD; a double product would read ...98.9167
  assert.equal(convert(eur(999_999_999_999), 'USD', { EUR: '1', USD: '1.0832' }), 1_083_199_999_999)
  assert.equal(
    convert(eur(1e12), 'USD'),
    Number((1_000_000_000_000n * BigInt(EXCHANGE_RATES.USD.replace('.', ''))) / 10000n),
  )
  // a result beyond ±2^50 minor units is refused rather than silently inexact
  assert.throws(() => convert(eur(2 ** 50), 'KRW'), isValidationError)
})

test('convert with the service table agrees with a floating-point estimate to within rounding', () => {
  const codes = Object.keys(EXCHANGE_RATES) as Array<keyof typeof EXCHANGE_RATES>
  for (const from of codes) {
    for (const to of codes) {
      const amount = 123_456_789
      const got = convert({ amount, currency: from, decimal_places: decimalPlaces(from) }, to)
      const estimate =
        ((amount * Number(EXCHANGE_RATES[to])) / Number(EXCHANGE_RATES[from])) *
        10 ** (decimalPlaces(to) - decimalPlaces(from))
      assert.ok(Number.isSafeInteger(got))
      assert.ok(Math.abs(got - estimate) <= 0.5 + 1e-9 * Math.abs(estimate), `${from}→${to}: ${got} vs ${estimate}`)
    }
  }
})

test('applyPercentage: 12.5 %, 0.01 %, ties on both signs, float traps', () => {
  assert.equal(applyPercentage(1000, 12.5), 125)
  assert.equal(applyPercentage(1999, 12.5), 250) // 249.875
  assert.equal(applyPercentage(10000, 0.01), 1)
  assert.equal(applyPercentage(5000, 0.01), 1) // 0.5
  assert.equal(applyPercentage(4999, 0.01), 0)
  assert.equal(applyPercentage(-5000, 0.01), -1)
  assert.equal(applyPercentage(1, 50), 1)
  assert.equal(applyPercentage(-1, 50), -1)
  assert.equal(applyPercentage(3, 50), 2)
  assert.equal(applyPercentage(-3, 50), -2)
  assert.equal(applyPercentage(123, 0), 0)
  assert.equal(applyPercentage(123, 1000), 1230)
  // 3000 × 1.15 / 100 is 34.49999999999999 in floating point; exactly it is 34.5
  assert.equal(applyPercentage(3000, 1.15), 35)
  assert.equal(applyPercentage(21000, 12.45), 2615)
  assert.equal(applyPercentage(1e12, 12.5), 1.25e11)
  assert.equal(applyPercentage(2 ** 50, 0.01), Number(roundHalfAwayFromZero(2n ** 50n, 10000n)))
  assert.throws(() => applyPercentage(100, 12.345), isValidationError)
  assert.throws(() => applyPercentage(100, Number.NaN), isValidationError)
  assert.throws(() => applyPercentage(100.5, 10), isValidationError)
})

test('money, originalOf and convertMoney fill in decimal places and keep the original', () => {
  assert.deepEqual(originalOf(1250, 'KWD'), { amount: 1250, currency: 'KWD', decimal_places: 3 })
  const original = { amount: 1250, currency: 'KWD', decimal_places: 3 }
  assert.deepEqual(money(379, 'EUR', original), {
    amount: 379,
    currency: 'EUR',
    decimal_places: 2,
    in_original_currency: original,
  })
  assert.deepEqual(convertMoney(original, 'EUR', RATES), {
    amount: 379,
    currency: 'EUR',
    decimal_places: 2,
    in_original_currency: original,
  })
  assert.throws(() => money(1.5, 'EUR', original), isValidationError)
})
