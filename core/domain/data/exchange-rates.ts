/**
 * The service's exchange-rate table: units of each currency per 1 EUR, as decimal strings so that
 * core/domain/money.ts can parse them into exact integer ratios (a JS number could not hold 1.0832 exactly).
 *
 * A fixed snapshot, not a live feed: every conversion of the service (server and browser sandbox alike)
 * uses the same numbers, so a price computed twice is the same price. The values are indicative
 * mid-market rates as of RATES_AS_OF (ECB reference rates where the ECB publishes one; pegged Gulf and
 * Jordanian currencies derived from their USD peg). Updating the table changes future prices only;
 * stored prices keep the amounts they were computed with, and `in_original_currency` keeps the supplier's.
 */

/** Date the rates below were taken (YYYY-MM-DD). */
export const RATES_AS_OF = '2025-06-30'

/** The currency every rate is quoted against. */
export const RATES_BASE = 'EUR'

export type RateTable = Readonly<Record<string, string>>

export const EXCHANGE_RATES = {
  EUR: '1',
  // Europe
  GBP: '0.8555',
  CHF: '0.9347',
  SEK: '11.1465',
  NOK: '11.8345',
  DKK: '7.4609',
  PLN: '4.2423',
  CZK: '24.748',
  HUF: '399.83',
  ISK: '142.60',
  TRY: '46.6510',
  // Americas
  USD: '1.1720',
  CAD: '1.6027',
  MXN: '22.0899',
  BRL: '6.4384',
  CLP: '1094.50',
  // Asia-Pacific
  JPY: '169.17',
  KRW: '1588.19',
  CNY: '8.3970',
  HKD: '9.2001',
  SGD: '1.4941',
  INR: '100.5605',
  THB: '38.142',
  AUD: '1.7948',
  NZD: '1.9331',
  // Africa and the Middle East
  ZAR: '20.7978',
  AED: '4.3042',
  SAR: '4.3950',
  QAR: '4.2661',
  KWD: '0.3583',
  BHD: '0.4407',
  OMR: '0.4506',
  JOD: '0.8310',
} as const satisfies RateTable

export type SupportedCurrency = keyof typeof EXCHANGE_RATES

/**
 * ISO 4217 minor units of every table currency. Kept as data rather than read from Intl: engines disagree
 * (Node 20's ICU reports 0 for HUF, ISO 4217 says 2), and the server and the browser sandbox must agree.
 */
export const MINOR_UNITS: Readonly<Record<SupportedCurrency, number>> = {
  EUR: 2,
  GBP: 2,
  CHF: 2,
  SEK: 2,
  NOK: 2,
  DKK: 2,
  PLN: 2,
  CZK: 2,
  HUF: 2,
  ISK: 0,
  TRY: 2,
  USD: 2,
  CAD: 2,
  MXN: 2,
  BRL: 2,
  CLP: 0,
  JPY: 0,
  KRW: 0,
  CNY: 2,
  HKD: 2,
  SGD: 2,
  INR: 2,
  THB: 2,
  AUD: 2,
  NZD: 2,
  ZAR: 2,
  AED: 2,
  SAR: 2,
  QAR: 2,
  KWD: 3,
  BHD: 3,
  OMR: 3,
  JOD: 3,
}
