/** The Payment section's news: what the payment is doing now, and why it did not go through. */
import { problemIn } from './api.ts'
import { $, codeLine, h, nullAsText, spinnerLine } from './dom.ts'

let slowTimer: ReturnType<typeof setTimeout> | undefined

/** What the payment is doing now (none: nothing); replaces a "still checking" line not shown yet. */
export function progress(text: string | null): void {
  clearTimeout(slowTimer)
  const box = $('pay-progress')
  if (!text) {
    box.replaceChildren()
    return
  }
  box.replaceChildren(...spinnerLine(text))
}

/** Says `text` after `ms`, unless the payment's progress has moved on by then. */
export function progressLater(text: string, ms: number): void {
  slowTimer = setTimeout(() => progress(text), ms)
}

export function showPayError(err: unknown): void {
  const p = problemIn(err) ?? {}
  const box = $('pay-error')
  const refusals: Record<string, string | undefined> = {
    trip_state_conflict:
      'Your booking changed while you were paying, or it is already complete. Nothing was charged; please check the summary and try again.',
    basket_not_valid: 'Some extras need your attention before you can pay.',
    already_paid: 'This booking is already paid.',
    payment_in_progress:
      'A payment for this booking is already on its way (in another tab?). Nothing more was charged.',
    network: p.detail,
  }
  const what = refusals[p.code ?? ''] ?? p.detail ?? 'Something went wrong.'
  box.replaceChildren(h('p', {}, what), nullAsText(p.code ? codeLine(p) : null))
  box.hidden = false
  box.focus()
}
