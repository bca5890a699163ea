/**
 * SkyShop's own backend: what an airline-ticket seller runs beside its checkout page. It holds the API key
 * and talks to the public API over HTTP like any seller would (nothing here imports the service's code);
 * the page only ever gets a trip id and short-lived access tokens.
 *
 * A Fastify plugin: the page at `/`, its files under `/demo/`, its JSON under `/demo/api/`:
 *
 *   POST   /demo/api/checkout                       {scenario} → a new trip: {trip, trip_access_token}
 *   POST   /demo/api/checkout/:tripId/token         a fresh access token (for the SDK's getAccessToken)
 *   PATCH  /demo/api/checkout/:tripId/passengers    the traveller form, checked here, then PATCH /v2.2/trip
 *   POST   /demo/api/checkout/:tripId/pay           check the basket, charge, fulfill (see `pay`)
 *   POST   /demo/api/checkout/:tripId/accept/:item  take an item's new price
 *   DELETE /demo/api/checkout/:tripId/item/:item    remove an item
 *   GET    /demo/api/checkout/:tripId/status        the trip as the API has it: tickets, orders, basket
 *
 * Managing the booking afterwards (the after-sale):
 *
 *   POST   /demo/api/checkout/:tripId/cancellation          {basket_item_ids} → the airline's refund quote (to_cancel)
 *   POST   /demo/api/checkout/:tripId/cancellation/confirm  {expected} → confirms the quote the traveller saw
 *   POST   /demo/api/checkout/:tripId/extras/pay            check, charge and fulfill the extras added after booking
 *
 * Each checkout belongs to the browser that started it (an HttpOnly cookie); its refresh token stays in
 * this process's memory. API refusals reach the page as the API's problem+json, with their codes.
 */
import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

export interface SellerCheckoutOptions {
  /** Where the API is, e.g. `http://127.0.0.1:3000`; a function when it is known only once the server listens. */
  apiBaseUrl: string | (() => string | undefined)
  /** The seller's API key; a function when it is known only later. It never leaves this backend. */
  apiKey: string | (() => string | undefined)
  /** How long `pay` waits for the airline's basket check (default 30 s). */
  checkTimeoutMs?: number
}

export const SCENARIOS = {
  normal: '117',
  price_change: '9001',
  unavailable: '9002',
  slow_check: '9004',
  fulfillment_fails: '9003',
  cancellation_refused: '9005',
} as const
export type Scenario = keyof typeof SCENARIOS

interface Problem {
  status: number
  code: string
  title?: string
  detail: string
  errors?: Array<{ path: string; message: string }>
  [k: string]: unknown
}

/** A refusal to send as problem+json: the API's own, passed through, or one of ours. */
class ProblemResponse extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail)
  }
}
/** The shop's own refusals: `about:blank` (RFC 9457's type for a problem that needs no page), its `code` says which. */
const problem = (status: number, code: string, detail: string, errors?: Problem['errors']) =>
  new ProblemResponse({ type: 'about:blank', status, code, title: detail, detail, ...(errors ? { errors } : {}) })

type Money = { amount: number; currency: string; decimal_places: number }
type Validity = { status: string; valid_from: string; valid_to: string; reason?: string; previous_price?: unknown }
interface BasketItem {
  basket_item_id: string
  display_name: string
  product_type: string
  product_details: Record<string, unknown>
  price: { total: Money }
  validity: Validity
  /** Set once a fulfill ordered the item: it is bought, read-only, and only a cancellation undoes it. */
  order_id?: string
  order_status?: string
}
type Basket = Record<string, BasketItem>
interface QuoteItem {
  basket_item_id: string
  order_id: string
  display_name: string
  cancellable: boolean
  refund: Money | null
  reason?: string
}
interface Quote {
  to_cancel: Record<string, QuoteItem>
  quote_expires_at: string | null
}
interface Passenger {
  passenger_id: string
  type: string
  on_lap_of: string | null
  first_names: string | null
  surname: string | null
  date_of_birth: string | null
}
interface Segment {
  departure_time: string
}
interface Trip {
  trip_id: string
  trip_state_hash: string
  trip_access_token?: string
  refresh_token?: string
  journeys: Array<{ journey_id: string; segments: Segment[] }>
  passengers: Passenger[]
  tickets: Array<{ ticket_id: string; status: string }>
  contact_details: { contact_details_type?: string; email?: string; phone_number?: string | null }
  basket: Basket
  orders: Record<
    string,
    {
      status: string
      basket_item_id: string
      display_name: string
      refund?: Money
      cancellation_failure_reason?: string
    }
  >
}

