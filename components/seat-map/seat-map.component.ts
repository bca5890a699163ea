import { html, LitElement, nothing, svg } from 'lit'
import type { Session } from '../../client/session.ts'
import type { BasketItem, TripView } from '../../client/types.ts'
import { tokenVars } from '../theme.ts'
import { sharedStyles } from '../internal/styles.ts'
import { DisplayController } from '../controllers/display.ts'
import { ProductView, state } from '../internal/element.ts'
import { isOffered, passengerLabel, price } from '../internal/format.ts'
import { renderValidity } from '../internal/validity.ts'
import { icon } from '../internal/icons.ts'
import { addEnglish } from '../i18n/index.ts'
import { seatMapTexts } from '../i18n/en-US/seat-map.ts'
import {
  allSeats,
  deckView,
  enterDeck,
  lapInfants,
  levelsOf,
  NAV_KEYS,
  navigate,
  priceBands,
  seatablePassengers,
  seatDetails,
  seatItemOf,
  seatItemsOn,
  segmentsWithMaps,
  type DeckView,
  type NavKey,
  type PriceBand,
  type SeatMap,
  type SeatView,
  type Segment,
} from './seat-map.model.ts'
import { seatMapStyles } from './seat-map.styles.ts'
// The elements its templates draw: importing this view registers them (so does its package entry, elements/svc-seat-map.js).
import '../spinner/spinner.ts'

// The seat map's English texts come with it (svc.min.js fetches it when a widget first shows seats).
addEnglish(seatMapTexts)

const seatIcon = icon(svg`<path d="M7 4v9a2 2 0 0 0 2 2h7M7 13h9l2 6M9 15l-2 5"/>`)

/** Restriction reasons the sandbox airline gives, each with its own explanation. */
const REASON_KEY = {
  lap_infant: 'seat_reason_lap_infant',
  exit_row: 'seat_reason_exit_row',
  exit_row_age: 'seat_reason_exit_row_age',
} as const
type Reason = keyof typeof REASON_KEY
const REASONS = Object.keys(REASON_KEY) as Reason[]

/**
 * The class names whose flag is set, as Lit's classMap directive gives them; a plain string, since
 * nothing else changes these elements' classes (the directive is most of a kilobyte of a budgeted bundle).
 */
const classes = (flags: Record<string, unknown>) =>
  Object.keys(flags)
    .filter((k) => flags[k])
    .join(' ')

/** The airline's notices about a seat as one text, each ending as a sentence, for screen readers. */
const notesText = (seat: SeatView) =>
  seat.disclosures
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => (/[.!?。！？]$/.test(n) ? n : `${n}.`))
    .join(' ')

const exitArrow = (
  towards: 'start' | 'end',
) => svg`<svg class="exit-mark" viewBox="0 0 10 10" aria-hidden="true" focusable="false">
  <path fill="currentColor" d=${towards === 'start' ? 'M0 5 L6 0 V3 H10 V7 H6 V10 Z' : 'M10 5 L4 0 V3 H0 V7 H4 V10 Z'}/></svg>`

