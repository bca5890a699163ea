import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import type { SvcPrice } from '../../../components/index.ts'
import { localeFor } from '../../../components/i18n/index.ts'
import { axe, cleanup, deep, mount, textOf } from '../../browser/helpers.ts'

afterEach(cleanup)

describe('<svc-price>', () => {
  it('formats through Intl in the given locale; zero is "Free"', async () => {
    const el = await mount<SvcPrice>(
      html`<svc-price .locale=${localeFor('de-DE')} .amount=${{ amount: 7598, decimal_places: 2, currency: 'EUR' }}></svc-price>`,
    )
    expect(el.shadowRoot!.textContent!.trim()).to.equal('75,98\u00a0€')
    el.amount = { amount: 0, decimal_places: 2, currency: 'EUR' }
    await el.updateComplete
    expect(el.shadowRoot!.textContent!.trim()).to.equal('Free')
  })

  it('shows a zero offer as Free, but a zero total as an amount', async () => {
    const zero = { amount: 0, decimal_places: 2, currency: 'EUR' }
    const offer = await mount<SvcPrice>(html`<svc-price .amount=${zero}></svc-price>`)
    expect(offer.shadowRoot!.textContent!.trim()).to.equal('Free')
    const total = await mount<SvcPrice>(html`<svc-price exact .amount=${zero}></svc-price>`)
    expect(total.shadowRoot!.textContent!.trim()).to.equal('€0.00')
  })

  it('strikes the old price through and names both for assistive technology', async () => {
    const el = await mount<SvcPrice>(
      html`<svc-price .amount=${{ amount: 9117, decimal_places: 2, currency: 'EUR' }} .previous=${{ amount: 7598, decimal_places: 2, currency: 'EUR' }}></svc-price>`,
    )
    const del = deep(el, 'del')!
    expect(getComputedStyle(del).textDecorationLine).to.equal('line-through')
    expect(textOf(del)).to.contain('Old price €75.98')
    expect(textOf(deep(el, 'ins')!)).to.contain('New price €91.17')
    await axe(el)
  })
})
