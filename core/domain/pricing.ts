/**
 * Prices of the API: base, mark-ups, taxes and fees in the trip currency, each rounded once, and a total
 * that is their exact integer sum (so a client adding the parts always gets the total).
 */
import type { Money, OriginalMoney, Price } from '../schemas/common.ts'
import type { MarkupConfig, MarkupRule, ProductTypeName } from '../schemas/trip.ts'
import type { SupplierTax } from '../ports/supplier-answers.ts'
import { ProblemError, invalid } from '../shared/errors.ts'
import {
  applyPercentage,
  convertMoney,
  decimalPlaces,
  isSupportedCurrency,
  money,
  toBig,
  toMinorUnits,
  tripMoney,
} from './money.ts'

export interface OfferPricing {
  /** Supplier price of one unit, before taxes, in the airline's currency. */
  unitBase: OriginalMoney
  /** Per-unit taxes in unitBase's currency. */
  taxes: SupplierTax[]
  quantity: number
  tripCurrency: string
  markup: MarkupRule | undefined
  /** Product type the mark-up entry is labelled with, e.g. `bag`. */
  markupType: string
  /** The basket item's own mark-up per unit (checkItemMarkup), listed after the type's as `markup_type: "item"`. */
  itemMarkup?: OriginalMoney | undefined
}

/** The product type's rule, else the `default` rule, else none. */
export function markupRuleFor(config: MarkupConfig | undefined, productType: ProductTypeName): MarkupRule | undefined {
  return config?.[productType] ?? config?.default
}

/**
 * Price of `quantity` units of a supplier offer. Base and each tax are converted after multiplying by the
 * quantity, so each is rounded once (three bags cost convert(3 × unit), not 3 × convert(unit)).
 * The mark-up is `percentage` of the converted base plus `fixed` per unit, both in the trip currency; an
 * item's own mark-up is one more `fixed` per unit, in an entry of its own after the type's.
 * A mark-up entry appears exactly when a rule applies, even if it comes to 0, so the seller can see the
 * rule was applied; with no rule, `markups` is empty.
 */
export function priceOffer(o: OfferPricing): Price {
  if (!Number.isSafeInteger(o.quantity) || o.quantity < 1) {
    throw new ProblemError('validation_error', `The quantity must be a positive integer, got ${o.quantity}.`)
  }
  const q = BigInt(o.quantity)
  const timesQuantity = (amount: number): OriginalMoney => ({ ...o.unitBase, amount: toMinorUnits(toBig(amount) * q) })
  const base = convertMoney(timesQuantity(o.unitBase.amount), o.tripCurrency)
  const taxes = o.taxes.map((t) => ({ ...convertMoney(timesQuantity(t.amount), o.tripCurrency), tax_type: t.tax_type }))
  const markups: Price['markups'] = []
  if (o.markup)
    markups.push({ ...tripMoney(markupAmount(base.amount, o.markup, q), o.tripCurrency), markup_type: o.markupType })
  if (o.itemMarkup) {
    // checkItemMarkup refused any other currency with the request: this is a bug, not the seller's mistake.
    if (o.itemMarkup.currency !== o.tripCurrency) {
      throw new ProblemError(
        'internal',
        `A ${o.itemMarkup.currency} item mark-up cannot price a ${o.tripCurrency} trip.`,
      )
    }
    markups.push({
      ...tripMoney(markupAmount(base.amount, { fixed: o.itemMarkup.amount }, q), o.tripCurrency),
      markup_type: 'item',
    })
  }
  return assemble(base, markups, taxes)
}

/**
 * A basket line's mark-up must be in the trip's currency, with that currency's decimal places: the
 * seller states the unit so that 250 is never taken for 2.50 EUR when 250 JPY was meant. `at` is the
 * line's `/N/markup`, so the error names the field.
 */
export function checkItemMarkup(m: OriginalMoney, tripCurrency: string, at: string): void {
  if (m.currency !== tripCurrency) throw invalid(`${at}/currency`, `must be the trip's currency, ${tripCurrency}`)
  const places = decimalPlaces(tripCurrency)
  if (m.decimal_places !== places) throw invalid(`${at}/decimal_places`, `must be ${places} for ${tripCurrency}`)
}

