/**
 * Property tests (fast-check, fixed seeds) of the rules money, mark-ups and the basket must keep whatever
 * the input (docs/decisions.md "Prices and mark-ups", "Basket changes"):
 * - money (core/domain/money.ts): rounding is to the nearest integer with ties away from zero; decimal text parses
 *   exactly, and what the SDK's formatPrice shows parses back to the amount; amounts stay integers within
 *   ±2^50 or are refused, never silently inexact; sums are exact in any order and grouping; every currency's
 *   exponent is enforced; conversion is monotonic, symmetric and within rounding of the rate;
 * - mark-ups (core/domain/pricing.ts): integer, never negative (a price never below cost), percentage rounded
 *   once half away from zero, fixed per unit, monotonic in every input, totals the exact sum of their parts;
 *   ticket prices keep base + markup = total;
 * - the basket (core/domain/basket.ts, through the core as the API calls it): after any sequence of adds, replaces
 *   and removals every rule holds (limits per passenger, one seat per passenger per segment and one
 *   passenger per seat, no seat for a lap infant, products of the trip only, each line priced once for its
 *   quantity, tickets' item lists in step); a refused change leaves the basket exactly as it was; adding
 *   then removing returns the same basket and hash; a limit is reached exactly; split adds equal one add;
 *   PUT is idempotent in content.
 * Each property states the rule from outside (bounds, orderings, equalities between operations); none
 * recomputes a result the way the code under test does.
 */
import { test, describe, before } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import {
  roundHalfAwayFromZero,
  parseDecimal,
  toMinorUnits,
  toBig,
  decimalPlaces,
  checkOriginal,
  convert,
  applyPercentage,
  tripMoney,
  MAX_MINOR_UNITS,
} from '../../core/domain/money.ts'
import { priceOffer, ticketPrice, sumPrices, isPriceConsistent } from '../../core/domain/pricing.ts'
import { EXCHANGE_RATES } from '../../core/domain/data/exchange-rates.ts'
import { formatPrice } from '../../components/i18n/index.ts'
import { ProblemError } from '../../core/shared/errors.ts'
import type { Price } from '../../core/schemas/common.ts'
import type { MarkupRule } from '../../core/schemas/trip.ts'
import type { Product } from '../../core/schemas/search.ts'
import type { BasketItem } from '../../core/schemas/basket.ts'
import { coreFixture, tripRequest } from '../helpers/core.ts'

const SEED = 20261122
/** fast-check options: a fixed seed so a failure reproduces; modest runs so the file takes seconds. */
const runs = (numRuns: number) => ({ seed: SEED, numRuns })

const CURRENCIES = Object.keys(EXCHANGE_RATES)
const currency = fc.constantFrom(...CURRENCIES)
const MAX = BigInt(MAX_MINOR_UNITS)
const abs = (x: bigint) => (x < 0n ? -x : x)

const problemCode = (f: () => unknown): string | undefined => {
  try {
    f()
  } catch (e) {
    if (e instanceof ProblemError) return e.code
    throw e
  }
  return undefined
}

