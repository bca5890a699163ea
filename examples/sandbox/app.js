// A seller's checkout page on the offline sandbox: the bag widget, a seat card, and the seller's own
// basket list kept in step by onBasketChange. Everything runs in this page (Svc.init({ sandbox: true })),
// so it works opened from disk or from any static server, with no backend and no network.
//
// A plain script (not a module): module scripts do not load from file:// pages.
'use strict'

;(() => {
  /** The seller's memory of its trip (a real backend keeps the trip id in the booking session). */
  const TRIP_KEY = 'example-sandbox:trip'
  const SCENARIOS = {
    '': 'A normal trip: add bags and a seat, then check the basket.',
    9001: 'Flight 9001: add a bag, then Check basket — its price changes, and the widget asks to accept it.',
    9002: 'Flight 9002: add a bag, then Check basket — it becomes unavailable.',
    9004: 'Flight 9004: add a bag, then Check basket — the check takes about 5 seconds.',
  }
  const $ = (id) => document.getElementById(id)
  let basket = {}
  let flight = ''
  /** passenger_id → "Passenger 1", as the widgets name them. */
  let passengerNames = {}

  function status(text, tone = 'info') {
    $('status').textContent = text
    $('status').dataset.tone = tone
  }

  function busy(on) {
    for (const b of document.querySelectorAll('.scenarios button, #reset, #check')) b.disabled = on
  }

  // ------------------------------------------------------------------ what a backend would do

  /** Creates a trip with the API key, as the seller's backend does, and remembers its id. */
  async function createTrip(withFlight) {
    const trip = await Svc.sandbox.createTrip(withFlight ? { flight: withFlight } : {})
    localStorage.setItem(TRIP_KEY, JSON.stringify({ tripId: trip.tripId, flight: withFlight }))
    return trip.tripId
  }

  /** A backend-style read with the sandbox's API key (HTTP Basic), answered in the page. */
  async function backendGet(path) {
    const key = await Svc.sandbox.apiKey()
    const res = await Svc.sandbox.fetch(`/v2.2${path}`, { headers: { authorization: `Basic ${btoa(`${key}:`)}` } })
    if (!res.ok) throw Object.assign(new Error(`GET ${path} answered ${res.status}`), { status: res.status })
    return res.json()
  }

  // ------------------------------------------------------------------ rendering

  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag)
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'class') e.className = v
      else if (k.startsWith('data-')) e.setAttribute(k, v)
      else e[k] = v
    }
    e.append(...children.filter((c) => c !== null && c !== undefined))
    return e
  }

  const when = (iso) =>
    new Date(iso).toLocaleString(document.documentElement.lang, {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'UTC',
    })

  function renderItinerary(trip) {
    const journeys = trip.journeys.map((j, i) => {
      const first = j.segments[0]
      const last = j.segments[j.segments.length - 1]
      return el(
        'li',
        { class: 'journey' },
        el('span', { class: 'dir' }, i === 0 ? 'Outbound' : 'Return'),
        el(
          'strong',
          {},
          `${first.departure_city_name} (${first.departure_airport}) → ${last.arrival_city_name} (${last.arrival_airport})`,
        ),
        el(
          'span',
          { class: 'muted' },
          `${when(first.departure_time)} · ${j.segments.map((s) => `${s.marketing_airline} ${s.marketing_flight_number}`).join(', ')}`,
        ),
      )
    })
    passengerNames = Object.fromEntries(trip.passengers.map((p, i) => [p.passenger_id, `Passenger ${i + 1}`]))
    const people = trip.passengers
      .map((p) => (p.on_lap_of ? 'lap infant' : p.type))
      .reduce((n, t) => ({ ...n, [t]: (n[t] ?? 0) + 1 }), {})
    $('itinerary').replaceChildren(
      el('ul', { class: 'journeys' }, ...journeys),
      el(
        'p',
        { class: 'muted' },
        `${Object.entries(people)
          .map(([t, n]) => `${n} ${t}${n > 1 ? 's' : ''}`)
          .join(', ')} · trip ${trip.trip_id.slice(0, 8)}${flight ? ` · scenario ${flight}` : ''}`,
      ),
    )
  }

  const STATE_TEXT = {
    valid: '',
    checking: 'checking…',
    price_changed: 'price changed',
    unavailable: 'unavailable',
    invalid: 'expired',
  }

  function renderBasket() {
    const items = Object.values(basket).sort((a, b) =>
      a.product_type === 'ticket' ? -1 : b.product_type === 'ticket' ? 1 : 0,
    )
    $('basket-list').replaceChildren(
      ...items.map((i) => {
        const t = i.price.total
        const pid = i.product_details?.passenger_id
        const who = pid ? ` · ${passengerNames[pid] ?? pid}` : ''
        return el(
          'li',
          { 'data-type': i.product_type, 'data-state': i.validity.state },
          el('span', { class: 'name' }, `${i.quantity > 1 ? `${i.quantity} × ` : ''}${i.display_name}${who}`),
          STATE_TEXT[i.validity.state]
            ? el('span', { class: `state ${i.validity.state}` }, STATE_TEXT[i.validity.state])
            : null,
          el('span', { class: 'price' }, Svc.formatPrice(t.amount, t.decimal_places, t.currency)),
        )
      }),
    )
    const first = items[0]?.price.total
    $('basket-total').textContent = first
      ? Svc.formatPrice(
          items.reduce((sum, i) => sum + i.price.total.amount, 0),
          first.decimal_places,
          first.currency,
        )
      : '—'
    const states = items.map((i) => i.validity.state)
    $('pay').disabled = items.length === 0 || states.some((s) => s !== 'valid')
    if (states.includes('checking')) status('Checking the basket…')
    else if (states.includes('price_changed'))
      status('A price changed: accept the new price or remove the bag in the bag list.', 'warning')
    else if (states.includes('unavailable'))
      status('An item is no longer available: remove it or choose another.', 'danger')
    else if (states.includes('invalid')) status("An item's price hold expired: check the basket again.", 'warning')
  }

  // ------------------------------------------------------------------ the trip

  async function open(tripId) {
    basket = {}
    renderBasket()
    const trip = await backendGet(`/trip/${encodeURIComponent(tripId)}`)
    renderItinerary(trip)
    await Svc.init({
      sandbox: true,
      tripId, // no token: the sandbox signs one, as your backend would hand it over
      onBasketChange: ({ basket: b }) => {
        basket = b
        renderBasket()
      },
      onBagFail: ({ error }) => status(`The bag list failed: ${error.message}`, 'danger'),
      onSeatFail: ({ error }) => status(`The seat selection failed: ${error.message}`, 'danger'),
    })
    await Promise.all([
      Svc.showUpsell({ container: 'bags', display: 'embedded', allowProducts: ['bags'] }),
      Svc.showUpsell({ container: 'seats', display: 'card', allowProducts: ['seats'] }),
    ])
    status(SCENARIOS[flight] ?? SCENARIOS[''])
    document.body.dataset.ready = 'true'
  }

  async function run(task) {
    busy(true)
    document.body.dataset.ready = 'false'
    try {
      await task()
    } catch (e) {
      console.error(e)
      status(`Something went wrong: ${e.message}`, 'danger')
    } finally {
      busy(false)
    }
  }

  /** A fresh sandbox with one new trip (a scenario's flight, or a normal one). */
  async function restart(withFlight) {
    await Svc.sandbox.reset()
    flight = withFlight
    await open(await createTrip(withFlight))
  }

  async function start() {
    if (!window.Svc) {
      $('itinerary').replaceChildren(
        el(
          'p',
          { class: 'error' },
          'The SDK did not load: run `npm run build` in the repository first (it makes dist/javascript/v2.2/svc.min.js).',
        ),
      )
      return
    }
    for (const b of document.querySelectorAll('.scenarios button'))
      b.addEventListener('click', () => run(() => restart(b.dataset.flight)))
    $('reset').addEventListener('click', () => run(() => restart('')))
    $('check').addEventListener('click', () =>
      run(async () => {
        if (Object.values(basket).every((i) => i.product_type === 'ticket')) return status('Add a bag or a seat first.')
        status('Checking the basket…')
        await Svc.sandbox.checkBasket()
      }),
    )
    $('pay').addEventListener('click', () =>
      status('Here your backend would charge the traveller and call POST /v2.2/trip/{id}/fulfill.', 'success'),
    )

    await run(async () => {
      // The trip survives a reload: the sandbox keeps it in localStorage, and so does this page its id.
      const saved = JSON.parse(localStorage.getItem(TRIP_KEY) ?? 'null')
      if (saved) {
        flight = saved.flight ?? ''
        try {
          return await open(saved.tripId)
        } catch (e) {
          if (e.status !== 404) throw e // else the sandbox was reset elsewhere: start afresh
        }
      }
      await restart('')
    })
  }

  start()
})()
