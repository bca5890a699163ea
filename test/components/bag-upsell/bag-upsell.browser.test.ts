/**
 * <svc-bag-upsell> against the real API (the runner's fixture trips): embedded, as a card and as a modal,
 * after the sale and placed by hand; and at the end, bags as a real airline states them.
 */
import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import { emulateMedia } from '@web/test-runner-commands'
import '../../../components/index.ts'
import type { SvcBagUpsell } from '../../../components/index.ts'
import {
  activeDeep,
  addBag,
  axe,
  button,
  checkUntil,
  cleanup,
  deep,
  deepAll,
  expectNoOverflow,
  expiredFetch,
  extrasOf,
  failingFetch,
  hangingFetch,
  isInside,
  mount,
  press,
  shiftTab,
  record,
  refusingFetch,
  session,
  setViewport,
  settle,
  textOf,
  until,
  withoutProducts,
  offersReady,
} from '../../browser/helpers.ts'
import type { BasketView } from '../../../client/api.ts'
import type { BasketItem } from '../../../client/types.ts'
import { rewriteJson, urlOf } from '../../../mock-server/conditions.ts'
import { duffelLikeFetch } from '../../browser/fixtures/duffel-like-search.ts'

afterEach(cleanup)

const steppers = (el: Element, dir: 'Add one' | 'Remove one') =>
  deepAll<HTMLButtonElement>(el, 'button').filter((b) => b.getAttribute('aria-label')?.startsWith(dir))
const PLUS_P1 = 'Add one Checked bag · 23 kg for Passenger 1'
const MINUS_P1 = 'Remove one Checked bag · 23 kg for Passenger 1'
const live = (el: Element) => deep(el, '[part=live]')!
const dialogOf = (el: Element) => deep<HTMLDialogElement>(el, 'dialog')!