function markupAmount(base: number, rule: MarkupRule, quantity: bigint): number {
  const percent = rule.percentage === undefined ? 0 : applyPercentage(base, rule.percentage)
  return toMinorUnits(BigInt(percent) + toBig(rule.fixed ?? 0, 'fixed') * quantity)
}

export interface OfferedPrice {
  currency: string
  decimal_places: number
  base_price: number
  markup: number
  total: number
}

/**
 * A ticket's price from the seller's `offered_price`, checked and converted to the trip currency.
 * `index` is the ticket's position in the create request, so errors name `/tickets/N/offered_price/...`.
 * The ticket's own mark-up is always listed (`markup_type: "ticket"`), since the request always states it.
 */
export function ticketPrice(offered: OfferedPrice, tripCurrency: string, index = 0): Price {
  const at = `/tickets/${index}/offered_price`
  const { currency } = offered
  if (!isSupportedCurrency(currency)) throw invalid(`${at}/currency`, `currency ${currency} is not supported`)
  const places = decimalPlaces(currency)
  if (offered.decimal_places !== places) throw invalid(`${at}/decimal_places`, `must be ${places} for ${currency}`)
  const sum = toBig(offered.base_price, 'base_price') + toBig(offered.markup, 'markup')
  if (sum !== toBig(offered.total, 'total')) {
    throw invalid(`${at}/total`, `must equal base_price + markup (${sum}), got ${offered.total}`)
  }
  const original = (amount: number): OriginalMoney => ({ amount, currency, decimal_places: places })
  const base = convertMoney(original(offered.base_price), tripCurrency)
  const markup = { ...convertMoney(original(offered.markup), tripCurrency), markup_type: 'ticket' }
  return assemble(base, [markup], [])
}

/** The total of a basket (or any set of prices), in the trip currency. */
export function sumPrices(prices: Price[], tripCurrency: string): Money {
  for (const p of prices) {
    if (p.total.currency !== tripCurrency) {
      throw new ProblemError('internal', `A ${p.total.currency} price cannot be added to a ${tripCurrency} total.`)
    }
  }
  return totalOf(
    prices.map((p) => p.total),
    tripCurrency,
  )
}

/** True when every amount is an integer in one currency and total = base + Σmarkups + Σtaxes + Σfees. */
export function isPriceConsistent(price: Price): boolean {
  const parts: Money[] = [price.base, ...price.markups, ...price.taxes, ...price.fees]
  const { currency, decimal_places } = price.total
  const wellFormed = [...parts, price.total].every(
    (m) =>
      Number.isSafeInteger(m.amount) &&
      Number.isSafeInteger(m.in_original_currency.amount) &&
      m.currency === currency &&
      m.decimal_places === decimal_places,
  )
  return wellFormed && parts.reduce((s, m) => s + BigInt(m.amount), 0n) === BigInt(price.total.amount)
}

function assemble(base: Money, markups: Price['markups'], taxes: Price['taxes']): Price {
  const fees: Price['fees'] = [] // no component of the service charges fees yet
  return { base, total: totalOf([base, ...markups, ...taxes, ...fees], base.currency), markups, taxes, fees }
}

/**
 * The exact sum of `parts`. Its `in_original_currency` is the sum of the parts' originals when they all
 * share one currency (a ticket; an offer with no cross-currency mark-up), which is then exact too; when
 * origins differ there is no single original, and it repeats the trip-currency total.
 */
function totalOf(parts: Money[], tripCurrency: string): Money {
  const amount = toMinorUnits(parts.reduce((s, m) => s + BigInt(m.amount), 0n))
  const first = parts[0]?.in_original_currency
  if (!first || parts.some((m) => m.in_original_currency.currency !== first.currency))
    return tripMoney(amount, tripCurrency)
  const original = toMinorUnits(parts.reduce((s, m) => s + BigInt(m.in_original_currency.amount), 0n))
  return money(amount, tripCurrency, { ...first, amount: original })
}