/** What this backend remembers about one checkout. */
interface Checkout {
  owner: string
  tripId: string
  scenario: Scenario
  refreshToken: string
  /** One refresh at a time: presenting a spent refresh token twice would revoke the whole session. */
  refreshing: Promise<string> | null
  /** The fake card payment: taken before fulfillment, given back when fulfillment is refused. */
  payment: (Payment & { record_locator: string }) | null
  /** The payments for extras added after booking, each for the items it bought, in order. */
  extraPayments: Array<Payment & { basket_item_ids: string[] }>
  /** One payment at a time (the booking, or new extras): two tabs paying at once would charge twice for one order. */
  paying: boolean
}
interface Payment {
  reference: string
  amount: number
  currency: string
  decimal_places: number
  status: 'captured' | 'refunded'
}

const COOKIE = 'skyshop_session'
const MAX_CHECKOUTS = 1000
const PUBLIC_DIR = join(import.meta.dirname, 'public')

/** The repository's dist/, found from here upwards: this file runs from examples/seller-checkout (tsx) or dist/node/examples/seller-checkout (compiled). */
function distDir(): string {
  for (let dir = import.meta.dirname; dirname(dir) !== dir; dir = dirname(dir))
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist')
  return join(import.meta.dirname, '..', '..', 'dist')
}

/** The page's script, built from ./app/ by `npm run build` (rollup.config.mjs), which `npm start` runs when it is missing. */
const APP_DIR = join(distDir(), 'seller-checkout')
const ASSETS: Record<string, { type: string; dir: string }> = {
  'app.js': { type: 'text/javascript; charset=utf-8', dir: APP_DIR },
  'app.js.map': { type: 'application/json; charset=utf-8', dir: APP_DIR },
  'styles.css': { type: 'text/css; charset=utf-8', dir: PUBLIC_DIR },
  'favicon.svg': { type: 'image/svg+xml', dir: PUBLIC_DIR },
}
/** The page runs the SDK under a strict policy: no inline script or style, nothing from elsewhere. */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The itinerary the traveller picked on SkyShop: London → New York and back with British Airways, two adults and a lap infant. */
function tripRequest(scenario: Scenario) {
  const out = day(30)
  const back = day(37)
  const segment = (from: string, to: string, dep: string, arr: string, flight: string) => ({
    departure_airport: from,
    arrival_airport: to,
    departure_time: dep,
    arrival_time: arr,
    fare_basis: 'YLOWGB',
    fare_class: 'Y',
    fare_family: 'standard',
    marketing_airline: 'BA',
    marketing_flight_number: flight,
  })
  return {
    language: 'en-GB',
    currency: 'GBP',
    country: 'GB',
    search: {
      bag: { search: true },
      seat: { search: true },
      priority_boarding: { search: true },
      automatic_check_in: { search: true },
      fare_family_upsell: { search: true },
    },
    markups: { bag: { percentage: 10 }, seat: { fixed: 150 } },
    tickets: [
      {
        status: 'offered',
        offered_price: { currency: 'GBP', decimal_places: 2, base_price: 118000, markup: 4500, total: 122500 },
        journeys: [
          // The scenario's flight number is the outbound one: the sandbox airline acts on its items.
          { segments: [segment('LHR', 'JFK', `${out}T09:30:00+00:00`, `${out}T12:45:00-05:00`, SCENARIOS[scenario])] },
          { segments: [segment('JFK', 'LHR', `${back}T18:30:00-05:00`, `${day(38)}T06:35:00+00:00`, '112')] },
        ],
        metadata: { order_ref: `SKY-${randomBytes(4).toString('hex').toUpperCase()}` },
      },
    ],
    passengers: [
      { passenger_id: 'p1', passenger_type: 'adult' },
      { passenger_id: 'p2', passenger_type: 'adult' },
      { passenger_id: 'p3', passenger_type: 'infant', on_lap_of: 'p1' },
    ],
  }
}