describe('<svc-bag-upsell> embedded', () => {
  it('shows bags per journey and passenger: allowances, weights, sizes, prices and reasons', async () => {
    const s = await session()
    const events = record(document, 'svc-load')
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    const text = textOf(el)
    expect(deep(el, 'h2')!.textContent).to.contain('Bags')
    const journeys = deepAll(el, 'h3').map((h) => h.textContent!.trim())
    expect(journeys).to.have.length(2)
    expect(journeys[0]).to.match(/^London → New York City · \S+/)
    expect(journeys[1]).to.match(/^New York City → London · \S+/)
    expect(text).to.contain('Passenger 1').and.contain('Passenger 3').and.contain('Infant on lap')
    expect(text).to.contain('Cabin bag · 23 kg · 56 × 45 × 25 cm').and.contain('Included')
    expect(text).to.contain('Checked bag · 23 kg').and.contain('Up to 23 kg, 90 × 75 × 43 cm')
    expect(text).to.contain('Not available for an infant on lap')
    expect(textOf(deep(el, 'svc-price')!)).to.match(/^€\d+\.\d\d$/)
    expect(events.map((e) => e.detail)).to.deep.equal([{ product: 'bags', display: 'embedded' }])
    await axe(el)
  })

  it('a click on + adds a bag: the basket shows it, the live region announces it, the page hears of it', async () => {
    const s = await session()
    const changes = record(document, 'svc-basket-change')
    const el = await mount<SvcBagUpsell>(
      html`<div><svc-bag-upsell .session=${s}></svc-bag-upsell><svc-basket .session=${s}></svc-basket></div>`,
    )
    const bags = el.querySelector('svc-bag-upsell')!
    const basket = el.querySelector('svc-basket')!
    expect(textOf(basket)).to.contain('No extras selected yet.')
    button(bags, PLUS_P1)!.click()
    await bags.updateComplete
    // Every stepper waits while the change is on its way (aria-disabled keeps focus where it is).
    expect(steppers(bags, 'Add one').every((b) => b.getAttribute('aria-disabled') === 'true')).to.equal(true)
    await until(() => extrasOf(s).length === 1 && !s.state.busy, 'the bag in the basket')
    await settle(el)
    expect(button(bags, PLUS_P1)!.parentElement!.textContent).to.contain('1')
    expect(textOf(basket))
      .to.contain('Checked bag · 23 kg')
      .and.contain('Passenger 1 · London → New York City')
      .and.contain('€75.98')
      .and.contain('Available')
    await until(() => live(bags).textContent?.includes('Basket total'), 'the announcement')
    expect(live(bags).textContent).to.equal('Checked bag · 23 kg added. Basket total €75.98.')
    expect(live(bags).getAttribute('aria-live')).to.equal('polite')
    expect(changes).to.have.length(1)
    const item = Object.values(changes[0]!.detail.basket).find((i: any) => i.product_type === 'bag') as any
    expect(item.validity.state).to.equal('valid')
    await axe(el)
  })

  it('the stepper is bounded by the quantity limit and − lowers a quantity of two to one', async () => {
    const s = await session()
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    const infantPlus = 'Add one Checked bag · 23 kg for Passenger 3'
    button(el, infantPlus)!.click()
    await until(() => extrasOf(s).length === 1 && !s.state.busy)
    await settle(el)
    // The lap infant may have one.
    expect(button(el, infantPlus)!.getAttribute('aria-disabled')).to.equal('true')
    expect(textOf(el)).to.contain('Maximum 1')
    button(el, infantPlus)!.click()
    await settle(el)
    expect(extrasOf(s)).to.have.length(1)

    button(el, PLUS_P1)!.click()
    await until(() => extrasOf(s).length === 2 && !s.state.busy)
    await settle(el)
    button(el, PLUS_P1)!.click()
    await until(() => extrasOf(s).some((i) => i.quantity === 2) && !s.state.busy, 'quantity 2')
    await settle(el)
    expect(button(el, PLUS_P1)!.parentElement!.textContent).to.contain('2')
    button(el, MINUS_P1)!.click()
    await until(
      () =>
        extrasOf(s)
          .filter((i) => i.product_details['passenger_id'] === 'p1')
          .map((i) => i.quantity)
          .join() === '1' && !s.state.busy,
      'quantity 1',
    )
    await settle(el)
    expect(button(el, PLUS_P1)!.parentElement!.textContent).to.contain('1')
    await until(() => live(el).textContent?.startsWith('Checked bag · 23 kg removed.'), 'the removal announced')
    button(el, MINUS_P1)!.click()
    await until(
      () => !extrasOf(s).some((i) => i.product_details['passenger_id'] === 'p1') && !s.state.busy,
      'no bag for p1',
    )
    await settle(el)
    expect(button(el, MINUS_P1)!.getAttribute('aria-disabled')).to.equal('true')
  })

  it('loading: a skeleton, "Loading options…" and aria-busy', async () => {
    const f = hangingFetch()
    const s = await session({ fetch: f, load: false })
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    expect(deep(el, 'section')!.getAttribute('aria-busy')).to.equal('true')
    expect(deep(el, '[part=loading]')).to.exist
    expect(textOf(el)).to.contain('Loading options…')
    expect(deep(el, 'svc-spinner')!.getAttribute('role')).to.equal('status')
    await axe(el)
    f.release()
    await offersReady(s, 'bag')
    await settle(el)
    expect(deep(el, 'section')!.getAttribute('aria-busy')).to.equal('false')
    expect(steppers(el, 'Add one').length).to.be.greaterThan(0)
  })

  it('checking, then price_changed (flight 9001): old price struck through, accept keeps the bag at the new price', async () => {
    const s = await session({ flight: '9001' })
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await addBag(s)
    void s.check()
    await until(() => extrasOf(s)[0]?.validity.status === 'checking', 'checking')
    await settle(el)
    expect(deep(el, '[part~=state-checking] svc-spinner')!.getAttribute('label')).to.equal('Checking availability…')
    await axe(el, 'checking')
    await until(() => extrasOf(s)[0]?.validity.status === 'price_changed', 'price_changed')
    await settle(el)
    const notice = deep(el, '[part~=state-price-changed]')!
    expect(textOf(notice)).to.match(/The price changed from €75\.98 to €\d+\.\d\d\./)
    expect(deep(notice, 'del')!.textContent).to.contain('€75.98')
    expect(getComputedStyle(deep(notice, 'del')!).textDecorationLine).to.equal('line-through')
    await axe(el, 'price_changed')
    button(notice, 'Accept new price')!.click()
    await until(() => extrasOf(s)[0]?.validity.status === 'valid' && !s.state.busy, 'valid again')
    await settle(el)
    expect(deep(el, '[part~=state-price-changed]')).to.equal(null)
    expect(extrasOf(s)[0]!.price.total.amount).to.be.greaterThan(7598)
    await until(() => live(el).textContent?.startsWith('New price accepted'), 'the acceptance announced')
  })

  it('price_changed: "Remove" takes the bag out', async () => {
    const s = await session({ flight: '9001' })
    await addBag(s)
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await checkUntil(s, 'price_changed')
    await settle(el)
    button(deep(el, '[part~=state-price-changed]')!, 'Remove')!.click()
    await until(() => extrasOf(s).length === 0 && !s.state.busy, 'removed')
  })

  it('unavailable (flight 9002): explains; "Choose another" removes it and takes focus to the options', async () => {
    const s = await session({ flight: '9002' })
    await addBag(s)
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await checkUntil(s, 'unavailable')
    await settle(el)
    const notice = deep(el, '[part~=state-unavailable]')!
    expect(textOf(notice)).to.contain('This extra is no longer available.')
    expect(button(notice, 'Remove')).to.exist
    await axe(el, 'unavailable')
    button(notice, 'Choose another')!.click()
    await until(() => extrasOf(s).length === 0 && !s.state.busy, 'removed')
    await until(() => activeDeep()?.matches('[data-options]'), 'focus on the options')
    expect(activeDeep()!.getAttribute('aria-labelledby')).to.equal('passenger-0-0')
  })

  it('invalid (expired): explains; "Check again" revalidates', async () => {
    const f = expiredFetch()
    const s = await session({ fetch: f })
    await addBag(s)
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    const notice = deep(el, '[part~=state-invalid]')!
    expect(textOf(notice)).to.contain('This price has expired and must be checked again.')
    await axe(el, 'invalid')
    button(notice, 'Check again')!.click()
    await until(() => extrasOf(s)[0]?.validity.status === 'valid' && !s.state.busy, 'valid after the check')
    await settle(el)
    expect(deep(el, '[part~=state-invalid]')).to.equal(null)
  })

  it('load error: a clear message and "Try again", reported as svc-fail', async () => {
    const f = failingFetch()
    const s = await session({ fetch: f, load: false })
    const fails = record(document, 'svc-fail')
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await until(() => s.state.status === 'error')
    await settle(el)
    const alert = deep(el, '[role=alert]')!
    expect(textOf(alert)).to.contain('Extras could not be loaded.')
    expect(fails.map((e) => [e.detail.product, e.detail.error.code])).to.deep.equal([['bags', 'network']])
    await axe(el, 'error')
    f.broken = false
    button(alert, 'Try again')!.click()
    await offersReady(s, 'bag')
    await settle(el)
    expect(steppers(el, 'Add one').length).to.be.greaterThan(0)
  })

  it('a refused change: an alert with "Try again", svc-fail with the error; the retry succeeds', async () => {
    const f = refusingFetch()
    const s = await session({ fetch: f })
    const fails = record(document, 'svc-fail')
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    button(el, PLUS_P1)!.click()
    await until(() => fails.length === 1, 'svc-fail')
    await settle(el)
    expect(fails[0]!.detail.error.code).to.equal('rejected')
    expect(fails[0]!.detail.error.apiCode).to.equal('basket_rule_violation')
    const alert = deep(el, '[part=error]')!
    expect(textOf(alert)).to.contain('Your selection could not be saved.')
    await axe(el, 'refused')
    f.refusing = false
    button(alert, 'Try again')!.click()
    await until(() => extrasOf(s).length === 1 && !s.state.busy)
    await settle(el)
    expect(deep(el, '[part=error]')).to.equal(null)
  })

  it('no bags on sale: says so, never a blank box, and reports no_products', async () => {
    const s = await session({ fetch: withoutProducts(['bag']) })
    const fails = record(document, 'svc-fail')
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    expect(textOf(el)).to.contain('No extra bags can be added on this flight.')
    expect(fails.map((e) => e.detail.error.code)).to.deep.equal(['no_products'])
    await axe(el, 'no products')
  })

  it('right-to-left: ar-SA sets dir=rtl and lang on the host, and the layout mirrors', async () => {
    const s = await session({ language: 'ar-SA' })
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    expect(el.getAttribute('dir')).to.equal('rtl')
    expect(el.getAttribute('lang')).to.equal('ar-SA')
    const less = steppers(el, 'Remove one')[0]!.getBoundingClientRect()
    const more = steppers(el, 'Add one')[0]!.getBoundingClientRect()
    expect(less.left).to.be.greaterThan(more.left)
    // Prices in the locale's own digits, through Intl.
    expect(deep(el, 'svc-price')!.shadowRoot!.textContent!.trim()).to.equal(
      new Intl.NumberFormat('ar-SA', { style: 'currency', currency: 'EUR' }).format(75.98),
    )
    await axe(el, 'rtl')
  })

  it('fits 320 px without horizontal scrolling', async () => {
    const s = await session()
    await addBag(s)
    await checkUntil(s, 'valid')
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`, { width: 320 })
    expectNoOverflow(el.parentElement!)
  })

  it('dark mode passes axe (colour contrast included)', async () => {
    await emulateMedia({ colorScheme: 'dark' })
    try {
      const s = await session()
      await addBag(s)
      const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
      expect(getComputedStyle(el).color).to.equal('rgb(230, 237, 243)')
      await axe(el, 'dark')
    } finally {
      await emulateMedia({ colorScheme: 'light' })
    }
  })
})

describe('<svc-bag-upsell> card', () => {
  it('summarises the selection; its button opens the dialog; the choice shows in the card after Done', async () => {
    const s = await session()
    const events = record(document, 'svc-load', 'svc-modal-close')
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell display="card" .session=${s}></svc-bag-upsell>`)
    expect(textOf(el)).to.contain('No extra bags selected yet.')
    const open = deep<HTMLButtonElement>(el, '[part~=open-button]')!
    expect(open.textContent!.trim()).to.equal('Add bags')
    expect(open.getAttribute('aria-haspopup')).to.equal('dialog')
    await axe(el, 'card')
    open.click()
    await settle(el)
    expect(dialogOf(el).open).to.equal(true)
    await axe(el, 'card dialog')
    button(el, PLUS_P1)!.click()
    await until(() => extrasOf(s).length === 1 && !s.state.busy)
    await settle(el)
    await until(() => live(el).textContent?.includes('added'), 'announced in the dialog')
    expect(isInside(dialogOf(el), live(el))).to.equal(true)
    button(el, 'Done')!.click()
    await settle(el)
    expect(dialogOf(el).open).to.equal(false)
    expect(textOf(el)).to.contain('Checked bag · 23 kg').and.contain('Passenger 1 · London → New York City')
    expect(textOf(deep(el, '[part~=total]')!)).to.contain('€75.98')
    expect(deep(el, '[part~=open-button]')!.textContent!.trim()).to.equal('Change bags')
    expect(events.map((e) => [e.type, e.detail.display])).to.deep.equal([
      ['svc-load', 'card'],
      ['svc-modal-close', 'card'],
    ])
    await axe(el, 'card with a bag')
  })

  it('keyboard: focus moves into the dialog, Tab stays inside, Escape closes and focus returns to the button', async () => {
    const s = await session()
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell display="card" .session=${s}></svc-bag-upsell>`)
    const open = deep<HTMLButtonElement>(el, '[part~=open-button]')!
    open.focus()
    await press('Enter')
    await settle(el)
    const dialog = dialogOf(el)
    expect(dialog.open).to.equal(true)
    expect(isInside(dialog, activeDeep())).to.equal(true)
    expect(document.documentElement.style.overflow).to.equal('hidden')
    const seen = new Set<Element>()
    for (let i = 0; i < 40; i++) {
      await press('Tab')
      expect(isInside(dialog, activeDeep()), `Tab ${i + 1} stays in the dialog`).to.equal(true)
      seen.add(activeDeep()!)
    }
    // 40 presses went round: every control of the dialog was reached, and no more.
    expect(seen.size).to.be.lessThan(40)
    for (let i = 0; i < 5; i++) {
      await shiftTab()
      expect(isInside(dialog, activeDeep())).to.equal(true)
    }
    // Keyboard adds a bag.
    button(el, PLUS_P1)!.focus()
    await press('Enter')
    await until(() => extrasOf(s).length === 1 && !s.state.busy)
    await settle(el)
    expect(activeDeep()).to.equal(button(el, PLUS_P1))
    await press('Escape')
    await settle(el)
    expect(dialog.open).to.equal(false)
    expect(activeDeep()).to.equal(deep(el, '[part~=open-button]'))
    expect(document.documentElement.style.overflow).to.equal('')
  })

  it('shows each state in the card: loading, error, price_changed with its actions, nothing on sale', async () => {
    const hang = hangingFetch()
    const loading = await session({ fetch: hang, load: false })
    const a = await mount(html`<svc-bag-upsell display="card" .session=${loading}></svc-bag-upsell>`)
    expect(deep(a, '[part~=card]')!.getAttribute('aria-busy')).to.equal('true')
    expect(textOf(a)).to.contain('Loading options…')
    await axe(a, 'card loading')
    hang.release()

    const broken = failingFetch()
    const failing = await session({ fetch: broken, load: false })
    const b = await mount(html`<svc-bag-upsell display="card" .session=${failing}></svc-bag-upsell>`)
    await until(() => failing.state.status === 'error')
    await settle(b)
    expect(textOf(b)).to.contain('Extras could not be loaded.').and.contain('Try again')
    await axe(b, 'card error')

    const s = await session({ flight: '9001' })
    await addBag(s)
    const c = await mount(html`<svc-bag-upsell display="card" .session=${s}></svc-bag-upsell>`)
    await checkUntil(s, 'price_changed')
    await settle(c)
    expect(textOf(c)).to.contain('Price changed').and.contain('Accept new price')
    expect(deep(c, 'del')).to.exist
    await axe(c, 'card price_changed')
    button(c, 'Accept new price')!.click()
    await until(() => extrasOf(s)[0]?.validity.status === 'valid' && !s.state.busy)

    const none = await session({ fetch: withoutProducts(['bag']) })
    const d = await mount(html`<svc-bag-upsell display="card" .session=${none}></svc-bag-upsell>`)
    expect(textOf(d)).to.contain('No extra bags can be added on this flight.')
    expect(deep(d, '[part~=open-button]')).to.equal(null)
    await axe(d, 'card no products')
  })

  it('unavailable in the card: "Choose another" removes the bag and opens the options in the dialog', async () => {
    const s = await session({ flight: '9002' })
    await addBag(s)
    const el = await mount(html`<svc-bag-upsell display="card" .session=${s}></svc-bag-upsell>`)
    await checkUntil(s, 'unavailable')
    await settle(el)
    expect(textOf(el)).to.contain('This extra is no longer available.')
    await axe(el, 'card unavailable')
    button(el, 'Choose another')!.click()
    await until(() => extrasOf(s).length === 0 && !s.state.busy)
    await until(() => dialogOf(el).open && activeDeep()?.matches('[data-options]'), 'options focused in the dialog')
  })

  it('fits 320 px without horizontal scrolling', async () => {
    const s = await session()
    await addBag(s)
    const el = await mount(html`<svc-bag-upsell display="card" .session=${s}></svc-bag-upsell>`, { width: 320 })
    expectNoOverflow(el.parentElement!)
  })
})

describe('<svc-bag-upsell> modal', () => {
  it('opens on mount as a labelled modal dialog; Escape closes it, focus returns, svc-modal-close fires', async () => {
    const opener = document.createElement('button')
    opener.textContent = 'Bags'
    document.body.append(opener)
    opener.focus()
    try {
      const s = await session()
      const events = record(document, 'svc-load', 'svc-modal-close')
      const el = await mount(html`<svc-bag-upsell display="modal" .session=${s}></svc-bag-upsell>`)
      const dialog = dialogOf(el)
      expect(dialog.open).to.equal(true)
      expect(dialog.matches(':modal')).to.equal(true)
      expect(dialog.getAttribute('aria-modal')).to.equal('true')
      const title = dialog.querySelector(`#${dialog.getAttribute('aria-labelledby')}`)!
      expect(title.textContent!.trim()).to.equal('Bags')
      expect(isInside(dialog, activeDeep())).to.equal(true)
      expect(document.documentElement.style.overflow).to.equal('hidden')
      expect(button(el, 'Close')).to.exist
      await axe(el, 'modal')
      for (let i = 0; i < 25; i++) {
        await press('Tab')
        expect(isInside(dialog, activeDeep())).to.equal(true)
      }
      await press('Escape')
      await settle(el)
      expect(dialog.open).to.equal(false)
      expect(document.activeElement).to.equal(opener)
      expect(document.documentElement.style.overflow).to.equal('')
      expect(events.map((e) => [e.type, e.detail.product, e.detail.display])).to.deep.equal([
        ['svc-load', 'bags', 'modal'],
        ['svc-modal-close', 'bags', 'modal'],
      ])
      ;(el as SvcBagUpsell).show()
      await settle(el)
      expect(dialog.open).to.equal(true)
      button(el, 'Close')!.click()
      await settle(el)
      expect(dialog.open).to.equal(false)
    } finally {
      opener.remove()
    }
  })

  it('shows the states inside the dialog: loading, error, invalid', async () => {
    const hang = hangingFetch()
    const s1 = await session({ fetch: hang, load: false })
    const a = await mount(html`<svc-bag-upsell display="modal" .session=${s1}></svc-bag-upsell>`)
    expect(textOf(dialogOf(a))).to.contain('Loading options…')
    expect(deep(dialogOf(a).getRootNode() as ShadowRoot, '[aria-busy=true]') ?? deep(a, '[aria-busy=true]')).to.exist
    await axe(a, 'modal loading')
    hang.release()
    await offersReady(s1, 'bag')
    await settle(a)
    dialogOf(a).close()
    await settle(a)

    const broken = failingFetch()
    const s2 = await session({ fetch: broken, load: false })
    const b = await mount(html`<svc-bag-upsell display="modal" .session=${s2}></svc-bag-upsell>`)
    await until(() => s2.state.status === 'error')
    await settle(b)
    expect(textOf(dialogOf(b))).to.contain('Extras could not be loaded.')
    await axe(b, 'modal error')
    dialogOf(b).close()
    await settle(b)

    const exp = expiredFetch()
    const s3 = await session({ fetch: exp })
    await addBag(s3)
    const c = await mount(html`<svc-bag-upsell display="modal" .session=${s3}></svc-bag-upsell>`)
    expect(textOf(dialogOf(c))).to.contain('This price has expired')
    await axe(c, 'modal invalid')
  })

  it('fits a 320 px wide screen', async () => {
    await setViewport({ width: 320, height: 640 })
    const s = await session()
    const el = await mount(html`<svc-bag-upsell display="modal" .session=${s}></svc-bag-upsell>`)
    const dialog = dialogOf(el)
    expect(dialog.getBoundingClientRect().width).to.be.at.most(320)
    const body = deep(el, '[part=body]')!
    expect(body.scrollWidth).to.be.at.most(body.clientWidth)
  })
})

