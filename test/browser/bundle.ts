/**
 * Helpers of the tests that load the BUILT bundles (svc.min.js, svc-sandbox.min.js) into the page, as a
 * seller's page does: the fixture trip, callback spies, waiting, the widget's "+" buttons, and containers
 * that are removed after every test.
 */
import type { BasketChange, CallbackBasketItem } from '../../sdk/index.ts'
import type { SvcError } from '../../client/errors.ts'
import type { Session } from '../../client/session.ts'

export interface Fixture {
  baseUrl: string
  tripId: string
  accessToken: string
  refreshToken: string
}
export type UpsellEl = HTMLElement & { session: Session; updateComplete: Promise<boolean> }

export const BUNDLE = '/dist/javascript/v2.2/svc.min.js'
export const SANDBOX_BUNDLE = '/dist/javascript/v2.2/svc-sandbox.min.js'
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A trip on the real API, created as a seller's backend would (web-test-runner.config.mjs). */
export async function trip(q: Record<string, string> = {}): Promise<Fixture> {
  const res = await fetch(`/__fixture/trip?${new URLSearchParams(q)}`)
  return res.json() as Promise<Fixture>
}

/** A recording callback. */
export function spy<A>(impl?: (arg: A) => void) {
  const calls: A[] = []
  const fn = (arg: A) => {
    calls.push(arg)
    impl?.(arg)
  }
  return Object.assign(fn, { calls })
}

export async function rejection(p: Promise<unknown>): Promise<SvcError> {
  try {
    await p
  } catch (e) {
    return e as SvcError
  }
  throw new Error('expected the promise to reject')
}

export async function waitFor<T>(fn: () => T | null | undefined | false, what: string, timeout = 8000): Promise<T> {
  const end = Date.now() + timeout
  for (;;) {
    const v = fn()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

export const bagsIn = (c: BasketChange): CallbackBasketItem[] =>
  Object.values(c.basket).filter((i) => i.product_type === 'bag')

export function upsellIn(container: string, doc: Document = document): UpsellEl | null {
  return doc.getElementById(container)?.querySelector('svc-upsell') as UpsellEl | null
}

/** The first "+" of a bag that can still be added, inside the widget in `container`. */
export function enabledPlus(container: string, doc: Document = document, timeout?: number): Promise<HTMLButtonElement> {
  return waitFor(
    () => {
      const bags = upsellIn(container, doc)?.shadowRoot?.querySelector('svc-bag-upsell')
      const buttons = Array.from(
        bags?.shadowRoot?.querySelectorAll<HTMLButtonElement>('[part="stepper"] button:last-of-type') ?? [],
      )
      return buttons.find((b) => b.getAttribute('aria-disabled') === 'false')
    },
    `an enabled "+" bag button in #${container}`,
    timeout,
  )
}

/**
 * The files of svc.min.js's chunks (dist/javascript/v2.2/chunks/) this page has fetched, one entry per
 * fetch (`name`: only that chunk's). Call `performance.setResourceTimingBufferSize` first in a long file.
 */
export function chunkFetches(name?: string): string[] {
  const dir = '/dist/javascript/v2.2/chunks/'
  return performance
    .getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname)
    .filter((p) => p.includes(dir) && p.endsWith('.js') && (!name || p.includes(`${dir}${name}-`)))
}

export function loadScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script')
    s.src = src
    s.onload = () => resolve()
    s.onerror = () => reject(new Error(`${src} did not load: run \`npm run build\` first`))
    document.head.append(s)
  })
}

const tracked: Element[] = []

/** Removes `el` from the page after the current test. */
export function track<E extends Element>(el: E): E {
  tracked.push(el)
  return el
}

/** A `<div id>` in the page for a widget, removed after the test. */
export function container(id: string): HTMLElement {
  const el = document.createElement('div')
  el.id = id
  document.body.append(el)
  return track(el)
}

afterEach(() => {
  for (const el of tracked.splice(0)) el.remove()
})
