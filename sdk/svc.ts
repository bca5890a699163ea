/**
 * The `Svc` object: `init` opens one shared Session for the trip, `showUpsell` mounts `<svc-upsell>`
 * widgets that all read and change that session, and the SDK turns session and element events into the
 * seller's callbacks. The IIFE entry (index.ts) puts one of these on `window`; the ESM build exports
 * `createSvc` for pages that bundle the elements themselves.
 *
 * Callbacks come from the session, not from the widgets' DOM events, so each fires exactly once per
 * change however many widgets are on the page; a callback that throws is logged and never reaches the
 * widget.
 */
import type { BasketChange, Display, InitOptions, ProductName, ShowUpsellOptions, Theme, WidgetEvent } from './types.ts'
import { SvcError, asSvcError } from '../client/errors.ts'
import { ApiClient } from '../client/api.ts'
import { Session, toCallbackBasket, type ProductTypeName } from '../client/session.ts'
import {
  canonicalLocale,
  checkInitOptions,
  checkPriceArgs,
  checkShowOptions,
  needsAction,
  type CheckedInit,
  type CheckedShow,
  type ResolvedCallbacks,
} from './options.ts'
import { isOffered, PRODUCT_TYPE } from '../client/offers.ts'
import {
  addLocale,
  bestTag,
  hasLocale,
  LOCALES,
  setStrings,
  formatPrice as intlPrice,
} from '../components/i18n/index.ts'
import type { SvcFailDetail, SvcLifecycleDetail } from '../components/events.ts'
import { sandboxLoader, type SvcSandbox } from './sandbox.ts'

/** The global `window.Svc`. */
export interface SvcApi {
  /** The API version this SDK speaks; the script's path carries it too (`/javascript/v2.2/`). */
  readonly version: '2.2'
  /**
   * Opens the trip: checks the options, loads trip and basket, and starts calling your callbacks
   * (`showUpsell` loads the offers of the products it shows). Rejects with an `SvcError` (`invalid_options`, `unauthorized`, `not_found`, `network`, ...).
   * Calling it again replaces the trip: earlier widgets are removed and their session closed.
   */
  init(options: InitOptions): Promise<void>
  /**
   * Shows the product selection in `container`, an element or its id (replacing an earlier widget there).
   * Resolves once every product shown has loaded; rejects with an `SvcError` when it cannot be shown.
   */
  showUpsell(options: ShowUpsellOptions): Promise<void>
  /**
   * Ends the session: removes every widget, closes the trip's event stream and stops every timer; a
   * `showUpsell` still loading rejects with `not_initialized`. Call it when the page (or a single-page
   * app's view) is done with the trip, e.g. in a React effect's cleanup: a later `init` starts afresh.
   */
  destroy(): void
  /** A price for display, e.g. `formatPrice(2550, 2, 'EUR')` → `€25.50`, in the trip's locale once `init` resolved. */
  formatPrice(amount: number, decimal_places: number, currency: string): string
  /**
   * Reads the basket and the trip again, and the offers shown when the trip's search changed. Rarely
   * needed: the SDK follows the trip's event stream, so changes made elsewhere (your backend's basket
   * check, a passenger update) reach the widgets and your callbacks on their own.
   */
  refresh(): Promise<void>
  /** The SDK's error class, for `instanceof` checks: `err instanceof Svc.SvcError`. */
  readonly SvcError: typeof SvcError
  /** The offline sandbox of `init({ sandbox: true })`: its trips, reset, scenarios (sdk/sandbox.ts). */
  readonly sandbox: SvcSandbox
}

/** The properties the SDK sets on `<svc-upsell>` (components/upsell). */
export interface UpsellElementProps {
  session: Session
  display: Display
  products: ProductName[]
  theme: Theme
  locale: string
}
type UpsellElement = HTMLElement & UpsellElementProps

