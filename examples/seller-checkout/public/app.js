// SkyShop's checkout page. Plain JavaScript, no framework: it asks its own backend (/demo/api/...) for a
// trip, shows the ancillaries widgets with the SDK (window.Svc), mirrors the trip basket in its own
// booking summary through onBasketChange, and pays through the backend, which holds the API key.
'use strict'

const API = '/demo/api'
const STORAGE_KEY = 'skyshop.checkout'
/** Which view of a booked trip a reload comes back to: the confirmation, or 'manage'. */
const VIEW_KEY = 'skyshop.view'
const SCENARIO_NAMES = {
  normal: 'Normal',
  price_change: 'Price change',
  unavailable: 'Unavailable',
  slow_check: 'Slow check',
  fulfillment_fails: 'Fulfillment fails',
  cancellation_refused: 'Cancellation refused',
}
const THEME = { primary: '#0b4f9c', primaryText: '#ffffff', radius: '10px', font: 'inherit', focusRing: '#f5a623' }
// The shop is light only (color-scheme: light), and its ink reaches the widgets (--svc-color-text): under a
// dark system setting they keep its light colours too, rather than their own dark surfaces under its dark
// ink. A shop with a dark mode gives its dark colours in THEME.dark instead, which wins.
const LIGHT_ALWAYS = {
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
const STATE_TEXT = {
  valid: 'Confirmed price',
  checking: 'Checking…',
  price_changed: 'Price changed',
  unavailable: 'Unavailable',
  invalid: 'Price expired',
}
const ORDER_TEXT = {
  awaiting_ticketing: 'Waiting for the tickets',
  queued: 'Waiting',
  in_progress: 'Booking with the airline…',
  succeeded: 'Confirmed',
  failed: 'Not booked',
  cancelling: 'Cancelling…',
  cancelled: 'Cancelled',
}
/** Why the airline will not cancel an extra (a quote's `reason`). */
const CANCEL_REASONS = {
  non_refundable: 'The airline does not refund this extra.',
  too_close_to_departure: 'It is too close to departure: the airline refunds it only until 24 hours before the flight.',
  departed: 'The flight has already left.',
  no_answer: 'The airline did not answer. Please try again later.',
  not_cancellable: 'The airline cannot cancel it.',
}
const REASONS = {
  sandbox_unavailable: 'The airline no longer sells it.',
  no_longer_offered: 'The airline no longer offers it.',
  exit_row_age: 'Exit-row seats are for passengers aged 16 or over.',
  exit_row: 'Exit-row seats are not for children or for passengers with an infant on their lap.',
  infant_age: 'Not available at this passenger’s age.',
  quantity_limit: 'More than the airline allows.',
  check_failed: 'The airline could not be reached.',
}
const SAMPLE = {
  passengers: [
    { first_names: 'Ada', surname: 'Lovelace', date_of_birth: '1985-12-10' },
    { first_names: 'Charles', surname: 'Babbage', date_of_birth: '1981-12-26' },
    { first_names: 'Byron', surname: 'Lovelace', date_of_birth: null },
  ],
  email: 'ada@example.com',
  phone: '+44 20 7946 0000',
}

const $ = (id) => document.getElementById(id)

const state = {
  trip: null,
  token: null,
  tokenAt: 0,
  /** The trip basket as onBasketChange last gave it (validity.state), or as the backend last read it. */
  basket: {},
  /** 'shopping' | 'paying' | 'review' | 'paid' | 'blocked' | 'manage' */
  phase: 'shopping',
  ordersTimer: null,
  generation: 0,
  /** Managing the booked trip. */
  manage: {
    /** basket_item_id → where cancelling that extra stands: {step: 'quoting' | 'quote' | 'refused' | 'confirming' | 'error', quote?, error?, retry?}. */
    cancels: new Map(),
    /** While orders move (being booked or cancelled), the trip is read again every second. */
    timer: null,
    paying: false,
  },
}

// ---------------------------------------------------------------- small helpers

/** Creates an element: h('p', {class: 'x'}, 'text', child). */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === false || v === null || v === undefined) continue
    if (k === 'class') el.className = v
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
    else if (k === 'text') el.textContent = v
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c)
  return el
}

function announce(text) {
  const el = $('announcer')
  el.textContent = ''
  // A fresh node, so the same words twice are read twice.
  setTimeout(() => {
    el.textContent = text
  }, 50)
}

class ProblemError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || 'Something went wrong.')
    this.problem = problem
  }
}

