/**
 * Cancelling a bought extra: ask the airline (through the shop's backend, which holds the API key) what it
 * refunds, show the offer, and confirm exactly that offer; the order then moves cancelling → cancelled (or
 * back, refused). The trip each step reads goes to the manage step, which this flow is given.
 */
import { confirmCancellation, ProblemError, problemIn, quoteCancellation } from './api.ts'
import { announce } from './dom.ts'
import { money, orderLabel } from './format.ts'
import { focusCancel, focusCancelButton, renderPurchased, type CancelActions } from './purchased.ts'
import { loadedTrip, state, type CancelUi } from './state.ts'
import { CANCEL_REASONS } from './texts.ts'
import type { DemoTrip, Order, Quote } from './types.ts'

/** What the cancellation hands on to the manage step: a trip the backend read, and "read it again". */
export interface TripSink {
  apply(trip: DemoTrip): void
  refresh(): Promise<void>
}

export class CancelFlow implements CancelActions {
  constructor(private readonly trip: TripSink) {}

  /** Keeps the extra: its cancellation box closes, and focus goes back to its Cancel button. */
  close(o: Order): void {
    this.set(o.basket_item_id, null)
    focusCancelButton(o.basket_item_id)
  }

  /** Asks the airline what cancelling one extra refunds. */
  async ask(o: Order): Promise<void> {
    const id = o.basket_item_id
    this.set(id, { step: 'quoting' })
    focusCancel(id)
    try {
      const quote = await quoteCancellation(loadedTrip().trip_id, [id])
      const quoted = quote.to_cancel[id]
      if (!quoted) throw new ProblemError({ code: 'no_answer', detail: 'The airline did not answer for this extra.' })
      this.set(id, { step: quoted.cancellable ? 'quote' : 'refused', quote })
      announce(
        quoted.cancellable
          ? `If you cancel ${orderLabel(o)}, the airline refunds ${money(quoted.refund!)}. Confirm or keep it.`
          : `${orderLabel(o)} cannot be cancelled. ${CANCEL_REASONS[quoted.reason ?? ''] ?? CANCEL_REASONS['not_cancellable']}`,
      )
    } catch (err) {
      this.set(id, { step: 'error', error: problemIn(err) ?? { detail: (err as Error).message }, retry: 'quote' })
      if (problemIn(err)?.code === 'not_cancellable') void this.trip.refresh()
    }
    focusCancel(id)
  }

  /** Confirms the quote the traveller saw; a quote asked for since (another tab) is shown, never confirmed unseen. */
  async confirm(o: Order): Promise<void> {
    const id = o.basket_item_id
    const { quote } = state.manage.cancels.get(id) ?? {}
    if (!quote) return this.ask(o)
    this.set(id, { step: 'confirming', quote })
    focusCancel(id)
    announce(`Cancelling ${orderLabel(o)}…`)
    try {
      const result = await confirmCancellation(loadedTrip().trip_id, shown(quote))
      if (result.outcome === 'quote_changed') return this.offerChanged(o, result.quote)
      state.manage.cancels.delete(id)
      this.trip.apply(result.trip)
    } catch (err) {
      const code = problemIn(err)?.code
      // An expired quote, or an order that moved, needs a new quote; anything else (the network) the same confirmation again.
      this.set(id, {
        step: 'error',
        error: problemIn(err) ?? { detail: (err as Error).message },
        retry: code === 'quote_expired' || code === 'not_cancellable' ? 'quote' : 'confirm',
        quote,
      })
      if (code === 'not_cancellable') void this.trip.refresh()
    }
    focusCancel(id)
  }

  /** Asked again elsewhere (another tab): shows this extra's new offer, or asks again when it has none. */
  private offerChanged(o: Order, quote: Quote): Promise<void> {
    const id = o.basket_item_id
    const again = quote.to_cancel[id]
    if (!again?.cancellable) return this.ask(o)
    this.set(id, { step: 'quote', quote, changed: true })
    announce(`The refund offer for ${orderLabel(o)} changed: it is now ${money(again.refund!)}.`)
    focusCancel(id)
    return Promise.resolve()
  }

  private set(id: string, ui: CancelUi | null): void {
    if (ui) state.manage.cancels.set(id, ui)
    else state.manage.cancels.delete(id)
    renderPurchased(this)
  }
}

/** What the traveller was shown of a quote: its items, the total refund and its expiry. */
function shown(quote: Quote) {
  const quoted = Object.values(quote.to_cancel)
  return {
    basket_item_ids: quoted.map((i) => i.basket_item_id),
    refund: quoted.reduce((n, i) => n + (i.refund?.amount ?? 0), 0),
    quote_expires_at: quote.quote_expires_at,
  }
}
