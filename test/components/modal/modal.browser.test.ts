import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import type { SvcModal } from '../../../components/index.ts'
import {
  activeDeep,
  axe,
  button,
  cleanup,
  deep,
  isInside,
  mount,
  nextEvent,
  press,
  settle,
  shiftTab,
} from '../../browser/helpers.ts'

afterEach(cleanup)

describe('<svc-modal>', () => {
  it('a labelled modal dialog: focus in, Tab and Shift+Tab wrap inside, Escape closes, focus returns, scroll locks', async () => {
    const host = await mount(html`<div>
      <button id="opener">Open</button>
      <svc-modal label="Choose"><p>Text</p><button>First</button><button>Second</button>
        <div slot="footer"><button>Done</button></div></svc-modal>
    </div>`)
    const modal = host.querySelector<SvcModal>('svc-modal')!
    const opener = host.querySelector<HTMLButtonElement>('#opener')!
    opener.focus()
    modal.open = true
    await settle(host)
    const dialog = deep<HTMLDialogElement>(modal, 'dialog')!
    expect(dialog.open && dialog.matches(':modal')).to.equal(true)
    expect(dialog.getAttribute('aria-modal')).to.equal('true')
    expect(modal.shadowRoot!.getElementById(dialog.getAttribute('aria-labelledby')!)!.textContent).to.equal('Choose')
    expect(isInside(dialog, activeDeep())).to.equal(true)
    expect(document.documentElement.style.overflow).to.equal('hidden')
    await axe(host)
    const order: string[] = []
    for (let i = 0; i < 8; i++) {
      await press('Tab')
      order.push(activeDeep()!.textContent!.trim() || activeDeep()!.getAttribute('aria-label')!)
    }
    expect(order).to.deep.equal(['Close', 'First', 'Second', 'Done', 'Close', 'First', 'Second', 'Done'])
    await shiftTab()
    expect(activeDeep()!.textContent!.trim()).to.equal('Second')
    const closed = nextEvent(modal, 'svc-dialog-close')
    await press('Escape')
    await closed
    expect(modal.open).to.equal(false)
    expect(document.activeElement).to.equal(opener)
    expect(document.documentElement.style.overflow).to.equal('')
  })

  it('the close button closes it', async () => {
    const modal = await mount<SvcModal>(html`<svc-modal label="Hi" open><p>Text</p></svc-modal>`)
    button(modal, 'Close')!.click()
    await settle(modal)
    expect(deep<HTMLDialogElement>(modal, 'dialog')!.open).to.equal(false)
    expect(document.documentElement.style.overflow).to.equal('')
  })

  it('asks before closing (svc-request-close): preventDefault keeps it open for the close button and Escape', async () => {
    const modal = await mount<SvcModal>(html`<svc-modal label="Hi" open><p>Text</p><button>First</button></svc-modal>`)
    const sources: string[] = []
    let keep = true
    const onRequest = (e: CustomEvent<{ source: string }>) => {
      expect(e.cancelable && e.bubbles && e.composed).to.equal(true)
      sources.push(e.detail.source)
      if (keep) e.preventDefault()
    }
    document.addEventListener('svc-request-close', onRequest)
    try {
      const dialog = deep<HTMLDialogElement>(modal, 'dialog')!
      button(modal, 'Close')!.click()
      await settle(modal)
      expect(dialog.open && modal.open).to.equal(true)
      button(modal, 'First')!.focus()
      await press('Escape')
      await settle(modal)
      expect(dialog.open && modal.open).to.equal(true)
      expect(document.documentElement.style.overflow).to.equal('hidden')
      keep = false
      const closed = nextEvent(modal, 'svc-dialog-close')
      await press('Escape')
      await closed
      expect(dialog.open || modal.open).to.equal(false)
      expect(sources).to.deep.equal(['close-button', 'escape', 'escape'])
    } finally {
      document.removeEventListener('svc-request-close', onRequest)
    }
  })
})
