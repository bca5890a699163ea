/**
 * "Extras you bought": one line per order, with where its cancellation stands (a button, the airline's
 * refund offer to confirm, a refusal, an error to retry). The buttons call the cancellation (cancel.ts),
 * which this list is given: it only shows.
 */
import { $, codeLine, h, spinnerLine } from './dom.ts'
import { itemContext, money, orderLabel, timeFmt } from './format.ts'
import { loadedTrip, state, type CancelUi } from './state.ts'
import { CANCEL_REASONS, ORDER_TEXT } from './texts.ts'
import type { Order } from './types.ts'
import { sdk } from './sdk.ts'

/** What the traveller can do with an extra's cancellation. */
export interface CancelActions {
  /** Asks the airline what cancelling it refunds. */
  ask(o: Order): Promise<void>
  /** Confirms the refund offer the traveller saw. */
  confirm(o: Order): Promise<void>
  /** Keeps it: closes its cancellation. */
  close(o: Order): void
}

/**
 * The extras bought, one line per order. A line is rebuilt only when what it shows changed, and in place,
 * so the reads every second never take the keyboard focus away from a button the traveller is on.
 */
export function renderPurchased(actions: CancelActions): void {
  const list = $('purchased')
  const orders = Object.values(loadedTrip().orders).sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.display_name.localeCompare(b.display_name),
  )
  if (orders.length === 0) {
    list.replaceChildren(h('li', { class: 'muted' }, 'No extras on this booking yet. Add a bag below.'))
    return
  }
  const old = new Map([...list.children].map((li) => [(li as HTMLElement).dataset['order'], li as HTMLElement]))
  const next = orders.map((o) => {
    const ui = state.manage.cancels.get(o.basket_item_id)
    const sig = JSON.stringify([
      o.status,
      o.refund,
      o.supplier_reference,
      o.failure_reason,
      o.cancellation_failure_reason,
      orderLabel(o),
      ui && [ui.step, ui.quote?.quote_expires_at, ui.error?.code, ui.error?.detail, ui.changed],
    ])
    const prev = old.get(o.order_id)
    if (prev?.dataset['sig'] === sig) return prev
    const li = purchasedLine(o, ui, actions)
    li.dataset['sig'] = sig
    return li
  })
  for (const li of [...list.children]) if (!next.includes(li as HTMLElement)) li.remove()
  next.forEach((li, i) => {
    if (list.children[i] !== li) list.insertBefore(li, list.children[i] ?? null)
  })
}

/** Moves focus to an extra's cancellation box, else its line (the box is gone once it is cancelled). */
export function focusCancel(id: string): void {
  const line = document.querySelector<HTMLElement>(`#purchased li[data-item="${CSS.escape(id)}"]`)
  ;(line?.querySelector<HTMLElement>('.cancel-box') ?? line)?.focus()
}

/** Focus back on an extra's Cancel button, once its cancellation box has closed. */
export function focusCancelButton(id: string): void {
  document.querySelector<HTMLElement>(`#purchased li[data-item="${CSS.escape(id)}"] .order-actions button`)?.focus()
}

/** What became of the order: its state, the airline's reference, the refund. */
function orderState(o: Order): HTMLElement[] {
  const shown = [
    h(
      'span',
      { class: `badge badge-order-${o.status}` },
      o.status === 'cancelling'
        ? [h('span', { class: 'spinner small', 'aria-hidden': 'true' }), ' Cancelling…']
        : (ORDER_TEXT[o.status] ?? o.status),
    ),
  ]
  if (o.status === 'succeeded' && o.supplier_reference)
    shown.push(h('span', { class: 'muted small' }, `Airline reference ${o.supplier_reference}`))
  if (o.status === 'cancelled')
    shown.push(
      h('span', { class: 'refund' }, o.refund && o.refund.amount > 0 ? `${money(o.refund)} refunded` : 'No refund'),
    )
  if (o.status === 'failed')
    shown.push(h('span', { class: 'muted small' }, `${money(o.price.total)} refunded to your card`))
  return shown
}

function purchasedLine(o: Order, ui: CancelUi | undefined, actions: CancelActions): HTMLLIElement {
  const item = loadedTrip().basket[o.basket_item_id]
  const label = orderLabel(o)
  return h(
    'li',
    {
      class: `order managed order-${o.status}`,
      'data-order': o.order_id,
      'data-item': o.basket_item_id,
      'data-status': o.status,
      tabindex: '-1',
      'aria-label': `${label}: ${ORDER_TEXT[o.status] ?? o.status}`,
    },
    h(
      'div',
      { class: 'order-what' },
      h('span', { class: 'line-name' }, o.display_name),
      h('span', { class: 'line-context' }, item ? itemContext(item) : ''),
      h('span', { class: 'muted small' }, `Paid ${money(o.price.total)}`),
    ),
    h('div', { class: 'order-state' }, orderState(o)),
    cancelPart(o, ui, label, actions),
  )
}