/**
 * Seat selection: a tab per flight that has a seat map, a passenger picker (lap infants are named, not
 * seated), and the cabin as an ARIA grid with one tab stop (arrow keys, Home/End, Ctrl+Home/End,
 * PageUp/PageDown; Enter or Space chooses). Seats are toggle buttons; taken seats and seats the passenger
 * may not have stay focusable but `aria-disabled`, so the keyboard walks the cabin seat by seat. The cabin
 * is never mirrored: in right-to-left languages seat letters keep the aircraft's order, while texts and
 * controls follow the language. Decks (levels) are tabs; the cabins of one deck (a real airline's map has
 * one entry per cabin, each with its own columns) are drawn one after the other, each a grid named by
 * its cabin, and Up/Down cross from one to the next. The airline's notices about a seat (`disclosures`)
 * are its accessible description, in its tip, and shown under the cabin for the seat last focused or
 * tapped. Displays (`embedded`, `card`, `modal`, `framed`) as every product view.
 *
 * @event svc-load - The seat map is visible (`{product: 'seats', display}`).
 * @event svc-fail - The seats could not load (when alone), no seat is on sale (`no_products`, when alone), or a change was refused.
 * @event svc-request-close - Cancelable, before the traveller closes the seat dialog (`{source}`: `close-button`, `escape` or `done-button`); `preventDefault()` keeps it open.
 * @event svc-modal-close - The traveller closed the seat dialog.
 * @event svc-basket-change - The basket changed (only when alone on the page; `<svc-upsell>` sends it otherwise).
 *
 * @csspart base - The section (embedded), or the card.
 * @csspart card - The card of the card display.
 * @csspart title - The heading.
 * @csspart summary - The card's list of chosen seats.
 * @csspart total - A total line.
 * @csspart open-button - The card's "Choose seats" / "Change seats" button.
 * @csspart done-button - The dialog's "Done" button.
 * @csspart modal - The `<svc-modal>`; its parts are exported as `dialog`, `header`, `dialog-title`, `close-button`, `body`, `footer`.
 * @csspart segments - The flight tabs.
 * @csspart segment-tab - One flight tab.
 * @csspart passengers - The passenger picker.
 * @csspart passenger - One passenger choice.
 * @csspart lap-infant - The note naming an infant travelling on a lap.
 * @csspart state - A seat item's validity notice (also `state-price-changed`, `state-unavailable`, `state-invalid`).
 * @csspart state-checking - The spinner beside a passenger's seat while it is checked.
 * @csspart decks - The deck tabs (aircraft with two decks).
 * @csspart map - The scroll container of the cabin.
 * @csspart grid - The cabin grid (one per cabin).
 * @csspart cabin - A cabin's name above its grid, where a deck has several cabins.
 * @csspart seat-notes - The airline's notices about the seat last focused or tapped.
 * @csspart row - One row of seats.
 * @csspart seat - A seat button (also `seat-available`, `seat-selected`, `seat-other`, `seat-taken`, `seat-restricted`).
 * @csspart legend - The legend.
 * @csspart loading - The skeleton while the seat map loads.
 * @csspart error - A load or change error.
 * @csspart empty - The "no seat map" message.
 * @csspart live - The polite live region (visually hidden).
 *
 * @cssproperty --svc-seat-size - Seat width and height where the widget has room (2rem).
 * @cssproperty --svc-seat-size-min - The smallest a seat gets in a narrow widget (24px, the WCAG 2.2 minimum target size); a cabin that does not fit even so scrolls sideways in its box.
 * @cssproperty --svc-seat-gap - Space between seats (2px to 4px with the widget's width).
 * @cssproperty --svc-seat-aisle - Width of an aisle (6px to 0.6 seat with the widget's width).
 * @cssproperty --svc-seat-map-height - Largest height of the cabin before it scrolls (70vh).
 * @cssproperty --svc-seat-band-1 - Colour of the cheapest available seats.
 * @cssproperty --svc-seat-band-2 - Colour of the middle price band.
 * @cssproperty --svc-seat-band-3 - Colour of the dearest price band.
 * @cssproperty --svc-seat-selected - Colour of the current passenger's seat.
 * @cssproperty --svc-seat-other - Colour of a seat another passenger of the trip holds.
 * @cssproperty --svc-seat-taken - Colour of a taken seat.
 * @cssproperty --svc-seat-exit - Colour of the exit-row markers.
 * @cssproperty --svc-seat-wing - Shade of the rows over the wing.
 * @cssproperty --svc-seat-outline - Outline of a seat.
 * @cssproperty --svc-color-primary - Price bands (mixed with the background), tabs and buttons.
 * @cssproperty --svc-color-success - The current passenger's seat.
 * @tagname svc-seat-map
 */
export class SvcSeatMap extends ProductView(LitElement) {
  static override styles = [tokenVars, sharedStyles, seatMapStyles]

