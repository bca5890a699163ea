import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import type { SvcBasket } from '../../../components/index.ts'
import {
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
  mount,
  productFor,
  record,
  session,
  settle,
  textOf,
  until,
} from '../../browser/helpers.ts'

afterEach(cleanup)

describe('<svc-basket>', () => {
  it('lists every extra with name, passenger, journey, state and price, and the total', async () => {
    const s = await session({ language: 'de-DE' })
    await addBag(s)
    await addBag(s, 'p2')
    await s.add(productFor(s, 'priority_boarding').product_id, 'p1', 1)
    const el = await mount<SvcBasket>(html`<svc-basket .session=${s}></svc-basket>`)
    expect(deep(el, 'h2')!.textContent).to.equal('Your extras')
    const items = deepAll(el, '[part=item]')
    expect(items).to.have.length(3)
    expect(textOf(items[0]!))
      .to.contain('Checked bag · 23 kg')
      .and.contain('Passenger 1 · London → New York City')
      .and.contain('Available')
      .and.contain('75,98')
    expect(textOf(deep(el, '[part=total]')!)).to.match(/Total.*169,49\s€/)
    // The flight ticket is the seller's, not an extra.
    expect(textOf(el)).not.to.contain('Flight')
    await axe(el)
  })

  it('loading, empty and error states', async () => {
    const hang = hangingFetch()
    const s1 = await session({ fetch: hang, load: false })
    const a = await mount(html`<svc-basket .session=${s1}></svc-basket>`)
    expect(deep(a, 'section')!.getAttribute('aria-busy')).to.equal('true')
    expect(textOf(a)).to.contain('Loading options…')
    await axe(a, 'loading')
    hang.release()
    await until(() => s1.state.status === 'ready')
    await settle(a)
    expect(textOf(a)).to.contain('No extras selected yet.')
    await axe(a, 'empty')

    const broken = failingFetch()
    const s2 = await session({ fetch: broken, load: false })
    const b = await mount(html`<svc-basket .session=${s2}></svc-basket>`)
    await until(() => s2.state.status === 'error')
    await settle(b)
    expect(textOf(b)).to.contain('Extras could not be loaded.')
    await axe(b, 'error')
    broken.broken = false
    button(b, 'Try again')!.click()
    await until(() => s2.state.status === 'ready')
  })

  it('price_changed (9001): badge, struck price, accept', async () => {
    const s = await session({ flight: '9001' })
    await addBag(s)
    const el = await mount(html`<svc-basket .session=${s}></svc-basket>`)
    await checkUntil(s, 'price_changed')
    await settle(el)
    expect(textOf(deep(el, '[part~=badge]')!)).to.equal('Price changed')
    expect(textOf(deep(el, '[part=item] svc-price') ?? deep(el, 'svc-price')!)).to.contain('€75.98')
    expect(deep(el, 'del')).to.exist
    await axe(el, 'price_changed')
    button(el, 'Accept new price')!.click()
    await until(() => extrasOf(s)[0]?.validity.status === 'valid' && !s.state.busy)
    await settle(el)
    expect(textOf(deep(el, '[part~=badge]')!)).to.equal('Available')
    await until(
      () => deep(el, '[part=live]')!.textContent!.startsWith('New price accepted for Checked bag · 23 kg.'),
      'announced',
    )
  })

  it('unavailable (9002): explains; "Choose another" removes it and asks the page to show the bags again', async () => {
    const s = await session({ flight: '9002' })
    await addBag(s)
    const events = record(document, 'svc-choose-another')
    const el = await mount(html`<svc-basket .session=${s}></svc-basket>`)
    await checkUntil(s, 'unavailable')
    await settle(el)
    expect(textOf(el)).to.contain('Unavailable').and.contain('This extra is no longer available.')
    await axe(el, 'unavailable')
    button(el, 'Choose another')!.click()
    await until(() => extrasOf(s).length === 0 && !s.state.busy)
    expect(events.map((e) => e.detail)).to.deep.equal([{ product: 'bags' }])
  })

  it('invalid (expired): "Check again" shows checking, then the item is valid', async () => {
    const f = expiredFetch()
    const s = await session({ fetch: f })
    await addBag(s)
    const el = await mount(html`<svc-basket .session=${s}></svc-basket>`)
    expect(textOf(el)).to.contain('Expired').and.contain('This price has expired')
    await axe(el, 'invalid')
    button(el, 'Check again')!.click()
    await until(() => extrasOf(s)[0]?.validity.status === 'checking', 'checking')
    await settle(el)
    expect(textOf(deep(el, '[part~=badge]')!)).to.equal('Checking')
    expect(deep(el, '[part~=state-checking] svc-spinner') ?? deep(el, 'svc-spinner')).to.exist
    await axe(el, 'checking')
    await until(() => extrasOf(s)[0]?.validity.status === 'valid', 'valid')
  })

  it('fits 320 px', async () => {
    const s = await session({ flight: '9001' })
    await addBag(s)
    await checkUntil(s, 'price_changed')
    const el = await mount(html`<svc-basket .session=${s}></svc-basket>`, { width: 320 })
    expectNoOverflow(el.parentElement!)
  })
})

describe('<svc-basket> after the sale', () => {
  it('lists what an earlier fulfill bought as Purchased, apart, with no actions; the total is what the new extras cost', async () => {
    const s = await session({ booked: true })
    const el = await mount<SvcBasket>(html`<svc-basket .session=${s}></svc-basket>`)
    await settle(el)
    const bought = deepAll(deep(el, '[part=purchased]')!, '[part=item]')
    expect(bought).to.have.length(3)
    for (const li of bought) {
      expect(li.textContent).to.contain('Purchased')
      expect(deepAll(li, 'button')).to.have.length(0)
    }
    expect(deep(el, '[part=total]')).to.equal(null)
    expect(textOf(el)).to.contain('No extras selected yet.')
    const bag = await addBag(s, 'p2')
    await until(() => deep(el, '[part=total]'), 'the total of the new bag')
    await settle(el)
    expect(deepAll(deep(el, '[part=list]')!, '[part=item]')).to.have.length(1)
    expect(textOf(deep(el, '[part=total]')!)).to.contain(textOf(deep(deep(el, '[part=list]')!, 'svc-price')!))
    expect(bag.order_id).to.equal(undefined)
    await axe(el)
  })
})
