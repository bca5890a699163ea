/**
 * One way to write a widget's stories: `widgetStories(tag, …)` gives the meta (controls and docs come from
 * custom-elements.json through the file's `component` tag) and `story(display, state, variant)` one story. Each
 * story loads its own sandbox trip (support/trip.ts), renders the element on it as a seller's page would,
 * and its play function checks that the state the story is named after is what a traveller sees; the
 * a11y addon then runs axe on it (preview.ts fails the test on any violation).
 */
import { html, type TemplateResult } from 'lit'
import { html as staticHtml, unsafeStatic } from 'lit/static-html.js'
import { ifDefined } from 'lit/directives/if-defined.js'
import type { Meta, StoryObj } from '@storybook/web-components-vite'
import { expect, waitFor } from 'storybook/test'
import { themeDeclarations, tokenVars } from '../../components/theme.ts'
import { LOCALES } from '../../components/i18n/index.ts'
import type { Session } from '../../client/session.ts'
import type { Display, Theme } from '../../client/types.ts'
import type { ProductTypeName } from '../../core/schemas/trip.ts'
import { animationsDone, deep, deepAll, overflowing, textOf } from '../../test/dom.ts'
import { storySession, type Party, type StoryState } from './trip.ts'

export interface WidgetArgs {
  display: Display
  /** Overrides the trip's language (texts, prices, dates, direction). */
  locale?: string
  /** `<svc-option-card>`'s product. */
  product?: string
}

export type Look = 'default' | 'dark' | 'seller'

/** What a story asks of its trip and page, in `parameters.svc`. */
export interface StoryParams {
  state: StoryState
  party?: Party
  language?: string
  look?: Look
  /** `<svc-option-card>`'s product, when not the meta's. */
  product?: string
  /** The flight number of the trip's segments, for its aircraft (BA 1: an A380, ten abreast). */
  flight?: string
  /** The width of the seller's column the element sits in (e.g. `260px`), narrower than the screen. */
  column?: string
  /** The offers as a real airline's come (support/trip.ts). */
  search?: 'duffel_like'
}

export type WidgetStory = StoryObj<WidgetArgs>

/** A seller's brand, set as a seller sets it: `--svc-*` custom properties on a container (or `theme` in Svc.init). */
export const SELLER_THEME: Theme = {
  primary: '#6b1e78',
  primaryText: '#ffffff',
  textPrimary: '#2a1a2e',
  textSecondary: '#5d4a63',
  surface: '#f8f2fa',
  border: '#d9c6df',
  radius: '2px',
  font: "Georgia, 'Times New Roman', serif",
  spacing: '10px',
}

/**
 * The built-in dark palette as `--svc-*` declarations, read from tokenVars' `prefers-color-scheme: dark`
 * block (its one source), so the dark story shows the palette a dark-mode traveller gets.
 */
export function darkDeclarations(): string {
  const block = tokenVars.cssText.slice(tokenVars.cssText.indexOf('prefers-color-scheme: dark'))
  return [...block.matchAll(/--_[\w-]+:\s*var\((--svc-[\w-]+),\s*([^;]+)\);/g)]
    .map(([, prop, value]) => `${prop}: ${value};`)
    .join(' ')
}

function page(look: Look | undefined, content: TemplateResult, column?: string): TemplateResult {
  if (column) return html`<div style="inline-size: ${column}">${page(look, content)}</div>`
  if (look === 'dark')
    return html`<div style="${darkDeclarations()} background: #0d1117; color-scheme: dark; padding: 16px">${content}</div>`
  if (look === 'seller') return html`<div style=${themeDeclarations(SELLER_THEME)}>${content}</div>`
  return content
}

const PART: Record<
  Exclude<StoryState, 'offers' | 'loading' | 'valid' | 'error' | 'no_products' | 'purchased'>,
  string
> = {
  checking: '[part~="state-checking"], [part~="badge-checking"]',
  price_changed: '[part~="state-price-changed"], [part~="badge-price_changed"]',
  unavailable: '[part~="state-unavailable"], [part~="badge-unavailable"]',
  expired: '[part~="state-invalid"], [part~="badge-invalid"]',
}