describe('<svc-bag-upsell> after the sale', () => {
  it('lists the bag bought earlier as Purchased beside the allowance; the stepper adds more within what is left of the limit, and the total counts only those', async () => {
    const s = await session({ booked: true })
    // The fulfill named the passengers: the widget calls them by name now.
    const plus = PLUS_P1.replace('Passenger 1', 'Ada Lovelace')
    const minus = MINUS_P1.replace('Passenger 1', 'Ada Lovelace')
    const el = await mount<SvcBagUpsell>(
      html`<div><svc-bag-upsell .session=${s}></svc-bag-upsell><svc-basket .session=${s}></svc-basket></div>`,
    )
    const bags = el.querySelector('svc-bag-upsell')!
    await settle(el)
    const p1 = deepAll(bags, '[part=passenger]')[0]!
    const lines = deepAll(p1, '[part=included] li').map((li) => li.textContent!.replace(/\s+/g, ' ').trim())
    expect(
      lines.some((t) => t.includes('Checked bag · 23 kg') && t.endsWith('Purchased')),
      lines.join(' | '),
    ).to.equal(true)
    // The stepper chooses what is added now: none yet, and nothing to take away (the bought bag is read-only).
    expect(button(bags, plus)!.parentElement!.textContent).to.contain('0')
    expect(button(bags, minus)!.getAttribute('aria-disabled')).to.equal('true')
    expect(textOf(el.querySelector('svc-basket')!)).to.contain('No extras selected yet.')
    button(bags, plus)!.click()
    await until(
      () => extrasOf(s).filter((i) => i.order_id === undefined).length === 1 && !s.state.busy,
      'the new bag in the basket',
    )
    await settle(el)
    expect(button(bags, plus)!.parentElement!.textContent).to.contain('1')
    await until(() => live(bags).textContent?.includes('Basket total'), 'the announcement')
    expect(live(bags).textContent).to.equal('Checked bag · 23 kg added. Basket total €75.98.')
    expect(
      extrasOf(s)
        .filter((i) => i.order_status === 'succeeded')
        .map((i) => i.product_type)
        .sort(),
    ).to.deep.equal(['bag', 'priority_boarding', 'seat'])
    // The offer's limit is 3 a passenger: the bag bought earlier takes one place, so the stepper stops at 2.
    expect(button(bags, plus)!.getAttribute('aria-disabled')).to.equal('false')
    button(bags, plus)!.click()
    await until(
      () =>
        extrasOf(s)
          .filter((i) => i.order_id === undefined)
          .reduce((n, i) => n + i.quantity, 0) === 2 && !s.state.busy,
      'a second new bag',
    )
    await settle(el)
    expect(button(bags, plus)!.getAttribute('aria-disabled')).to.equal('true')
    await axe(el)
  })
})

