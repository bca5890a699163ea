import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import { axe, cleanup, mount, textOf } from '../../browser/helpers.ts'

afterEach(cleanup)

describe('<svc-spinner>', () => {
  it('is a status with its label', async () => {
    const el = await mount(html`<svc-spinner label="Checking availability…"></svc-spinner>`)
    expect(el.getAttribute('role')).to.equal('status')
    expect(textOf(el)).to.equal('Checking availability…')
    await axe(el)
  })
})
