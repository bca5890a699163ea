/**
 * The card and modal displays of a product view (see ../controllers/display.ts): the card, a compact summary with the
 * button that opens the dialog, and the dialog around the view's panel, with `<svc-modal>`. svc.min.js
 * fetches this file the first time a view is shown in one of these displays (../controllers/dialog.ts); importing it
 * registers them.
 */
import { html, nothing } from 'lit'
import type { BasketItem, ProductName } from '../../client/types.ts'
import { itemLabel } from '../internal/format.ts'
import { renderValidity } from '../internal/validity.ts'
import { itemContext, renderBadge, summaryStyles } from '../internal/item-summary.ts'
import { renderLoadError, renderLoading } from '../internal/frame.ts'
import { addEnglish, type Strings } from '../i18n/index.ts'
import { dialogFramesTexts } from '../i18n/en-US/dialog-frames.ts'
import { useDialogFrames, type Framed, type UpsellFramed } from '../controllers/dialog.ts'
import { styles } from './dialog-frames.styles.ts'
import '../modal/modal.ts'
import '../price/price.ts'

// Their English texts come with them (svc.min.js fetches them when a widget first shows a card or a dialog).
addEnglish(dialogFramesTexts)

const busy = (v: Framed) => (v.session.loadState.status === 'loading' ? 'true' : 'false')

/** Total of the view's items (the card's summary and the dialog's footer). */
function renderTotal(v: Framed) {
  return html`<p class="total-line" part="total"><span>${v.session.locale.l.t.total}</span><svc-price exact .amount=${v.session.total(v.items())}></svc-price></p>`
}

function renderSummary(v: Framed) {
  const items = v.items()
  const bought = v.items(true)
  const l = v.session.locale.l
  const trip = v.session.value?.state.trip ?? null
  const line = (i: BasketItem, badge: unknown) => html`<li>
        <span class="what">${i.quantity > 1 ? l.format('times', { item: itemLabel(l, i), count: l.number(i.quantity) }) : itemLabel(l, i)}
          <span class="context">${itemContext(l, trip, i)}</span></span>
        <span class="actions">${badge}<svc-price .amount=${i.price.total} .previous=${i.validity.status === 'price_changed' ? i.validity.previous_price?.total : undefined}></svc-price></span>
      </li>`
  // What an earlier fulfill bought comes first, marked; the total is what is left to pay. The view's "nothing
  // chosen" text ("No seats chosen yet.") only when nothing was bought either: under a purchased item it
  // would deny the purchase (the card's button still offers to choose more).
  return html`${bought.length ? html`<ul class="summary" part="summary purchased">${bought.map((i) => line(i, html`<span class="badge ok">${l.t.purchased}</span>`))}</ul>` : nothing}
    ${
      items.length === 0
        ? bought.length
          ? nothing
          : html`<p class="muted">${v.text('none')}</p>`
        : html`<ul class="summary" part="summary">
      ${items.map((i) => line(i, i.validity.status === 'valid' ? nothing : renderBadge(l, i)))}
    </ul>
    ${renderTotal(v)}`
    }`
}

function renderFooter(v: Framed) {
  return html`<div slot="footer" class="footer">
    ${renderTotal(v)}
    <button type="button" class="btn primary" part="done-button" @click=${v.done}>${v.session.locale.l.t.done}</button>
  </div>`
}

function renderDialog(v: Framed) {
  const { open, session } = v
  return html`<svc-modal part="modal" exportparts="dialog, header, title: dialog-title, close-button, body, footer"
      .open=${open} .label=${v.text('heading')} @svc-dialog-close=${v.close}>
    ${open ? html`<div class="view" aria-busy=${busy(v)}>${session.renderLive()}${session.renderFailure()}${v.body()}</div>` : nothing}
    ${open && session.loadState.status === 'ready' && v.offered() ? renderFooter(v) : nothing}
  </svc-modal>`
}

function renderCard(v: Framed) {
  const { session } = v
  const st = session.loadState
  const offered = st.status === 'ready' && v.offered()
  const notices = offered ? v.items().filter((i) => i.validity.status !== 'valid') : []
  const l = session.locale.l
  const trip = session.value?.state.trip ?? null
  return html`<div class="card" part="card base" aria-busy=${busy(v)}>
      <div class="card-main">
        <h2 class="card-title" part="title">${v.icon()}${v.text('heading')}</h2>
        ${
          st.status === 'loading'
            ? renderLoading(l)
            : st.status === 'error'
              ? renderLoadError(l, session.retry)
              : !offered
                ? html`<p class="muted" part="empty">${v.text('empty')}</p>`
                : renderSummary(v)
        }
      </div>
      ${
        offered
          ? html`<button type="button" class="btn primary" part="open-button" aria-haspopup="dialog" @click=${() => v.show()}>
        ${v.items().length ? v.text('edit') : v.text('open')}</button>`
          : nothing
      }
      ${notices.length ? html`<div class="notices">${notices.map((i) => renderValidity(l, i, session.validityActions(i), session.busy, { label: `${itemLabel(l, i)} · ${itemContext(l, trip, i)}`, visibleLabel: true, prices: false }))}</div>` : nothing}
      ${v.open ? nothing : html`${session.renderLive()}${session.renderFailure()}`}
    </div>
    ${renderDialog(v)}`
}

const TITLE: Record<ProductName, keyof Strings> = {
  bags: 'bags_title',
  seats: 'seats_title',
  priority_boarding: 'priority_boarding_title',
  automatic_check_in: 'automatic_check_in_title',
  fare_family_upsell: 'fare_family_title',
}

/** `<svc-upsell>` in modal display: one dialog, a section per product (just the view when there is one), the total and "Done". */
function renderUpsell(u: UpsellFramed) {
  const { l, shown } = u
  const title = shown.length === 1 ? l.t[TITLE[shown[0]!]] : l.t.extras_title
  return html`<svc-modal part="modal" exportparts="dialog, header, title: dialog-title, close-button, body, footer"
      .open=${u.open} .label=${title} @svc-dialog-close=${u.close}>
    ${
      u.open
        ? html`
      ${
        shown.length === 0
          ? u.state()
          : shown.length === 1
            ? u.view(shown[0]!, true)
            : html`<div class="sections">${shown.map(
                (n, i) => html`<section class="section" part="section" aria-labelledby="section-${i}">
            <h3 id="section-${i}">${l.t[TITLE[n]]}</h3>${u.view(n, true)}</section>`,
              )}</div>`
      }
      <div slot="footer" class="footer">
        ${shown.length ? html`<p class="total-line" part="total"><span>${l.t.total}</span><svc-price exact .amount=${u.total()}></svc-price></p>` : html`<span></span>`}
        <button type="button" class="btn primary" part="done-button" @click=${u.done}>${shown.length ? l.t.done : l.t.close}</button>
      </div>`
        : nothing
    }
  </svc-modal>`
}

useDialogFrames({
  styles: [summaryStyles.styleSheet!, styles.styleSheet!],
  card: renderCard,
  dialog: renderDialog,
  upsell: renderUpsell,
})