describe('<svc-bag-upsell display="card"> after the sale', () => {
  it('the card lists the bag bought earlier as Purchased, apart from what is chosen now, and no total until something is', async () => {
    const s = await session({ booked: true })
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell display="card" .session=${s}></svc-bag-upsell>`)
    await until(() => deep(el, '[part~=purchased]'), 'the purchased summary')
    const bought = deep(el, '[part~=purchased]')!
    expect(bought.textContent).to.contain('Checked bag · 23 kg').and.contain('Purchased')
    // Nothing new is chosen, but the card does not say "no bags" under the one bought.
    expect(deep(el, '[part~=card]')!.innerText).to.not.contain('No extra bags selected yet.')
    expect(deep(el, '[part=total]')).to.equal(null)
    await addBag(s, 'p2')
    await until(() => deep(el, '[part=total]'), 'the total of the new bag')
    expect(textOf(deep(el, '[part=total]')!)).to.contain('€75.98')
    await axe(el)
  })
})

describe('an element placed by hand', () => {
  it('with no session says so after a moment (svc-fail not_initialized, the console, its error state), not "Loading" for ever', async function () {
    this.timeout(8000)
    const warned: string[] = []
    const warn = console.warn
    console.warn = (...a: unknown[]) => {
      warned.push(a.join(' '))
    }
    try {
      const fails = record<{ product: string; error: { code: string } }>(document, 'svc-fail')
      const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell></svc-bag-upsell>`)
      expect(fails).to.have.length(0)
      await until(() => fails.length > 0, 'svc-fail', 5000)
      expect(fails[0]!.detail.product).to.equal('bags')
      expect(fails[0]!.detail.error.code).to.equal('not_initialized')
      expect(warned.join('\n')).to.contain('<svc-bag-upsell> has no session')
      expect(textOf(el)).to.not.contain('Loading')
    } finally {
      console.warn = warn
    }
  })

  it('given its session late (within the moment) loads as usual and reports nothing', async function () {
    this.timeout(8000)
    const s = await session()
    const fails = record(document, 'svc-fail')
    const el = await mount<SvcBagUpsell>(html`<svc-bag-upsell></svc-bag-upsell>`)
    el.session = s
    await until(() => deep(el, 'svc-price'), 'the bags')
    await new Promise((r) => setTimeout(r, 2500))
    expect(fails).to.have.length(0)
  })
})