export interface CreateSvcOptions {
  /** URL of the SDK script; its origin is the default `baseUrl`. Null in the ESM build (then `baseUrl` is required). */
  scriptUrl?: string | null
  /** How long `showUpsell` waits for the widget to report that it loaded. */
  loadTimeoutMs?: number
  /**
   * Loads `<svc-upsell>` (and the bag view it opens with) when `showUpsell` first needs it. The script has
   * it registered already; the ESM build passes a dynamic import, so a page that imports only `Session`
   * or a single element gets none of it.
   */
  loadElements?: () => Promise<unknown>
}

interface Widget {
  el: UpsellElement
  listeners: AbortController
  /** Settles a pending `showUpsell` promise when the widget goes away before it loaded. */
  cancel(reason: SvcError): void
}

interface Instance {
  session: Session
  callbacks: ResolvedCallbacks
  /** The seller's locale, or the trip's language once loaded; null until known. */
  locale: string | null
  ready: Promise<void>
  /** By the element they are shown in. */
  widgets: Map<HTMLElement, Widget>
  listeners: AbortController
}

/** Lifecycle callbacks per product (the spec names bag and seat ones only): `on<Bag|Seat><Load|ModalClosed|Fail>`. */
const LIFECYCLE: Partial<Record<ProductName, 'Bag' | 'Seat'>> = { bags: 'Bag', seats: 'Seat' }

/** Calls a seller callback so that nothing it does (throw, reject) can break the widget. */
function safeCall<A>(name: string, fn: ((arg: A) => unknown) | undefined, arg: A) {
  if (!fn) return
  // The error logged with it says whether the callback threw or its promise rejected.
  const failed = (e: unknown) => console.error(`Svc: the ${name} callback failed; the widget carries on.`, e)
  try {
    const result = fn(arg)
    if (result instanceof Promise) result.catch(failed)
  } catch (e) {
    failed(e)
  }
}

/** A widget of a trip a later `Svc.init` replaced (mounted, or still waiting for it). */
const replaced = () =>
  new SvcError('not_initialized', 'Svc.init was called again; this widget belonged to the earlier trip.')

/**
 * Resolves false once the offers of `types` are in; true as soon as the airline is found still searching
 * (a remote supplier's search runs in the background) or its search failed, where the widget shows at
 * once: its loading state until the offers come, or its error state with "Try again" (and the fail
 * callbacks). Rejects as the offers do otherwise.
 */
function offersOrSearching(session: Session, types: ProductTypeName[], offers: Promise<void>): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const stop = new AbortController()
    const done = (early: boolean) => {
      stop.abort()
      resolve(early)
    }
    const check = () => {
      if (types.some((t) => session.state.offers[t]?.searching)) done(true)
    }
    session.addEventListener('change', check, { signal: stop.signal })
    check()
    offers.then(
      () => done(false),
      (e: unknown) => (asSvcError(e).code === 'offers_unavailable' ? done(true) : (stop.abort(), reject(e))),
    )
  })
}

const documentLocale = () => canonicalLocale(document.documentElement.lang || 'en-US') ?? 'en-US'

/**
 * Registers the texts for `tag` (exact, else the same language's table, see bestTag) unless the page has
 * them already: `locales/<tag>.json` from `base`. Without them the widgets speak English.
 */
async function loadTexts(tag: string, base: string): Promise<void> {
  const best = bestTag(tag, LOCALES)
  if (!best || hasLocale(best)) return
  try {
    const res = await fetch(new URL(`locales/${best}.json`, base), { signal: AbortSignal.timeout(10_000) })
    if (!res.ok) throw res.status
    addLocale(best, await res.json())
  } catch (e) {
    console.warn(`Svc: the ${best} texts did not load (${e}); showing English.`)
  }
}

function unmount(inst: Instance, host: HTMLElement, reason: SvcError) {
  const w = inst.widgets.get(host)
  if (!w) return
  inst.widgets.delete(host)
  w.listeners.abort()
  w.cancel(reason)
  w.el.remove()
}

