/**
 * The SDK's wiring: the trip opened in the SDK (with a token from this shop's backend), and its widgets
 * (bags, seats, other extras) shown in the page's boxes in the shop's colours.
 */
import { accessToken } from './api.ts'
import { $, announce } from './dom.ts'
import { loadedTrip, state } from './state.ts'
import { sdk } from './sdk.ts'
import type { BasketChange, ShowUpsellOptions, SvcError, Theme } from '../../../sdk/index.ts'

// On one line, as a seller edits it (test/e2e/checkout.test.ts gives it a dark mode that way).
const THEME = { primary: '#0b4f9c', primaryText: '#ffffff', radius: '10px', font: 'inherit', focusRing: '#f5a623' }
// The shop is light only (color-scheme: light), and its ink reaches the widgets (--svc-color-text): under a
// dark system setting they keep its light colours too, rather than their own dark surfaces under its dark
// ink. A shop with a dark mode gives its dark colours in THEME.dark instead, which wins.
const LIGHT_ALWAYS: Theme['dark'] = {
  textPrimary: '#14213d',
  textSecondary: '#55627a',
  background: '#ffffff',
  surface: '#f6f8fa',
  primary: '#0b4f9c',
  primaryText: '#ffffff',
  border: '#d0d7de',
  success: '#1a7f37',
  warning: '#9a6700',
  danger: '#cf222e',
}

/** A widget of the page: the box it is shown in, and where its errors go (`extras-error` unless said). */
export interface WidgetSpot extends Omit<ShowUpsellOptions, 'container' | 'theme'> {
  container: string
  errorBox?: string
}

const WIDGETS: WidgetSpot[] = [
  { container: 'bags', display: 'embedded', allowProducts: ['bags'] },
  { container: 'seats', display: 'card', allowProducts: ['seats'] },
  {
    container: 'more-extras',
    display: 'card',
    allowProducts: ['priority_boarding', 'automatic_check_in', 'fare_family_upsell'],
  },
]

/** The bag widget again once the trip is booked: bags added then are ordered by a later payment. */
export const MANAGE_WIDGETS: WidgetSpot[] = [
  { container: 'manage-bags', display: 'embedded', allowProducts: ['bags'], errorBox: 'manage-extras-error' },
]

/** What the page does with each basket change (main.ts: the summary, the review and the new extras follow it). */
let basketListener: (change: BasketChange) => void = () => {}

export function followBasket(listener: (change: BasketChange) => void): void {
  basketListener = listener
}

/** The SDK asks for a fresh access token through this shop's backend, which keeps the refresh token. */
export async function freshToken(): Promise<string> {
  const { trip_access_token } = await accessToken(loadedTrip().trip_id)
  state.token = trip_access_token
  state.tokenAt = Date.now()
  return trip_access_token
}

function showWidget({ errorBox, ...w }: WidgetSpot): Promise<void> {
  const el = $(w.container)
  el.hidden = false
  return sdk()
    .showUpsell({ ...w, theme: { dark: LIGHT_ALWAYS, ...THEME } })
    .catch((err: SvcError) => {
      // A replaced widget (a later init) is expected; nothing to sell here hides the box.
      if (err.code === 'no_products') el.hidden = true
      else if (err.code !== 'not_initialized' && err.code !== 'internal') showExtrasError(err, errorBox)
    })
}

export function showExtrasError(err: Error, errorBox = 'extras-error'): void {
  const box = $(errorBox)
  box.textContent = `Some extras could not be shown: ${err.message}`
  box.hidden = false
}

/**
 * Opens the trip in the SDK and shows the widgets (the checkout's, or `widgets`). Called again after the
 * backend changed the basket (a check, an accepted price, a removal): a new init reads the basket as it is now.
 */
export async function openWidgets(widgets = WIDGETS): Promise<void> {
  const gen = ++state.generation
  for (const w of widgets) $(w.errorBox ?? 'extras-error').hidden = true
  // Tokens live 30 minutes; an old one is renewed first so the widgets start with a good one.
  if (!state.token || Date.now() - state.tokenAt > 20 * 60_000) await freshToken()
  await sdk().init({
    tripId: loadedTrip().trip_id,
    tripAccessToken: state.token!,
    getAccessToken: freshToken,
    locale: 'en-GB',
    onBasketChange: (change) => basketListener(change),
    onBagFail: ({ error }) => {
      if (error.code !== 'no_products') announce(`Bags: ${error.message}`)
    },
    onSeatFail: ({ error }) => {
      if (error.code !== 'no_products') announce(`Seats: ${error.message}`)
    },
  })
  if (gen !== state.generation) return
  await Promise.all(widgets.map(showWidget))
}

/** The extras can no longer change while the traveller pays, or once the trip is booked. */
export function lockExtras(locked: boolean): void {
  $('extras').inert = locked
  $('extras').classList.toggle('locked', locked)
}