// Bags as a real airline states them (test/browser/fixtures/duffel-like-search.ts: a search as the service
// renders Duffel's): bags with no weight or size, a bag for the whole trip, and offers that failed alone.
/** Bag answers (search and basket) with no weight, size or units on any bag: a real sandbox basket, as an airline that states none. */
function unmeasuredBags(inner: typeof fetch = duffelLikeFetch()): typeof fetch {
  const strip = (d: Record<string, unknown>) => {
    for (const k of ['weight', 'weight_unit', 'size', 'size_unit', 'dimensions']) delete d[k]
  }
  return async (input, init) => {
    const res = await inner(input, init)
    if (!/\/basket(\/|$)/.test(urlOf(input).pathname)) return res
    return rewriteJson(res, (v: BasketView) => {
      for (const i of Object.values(v.basket) as BasketItem[]) if (i.product_type === 'bag') strip(i.product_details)
      return v
    })
  }
}

const NONSENSE = /undefined|NaN|null|\(\s*\)|\[\s*\]|·\s*(·|$)|,\s*$|Up to\s*,/

describe('bags the airline states no weight or size for', function () {
  this.timeout(30_000)

  it('the bag view names them by kind only, with no empty or invented figures', async () => {
    const s = await session({ fetch: duffelLikeFetch(), offers: [] })
    const el = await mount(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await until(() => s.state.offers.bag?.status === 'ready', 'the bag offers')
    await settle(el)
    const options = deepAll(el, '[part="option"]')
    expect(options.length).to.be.greaterThan(0)
    const names = deepAll(el, '[part="option"] .name').map((n) => textOf(n))
    expect(names.slice(0, 3)).to.deep.equal(['Checked bag · 23 kg', 'Checked bag', 'Cabin bag'])
    for (const o of options) {
      const spec = o.querySelector('.spec')
      // A bag with no size has no spec line at all (its weight is in its name).
      expect(spec, textOf(o)).to.equal(null)
      expect(textOf(o)).not.to.match(NONSENSE)
    }
    expect(textOf(el)).not.to.match(/undefined|NaN/)
    await axe(el, 'bags without weight')
  })

  it("the basket and the card's summary name a bag with no weight by its kind", async () => {
    const s = await session({ fetch: unmeasuredBags((i, o) => fetch(i, o)) })
    await addBag(s)
    await s.refresh()
    const basket = await mount(html`<svc-basket .session=${s}></svc-basket>`)
    const item = deep(basket, '[part=item]')!
    expect(textOf(item)).to.contain('Checked bag').and.not.contain('kg')
    expect(textOf(item)).not.to.match(/undefined|NaN|\(\s*\)/)
    const card = await mount(html`<svc-bag-upsell display="card" .session=${s}></svc-bag-upsell>`)
    await until(() => deep(card, '[part="summary"]'), 'the card summary')
    expect(textOf(deep(card, '[part="summary"]')!))
      .to.contain('Checked bag')
      .and.not.match(/undefined|NaN|kg|\(\s*\)/)
    await axe(basket, 'basket')
  })
})

describe("an airline's bag for the whole trip, and offers that failed alone", function () {
  this.timeout(30_000)

  it('the bag view lists a whole-trip bag once, under both routes, with its one price; each journey keeps its own bags', async () => {
    const s = await session({ fetch: duffelLikeFetch(undefined, { wholeTripBag: true }), offers: [] })
    const el = await mount(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`)
    await until(() => s.state.offers.bag?.status === 'ready', 'the bag offers')
    await settle(el)
    const titles = deepAll(el, '[part="journey-title"]').map((h) => textOf(h))
    const journeys = s.state.trip!.journeys
    expect(titles).to.have.length(journeys.length + 1)
    const whole = titles.at(-1)!
    expect(whole).to.match(/ \+ /).and.to.contain('one bag for every flight')
    const sections = deepAll(el, '[part="journey"]')
    const last = sections.at(-1)!
    const wholeOptions = [...last.querySelectorAll('[part="option"]')]
    const adults = s.state.trip!.passengers.filter((p) => !p.on_lap_of).length
    expect(wholeOptions, 'one option per passenger, listed once').to.have.length(s.state.trip!.passengers.length)
    expect(textOf(last)).to.contain('Checked bag · 15 kg')
    const prices = [...last.querySelectorAll('svc-price')].map((p) => textOf(p))
    expect(
      prices.filter((p) => p.includes('53.98')),
      'priced once, at its whole price',
    ).to.have.length(adults)
    for (const section of sections.slice(0, -1)) expect(textOf(section)).not.to.contain('15 kg')
    await axe(el, 'a whole-trip bag')
  })

  it('<svc-upsell> of bags and seats whose seat maps failed alone: the bags are there, the seats show their error and fire svc-fail for seats only', async () => {
    const s = await session({
      fetch: duffelLikeFetch(undefined, { failed: [{ product_type: 'seat', failure_reason: 'supplier_unavailable' }] }),
      offers: [],
    })
    const fails: Array<{ product: string; code: string }> = []
    const loads: string[] = []
    const el = await mount(html`<svc-upsell .session=${s} .products=${['bags', 'seats']}
      @svc-fail=${(e: CustomEvent) => fails.push({ product: e.detail.product, code: e.detail.error.code })}
      @svc-load=${(e: CustomEvent) => loads.push(e.detail.product)}></svc-upsell>`)
    await until(() => deep(el, 'svc-bag-upsell') && fails.length > 0, "the bags, and the seats' failure")
    await settle(el)
    expect(fails).to.deep.equal([{ product: 'seats', code: 'offers_unavailable' }])
    expect(s.state.offers.seat?.error?.apiCode).to.equal('supplier_unavailable')
    expect(deep(el, 'svc-seat-map'), 'no seat map drawn').to.equal(null)
    const box = deep(el, '.state-box')!
    expect(textOf(box)).to.contain('Try again')
    const bags = deep(el, 'svc-bag-upsell')!
    await until(() => deepAll(bags, '[part="option"]').length > 0, 'the bag options')
    expect(textOf(bags)).to.contain('Checked bag')
    await until(() => loads.includes('bags'), 'the bags reported loaded')
    await axe(el, 'bags with seats failed')
  })
})