/** Calls this shop's backend; a refusal (problem+json) becomes a ProblemError. */
async function backend(method, path, body) {
  let res
  try {
    res = await fetch(`${API}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    })
  } catch {
    throw new ProblemError({
      code: 'network',
      detail: 'The shop could not be reached. Check your connection and try again.',
    })
  }
  const data = await res.json().catch(() => ({}))
  if (!res.ok) throw new ProblemError({ status: res.status, ...data })
  return data
}

const money = (m) => Svc.formatPrice(m.amount, m.decimal_places, m.currency)
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`

function passengerName(id) {
  const trip = state.trip
  const i = trip.passengers.findIndex((p) => p.passenger_id === id)
  const p = trip.passengers[i]
  if (!p) return ''
  const name = [p.first_names, p.surname].filter(Boolean).join(' ')
  return name || `Passenger ${i + 1}`
}

function routeOfJourney(journeyId) {
  const j = state.trip.journeys.find((x) => x.journey_id === journeyId)
  return j ? `${j.segments[0].departure_airport} → ${j.segments.at(-1).arrival_airport}` : ''
}

function routeOfSegment(segmentId) {
  for (const j of state.trip.journeys) {
    const s = j.segments.find((x) => x.segment_id === segmentId)
    if (s) return `${s.departure_airport} → ${s.arrival_airport}`
  }
  return ''
}

/** "Ada Lovelace · LHR → JFK": whom and which flight an extra is for. */
function itemContext(item) {
  const d = item.product_details ?? {}
  const parts = []
  if (d.passenger_id) parts.push(passengerName(d.passenger_id))
  if (d.segment_id) parts.push(routeOfSegment(d.segment_id))
  else if (d.journey_id) parts.push(routeOfJourney(d.journey_id))
  return parts.filter(Boolean).join(' · ')
}

const statusOf = (item) => item.validity.state ?? item.validity.status
/** The backend reads the API, which says `status`; the SDK's callbacks say `state`. Keep one shape. */
const asCallbackBasket = (basket) =>
  Object.fromEntries(
    Object.entries(basket).map(([id, item]) => {
      const { status, ...rest } = item.validity
      return [id, { ...item, validity: { state: item.validity.state ?? status, ...rest } }]
    }),
  )

const items = () => Object.values(state.basket)
const ticketItems = () => items().filter((i) => i.product_type === 'ticket')
const extraItems = () => items().filter((i) => i.product_type !== 'ticket')
/** The total of some items, as money (integer minor units); null for none. */
function sumOf(list) {
  if (list.length === 0) return null
  const first = list[0].price.total
  return {
    amount: list.reduce((n, i) => n + i.price.total.amount, 0),
    currency: first.currency,
    decimal_places: first.decimal_places,
  }
}
const basketTotal = () => sumOf(items())
/** After booking: an extra added since, that no payment has ordered yet (the booked flight is bought). */
const isNewExtra = (i) => i.product_type !== 'ticket' && !i.order_id
/** Part of the booking as it stands: the flight, and the extras ordered and neither cancelled nor failed. */
const isBooked = (i) => !isNewExtra(i) && !['cancelled', 'failed'].includes(i.order_status)

// ---------------------------------------------------------------- trip summary

const dateFmt = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
})
/** Local times as the airline prints them: the clock time written in the timestamp, at its own offset. */
const clock = (iso) => iso.slice(11, 16)
const dateOf = (iso) => dateFmt.format(new Date(`${iso.slice(0, 10)}T12:00:00Z`))

function renderTrip() {
  const trip = state.trip
  const adults = trip.passengers.filter((p) => p.type === 'adult').length
  const infants = trip.passengers.filter((p) => p.type === 'infant').length
  const ticket = trip.tickets[0]
  const first = trip.journeys[0].segments[0]
  const last = trip.journeys[0].segments.at(-1)
  const title = `${first.departure_city_name} → ${last.arrival_city_name}${trip.journeys.length > 1 ? ', return' : ''}`
  const journeys = trip.journeys.map((j, i) => {
    const a = j.segments[0]
    const b = j.segments.at(-1)
    const overnight = a.departure_time.slice(0, 10) !== b.arrival_time.slice(0, 10)
    return h(
      'li',
      { class: 'journey' },
      h(
        'p',
        { class: 'journey-label' },
        i === 0 ? 'Outbound' : 'Return',
        ' · ',
        h('time', { datetime: a.departure_time.slice(0, 10) }, dateOf(a.departure_time)),
      ),
      h(
        'p',
        { class: 'journey-times' },
        h('span', { class: 'time' }, clock(a.departure_time)),
        h('span', { class: 'iata' }, a.departure_airport),
        h('span', { class: 'line', 'aria-hidden': 'true' }),
        h(
          'span',
          { class: 'time' },
          clock(b.arrival_time),
          overnight ? h('sup', { title: 'Arrives the next day' }, '+1') : null,
        ),
        h('span', { class: 'iata' }, b.arrival_airport),
      ),
      h(
        'p',
        { class: 'muted small' },
        `${a.departure_airport_name} to ${b.arrival_airport_name} · British Airways ${a.marketing_airline} ${a.marketing_flight_number} · Economy (${a.fare_family})`,
      ),
    )
  })
  $('trip-summary').replaceChildren(
    h('p', { class: 'trip-title' }, title),
    h('ul', { class: 'journeys' }, journeys),
    h(
      'p',
      { class: 'travellers' },
      `${plural(adults, 'adult', 'adults')}, ${plural(infants, 'infant', 'infants')} on a lap · Ticket price `,
      h(
        'strong',
        {},
        ticket.offered_price
          ? Svc.formatPrice(
              ticket.offered_price.total,
              ticket.offered_price.decimal_places,
              ticket.offered_price.currency,
            )
          : '',
      ),
    ),
  )
  $('trip-summary').removeAttribute('aria-busy')
  $('scenario-current').textContent = SCENARIO_NAMES[trip.scenario] ?? trip.scenario
  for (const input of document.querySelectorAll('input[name="scenario"]')) input.checked = input.value === trip.scenario
}

// ---------------------------------------------------------------- the booking summary (the seller's basket)

function badge(item) {
  const s = statusOf(item)
  if (state.phase === 'manage') {
    // After booking: what became of each bought extra, and which are new (not paid for yet).
    if (item.order_status && item.order_status !== 'succeeded')
      return h(
        'span',
        { class: `badge badge-order-${item.order_status}` },
        ORDER_TEXT[item.order_status] ?? item.order_status,
      )
    if (isNewExtra(item) && s === 'valid') return h('span', { class: 'badge badge-new' }, 'New, not paid yet')
  }
  if (s === 'valid') return null
  return h('span', { class: `badge badge-${s}` }, STATE_TEXT[s] ?? s)
}

function renderBasket() {
  const lines = items()
    .sort((a, b) => (a.product_type === 'ticket' ? -1 : b.product_type === 'ticket' ? 1 : 0))
    .map((item) => {
      const prev = item.validity.previous_price?.total
      const ended = state.phase === 'manage' && ['cancelled', 'failed'].includes(item.order_status)
      return h(
        'li',
        {
          class: `line line-${statusOf(item)}${ended ? ' line-ended' : ''}`,
          'data-item': item.basket_item_id,
          'data-type': item.product_type,
        },
        h(
          'div',
          { class: 'line-what' },
          h(
            'span',
            { class: 'line-name' },
            item.quantity > 1 ? `${item.display_name} × ${item.quantity}` : item.display_name,
          ),
          item.product_type === 'ticket'
            ? h('span', { class: 'line-context' }, `${state.trip.passengers.length} travellers`)
            : h('span', { class: 'line-context' }, itemContext(item)),
          badge(item),
        ),
        h(
          'div',
          { class: 'line-price' },
          prev && statusOf(item) === 'price_changed'
            ? h('s', { class: 'was' }, h('span', { class: 'visually-hidden' }, 'was '), money(prev))
            : null,
          h('span', {}, money(item.price.total)),
        ),
      )
    })
  if (extraItems().length === 0) lines.push(h('li', { class: 'line empty muted' }, 'No extras yet'))
  $('basket-lines').replaceChildren(...lines)
  const managing = state.phase === 'manage'
  const total = managing ? sumOf(items().filter(isBooked)) : basketTotal()
  $('basket-total').textContent = total ? money(total) : '–'
  $('basket-total-label').textContent = managing
    ? 'Your booking'
    : state.phase === 'paid'
      ? 'Total paid'
      : 'Total to pay'
  const added = managing ? sumOf(items().filter(isNewExtra)) : null
  $('basket-new').hidden = !added
  $('basket-new-total').textContent = added ? money(added) : ''
  updatePayButton()
}

function updatePayButton() {
  const total = basketTotal()
  const button = $('pay-button')
  button.textContent = total ? `Pay ${money(total)}` : 'Pay'
  button.hidden = state.phase === 'blocked'
  button.disabled =
    !total ||
    state.phase === 'paying' ||
    state.phase === 'paid' ||
    state.phase === 'blocked' ||
    needsAction().length > 0
}

/** Items the traveller must decide on before paying (the ticket cannot be removed, so it blocks instead). */
const needsAction = () => items().filter((i) => ['price_changed', 'unavailable'].includes(statusOf(i)))

function onBasketChange({ basket }) {
  state.basket = basket
  renderBasket()
  if (state.phase === 'review' || state.phase === 'blocked') renderReview()
  if (state.phase === 'manage') renderNewExtras()
}

// ---------------------------------------------------------------- the widgets

/** The SDK asks for a fresh access token through this shop's backend, which keeps the refresh token. */
async function freshToken() {
  const { trip_access_token } = await backend('POST', `/checkout/${state.trip.trip_id}/token`)
  state.token = trip_access_token
  state.tokenAt = Date.now()
  return trip_access_token
}

const WIDGETS = [
  { container: 'bags', display: 'embedded', allowProducts: ['bags'] },
  { container: 'seats', display: 'card', allowProducts: ['seats'] },
  {
    container: 'more-extras',
    display: 'card',
    allowProducts: ['priority_boarding', 'automatic_check_in', 'fare_family_upsell'],
  },
]

/** The bag widget again once the trip is booked: bags added then are ordered by a later payment. */
const MANAGE_WIDGETS = [
  { container: 'manage-bags', display: 'embedded', allowProducts: ['bags'], errorBox: 'manage-extras-error' },
]

function showWidget({ errorBox, ...w }) {
  const el = $(w.container)
  el.hidden = false
  return Svc.showUpsell({ ...w, theme: { dark: LIGHT_ALWAYS, ...THEME } }).catch((err) => {
    // A replaced widget (a later init) is expected; nothing to sell here hides the box.
    if (err.code === 'no_products') el.hidden = true
    else if (err.code !== 'not_initialized' && err.code !== 'internal') showExtrasError(err, errorBox)
  })
}

function showExtrasError(err, errorBox = 'extras-error') {
  const box = $(errorBox)
  box.textContent = `Some extras could not be shown: ${err.message}`
  box.hidden = false
}

/**
 * Opens the trip in the SDK and shows the widgets (the checkout's, or `widgets`). Called again after the
 * backend changed the basket (a check, an accepted price, a removal): a new init reads the basket as it is now.
 */
async function openWidgets(widgets = WIDGETS) {
  const gen = ++state.generation
  for (const w of widgets) $(w.errorBox ?? 'extras-error').hidden = true
  // Tokens live 30 minutes; an old one is renewed first so the widgets start with a good one.
  if (!state.token || Date.now() - state.tokenAt > 20 * 60_000) await freshToken()
  await Svc.init({
    tripId: state.trip.trip_id,
    tripAccessToken: state.token,
    getAccessToken: freshToken,
    locale: 'en-GB',
    onBasketChange,
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

function lockExtras(locked) {
  $('extras').inert = locked
  $('extras').classList.toggle('locked', locked)
}

// ---------------------------------------------------------------- travellers form

const DOB_MIN = '1900-01-01'
const today = () => new Date().toISOString().slice(0, 10)

function passengerRole(p, i) {
  if (p.type === 'infant') {
    const holder = state.trip.passengers.findIndex((x) => x.passenger_id === p.on_lap_of)
    return `Passenger ${i + 1}: infant on passenger ${holder + 1}’s lap`
  }
  return `Passenger ${i + 1}: adult${i === 0 ? ' (lead passenger)' : ''}`
}

function field(id, label, input, hint) {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null,
    h('p', { class: 'field-error', id: `${id}-error`, hidden: true }),
    input,
  )
}

function renderPassengerFields() {
  const groups = state.trip.passengers.map((p, i) => {
    const id = (name) => `p${i}-${name}`
    const describedBy = (name, hint) =>
      [hint ? `${id(name)}-hint` : null, `${id(name)}-error`].filter(Boolean).join(' ')
    return h(
      'fieldset',
      { class: 'passenger', 'data-passenger': p.passenger_id },
      h('legend', {}, passengerRole(p, i)),
      h(
        'div',
        { class: 'field-row' },
        field(
          id('first'),
          'First names',
          h('input', {
            id: id('first'),
            name: `${p.passenger_id}.first_names`,
            autocomplete: i === 0 ? 'given-name' : 'off',
            'aria-describedby': describedBy('first'),
            value: p.first_names ?? '',
          }),
        ),
        field(
          id('surname'),
          'Surname',
          h('input', {
            id: id('surname'),
            name: `${p.passenger_id}.surname`,
            autocomplete: i === 0 ? 'family-name' : 'off',
            'aria-describedby': describedBy('surname'),
            value: p.surname ?? '',
          }),
        ),
      ),
      field(
        id('dob'),
        'Date of birth',
        h('input', {
          id: id('dob'),
          name: `${p.passenger_id}.date_of_birth`,
          type: 'date',
          min: DOB_MIN,
          max: today(),
          autocomplete: i === 0 ? 'bday' : 'off',
          'aria-describedby': describedBy('dob', true),
          value: p.date_of_birth ?? '',
        }),
        p.type === 'infant' ? 'Under 2 on the day of the return flight.' : 'Aged 12 or over on the day of travel.',
      ),
    )
  })
  $('passenger-fields').replaceChildren(...groups)
}

function ageOn(birth, on) {
  const [by, bm, bd] = birth.split('-').map(Number)
  const [y, m, d] = on.split('-').map(Number)
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0)
}

const NAME = /^\p{L}[\p{L}\p{M}' .-]{0,49}$/u
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const PHONE = /^\+?[0-9 ()-]{6,20}$/

/** The form's values in the backend's shape, and every problem as {input id, message}. */
function readForm() {
  const departures = state.trip.journeys.map((j) => j.segments[0].departure_time.slice(0, 10))
  const errors = []
  const passengers = state.trip.passengers.map((p, i) => {
    const value = (name) => $(`p${i}-${name}`).value.trim().replace(/\s+/g, ' ')
    const first = value('first')
    const surname = value('surname')
    const dob = value('dob')
    const who = i === 0 ? 'passenger 1' : `passenger ${i + 1}`
    if (!first) errors.push({ id: `p${i}-first`, message: `Enter the first names of ${who}` })
    else if (!NAME.test(first))
      errors.push({
        id: `p${i}-first`,
        message: `First names of ${who} may only have letters, spaces, hyphens and apostrophes`,
      })
    if (!surname) errors.push({ id: `p${i}-surname`, message: `Enter the surname of ${who}` })
    else if (!NAME.test(surname))
      errors.push({
        id: `p${i}-surname`,
        message: `Surname of ${who} may only have letters, spaces, hyphens and apostrophes`,
      })
    if (!dob) errors.push({ id: `p${i}-dob`, message: `Enter the date of birth of ${who}` })
    else if (dob > today()) errors.push({ id: `p${i}-dob`, message: `The date of birth of ${who} is in the future` })
    else if (dob < DOB_MIN) errors.push({ id: `p${i}-dob`, message: `Check the year of birth of ${who}` })
    else if (p.type === 'adult' && ageOn(dob, departures[0]) < 12)
      errors.push({ id: `p${i}-dob`, message: `An adult must be 12 or older on the day of travel (${who})` })
    else if (p.type === 'infant' && ageOn(dob, departures.at(-1)) >= 2)
      errors.push({ id: `p${i}-dob`, message: `An infant on a lap must be under 2 on the return flight (${who})` })
    return { passenger_id: p.passenger_id, first_names: first, surname, date_of_birth: dob }
  })
  const email = $('contact-email').value.trim()
  const phone = $('contact-phone').value.trim()
  if (!email) errors.push({ id: 'contact-email', message: 'Enter an email address' })
  else if (!EMAIL.test(email))
    errors.push({ id: 'contact-email', message: 'Enter an email address like name@example.com' })
  if (!phone) errors.push({ id: 'contact-phone', message: 'Enter a mobile phone number' })
  else if (!PHONE.test(phone))
    errors.push({ id: 'contact-phone', message: 'Enter a phone number with digits only, like +44 7700 900123' })
  return { form: { passengers, contact: { email, phone } }, errors }
}

/** The backend's JSON pointers (/passengers/1/surname, /contact/email) as the inputs they are about. */
function inputForPath(path) {
  const m = /^\/passengers\/(\d+)\/(first_names|surname|date_of_birth)/.exec(path)
  if (m) return `p${m[1]}-${{ first_names: 'first', surname: 'surname', date_of_birth: 'dob' }[m[2]]}`
  if (path.startsWith('/contact/email')) return 'contact-email'
  if (path.startsWith('/contact/phone')) return 'contact-phone'
  return null
}

function clearFieldErrors() {
  for (const el of document.querySelectorAll('#checkout-form .field-error')) {
    el.hidden = true
    el.textContent = ''
  }
  for (const el of document.querySelectorAll('#checkout-form [aria-invalid]')) el.removeAttribute('aria-invalid')
  $('form-errors').hidden = true
}

function showFieldErrors(errors) {
  clearFieldErrors()
  const list = []
  for (const e of errors) {
    const input = e.id && $(e.id)
    if (input) {
      input.setAttribute('aria-invalid', 'true')
      const msg = $(`${e.id}-error`)
      msg.textContent = e.message
      msg.hidden = false
    }
    list.push(
      h(
        'li',
        {},
        input
          ? h(
              'a',
              {
                href: `#${e.id}`,
                onclick: (ev) => {
                  ev.preventDefault()
                  input.focus()
                },
              },
              e.message,
            )
          : e.message,
      ),
    )
  }
  const summary = $('form-errors')
  summary.querySelector('ul').replaceChildren(...list)
  summary.hidden = false
  summary.focus()
}

function fillSample() {
  const infantBorn = new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10)
  SAMPLE.passengers.forEach((p, i) => {
    if (!$(`p${i}-first`)) return
    $(`p${i}-first`).value = p.first_names
    $(`p${i}-surname`).value = p.surname
    $(`p${i}-dob`).value = p.date_of_birth ?? infantBorn
  })
  $('contact-email').value = SAMPLE.email
  $('contact-phone').value = SAMPLE.phone
  clearFieldErrors()
  announce('Sample travellers filled in.')
}

// ---------------------------------------------------------------- pay

function setStep(step) {
  for (const li of document.querySelectorAll('.steps li')) {
    if (li.dataset.step === step) li.setAttribute('aria-current', 'step')
    else li.removeAttribute('aria-current')
  }
}

function setPhase(phase) {
  state.phase = phase
  lockExtras(phase === 'paying' || phase === 'paid' || phase === 'blocked' || phase === 'manage')
  $('checkout-form').classList.toggle('busy', phase === 'paying')
  $('checkout-form').setAttribute('aria-busy', phase === 'paying' ? 'true' : 'false')
  updatePayButton()
}

let slowTimer = null
function progress(text) {
  clearTimeout(slowTimer)
  const box = $('pay-progress')
  if (!text) {
    box.replaceChildren()
    return
  }
  box.replaceChildren(h('span', { class: 'spinner', 'aria-hidden': 'true' }), h('span', {}, text))
}

function showPayError(err) {
  const p = err.problem ?? {}
  const box = $('pay-error')
  const what =
    {
      trip_state_conflict:
        'Your booking changed while you were paying, or it is already complete. Nothing was charged; please check the summary and try again.',
      basket_not_valid: 'Some extras need your attention before you can pay.',
      already_paid: 'This booking is already paid.',
      payment_in_progress:
        'A payment for this booking is already on its way (in another tab?). Nothing more was charged.',
      network: p.detail,
    }[p.code] ??
    p.detail ??
    'Something went wrong.'
  box.replaceChildren(
    h('p', {}, what),
    p.code
      ? h('p', { class: 'muted small' }, `Code: ${p.code}${p.request_id ? ` · reference ${p.request_id}` : ''}`)
      : null,
  )
  box.hidden = false
  box.focus()
}

async function onPay(event) {
  event.preventDefault()
  if (state.phase === 'paying' || state.phase === 'paid') return
  $('pay-error').hidden = true
  const { form, errors } = readForm()
  if (errors.length) {
    showFieldErrors(errors)
    return
  }
  clearFieldErrors()
  setStep('pay')
  setPhase('paying')
  $('review').hidden = true
  try {
    progress('Saving traveller details…')
    state.trip = { ...state.trip, ...(await backend('PATCH', `/checkout/${state.trip.trip_id}/passengers`, form)) }
    progress('Checking prices and availability with the airline…')
    slowTimer = setTimeout(() => progress('Still checking: the airline is taking a little longer than usual…'), 3000)
    const total = basketTotal()
    const result = await backend('POST', `/checkout/${state.trip.trip_id}/pay`, {
      expected: { items: items().map((i) => i.basket_item_id), total: total.amount, currency: total.currency },
    })
    progress(null)
    await handlePayResult(result)
  } catch (err) {
    progress(null)
    setPhase('shopping')
    setStep('travellers')
    if (err.problem?.code === 'validation_error' && err.problem.errors?.some((e) => inputForPath(e.path))) {
      showFieldErrors(
        err.problem.errors.map((e) => ({ id: inputForPath(e.path), message: `${fieldName(e.path)} ${e.message}` })),
      )
    } else {
      showPayError(err)
    }
  }
}

function fieldName(path) {
  const m = /^\/passengers\/(\d+)\/(\w+)/.exec(path)
  if (m)
    return `Passenger ${Number(m[1]) + 1}: ${{ first_names: 'first names', surname: 'surname', date_of_birth: 'date of birth' }[m[2]]}`
  return path.startsWith('/contact/email') ? 'Email address' : path.startsWith('/contact/phone') ? 'Phone number' : path
}

async function handlePayResult(result) {
  if (result.outcome === 'paid') {
    state.trip = result.trip
    showConfirmation()
    return
  }
  // The airline changed something: show the basket as the backend read it, and bring the widgets in step.
  state.basket = asCallbackBasket(result.basket)
  renderBasket()
  const blocked = ticketItems().some((i) => statusOf(i) === 'unavailable')
  setPhase(blocked ? 'blocked' : 'review')
  renderReview(result.outcome)
  $('review').hidden = false
  $('review').focus()
  if (!blocked) await openWidgets().catch(showExtrasError)
}

/** What the traveller must decide, item by item; re-rendered whenever the basket changes. */
function renderReview(outcome) {
  const body = $('review-body')
  const title = $('review-title')
  const ticketGone = ticketItems().some((i) => statusOf(i) === 'unavailable')
  if (ticketGone) {
    title.textContent = 'Sorry, this flight can no longer be booked'
    const lost = extraItems().filter((i) => statusOf(i) === 'unavailable')
    body.replaceChildren(
      h('p', {}, 'The airline has stopped selling this flight since you chose it. Nothing has been charged.'),
      lost.length
        ? h(
            'ul',
            { class: 'review-items' },
            lost.map((i) =>
              h(
                'li',
                { class: 'review-item', 'data-item': i.basket_item_id },
                h('p', { class: 'review-name' }, i.display_name, h('span', { class: 'muted' }, ` · ${itemContext(i)}`)),
                h(
                  'p',
                  {},
                  h('span', { class: 'badge badge-unavailable' }, 'Unavailable'),
                  ' ',
                  REASONS[i.validity.reason] ?? '',
                ),
              ),
            ),
          )
        : null,
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', class: 'btn primary', onclick: () => startCheckout('normal') },
          'Choose another flight',
        ),
      ),
    )
    return
  }
  const pending = needsAction()
  if (pending.length === 0) {
    title.textContent = outcome === 'total_changed' ? 'Your total has changed' : 'All set'
    const total = basketTotal()
    body.replaceChildren(
      h(
        'p',
        {},
        outcome === 'still_checking'
          ? 'The airline is still checking your extras. Please try paying again in a moment.'
          : `Your total is now ${money(total)}. Press Pay when you are ready.`,
      ),
    )
    return
  }
  title.textContent =
    pending.length === 1 ? 'One extra needs your attention' : `${pending.length} extras need your attention`
  body.replaceChildren(
    h('p', {}, 'The airline checked your extras before payment. Please decide on these; nothing has been charged yet.'),
    h('ul', { class: 'review-items' }, pending.map(reviewItem)),
  )
}