/** An amount in minor units as decimal text with `places` decimals (the form parseDecimal reads). */
function decimalText(amount: bigint, places: number): string {
  const digits = abs(amount)
    .toString()
    .padStart(places + 1, '0')
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`
  return amount < 0n ? `-${text}` : text
}

// ==================================================================== money

describe('money', () => {
  test('roundHalfAwayFromZero: the nearest integer, ties away from zero, odd in num', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
        fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }).filter((d) => d !== 0n),
        (num, den) => {
          const r = roundHalfAwayFromZero(num, den)
          const d = abs(den)
          const n = den < 0n ? -num : num // num/den with a positive denominator
          const twiceError = abs(2n * (r * d - n))
          assert.ok(twiceError <= d, `${num}/${den} → ${r} is not a nearest integer`)
          if (twiceError === d)
            assert.ok(n > 0n ? r * d > n : r * d < n, `${num}/${den} is a tie, rounded toward zero to ${r}`)
          assert.equal(roundHalfAwayFromZero(-num, den), -r, 'rounding is symmetric around zero')
        },
      ),
      runs(500),
    )
  })

  test('ties specifically: k + 1/2 goes to k + 1, −(k + 1/2) to −(k + 1)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 60n }), fc.bigInt({ min: 1n, max: 2n ** 20n }), (k, half) => {
        const den = 2n * half
        assert.equal(roundHalfAwayFromZero((2n * k + 1n) * half, den), k + 1n)
        assert.equal(roundHalfAwayFromZero(-(2n * k + 1n) * half, den), -(k + 1n))
      }),
      runs(200),
    )
  })

  test('decimal text of any amount parses back to exactly that amount; more decimals than allowed are refused', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
        fc.integer({ min: 0, max: 8 }),
        (amount, places) => {
          const text = decimalText(amount, places)
          const { num, den } = parseDecimal(text, places)
          assert.equal(num * 10n ** BigInt(places), amount * den, `${text} parsed as ${num}/${den}`)
          if (places > 0)
            assert.equal(
              problemCode(() => parseDecimal(text, places - 1)),
              'validation_error',
              `${text} has ${places} decimals`,
            )
        },
      ),
      runs(300),
    )
  })

  test('parseDecimal agrees with Number() on what it accepts, and refuses exponents, signs, spaces and bare points', () => {
    const text = fc.string({
      unit: fc.constantFrom('0', '1', '5', '9', '.', '-', '+', 'e', 'E', ' ', '_', 'x'),
      minLength: 0,
      maxLength: 12,
    })
    fc.assert(
      fc.property(text, (s) => {
        let parsed: { num: bigint; den: bigint } | undefined
        try {
          parsed = parseDecimal(s)
        } catch (e) {
          assert.ok(e instanceof ProblemError && e.code === 'validation_error', String(e))
        }
        if (!parsed) return
        assert.ok(!/[eE+ _x]/.test(s), `"${s}" was accepted`)
        assert.ok(!s.startsWith('.') && !s.endsWith('.') && !s.includes('-.'), `"${s}" was accepted`)
        const expected = Number(s)
        assert.ok(Number.isFinite(expected), `"${s}" was accepted but is not a number`)
        assert.ok(
          Math.abs(Number(parsed.num) / Number(parsed.den) - expected) <= Math.abs(expected) * 1e-12,
          `"${s}" → ${parsed.num}/${parsed.den}`,
        )
      }),
      runs(1000),
    )
  })

  test("what the SDK's formatPrice shows parses back to the exact amount, in every currency, up to ±2^50", () => {
    fc.assert(
      fc.property(currency, fc.integer({ min: -MAX_MINOR_UNITS, max: MAX_MINOR_UNITS }), (code, amount) => {
        const places = decimalPlaces(code)
        const shown = formatPrice(amount, places, code, 'en-US')
        const digits = shown.replace(/[^0-9.-]/g, '')
        const { num, den } = parseDecimal(digits, places)
        assert.equal(
          num * 10n ** BigInt(places),
          BigInt(amount) * den,
          `${amount} ${code} (${places} places) shown as "${shown}"`,
        )
      }),
      runs(400),
    )
  })

  test('amounts are integers within ±2^50, exactly, or refused; never a rounded number', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }), (x) => {
        if (abs(x) <= MAX) {
          const n = toMinorUnits(x)
          assert.ok(Number.isSafeInteger(n))
          assert.equal(toBig(n), x)
        } else {
          assert.equal(
            problemCode(() => toMinorUnits(x)),
            'validation_error',
          )
        }
      }),
      runs(300),
    )
    fc.assert(
      fc.property(fc.double({ noNaN: false }), (x) => {
        const code = problemCode(() => toBig(x))
        assert.equal(code === undefined, Number.isSafeInteger(x), `toBig(${x})`)
      }),
      runs(300),
    )
  })

  test('sums are exact in any order and any grouping, or refused beyond ±2^50 (no float drift)', () => {
    const asPrice = (amount: number, code: string): Price => {
      const m = tripMoney(amount, code)
      return { base: m, total: m, markups: [], taxes: [], fees: [] }
    }
    const big = fc.oneof(
      fc.integer({ min: -1000, max: 1000 }),
      fc.integer({ min: -MAX_MINOR_UNITS, max: MAX_MINOR_UNITS }),
      fc.constantFrom(MAX_MINOR_UNITS, -MAX_MINOR_UNITS, 2 ** 49 + 1, 2 ** 49 - 1),
    )
    fc.assert(
      fc.property(currency, fc.array(big, { maxLength: 12 }), fc.nat(), fc.nat(), (code, amounts, cut, shuffleSeed) => {
        const exact = amounts.reduce((s, a) => s + BigInt(a), 0n)
        const prices = amounts.map((a) => asPrice(a, code))
        const code1 = problemCode(() => sumPrices(prices, code))
        if (abs(exact) > MAX) {
          assert.equal(code1, 'validation_error', `Σ ${exact} is out of range and must be refused`)
          return
        }
        const total = sumPrices(prices, code)
        assert.equal(BigInt(total.amount), exact)
        assert.equal(total.currency, code)
        assert.equal(total.decimal_places, decimalPlaces(code))
        // Another order.
        const shuffled = [...prices].sort(
          (a, b) => ((a.total.amount * 31 + shuffleSeed) % 97) - ((b.total.amount * 31 + shuffleSeed) % 97),
        )
        assert.equal(sumPrices(shuffled, code).amount, total.amount)
        // Another grouping: the sums of two parts, summed (when each part is itself in range).
        const k = prices.length === 0 ? 0 : cut % (prices.length + 1)
        const left = amounts.slice(0, k).reduce((s, a) => s + BigInt(a), 0n)
        const right = exact - left
        if (abs(left) <= MAX && abs(right) <= MAX) {
          const grouped = sumPrices(
            [
              asPrice(sumPrices(prices.slice(0, k), code).amount, code),
              asPrice(sumPrices(prices.slice(k), code).amount, code),
            ],
            code,
          )
          assert.equal(grouped.amount, total.amount)
        }
      }),
      runs(300),
    )
  })

  test('a price in another currency is never added to a total', () => {
    fc.assert(
      fc.property(currency, currency, fc.integer({ min: 0, max: 10_000 }), (a, b, amount) => {
        fc.pre(a !== b)
        const m = tripMoney(amount, a)
        assert.equal(
          problemCode(() => sumPrices([{ base: m, total: m, markups: [], taxes: [], fees: [] }], b)),
          'internal',
        )
      }),
      runs(50),
    )
  })

  test("every currency's exponent is enforced: the right decimal_places is accepted, every other refused", () => {
    fc.assert(
      fc.property(
        currency,
        currency,
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        (from, to, places, amount) => {
          const own = decimalPlaces(from)
          assert.ok([0, 2, 3].includes(own), `${from} has ${own} places`)
          const money = { amount, currency: from, decimal_places: places }
          if (places === own) {
            assert.equal(checkOriginal(money), BigInt(amount))
            assert.ok(Number.isSafeInteger(convert(money, to)))
          } else {
            assert.equal(
              problemCode(() => checkOriginal(money)),
              'validation_error',
            )
            assert.equal(
              problemCode(() => convert(money, to)),
              'validation_error',
            )
          }
        },
      ),
      runs(300),
    )
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), minLength: 3, maxLength: 3 }),
        (code) => {
          fc.pre(!CURRENCIES.includes(code))
          assert.equal(
            problemCode(() => decimalPlaces(code)),
            'validation_error',
          )
        },
      ),
      runs(100),
    )
    assert.equal(
      problemCode(() => decimalPlaces('__proto__')),
      'validation_error',
    )
    assert.equal(
      problemCode(() => decimalPlaces('constructor')),
      'validation_error',
    )
  })

  describe('conversion', () => {
    const amount = fc.integer({ min: -1e12, max: 1e12 })
    const orig = (a: number, c: string) => ({ amount: a, currency: c, decimal_places: decimalPlaces(c) })

    test('same currency is the identity; odd: convert(−a) = −convert(a)', () => {
      fc.assert(
        fc.property(currency, currency, amount, (from, to, a) => {
          assert.equal(convert(orig(a, from), from), a)
          assert.equal(convert(orig(-a, from), to), -convert(orig(a, from), to) || 0)
        }),
        runs(300),
      )
    })

    test('monotonic: a larger amount never converts to a smaller one', () => {
      fc.assert(
        fc.property(currency, currency, amount, fc.integer({ min: 0, max: 1e9 }), (from, to, a, more) => {
          assert.ok(convert(orig(a, from), to) <= convert(orig(a + more, from), to))
        }),
        runs(300),
      )
    })

    test('within rounding of the rate table (floating-point estimate), rounded once: convert(a + b) is within 1 of convert(a) + convert(b)', () => {
      const rate = (c: string) => Number(EXCHANGE_RATES[c as keyof typeof EXCHANGE_RATES])
      fc.assert(
        fc.property(currency, currency, amount, amount, (from, to, a, b) => {
          const got = convert(orig(a, from), to)
          const estimate = (((a / 10 ** decimalPlaces(from)) * rate(to)) / rate(from)) * 10 ** decimalPlaces(to)
          assert.ok(
            Math.abs(got - estimate) <= 0.5 + Math.abs(estimate) * 1e-9,
            `${a} ${from} → ${got} ${to}, estimate ${estimate}`,
          )
          assert.ok(Math.abs(convert(orig(a + b, from), to) - got - convert(orig(b, from), to)) <= 1)
        }),
        runs(300),
      )
    })
  })

  describe('percentages', () => {
    /** 0 to 1000 % with at most two decimals, as MarkupRule allows. */
    const pct = fc.integer({ min: 0, max: 100_000 }).map((h) => h / 100)

    test('applyPercentage is the nearest integer to amount × p / 100, ties away from zero', () => {
      fc.assert(
        fc.property(fc.integer({ min: -1e12, max: 1e12 }), pct, (a, p) => {
          const r = BigInt(applyPercentage(a, p))
          const hundredths = BigInt(Math.round(p * 100)) // exact: p has two decimals
          const scaled = BigInt(a) * hundredths // the exact value × 10 000
          const twiceError = abs(2n * (r * 10_000n - scaled))
          assert.ok(twiceError <= 10_000n, `${p} % of ${a} → ${r}`)
          if (twiceError === 10_000n)
            assert.ok(abs(r * 10_000n) > abs(scaled), `${p} % of ${a} is a tie, rounded toward zero to ${r}`)
        }),
        runs(500),
      )
    })

    test('monotonic in the amount and in the percentage; 0 % is 0, 100 % is the amount', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 0, max: 1e9 }), pct, pct, (a, more, p, q) => {
          const [lo, hi] = p <= q ? [p, q] : [q, p]
          assert.ok(applyPercentage(a, lo) <= applyPercentage(a, hi))
          assert.ok(applyPercentage(a, p) <= applyPercentage(a + more, p))
          assert.equal(applyPercentage(a, 0), 0)
          assert.equal(applyPercentage(a, 100), a)
        }),
        runs(300),
      )
    })

    test('more than two decimals, or no number at all, is refused', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 1, max: 9 }), (h, extra) => {
          const p = Number(`${h / 100}`) + extra / 1000
          fc.pre(Math.round(p * 100) !== p * 100)
          assert.equal(
            problemCode(() => applyPercentage(1000, p)),
            'validation_error',
            `${p}`,
          )
        }),
        runs(100),
      )
      for (const p of [NaN, Infinity, -Infinity])
        assert.equal(
          problemCode(() => applyPercentage(1000, p)),
          'validation_error',
        )
    })
  })
})

// ==================================================================== mark-ups and prices

describe('mark-ups and prices', () => {
  const pct = fc.integer({ min: 0, max: 100_000 }).map((h) => h / 100)
  const fixed = fc.integer({ min: 0, max: 1_000_000 })
  const rule: fc.Arbitrary<MarkupRule> = fc.oneof(
    pct.map((percentage) => ({ percentage })),
    fixed.map((f) => ({ fixed: f })),
    fc.tuple(pct, fixed).map(([percentage, f]) => ({ percentage, fixed: f })),
  )
  const taxes = fc
    .array(fc.integer({ min: 0, max: 1_000_000 }), { maxLength: 3 })
    .map((xs) => xs.map((amount, i) => ({ tax_type: `t${i}`, amount })))
  const offer = fc.record({
    from: currency,
    to: currency,
    unit: fc.integer({ min: 0, max: 1e9 }),
    quantity: fc.integer({ min: 1, max: 9 }),
    taxes,
    rule: fc.option(rule, { nil: undefined }),
  })
  const price = (o: {
    from: string
    to: string
    unit: number
    quantity: number
    taxes: Array<{ tax_type: string; amount: number }>
    rule: MarkupRule | undefined
  }) =>
    priceOffer({
      unitBase: { amount: o.unit, currency: o.from, decimal_places: decimalPlaces(o.from) },
      taxes: o.taxes,
      quantity: o.quantity,
      tripCurrency: o.to,
      markup: o.rule,
      markupType: 'bag',
    })
  const markupOf = (p: Price) => p.markups.reduce((s, m) => s + m.amount, 0)
  const taxOf = (p: Price) => p.taxes.reduce((s, m) => s + m.amount, 0)

  test('integers in the trip currency; total is the exact sum of the parts; never below cost', () => {
    fc.assert(
      fc.property(offer, (o) => {
        const p = price(o)
        assert.ok(isPriceConsistent(p), JSON.stringify(p))
        for (const m of [p.base, p.total, ...p.markups, ...p.taxes]) {
          assert.ok(Number.isSafeInteger(m.amount))
          assert.equal(m.currency, o.to)
          assert.equal(m.decimal_places, decimalPlaces(o.to))
        }
        assert.equal(p.total.amount, p.base.amount + markupOf(p) + taxOf(p))
        assert.ok(markupOf(p) >= 0, 'a mark-up is never a discount')
        assert.ok(p.total.amount >= p.base.amount + taxOf(p), 'never below cost')
        assert.equal(p.markups.length, o.rule ? 1 : 0, 'one mark-up entry exactly when a rule applies, even at 0')
        if (o.rule) assert.equal(p.markups[0]!.markup_type, 'bag')
        assert.equal(
          p.base.in_original_currency.amount,
          o.unit * o.quantity,
          'the original keeps the supplier amount for the quantity',
        )
        // Converted once for the whole quantity (three bags cost convert(3 × unit), not 3 × convert(unit)).
        assert.equal(
          p.base.amount,
          convert({ amount: o.unit * o.quantity, currency: o.from, decimal_places: decimalPlaces(o.from) }, o.to),
        )
      }),
      runs(400),
    )
  })

  test('a fixed mark-up is exactly fixed × quantity; a percentage one is base × p / 100 rounded once, ties away from zero', () => {
    fc.assert(
      fc.property(offer, fixed, pct, (o, f, p) => {
        assert.equal(markupOf(price({ ...o, rule: { fixed: f } })), f * o.quantity)
        const withPct = price({ ...o, rule: { percentage: p } })
        const scaled = BigInt(withPct.base.amount) * BigInt(Math.round(p * 100))
        const twiceError = abs(2n * (BigInt(markupOf(withPct)) * 10_000n - scaled))
        assert.ok(twiceError <= 10_000n, `${p} % of ${withPct.base.amount} → ${markupOf(withPct)}`)
        if (twiceError === 10_000n) assert.ok(BigInt(markupOf(withPct)) * 10_000n > scaled)
        // Both at once: the percentage part and the fixed part add up.
        assert.equal(markupOf(price({ ...o, rule: { percentage: p, fixed: f } })), markupOf(withPct) + f * o.quantity)
      }),
      runs(300),
    )
  })

  test('monotonic: a higher percentage, fixed amount, unit price or quantity never lowers the mark-up or the total', () => {
    fc.assert(
      fc.property(
        offer,
        pct,
        pct,
        fixed,
        fixed,
        fc.integer({ min: 0, max: 1e8 }),
        fc.integer({ min: 0, max: 8 }),
        (o, p1, p2, f1, f2, more, moreQ) => {
          const [plo, phi] = p1 <= p2 ? [p1, p2] : [p2, p1]
          const [flo, fhi] = f1 <= f2 ? [f1, f2] : [f2, f1]
          const pairs: Array<[Price, Price]> = [
            [
              price({ ...o, rule: { percentage: plo, fixed: flo } }),
              price({ ...o, rule: { percentage: phi, fixed: flo } }),
            ],
            [
              price({ ...o, rule: { percentage: plo, fixed: flo } }),
              price({ ...o, rule: { percentage: plo, fixed: fhi } }),
            ],
            [price(o), price({ ...o, unit: o.unit + more })],
            [price(o), price({ ...o, quantity: Math.min(9, o.quantity + moreQ) })],
            [price({ ...o, rule: undefined }), price(o)],
          ]
          for (const [lo, hi] of pairs) {
            assert.ok(markupOf(lo) <= markupOf(hi), `mark-up ${markupOf(lo)} > ${markupOf(hi)}`)
            assert.ok(lo.total.amount <= hi.total.amount, `total ${lo.total.amount} > ${hi.total.amount}`)
          }
        },
      ),
      runs(300),
    )
  })

  test('in one currency, quantity multiplies base and taxes exactly (no per-unit rounding to accumulate)', () => {
    fc.assert(
      fc.property(offer, (o) => {
        const p = price({ ...o, to: o.from })
        assert.equal(p.base.amount, o.unit * o.quantity)
        assert.deepEqual(
          p.taxes.map((t) => t.amount),
          o.taxes.map((t) => t.amount * o.quantity),
        )
      }),
      runs(200),
    )
  })

  test('a ticket price keeps base + markup = total, labelled "ticket"; exact in its own currency; an inconsistent one is refused', () => {
    fc.assert(
      fc.property(
        currency,
        currency,
        fc.integer({ min: 0, max: 1e12 }),
        fc.integer({ min: 0, max: 1e9 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 1000 }),
        (from, to, base, markup, index, off) => {
          const offered = {
            currency: from,
            decimal_places: decimalPlaces(from),
            base_price: base,
            markup,
            total: base + markup,
          }
          const p = ticketPrice(offered, to, index)
          assert.ok(isPriceConsistent(p))
          assert.deepEqual(
            p.markups.map((m) => m.markup_type),
            ['ticket'],
          )
          assert.equal(p.total.in_original_currency.amount, base + markup, 'the original total is the offered one')
          if (from === to)
            assert.deepEqual([p.base.amount, p.markups[0]!.amount, p.total.amount], [base, markup, base + markup])
          const bad = (o: object) => {
            try {
              ticketPrice({ ...offered, ...o }, to, index)
            } catch (e) {
              assert.ok(e instanceof ProblemError && e.code === 'validation_error')
              return e.errors?.map((x) => x.path) ?? []
            }
            return assert.fail(`${JSON.stringify(o)} was accepted`)
          }
          assert.deepEqual(bad({ total: base + markup + off }), [`/tickets/${index}/offered_price/total`])
          assert.deepEqual(
            bad({
              decimal_places:
                (decimalPlaces(from) + off) % 7 === decimalPlaces(from)
                  ? decimalPlaces(from) + 1
                  : (decimalPlaces(from) + off) % 7,
            }),
            [`/tickets/${index}/offered_price/decimal_places`],
          )
        },
      ),
      runs(300),
    )
  })
})

// ==================================================================== the basket

describe('basket rules', () => {
  type Line = { product_id: string; passenger_id: string; quantity: number }
  type Op = { kind: 'add'; lines: Line[] } | { kind: 'put'; lines: Line[] } | { kind: 'remove'; pick: number }

  let f: Awaited<ReturnType<typeof coreFixture>>
  let tripId: string
  /** Every product of the trip's search by id, and a pool to draw lines from (bags, extras, seats on two segments). */
  let products: Map<string, Product>
  let pool: Product[]
  let lapInfant: string

  const basket = () => f.api('getBasket', { params: { trip_id: tripId } })
  const itemsOf = (b: { basket: Record<string, BasketItem> }) => Object.values(b.basket)
  const extras = (b: { basket: Record<string, BasketItem> }) => itemsOf(b).filter((i) => i.product_type !== 'ticket')

  before(async () => {
    f = await coreFixture()
    const trip = await f.api('createTrip', {
      body: tripRequest(f.clock.now(), {
        markups: { bag: { percentage: 12.5 }, seat: { fixed: 150 }, default: { percentage: 3, fixed: 25 } },
        search: {
          bag: { search: true },
          seat: { search: true },
          priority_boarding: { search: true },
          automatic_check_in: { search: true },
        },
      }),
    })
    tripId = trip.trip_id
    lapInfant = trip.passengers.find((p) => p.on_lap_of)!.passenger_id
    const search = await f.api('getSearch', { params: { trip_id: tripId, search_id: trip.search_id! } })
    const all = Object.values(search.results.products).flatMap((byId) => Object.values(byId ?? {})) as Product[]
    products = new Map(all.map((p) => [p.product_id, p]))
    const seats = all.filter((p) => p.product_type === 'seat')
    const segments = [...new Set(seats.map((s) => s.product_details.segment_id))].slice(0, 2)
    pool = [
      ...all.filter((p) => p.product_type !== 'seat'),
      ...segments.flatMap((s) => seats.filter((p) => p.product_details.segment_id === s).slice(0, 4)),
    ]
    assert.ok(
      pool.some((p) => p.product_type === 'bag') && segments.length === 2,
      'the sandbox offers bags and seats on two segments',
    )
  })

  /**
   * A line of the pool, mostly for an adult and mostly one unit (so that many changes are accepted), now and
   * then for the lap infant, for several units, or naming no product or no passenger.
   */
  const line = (): fc.Arbitrary<Line> =>
    fc.record({
      product_id: fc.oneof(
        { weight: 20, arbitrary: fc.constantFrom(...pool.map((p) => p.product_id)) },
        { weight: 1, arbitrary: fc.constant('6f1d2b8e-0000-4000-8000-00000000dead') },
      ),
      passenger_id: fc.oneof(
        { weight: 16, arbitrary: fc.constantFrom('p1', 'p2') },
        { weight: 3, arbitrary: fc.constant(lapInfant) },
        { weight: 1, arbitrary: fc.constant('p9') },
      ),
      quantity: fc.oneof(
        { weight: 4, arbitrary: fc.constant(1) },
        { weight: 1, arbitrary: fc.integer({ min: 2, max: 4 }) },
      ),
    })
  const op = (): fc.Arbitrary<Op> =>
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.array(line(), { minLength: 1, maxLength: 2 }).map((lines) => ({ kind: 'add' as const, lines })),
      },
      { weight: 2, arbitrary: fc.array(line(), { maxLength: 3 }).map((lines) => ({ kind: 'put' as const, lines })) },
      { weight: 3, arbitrary: fc.nat().map((pick) => ({ kind: 'remove' as const, pick })) },
    )

  async function apply(o: Op): Promise<void> {
    if (o.kind === 'add') await f.api('addToBasket', { params: { trip_id: tripId }, body: o.lines })
    else if (o.kind === 'put') await f.api('replaceBasket', { params: { trip_id: tripId }, body: o.lines })
    else {
      // Any item, the ticket included (which may not be removed), or one that is not there.
      const ids = [...itemsOf(await basket()).map((i) => i.basket_item_id), '6f1d2b8e-0000-4000-8000-00000000beef']
      await f.api('removeFromBasket', { params: { trip_id: tripId, basket_item_id: ids[o.pick % ids.length]! } })
    }
  }

  /** Runs `o`; a refusal must be a 4xx problem that left the basket (and its hash) exactly as it was. */
  async function applyOrRefuse(o: Op): Promise<ProblemError | null> {
    const before = await basket()
    try {
      await apply(o)
      return null
    } catch (e) {
      assert.ok(e instanceof ProblemError, `${JSON.stringify(o)} failed with ${String(e)}`)
      assert.ok(e.status >= 400 && e.status < 500, `${JSON.stringify(o)}: ${e.code}`)
      assert.deepEqual(await basket(), before, `the refused ${JSON.stringify(o)} changed the basket`)
      return e
    }
  }

  const reset = () => f.api('replaceBasket', { params: { trip_id: tripId }, body: [] })
  const offerOf = (productId: string, passengerId: string) =>
    products.get(productId)!.price_and_availability[passengerId]

  /** What every basket must be, whatever led to it. */
  async function assertRules() {
    const b = await basket()
    const items = extras(b)
    const seen = new Set<string>()
    for (const item of items) {
      const passenger = item.product_details.passenger_id as string
      const offer = offerOf(item.product_id, passenger)
      assert.ok(products.has(item.product_id), "a product of the trip's search")
      assert.ok(offer?.available, `${item.display_name} for ${passenger} is not available to them`)
      assert.ok(
        item.quantity >= 1 && item.quantity <= offer.quantity_limit,
        `${item.display_name} ×${item.quantity} for ${passenger}, limit ${offer.quantity_limit}`,
      )
      const key = `${item.product_id}/${passenger}`
      assert.ok(
        !seen.has(key),
        `two lines of ${item.display_name} for ${passenger}: one line per product and passenger`,
      )
      seen.add(key)
      // Priced once for its quantity: the supplier original is the unit's times the quantity.
      assert.ok(isPriceConsistent(item.price))
      assert.equal(
        item.price.base.in_original_currency.amount,
        offer.price!.base.in_original_currency.amount * item.quantity,
      )
      assert.ok(
        item.price.total.amount >= item.price.base.amount + item.price.taxes.reduce((s, t) => s + t.amount, 0),
        'never below cost',
      )
    }
    const seats = items.filter((i) => i.product_type === 'seat')
    const perPassengerSegment = seats.map((s) => `${s.product_details.passenger_id}/${s.product_details.segment_id}`)
    assert.equal(new Set(perPassengerSegment).size, seats.length, 'one seat per passenger per segment')
    const perSeat = seats.map(
      (s) => `${s.product_details.segment_id}/${s.product_details.row}${s.product_details.column}`,
    )
    assert.equal(new Set(perSeat).size, seats.length, 'one passenger per seat')
    assert.ok(!seats.some((s) => s.product_details.passenger_id === lapInfant), 'no seat for a lap infant')
    // The ticket stays, and the tickets list exactly the basket's items.
    const tickets = itemsOf(b).filter((i) => i.product_type === 'ticket')
    assert.ok(tickets.length >= 1, 'the ticket is in the basket')
    const trip = await f.api('getTrip', { params: { trip_id: tripId } })
    const listed = trip.tickets.flatMap((t) => t.basket_item_ids).sort()
    assert.deepEqual(
      listed,
      Object.keys(b.basket).sort(),
      "the tickets' basket_item_ids are the basket's items, each once",
    )
    // The basket's total is the exact sum of its items' parts.
    const total = sumPrices(
      itemsOf(b).map((i) => i.price),
      trip.currency,
    )
    const parts = itemsOf(b).reduce(
      (s, i) =>
        s +
        i.price.base.amount +
        i.price.markups.reduce((x, m) => x + m.amount, 0) +
        i.price.taxes.reduce((x, t) => x + t.amount, 0),
      0,
    )
    assert.equal(total.amount, parts)
  }

  /** Quantities by product and passenger: what a basket holds, or what lines ask for. */
  const holding = (entries: Array<{ product_id: string; passenger_id: string; quantity: number }>) => {
    const out = new Map<string, number>()
    for (const e of entries)
      out.set(`${e.product_id}/${e.passenger_id}`, (out.get(`${e.product_id}/${e.passenger_id}`) ?? 0) + e.quantity)
    return out
  }
  const held = (b: { basket: Record<string, BasketItem> }) =>
    holding(
      extras(b).map((i) => ({
        product_id: i.product_id,
        passenger_id: i.product_details.passenger_id as string,
        quantity: i.quantity,
      })),
    )

  /** An accepted change did all it was asked, and nothing else. */
  function assertDone(o: Op, before: Awaited<ReturnType<typeof basket>>, after: Awaited<ReturnType<typeof basket>>) {
    if (o.kind === 'put') {
      assert.deepEqual(held(after), holding(o.lines), 'PUT: the basket holds exactly the lines')
      return
    }
    if (o.kind === 'add') {
      const expected = held(before)
      for (const [k, q] of holding(o.lines)) expected.set(k, (expected.get(k) ?? 0) + q)
      assert.deepEqual(held(after), expected, 'PATCH: every line added, nothing else changed')
      for (const item of extras(before)) {
        const touched = o.lines.some(
          (l) => l.product_id === item.product_id && l.passenger_id === item.product_details.passenger_id,
        )
        if (!touched) assert.deepEqual(after.basket[item.basket_item_id], item, 'an item no line named is untouched')
      }
      return
    }
    const gone = Object.keys(before.basket).filter((id) => !after.basket[id])
    assert.equal(gone.length, 1, 'DELETE: one item removed')
    assert.deepEqual(
      after.basket,
      Object.fromEntries(Object.entries(before.basket).filter(([id]) => id !== gone[0])),
      'DELETE: the others untouched',
    )
  }

  test('after any sequence of adds, replaces and removals every rule holds; each change is all done or, refused, not at all', async () => {
    let accepted = 0
    let refusedCount = 0
    await fc.assert(
      fc.asyncProperty(fc.array(op(), { minLength: 1, maxLength: 8 }), async (ops) => {
        await reset()
        for (const o of ops) {
          const before = await basket()
          const refusal = await applyOrRefuse(o)
          if (refusal) refusedCount++
          else {
            accepted++
            assertDone(o, before, await basket())
          }
          await assertRules()
        }
      }),
      runs(100),
    )
    // Both branches were exercised, or the property proves little.
    assert.ok(accepted > 60 && refusedCount > 60, `accepted ${accepted}, refused ${refusedCount}`)
  })

  test('adding a new line then removing it gives back the same basket and the same state hash', async () => {
    let checked = 0
    await fc.assert(
      fc.asyncProperty(fc.array(line(), { maxLength: 4 }), line(), async (start, extra) => {
        await reset()
        await applyOrRefuse({ kind: 'put', lines: start })
        const before = await basket()
        fc.pre(
          !extras(before).some(
            (i) => i.product_id === extra.product_id && i.product_details.passenger_id === extra.passenger_id,
          ),
        )
        if (await applyOrRefuse({ kind: 'add', lines: [extra] })) return
        const added = extras(await basket()).filter((i) => !before.basket[i.basket_item_id])
        assert.equal(added.length, 1, 'one new item')
        await f.api('removeFromBasket', { params: { trip_id: tripId, basket_item_id: added[0]!.basket_item_id } })
        assert.deepEqual(await basket(), before)
        checked++
      }),
      runs(80),
    )
    assert.ok(checked > 25, `only ${checked} cases reached the removal`)
  })

  test('an available offer takes exactly up to its limit per passenger, and another passenger has their own limit', async () => {
    const available = () =>
      pool.flatMap((p) =>
        ['p1', 'p2', lapInfant].filter((x) => p.price_and_availability[x]?.available).map((x) => ({ p, x })),
      )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...available()),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        async ({ p, x }, q, q2) => {
          await reset()
          const limit = p.price_and_availability[x]!.quantity_limit
          const refusal = await applyOrRefuse({
            kind: 'add',
            lines: [{ product_id: p.product_id, passenger_id: x, quantity: q }],
          })
          if (q <= limit)
            assert.equal(
              refusal,
              null,
              `${p.display_name} ×${q} for ${x} (limit ${limit}) was refused: ${refusal?.message}`,
            )
          else assert.equal(refusal?.code, 'basket_rule_violation', `${p.display_name} ×${q} for ${x} (limit ${limit})`)
          // Another passenger's limit is their own, whatever this one holds (seats aside: one passenger per seat).
          const other = ['p1', 'p2'].find((y) => y !== x && p.price_and_availability[y]?.available)
          if (!other || p.product_type === 'seat') return
          const otherLimit = p.price_and_availability[other]!.quantity_limit
          const second = await applyOrRefuse({
            kind: 'add',
            lines: [{ product_id: p.product_id, passenger_id: other, quantity: q2 }],
          })
          assert.equal(
            second === null,
            q2 <= otherLimit,
            `${p.display_name} ×${q2} for ${other} (limit ${otherLimit}): ${second?.message}`,
          )
        },
      ),
      runs(80),
    )
  })

  test('two adds of a line equal one add of their sum: same quantity, same price (rounded once), refused past the limit', async () => {
    const bags = pool.filter((p) => p.product_type !== 'seat')
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...bags),
        fc.constantFrom('p1', 'p2'),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        async (p, x, q1, q2) => {
          const offer = p.price_and_availability[x]
          fc.pre(!!offer?.available)
          const add = (q: number) =>
            applyOrRefuse({ kind: 'add', lines: [{ product_id: p.product_id, passenger_id: x, quantity: q }] })
          await reset()
          fc.pre((await add(q1)) === null)
          const split = await add(q2)
          const twice = extras(await basket())
          await reset()
          const once = await add(q1 + q2)
          assert.equal(split === null, once === null, 'both ways accepted, or both refused')
          if (once) {
            assert.ok(q1 + q2 > offer!.quantity_limit)
            return
          }
          const single = extras(await basket())
          assert.deepEqual(
            twice.map((i) => [i.quantity, i.price]),
            single.map((i) => [i.quantity, i.price]),
          )
        },
      ),
      runs(60),
    )
  })

  test('PUT is idempotent in content, and equals emptying the basket then adding the same lines', async () => {
    const content = (b: { basket: Record<string, BasketItem> }) =>
      extras(b)
        .map(({ basket_item_id: _id, ...rest }) => rest)
        .sort((a, c) =>
          `${a.product_id}${a.product_details.passenger_id}`.localeCompare(
            `${c.product_id}${c.product_details.passenger_id}`,
          ),
        )
    await fc.assert(
      fc.asyncProperty(fc.array(line(), { maxLength: 4 }), fc.array(line(), { maxLength: 3 }), async (start, lines) => {
        await reset()
        await applyOrRefuse({ kind: 'put', lines: start })
        const first = await applyOrRefuse({ kind: 'put', lines })
        const once = content(await basket())
        const second = await applyOrRefuse({ kind: 'put', lines })
        assert.equal(first?.code, second?.code, 'the same PUT is accepted or refused alike')
        assert.deepEqual(content(await basket()), once)
        if (first || lines.length === 0) return
        await reset()
        await applyOrRefuse({ kind: 'add', lines })
        assert.deepEqual(content(await basket()), once)
      }),
      runs(80),
    )
  })

  test('seats: a passenger holds one per segment, a seat holds one passenger, a lap infant holds none', async () => {
    const seats = pool.filter((p) => p.product_type === 'seat')
    const adults = fc.constantFrom('p1', 'p2')
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...seats), fc.constantFrom(...seats), adults, adults, async (s1, s2, a, b) => {
        await reset()
        assert.equal(
          await applyOrRefuse({ kind: 'add', lines: [{ product_id: s1.product_id, passenger_id: a, quantity: 1 }] }),
          null,
        )
        const refusal = await applyOrRefuse({
          kind: 'add',
          lines: [{ product_id: s2.product_id, passenger_id: b, quantity: 1 }],
        })
        const sameSeat = s1.product_id === s2.product_id
        const sameSegment = s1.product_details.segment_id === s2.product_details.segment_id
        const forbidden = sameSeat || (a === b && sameSegment)
        assert.equal(
          refusal?.code,
          forbidden ? 'basket_rule_violation' : undefined,
          `${s1.display_name}/${a} then ${s2.display_name}/${b}`,
        )
        const infant = await applyOrRefuse({
          kind: 'add',
          lines: [{ product_id: s2.product_id, passenger_id: lapInfant, quantity: 1 }],
        })
        assert.equal(infant?.code, 'basket_rule_violation')
      }),
      runs(80),
    )
  })

  test('a lap infant gets only what is offered to them: anything else is a rule violation, naming the passenger', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pool), fc.integer({ min: 1, max: 2 }), async (p, q) => {
        await reset()
        const offer = p.price_and_availability[lapInfant]
        const refusal = await applyOrRefuse({
          kind: 'add',
          lines: [{ product_id: p.product_id, passenger_id: lapInfant, quantity: q }],
        })
        if (offer?.available && q <= offer.quantity_limit) {
          assert.equal(refusal, null)
        } else if (offer?.reason === 'lap_infant' || p.product_type === 'seat') {
          assert.equal(refusal?.code, 'basket_rule_violation', `${p.display_name}`)
          assert.deepEqual(
            refusal?.errors?.map((e) => e.path),
            ['/0/passenger_id'],
          )
        } else {
          assert.ok(refusal, `${p.display_name} (${offer?.reason}) was accepted for the lap infant`)
        }
      }),
      runs(60),
    )
  })
})
