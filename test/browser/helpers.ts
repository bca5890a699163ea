/**
 * Helpers of the component suites: a real trip from the fixture endpoint (the real API over the sandbox
 * airline), a Session on it, mounting, waiting, deep queries through shadow roots, keyboard, and axe.
 * Fetch wrappers stand in for what the fixture cannot produce on demand: an expired item (the API says
 * `invalid` after `valid_to`), refused changes, and (mock-server/conditions.ts, shared with the stories)
 * a search without some product type, a network that fails or hangs.
 */
import 'axe-core'
import type * as Axe from 'axe-core'
import { expect } from '@esm-bundle/chai'
import { render, type TemplateResult } from 'lit'
import { sendKeys, setViewport } from '@web/test-runner-commands'
import { ApiClient } from '../../client/api.ts'
import { Session, type ProductTypeName } from '../../client/session.ts'
import type { BasketView } from '../../client/api.ts'
import type { BasketItem, Search } from '../../client/types.ts'
import { rewriteJson, urlOf } from '../../mock-server/conditions.ts'

export { failingFetch, hangingFetch, withoutProducts } from '../../mock-server/conditions.ts'
export { animationsDone, button, deep, deepAll, textOf } from '../dom.ts'
import { animationsDone, deepAll, overflowing } from '../dom.ts'

export interface Fixture {
  baseUrl: string
  tripId: string
  accessToken: string
  refreshToken: string
}

export interface SessionOpts {
  /** marketing_flight_number: 9001 price change on check, 9002 unavailable on check. */
  flight?: string
  language?: string
  currency?: string
  passengers?: Array<Record<string, unknown>>
  /** A trip fulfilled already: p1's checked bag and priority boarding and p2's seat bought (api-fixture.ts). */
  booked?: boolean
  /** Wraps the client's fetch (see the stubs below). */
  fetch?: typeof fetch
  pollMs?: number
  /** Await `load()` before returning (default true). */
  load?: boolean
  /**
   * With `load`, also the offers of these product types (default every type, so a test can pick products
   * before it mounts a view); `[]` leaves them to the views, which ask for their own.
   */
  offers?: ProductTypeName[]
}

export const ALL_TYPES: ProductTypeName[] = [
  'bag',
  'seat',
  'priority_boarding',
  'automatic_check_in',
  'fare_family_upsell',
]

export async function fixture(o: SessionOpts = {}): Promise<Fixture> {
  const q = new URLSearchParams()
  if (o.flight) q.set('flight', o.flight)
  if (o.language) q.set('language', o.language)
  if (o.currency) q.set('currency', o.currency)
  if (o.passengers) q.set('passengers', JSON.stringify(o.passengers))
  if (o.booked) q.set('booked', 'true')
  const res = await fetch(`/__fixture/trip?${q}`)
  if (!res.ok) throw new Error(`fixture: ${res.status} ${await res.text()}`)
  return (await res.json()) as Fixture
}

const sessions: Session[] = []

/** A Session on a real trip (with `fetch` wrapped when asked), loaded unless `load: false`. */
export async function session(o: SessionOpts = {}): Promise<Session> {
  const f = await fixture(o)
  const client = new ApiClient({
    baseUrl: f.baseUrl,
    tripId: f.tripId,
    accessToken: f.accessToken,
    refreshToken: f.refreshToken,
    ...(o.fetch ? { fetch: o.fetch } : {}),
  })
  const s = new Session(client, { pollMs: o.pollMs ?? 100 })
  sessions.push(s)
  if (o.load !== false) {
    await s.load()
    const types = o.offers ?? ALL_TYPES
    if (types.length > 0) await s.loadOffers(types)
  }
  return s
}

// ---------------------------------------------------------------- fetch stubs

const realFetch: typeof fetch = (...a) => window.fetch(...a)

const isBasket = (path: string) => /\/basket(\/[^/]+)?(\/accept)?$/.test(path) || path.endsWith('/basket/check')

/**
 * The API after the hold window passed: every extra reads `invalid` with a past `valid_to`, until the
 * page asks for a basket check (then the real answers come through again).
 */