function reviewItem(item) {
  const s = statusOf(item)
  const label = `${item.display_name}, ${itemContext(item)}`
  const busyOn = (btn) => {
    btn.disabled = true
    btn.setAttribute('aria-busy', 'true')
  }
  if (s === 'price_changed') {
    const prev = item.validity.previous_price?.total
    return h(
      'li',
      { class: 'review-item', 'data-item': item.basket_item_id },
      h('p', { class: 'review-name' }, item.display_name, h('span', { class: 'muted' }, ` · ${itemContext(item)}`)),
      h(
        'p',
        {},
        h('span', { class: 'badge badge-price_changed' }, 'Price changed'),
        ' ',
        prev
          ? `The price went from ${money(prev)} to ${money(item.price.total)}.`
          : `The price is now ${money(item.price.total)}.`,
      ),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'btn primary small',
            'aria-label': `Accept the new price for ${label}`,
            onclick: (e) => {
              busyOn(e.currentTarget)
              void act('accept', item)
            },
          },
          `Accept ${money(item.price.total)}`,
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'btn secondary small',
            'aria-label': `Remove ${label}`,
            onclick: (e) => {
              busyOn(e.currentTarget)
              void act('remove', item)
            },
          },
          'Remove',
        ),
      ),
    )
  }
  return h(
    'li',
    { class: 'review-item', 'data-item': item.basket_item_id },
    h('p', { class: 'review-name' }, item.display_name, h('span', { class: 'muted' }, ` · ${itemContext(item)}`)),
    h(
      'p',
      {},
      h('span', { class: 'badge badge-unavailable' }, 'Unavailable'),
      ' ',
      REASONS[item.validity.reason] ?? 'The airline can no longer sell it.',
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'btn secondary small',
          'aria-label': `Remove ${label}`,
          onclick: (e) => {
            busyOn(e.currentTarget)
            void act('remove', item)
          },
        },
        'Remove',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'btn secondary small',
          'aria-label': `Remove ${label} and choose another`,
          onclick: (e) => {
            busyOn(e.currentTarget)
            void act('choose-again', item)
          },
        },
        'Choose another',
      ),
    ),
  )
}