// ---------------------------------------------------------------- the traveller form

const NAME = /^\p{L}[\p{L}\p{M}' .-]{0,49}$/u
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const PHONE = /^\+?[0-9 ()-]{6,20}$/

/** Age in whole years on `on` (YYYY-MM-DD strings); 29 February birthdays count on 1 March. */
export function ageOn(birth: string, on: string): number {
  const [by, bm, bd] = birth.split('-').map(Number) as [number, number, number]
  const [y, m, d] = on.split('-').map(Number) as [number, number, number]
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0)
}

const isDate = (v: unknown): v is string =>
  typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) === v

interface TravellerForm {
  passengers: Array<{ passenger_id: string; first_names: string; surname: string; date_of_birth: string }>
  contact: { email: string; phone: string }
}

/**
 * The same rules as the page's, because a backend never trusts a form: names as on the passport, adults
 * 12 or over on the day they fly out, a lap infant under 2 on the day they fly back, a reachable contact.
 */
export function checkTravellerForm(
  body: unknown,
  trip: Pick<Trip, 'passengers' | 'journeys'>,
  today = day(0),
): TravellerForm {
  const errors: Array<{ path: string; message: string }> = []
  const b = (body ?? {}) as { passengers?: unknown; contact?: { email?: unknown; phone?: unknown } }
  const given = Array.isArray(b.passengers) ? (b.passengers as Array<Record<string, unknown>>) : []
  const departures = trip.journeys.map((j) => j.segments[0]!.departure_time.slice(0, 10))
  const passengers = trip.passengers.map((p) => {
    const i = given.findIndex((g) => g?.['passenger_id'] === p.passenger_id)
    const g = given[i] ?? {}
    const at = `/passengers/${i < 0 ? trip.passengers.indexOf(p) : i}`
    const text = (k: string) => (typeof g[k] === 'string' ? (g[k] as string).trim().replace(/\s+/g, ' ') : '')
    const first = text('first_names')
    const surname = text('surname')
    const dob = text('date_of_birth')
    if (!NAME.test(first))
      errors.push({
        path: `${at}/first_names`,
        message: first ? 'may hold letters, spaces, hyphens and apostrophes only' : 'is required',
      })
    if (!NAME.test(surname))
      errors.push({
        path: `${at}/surname`,
        message: surname ? 'may hold letters, spaces, hyphens and apostrophes only' : 'is required',
      })
    if (!isDate(dob))
      errors.push({ path: `${at}/date_of_birth`, message: dob ? 'must be a date (YYYY-MM-DD)' : 'is required' })
    else if (dob > today) errors.push({ path: `${at}/date_of_birth`, message: 'is in the future' })
    else if (p.type === 'adult' && ageOn(dob, departures[0]!) < 12)
      errors.push({ path: `${at}/date_of_birth`, message: 'an adult must be 12 or older on the day of travel' })
    else if (p.type === 'infant' && ageOn(dob, departures.at(-1)!) >= 2)
      errors.push({ path: `${at}/date_of_birth`, message: 'an infant on a lap must be under 2 on the return flight' })
    else if (p.type === 'adult' && ageOn(dob, today) > 120)
      errors.push({ path: `${at}/date_of_birth`, message: 'is not a believable date of birth' })
    return { passenger_id: p.passenger_id, first_names: first, surname, date_of_birth: dob }
  })
  const email = typeof b.contact?.email === 'string' ? b.contact.email.trim() : ''
  const phone = typeof b.contact?.phone === 'string' ? b.contact.phone.trim() : ''
  if (!EMAIL.test(email) || email.length > 254)
    errors.push({ path: '/contact/email', message: email ? 'is not an email address' : 'is required' })
  if (!PHONE.test(phone))
    errors.push({ path: '/contact/phone', message: phone ? 'is not a phone number' : 'is required' })
  if (errors.length)
    throw problem(
      400,
      'validation_error',
      `Please check the traveller details: ${errors.length} field${errors.length > 1 ? 's need' : ' needs'} attention.`,
      errors,
    )
  return { passengers, contact: { email, phone } }
}

