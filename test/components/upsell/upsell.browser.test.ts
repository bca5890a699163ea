import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import type { SvcUpsell } from '../../../components/index.ts'
import {
  activeDeep,
  addBag,
  animationsDone,
  axe,
  button,
  checkUntil,
  cleanup,
  deep,
  deepAll,
  expectNoOverflow,
  extrasOf,
  failingFetch,
  hangingFetch,
  isInside,
  mount,
  press,
  record,
  refusingFetch,
  session,
  setViewport,
  settle,
  textOf,
  until,
  offersReady,
} from '../../browser/helpers.ts'

afterEach(cleanup)

const PLUS_P1 = 'Add one Checked bag · 23 kg for Passenger 1'
const seatMapDefined = () => customElements.get('svc-seat-map') !== undefined

describe('<svc-upsell>', () => {
  it('embedded: one view per product asked for and on sale, with the session and locale by context', async () => {
    const s = await session({ language: 'de-DE' })
    const loads = record(document, 'svc-load')
    const el = await mount<SvcUpsell>(html`<svc-upsell .session=${s}></svc-upsell>`)
    expect(el.getAttribute('lang')).to.equal('de-DE')
    expect(el.getAttribute('dir')).to.equal('ltr')
    const views = Array.from(el.shadowRoot!.querySelectorAll('svc-bag-upsell, svc-seat-map, svc-option-card')).map(
      (v) => v.getAttribute('product') ?? v.localName,
    )
    // Fare-family upsell is not on sale on this trip (its fare family is not one of the airline's).
    expect(views).to.deep.equal(['svc-bag-upsell', 'svc-seat-map', 'priority_boarding', 'automatic_check_in'])
    await until(() => loads.length >= 4, 'a load event per product')
    expect(loads.map((e) => e.detail.product).sort()).to.deep.equal([
      'automatic_check_in',
      'bags',
      'priority_boarding',
      'seats',
    ])
    expect(loads.every((e) => e.detail.display === 'embedded')).to.equal(true)
    // Prices in the trip's locale, provided down to every view.
    expect(deep(el, 'svc-bag-upsell svc-price') ?? deep(el, 'svc-price')!).to.exist
    expect(deep(el, 'svc-price')!.shadowRoot!.textContent!.trim()).to.equal('75,98\u00a0€')
    await axe(el)
  })

  it('re-dispatches the basket change as svc-basket-change (once, with validity.state)', async () => {
    const s = await session()
    const changes = record(document, 'svc-basket-change')
    const el = await mount<SvcUpsell>(html`<svc-upsell .session=${s} .products=${['bags']}></svc-upsell>`)
    expect(el.shadowRoot!.querySelectorAll('svc-bag-upsell')).to.have.length(1)
    button(el, PLUS_P1)!.click()
    await until(() => changes.length === 1, 'svc-basket-change')
    const items = Object.values(changes[0]!.detail.basket) as any[]
    expect(items.map((i) => i.product_type).sort()).to.deep.equal(['bag', 'ticket'])
    expect(items.every((i) => typeof i.validity.state === 'string' && !('status' in i.validity))).to.equal(true)
    await settle(el)
    expect(changes).to.have.length(1)
  })

  it('card: a card per product; the bag card opens its dialog, and the choice shows in the card', async () => {
    const s = await session()
    const events = record(document, 'svc-load', 'svc-modal-close')
    const el = await mount<SvcUpsell>(
      html`<svc-upsell display="card" .session=${s} .products=${['bags', 'priority_boarding']}></svc-upsell>`,
    )
    const cards = deepAll(el, '[part~=card]')
    expect(cards).to.have.length(2)
    expect(
      cards.map((c) => deep(c.getRootNode() as ShadowRoot, '[part~=open-button]')!.textContent!.trim()),
    ).to.deep.equal(['Add bags', 'Add priority boarding'])
    await axe(el, 'cards')
    const open = button(el, 'Add bags')!
    open.focus()
    await press('Enter')
    await settle(el)
    const dialog = deep<HTMLDialogElement>(el.shadowRoot!.querySelector('svc-bag-upsell')!, 'dialog')!
    expect(dialog.open).to.equal(true)
    button(el, PLUS_P1)!.click()
    await until(() => extrasOf(s).length === 1 && !s.state.busy)
    await settle(el)
    await press('Escape')
    await settle(el)
    expect(activeDeep()).to.equal(button(el, 'Change bags'))
    expect(textOf(el)).to.contain('Checked bag · 23 kg').and.contain('€75.98')
    expect(events.filter((e) => e.type === 'svc-modal-close').map((e) => e.detail)).to.deep.equal([
      { product: 'bags', display: 'card' },
    ])
    await axe(el, 'cards with a bag')
  })

  it('modal: one dialog opened on mount with every product; Done closes it and reports each product', async () => {
    const s = await session()
    const events = record(document, 'svc-load', 'svc-modal-close')
    const el = await mount<SvcUpsell>(
      html`<svc-upsell display="modal" .session=${s} .products=${['bags', 'priority_boarding', 'automatic_check_in']}></svc-upsell>`,
    )
    const dialog = deep<HTMLDialogElement>(el, 'dialog')!
    expect(dialog.open).to.equal(true)
    expect(isInside(dialog, activeDeep())).to.equal(true)
    expect(deep(el, '#title')!.textContent).to.equal('Extras for your trip')
    expect(
      deepAll(el, '[part=section] > h3').length + el.shadowRoot!.querySelectorAll('section h3').length,
    ).to.be.greaterThan(0)
    expect(Array.from(el.shadowRoot!.querySelectorAll('section h3')).map((h) => h.textContent)).to.deep.equal([
      'Bags',
      'Priority boarding',
      'Automatic check-in',
    ])
    await until(() => events.filter((e) => e.type === 'svc-load').length === 3)
    expect(events.every((e) => e.detail.display === 'modal')).to.equal(true)
    await axe(el, 'modal')
    for (let i = 0; i < 30; i++) {
      await press('Tab')
      expect(isInside(dialog, activeDeep())).to.equal(true)
    }
    button(el, PLUS_P1)!.click()
    await until(() => extrasOf(s).length === 1 && !s.state.busy)
    await settle(el)
    expect(textOf(deep(el, '[part=total]')!)).to.contain('€75.98')
    button(el, 'Done')!.click()
    await settle(el)
    expect(dialog.open).to.equal(false)
    expect(events.filter((e) => e.type === 'svc-modal-close').map((e) => e.detail.product)).to.deep.equal([
      'bags',
      'priority_boarding',
      'automatic_check_in',
    ])
  })

  it('modal with one product: the dialog is titled after it', async () => {
    const s = await session()
    const el = await mount<SvcUpsell>(
      html`<svc-upsell display="modal" .session=${s} .products=${['bags']}></svc-upsell>`,
    )
    expect(deep(el, '#title')!.textContent).to.equal('Bags')
    expect(el.shadowRoot!.querySelector('svc-bag-upsell')!.hasAttribute('framed')).to.equal(true)
    await axe(el)
  })

  it('nothing asked for is on sale: a clear message and svc-fail no_products, in every display', async () => {
    for (const display of ['embedded', 'card', 'modal'] as const) {
      const s = await session()
      const fails = record(document, 'svc-fail')
      const el = await mount<SvcUpsell>(
        html`<svc-upsell display=${display} .session=${s} .products=${['fare_family_upsell']}></svc-upsell>`,
      )
      expect(textOf(el), display).to.contain('There are no extras to add on this flight.')
      expect(fails.map((f) => [f.detail.product, f.detail.error.code])).to.deep.equal([
        ['fare_family_upsell', 'no_products'],
      ])
      await axe(el, `no products ${display}`)
      await cleanup()
    }
  })

  it('loading and load error (with svc-fail per product and "Try again")', async () => {
    const hang = hangingFetch()
    const s1 = await session({ fetch: hang, load: false })
    const a = await mount<SvcUpsell>(html`<svc-upsell .session=${s1}></svc-upsell>`)
    expect(deep(a, '[aria-busy=true]')).to.exist
    expect(textOf(a)).to.contain('Loading options…')
    await axe(a, 'loading')
    hang.release()
    await until(() => s1.state.status === 'ready')

    const broken = failingFetch()
    const s2 = await session({ fetch: broken, load: false })
    const fails = record(document, 'svc-fail')
    const b = await mount<SvcUpsell>(
      html`<svc-upsell display="modal" .session=${s2} .products=${['bags', 'seats']}></svc-upsell>`,
    )
    await until(() => s2.state.status === 'error')
    await settle(b)
    expect(textOf(b)).to.contain('Extras could not be loaded.')
    expect(fails.map((f) => [f.detail.product, f.detail.error.code])).to.deep.equal([
      ['bags', 'network'],
      ['seats', 'network'],
    ])
    await axe(b, 'error')
    broken.broken = false
    button(b, 'Try again')!.click()
    await offersReady(s2, 'bag', 'seat')
    await settle(b)
    expect(b.shadowRoot!.querySelector('svc-bag-upsell')).to.exist
  })

  it('a refused change reaches the page as svc-fail from inside the widget', async () => {
    const f = refusingFetch()
    const s = await session({ fetch: f })
    const fails = record(document, 'svc-fail')
    const el = await mount<SvcUpsell>(html`<svc-upsell .session=${s} .products=${['bags']}></svc-upsell>`)
    button(el, PLUS_P1)!.click()
    await until(() => fails.length === 1)
    expect(fails[0]!.detail).to.include({ product: 'bags', display: 'embedded' })
    expect(fails[0]!.detail.error.code).to.equal('rejected')
  })

  it('validity states inside the root: price_changed with accept', async () => {
    const s = await session({ flight: '9001' })
    await addBag(s)
    const el = await mount<SvcUpsell>(html`<svc-upsell .session=${s} .products=${['bags']}></svc-upsell>`)
    await checkUntil(s, 'price_changed')
    await settle(el)
    expect(textOf(el)).to.contain('The price changed from €75.98')
    await axe(el, 'price_changed')
    button(el, 'Accept new price')!.click()
    await until(() => extrasOf(s)[0]?.validity.status === 'valid' && !s.state.busy)
  })

  it('right-to-left: ar-SA sets dir=rtl and lang on the host, and the views follow', async () => {
    const s = await session({ language: 'ar-SA' })
    const el = await mount<SvcUpsell>(
      html`<svc-upsell .session=${s} .products=${['bags', 'priority_boarding']}></svc-upsell>`,
    )
    expect(el.getAttribute('dir')).to.equal('rtl')
    expect(el.getAttribute('lang')).to.equal('ar-SA')
    const bags = el.shadowRoot!.querySelector('svc-bag-upsell')!
    expect(getComputedStyle(bags).direction).to.equal('rtl')
    const icon = deep(bags, 'h2 svg')!.getBoundingClientRect()
    const host = bags.getBoundingClientRect()
    // The heading starts at the right edge.
    expect(host.right - icon.right).to.be.lessThan(icon.left - host.left)
    await axe(el, 'rtl')
  })

  it('the theme reaches every nested view', async () => {
    const s = await session()
    const el = await mount<SvcUpsell>(
      html`<svc-upsell display="card" .session=${s} .products=${['bags']} .theme=${{ primary: 'rgb(122, 31, 162)', textPrimary: 'rgb(10, 20, 30)' }}></svc-upsell>`,
    )
    const open = deep(el, '[part~=open-button]')!
    expect(getComputedStyle(open).backgroundColor).to.equal('rgb(122, 31, 162)')
    expect(getComputedStyle(deep(el, 'h2')!).color).to.equal('rgb(10, 20, 30)')
    el.theme = {}
    await settle(el)
    await animationsDone(el)
    expect(getComputedStyle(open).backgroundColor).to.equal('rgb(11, 95, 255)')
  })

  it('the dialog frames bring their styles to the views they draw, and a new theme leaves them there', async () => {
    const s = await session()
    const card = await mount<SvcUpsell>(
      html`<svc-upsell display="card" .session=${s} .products=${['bags']}></svc-upsell>`,
    )
    expect(getComputedStyle(deep(card, '[part~=card]')!).display).to.equal('flex')
    const el = await mount<SvcUpsell>(
      html`<svc-upsell display="modal" .session=${s} .products=${['bags', 'priority_boarding']} .theme=${{ primary: 'rgb(122, 31, 162)' }}></svc-upsell>`,
    )
    await settle(el)
    const section = () => getComputedStyle(el.shadowRoot!.querySelector('.section + .section')!)
    expect(section().borderBlockStartStyle).to.equal('solid')
    el.theme = { primary: 'rgb(11, 95, 255)' }
    await settle(el)
    await animationsDone(el)
    expect(section().borderBlockStartStyle).to.equal('solid')
    expect(getComputedStyle(button(el, 'Done')!).backgroundColor).to.equal('rgb(11, 95, 255)')
  })

  it('fits 320 px without horizontal scrolling (embedded and card), and a 320 px screen (modal)', async () => {
    const s = await session()
    await addBag(s)
    const a = await mount(
      html`<svc-upsell .session=${s} .products=${['bags', 'priority_boarding', 'automatic_check_in']}></svc-upsell>`,
      { width: 320 },
    )
    expectNoOverflow(a.parentElement!)
    const b = await mount(html`<svc-upsell display="card" .session=${s}></svc-upsell>`, { width: 320 })
    expectNoOverflow(b.parentElement!)
    await cleanup()
    await setViewport({ width: 320, height: 640 })
    const c = await mount(
      html`<svc-upsell display="modal" .session=${s} .products=${['bags', 'priority_boarding']}></svc-upsell>`,
    )
    const body = deep(c, '[part=body]')!
    expect(deep(c, 'dialog')!.getBoundingClientRect().width).to.be.at.most(320)
    expect(body.scrollWidth).to.be.at.most(body.clientWidth)
  })

  it('seats come from <svc-seat-map>, which components/index.ts registers', async () => {
    expect(seatMapDefined()).to.equal(true)
    const s = await session()
    const el = await mount<SvcUpsell>(
      html`<svc-upsell display="card" .session=${s} .products=${['seats']}></svc-upsell>`,
    )
    expect(el.shadowRoot!.querySelector('svc-seat-map')!.getAttribute('display')).to.equal('card')
    expect(textOf(el)).to.contain('Seats')
  })
})