  readonly #frame: DisplayController = new DisplayController(this, {
    product: () => 'seats',
    texts: () => ({
      heading: 'seats_title',
      open: 'seats_open',
      edit: 'seats_edit',
      none: 'seats_none_selected',
      empty: 'seats_none_offered',
    }),
    panel: () => this.#renderPanel(),
    icon: () => seatIcon,
    offered: () => this.#offered(),
    focusOptions: (item) => this.#focusOptions(item),
  })
  readonly #trip = this.#frame.session

  /** A remove-then-add is on its way (the session is briefly not busy between the two calls). */
  #changing = false

  @state() private segmentId: string | null = null
  @state() private passengerId: string | null = null
  @state() private deckIndex = 0
  /** The seat holding the grid's tab stop. */
  @state() private focusKey: string | null = null

  /** Opens the dialog (card and modal displays). */
  show() {
    this.#frame.show()
  }

  /** Closes the dialog. */
  hide() {
    this.#frame.hide()
  }

  private get l() {
    return this.#trip.locale.l
  }

  protected override willUpdate() {
    // Keep the chosen flight and passenger valid as the trip and basket change.
    const s = this.#trip.value?.state
    if (!s?.trip || !s.search) return
    const segments = segmentsWithMaps(s.trip, s.search)
    if (!segments.some((x) => x.segment.segment_id === this.segmentId)) {
      this.segmentId = segments[0]?.segment.segment_id ?? null
      this.deckIndex = 0
    }
    const seatable = seatablePassengers(s.trip)
    if (!seatable.some((p) => p.passenger_id === this.passengerId)) this.passengerId = seatable[0]?.passenger_id ?? null
  }

  /** Seats are on sale only with a map to choose them on. */
  #offered(): boolean {
    const s = this.#trip.value?.state
    return !!s?.trip && !!s.search && segmentsWithMaps(s.trip, s.search).length > 0 && isOffered(s.search, 'seats')
  }

  /** After "Choose another": the item's flight and passenger, focus on the cabin. */
  #focusOptions(item: BasketItem) {
    const d = seatDetails(item)
    if (d.segment_id) this.#selectSegment(d.segment_id)
    if (d.passenger_id) this.passengerId = d.passenger_id
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLElement>('[role="grid"] [tabindex="0"]')?.focus(),
    )
  }

  get #busy(): boolean {
    return this.#changing || this.#trip.busy
  }

  #name(trip: TripView, passengerId: string | null | undefined): string {
    return passengerLabel(this.l, trip, passengerId)
  }

  #route(segment: Segment): string {
    return this.l.format('seat_route', { from: segment.departure_airport, to: segment.arrival_airport })
  }

  #list(parts: string[]): string {
    return new Intl.ListFormat(this.l.tag, { type: 'unit', style: 'short' }).format(parts)
  }

  #deckName(deck: DeckView, count: number): string {
    if (count === 2) return deck.deck === 0 ? this.l.t.seat_deck_main : this.l.t.seat_deck_upper
    return this.l.format('deck', { n: deck.deck + 1 })
  }

  #reasonOf(seat: SeatView): Reason | 'generic' {
    const r = seat.offer?.reason
    return r && r in REASON_KEY ? (r as Reason) : 'generic'
  }

  /** The price the seat costs this passenger: the basket's for their own seat, else the offer's. */
  #price(seat: SeatView): string | null {
    if (seat.status === 'selected' && seat.item) return price(this.l, seat.item.price.total)
    return seat.status === 'available' && seat.offer?.price ? price(this.l, seat.offer.price.total) : null
  }

  /** "Seat 12A, window, extra legroom, €35.00" / "Seat 12B, taken" / "Seat 12C, aisle, selected by Passenger 2". */
  #seatName(seat: SeatView, trip: TripView): string {
    const t = this.l.t
    const parts = [this.l.format('seat_n', { seat: seat.key })]
    if (seat.status === 'taken') return this.#list([...parts, t.seat_name_taken])
    const c = seat.characteristics
    if (c.includes('window')) parts.push(t.seat_name_window)
    if (c.includes('aisle')) parts.push(t.seat_name_aisle)
    if (c.includes('exit_row')) parts.push(t.seat_name_exit)
    if (c.includes('extra_legroom')) parts.push(t.seat_name_extra_legroom)
    if (c.includes('restricted_recline')) parts.push(t.seat_name_limited_recline)
    if (c.includes('bassinet')) parts.push(t.seat_name_bassinet)
    if (seat.status === 'other' && seat.item)
      parts.push(
        this.l.format('seat_name_selected_by', { passenger: this.#name(trip, seatDetails(seat.item).passenger_id) }),
      )
    if (seat.status === 'restricted') parts.push(t.seat_name_restricted)
    const cost = this.#price(seat)
    if (cost) parts.push(cost)
    return this.#list(parts)
  }

  #seatButton(key: string): HTMLButtonElement | null {
    return this.renderRoot.querySelector<HTMLButtonElement>(`button[data-seat="${CSS.escape(key)}"]`)
  }

  #onGridKeydown(e: KeyboardEvent, cabins: DeckView[], index: number) {
    if (!NAV_KEYS.includes(e.key)) return
    const from = (e.target as Element).closest<HTMLElement>('[data-seat]')?.dataset['seat']
    if (!from) return
    e.preventDefault()
    const deck = cabins[index]!
    let to = navigate(deck, from, e.key as NavKey, e.ctrlKey || e.metaKey)
    // Past a cabin's first or last row, Up and Down go on into the cabin before or after it.
    const down = e.key === 'ArrowDown' || e.key === 'PageDown'
    const next = cabins[index + (down ? 1 : -1)]
    if (!to && next && /^(Arrow(Up|Down)|Page(Up|Down))$/.test(e.key)) to = enterDeck(next, deck, from, down)
    if (to) {
      this.focusKey = to
      this.#seatButton(to)?.focus()
    }
  }

  #onGridFocusin(e: FocusEvent) {
    const key = (e.target as Element).closest<HTMLElement>('[data-seat]')?.dataset['seat']
    if (key) this.focusKey = key
  }

  #onGridClick(e: MouseEvent, deck: DeckView) {
    const key = (e.target as Element).closest<HTMLElement>('[data-seat]')?.dataset['seat']
    const seat = key ? allSeats(deck).find((s) => s.key === key) : undefined
    // A tap focuses no button on some touch screens: the seat's notices show for the seat tapped all the same.
    if (key) this.focusKey = key
    if (seat) void this.#choose(seat)
  }

  /** Arrow keys (following the text direction), Home and End over a tab list; the tab reached is activated. */
  #onTabKeydown(e: KeyboardEvent, count: number, index: number, activate: (i: number) => void) {
    const forward = this.l.dir === 'rtl' ? 'ArrowLeft' : 'ArrowRight'
    const back = this.l.dir === 'rtl' ? 'ArrowRight' : 'ArrowLeft'
    let to: number
    if (e.key === forward) to = (index + 1) % count
    else if (e.key === back) to = (index - 1 + count) % count
    else if (e.key === 'Home') to = 0
    else if (e.key === 'End') to = count - 1
    else return
    e.preventDefault()
    activate(to)
    const list = e.currentTarget as HTMLElement
    void this.updateComplete.then(() => list.querySelectorAll<HTMLElement>('[role="tab"]')[to]?.focus())
  }

  #selectSegment(segmentId: string) {
    if (segmentId === this.segmentId) return
    this.segmentId = segmentId
    this.deckIndex = 0
    this.focusKey = null
  }

  #selectDeck(index: number) {
    this.deckIndex = index
    this.focusKey = null
  }

  async #guarded(run: () => Promise<boolean>): Promise<boolean> {
    this.#changing = true
    this.requestUpdate()
    try {
      return await run()
    } finally {
      this.#changing = false
      this.requestUpdate()
    }
  }

  /** A click (or Enter) on a seat: take it, give it back, or nothing when it is not this passenger's to take. */
  async #choose(seat: SeatView) {
    const trip = this.#trip.value?.state.trip
    const segmentId = this.segmentId
    const passengerId = this.passengerId
    if (!trip || !segmentId || !passengerId || this.#busy) return
    const who = this.#name(trip, passengerId)
    // A seat bought by an earlier fulfill stays the passenger's (the API refuses to change it).
    if (seatItemOf(this.#trip.value!.state.basket, segmentId, passengerId)?.order_id !== undefined) return
    if (seat.status === 'selected' && seat.item) {
      const id = seat.item.basket_item_id
      await this.#guarded(() =>
        this.#trip.act(
          'seats',
          (s) => s.remove(id),
          () => this.l.format('seat_removed', { seat: seat.key, passenger: who }),
        ),
      )
      return
    }
    if (seat.status !== 'available' || !seat.product) return
    const productId = seat.product.product_id
    await this.#guarded(() =>
      this.#trip.act(
        'seats',
        async (s: Session) => {
          // One seat per passenger per flight (the API refuses a second): the old one goes first. Read the
          // basket as it is now, so that "Try again" after a refusal picks up where the last attempt stopped.
          const current = seatItemOf(s.state.basket, segmentId, passengerId)
          if (current?.product_id === productId) return
          if (current) await s.remove(current.basket_item_id)
          await s.add(productId, passengerId)
        },
        () => [this.#afterChoosing(trip, segmentId, passengerId, seat.key), notesText(seat)].filter(Boolean).join(' '),
      ),
    )
  }

  /** Moves on to the next passenger without a seat on this flight; the words to announce. */
  #afterChoosing(trip: TripView, segmentId: string, passengerId: string, key: string): string {
    const chosen = this.l.format('seat_chosen', { seat: key, passenger: this.#name(trip, passengerId) })
    const basket = this.#trip.value?.state.basket ?? {}
    const list = seatablePassengers(trip)
    const start = list.findIndex((p) => p.passenger_id === passengerId)
    for (let k = 1; k < list.length; k++) {
      const next = list[(start + k) % list.length]!
      if (seatItemOf(basket, segmentId, next.passenger_id)) continue
      this.passengerId = next.passenger_id
      return `${chosen} ${this.l.format('seat_now_choosing', { passenger: this.#name(trip, next.passenger_id) })}`
    }
    return chosen
  }

  #renderSegmentTabs(segments: Array<{ segment: Segment; map: SeatMap }>, current: number) {
    const l = this.l
    const label = (seg: Segment) => html`<span class="tab-main">${this.#route(seg)}</span>
      <span class="tab-sub">${l.format('seat_flight_number', { airline: seg.marketing_airline, number: seg.marketing_flight_number })} · ${l.date(seg.departure_time)}</span>`
    if (segments.length === 1) return html`<p class="route">${label(segments[0]!.segment)}</p>`
    return html`<div role="tablist" part="segments" aria-label=${l.t.seat_flights}
      @keydown=${(e: KeyboardEvent) => this.#onTabKeydown(e, segments.length, current, (i) => this.#selectSegment(segments[i]!.segment.segment_id))}>
      ${segments.map(
        ({ segment }, i) => html`<button type="button" role="tab" part="segment-tab" id="segment-tab-${i}"
        aria-selected=${i === current ? 'true' : 'false'} aria-controls="segment-panel" tabindex=${i === current ? 0 : -1}
        data-segment=${segment.segment_id} @click=${() => this.#selectSegment(segment.segment_id)}>${label(segment)}</button>`,
      )}
    </div>`
  }

  #renderPassengers(trip: TripView, segmentId: string) {
    const l = this.l
    const basket = this.#trip.value?.state.basket ?? {}
    return html`<fieldset part="passengers" class="passengers">
      <legend>${l.t.seat_passengers}</legend>
      <div class="passengers-list">
        ${seatablePassengers(trip).map((p) => {
          const item = seatItemOf(basket, segmentId, p.passenger_id)
          const d = item ? seatDetails(item) : null
          return html`<label part="passenger" class="passenger" data-passenger=${p.passenger_id}>
            <input type="radio" name="passenger" .value=${p.passenger_id} .checked=${p.passenger_id === this.passengerId}
              @change=${() => {
                this.passengerId = p.passenger_id
              }}>
            <span class="p-name">${this.#name(trip, p.passenger_id)}</span>
            <span class="p-seat">
              ${item && d ? `${d.row}${d.column} · ${price(l, item.price.total)}` : l.t.seat_no_seat}
              ${item?.validity.status === 'checking' ? html`<svc-spinner part="state-checking" hide-label label=${l.t.state_checking}></svc-spinner>` : nothing}
            </span>
          </label>`
        })}
      </div>
      ${lapInfants(trip).map(
        (p) => html`<p part="lap-infant" class="lap" data-passenger=${p.passenger_id}>
        ${this.#name(trip, p.passenger_id)} · ${l.format('seat_infant_on_lap_of', { passenger: this.#name(trip, p.on_lap_of) })}</p>`,
      )}
    </fieldset>`
  }

  /** Seat items of every flight the traveller must act on (price changed, no longer available, expired). */
  #renderNotices(trip: TripView, segments: Array<{ segment: Segment }>) {
    const items = Object.values(this.#trip.value?.state.basket ?? {}).filter(
      (i) => i.product_type === 'seat' && i.validity.status !== 'valid' && i.validity.status !== 'checking',
    )
    if (items.length === 0) return nothing
    return html`<div class="notices">${items.map((item) => {
      const d = seatDetails(item)
      const seg = segments.find((s) => s.segment.segment_id === d.segment_id)?.segment
      const label = this.l.format('seat_item', {
        seat: `${d.row}${d.column}`,
        passenger: this.#name(trip, d.passenger_id),
        route: seg ? this.#route(seg) : '',
      })
      return html`<div class="notice-item" data-item=${item.basket_item_id}>
        <p class="notice-label">${label}</p>
        ${renderValidity(this.l, item, this.#trip.validityActions(item), this.#busy, { label })}
      </div>`
    })}</div>`
  }

  /** A tab per deck (level); a deck's cabins are drawn together under its tab. */
  #renderDeckTabs(levels: DeckView[][]) {
    return html`<div role="tablist" part="decks" aria-label=${this.l.t.seat_decks}
      @keydown=${(e: KeyboardEvent) => this.#onTabKeydown(e, levels.length, this.deckIndex, (i) => this.#selectDeck(i))}>
      ${levels.map(
        (
          [deck],
          i,
        ) => html`<button type="button" role="tab" id="deck-tab-${i}" aria-selected=${i === this.deckIndex ? 'true' : 'false'}
        aria-controls="deck-panel" tabindex=${i === this.deckIndex ? 0 : -1} data-deck=${deck!.deck}
        @click=${() => this.#selectDeck(i)}><span class="tab-main">${this.#deckName(deck!, levels.length)}</span></button>`,
      )}
    </div>`
  }

  #renderSeat(seat: SeatView, trip: TripView, tabStop: string | null, aisleBefore: boolean, bought: boolean) {
    const l = this.l
    const busy = this.#busy
    const holder = seat.item ? seatDetails(seat.item).passenger_id : undefined
    const selectable = !bought && (seat.status === 'available' || seat.status === 'selected')
    const number = holder ? trip.passengers.findIndex((p) => p.passenger_id === holder) + 1 : 0
    const checking = seat.item?.validity.status === 'checking'
    const notes = seat.disclosures.length > 0
    const described = [
      seat.status === 'restricted' ? `reason-${this.#reasonOf(seat)}` : '',
      notes ? `notes-${seat.key}` : '',
    ]
      .filter(Boolean)
      .join(' ')
    const tip =
      seat.status === 'taken'
        ? l.t.seat_taken
        : seat.status === 'restricted'
          ? l.t.seat_restricted
          : seat.status === 'other'
            ? l.format('seat_name_selected_by', { passenger: this.#name(trip, holder) })
            : seat.item?.order_id !== undefined
              ? l.t.purchased
              : this.#price(seat)
    return html`<div role="gridcell" class="cell ${aisleBefore ? 'aisle-before' : ''}">
      <button type="button" part="seat seat-${seat.status}" data-seat=${seat.key} data-status=${seat.status}
        class=${classes({ seat: true, [seat.status]: true, [`band-${seat.band}`]: seat.band >= 0, legroom: seat.characteristics.includes('extra_legroom'), busy })}
        tabindex=${seat.key === tabStop ? 0 : -1}
        aria-label=${this.#seatName(seat, trip)}
        aria-pressed=${seat.status === 'selected' ? 'true' : 'false'}
        aria-disabled=${!selectable || busy ? 'true' : 'false'}
        aria-describedby=${described || nothing}>
        <span class="mark" aria-hidden="true">${
          checking
            ? html`<span class="spin"></span>`
            : seat.status === 'selected' || seat.status === 'other'
              ? number
              : seat.status === 'taken'
                ? '×'
                : ''
        }</span>
        ${tip || notes ? html`<span class=${notes ? 'tip long' : 'tip'} aria-hidden="true">${tip ? `${seat.key} · ${tip}` : seat.key}${seat.disclosures.map((n) => html`<span class="note">${n}</span>`)}</span>` : nothing}
      </button>
    </div>`
  }

  /**
   * The cabins of one deck in one box, one after the other, each its own grid (with its name above it when
   * there are several). `bought`: the passenger's seat on this flight was bought by an earlier fulfill: the
   * map shows it, and no seat can be chosen.
   */
  #renderCabins(cabins: DeckView[], trip: TripView, label: (cabin: DeckView) => string, bought: boolean) {
    // The box is left to right too: an overflowing cabin then starts at its first letter, as it reads.
    return html`<div class="scroller" part="map" dir="ltr">
      ${cabins.map(
        (
          cabin,
          i,
        ) => html`${cabins.length > 1 && cabin.name ? html`<p class="cabin-name" part="cabin" dir=${this.l.dir}>${cabin.name}</p>` : nothing}
        ${this.#renderGrid(cabins, i, trip, label(cabin), bought)}`,
      )}
    </div>`
  }

  #renderGrid(cabins: DeckView[], index: number, trip: TripView, label: string, bought: boolean) {
    const l = this.l
    const deck = cabins[index]!
    const seats = allSeats(deck)
    // The one tab stop: the seat last focused, else the passenger's own, else the first they can take.
    const tabStop =
      (this.focusKey && seats.some((s) => s.key === this.focusKey) ? this.focusKey : null) ??
      seats.find((s) => s.status === 'selected')?.key ??
      seats.find((s) => s.status === 'available')?.key ??
      seats[0]?.key ??
      null
    return html`
      <div role="grid" part="grid" class="grid" aria-label=${label} aria-describedby="map-hint" data-deck=${deck.deck} data-cabin=${deck.name}
        @keydown=${(e: KeyboardEvent) => this.#onGridKeydown(e, cabins, index)}
        @focusin=${(e: FocusEvent) => this.#onGridFocusin(e)}
        @click=${(e: MouseEvent) => this.#onGridClick(e, deck)}>
        <div role="row" class="row head">
          <span class="side" aria-hidden="true"></span>
          <span role="columnheader" class="rowhead"><span class="sr-only">${l.t.seat_row}</span></span>
          ${deck.columns.map((c, i) => html`<span role="columnheader" class="colhead ${deck.aisleBefore[i] ? 'aisle-before' : ''}">${c}</span>`)}
          <span class="side" aria-hidden="true"></span>
        </div>
        ${deck.rows.map(
          (
            r,
            ri,
          ) => html`<div role="row" part="row" class=${classes({ row: true, exit: r.exit, wing: r.wing, first: ri === 0 })}
          data-row=${r.row} ?data-exit=${r.exit} ?data-wing=${r.wing}>
          <span class="side" aria-hidden="true">${r.exit ? exitArrow('start') : nothing}</span>
          <span role="rowheader" class="rowhead">${r.row}${r.exit ? html`<span class="sr-only">, ${l.t.seat_name_exit}</span>` : nothing}</span>
          ${r.cells.map((seat, i) =>
            seat
              ? this.#renderSeat(seat, trip, tabStop, deck.aisleBefore[i] ?? false, bought)
              : html`<div role="gridcell" class="cell ${deck.aisleBefore[i] ? 'aisle-before' : ''}"></div>`,
          )}
          <span class="side" aria-hidden="true">${r.exit ? exitArrow('end') : nothing}</span>
        </div>`,
        )}
      </div>`
  }

  /** The airline's notices about the seat last focused or tapped, for the eyes (a seat's description says them to a screen reader). */
  #renderNotes(seat: SeatView | undefined) {
    if (!seat?.disclosures.length) return nothing
    return html`<div class="seat-notes" part="seat-notes" aria-hidden="true">
      <p class="notes-title">${this.l.format('seat_n', { seat: seat.key })}</p>
      <ul>${seat.disclosures.map((n) => html`<li>${n}</li>`)}</ul>
    </div>`
  }

  #renderLegend(bands: PriceBand[], legroom: boolean, exit: boolean, wing: boolean) {
    const l = this.l
    const swatch = (cls: string, mark = '') =>
      html`<span class="seat ${cls}" aria-hidden="true"><span class="mark">${mark}</span></span>`
    const bandLabel = (b: PriceBand) =>
      b.min.amount === b.max.amount ? price(l, b.min) : l.format('seat_price_from', { price: price(l, b.min) })
    return html`<div part="legend" class="legend-box">
      <p class="legend-title" id="legend-title">${l.t.seat_legend}</p>
      <ul class="legend" aria-labelledby="legend-title">
        ${bands.map((b, i) => html`<li>${swatch(`band-${i}`)}<span>${l.t.seat_available}: ${bandLabel(b)}</span></li>`)}
        ${legroom ? html`<li>${swatch('legroom')}<span>${l.t.seat_extra_legroom}</span></li>` : nothing}
        ${exit ? html`<li><span class="swatch-exit">${exitArrow('start')}</span><span>${l.t.seat_exit}</span></li>` : nothing}
        ${wing ? html`<li><span class="swatch-wing" aria-hidden="true"></span><span>${l.t.seat_wing}</span></li>` : nothing}
        <li>${swatch('selected', '1')}<span>${l.t.seat_selected}</span></li>
        <li>${swatch('other', '2')}<span>${l.t.seat_selected_other}</span></li>
        <li>${swatch('taken', '×')}<span>${l.t.seat_taken}</span></li>
        <li>${swatch('restricted')}<span>${l.t.seat_restricted}</span></li>
      </ul>
    </div>`
  }

  #renderPanel() {
    const l = this.l
    const s = this.#trip.value!.state
    const trip = s.trip!
    const segments = segmentsWithMaps(trip, s.search!)
    const current = Math.max(
      0,
      segments.findIndex((x) => x.segment.segment_id === this.segmentId),
    )
    const { segment, map } = segments[current]!
    const passengerId = this.passengerId
    if (!passengerId) return html`<div class="empty" part="empty"><p>${l.t.seats_none_offered}</p></div>`

    const products = s.search!.results.products['seat'] ?? {}
    const items = seatItemsOn(s.basket, segment.segment_id)
    const { bands, bandOf } = priceBands(map, products, passengerId)
    const decks = map.decks
      .filter((d) => d.rows.length > 0)
      .map((d) => deckView(d, products, items, passengerId, bandOf))
    const levels = levelsOf(decks)
    const cabins = levels[Math.min(this.deckIndex, levels.length - 1)]!
    const everySeat = decks.flatMap((d) => allSeats(d))
    const shownSeats = cabins.flatMap((d) => allSeats(d))
    const route = this.#route(segment)
    // "Seat map, LHR → JFK, Main deck, Business": the deck when there are several, the cabin when its deck has several.
    const gridLabel = (cabin: DeckView) =>
      l.format('seat_map_label', {
        route: this.#list([
          route,
          ...(levels.length > 1 ? [this.#deckName(cabin, levels.length)] : []),
          ...(cabins.length > 1 && cabin.name ? [cabin.name] : []),
        ]),
      })
    const bought = everySeat.some((x) => x.status === 'selected' && x.item?.order_id !== undefined)
    const panel = html`
      ${this.#renderPassengers(trip, segment.segment_id)}
      ${this.#renderNotices(trip, segments)}
      <div class="map-head">
        <p class="map-title">${l.format('seat_for', { passenger: this.#name(trip, passengerId) })}</p>
        <p class="aircraft">${l.format('seat_aircraft', { aircraft: map.aircraft })}</p>
      </div>
      ${levels.length > 1 ? this.#renderDeckTabs(levels) : nothing}
      <div id="deck-panel" class="deck-panel" role=${levels.length > 1 ? 'tabpanel' : nothing} aria-labelledby=${levels.length > 1 ? `deck-tab-${this.deckIndex}` : nothing}>
        ${this.#renderCabins(cabins, trip, gridLabel, bought)}
        ${this.#renderNotes(shownSeats.find((x) => x.key === this.focusKey))}
        <p class="hint" id="map-hint">${l.t.seat_map_hint}</p>
      </div>
      ${this.#renderLegend(
        bands,
        everySeat.some((x) => x.characteristics.includes('extra_legroom')),
        decks.some((d) => d.rows.some((r) => r.exit)),
        decks.some((d) => d.rows.some((r) => r.wing)),
      )}
      <div hidden>
        ${REASONS.map((r) => html`<span id="reason-${r}">${l.t[REASON_KEY[r]]}</span>`)}
        <span id="reason-generic">${l.t.seat_restricted}</span>
        ${shownSeats.filter((x) => x.disclosures.length).map((x) => html`<span id="notes-${x.key}">${notesText(x)}</span>`)}
      </div>`
    return html`<div class="seat-map">
      ${this.#renderSegmentTabs(segments, current)}
      ${
        segments.length > 1
          ? html`<div role="tabpanel" id="segment-panel" class="panel" aria-labelledby="segment-tab-${current}">${panel}</div>`
          : html`<div class="panel">${panel}</div>`
      }
    </div>`
  }

  override render() {
    return this.#frame.render()
  }
}