function close(inst: Instance, reason = replaced()) {
  for (const host of [...inst.widgets.keys()]) unmount(inst, host, reason)
  inst.listeners.abort()
  inst.session.dispose()
}

/** One basket change → onBasketChange, then onInvalidBasket when an item needs action; each gets its own copy. */
function deliver(inst: Instance, change: BasketChange) {
  safeCall('onBasketChange', inst.callbacks.onBasketChange, structuredClone(change))
  if (needsAction(change)) safeCall('onInvalidBasket', inst.callbacks.onInvalidBasket, structuredClone(change))
}

/** The trip's session, with the seller's callbacks and locale; not loaded yet. */
function newInstance(o: CheckedInit, fetch: typeof globalThis.fetch | undefined): Instance {
  const client = new ApiClient({
    baseUrl: o.baseUrl,
    tripId: o.tripId,
    accessToken: o.tripAccessToken,
    fetch,
    ...(o.refreshToken ? { refreshToken: o.refreshToken } : {}),
    ...(o.getAccessToken ? { getAccessToken: o.getAccessToken } : {}),
  })
  return {
    session: new Session(client),
    callbacks: o.callbacks,
    locale: o.locale,
    ready: Promise.resolve(),
    widgets: new Map(),
    listeners: new AbortController(),
  }
}

/**
 * Loads the trip and its texts, then hands the seller the basket as it stands and follows the trip's
 * changes. `live` says whether `inst` is still the open trip (a later init replaces it: the steps stop);
 * `drop` forgets it when it does not load.
 */
async function loadTrip(inst: Instance, base: string, drop: () => void) {
  const { session } = inst
  const live = () => !inst.listeners.signal.aborted
  // The texts load beside the trip when the seller named the locale, else once the trip names it.
  const texts = inst.locale && loadTexts(inst.locale, base)
  try {
    await session.load()
  } catch (e) {
    if (live()) drop()
    throw asSvcError(e)
  }
  if (!live()) return // replaced by a later init while loading
  inst.locale ??= canonicalLocale(session.state.trip?.language ?? '') ?? documentLocale()
  await (texts || loadTexts(inst.locale, base))
  if (!live()) return
  session.addEventListener('basket-change', (e) => deliver(inst, (e as CustomEvent<BasketChange>).detail), {
    signal: inst.listeners.signal,
  })
  // The basket as it stands (the ticket, and whatever an earlier page chose), so the seller starts in step.
  deliver(inst, { basket: toCallbackBasket(session.state.basket) })
  // From now on, changes made elsewhere come to the page as they happen.
  session.follow()
}
/**
 * `Svc.showUpsell` on the open trip: asks at once for the offers it shows and the widget's code, and
 * mounts the widget once they and the trip are in.
 */
async function show(inst: Instance, o: CheckedShow, opts: CreateSvcOptions): Promise<void> {
  // Only the offers this widget shows (the bags alone are a few KB of a search's 450), asked for as
  // soon as the trip names its search, beside the rest of init (the texts).
  const types = o.products.map((p) => PRODUCT_TYPE[p])
  const offers = inst.session.loadOffers(types)
  offers.catch(() => {})
  const elements = opts.loadElements?.()
  elements?.catch(() => {})
  try {
    await inst.ready
  } catch (e) {
    throw new SvcError('not_initialized', `Svc.init failed, so there is nothing to show: ${asSvcError(e).message}`, {
      cause: e,
    })
  }
  const host = typeof o.container === 'string' ? document.getElementById(o.container) : o.container
  if (!host?.isConnected) {
    throw new SvcError(
      'container_not_found',
      typeof o.container === 'string'
        ? `No element with id "${o.container}" is in the page.`
        : 'The container element is not in the page.',
    )
  }
  if (o.unknownThemeKeys.length > 0)
    console.warn(`Svc.showUpsell: ignoring unknown theme keys ${o.unknownThemeKeys.join(', ')}.`)
  // A failed load (network, say) rejects with its SvcError; a later showUpsell asks again. An airline
  // still searching, or whose search failed, is the widget's to show (loading, or error and "Try again").
  const early = await offersOrSearching(inst.session, types, offers)
  await elements?.catch((e: unknown) => {
    throw new SvcError('network', "The widget's code could not be loaded.", { cause: e })
  })
  // Checked once both are in: a later init (or destroy) may have closed this trip while either loaded.
  if (inst.listeners.signal.aborted) throw replaced()
  return mount(inst, host, o, early && offers, opts.loadTimeoutMs ?? 30_000)
}

