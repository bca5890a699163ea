/**
 * <svc-seat-map> against the real API (a fresh trip per test from the runner's fixture): two adults and a
 * lap infant, LHR → JFK and back on BA. The sandbox flies BA 117/112 (8 h) on a Boeing 787-9 (3-3-3) and
 * BA 1–99 on the A380 (two decks).
 */
import { expect } from '@esm-bundle/chai'
import { emulateMedia, sendKeys, setViewport } from '@web/test-runner-commands'
import 'axe-core'
import { ApiClient } from '../../../client/api.ts'
import { Session, type SessionState } from '../../../client/session.ts'
import type { BasketItem } from '../../../client/types.ts'
import { ContextProvider } from '@lit/context'
import { localeContext, sessionContext } from '../../../components/context.ts'
import { localeFor } from '../../../components/i18n/index.ts'
import '../../../components/seat-map/seat-map.ts'
import type { SvcSeatMap } from '../../../components/seat-map/seat-map.component.ts'
import { animationsDone } from '../../dom.ts'

declare const axe: typeof import('axe-core')

interface Fixture {
  baseUrl: string
  tripId: string
  accessToken: string
}

const sessions: Session[] = []

async function fixture(q: Record<string, string> = {}): Promise<Fixture> {
  const res = await fetch(`/__fixture/trip?${new URLSearchParams(q)}`)
  return (await res.json()) as Fixture
}

async function loadedSession(q: Record<string, string> = {}): Promise<Session> {
  const f = await fixture(q)
  const session = new Session(new ApiClient({ baseUrl: f.baseUrl, tripId: f.tripId, accessToken: f.accessToken }), {
    pollMs: 200,
  })
  sessions.push(session)
  await session.loadOffers(['seat'])
  return session
}

async function mount(session: Session, onEvent?: (e: Event) => void): Promise<SvcSeatMap> {
  const el = document.createElement('svc-seat-map')
  if (onEvent) for (const name of ['svc-load', 'svc-fail']) el.addEventListener(name, onEvent)
  el.session = session
  document.body.append(el)
  await el.updateComplete
  return el
}

async function until(cond: () => unknown, what: string, ms = 8000) {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const root = (el: SvcSeatMap) => el.shadowRoot!
const all = <T extends Element = HTMLElement>(el: SvcSeatMap, sel: string) =>
  [...root(el).querySelectorAll<T & HTMLElement>(sel)] as T[]
const one = <T extends Element = HTMLElement>(el: SvcSeatMap, sel: string) => {
  const found = root(el).querySelector<T & HTMLElement>(sel)
  if (!found) throw new Error(`no ${sel}`)
  return found as T
}
const seat = (el: SvcSeatMap, key: string) => one<HTMLButtonElement>(el, `button[data-seat="${key}"]`)
const seats = (el: SvcSeatMap, status?: string) =>
  all<HTMLButtonElement>(el, status ? `button[data-seat][data-status="${status}"]` : 'button[data-seat]')
const rowOf = (b: Element) => Number(b.closest<HTMLElement>('[data-row]')!.dataset.row)
const isExit = (b: Element) => b.closest('[data-exit]') !== null

const seatItems = (s: Session, passengerId?: string, segmentId?: string): BasketItem[] =>
  s.itemsOf(
    (i) =>
      i.product_type === 'seat' &&
      (passengerId === undefined || i.product_details.passenger_id === passengerId) &&
      (segmentId === undefined || i.product_details.segment_id === segmentId),
  )

const firstSegment = (s: Session) => s.state.trip!.journeys[0]!.segments[0]!.segment_id

/** An available seat away from the exit rows (the first adult holds the infant, so exits are refused to them). */
const pickAvailable = (el: SvcSeatMap, skip: string[] = []) =>
  seats(el, 'available').find((b) => !isExit(b) && !skip.includes(b.dataset.seat!))!

async function chooseBy(el: SvcSeatMap, session: Session, button: HTMLButtonElement, done: () => boolean) {
  button.click()
  await until(() => done() && !session.state.busy, `the basket after choosing ${button.dataset.seat}`)
  await el.updateComplete
}

async function checkA11y(el: SvcSeatMap) {
  const result = await axe.run(el, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] })
  const list = result.violations.map(
    (v) =>
      `${v.id} (${v.nodes.length}): ${v.nodes
        .slice(0, 5)
        .map((n) => JSON.stringify(n.target))
        .join(', ')}`,
  )
  expect(list, list.join('\n')).to.deep.equal([])
}

afterEach(async () => {
  for (const el of document.querySelectorAll('svc-seat-map')) el.remove()
  for (const s of sessions.splice(0)) s.dispose()
  await setViewport({ width: 1024, height: 768 })
})