const PRODUCT_WIDGET = { bag: 'bags', seat: 'seats' }

/** Accept a new price or remove an item through the backend, then bring the widgets in step. */
async function act(action, item) {
  const id = state.trip.trip_id
  try {
    const { basket } =
      action === 'accept'
        ? await backend('POST', `/checkout/${id}/accept/${item.basket_item_id}`)
        : await backend('DELETE', `/checkout/${id}/item/${item.basket_item_id}`)
    state.basket = asCallbackBasket(basket)
    renderBasket()
    renderReview()
    announce(
      action === 'accept'
        ? `New price accepted for ${item.display_name}. Total ${money(basketTotal())}.`
        : `${item.display_name} removed. Total ${money(basketTotal())}.`,
    )
    if (needsAction().length === 0) setPhase('shopping')
    await openWidgets()
    if (action === 'choose-again') {
      // Let the traveller pick an alternative where that product is sold.
      const container = $(PRODUCT_WIDGET[item.product_type] ?? 'more-extras')
      container.scrollIntoView({ block: 'start', behavior: 'smooth' })
      $('extras-title').focus({ preventScroll: true })
    } else if (needsAction().length === 0) {
      $('pay-button').focus()
    } else {
      $('review').focus()
    }
  } catch (err) {
    renderReview()
    showPayError(err)
  }
}