/** Waits until the element shows `state`, as a traveller would see it, and nothing moves any more. */
async function shows(el: Element, session: Session, p: StoryParams) {
  const busy = () => deep(el, '[aria-busy="true"]')
  const extras = () =>
    Object.values(session.state.basket).filter((i) => i.product_type !== 'ticket' && i.order_id === undefined)
  await waitFor(
    () => {
      switch (p.state) {
        case 'loading':
          return expect(busy(), 'a skeleton marked aria-busy').not.toBeNull()
        case 'error':
          return expect(deep(el, '[part~="error"]'), 'the load error with Try again').not.toBeNull()
        case 'no_products':
          return expect(deep(el, '[part~="empty"]'), 'the nothing-offered message').not.toBeNull()
        case 'offers':
          expect(busy()).toBeNull()
          return expect(extras()).toHaveLength(0)
        case 'valid':
          expect(busy()).toBeNull()
          expect(extras().length, 'chosen items').toBeGreaterThan(0)
          expect(extras().every((i) => i.validity.status === 'valid')).toBe(true)
          return expect(deepAll(el, Object.values(PART).join(', ')), 'no item needing action').toHaveLength(0)
        case 'purchased':
          expect(busy()).toBeNull()
          expect(
            Object.values(session.state.basket).filter((i) => i.order_status === 'succeeded').length,
            'items bought',
          ).toBeGreaterThan(0)
          expect(extras(), 'nothing left to pay for').toHaveLength(0)
          return expect(textOf(el)).toContain('Purchased')
        default:
          return expect(deep(el, PART[p.state]), `an item shown as ${p.state}`).not.toBeNull()
      }
    },
    { timeout: 8000 },
  )
  await animationsDone(el)
}

/** What the story's variant promises beyond its state: names shown, no overflow, right-to-left. */
function keepsPromises(el: Element, p: StoryParams, display: Display) {
  if (p.language === 'ar-SA') expect((el as HTMLElement).dir, 'laid out right to left').toBe('rtl')
  // A real airline's map: its two cabins on one deck, each named (in the card display, once its dialog opens).
  if (p.search === 'duffel_like' && el.localName === 'svc-seat-map' && display !== 'card') {
    expect(deepAll(el, '[part="cabin"]').map(textOf), 'both cabins named').toEqual(['Business', 'Economy'])
    expect(deepAll(el, '[data-wing]'), 'no wing the airline does not state').toHaveLength(0)
  }
  // A card shows a summary; the passengers are in the panel (embedded, or the modal's dialog).
  if (display === 'card' || !p.party) return
  const text = textOf(el)
  for (const name of NAMES[p.party]) expect(text).toContain(name)
  if (p.party === 'long_names' && display === 'embedded') expect(overflowing(el), 'nothing sticks out').toEqual([])
}

const NAMES: Record<Party, string[]> = {
  family: ['Amelia', 'Tom', 'Lily'],
  one: ['Ada'],
  five: ['Amelia', 'Tom', 'Grace', 'Oscar', 'Lily'],
  long_names: ['Wolfeschlegelsteinhausenbergerdorff'],
}

/**
 * The meta of `tag`'s stories but for `title` and `component`, which the file writes out (Storybook reads
 * them without running the file): rendering, the sandbox loader, controls for display and locale.
 */
export function widgetStories(
  tag: string,
  products: ProductTypeName[],
  o: { description?: string; product?: string; displays?: boolean } = {},
): Omit<Meta<WidgetArgs>, 'title' | 'component'> {
  const t = unsafeStatic(tag)
  return {
    args: { display: 'embedded', ...(o.product ? { product: o.product } : {}) },
    argTypes: {
      display:
        o.displays === false
          ? { table: { disable: true } }
          : { control: 'inline-radio', options: ['card', 'embedded', 'modal'] },
      locale: { control: 'select', options: [undefined, ...LOCALES] },
      ...(o.product
        ? {
            product: {
              control: 'inline-radio',
              options: ['priority_boarding', 'automatic_check_in', 'fare_family_upsell'],
            },
          }
        : {}),
    },
    parameters: { docs: { description: { component: o.description } } },
    loaders: [
      async ({ parameters }) => ({ session: await storySession({ ...(parameters['svc'] as StoryParams), products }) }),
    ],
    render: (args, { loaded, parameters }) =>
      page(
        (parameters['svc'] as StoryParams).look,
        staticHtml`
      <${t} display=${ifDefined(o.displays === false ? undefined : args.display)} locale=${ifDefined(args.locale)} product=${ifDefined(args.product)}
        .session=${loaded['session'] as Session}></${t}>`,
        (parameters['svc'] as StoryParams).column,
      ),
  }
}

