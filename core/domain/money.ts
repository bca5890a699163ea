/**
 * Money arithmetic. Amounts are integers in minor units; every rate and percentage is parsed from its
 * decimal text into an exact integer ratio and the products are taken in BigInt, so the only inexact
 * step is the one rounding (half away from zero) at the end of each computation.
 * Pure TS, no Node APIs: the browser sandbox prices with the same code as the server.
 */
import type { Money, OriginalMoney } from '../schemas/common.ts'
import { ProblemError } from '../shared/errors.ts'
import { EXCHANGE_RATES, MINOR_UNITS, type RateTable, type SupportedCurrency } from './data/exchange-rates.ts'

/** Largest magnitude of an amount, as the MinorUnits schema allows; sums of such stay exact in a number. */
export const MAX_MINOR_UNITS = 2 ** 50
const MAX = BigInt(MAX_MINOR_UNITS)

export interface Ratio {
  num: bigint
  den: bigint
}

const invalidValue = (detail: string) => new ProblemError('validation_error', detail)

/** `"1.0832"` → 10832/10000 exactly. Rejects exponents and more than `maxDecimals` digits after the point. */
export function parseDecimal(text: string, maxDecimals = Infinity): Ratio {
  const m = /^(-?\d+)(?:\.(\d+))?$/.exec(text)
  const frac = m?.[2] ?? ''
  if (!m || frac.length > maxDecimals) {
    throw invalidValue(`"${text}" is not a decimal number with at most ${maxDecimals} decimal places`)
  }
  return { num: BigInt(m[1] + frac), den: 10n ** BigInt(frac.length) }
}

/** num/den rounded to an integer, ties away from zero (2.5 → 3, -2.5 → -3). */
export function roundHalfAwayFromZero(num: bigint, den: bigint): bigint {
  if (den === 0n) throw new RangeError('division by zero')
  if (den < 0n) {
    num = -num
    den = -den
  }
  const q = num / den // BigInt division truncates toward zero
  const r = num % den // and the remainder takes the sign of num
  return 2n * (r < 0n ? -r : r) >= den ? q + (num < 0n ? -1n : 1n) : q
}

/** A number amount as BigInt, refusing fractions and anything a double cannot hold exactly. */
export function toBig(amount: number, what = 'amount'): bigint {
  if (!Number.isSafeInteger(amount)) throw invalidValue(`${what} must be an integer in minor units, got ${amount}`)
  return BigInt(amount)
}

/** Back to a number, refusing results outside the ±2^50 the schemas allow. */
export function toMinorUnits(amount: bigint): number {
  if (amount > MAX || amount < -MAX)
    throw invalidValue(`The amount ${amount} is outside the supported range of ±2^50 minor units.`)
  return Number(amount)
}

export function isSupportedCurrency(code: string): boolean {
  return Object.hasOwn(EXCHANGE_RATES, code)
}

/** The currencies the service prices in, as a refusal lists them. */
export const SUPPORTED_CURRENCIES: readonly string[] = Object.keys(EXCHANGE_RATES).sort()

/** ISO 4217 minor units (JPY 0, EUR 2, KWD 3); only table currencies are accepted. */
export function decimalPlaces(currency: string): number {
  if (!isSupportedCurrency(currency)) throw invalidValue(`The currency ${currency} is not supported.`)
  return MINOR_UNITS[currency as SupportedCurrency]
}

/** Throws unless `m` is an integer amount in a supported currency with that currency's decimal places. */
export function checkOriginal(m: OriginalMoney): bigint {
  const places = decimalPlaces(m.currency)
  if (m.decimal_places !== places) {
    throw invalidValue(`decimal_places ${m.decimal_places} contradicts ${m.currency}, which has ${places}.`)
  }
  return toBig(m.amount)
}

const rateCache = new Map<string, Ratio>()

function rateOf(currency: string, rates: RateTable): Ratio {
  const text = Object.hasOwn(rates, currency) ? rates[currency] : undefined
  if (text === undefined) throw invalidValue(`The currency ${currency} is not supported.`)
  let rate = rateCache.get(text)
  if (!rate) {
    rate = parseDecimal(text)
    if (rate.num <= 0n) throw new RangeError(`exchange rate of ${currency} must be positive`)
    rateCache.set(text, rate)
  }
  return rate
}

/**
 * `amount` in `to`'s minor units, rounded once. With rates quoted per EUR:
 * minor_to = minor_from × rate_to × 10^places_to / (rate_from × 10^places_from).
 * `rates` is replaceable for tests; the service always uses its table.
 */
export function convert(amount: OriginalMoney, to: string, rates: RateTable = EXCHANGE_RATES): number {
  const a = checkOriginal(amount)
  const toPlaces = decimalPlaces(to)
  if (amount.currency === to) return amount.amount
  const from = rateOf(amount.currency, rates)
  const target = rateOf(to, rates)
  const num = a * target.num * from.den * 10n ** BigInt(toPlaces)
  const den = target.den * from.num * 10n ** BigInt(amount.decimal_places)
  return toMinorUnits(roundHalfAwayFromZero(num, den))
}

/** `percentage` % of `amount` (12.5 means 12.5 %), rounded once. At most two decimals, as MarkupRule allows. */
export function applyPercentage(amount: number, percentage: number): number {
  if (!Number.isFinite(percentage)) throw invalidValue(`The percentage ${percentage} is not a number.`)
  // String() gives the shortest text that round-trips, so 12.35 parses as 1235/100, not 12.3499999...
  const p = parseDecimal(String(percentage), 2)
  return toMinorUnits(roundHalfAwayFromZero(toBig(amount) * p.num, p.den * 100n))
}

/** An original money value in `currency`, with its decimal places filled in. */
export function originalOf(amount: number, currency: string): OriginalMoney {
  return { amount, currency, decimal_places: decimalPlaces(currency) }
}

/** A Money of the API: the trip-currency amount plus where it came from. */
export function money(amountInTrip: number, tripCurrency: string, original: OriginalMoney): Money {
  toBig(amountInTrip)
  return { ...originalOf(amountInTrip, tripCurrency), in_original_currency: { ...original } }
}

/** A Money whose origin is the trip currency itself (mark-ups, totals of mixed origin). */
export function tripMoney(amount: number, tripCurrency: string): Money {
  return money(amount, tripCurrency, originalOf(amount, tripCurrency))
}

/** A supplier amount converted to the trip currency, keeping the original. */
export function convertMoney(original: OriginalMoney, tripCurrency: string, rates: RateTable = EXCHANGE_RATES): Money {
  return money(convert(original, tripCurrency, rates), tripCurrency, original)
}