// ---------------------------------------------------------------- confirmation: orders as they move

function showConfirmation() {
  setPhase('paid')
  setStep('done')
  $('checkout-form').hidden = true
  $('extras').hidden = true
  const section = $('confirmation')
  section.hidden = false
  renderConfirmation()
  $('confirmation-title').focus()
  pollOrders()
}

function renderConfirmation() {
  const trip = state.trip
  // The booking summary from the trip as booked (names and all), not the last widget callback.
  state.basket = asCallbackBasket(trip.basket)
  renderBasket()
  const pay = trip.payment
  const ticket = trip.tickets[0]
  $('confirmation-lead').textContent = `We sent the details to ${trip.contact_details.email ?? 'your email'}.`
  $('confirmation-facts').replaceChildren(
    h('dt', {}, 'Booking reference'),
    h('dd', { class: 'locator' }, ticket.access_details.record_locator ?? pay?.record_locator ?? ''),
    h('dt', {}, 'E-ticket'),
    h('dd', {}, ticket.access_details.ticket_number ?? ''),
    h('dt', {}, 'Flights'),
    h('dd', {}, ticket.status === 'booked' ? 'Booked' : ticket.status),
    h('dt', {}, 'Paid'),
    h('dd', {}, pay ? `${Svc.formatPrice(pay.amount, pay.decimal_places, pay.currency)} (${pay.reference})` : ''),
  )
  const orders = Object.values(trip.orders).sort((a, b) => a.display_name.localeCompare(b.display_name))
  const basket = trip.basket
  $('orders').replaceChildren(
    ...orders.map((o) => {
      const item = basket[o.basket_item_id]
      const context = item ? itemContext(item) : ''
      return h(
        'li',
        { class: `order order-${o.status}`, 'data-order': o.order_id, 'data-status': o.status },
        h(
          'div',
          { class: 'order-what' },
          h('span', { class: 'line-name' }, o.display_name),
          h('span', { class: 'line-context' }, context),
        ),
        h(
          'div',
          { class: 'order-state' },
          h('span', { class: `badge badge-order-${o.status}` }, ORDER_TEXT[o.status] ?? o.status),
          o.status === 'succeeded' && o.supplier_reference
            ? h('span', { class: 'muted small' }, `Airline reference ${o.supplier_reference}`)
            : null,
          o.status === 'failed' ? h('span', { class: 'muted small' }, o.failure_reason ?? '') : null,
        ),
      )
    }),
  )
  if (orders.length === 0) $('orders').replaceChildren(h('li', { class: 'muted' }, 'No extras on this booking.'))
}

const ended = (o) => o.status === 'succeeded' || o.status === 'failed'

function pollOrders() {
  clearTimeout(state.ordersTimer)
  const started = Date.now()
  const tick = async () => {
    try {
      const trip = await backend('GET', `/checkout/${state.trip.trip_id}/status`)
      // The traveller moved on (managing the booking, or a new checkout) while this read was on its way.
      if (state.phase !== 'paid') return
      state.trip = trip
      renderConfirmation()
    } catch {
      /* a missed poll is retried */
    }
    if (state.phase !== 'paid') return
    const orders = Object.values(state.trip.orders)
    if (orders.every(ended)) return summarise(orders)
    if (Date.now() - started > 120_000) {
      $('orders-outcome').replaceChildren(
        h('p', { class: 'notice' }, 'The airline is still confirming some extras. We will email you when it has.'),
      )
      return
    }
    state.ordersTimer = setTimeout(tick, 1000)
  }
  state.ordersTimer = setTimeout(tick, 500)
}

function summarise(orders) {
  const failed = orders.filter((o) => o.status === 'failed')
  const out = $('orders-outcome')
  if (failed.length === 0) {
    out.replaceChildren(
      h(
        'p',
        { class: 'notice success' },
        orders.length
          ? `All ${plural(orders.length, 'extra', 'extras')} confirmed by the airline. Have a good trip!`
          : 'Your flights are booked. Have a good trip!',
      ),
    )
    return
  }
  const refund = failed.reduce((n, o) => n + o.price.total.amount, 0)
  const m = failed[0].price.total
  out.replaceChildren(
    h(
      'div',
      { class: 'notice error' },
      h(
        'p',
        {},
        failed.length === orders.length
          ? `The airline could not book your extras. Your flights are booked.`
          : `${plural(failed.length, 'extra', 'extras')} of ${orders.length} could not be booked by the airline. Your flights and the other extras are booked.`,
      ),
      h('p', {}, `We are refunding ${Svc.formatPrice(refund, m.decimal_places, m.currency)} to your card.`),
    ),
  )
}

// ---------------------------------------------------------------- manage booking: cancel extras, add bags

const timeFmt = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' })
/** Orders still moving: the airline is booking or cancelling them (awaiting_ticketing waits on the shop, not the airline). */
const moving = (o) => o.status === 'queued' || o.status === 'in_progress' || o.status === 'cancelling'
const orderLabel = (o) => {
  const item = state.trip.basket[o.basket_item_id]
  const context = item ? itemContext(item) : ''
  return context ? `${o.display_name}, ${context}` : o.display_name
}

/** Opens the manage step: the extras bought, with their cancellation, and the bag widget on the same trip. */
async function showManage() {
  clearTimeout(state.ordersTimer)
  setPhase('manage')
  setStep('manage')
  sessionStorage.setItem(VIEW_KEY, 'manage')
  $('checkout-form').hidden = true
  $('extras').hidden = true
  $('confirmation').hidden = true
  $('manage').hidden = false
  state.basket = asCallbackBasket(state.trip.basket)
  renderBasket()
  renderManageFacts()
  renderNewExtras()
  $('manage-title').focus()
  await loadManage()
  void openWidgets(MANAGE_WIDGETS).catch((err) => showExtrasError(err, 'manage-extras-error'))
}