describe('svc-seat-map', function () {
  this.timeout(30_000)

  it('draws the 787-9 of BA 117: flight tabs, letters, aisles, exit and wing rows, and emits svc-load', async () => {
    const session = await loadedSession()
    const events: string[] = []
    const el = await mount(session, (e) => events.push(`${e.type}:${JSON.stringify((e as CustomEvent).detail)}`))
    expect(session.state.search!.results.seatmaps.map((m) => m.aircraft)).to.deep.equal(['B787-9', 'B787-9'])

    const tabs = all(el, '[role="tablist"][part="segments"] [role="tab"]')
    expect(tabs.map((t) => t.querySelector('.tab-main')!.textContent)).to.deep.equal(['LHR → JFK', 'JFK → LHR'])
    expect(tabs[0]!.getAttribute('aria-selected')).to.equal('true')

    const grid = one(el, '[role="grid"]')
    expect(grid.getAttribute('aria-label')).to.equal('Seat map, LHR → JFK')
    expect(all(el, '[role="columnheader"].colhead').map((h) => h.textContent)).to.deep.equal([
      'A',
      'B',
      'C',
      'D',
      'E',
      'F',
      'H',
      'J',
      'K',
    ])
    // Aisles after C and F: the cells of D and H start after a gap.
    const aisled = all(el, '[data-row="21"] [role="gridcell"]')
      .map((c, i) => (c.classList.contains('aisle-before') ? i : -1))
      .filter((i) => i >= 0)
    expect(aisled).to.deep.equal([3, 6])
    const d = seat(el, '21D').getBoundingClientRect().left - seat(el, '21C').getBoundingClientRect().right
    const b = seat(el, '21B').getBoundingClientRect().left - seat(el, '21A').getBoundingClientRect().right
    expect(d).to.be.greaterThan(b + 4)

    expect(all(el, '[role="row"][data-exit]').map((r) => r.dataset.row)).to.deep.equal(['34'])
    expect(all(el, '[data-exit] .exit-mark')).to.have.length(2)
    const wing = all(el, '[role="row"][data-wing]').map((r) => Number(r.dataset.row))
    expect(wing[0]).to.equal(26)
    expect(wing.at(-1)).to.equal(36)
    expect(getComputedStyle(one(el, '[data-wing] .side')).backgroundColor).to.not.equal('rgba(0, 0, 0, 0)')
    expect(seats(el)).to.have.length(29 * 9)

    // Accessible names: position, features and price, in words (occupancy changes by date, so by rule).
    const names = seats(el, 'available').map((b) => [b.dataset.seat!, b.getAttribute('aria-label')!] as const)
    expect(names.length).to.be.greaterThan(50)
    for (const [key, name] of names) {
      const row = Number.parseInt(key, 10)
      const col = key.replace(/^\d+/, '')
      const position = col === 'A' || col === 'K' ? ', window' : ['C', 'D', 'F', 'H'].includes(col) ? ', aisle' : ''
      if (row === 20)
        expect(name).to.match(
          new RegExp(`^Seat ${key}${position}, extra legroom(, bassinet position)?, €\\d+\\.\\d\\d$`),
        )
      else if (![33, 34, 48].includes(row))
        expect(name).to.match(new RegExp(`^Seat ${key}${position}, €\\d+\\.\\d\\d$`))
    }

    expect(events).to.deep.equal(['svc-load:{"product":"seats","display":"embedded"}'])
    // A second flight tab shows the return flight's map.
    tabs[1]!.click()
    await el.updateComplete
    expect(one(el, '[role="grid"]').getAttribute('aria-label')).to.equal('Seat map, JFK → LHR')
    expect(events).to.have.length(1)
  })

  it('draws both decks of an A380 (BA 1) behind deck tabs', async () => {
    const session = await loadedSession({ flight: '1' })
    const el = await mount(session)
    expect(session.state.search!.results.seatmaps[0]!.aircraft).to.equal('A380')
    const deckTabs = all(el, '[part="decks"] [role="tab"]')
    expect(deckTabs.map((t) => t.textContent!.trim())).to.deep.equal(['Main deck', 'Upper deck'])
    expect(
      all(el, '.colhead')
        .map((h) => h.textContent)
        .join(''),
    ).to.equal('ABCDEFGHJK')
    expect(all(el, '[role="row"][data-exit]').map((r) => r.dataset.row)).to.deep.equal(['56', '71'])
    expect(one(el, '[role="grid"]').getAttribute('aria-label')).to.equal('Seat map, LHR → JFK, Main deck')

    // Keyboard on the deck tabs: ArrowRight activates the upper deck.
    deckTabs[0]!.focus()
    await sendKeys({ press: 'ArrowRight' })
    await el.updateComplete
    expect(one(el, '[part="decks"] [aria-selected="true"]').textContent!.trim()).to.equal('Upper deck')
    expect(root(el).activeElement?.textContent?.trim()).to.equal('Upper deck')
    expect(
      all(el, '.colhead')
        .map((h) => h.textContent)
        .join(''),
    ).to.equal('ACDEFGHK')
    const rows = all(el, '[role="row"][data-row]').map((r) => Number(r.dataset.row))
    expect([rows[0], rows.at(-1)]).to.deep.equal([81, 96])
    expect(all(el, '[role="row"][data-exit]').map((r) => r.dataset.row)).to.deep.equal(['88'])
    expect(one(el, '#deck-panel').getAttribute('role')).to.equal('tabpanel')
    await checkA11y(el)
  })

  it('disables taken seats, which never reach the basket', async () => {
    const session = await loadedSession()
    const el = await mount(session)
    const taken = seats(el, 'taken')
    expect(taken.length).to.be.greaterThan(20)
    for (const b of taken) {
      expect(b.getAttribute('aria-disabled')).to.equal('true')
      expect(b.getAttribute('aria-label')).to.match(/^Seat \d+[A-K], taken$/)
    }
    taken[0]!.click()
    await new Promise((r) => setTimeout(r, 300))
    expect(session.state.busy).to.equal(false)
    expect(seatItems(session)).to.have.length(0)
  })

  it('lists a lap infant as on an adult’s lap, never as a passenger to seat', async () => {
    const session = await loadedSession()
    const el = await mount(session)
    const radios = all<HTMLInputElement>(el, 'input[type="radio"][name="passenger"]')
    expect(radios.map((r) => r.value)).to.deep.equal(['p1', 'p2'])
    expect(radios[0]!.checked).to.equal(true)
    expect(all(el, '[part="passenger"][data-passenger="p3"]')).to.have.length(0)
    expect(one(el, '[part="lap-infant"][data-passenger="p3"]').textContent!.trim()).to.equal(
      'Passenger 3 · Infant on lap of Passenger 1',
    )
    // The adult holding the infant may not sit in the exit row, and is told why.
    const exitFree = all<HTMLButtonElement>(el, '[data-exit] button[data-seat]').filter(
      (b) => b.dataset.status !== 'taken',
    )
    expect(exitFree.length).to.be.greaterThan(0)
    for (const b of exitFree) {
      expect(b.dataset.status).to.equal('restricted')
      expect(b.getAttribute('aria-disabled')).to.equal('true')
      expect(one(el, `#${b.getAttribute('aria-describedby')}`).textContent).to.contain('infant on their lap')
    }
  })

  it('adds a seat for the current passenger, marks it pressed, moves on, and replaces or removes it', async () => {
    const session = await loadedSession()
    const el = await mount(session)
    const seg = firstSegment(session)
    const first = pickAvailable(el)
    const key = first.dataset.seat!
    expect(first.getAttribute('aria-label')).to.match(
      new RegExp(`^Seat ${key}, (window|aisle|[a-z ]+)(, [a-z ]+)*, €\\d+\\.\\d\\d$`),
    )
    first.click()
    // While the change is on its way every seat waits (aria-disabled keeps focus where it is).
    await el.updateComplete
    expect(seats(el).every((b) => b.getAttribute('aria-disabled') === 'true')).to.equal(true)
    await until(() => seatItems(session, 'p1', seg).length === 1 && !session.state.busy, 'the first seat')
    await el.updateComplete

    const item = seatItems(session, 'p1', seg)[0]!
    expect(item.product_details).to.include({
      row: rowOf(first),
      column: key.replace(/^\d+/, ''),
      passenger_id: 'p1',
      segment_id: seg,
    })
    // The next passenger without a seat is now the one choosing, and that is announced.
    expect(all<HTMLInputElement>(el, 'input[name="passenger"]').find((r) => r.checked)!.value).to.equal('p2')
    await until(() => one(el, '[part="live"]').textContent!.includes('Now choosing'), 'the announcement')
    expect(one(el, '[part="live"]').textContent).to.equal(
      `Seat ${key} chosen for Passenger 1. Now choosing a seat for Passenger 2.`,
    )
    // For passenger 2 the seat is someone else's.
    expect(seat(el, key).dataset.status).to.equal('other')
    expect(seat(el, key).getAttribute('aria-disabled')).to.equal('true')
    expect(seat(el, key).getAttribute('aria-label')).to.contain('selected by Passenger 1')
    seat(el, key).click()
    await new Promise((r) => setTimeout(r, 200))
    expect(seatItems(session, 'p2')).to.have.length(0)

    // Back to passenger 1: their seat is pressed and shown in their chip.
    all<HTMLInputElement>(el, 'input[name="passenger"]')[0]!.click()
    await el.updateComplete
    expect(seat(el, key).getAttribute('aria-pressed')).to.equal('true')
    expect(seat(el, key).dataset.status).to.equal('selected')
    expect(one(el, '[part="passenger"][data-passenger="p1"]').textContent).to.contain(key)

    // Another seat replaces it.
    const second = pickAvailable(el, [key])
    const key2 = second.dataset.seat!
    await chooseBy(
      el,
      session,
      second,
      () =>
        seatItems(session, 'p1', seg)[0]?.product_details.row === rowOf(second) &&
        seatItems(session, 'p1', seg)[0]?.product_details.column === key2.replace(/^\d+/, ''),
    )
    expect(seatItems(session, 'p1', seg)).to.have.length(1)
    expect(seat(el, key).dataset.status).to.equal('available')

    // Choosing the passenger's own seat again removes it.
    all<HTMLInputElement>(el, 'input[name="passenger"]')[0]!.click()
    await el.updateComplete
    expect(seat(el, key2).getAttribute('aria-pressed')).to.equal('true')
    await chooseBy(el, session, seat(el, key2), () => seatItems(session, 'p1', seg).length === 0)
    expect(seat(el, key2).getAttribute('aria-pressed')).to.equal('false')
    await checkA11y(el)
  })

  it('moves through the map with the keyboard from one tab stop, and Enter chooses', async () => {
    const session = await loadedSession()
    const el = await mount(session)
    const seg = firstSegment(session)
    expect(all(el, '[role="grid"] button[tabindex="0"]')).to.have.length(1)
    const stop = one<HTMLButtonElement>(el, '[role="grid"] button[tabindex="0"]')
    expect(stop.dataset.status).to.equal('available')
    stop.focus()

    const inRow = (b: HTMLButtonElement) => all<HTMLButtonElement>(el, `[data-row="${rowOf(b)}"] button[data-seat]`)
    const row = inRow(stop)
    const at = row.indexOf(stop)
    await sendKeys({ press: 'ArrowRight' })
    const next = row[at + 1] ?? stop
    expect((root(el).activeElement as HTMLElement).dataset.seat).to.equal(next.dataset.seat)
    await el.updateComplete
    expect(all(el, '[role="grid"] button[tabindex="0"]').map((b) => b.dataset.seat)).to.deep.equal([next.dataset.seat])

    await sendKeys({ press: 'End' })
    expect((root(el).activeElement as HTMLElement).dataset.seat).to.equal(row.at(-1)!.dataset.seat)
    await sendKeys({ press: 'Home' })
    expect((root(el).activeElement as HTMLElement).dataset.seat).to.equal(row[0]!.dataset.seat)
    await sendKeys({ press: 'ArrowDown' })
    expect(rowOf(root(el).activeElement!)).to.be.greaterThan(rowOf(row[0]!))

    // Walk right until a seat passenger 1 may take, then Enter.
    for (let i = 0; i < 40 && (root(el).activeElement as HTMLElement).dataset.status !== 'available'; i++) {
      await sendKeys({
        press:
          (root(el).activeElement as HTMLElement) === inRow(root(el).activeElement as HTMLButtonElement).at(-1)
            ? 'ArrowDown'
            : 'ArrowRight',
      })
    }
    const target = root(el).activeElement as HTMLButtonElement
    expect(target.dataset.status).to.equal('available')
    await sendKeys({ press: 'Enter' })
    await until(() => seatItems(session, 'p1', seg).length === 1 && !session.state.busy, 'the seat chosen with Enter')
    const item = seatItems(session, 'p1', seg)[0]!
    expect(`${item.product_details.row}${item.product_details.column}`).to.equal(target.dataset.seat)
    // Focus stays on the seat; the map remains one tab stop.
    await el.updateComplete
    expect((root(el).activeElement as HTMLElement).dataset.seat).to.equal(target.dataset.seat)
    expect(all(el, '[role="grid"] button[tabindex="0"]')).to.have.length(1)
  })

  it('refuses exit-row seats to a child, with the reason, and offers them to an adult', async () => {
    const passengers = [
      { passenger_id: 'a1', passenger_type: 'adult' },
      { passenger_id: 'c1', passenger_type: 'child' },
    ]
    const session = await loadedSession({ passengers: JSON.stringify(passengers) })
    const el = await mount(session)
    const exitFree = () =>
      all<HTMLButtonElement>(el, '[data-exit] button[data-seat]').filter((b) => b.dataset.status !== 'taken')
    expect(exitFree().length).to.be.greaterThan(0)
    expect(exitFree().every((b) => b.dataset.status === 'available')).to.equal(true)
    expect(exitFree()[0]!.getAttribute('aria-label')).to.contain('exit row')

    all<HTMLInputElement>(el, 'input[name="passenger"]')[1]!.click()
    await el.updateComplete
    for (const b of exitFree()) {
      expect(b.dataset.status).to.equal('restricted')
      expect(b.getAttribute('aria-disabled')).to.equal('true')
      expect(b.getAttribute('aria-label')).to.contain('not available for this passenger')
      expect(b.getAttribute('aria-describedby')).to.equal('reason-exit_row')
    }
    expect(one(el, '#reason-exit_row').textContent).to.contain('not for children')
    exitFree()[0]!.click()
    await new Promise((r) => setTimeout(r, 300))
    expect(seatItems(session)).to.have.length(0)
    await checkA11y(el)
  })

  it('passes axe with the map loaded and a seat held by another passenger', async () => {
    const session = await loadedSession()
    const el = await mount(session)
    await checkA11y(el)
    const seg = firstSegment(session)
    await chooseBy(el, session, pickAvailable(el), () => seatItems(session, 'p1', seg).length === 1)
    await checkA11y(el)
  })

  it('fits 320 and 375 px phones in every display, 9 and 10 abreast: each column in view, each seat at least 24 × 24 px', async () => {
    // A phone page with no margin of its own: the widget is the width of the screen (the card's and the
    // modal's dialogs are too). 787-9 (BA 117): 3-3-3; A380 (BA 1): 3-4-3, the widest cabin of the sandbox.
    document.body.style.margin = '0'
    try {
      for (const width of [320, 375]) {
        await setViewport({ width, height: 700 })
        for (const [flight, columns] of [
          ['117', 'ABCDEFHJK'],
          ['1', 'ABCDEFGHJK'],
        ] as const) {
          for (const display of ['embedded', 'card', 'modal'] as const) {
            const what = `${width} px, BA ${flight}, ${display}`
            const session = await loadedSession({ flight })
            const el = document.createElement('svc-seat-map')
            el.display = display
            el.session = session
            document.body.append(el)
            await el.updateComplete
            if (display === 'card') el.show()
            await until(() => root(el).querySelector('[role="grid"]'), `the map (${what})`)
            await animationsDone(el)
            expect(
              all(el, '.colhead')
                .map((h) => h.textContent)
                .join(''),
              what,
            ).to.equal(columns)
            expect(document.documentElement.scrollWidth, `the page does not scroll sideways (${what})`).to.be.at.most(
              width,
            )
            const box = one(el, '[part="map"]')
            expect(box.scrollWidth, `the cabin fits its box (${what})`).to.be.at.most(box.clientWidth)
            const edges = box.getBoundingClientRect()
            for (const b of seats(el)) {
              const r = b.getBoundingClientRect()
              const where = `${b.dataset.seat} (${what}): ${r.left.toFixed(1)}–${r.right.toFixed(1)}, ${r.width.toFixed(1)} × ${r.height.toFixed(1)}`
              expect(
                r.left >= Math.max(0, edges.left) && r.right <= Math.min(width, edges.right),
                `in view: ${where}`,
              ).to.equal(true)
              expect(r.width >= 24 && r.height >= 24, `a 24 px target: ${where}`).to.equal(true)
            }
            el.remove()
            session.dispose()
          }
        }
      }
    } finally {
      document.body.style.margin = ''
    }
  })

  it('takes 375 px seats larger than 320 px ones, and no larger than --svc-seat-size on a wide screen', async () => {
    const session = await loadedSession()
    const el = await mount(session)
    const size = () => seat(el, '21A').getBoundingClientRect().width
    expect(size()).to.be.closeTo(32, 0.5)
    await setViewport({ width: 375, height: 700 })
    await new Promise((r) => requestAnimationFrame(r))
    const at375 = size()
    await setViewport({ width: 320, height: 700 })
    await new Promise((r) => requestAnimationFrame(r))
    expect(at375).to.be.greaterThan(size())
    expect(size()).to.be.at.least(24)
  })

  it('scrolls a cabin too wide for its widget inside its own box: row numbers stay, the cut edge fades, the keyboard reaches every seat', async () => {
    // A seller's narrow column on a 320 px phone: 10 abreast cannot have 24 px seats in 260 px.
    await setViewport({ width: 320, height: 700 })
    const session = await loadedSession({ flight: '1' })
    const column = document.createElement('div')
    column.style.inlineSize = '260px'
    document.body.append(column)
    const el = document.createElement('svc-seat-map')
    el.session = session
    column.append(el)
    await el.updateComplete
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
    // The fade is a box shadow of the box's own colour; at rest it interpolates to a zero shadow (or none).
    const fades = (e: Element) => !/^none$|0px 0px 0px 0px/.test(getComputedStyle(e).boxShadow)
    try {
      await frame()
      expect(document.documentElement.scrollWidth, 'the page does not scroll sideways').to.be.at.most(320)
      const box = one(el, '[part="map"]')
      expect(getComputedStyle(box).overflowX).to.equal('auto')
      expect(box.scrollWidth).to.be.greaterThan(box.clientWidth)
      for (const b of seats(el)) expect(b.getBoundingClientRect().width).to.be.at.least(24)
      const rowhead = one(el, '[data-row="44"] [role="rowheader"]')
      const lastSide = one(el, '[data-row="44"] > .side:last-child')
      // At the start: the far edge fades (there is more that way), the row numbers cast nothing.
      expect(fades(lastSide), 'the far edge fades').to.equal(true)
      expect(fades(rowhead), 'nothing fades under the row numbers').to.equal(false)

      // The keyboard: End in a row goes to its last seat, K, and the box scrolls it into view.
      const first = seat(el, '44A')
      first.focus()
      await sendKeys({ press: 'End' })
      expect((root(el).activeElement as HTMLElement).dataset['seat']).to.equal('44K')
      await frame()
      const edges = box.getBoundingClientRect()
      expect(box.scrollLeft).to.be.greaterThan(0)
      expect(seat(el, '44K').getBoundingClientRect().right).to.be.at.most(edges.right)
      // The row number is still in view at the box's start, over the seats that scrolled under it.
      expect(rowhead.getBoundingClientRect().left).to.be.closeTo(edges.left + 1, 1)
      await sendKeys({ press: 'Home' })
      await frame()
      expect((root(el).activeElement as HTMLElement).dataset['seat']).to.equal('44A')
      expect(first.getBoundingClientRect().left, '44A clear of the row numbers').to.be.at.least(
        rowhead.getBoundingClientRect().right,
      )

      box.scrollLeft = box.scrollWidth
      await frame()
      expect(fades(rowhead), 'the seats fade under the row numbers').to.equal(true)
      expect(fades(lastSide), 'nothing more at the far edge').to.equal(false)
      await checkA11y(el)

      // Reduced motion stops timed animations, not these: they follow the traveller's own scrolling.
      await emulateMedia({ reducedMotion: 'reduce' })
      box.scrollLeft = 0
      await frame()
      expect(fades(lastSide), 'reduced motion: the far edge fades').to.equal(true)
      expect(fades(rowhead), 'reduced motion: nothing under the row numbers at the start').to.equal(false)
    } finally {
      await emulateMedia({ reducedMotion: 'no-preference' })
      column.remove()
    }
  })

  it('fits 320 px right to left (ar-SA): the texts wrap, the cabin keeps A on the left and starts there', async () => {
    await setViewport({ width: 320, height: 700 })
    document.body.style.margin = '0'
    try {
      const session = await loadedSession({ language: 'ar-SA', flight: '1' })
      const el = await mount(session)
      await new Promise((r) => requestAnimationFrame(r))
      expect(el.dir).to.equal('rtl')
      expect(document.documentElement.scrollWidth).to.be.at.most(320)
      const box = one(el, '[part="map"]')
      expect(getComputedStyle(box).direction).to.equal('ltr')
      expect(box.scrollWidth).to.be.at.most(box.clientWidth)
      const row = all<HTMLButtonElement>(el, '[data-row="44"] button[data-seat]')
      expect(row.map((b) => b.dataset.seat!.replace(/\d+/, '')).join('')).to.equal('ABCDEFGHJK')
      expect(row[0]!.getBoundingClientRect().left).to.be.lessThan(row.at(-1)!.getBoundingClientRect().left)
      for (const b of seats(el)) {
        const r = b.getBoundingClientRect()
        expect(r.left >= 0 && r.right <= 320 && r.width >= 24, b.dataset.seat).to.equal(true)
      }
      const base = one(el, '[part="base"]').getBoundingClientRect()
      for (const part of ['passengers', 'legend', 'segments']) {
        const r = one(el, `[part="${part}"]`).getBoundingClientRect()
        expect(r.left >= base.left && r.right <= base.right, `${part} wraps inside the widget`).to.equal(true)
      }
      await checkA11y(el)
    } finally {
      document.body.style.margin = ''
    }
  })

  it('renders right to left for ar-SA with the seat letters in aircraft order', async () => {
    const session = await loadedSession({ language: 'ar-SA' })
    const el = await mount(session)
    expect(el.dir).to.equal('rtl')
    expect(el.lang).to.equal('ar-SA')
    expect(getComputedStyle(one(el, '[part="base"]')).direction).to.equal('rtl')
    expect(getComputedStyle(one(el, '[part="passengers"]')).direction).to.equal('rtl')
    const grid = one(el, '[role="grid"]')
    expect(getComputedStyle(grid).direction).to.equal('ltr')
    const heads = all(el, '.colhead')
    expect(heads.map((h) => h.textContent).join('')).to.equal('ABCDEFHJK')
    const xs = heads.map((h) => h.getBoundingClientRect().left)
    expect(xs).to.deep.equal([...xs].sort((a, b) => a - b))
    const row = all<HTMLButtonElement>(el, '[data-row="21"] button[data-seat]')
    expect(row[0]!.getBoundingClientRect().left).to.be.lessThan(row.at(-1)!.getBoundingClientRect().left)
    // The passenger chips, texts and controls follow the language: the first one sits on the right.
    const chips = all(el, '[part="passenger"]')
    expect(chips[0]!.getBoundingClientRect().left).to.be.greaterThan(chips[1]!.getBoundingClientRect().left)
    await checkA11y(el)
  })

  it('takes the session and the locale from the contexts of an element above it', async () => {
    const session = await loadedSession()
    const host = document.createElement('div')
    host.dir = 'rtl'
    new ContextProvider(host, { context: sessionContext, initialValue: session })
    new ContextProvider(host, { context: localeContext, initialValue: localeFor('ar-EG') })
    const events: string[] = []
    const el = document.createElement('svc-seat-map')
    for (const name of ['svc-load', 'svc-basket-change']) el.addEventListener(name, (e) => events.push(e.type))
    host.append(el)
    document.body.append(host)
    await el.updateComplete
    try {
      expect(all(el, '[role="grid"] button[data-seat]').length).to.equal(29 * 9)
      // Prices in the provided locale (Arabic digits), not the trip's en-GB.
      const name = seats(el, 'available')[0]!.getAttribute('aria-label')!
      expect(name).to.match(/[٠-٩]/)
      expect(getComputedStyle(one(el, '[part="base"]')).direction).to.equal('rtl')
      const seg = firstSegment(session)
      await chooseBy(el, session, pickAvailable(el), () => seatItems(session, 'p1', seg).length === 1)
      // Inside a provider the root speaks to the page, so the view sends no basket change of its own.
      expect(events).to.deep.equal(['svc-load'])
    } finally {
      host.remove()
    }
  })

  it('shows the map in a dialog for the modal display, and reports it as such', async () => {
    const session = await loadedSession()
    const events: string[] = []
    const el = document.createElement('svc-seat-map')
    el.display = 'modal'
    for (const name of ['svc-load', 'svc-modal-close'])
      el.addEventListener(name, (e) => events.push(`${e.type}:${(e as CustomEvent).detail.display}`))
    el.session = session
    document.body.append(el)
    await el.updateComplete
    await until(() => root(el).querySelector('svc-modal [role="grid"]'), 'the map in the dialog')
    expect(events).to.deep.equal(['svc-load:modal'])
    await checkA11y(el)
  })

  it('shows an error with a retry, and emits svc-fail, when the trip cannot load', async () => {
    const f = await fixture()
    const session = new Session(
      new ApiClient({ baseUrl: f.baseUrl, tripId: 'no-such-trip', accessToken: f.accessToken }),
    )
    sessions.push(session)
    const failures: string[] = []
    const el = await mount(session, (e) => failures.push(`${e.type}:${(e as CustomEvent).detail.error?.code}`))
    expect(all(el, '.skeleton')).to.have.length(1)
    await until(() => session.state.status === 'error', 'the failed load')
    await el.updateComplete
    expect(one(el, '[part="error"][role="alert"]').textContent).to.contain('could not be loaded')
    expect(failures).to.deep.equal([`svc-fail:${session.state.error!.code}`])
    expect(one(el, '[part="error"] button').textContent).to.equal('Try again')
    await checkA11y(el)
  })

  it('says so when the flight has no seat map', async () => {
    const real = await loadedSession()
    const state: SessionState = {
      ...real.state,
      search: { ...real.state.search!, results: { ...real.state.search!.results, seatmaps: [] } },
    }
    class NoMap extends Session {
      override get state() {
        return state
      }
    }
    const events: string[] = []
    const el = await mount(new NoMap(real.client), (e) =>
      events.push(`${e.type}:${(e as CustomEvent).detail.error?.code}`),
    )
    expect(one(el, '[part="empty"]').textContent!.trim()).to.equal('Seats cannot be reserved on this flight.')
    expect(all(el, '[role="grid"]')).to.have.length(0)
    expect(events).to.deep.equal(['svc-fail:no_products'])
    await checkA11y(el)
  })

  it('shows a seat item being checked with a spinner, and an unavailable one with Choose another / Remove', async () => {
    const session = await loadedSession({ flight: '9002' })
    const el = await mount(session)
    const seg = firstSegment(session)
    const chosen = pickAvailable(el)
    await chooseBy(el, session, chosen, () => seatItems(session, 'p1', seg).length === 1)
    await session.check()
    await el.updateComplete
    expect(seatItems(session, 'p1', seg)[0]!.validity.status).to.equal('checking')
    expect(all(el, '[data-passenger="p1"] svc-spinner')).to.have.length(1)
    expect(all(el, `button[data-seat="${chosen.dataset.seat}"] .spin`)).to.have.length(1)
    await until(() => seatItems(session, 'p1', seg)[0]?.validity.status === 'unavailable', 'the unavailable item')
    await el.updateComplete
    const notice = one(el, '.notice-item')
    expect(notice.textContent).to.contain(`Seat ${chosen.dataset.seat} for Passenger 1, LHR → JFK`)
    expect(one(el, '[part~="state-unavailable"]').textContent).to.contain('no longer available')
    const buttons = all<HTMLButtonElement>(el, '[part~="state-unavailable"] button')
    expect(buttons.map((b) => b.textContent!.trim())).to.deep.equal(['Remove', 'Choose another'])
    await checkA11y(el)
    buttons[1]!.click()
    await until(() => seatItems(session, 'p1', seg).length === 0 && !session.state.busy, 'the removed item')
    await el.updateComplete
    expect(all(el, '.notice-item')).to.have.length(0)
    // "Choose another" leads back to that passenger, focus in the cabin.
    await until(
      () => (root(el).activeElement as HTMLElement | null)?.dataset['seat'] !== undefined,
      'focus in the cabin',
    )
    expect(all<HTMLInputElement>(el, 'input[name="passenger"]').find((r) => r.checked)!.value).to.equal('p1')
  })
})

