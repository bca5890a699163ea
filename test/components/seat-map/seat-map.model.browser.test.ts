/**
 * What the seat map makes of a real airline's map (components/seat-map/seat-map.model.ts: cabins, columns,
 * who may take which seat, where the arrow keys lead), drawn by <svc-seat-map> on a search as the service
 * renders Duffel's (test/browser/fixtures/duffel-like-search.ts, over a real trip of the fixture API): two
 * cabins on one deck, each with its own columns, gaps for missing seats, jumping rows, exit rows and no wing,
 * the airline's notices about seats, a seat for one passenger and not another, at 1200 and 320 px. (The bag
 * view and the basket on the same airline's bags: test/components/bag-upsell/bag-upsell.browser.test.ts.)
 */
import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import type { SvcSeatMap } from '../../../components/seat-map/seat-map.component.ts'
import { DISCLOSURES, duffelLikeFetch } from '../../browser/fixtures/duffel-like-search.ts'
import {
  activeDeep,
  axe,
  cleanup,
  expectNoOverflow,
  mount,
  press,
  session,
  setViewport,
  settle,
  textOf,
  until,
} from '../../browser/helpers.ts'

afterEach(cleanup)

const sr = (el: Element) => el.shadowRoot!
const seat = (el: SvcSeatMap, key: string) => sr(el).querySelector<HTMLButtonElement>(`button[data-seat="${key}"]`)
const grids = (el: SvcSeatMap) => [...sr(el).querySelectorAll<HTMLElement>('[role="grid"]')]
const rowIn = (grid: Element, row: number) => grid.querySelector<HTMLElement>(`[role="row"][data-row="${row}"]`)!
const centre = (e: Element) => {
  const r = e.getBoundingClientRect()
  return r.left + r.width / 2
}
/** The accessible description of `el`: the text of the elements its aria-describedby names (in its shadow root). */
const description = (el: Element) =>
  (el.getAttribute('aria-describedby') ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => (el.getRootNode() as ShadowRoot).getElementById(id)?.textContent?.trim() ?? '')
    .join(' ')

async function seatMap() {
  const s = await session({ fetch: duffelLikeFetch(), offers: [] })
  const el = await mount<SvcSeatMap>(html`<svc-seat-map .session=${s}></svc-seat-map>`)
  await until(() => s.state.offers.seat?.status === 'ready', 'the seat offers')
  await settle(el)
  await until(() => grids(el).length === 2, 'the two cabins')
  return { s, el }
}