/** Reads the trip as it is now (an order may have moved since the confirmation), showing that it is loading. */
async function loadManage() {
  const status = $('manage-status')
  const list = $('purchased')
  list.setAttribute('aria-busy', 'true')
  list.replaceChildren()
  status.replaceChildren(
    h(
      'p',
      { class: 'progress' },
      h('span', { class: 'spinner', 'aria-hidden': 'true' }),
      h('span', {}, 'Loading your booking…'),
    ),
  )
  try {
    const trip = await backend('GET', `/checkout/${state.trip.trip_id}/status`)
    status.replaceChildren()
    applyTrip(trip)
  } catch (err) {
    const retry = h(
      'button',
      {
        type: 'button',
        class: 'btn secondary small',
        onclick: () => {
          void loadManage().then(() => $('manage-title').focus())
        },
      },
      'Try again',
    )
    status.replaceChildren(
      h(
        'div',
        { class: 'notice error' },
        h('p', {}, `Your booking could not be loaded: ${err.message}`),
        h('div', { class: 'actions' }, retry),
      ),
    )
  } finally {
    list.removeAttribute('aria-busy')
  }
}

/** Takes the trip as the backend read it: re-renders, says what moved, and keeps reading while orders move. */
function applyTrip(trip) {
  const before = state.trip.orders ?? {}
  state.trip = trip
  state.basket = asCallbackBasket(trip.basket)
  renderBasket()
  const said = []
  for (const o of Object.values(trip.orders)) {
    const was = before[o.order_id]?.status
    if (!was || was === o.status) continue
    const name = orderLabel(o)
    if (o.status === 'cancelled')
      said.push(`${name} cancelled. ${o.refund ? `${money(o.refund)} refunded to your card.` : 'No refund.'}`)
    else if (was === 'cancelling' && o.status === 'succeeded')
      said.push(
        `The airline did not cancel ${name}: ${o.cancellation_failure_reason ?? 'no reason given'}. Nothing was refunded.`,
      )
    else if (o.status === 'succeeded') said.push(`${name} confirmed by the airline.`)
    else if (o.status === 'failed')
      said.push(`The airline could not book ${name}. We are refunding ${money(o.price.total)} to your card.`)
  }
  if (said.length) announce(said.join(' '))
  renderManage()
  followOrders()
}

function followOrders() {
  clearTimeout(state.manage.timer)
  if (state.phase !== 'manage' || !Object.values(state.trip.orders).some(moving)) return
  state.manage.timer = setTimeout(async () => {
    try {
      applyTrip(await backend('GET', `/checkout/${state.trip.trip_id}/status`))
    } catch {
      followOrders() // a missed read is tried again
    }
  }, 1000)
}

function renderManage() {
  renderManageFacts()
  renderPurchased()
  renderNewExtras()
}

function renderManageFacts() {
  const trip = state.trip
  const paid = [trip.payment, ...(trip.extra_payments ?? [])].filter((p) => p?.status === 'captured')
  const refunded = Object.values(trip.orders).filter((o) => o.status === 'cancelled' && o.refund)
  const m = paid[0]
  const sum = (list, f) => list.reduce((n, x) => n + f(x), 0)
  $('manage-lead').replaceChildren(
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Booking reference'),
      h('dd', { class: 'locator' }, trip.tickets[0].access_details.record_locator ?? ''),
      h('dt', {}, 'Travellers'),
      h('dd', {}, trip.passengers.map((p, i) => passengerName(p.passenger_id) || `Passenger ${i + 1}`).join(', ')),
      m
        ? [
            h('dt', {}, 'Paid'),
            h(
              'dd',
              {},
              Svc.formatPrice(
                sum(paid, (p) => p.amount),
                m.decimal_places,
                m.currency,
              ),
            ),
          ]
        : null,
      refunded.length
        ? [
            h('dt', {}, 'Refunded'),
            h(
              'dd',
              { 'data-refunded': '' },
              Svc.formatPrice(
                sum(refunded, (o) => o.refund.amount),
                refunded[0].refund.decimal_places,
                refunded[0].refund.currency,
              ),
            ),
          ]
        : null,
    ),
  )
}

/**
 * The extras bought, one line per order. A line is rebuilt only when what it shows changed, and in place,
 * so the reads every second never take the keyboard focus away from a button the traveller is on.
 */
function renderPurchased() {
  const list = $('purchased')
  const orders = Object.values(state.trip.orders).sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.display_name.localeCompare(b.display_name),
  )
  if (orders.length === 0) {
    list.replaceChildren(h('li', { class: 'muted' }, 'No extras on this booking yet. Add a bag below.'))
    return
  }
  const old = new Map([...list.children].map((li) => [li.dataset.order, li]))
  const next = orders.map((o) => {
    const ui = state.manage.cancels.get(o.basket_item_id)
    const sig = JSON.stringify([
      o.status,
      o.refund,
      o.supplier_reference,
      o.failure_reason,
      o.cancellation_failure_reason,
      orderLabel(o),
      ui && [ui.step, ui.quote?.quote_expires_at, ui.error?.code, ui.error?.detail, ui.changed],
    ])
    const prev = old.get(o.order_id)
    if (prev?.dataset.sig === sig) return prev
    const li = purchasedLine(o, ui)
    li.dataset.sig = sig
    return li
  })
  for (const li of [...list.children]) if (!next.includes(li)) li.remove()
  next.forEach((li, i) => {
    if (list.children[i] !== li) list.insertBefore(li, list.children[i] ?? null)
  })
}

function purchasedLine(o, ui) {
  const item = state.trip.basket[o.basket_item_id]
  const label = orderLabel(o)
  const shown = [
    h(
      'span',
      { class: `badge badge-order-${o.status}` },
      o.status === 'cancelling'
        ? [h('span', { class: 'spinner small', 'aria-hidden': 'true' }), ' Cancelling…']
        : (ORDER_TEXT[o.status] ?? o.status),
    ),
  ]
  if (o.status === 'succeeded' && o.supplier_reference)
    shown.push(h('span', { class: 'muted small' }, `Airline reference ${o.supplier_reference}`))
  if (o.status === 'cancelled')
    shown.push(
      h('span', { class: 'refund' }, o.refund && o.refund.amount > 0 ? `${money(o.refund)} refunded` : 'No refund'),
    )
  if (o.status === 'failed')
    shown.push(h('span', { class: 'muted small' }, `${money(o.price.total)} refunded to your card`))
  return h(
    'li',
    {
      class: `order managed order-${o.status}`,
      'data-order': o.order_id,
      'data-item': o.basket_item_id,
      'data-status': o.status,
      tabindex: '-1',
      'aria-label': `${label}: ${ORDER_TEXT[o.status] ?? o.status}`,
    },
    h(
      'div',
      { class: 'order-what' },
      h('span', { class: 'line-name' }, o.display_name),
      h('span', { class: 'line-context' }, item ? itemContext(item) : ''),
      h('span', { class: 'muted small' }, `Paid ${money(o.price.total)}`),
    ),
    h('div', { class: 'order-state' }, shown),
    cancelPart(o, ui, label),
  )
}