describe('svc-seat-map after the sale', function () {
  this.timeout(30_000)

  it('shows the seat bought earlier as the passenger’s, marked purchased, and lets no other seat replace it', async () => {
    const session = await loadedSession({ booked: 'true' })
    const el = await mount(session)
    // The chosen passenger is the map's private state: set here as a tap on the second passenger would.
    ;(el as unknown as { passengerId: string }).passengerId = 'p2'
    await el.updateComplete
    const bought = seatItems(session, 'p2', firstSegment(session))
    expect(bought).to.have.length(1)
    const key = `${String(bought[0]!.product_details.row)}${String(bought[0]!.product_details.column)}`
    expect(seat(el, key).dataset.status).to.equal('selected')
    expect(seat(el, key).getAttribute('aria-disabled')).to.equal('true')
    expect(seat(el, key).textContent).to.contain('Purchased')
    const other = pickAvailable(el)
    expect(other.getAttribute('aria-disabled')).to.equal('true')
    other.click()
    await new Promise((r) => setTimeout(r, 300))
    expect(session.state.busy).to.equal(false)
    expect(seatItems(session, 'p2', firstSegment(session)).map((i) => i.basket_item_id)).to.deep.equal([
      bought[0]!.basket_item_id,
    ])
    await checkA11y(el)
  })
})

describe('svc-seat-map display="card" after the sale', function () {
  this.timeout(30_000)

  /** The card as a traveller reads it (its rendered text: what is hidden is not read here). */
  async function cardText(session: Session): Promise<string> {
    const el = document.createElement('svc-seat-map')
    el.display = 'card'
    el.session = session
    document.body.append(el)
    await until(() => root(el).querySelector('[part~=card] [part~=open-button]'), 'the card with its button')
    await el.updateComplete
    return one(el, '[part~=card]').innerText.replace(/\s+/g, ' ')
  }

  it('lists the seat bought earlier as Purchased, and does not say beside it that no seat is chosen', async () => {
    const session = await loadedSession({ booked: 'true' })
    const text = await cardText(session)
    expect(text).to.contain('Purchased')
    expect(text).to.not.contain('No seats chosen yet.')
    expect(text).to.contain('Choose seats')
  })

  it('says no seat is chosen yet when none was bought or chosen', async () => {
    const text = await cardText(await loadedSession())
    expect(text).to.contain('No seats chosen yet.')
    expect(text).to.not.contain('Purchased')
  })
})