/**
 * The variants every widget has a story of in each display, beside its states. Storybook indexes a story
 * file without running it, so each file names its stories (`CardOffers`, `ModalDarkTheme`…); the built
 * index is checked against STATES × VARIANTS × displays in test/e2e/storybook.test.ts.
 */
export const VARIANTS = {
  OnePassenger: { state: 'valid', party: 'one' },
  FivePassengersLapInfant: { state: 'valid', party: 'five' },
  LongNames: { state: 'valid', party: 'long_names' },
  RightToLeft: { state: 'price_changed', language: 'ar-SA' },
  DarkTheme: { state: 'price_changed', look: 'dark' },
  SellerTheme: { state: 'valid', look: 'seller' },
} as const satisfies Record<string, StoryParams>

/** The story of a variant in a display. */
export function variant(display: Display, name: keyof typeof VARIANTS): WidgetStory {
  const { state, ...rest } = VARIANTS[name]
  return story(display, state, rest)
}

/** One story: `display` × `state`, with a passenger party, language or look when given. */
export function story(display: Display, state: StoryState, variant: Omit<StoryParams, 'state'> = {}): WidgetStory {
  const p: StoryParams = { state, ...variant }
  return {
    args: { display, ...(p.language ? { locale: p.language } : {}), ...(p.product ? { product: p.product } : {}) },
    parameters: {
      svc: p,
      // A dialog opened on mount would cover the docs page: modal stories show there in their own frame.
      ...(display === 'modal' ? { docs: { story: { inline: false, iframeHeight: 640 } } } : {}),
    },
    play: async ({ canvasElement, loaded, args, component }) => {
      const el = canvasElement.querySelector(String(component))
      if (!el) throw new Error(`no <${String(component)}> rendered`)
      await shows(el, loaded['session'] as Session, p)
      keepsPromises(el, p, args.display)
    },
  }
}

/**
 * Phone screens for the viewport toolbar, and for `npm run test:stories`, which sizes the page to the
 * story's viewport: the narrowest phone in use and the common small one, held upright.
 */
export const PHONES = {
  phone320: { name: 'Phone, 320 px', styles: { width: '320px', height: '640px' }, type: 'mobile' },
  phone375: { name: 'Phone, 375 px', styles: { width: '375px', height: '667px' }, type: 'mobile' },
} as const

/**
 * A story on a phone `width` px wide, the element as wide as the screen (a phone page's content) unless
 * the variant gives it a narrower `column`. Its play function opens the card's dialog and checks that
 * the seat map fits: no sideways scrolling, each seat on the screen and at least 24 × 24 px; in a
 * column too narrow for the cabin, the cabin's own box scrolls instead, its row numbers kept in view.
 */
export function phoneStory(
  width: 320 | 375,
  display: Display,
  state: StoryState,
  variant: Omit<StoryParams, 'state'> = {},
): WidgetStory {
  const base = story(display, state, variant)
  return {
    ...base,
    globals: { viewport: { value: `phone${width}`, isRotated: false } },
    parameters: { ...base.parameters, layout: 'fullscreen', viewport: { options: PHONES } },
    play: async (context) => {
      await base.play!(context)
      const el = context.canvasElement.querySelector(String(context.component))!
      if (context.args.display === 'card') {
        deep<HTMLButtonElement>(el, '[part~="open-button"]')!.click()
        await waitFor(() => expect(deep(el, '[role="grid"]'), 'the dialog with the cabin').not.toBeNull(), {
          timeout: 8000,
        })
        await animationsDone(el)
      }
      expect(window.innerWidth, 'the story runs at the phone width').toBe(width)
      expect(document.documentElement.scrollWidth, 'no sideways scrolling').toBeLessThanOrEqual(width)
      const box = deep(el, '[part="map"]')!
      const seats = deepAll(el, 'button[data-seat]').map((b) => b.getBoundingClientRect())
      expect(seats.length).toBeGreaterThan(100)
      for (const r of seats) expect(Math.min(r.width, r.height), 'a 24 px target').toBeGreaterThanOrEqual(24)
      if (variant.column) {
        expect(box.scrollWidth, 'the cabin scrolls in its own box').toBeGreaterThan(box.clientWidth)
        expect(getComputedStyle(deep(el, '[role="rowheader"]')!).position, 'row numbers stay in view').toBe('sticky')
        return
      }
      expect(box.scrollWidth, 'the cabin fits its box').toBeLessThanOrEqual(box.clientWidth)
      for (const r of seats) expect(r.left >= 0 && r.right <= width, 'each seat on the screen').toBe(true)
    },
  }
}