/** The cancellation of one extra, as far as it has gone: a button, a quote to confirm, a refusal, or an error to retry. */
function cancelPart(o, ui, label) {
  const id = o.basket_item_id
  const box = (cls, title, ...body) => {
    const titleId = `cancel-title-${id}`
    return h(
      'div',
      { class: `cancel-box ${cls}`, role: 'group', 'aria-labelledby': titleId, tabindex: '-1', 'data-cancel': id },
      h('p', { class: 'cancel-title', id: titleId }, title),
      ...body,
    )
  }
  const keep = (text = 'Keep it') =>
    h(
      'button',
      {
        type: 'button',
        class: 'btn secondary small',
        'aria-label': `${text}: ${label}`,
        onclick: () => closeCancel(o),
      },
      text,
    )
  if (!ui) {
    if (o.status !== 'succeeded') return null
    return h(
      'div',
      { class: 'order-actions' },
      o.cancellation_failure_reason
        ? h(
            'p',
            { class: 'notice error small' },
            `The airline did not cancel it: ${o.cancellation_failure_reason}. Nothing was refunded.`,
          )
        : null,
      o.cancellation_failure_reason
        ? h(
            'button',
            {
              type: 'button',
              class: 'btn secondary small',
              'aria-label': `Try cancelling again: ${label}`,
              onclick: () => void askQuote(o),
            },
            'Try cancelling again',
          )
        : h(
            'button',
            {
              type: 'button',
              class: 'btn secondary small',
              'aria-label': `Cancel ${label}`,
              onclick: () => void askQuote(o),
            },
            'Cancel',
          ),
    )
  }
  const quoted = ui.quote?.to_cancel?.[id]
  switch (ui.step) {
    case 'quoting':
      return box(
        'busy',
        `Cancel ${o.display_name}?`,
        h(
          'p',
          { class: 'progress' },
          h('span', { class: 'spinner', 'aria-hidden': 'true' }),
          h('span', {}, 'Asking the airline what it refunds…'),
        ),
      )
    case 'quote': {
      const fee = o.price.total.amount - quoted.refund.amount
      return box(
        'quote',
        `Cancel ${o.display_name}?`,
        ui.changed
          ? h('p', { class: 'notice small' }, 'The refund offer changed since you asked: please check it again.')
          : null,
        h(
          'p',
          {},
          'The airline refunds ',
          h('strong', { class: 'refund' }, money(quoted.refund)),
          ' to your card',
          fee > 0
            ? ` (you paid ${money(o.price.total)}; its cancellation fee is ${Svc.formatPrice(fee, o.price.total.decimal_places, o.price.total.currency)}).`
            : ', all that you paid.',
        ),
        h(
          'p',
          { class: 'muted small' },
          `This offer holds until ${timeFmt.format(new Date(ui.quote.quote_expires_at))}.`,
        ),
        h(
          'div',
          { class: 'actions' },
          // Accessible names start with the visible words (WCAG 2.5.3), then say which extra.
          h(
            'button',
            {
              type: 'button',
              class: 'btn danger small',
              'aria-label': `Cancel it, refund ${money(quoted.refund)}: ${label}`,
              onclick: () => void confirmCancel(o),
            },
            `Cancel it, refund ${money(quoted.refund)}`,
          ),
          keep(),
        ),
      )
    }
    case 'refused':
      return box(
        'refused',
        `${o.display_name} cannot be cancelled`,
        h('p', {}, CANCEL_REASONS[quoted?.reason] ?? CANCEL_REASONS.not_cancellable),
        h('div', { class: 'actions' }, keep('Close')),
      )
    case 'confirming':
      return box(
        'busy',
        `Cancelling ${o.display_name}`,
        h(
          'p',
          { class: 'progress' },
          h('span', { class: 'spinner', 'aria-hidden': 'true' }),
          h('span', {}, 'Cancelling with the airline…'),
        ),
      )
    default: {
      const expired = ui.error?.code === 'quote_expired'
      return box(
        'error',
        expired ? 'The refund offer has expired' : 'The cancellation did not go through',
        h(
          'p',
          {},
          expired ? 'Ask the airline again for what it refunds now.' : (ui.error?.detail ?? 'Something went wrong.'),
        ),
        ui.error?.code && !expired
          ? h(
              'p',
              { class: 'muted small' },
              `Code: ${ui.error.code}${ui.error.request_id ? ` · reference ${ui.error.request_id}` : ''}`,
            )
          : null,
        h(
          'div',
          { class: 'actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'btn primary small',
              'aria-label': `${ui.retry === 'quote' ? 'Ask again' : 'Try again'}: ${label}`,
              onclick: () => void (ui.retry === 'quote' ? askQuote(o) : confirmCancel(o)),
            },
            ui.retry === 'quote' ? 'Ask again' : 'Try again',
          ),
          keep(),
        ),
      )
    }
  }
}

function setCancel(id, ui) {
  if (ui) state.manage.cancels.set(id, ui)
  else state.manage.cancels.delete(id)
  renderPurchased()
}

/** Moves focus to an extra's cancellation box, else its line (the box is gone once it is cancelled). */
function focusCancel(id) {
  const line = document.querySelector(`#purchased li[data-item="${CSS.escape(id)}"]`)
  ;(line?.querySelector('.cancel-box') ?? line)?.focus()
}

function closeCancel(o) {
  setCancel(o.basket_item_id, null)
  document.querySelector(`#purchased li[data-item="${CSS.escape(o.basket_item_id)}"] .order-actions button`)?.focus()
}

/** Asks the airline (through the shop's backend, which holds the API key) what cancelling one extra refunds. */
async function askQuote(o) {
  const id = o.basket_item_id
  setCancel(id, { step: 'quoting' })
  focusCancel(id)
  try {
    const quote = await backend('POST', `/checkout/${state.trip.trip_id}/cancellation`, { basket_item_ids: [id] })
    const quoted = quote.to_cancel[id]
    if (!quoted) throw new ProblemError({ code: 'no_answer', detail: 'The airline did not answer for this extra.' })
    setCancel(id, { step: quoted.cancellable ? 'quote' : 'refused', quote })
    announce(
      quoted.cancellable
        ? `If you cancel ${orderLabel(o)}, the airline refunds ${money(quoted.refund)}. Confirm or keep it.`
        : `${orderLabel(o)} cannot be cancelled. ${CANCEL_REASONS[quoted.reason] ?? CANCEL_REASONS.not_cancellable}`,
    )
  } catch (err) {
    setCancel(id, { step: 'error', error: err.problem ?? { detail: err.message }, retry: 'quote' })
    if (err.problem?.code === 'not_cancellable') void refreshTrip()
  }
  focusCancel(id)
}

/** Confirms the quote the traveller saw; the order then moves cancelling → cancelled (or back, refused). */
async function confirmCancel(o) {
  const id = o.basket_item_id
  const { quote } = state.manage.cancels.get(id) ?? {}
  if (!quote) return askQuote(o)
  const quoted = Object.values(quote.to_cancel)
  setCancel(id, { step: 'confirming', quote })
  focusCancel(id)
  announce(`Cancelling ${orderLabel(o)}…`)
  try {
    const result = await backend('POST', `/checkout/${state.trip.trip_id}/cancellation/confirm`, {
      expected: {
        basket_item_ids: quoted.map((i) => i.basket_item_id),
        refund: quoted.reduce((n, i) => n + (i.refund?.amount ?? 0), 0),
        quote_expires_at: quote.quote_expires_at,
      },
    })
    if (result.outcome === 'quote_changed') {
      // Asked again elsewhere (another tab): show this extra's new offer, never confirm one unseen.
      const again = result.quote.to_cancel[id]
      if (again?.cancellable) {
        setCancel(id, { step: 'quote', quote: result.quote, changed: true })
        announce(`The refund offer for ${orderLabel(o)} changed: it is now ${money(again.refund)}.`)
        focusCancel(id)
        return
      }
      return askQuote(o)
    }
    state.manage.cancels.delete(id)
    applyTrip(result.trip)
  } catch (err) {
    const code = err.problem?.code
    // An expired quote, or an order that moved, needs a new quote; anything else (the network) the same confirmation again.
    setCancel(id, {
      step: 'error',
      error: err.problem ?? { detail: err.message },
      retry: code === 'quote_expired' || code === 'not_cancellable' ? 'quote' : 'confirm',
      quote,
    })
    if (code === 'not_cancellable') void refreshTrip()
  }
  focusCancel(id)
}

async function refreshTrip() {
  try {
    applyTrip(await backend('GET', `/checkout/${state.trip.trip_id}/status`))
  } catch {
    /* the next action reads it again */
  }
}

// ---- bags added after booking