describe("<svc-seat-map> on a real airline's map (Duffel-like)", function () {
  this.timeout(30_000)

  it('draws both cabins of deck 0 one after the other, each named and with its own columns; no deck tabs', async () => {
    const { el } = await seatMap()
    expect(sr(el).querySelector('[part="decks"]'), 'one deck: no deck tabs').to.equal(null)
    expect([...sr(el).querySelectorAll('[part="cabin"]')].map((c) => c.textContent!.trim())).to.deep.equal([
      'Business',
      'Economy',
    ])
    const [business, economy] = grids(el)
    expect(business!.getAttribute('aria-label')).to.equal('Seat map, LHR → JFK, Business')
    expect(economy!.getAttribute('aria-label')).to.equal('Seat map, LHR → JFK, Economy')
    const letters = (g: Element) => [...g.querySelectorAll('.colhead')].map((h) => h.textContent)
    expect(letters(business!)).to.deep.equal(['A', 'D', 'G', 'K'])
    expect(letters(economy!)).to.deep.equal(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'J', 'K'])
    expect(textOf(el)).to.contain('Aircraft: Boeing 777-300ER')
    // Rows jump (no 13), as the airline numbers them.
    const rows = [...economy!.querySelectorAll<HTMLElement>('[role="row"][data-row]')].map((r) =>
      Number(r.dataset['row']),
    )
    expect(rows).to.include(12).and.include(14).and.not.include(13)
    await axe(el, 'the Duffel-like seat map')
  })

  it('a missing seat is a gap in its column, not a seat shifted into it', async () => {
    const { el } = await seatMap()
    const [business, economy] = grids(el)
    // 1G (a galley): row 1 has four cells, the third empty; 1K stays under the letter K.
    const row1 = rowIn(business!, 1)
    const cells = [...row1.querySelectorAll('[role="gridcell"]')]
    expect(cells).to.have.length(4)
    expect(cells.map((c) => c.querySelector('button')?.dataset['seat'] ?? null)).to.deep.equal(['1A', '1D', null, '1K'])
    const heads = [...business!.querySelectorAll('.colhead')]
    expect(Math.abs(centre(seat(el, '1K')!) - centre(heads[3]!))).to.be.below(1)
    expect(Math.abs(centre(seat(el, '2G')!) - centre(heads[2]!))).to.be.below(1)
    // 31D–31G (the lavatories): 31H stays under H; 20A and 20K (doors): 20B under B.
    const eHeads = [...economy!.querySelectorAll('.colhead')]
    expect(seat(el, '31D')).to.equal(null)
    expect(Math.abs(centre(seat(el, '31H')!) - centre(eHeads[7]!))).to.be.below(1)
    expect(seat(el, '20A')).to.equal(null)
    expect(Math.abs(centre(seat(el, '20B')!) - centre(eHeads[1]!))).to.be.below(1)
    expect(rowIn(economy!, 31).querySelectorAll('[role="gridcell"]')).to.have.length(10)
  })

  it('marks the exit rows (arrows, row header, seat names) and draws no wing where the airline says none', async () => {
    const { el } = await seatMap()
    const exits = [...sr(el).querySelectorAll<HTMLElement>('[role="row"][data-exit]')].map((r) => r.dataset['row'])
    expect(exits).to.deep.equal(['20', '21'])
    expect(sr(el).querySelectorAll('[data-exit] .exit-mark')).to.have.length(4)
    expect(sr(el).querySelector('[data-row="20"] [role="rowheader"]')!.textContent).to.contain('exit row')
    expect(seat(el, '21B')!.getAttribute('aria-label')).to.match(/^Seat 21B, exit row/)
    expect(sr(el).querySelectorAll('[data-wing]')).to.have.length(0)
    const legend = textOf(sr(el).querySelector('[part="legend"]')!)
    expect(legend).to.contain('Exit row').and.not.contain('Over the wing')
  })

  it("shows the airline's notices with the seat: its description, its tip, and under the map once focused or tapped; escaped", async () => {
    const { el } = await seatMap()
    const b = seat(el, '19A')!
    expect(description(b)).to.equal('Seat does not recline.')
    expect(b.querySelector('.tip')!.textContent).to.contain(DISCLOSURES.recline)
    // A seat with two notices, one of which is markup: text, never elements.
    const c = seat(el, '21C')!
    expect(description(c)).to.contain(DISCLOSURES.tray).and.contain('<img src=x')
    expect(sr(el).querySelector('img')).to.equal(null)
    expect((window as { __xss?: unknown }).__xss).to.equal(undefined)

    // Keyboard: focus reaches 19A; its notices show under the cabin.
    expect(sr(el).querySelector('[part="seat-notes"]')).to.equal(null)
    b.focus()
    await settle(el)
    const notes = sr(el).querySelector('[part="seat-notes"]')!
    expect(textOf(notes)).to.contain('Seat 19A').and.contain(DISCLOSURES.recline)
    // A tap on a seat the passenger may not have (21C: an exit row, and p1 holds an infant) shows its notices too, and buys nothing.
    expect(c.dataset['status']).to.equal('restricted')
    c.click()
    await settle(el)
    expect(textOf(sr(el).querySelector('[part="seat-notes"]')!))
      .to.contain('Seat 21C')
      .and.contain(DISCLOSURES.markup)
    expect(sr(el).querySelector('[part="seat-notes"] img')).to.equal(null)
    expect(description(c)).to.contain('Not available for this passenger')
    await axe(el, 'notes shown')
  })

  it("follows the passenger: 11C is p1's to take, not p2's; the exit rows the other way round", async () => {
    const { el } = await seatMap()
    expect(seat(el, '11C')!.dataset['status']).to.equal('available')
    expect(seat(el, '21B')!.dataset['status']).to.equal('restricted')
    const p2 = sr(el).querySelector<HTMLInputElement>('[data-passenger="p2"] input')!
    p2.click()
    await settle(el)
    expect(seat(el, '11C')!.dataset['status']).to.equal('restricted')
    expect(seat(el, '11C')!.getAttribute('aria-label')).to.contain('not available for this passenger')
    expect(seat(el, '21B')!.dataset['status']).to.equal('available')
    expect(seat(el, '21B')!.getAttribute('aria-label')).to.match(/exit row, €65\.00$/)
    // Taken seats are taken for everyone.
    expect(seat(el, '10B')!.dataset['status']).to.equal('taken')
  })

  it('Up and Down cross from one cabin into the next', async () => {
    const { el } = await seatMap()
    seat(el, '5K')!.focus()
    await press('ArrowDown')
    expect((activeDeep() as HTMLElement).dataset['seat']).to.equal('10K')
    await press('ArrowUp')
    expect((activeDeep() as HTMLElement).dataset['seat']).to.equal('5K')
    // From a column business does not have (10C) up into the business seat nearest its place.
    seat(el, '10C')!.focus()
    await press('ArrowUp')
    expect((activeDeep() as HTMLElement).dataset['seat']).to.equal('5D')
  })

  it('at 320 px: the page does not scroll sideways; both cabins fit their box, every seat on screen and 24 px or more', async () => {
    // A phone page with no margin of its own (as the seat-map suite's phone test): the widget is the screen's width.
    document.body.style.margin = '0'
    try {
      await setViewport({ width: 320, height: 740 })
      const { el } = await seatMap()
      expectNoOverflow(el)
      expect(document.documentElement.scrollWidth, 'the page does not scroll sideways').to.be.at.most(320)
      const box = sr(el).querySelector<HTMLElement>('[part="map"]')!
      expect(box.scrollWidth, 'ten abreast fits its box').to.be.at.most(box.clientWidth)
      const edges = box.getBoundingClientRect()
      for (const b of sr(el).querySelectorAll<HTMLElement>('button[data-seat]')) {
        const r = b.getBoundingClientRect()
        const where = `${b.dataset['seat']}: ${r.left.toFixed(1)}–${r.right.toFixed(1)}, ${r.width.toFixed(1)} × ${r.height.toFixed(1)}`
        expect(
          r.left >= Math.max(0, edges.left) && r.right <= Math.min(320, edges.right),
          `in view: ${where}`,
        ).to.equal(true)
        expect(r.width >= 24 && r.height >= 24, `a 24 px target: ${where}`).to.equal(true)
      }
      expect(
        [...sr(el).querySelectorAll<HTMLElement>('[part="cabin"]')].map((c) => c.getBoundingClientRect().width > 0),
      ).to.deep.equal([true, true])
      await axe(el, 'the Duffel-like seat map at 320 px')
    } finally {
      document.body.style.margin = ''
    }
  })
})