// ---------------------------------------------------------------- helpers for pay

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
/** A PNR-like record locator, as the airline's reservation system would give it. */
export const recordLocator = () =>
  Array.from({ length: 6 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('')
/** A 13-digit e-ticket number: British Airways' code 125, then ten digits. */
export const ticketNumber = () => `125${String(randomInt(1e10)).padStart(10, '0')}`

const itemsTotal = (items: BasketItem[]) => items.reduce((sum, i) => sum + i.price.total.amount, 0)

/** Whether the page's items (ids and total) are exactly the items about to be charged. */
function sameAsShown(items: BasketItem[], expected: unknown): boolean {
  const e = (expected ?? {}) as { items?: unknown; total?: unknown; currency?: unknown }
  if (!Array.isArray(e.items) || e.items.length !== items.length) return false
  if (!items.every((i) => (e.items as unknown[]).includes(i.basket_item_id))) return false
  return e.total === itemsTotal(items) && items.every((i) => i.price.total.currency === e.currency)
}

/** Added after booking and not paid for yet: an extra no fulfill has ordered (the booked flight is bought). */
const isNewExtra = (i: BasketItem) => i.product_type !== 'ticket' && i.order_id === undefined

// ---------------------------------------------------------------- helpers for the after-sale

const ITEM_ID = /^[A-Za-z0-9_-]{1,128}$/

/** The items the traveller asks to cancel: 1 to 20 distinct basket item ids. */
export function checkCancelRequest(body: unknown): { basket_item_ids: string[] } {
  const list = ((body ?? {}) as { basket_item_ids?: unknown }).basket_item_ids
  if (!Array.isArray(list) || list.length === 0 || list.length > 20) {
    throw problem(400, 'validation_error', 'Say which extras to cancel.', [
      { path: '/basket_item_ids', message: 'must list 1 to 20 basket item ids' },
    ])
  }
  const errors = list.flatMap((id, i) =>
    typeof id === 'string' && ITEM_ID.test(id)
      ? []
      : [{ path: `/basket_item_ids/${i}`, message: 'is not a basket item id' }],
  )
  if (new Set(list).size !== list.length) errors.push({ path: '/basket_item_ids', message: 'names an item twice' })
  if (errors.length) throw problem(400, 'validation_error', 'Say which extras to cancel.', errors)
  return { basket_item_ids: list as string[] }
}

/** What the page showed before the traveller confirmed: the items quoted, the refund and the quote's expiry. */
interface ShownQuote {
  basket_item_ids: string[]
  refund: number
  quote_expires_at: string
}

export function checkShownQuote(expected: unknown): ShownQuote {
  const e = (expected ?? {}) as Partial<Record<keyof ShownQuote, unknown>>
  const { basket_item_ids } = checkCancelRequest(e)
  const errors: Array<{ path: string; message: string }> = []
  if (!Number.isSafeInteger(e.refund) || (e.refund as number) < 0)
    errors.push({ path: '/expected/refund', message: 'must be the refund shown, in minor units' })
  if (typeof e.quote_expires_at !== 'string' || Number.isNaN(Date.parse(e.quote_expires_at)))
    errors.push({ path: '/expected/quote_expires_at', message: "must be the quote's expiry, as given" })
  if (errors.length) throw problem(400, 'validation_error', 'Confirm the refund you were shown.', errors)
  return { basket_item_ids, refund: e.refund as number, quote_expires_at: e.quote_expires_at as string }
}

/** Whether the trip's current quote is the one the page showed (same items, same total refund, same expiry). */
function sameQuote(quote: Quote, shown: ShownQuote): boolean {
  const items = Object.values(quote.to_cancel)
  return (
    quote.quote_expires_at === shown.quote_expires_at &&
    items.length === shown.basket_item_ids.length &&
    items.every((i) => shown.basket_item_ids.includes(i.basket_item_id)) &&
    items.reduce((n, i) => n + (i.refund?.amount ?? 0), 0) === shown.refund
  )
}

// ---------------------------------------------------------------- the plugin

export async function sellerCheckout(app: FastifyInstance, opts: SellerCheckoutOptions) {
  const checkouts = new Map<string, Checkout>()
  const checkTimeoutMs = opts.checkTimeoutMs ?? 30_000
  const setting = (v: string | (() => string | undefined)) => (typeof v === 'function' ? v() : v)

  /** One call to the public API with the seller's key; a refusal becomes the API's own problem. */
  async function api<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    auth: 'key' | 'none' = 'key',
  ): Promise<T> {
    const base = setting(opts.apiBaseUrl)
    const key = setting(opts.apiKey)
    if (!base || !key) throw problem(503, 'unavailable', 'The shop is still starting; try again in a moment.')
    let res: Response
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(auth === 'key' ? { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(15_000),
      })
    } catch {
      throw problem(502, 'api_unreachable', 'The ancillaries service could not be reached.')
    }
    const text = await res.text()
    const json = text ? (JSON.parse(text) as unknown) : null
    if (!res.ok) {
      const p =
        json && typeof json === 'object' && 'code' in json
          ? (json as Problem)
          : { status: res.status, code: 'internal', detail: `The API answered ${res.status}.` }
      throw new ProblemResponse({ ...p, status: res.status })
    }
    return json as T
  }

  const sessionOf = (req: FastifyRequest): string | undefined =>
    new RegExp(`(?:^|;\\s*)${COOKIE}=([A-Za-z0-9_-]{16,})`).exec(req.headers.cookie ?? '')?.[1]

  function checkoutOf(req: FastifyRequest<{ Params: { tripId: string } }>): Checkout {
    const c = checkouts.get(req.params.tripId)
    // Someone else's checkout does not exist, as far as this browser is concerned.
    if (!c || c.owner !== sessionOf(req)) throw problem(404, 'not_found', 'This checkout has ended; start a new one.')
    return c
  }

  /** The trip as the page may see it: no tokens, and this shop's own payment record beside it. */
  function view(trip: Trip, c: Checkout) {
    const { trip_access_token: _a, refresh_token: _r, ...rest } = trip
    return { ...rest, scenario: c.scenario, payment: c.payment, extra_payments: c.extraPayments }
  }

  /** A fresh access token: from the refresh token (which rotates), else, once it has expired, from the trip read with the key. */
  function accessToken(c: Checkout): Promise<string> {
    c.refreshing ??= (async () => {
      try {
        const r = await api<{ trip_access_token: string; refresh_token: string }>(
          'POST',
          '/v2.2/refresh_token',
          { refresh_token: c.refreshToken },
          {},
          'none',
        )
        c.refreshToken = r.refresh_token
        return r.trip_access_token
      } catch (e) {
        if (!(e instanceof ProblemResponse) || e.problem.status !== 401) throw e
        const trip = await api<Trip>('GET', `/v2.2/trip/${c.tripId}`)
        return trip.trip_access_token!
      }
    })().finally(() => {
      c.refreshing = null
    })
    return c.refreshing
  }

  app.setErrorHandler((err: FastifyError | ProblemResponse, req: FastifyRequest, reply: FastifyReply) => {
    let p: Problem
    if (err instanceof ProblemResponse) p = err.problem
    else if ((err.statusCode ?? 500) < 500) p = problem(err.statusCode!, 'validation_error', err.message).problem
    else {
      req.log.error({ err }, 'seller checkout failed')
      p = problem(500, 'internal', 'Something went wrong in the shop.').problem
    }
    // The request id the response header carries, as the API's problems do, so a support ticket finds the log.
    return reply
      .code(p.status)
      .header('content-type', 'application/problem+json; charset=utf-8')
      .send({ ...p, request_id: req.id })
  })

  // ------------------------------------------------------------ the page

  app.get('/', { schema: { hide: true } }, async (_req, reply) => {
    const html = await readFile(join(PUBLIC_DIR, 'index.html'))
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .send(html)
  })

  app.get<{ Params: { file: string } }>('/demo/:file', { schema: { hide: true } }, async (req, reply) => {
    // An own property only: `/demo/constructor` must be a 404, not Object's constructor taken for a file type.
    const asset = Object.hasOwn(ASSETS, req.params.file) ? ASSETS[req.params.file] : undefined
    if (!asset) throw problem(404, 'not_found', `No file ${req.params.file} here.`)
    const body = await readFile(join(asset.dir, req.params.file)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT' || asset.dir !== APP_DIR) throw e
      throw problem(503, 'unavailable', `The page's script is not built: run \`npm run build\` (npm start does it).`)
    })
    return reply
      .header('content-type', asset.type)
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(body)
  })

  // ------------------------------------------------------------ the checkout

  app.post<{ Body: { scenario?: string } | undefined }>(
    '/demo/api/checkout',
    { schema: { hide: true } },
    async (req, reply) => {
      const scenario = (req.body?.scenario ?? 'normal') as Scenario
      if (!Object.hasOwn(SCENARIOS, scenario))
        throw problem(400, 'validation_error', `Unknown scenario ${scenario}.`, [
          { path: '/scenario', message: `must be one of ${Object.keys(SCENARIOS).join(', ')}` },
        ])
      let owner = sessionOf(req)
      if (!owner) {
        owner = randomBytes(18).toString('base64url')
        reply.header('set-cookie', `${COOKIE}=${owner}; Path=/demo/api; HttpOnly; SameSite=Strict`)
      }
      const trip = await api<Trip>('POST', '/v2.2/trip', tripRequest(scenario), { 'idempotency-key': randomUUID() })
      const c: Checkout = {
        owner,
        tripId: trip.trip_id,
        scenario,
        refreshToken: trip.refresh_token!,
        refreshing: null,
        payment: null,
        extraPayments: [],
        paying: false,
      }
      checkouts.set(trip.trip_id, c)
      if (checkouts.size > MAX_CHECKOUTS) checkouts.delete(checkouts.keys().next().value!)
      return reply.code(201).send({ trip: view(trip, c), trip_access_token: trip.trip_access_token })
    },
  )

  type ById = { Params: { tripId: string } }
  type ByItem = { Params: { tripId: string; itemId: string } }

  app.post<ById>('/demo/api/checkout/:tripId/token', { schema: { hide: true } }, async (req) => {
    return { trip_access_token: await accessToken(checkoutOf(req)) }
  })

  app.get<ById>('/demo/api/checkout/:tripId/status', { schema: { hide: true } }, async (req) => {
    const c = checkoutOf(req)
    return view(await api<Trip>('GET', `/v2.2/trip/${c.tripId}`), c)
  })

  app.patch<ById>('/demo/api/checkout/:tripId/passengers', { schema: { hide: true } }, async (req) => {
    const c = checkoutOf(req)
    const form = checkTravellerForm(req.body, await api<Trip>('GET', `/v2.2/trip/${c.tripId}`))
    const trip = await api<Trip>('PATCH', `/v2.2/trip/${c.tripId}`, {
      passengers: form.passengers,
      contact_details: {
        contact_details_type: 'passenger',
        passenger_id: 'p1',
        email: form.contact.email,
        phone_number: form.contact.phone,
      },
    })
    return view(trip, c)
  })

  app.post<ByItem>('/demo/api/checkout/:tripId/accept/:itemId', { schema: { hide: true } }, async (req) => {
    const c = checkoutOf(req)
    return api<{ basket: Basket }>(
      'POST',
      `/v2.2/trip/${c.tripId}/basket/${encodeURIComponent(req.params.itemId)}/accept`,
    )
  })

  app.delete<ByItem>('/demo/api/checkout/:tripId/item/:itemId', { schema: { hide: true } }, async (req) => {
    const c = checkoutOf(req)
    return api<{ basket: Basket }>('DELETE', `/v2.2/trip/${c.tripId}/basket/${encodeURIComponent(req.params.itemId)}`)
  })

  /**
   * The basket once the airline has checked it: the check a PATCH of the passengers may have started is let
   * end, then a check of every item not yet bought, polled until no item is `checking`. A new price found by
   * the first goes to the traveller as it is (checked again, it would come back `valid` at the new price,
   * never accepted). `null` when the airline takes longer than `checkTimeoutMs`.
   */
  async function checkedBasket(c: Checkout): Promise<{ trip_state_hash: string; basket: Basket } | null> {
    const deadline = Date.now() + checkTimeoutMs
    const settled = async () => {
      for (;;) {
        const read = await api<{ trip_state_hash: string; basket: Basket }>('GET', `/v2.2/trip/${c.tripId}/basket`)
        if (!Object.values(read.basket).some((i) => i.validity.status === 'checking')) return read
        if (Date.now() > deadline) return null
        await sleep(500)
      }
    }
    const read = await settled()
    if (read && Object.values(read.basket).some((i) => i.validity.status === 'price_changed')) return read
    await api('POST', `/v2.2/trip/${c.tripId}/basket/check`)
    return settled()
  }

  const currentBasket = async (c: Checkout) =>
    (await api<{ basket: Basket }>('GET', `/v2.2/trip/${c.tripId}/basket`)).basket
  const payment = (items: BasketItem[]): Payment => {
    const m = items[0]!.price.total
    return {
      reference: `PAY-${randomBytes(5).toString('hex').toUpperCase()}`,
      amount: itemsTotal(items),
      currency: m.currency,
      decimal_places: m.decimal_places,
      status: 'captured',
    }
  }

  /**
   * The pay step, in the order the rules for charging ask: have the airline check every item, charge
   * only when all are `valid` and the basket is exactly the one the traveller saw (`expected`: its item
   * ids and total), then fulfill with that basket's trip_state_hash. Anything to decide goes back to the
   * traveller: `{outcome: 'action_needed' | 'total_changed' | 'still_checking', basket}`; else
   * `{outcome: 'paid', trip}`, the orders queued.
   */
  app.post<ById & { Body: { expected?: unknown } | undefined }>(
    '/demo/api/checkout/:tripId/pay',
    { schema: { hide: true } },
    async (req) => {
      const c = checkoutOf(req)
      if (c.payment?.status === 'captured') throw problem(409, 'already_paid', 'This booking is already paid.')
      return onePayment(c, () => payBooking(c, req.body?.expected))
    },
  )

  async function payBooking(c: Checkout, expected: unknown) {
    const trip = await api<Trip>('GET', `/v2.2/trip/${c.tripId}`)
    const missing = trip.passengers.filter((p) => !p.first_names || !p.surname || !p.date_of_birth)
    if (missing.length || !trip.contact_details.email) {
      throw problem(
        400,
        'validation_error',
        'Add every traveller’s details and a contact email before paying.',
        missing.map((p) => ({
          path: `/passengers/${trip.passengers.indexOf(p)}`,
          message: 'has no name or date of birth yet',
        })),
      )
    }

    const read = await checkedBasket(c)
    if (!read) return { outcome: 'still_checking', basket: await currentBasket(c) }
    if (!Object.values(read.basket).every((i) => i.validity.status === 'valid'))
      return { outcome: 'action_needed', basket: read.basket }
    if (!sameAsShown(Object.values(read.basket), expected)) return { outcome: 'total_changed', basket: read.basket }

    // The card is charged here (a real shop calls its payment provider); the airline's booking gives the record locator.
    const locator = recordLocator()
    c.payment = { ...payment(Object.values(read.basket)), record_locator: locator }
    try {
      await api(
        'POST',
        `/v2.2/trip/${c.tripId}/fulfill`,
        {
          trip_state_hash: read.trip_state_hash,
          contact_details: trip.contact_details,
          passengers: trip.passengers.map((p) => ({
            passenger_id: p.passenger_id,
            first_names: p.first_names,
            surname: p.surname,
            date_of_birth: p.date_of_birth,
            passenger_type: p.type,
          })),
          tickets: trip.tickets.map((t) => ({
            ticket_id: t.ticket_id,
            status: 'booked',
            access_details: { record_locator: locator, ticket_number: ticketNumber() },
          })),
          payment_details: { payment_type: 'service_settlement' },
        },
        { 'idempotency-key': `skyshop-${c.tripId}-${read.trip_state_hash.slice(0, 16)}` },
      )
    } catch (e) {
      c.payment = { ...c.payment, status: 'refunded' }
      throw e
    }
    return { outcome: 'paid', trip: view(await api<Trip>('GET', `/v2.2/trip/${c.tripId}`), c) }
  }

  /** Runs a payment unless another of this checkout's is on its way (a second tab): that one answers, this one is refused. */
  async function onePayment<T>(c: Checkout, pay: () => Promise<T>): Promise<T> {
    if (c.paying) throw problem(409, 'payment_in_progress', 'A payment for this booking is already on its way.')
    c.paying = true
    try {
      return await pay()
    } finally {
      c.paying = false
    }
  }

  // ------------------------------------------------------------ after the booking

  /** Only a booked trip is managed; before that, the checkout is where things change. */
  function bookedCheckout(req: FastifyRequest<ById>): Checkout {
    const c = checkoutOf(req)
    if (c.payment?.status !== 'captured')
      throw problem(409, 'not_booked', 'This trip is not booked yet: pay for it first.')
    return c
  }

  /**
   * Extras added after booking (the widget adds them to the same trip's basket): the same rules as `pay`,
   * for the new items only. The ordered ones are bought already, and no check touches them. Charges the
   * new items' total, then a later fulfill with just the trip_state_hash and the payment orders them.
   */
  app.post<ById & { Body: { expected?: unknown } | undefined }>(
    '/demo/api/checkout/:tripId/extras/pay',
    { schema: { hide: true } },
    async (req) => {
      const c = bookedCheckout(req)
      return onePayment(c, async () => {
        if (!Object.values(await currentBasket(c)).some(isNewExtra))
          throw problem(409, 'nothing_to_pay', 'There are no new extras to pay for.')
        const read = await checkedBasket(c)
        if (!read) return { outcome: 'still_checking', basket: await currentBasket(c) }
        const added = Object.values(read.basket).filter(isNewExtra)
        if (!added.every((i) => i.validity.status === 'valid')) return { outcome: 'action_needed', basket: read.basket }
        if (added.length === 0 || !sameAsShown(added, req.body?.expected))
          return { outcome: 'total_changed', basket: read.basket }

        const paid = { ...payment(added), basket_item_ids: added.map((i) => i.basket_item_id) }
        c.extraPayments.push(paid)
        try {
          await api(
            'POST',
            `/v2.2/trip/${c.tripId}/fulfill`,
            {
              trip_state_hash: read.trip_state_hash,
              payment_details: { payment_type: 'service_settlement' },
            },
            { 'idempotency-key': `skyshop-${c.tripId}-${read.trip_state_hash.slice(0, 16)}` },
          )
        } catch (e) {
          paid.status = 'refunded'
          throw e
        }
        return { outcome: 'paid', trip: view(await api<Trip>('GET', `/v2.2/trip/${c.tripId}`), c) }
      })
    },
  )

  /** The airline's quote for cancelling ordered extras: what each would refund, or why it cannot be cancelled. */
  app.post<ById>('/demo/api/checkout/:tripId/cancellation', { schema: { hide: true } }, async (req) => {
    const c = bookedCheckout(req)
    return api<Quote>('POST', `/v2.2/trip/${c.tripId}/to_cancel`, checkCancelRequest(req.body))
  })

  /**
   * Confirms the quote the traveller saw (`expected`: its items, total refund and expiry), never another:
   * a quote asked for since (another tab) comes back as `{outcome: 'quote_changed', quote}`. The key makes
   * a retry of the same confirmation answer as the first did, rather than find the quote used up.
   * `{outcome: 'confirmed', cancellation_id, trip}`: the orders are `cancelling`; the page follows them.
   */
  app.post<ById & { Body: { expected?: unknown } | undefined }>(
    '/demo/api/checkout/:tripId/cancellation/confirm',
    { schema: { hide: true } },
    async (req) => {
      const c = bookedCheckout(req)
      const shown = checkShownQuote(req.body?.expected)
      const quote = await api<Quote>('GET', `/v2.2/trip/${c.tripId}/to_cancel`)
      // No quote: used up by this very confirmation (a retry), or never there; the key tells which.
      if (quote.quote_expires_at !== null && !sameQuote(quote, shown)) return { outcome: 'quote_changed', quote }
      const key = createHash('sha256')
        .update(JSON.stringify([c.tripId, shown.quote_expires_at, [...shown.basket_item_ids].sort()]))
        .digest('hex')
        .slice(0, 32)
      const started = await api<{ status: string; cancellation_id: string }>(
        'POST',
        `/v2.2/trip/${c.tripId}/to_cancel/confirm`,
        undefined,
        { 'idempotency-key': `skyshop-cancel-${key}` },
      )
      // A real shop refunds the card when the airline has cancelled (the cancellation_completed webhook);
      // the page shows each order's refund as the API reports it.
      return {
        outcome: 'confirmed',
        cancellation_id: started.cancellation_id,
        trip: view(await api<Trip>('GET', `/v2.2/trip/${c.tripId}`), c),
      }
    },
  )
}