/** A small button of a cancellation whose accessible name starts with its visible words (WCAG 2.5.3), then says which extra. */
function smallButton(cls: string, text: string, label: string, onclick: () => void, name = `${text}: ${label}`) {
  return h('button', { type: 'button', class: `btn ${cls} small`, 'aria-label': name, onclick }, text)
}

/** The cancellation box: a group named by its title, focusable so focus can follow the cancellation. */
function cancelBox(id: string, cls: string, title: string, ...body: Array<HTMLElement | null>): HTMLDivElement {
  const titleId = `cancel-title-${id}`
  return h(
    'div',
    { class: `cancel-box ${cls}`, role: 'group', 'aria-labelledby': titleId, tabindex: '-1', 'data-cancel': id },
    h('p', { class: 'cancel-title', id: titleId }, title),
    ...body,
  )
}

const busyLine = (text: string) => h('p', { class: 'progress' }, ...spinnerLine(text))

/** Before any cancellation: the Cancel button of a confirmed extra (after a refusal, "Try cancelling again"). */
function cancelButton(o: Order, label: string, actions: CancelActions): HTMLDivElement | null {
  if (o.status !== 'succeeded') return null
  const refused = o.cancellation_failure_reason
  return h(
    'div',
    { class: 'order-actions' },
    refused
      ? h('p', { class: 'notice error small' }, `The airline did not cancel it: ${refused}. Nothing was refunded.`)
      : null,
    refused
      ? smallButton('secondary', 'Try cancelling again', label, () => void actions.ask(o))
      : smallButton('secondary', 'Cancel', label, () => void actions.ask(o), `Cancel ${label}`),
  )
}

/** The airline's offer: what it refunds (and its fee), until when, and the buttons to confirm or keep it. */
function quoteBox(o: Order, ui: CancelUi, label: string, actions: CancelActions): HTMLDivElement {
  const quoted = ui.quote!.to_cancel[o.basket_item_id]!
  const refund = quoted.refund!
  const fee = o.price.total.amount - refund.amount
  const total = o.price.total
  return cancelBox(
    o.basket_item_id,
    'quote',
    `Cancel ${o.display_name}?`,
    ui.changed
      ? h('p', { class: 'notice small' }, 'The refund offer changed since you asked: please check it again.')
      : null,
    h(
      'p',
      {},
      'The airline refunds ',
      h('strong', { class: 'refund' }, money(refund)),
      ' to your card',
      fee > 0
        ? ` (you paid ${money(total)}; its cancellation fee is ${sdk().formatPrice(fee, total.decimal_places, total.currency)}).`
        : ', all that you paid.',
    ),
    h(
      'p',
      { class: 'muted small' },
      `This offer holds until ${timeFmt.format(new Date(ui.quote!.quote_expires_at!))}.`,
    ),
    h(
      'div',
      { class: 'actions' },
      smallButton('danger', `Cancel it, refund ${money(refund)}`, label, () => void actions.confirm(o)),
      smallButton('secondary', 'Keep it', label, () => actions.close(o)),
    ),
  )
}

/** A cancellation that did not go through (or an offer that expired), with the way to try again. */
function errorBox(o: Order, ui: CancelUi, label: string, actions: CancelActions): HTMLDivElement {
  const expired = ui.error?.code === 'quote_expired'
  const again = ui.retry === 'quote' ? 'Ask again' : 'Try again'
  return cancelBox(
    o.basket_item_id,
    'error',
    expired ? 'The refund offer has expired' : 'The cancellation did not go through',
    h(
      'p',
      {},
      expired ? 'Ask the airline again for what it refunds now.' : (ui.error?.detail ?? 'Something went wrong.'),
    ),
    ui.error?.code && !expired ? codeLine(ui.error) : null,
    h(
      'div',
      { class: 'actions' },
      smallButton('primary', again, label, () => void (ui.retry === 'quote' ? actions.ask(o) : actions.confirm(o))),
      smallButton('secondary', 'Keep it', label, () => actions.close(o)),
    ),
  )
}

/** The cancellation of one extra, as far as it has gone: a button, a quote to confirm, a refusal, or an error to retry. */
function cancelPart(o: Order, ui: CancelUi | undefined, label: string, actions: CancelActions): HTMLDivElement | null {
  if (!ui) return cancelButton(o, label, actions)
  const id = o.basket_item_id
  switch (ui.step) {
    case 'quoting':
      return cancelBox(id, 'busy', `Cancel ${o.display_name}?`, busyLine('Asking the airline what it refunds…'))
    case 'quote':
      return quoteBox(o, ui, label, actions)
    case 'refused':
      return cancelBox(
        id,
        'refused',
        `${o.display_name} cannot be cancelled`,
        h('p', {}, CANCEL_REASONS[ui.quote?.to_cancel[id]?.reason ?? ''] ?? CANCEL_REASONS['not_cancellable']!),
        h(
          'div',
          { class: 'actions' },
          smallButton('secondary', 'Close', label, () => actions.close(o)),
        ),
      )
    case 'confirming':
      return cancelBox(id, 'busy', `Cancelling ${o.display_name}`, busyLine('Cancelling with the airline…'))
    default:
      return errorBox(o, ui, label, actions)
  }
}