/** The new extras (added since the booking, not paid), with their total and the button that pays for them. */
function renderNewExtras() {
  if (state.phase !== 'manage') return
  const added = items().filter(isNewExtra)
  const box = $('new-extras')
  box.hidden = added.length === 0 && $('extras-pay-error').hidden
  $('new-extras-lines').replaceChildren(
    ...added.map((item) =>
      h(
        'li',
        { class: `line line-${statusOf(item)}`, 'data-item': item.basket_item_id },
        h(
          'div',
          { class: 'line-what' },
          h(
            'span',
            { class: 'line-name' },
            item.quantity > 1 ? `${item.display_name} × ${item.quantity}` : item.display_name,
          ),
          h('span', { class: 'line-context' }, itemContext(item)),
          statusOf(item) === 'valid' ? null : badge(item),
        ),
        h('div', { class: 'line-price' }, h('span', {}, money(item.price.total))),
      ),
    ),
  )
  const total = sumOf(added)
  const button = $('pay-extras')
  button.textContent = total ? `Pay for the new extras ${money(total)}` : 'Pay for the new extras'
  // A new price or an unavailable bag is decided in the widget first (accept or remove); an expired price is checked again on paying.
  button.disabled =
    !total ||
    state.manage.paying ||
    added.some((i) => ['checking', 'price_changed', 'unavailable'].includes(statusOf(i)))
  $('manage-add').setAttribute('aria-busy', state.manage.paying ? 'true' : 'false')
}

function extrasProgress(text) {
  const box = $('extras-pay-progress')
  box.replaceChildren(...(text ? [h('span', { class: 'spinner', 'aria-hidden': 'true' }), h('span', {}, text)] : []))
}

function showExtrasPayError(what, p = {}) {
  const box = $('extras-pay-error')
  box.replaceChildren(
    h('p', {}, what),
    p.code
      ? h('p', { class: 'muted small' }, `Code: ${p.code}${p.request_id ? ` · reference ${p.request_id}` : ''}`)
      : null,
  )
  box.hidden = false
  renderNewExtras()
  box.focus()
}

/** Pays for the new extras: the backend checks them with the airline, charges their total and has them ordered. */
async function payExtras() {
  if (state.manage.paying) return
  const added = items().filter(isNewExtra)
  const total = sumOf(added)
  if (!total) return
  state.manage.paying = true
  $('extras-pay-error').hidden = true
  $('manage-bags').inert = true
  renderNewExtras()
  extrasProgress('Checking the new extras with the airline…')
  try {
    const result = await backend('POST', `/checkout/${state.trip.trip_id}/extras/pay`, {
      expected: { items: added.map((i) => i.basket_item_id), total: total.amount, currency: total.currency },
    })
    extrasProgress(null)
    if (result.outcome === 'paid') {
      const before = new Set(Object.keys(state.trip.orders))
      state.manage.paying = false
      applyTrip(result.trip)
      const fresh = Object.values(state.trip.orders).filter((o) => !before.has(o.order_id))
      announce(
        `Paid ${money(total)}. The airline is booking ${fresh.map(orderLabel).join(' and ') || 'your new extras'}.`,
      )
      if (fresh[0]) focusCancel(fresh[0].basket_item_id)
      return
    }
    state.basket = asCallbackBasket(result.basket)
    renderBasket()
    const now = sumOf(items().filter(isNewExtra))
    showExtrasPayError(
      {
        action_needed:
          'The airline changed something about your new extras: see them above (accept a new price or remove a bag), then pay again. Nothing was charged.',
        total_changed: now
          ? `Your new extras now come to ${money(now)}. Check them, then pay again. Nothing was charged.`
          : 'Your new extras changed. Nothing was charged.',
        still_checking:
          'The airline is still checking your new extras. Please try paying again in a moment. Nothing was charged.',
      }[result.outcome] ?? 'Nothing was charged; please try again.',
    )
    await openWidgets(MANAGE_WIDGETS).catch((err) => showExtrasError(err, 'manage-extras-error'))
  } catch (err) {
    extrasProgress(null)
    const p = err.problem ?? {}
    showExtrasPayError(
      {
        trip_state_conflict:
          'Your booking changed while you were paying. Nothing was charged; please check the new extras and try again.',
        nothing_to_pay: 'There are no new extras to pay for.',
        payment_in_progress:
          'A payment for these extras is already on its way (in another tab?). Nothing more was charged.',
        network: p.detail,
      }[p.code] ?? `${p.detail ?? 'Something went wrong.'} Nothing was charged; please try again.`,
      p,
    )
  } finally {
    state.manage.paying = false
    $('manage-bags').inert = false
    renderNewExtras()
  }
}

// ---------------------------------------------------------------- start and resume

function resetPage() {
  clearTimeout(state.ordersTimer)
  clearTimeout(state.manage.timer)
  state.manage.cancels.clear()
  state.manage.paying = false
  sessionStorage.removeItem(VIEW_KEY)
  state.phase = 'shopping'
  state.basket = {}
  state.token = null
  $('confirmation').hidden = true
  $('manage').hidden = true
  $('purchased').replaceChildren()
  $('manage-status').replaceChildren()
  $('extras-pay-error').hidden = true
  extrasProgress(null)
  $('orders-outcome').replaceChildren()
  $('checkout-form').hidden = false
  $('extras').hidden = false
  $('review').hidden = true
  $('pay-error').hidden = true
  progress(null)
  clearFieldErrors()
  $('checkout-form').reset()
  setStep('extras')
  lockExtras(false)
}

async function startCheckout(scenario) {
  resetPage()
  $('trip-summary').setAttribute('aria-busy', 'true')
  $('trip-summary').replaceChildren(h('p', { class: 'muted' }, 'Loading your trip…'))
  try {
    const { trip, trip_access_token } = await backend('POST', '/checkout', { scenario })
    state.trip = trip
    state.token = trip_access_token
    state.tokenAt = Date.now()
    sessionStorage.setItem(STORAGE_KEY, trip.trip_id)
    await showTrip()
    announce(`New checkout started: ${SCENARIO_NAMES[scenario]} scenario.`)
  } catch (err) {
    $('trip-summary').replaceChildren(
      h('p', { class: 'notice error', role: 'alert' }, `The trip could not be loaded: ${err.message}`),
    )
  }
}

async function showTrip() {
  renderTrip()
  renderPassengerFields()
  state.basket = asCallbackBasket(state.trip.basket)
  renderBasket()
  if (state.trip.payment?.status === 'captured') {
    if (sessionStorage.getItem(VIEW_KEY) === 'manage') await showManage()
    else showConfirmation()
    return
  }
  await openWidgets().catch(showExtrasError)
}

/** A reload carries on with the same trip: the backend still knows it, and hands out a new token. */
async function resume() {
  const tripId = sessionStorage.getItem(STORAGE_KEY)
  if (!tripId) return false
  try {
    state.trip = await backend('GET', `/checkout/${tripId}/status`)
    await freshToken()
    await showTrip()
    return true
  } catch {
    sessionStorage.removeItem(STORAGE_KEY)
    return false
  }
}

function main() {
  if (!window.Svc) {
    $('trip-summary').replaceChildren(
      h(
        'p',
        { class: 'notice error', role: 'alert' },
        'The extras could not be loaded (the SDK script is missing). Run npm run build and reload.',
      ),
    )
    return
  }
  $('scenario-form').addEventListener('submit', (e) => {
    e.preventDefault()
    const scenario = new FormData(e.currentTarget).get('scenario') ?? 'normal'
    $('scenario-details').open = false
    void startCheckout(String(scenario)).then(() => $('trip-title').focus())
  })
  $('checkout-form').addEventListener('submit', onPay)
  $('checkout-form').addEventListener('input', (e) => {
    if (e.target.getAttribute('aria-invalid') === 'true') {
      e.target.removeAttribute('aria-invalid')
      const msg = $(`${e.target.id}-error`)
      if (msg) msg.hidden = true
    }
    if (state.phase === 'shopping') setStep('travellers')
  })
  $('fill-sample').addEventListener('click', fillSample)
  for (const id of ['new-booking', 'manage-new-booking']) {
    $(id).addEventListener('click', () => {
      void startCheckout('normal').then(() => $('trip-title').focus())
    })
  }
  $('manage-booking').addEventListener('click', () => {
    void showManage()
  })
  $('pay-extras').addEventListener('click', () => {
    void payExtras()
  })
  void resume().then((resumed) => resumed || startCheckout('normal'))
}

main()
