/** The shop's wording for the codes the API and the backend answer with. */
import type { OrderStatus, Scenario } from './types.ts'
import type { ValidityState } from '../../../sdk/types.ts'

export const SCENARIO_NAMES: Record<Scenario, string> = {
  normal: 'Normal',
  price_change: 'Price change',
  unavailable: 'Unavailable',
  slow_check: 'Slow check',
  fulfillment_fails: 'Fulfillment fails',
  cancellation_refused: 'Cancellation refused',
}

export const STATE_TEXT: Record<ValidityState, string> = {
  valid: 'Confirmed price',
  checking: 'Checking…',
  price_changed: 'Price changed',
  unavailable: 'Unavailable',
  invalid: 'Price expired',
}

export const ORDER_TEXT: Record<OrderStatus, string> = {
  awaiting_ticketing: 'Waiting for the tickets',
  queued: 'Waiting',
  in_progress: 'Booking with the airline…',
  succeeded: 'Confirmed',
  failed: 'Not booked',
  cancelling: 'Cancelling…',
  cancelled: 'Cancelled',
}

/** Why the airline will not cancel an extra (a quote's `reason`). */
export const CANCEL_REASONS: Record<string, string> = {
  non_refundable: 'The airline does not refund this extra.',
  too_close_to_departure: 'It is too close to departure: the airline refunds it only until 24 hours before the flight.',
  departed: 'The flight has already left.',
  no_answer: 'The airline did not answer. Please try again later.',
  not_cancellable: 'The airline cannot cancel it.',
}

/** Why an item became unavailable (its validity's `reason`). */
export const REASONS: Record<string, string> = {
  sandbox_unavailable: 'The airline no longer sells it.',
  no_longer_offered: 'The airline no longer offers it.',
  exit_row_age: 'Exit-row seats are for passengers aged 16 or over.',
  exit_row: 'Exit-row seats are not for children or for passengers with an infant on their lap.',
  infant_age: 'Not available at this passenger’s age.',
  quantity_limit: 'More than the airline allows.',
  check_failed: 'The airline could not be reached.',
}