export function expiredFetch(): typeof fetch & { expired: boolean } {
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = urlOf(input).pathname
    const method = init?.method ?? 'GET'
    if (method === 'POST' && path.endsWith('/basket/check')) f.expired = false
    const res = await realFetch(input, init)
    if (!f.expired || !isBasket(path)) return res
    return rewriteJson(res, (view: BasketView) => {
      for (const item of Object.values(view.basket) as BasketItem[]) {
        if (item.product_type === 'ticket') continue
        item.validity = { ...item.validity, status: 'invalid', valid_to: new Date(Date.now() - 60_000).toISOString() }
      }
      return view
    })
  }) as typeof fetch & { expired: boolean }
  f.expired = true
  return f
}

/** Basket changes refused by the API (409) while `refusing`. */
export function refusingFetch(): typeof fetch & { refusing: boolean } {
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const method = init?.method ?? 'GET'
    if (f.refusing && method === 'PATCH') {
      return new Response(
        JSON.stringify({
          type: 'about:blank',
          title: 'Conflict',
          status: 409,
          detail: 'Refused in a test.',
          code: 'basket_rule_violation',
        }),
        { status: 409, headers: { 'content-type': 'application/problem+json' } },
      )
    }
    return realFetch(input, init)
  }) as typeof fetch & { refusing: boolean }
  f.refusing = true
  return f
}

export interface Recorded {
  method: string
  url: URL
  status: number
  bytes: number
}

/** GET .../search/{id} (with or without `?product_types=`). */
export const isSearchRead = (c: Recorded) => c.method === 'GET' && /\/search\/[^/]+$/.test(c.url.pathname)

/** Records every call: method, URL, status and the response body's size (decoded, so an upper bound of what crossed the wire). */
export function recordingFetch(
  inner: typeof fetch = realFetch,
): typeof fetch & { calls: Recorded[]; searches(): Recorded[] } {
  const calls: Recorded[] = []
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await inner(input, init)
    const bytes = (await res.clone().arrayBuffer()).byteLength
    calls.push({ method: init?.method ?? 'GET', url: urlOf(input), status: res.status, bytes })
    return res
  }) as typeof fetch & { calls: Recorded[]; searches(): Recorded[] }
  f.calls = calls
  f.searches = () => calls.filter(isSearchRead)
  return f
}

/**
 * The trip's search purged by retention (the API deletes searches after 24 h): the first search the
 * page reads, and only that one, answers 404 as the API does for a search that does not exist.
 */
export function purgedSearchFetch(inner: typeof fetch = realFetch): typeof fetch & { purged: string | null } {
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const m = /\/search\/([^/]+)$/.exec(urlOf(input).pathname)
    if (m && (init?.method ?? 'GET') === 'GET') {
      const id = decodeURIComponent(m[1]!)
      f.purged ??= id
      if (id === f.purged) {
        return new Response(
          JSON.stringify({
            type: 'about:blank',
            title: 'Not Found',
            status: 404,
            code: 'not_found',
            detail: `Search ${id} does not exist for this trip.`,
          }),
          { status: 404, headers: { 'content-type': 'application/problem+json' } },
        )
      }
    }
    return inner(input, init)
  }) as typeof fetch & { purged: string | null }
  f.purged = null
  return f
}

// ---------------------------------------------------------------- mounting and waiting

const containers: HTMLElement[] = []

/** Renders into a fresh `<main>` (a landmark, as on a seller's page); returns the first element. */
export async function mount<T extends Element = HTMLElement>(
  template: TemplateResult,
  opts: { width?: number } = {},
): Promise<T> {
  const main = document.createElement('main')
  if (opts.width) main.style.inlineSize = `${opts.width}px`
  document.body.append(main)
  containers.push(main)
  render(template, main)
  const el = main.firstElementChild as T
  await settle(el)
  return el
}

/** Removes what `mount` added and stops the sessions' timers. */
export async function cleanup() {
  recording.abort()
  recording = new AbortController()
  for (const c of containers.splice(0)) {
    render(null, c)
    c.remove()
  }
  for (const s of sessions.splice(0)) s.dispose()
  await setViewport({ width: 800, height: 600 })
}

export const nextFrame = () => new Promise<void>((r) => requestAnimationFrame(() => r()))

/** Waits until every Lit element under `el` (through shadow roots) has rendered. */
export async function settle(el: Element) {
  for (let i = 0; i < 3; i++) {
    const all = [el, ...deepAll(el, '*')] as Array<Element & { updateComplete?: Promise<unknown> }>
    await Promise.all(all.map((e) => e.updateComplete).filter(Boolean))
    await nextFrame()
  }
}