/**
 * Mounts `<svc-upsell>` in `host`, in place of a widget there. `offers`: the widget is shown before its
 * offers (the airline still searching), so every product is shown, and those not on sale once the offers
 * come are not waited for; otherwise only those on sale now.
 */
function mount(
  inst: Instance,
  host: HTMLElement,
  o: CheckedShow,
  offers: Promise<void> | false,
  timeoutMs: number,
): Promise<void> {
  const named = typeof o.container === 'string' ? `"${o.container}"` : 'the container'
  // The widget's own rule for "on sale" (allowances alone are not an offer), so the products awaited
  // below are exactly the ones it shows and reports as loaded (shown early: once the offers say).
  // And those whose offers failed alone (the airline gave the bags, not its seat maps): the widget shows their error.
  const offered = () =>
    o.products.filter(
      (p) => isOffered(inst.session.state.search, p) || inst.session.state.offers[PRODUCT_TYPE[p]]?.error,
    )
  const none = () => new SvcError('no_products', `None of ${o.products.join(', ')} is offered on this trip.`)
  const products = offers ? o.products : offered()
  if (products.length === 0) throw none()

  unmount(
    inst,
    host,
    new SvcError('internal', `A later Svc.showUpsell replaced the widget in ${named} before it loaded.`),
  )
  const listeners = new AbortController()

  // Resolves once each product shown has loaded, rejects on the first failure or after `timeoutMs`; a
  // later showUpsell or init that removes the widget settles it too.
  return new Promise<void>((resolve, reject) => {
    const pending = new Set<ProductName>(products)
    let settled = false
    const settle = (error?: SvcError) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error) reject(error)
      else resolve()
    }
    const timer = setTimeout(
      () =>
        settle(
          new SvcError('internal', `The widget in ${named} did not load within ${Math.round(timeoutMs / 1000)} s.`),
        ),
      timeoutMs,
    )
    const el = upsellElement(inst, o, products, listeners.signal, pending, settle)
    inst.widgets.set(host, { el, listeners, cancel: settle })
    // Shown before its offers: what is not on sale once they come is not waited for.
    if (offers) {
      offers.then(
        () => {
          const on = offered()
          for (const p of pending) if (!on.includes(p)) pending.delete(p)
          if (pending.size === 0) settle(on.length ? undefined : none())
        },
        () => {},
      )
    }
    host.append(el)
  })
}

/**
 * `<svc-upsell>` showing `products` of the trip, its lifecycle events relayed as the seller's callbacks
 * (the bag and seat ones: LIFECYCLE) and as the end of the wait of `showUpsell`: each product that loads
 * leaves `pending`, the last one or the first failure `settle`s it.
 */
