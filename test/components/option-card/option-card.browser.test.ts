import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import type { SvcOptionCard } from '../../../components/index.ts'
import {
  activeDeep,
  axe,
  button,
  cleanup,
  deep,
  deepAll,
  expectNoOverflow,
  expiredFetch,
  extrasOf,
  failingFetch,
  fareFamilyFetch,
  hangingFetch,
  isInside,
  mount,
  press,
  productFor,
  record,
  session,
  settle,
  textOf,
  until,
  offersReady,
} from '../../browser/helpers.ts'

afterEach(cleanup)

const switches = (el: Element) => deepAll<HTMLButtonElement>(el, '[role=switch]')

describe('<svc-option-card>', () => {
  it('priority boarding: a switch per passenger per journey; toggling adds and removes', async () => {
    const s = await session()
    const events = record(document, 'svc-load', 'svc-basket-change')
    const el = await mount<SvcOptionCard>(
      html`<svc-option-card product="priority_boarding" .session=${s}></svc-option-card>`,
    )
    expect(deep(el, 'h2')!.textContent).to.contain('Priority boarding')
    expect(deepAll(el, 'h3')).to.have.length(2)
    // Two adults per journey; the lap infant boards with the adult.
    expect(switches(el)).to.have.length(4)
    expect(textOf(el)).to.contain('Not available for an infant on lap').and.contain('€17.53')
    const first = switches(el)[0]!
    expect(first.getAttribute('aria-label')).to.equal('Priority boarding for Passenger 1, London → New York City')
    expect(first.getAttribute('aria-checked')).to.equal('false')
    await axe(el)
    first.focus()
    await press('Space')
    await until(() => extrasOf(s).length === 1 && !s.state.busy, 'added')
    await settle(el)
    expect(switches(el)[0]!.getAttribute('aria-checked')).to.equal('true')
    expect(activeDeep()).to.equal(switches(el)[0])
    await until(
      () => deep(el, '[part=live]')!.textContent === 'Priority boarding added. Basket total €17.53.',
      'announced',
    )
    expect(events.map((e) => e.type)).to.deep.equal(['svc-load', 'svc-basket-change'])
    await axe(el, 'selected')
    switches(el)[0]!.click()
    await until(() => extrasOf(s).length === 0 && !s.state.busy, 'removed')
    await settle(el)
    expect(switches(el)[0]!.getAttribute('aria-checked')).to.equal('false')
  })

  it('automatic check-in in a card: summary, dialog, selection, Done', async () => {
    const s = await session()
    const el = await mount<SvcOptionCard>(
      html`<svc-option-card product="automatic_check_in" display="card" .session=${s}></svc-option-card>`,
    )
    expect(textOf(el)).to.contain('Automatic check-in').and.contain('Nothing selected yet.')
    const open = deep<HTMLButtonElement>(el, '[part~=open-button]')!
    expect(open.textContent!.trim()).to.equal('Add automatic check-in')
    await axe(el, 'card')
    open.focus()
    await press('Enter')
    await settle(el)
    const dialog = deep<HTMLDialogElement>(el, 'dialog')!
    expect(dialog.open).to.equal(true)
    expect(isInside(dialog, activeDeep())).to.equal(true)
    await axe(el, 'card dialog')
    switches(el)[1]!.click()
    await until(() => extrasOf(s).length === 1 && !s.state.busy)
    await settle(el)
    button(el, 'Done')!.click()
    await settle(el)
    expect(textOf(el))
      .to.contain('Automatic check-in')
      .and.contain('Passenger 2 · London → New York City')
      .and.contain('€4.68')
    expect(deep(el, '[part~=open-button]')!.textContent!.trim()).to.equal('Change automatic check-in')
    expect(activeDeep()).to.equal(deep(el, '[part~=open-button]'))
  })

  it('modal display, and the states: loading, error, invalid', async () => {
    const hang = hangingFetch()
    const s1 = await session({ fetch: hang, load: false })
    const a = await mount(
      html`<svc-option-card product="priority_boarding" display="modal" .session=${s1}></svc-option-card>`,
    )
    expect(deep<HTMLDialogElement>(a, 'dialog')!.open).to.equal(true)
    expect(textOf(a)).to.contain('Loading options…')
    await axe(a, 'modal loading')
    hang.release()
    await offersReady(s1, 'priority_boarding')
    await settle(a)
    expect(switches(a).length).to.equal(4)
    await axe(a, 'modal ready')
    await press('Escape')
    await settle(a)

    const broken = failingFetch()
    const s2 = await session({ fetch: broken, load: false })
    const b = await mount(html`<svc-option-card product="priority_boarding" .session=${s2}></svc-option-card>`)
    await until(() => s2.state.status === 'error')
    await settle(b)
    expect(textOf(b)).to.contain('Extras could not be loaded.').and.contain('Try again')
    await axe(b, 'error')

    const exp = expiredFetch()
    const s3 = await session({ fetch: exp })
    await s3.add(productFor(s3, 'priority_boarding').product_id, 'p1', 1)
    const c = await mount(html`<svc-option-card product="priority_boarding" .session=${s3}></svc-option-card>`)
    expect(textOf(deep(c, '[part~=state-invalid]')!)).to.contain('This price has expired')
    await axe(c, 'invalid')
    button(c, 'Check again')!.click()
    await until(() => extrasOf(s3)[0]?.validity.status === 'valid' && !s3.state.busy, 'valid')
  })

  it('fare family: the next families with benefits and price; choosing one applies it to every passenger who can have it', async () => {
    const s = await session({ fetch: fareFamilyFetch() })
    const el = await mount<SvcOptionCard>(
      html`<svc-option-card product="fare_family_upsell" .session=${s}></svc-option-card>`,
    )
    const text = textOf(el)
    expect(text)
      .to.contain('Upgrade your fare')
      .and.contain('Your fare: Basic')
      .and.contain('Standard')
      .and.contain('Flex')
    expect(text).to.contain('Free changes').and.contain('€40.00 per traveler').and.contain('€150.00 per traveler')
    await axe(el)
    button(el, 'Choose Standard')!.click()
    await until(() => extrasOf(s).length === 2 && !s.state.busy, 'two passengers upgraded')
    await settle(el)
    expect(textOf(deepAll(el, '[part=family]')[0]!))
      .to.contain('Selected')
      .and.contain('Keep my current fare')
    // Another family replaces the first on that journey.
    button(el, 'Choose Flex')!.click()
    await until(
      () =>
        extrasOf(s).length === 2 &&
        extrasOf(s).every((i) => i.product_details['fare_family'] === 'Flex') &&
        !s.state.busy,
      'Flex instead',
    )
    await settle(el)
    await axe(el, 'chosen')
    button(el, 'Keep my current fare')!.click()
    await until(() => extrasOf(s).length === 0 && !s.state.busy, 'back to the booked fare')
  })

  it('nothing on sale: says so and reports no_products', async () => {
    const s = await session()
    const fails = record(document, 'svc-fail')
    const el = await mount(html`<svc-option-card product="fare_family_upsell" .session=${s}></svc-option-card>`)
    expect(textOf(el)).to.contain('Not available on this flight.')
    expect(fails.map((f) => [f.detail.product, f.detail.error.code])).to.deep.equal([
      ['fare_family_upsell', 'no_products'],
    ])
    await axe(el)
  })

  it('fits 320 px in both inline displays', async () => {
    const s = await session()
    await s.add(productFor(s, 'priority_boarding').product_id, 'p1', 1)
    const a = await mount(html`<svc-option-card product="priority_boarding" .session=${s}></svc-option-card>`, {
      width: 320,
    })
    expectNoOverflow(a.parentElement!)
    const b = await mount(
      html`<svc-option-card product="priority_boarding" display="card" .session=${s}></svc-option-card>`,
      { width: 320 },
    )
    expectNoOverflow(b.parentElement!)
  })
})

describe('<svc-option-card> after the sale', () => {
  it('priority boarding bought earlier reads Purchased, with no switch for that passenger and journey', async () => {
    const s = await session({ booked: true })
    const el = await mount<SvcOptionCard>(
      html`<svc-option-card product="priority_boarding" .session=${s}></svc-option-card>`,
    )
    await settle(el)
    const rows = deepAll(el, '[part=row]')
    expect(rows[0]!.textContent).to.contain('Ada Lovelace').and.contain('Purchased')
    expect(deep(rows[0]!, '[role=switch]')).to.equal(null)
    // The other adult, and the way back, can still have it.
    expect(switches(el)).to.have.length(3)
    expect(switches(el).every((b) => b.getAttribute('aria-checked') === 'false')).to.equal(true)
    await axe(el)
  })
})