export async function until<T>(fn: () => T | null | undefined | false, what = 'condition', timeout = 8000): Promise<T> {
  const start = performance.now()
  for (;;) {
    const v = fn()
    if (v) return v
    if (performance.now() - start > timeout) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** Resolves with the next `name` event's detail on `target`. */
export function nextEvent<T = unknown>(target: EventTarget, name: string, timeout = 8000): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${name} event`)), timeout)
    target.addEventListener(
      name,
      (e) => {
        clearTimeout(t)
        resolve((e as CustomEvent<T>).detail)
      },
      { once: true },
    )
  })
}

let recording = new AbortController()

/** Records every `name` event's detail on `target` (until `cleanup`). */
export function record<T = any>(target: EventTarget, ...names: string[]): Array<{ type: string; detail: T }> {
  const seen: Array<{ type: string; detail: T }> = []
  for (const n of names)
    target.addEventListener(n, (e) => seen.push({ type: n, detail: (e as CustomEvent<T>).detail }), {
      signal: recording.signal,
    })
  return seen
}

/** The first product of a type on sale to a passenger (on the first journey unless told). */
export function productFor(
  s: Session,
  type: string,
  passengerId = 'p1',
  pick: (p: { product_id: string; included?: boolean; product_details: Record<string, unknown> }) => boolean = () =>
    true,
  journey = 0,
) {
  const journeyId = s.state.trip!.journeys[journey]!.journey_id
  const found = Object.values(s.state.search!.results.products[type] ?? {}).find(
    (p) =>
      !p.included &&
      p.price_and_availability[passengerId]?.available &&
      (p.product_details['journey_id'] === undefined || p.product_details['journey_id'] === journeyId) &&
      pick(p),
  )
  if (!found) throw new Error(`no ${type} for ${passengerId}`)
  return found
}

/** Adds the first checked bag for a passenger and returns the new item. */
export async function addBag(s: Session, passengerId = 'p1'): Promise<BasketItem> {
  const product = productFor(s, 'bag', passengerId, (p) => p.product_details['checked'] === true)
  await s.add(product.product_id, passengerId, 1)
  return Object.values(s.state.basket).find(
    (i) => i.product_id === product.product_id && i.product_details['passenger_id'] === passengerId,
  )!
}

/** The session loaded, with the offers of `types` (what a view asked for when it got the session). */
export const offersReady = (s: Session, ...types: ProductTypeName[]) =>
  until(
    () => s.state.status === 'ready' && types.every((t) => s.state.offers[t]?.status === 'ready'),
    `the offers of ${types.join(', ')}`,
  )

/** Extras in a session's basket. */
export const extrasOf = (s: Session): BasketItem[] =>
  Object.values(s.state.basket).filter((i) => i.product_type !== 'ticket')

/** Starts a basket check and waits until some extra reaches `status`. */
export async function checkUntil(s: Session, status: string): Promise<BasketItem> {
  await s.check()
  return until(() => extrasOf(s).find((i) => i.validity.status === status), `an item ${status}`)
}

// ---------------------------------------------------------------- queries across shadow roots

export function activeDeep(): Element | null {
  let a = document.activeElement
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement
  return a
}

/** `el` is inside `container` in the flat tree (through shadow roots and slots), as focus and layout see it. */
export function isInside(container: Node, el: Node | null): boolean {
  const up = (n: Node) =>
    (n instanceof Element || n instanceof Text ? n.assignedSlot : null) ??
    n.parentNode ??
    (n instanceof ShadowRoot ? n.host : null)
  for (let n: Node | null = el; n; n = up(n)) if (n === container) return true
  return false
}

export const press = (key: string) => sendKeys({ press: key })

/** Shift+Tab (puppeteer presses one key at a time). */
export async function shiftTab() {
  await sendKeys({ down: 'Shift' })
  await sendKeys({ press: 'Tab' })
  await sendKeys({ up: 'Shift' })
}

// ---------------------------------------------------------------- checks

const axeGlobal = () => (window as unknown as { axe: typeof Axe }).axe

/** axe-core on `el` (open shadow roots included); fails listing each violation's id and targets. */
export async function axe(el: Element, what = el.localName) {
  // A dialog fading in has no final colours yet.
  await animationsDone(el)
  const results = await axeGlobal().run(el, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] },
    resultTypes: ['violations'],
  })
  const found = results.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.failureSummary?.replace(/\s+/g, ' ') ?? ''}`).join(', ')}`,
  )
  expect(found, `axe violations in ${what}`).to.deep.equal([])
}

/** Nothing under `el` is wider than `el` (no horizontal scrolling), at the width it has. */
export function expectNoOverflow(el: Element) {
  expect(overflowing(el), 'elements overflowing the container').to.deep.equal([])
}

export { setViewport }

/**
 * A fare-family upsell the sandbox trip lacks (its fare family is not one of the airline's): the search
 * offers "Standard" and "Flex" per journey, and basket changes for them are kept here and merged into
 * the real basket answers, so the view runs its whole flow.
 */
export function fareFamilyFetch(): typeof fetch {
  let trip: {
    journeys: Array<{ journey_id: string }>
    passengers: Array<{ passenger_id: string; on_lap_of: string | null }>
  } | null = null
  const local: Record<string, BasketItem> = {}
  const money = (amount: number) => ({
    amount,
    currency: 'EUR',
    decimal_places: 2,
    in_original_currency: { amount, currency: 'EUR', decimal_places: 2 },
  })
  const price = (amount: number) => ({ base: money(amount), total: money(amount), markups: [], taxes: [], fees: [] })
  const families = [
    { name: 'Standard', price: 4000, benefits: ['Checked bag 23 kg', 'Free seat selection 24 h before departure'] },
    {
      name: 'Flex',
      price: 15000,
      benefits: ['Checked bag 23 kg', 'Free seat selection', 'Free changes', 'Refundable'],
    },
  ]
  const products = () =>
    Object.fromEntries(
      trip!.journeys.flatMap((j) =>
        families.map((f) => {
          const id = `ff-${j.journey_id}-${f.name}`
          return [
            id,
            {
              product_id: id,
              product_type: 'fare_family_upsell',
              display_name: `Upgrade to ${f.name}`,
              product_details: {
                journey_id: j.journey_id,
                fare_family: f.name,
                from_fare_family: 'Basic',
                benefits: f.benefits,
              },
              price_and_availability: Object.fromEntries(
                trip!.passengers.map((p) => [
                  p.passenger_id,
                  p.on_lap_of
                    ? { available: false, price: null, quantity_limit: 0, reason: 'lap_infant' }
                    : { available: true, price: price(f.price), quantity_limit: 1 },
                ]),
              ),
            },
          ]
        }),
      ),
    )
  const merged = async (res: Response) =>
    rewriteJson(res, (view: BasketView) => ({ ...view, basket: { ...view.basket, ...local } }))
  return async (input, init) => {
    const url = urlOf(input)
    const method = init?.method ?? 'GET'
    const base = url.href.replace(/\/basket.*$/, '/basket')
    if (method === 'PATCH' && url.pathname.endsWith('/basket')) {
      const lines = JSON.parse(String(init!.body)) as Array<{
        product_id: string
        passenger_id: string
        quantity: number
      }>
      const mine = lines.filter((l) => l.product_id.startsWith('ff-'))
      if (mine.length) {
        for (const l of mine) {
          const p = (products() as Record<string, any>)[l.product_id]
          const id = `item-${l.product_id}-${l.passenger_id}`
          const now = new Date()
          local[id] = {
            basket_item_id: id,
            display_name: p.display_name,
            product_id: l.product_id,
            product_type: 'fare_family_upsell',
            quantity: 1,
            ticket_id: 't',
            benefits: [],
            price: p.price_and_availability[l.passenger_id].price,
            product_details: { ...p.product_details, passenger_id: l.passenger_id },
            validity: {
              status: 'valid',
              valid_from: now.toISOString(),
              valid_to: new Date(now.getTime() + 30 * 60_000).toISOString(),
            },
          } as BasketItem
        }
        return merged(await realFetch(base, { headers: init!.headers }))
      }
    }
    if (method === 'DELETE' && decodeURIComponent(url.pathname).includes('/basket/item-ff-')) {
      delete local[decodeURIComponent(url.pathname.split('/').pop()!)]
      return merged(await realFetch(base, { headers: init!.headers }))
    }
    const res = await realFetch(input, init)
    if (/\/trip\/[^/]+$/.test(url.pathname) && method === 'GET') {
      return rewriteJson(res, (t) => {
        trip = t
        return t
      })
    }
    if (/\/search\/[^/]+$/.test(url.pathname)) {
      return rewriteJson(res, (s: Search) => {
        s.results.products['fare_family_upsell'] = products() as any
        return s
      })
    }
    if (url.pathname.includes('/basket')) return merged(res)
    return res
  }
}