function upsellElement(
  inst: Instance,
  o: CheckedShow,
  products: ProductName[],
  signal: AbortSignal,
  pending: Set<ProductName>,
  settle: (error?: SvcError) => void,
): UpsellElement {
  const el = document.createElement('svc-upsell') as UpsellElement
  el.session = inst.session
  el.display = o.display
  el.products = products
  el.theme = o.theme
  el.locale = inst.locale ?? documentLocale()
  const call = (
    e: CustomEvent<SvcLifecycleDetail>,
    kind: 'Load' | 'ModalClosed' | 'Fail',
    extra?: { error: SvcError },
  ) => {
    const { product, display = o.display } = e.detail
    const of = LIFECYCLE[product]
    const name = of && (`on${of}${kind}` as const)
    if (name)
      safeCall(name, inst.callbacks[name] as (ev: WidgetEvent) => void, { container: o.container, display, ...extra })
    return product
  }
  el.addEventListener(
    'svc-load',
    (e: CustomEvent<SvcLifecycleDetail>) => {
      pending.delete(call(e, 'Load'))
      if (pending.size === 0) settle()
    },
    { signal },
  )
  el.addEventListener('svc-modal-close', (e: CustomEvent<SvcLifecycleDetail>) => call(e, 'ModalClosed'), { signal })
  el.addEventListener(
    'svc-fail',
    (e: CustomEvent<SvcFailDetail>) => {
      const error = asSvcError(e.detail.error)
      // Nothing on sale (known only once a widget shown early has its offers) is no failure, as before.
      if (error.code !== 'no_products') call(e, 'Fail', { error })
      settle(error)
    },
    { signal },
  )
  return el
}

export function createSvc(opts: CreateSvcOptions = {}): SvcApi {
  const defaultBaseUrl = opts.scriptUrl ? new URL(opts.scriptUrl).origin : null
  let current: Instance | null = null
  /** The latest init (a sandbox one sets `current` only once the sandbox is loaded); inits counts them. */
  let opening: Promise<void> | undefined
  let inits = 0
  const sandbox = sandboxLoader(opts.scriptUrl ?? null, { addLocale, SvcError, session: () => current?.session })

  /** `Svc.init`: closes the trip open before, opens this one (the sandbox's, when asked for) and loads it. */
  async function start(options: InitOptions): Promise<void> {
    const o = checkInitOptions(options, defaultBaseUrl)
    setStrings(o.strings)
    if (current) close(current)
    current = null
    const n = ++inits
    // Sandbox: svc-sandbox.min.js (loaded now) names the trip and answers every call in the page.
    const s = o.sandbox ? await sandbox.open(o) : null
    if (n !== inits) return // replaced by a later init while the sandbox loaded
    if (s) Object.assign(o, s)
    const inst = (current = newInstance(o, s?.fetch))
    // The script's folder serves the texts (the ESM build has no script: the API's origin serves the same files).
    const base = opts.scriptUrl ?? `${o.baseUrl}/javascript/v2.2/`
    const drop = () => {
      current = null
      close(inst)
    }
    return (inst.ready = loadTrip(inst, base, drop))
  }

  /** `Svc.showUpsell`: asks for the offers it shows at once, then mounts the widget once all it needs is in. */
  async function showUpsell(options: ShowUpsellOptions): Promise<void> {
    const o = checkShowOptions(options)
    if (!current) await opening?.catch(() => {})
    const inst = current
    if (!inst) throw new SvcError('not_initialized', 'Call Svc.init before Svc.showUpsell.')
    return show(inst, o, opts)
  }

  return Object.freeze({
    version: '2.2' as const,
    init: (options: InitOptions) => (opening = start(options)),
    showUpsell,
    destroy() {
      // A pending init (a sandbox one still loading) is outrun: it finds it is no longer the latest.
      inits++
      opening = undefined
      if (current) close(current, new SvcError('not_initialized', 'Svc.destroy ended the session.'))
      current = null
    },
    formatPrice(amount: number, decimalPlaces: number, currency: string): string {
      checkPriceArgs(amount, decimalPlaces, currency)
      return intlPrice(amount, decimalPlaces, currency.toUpperCase(), current?.locale ?? documentLocale())
    },
    async refresh(): Promise<void> {
      if (!current) await opening?.catch(() => {})
      const inst = current
      if (!inst) throw new SvcError('not_initialized', 'Call Svc.init before Svc.refresh.')
      await inst.ready
      await inst.session.reload().catch((e: unknown) => {
        throw asSvcError(e)
      })
    },
    SvcError,
    sandbox: sandbox.api,
  })
}
