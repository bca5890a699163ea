/**
 * What each error code of the browser SDK means and what to do about it: the text of docs/errors.md's "SDK
 * errors" (scripts/gen-errors.ts). A Record over `SvcErrorCode`, so a code is not added without its entry.
 * Documentation only: nothing of the SDK bundle imports it.
 */
import type { SvcErrorCode } from './errors.ts'

export const SVC_ERROR_CODES: Record<SvcErrorCode, { meaning: string; action: string }> = {
  invalid_options: {
    meaning:
      '`Svc.init` or `Svc.showUpsell` was called with an option missing or of the wrong kind; the message names it.',
    action: 'Fix the options (docs/sdk.md lists them).',
  },
  not_initialized: {
    meaning: '`Svc.showUpsell` was called before `Svc.init` resolved, or after `Svc.destroy`.',
    action: 'Wait for `Svc.init(...)` to resolve first (await it).',
  },
  container_not_found: {
    meaning: 'No element with the container id given to `showUpsell` is in the page.',
    action: 'Pass an element that is in the page, or the id of one.',
  },
  unauthorized: {
    meaning:
      'The trip access token is invalid, or it expired and could not be renewed (no refresh token, or `getAccessToken` failed).',
    action: 'Give `Svc.init` a fresh access token, and a `refreshToken` or `getAccessToken` so it can renew it.',
  },
  not_found: {
    meaning: "The trip does not exist for this token (deleted by retention, or another seller's).",
    action: 'Create the trip again on your backend and init with its id and tokens.',
  },
  rejected: {
    meaning:
      'The API refused a change the traveller asked for; its problem code is in `apiCode` (docs/errors.md, "API problems").',
    action: 'Handle it as the API problem says; the widget shows the traveller what happened.',
  },
  network: {
    meaning: 'The API could not be reached.',
    action: 'Nothing in the page: the widget offers "Try again". Check the `baseUrl` and that the API is up.',
  },
  offers_unavailable: {
    meaning:
      "The airline's search for the trip's offers failed (a remote supplier's, such as Duffel's); `apiCode` is its failure_reason (supplier_timeout, supplier_unavailable, not_matched, …).",
    action:
      'Nothing in the page: the widget shows "Try again", which searches again. If it persists, check the seller\'s supplier configuration and the trip\'s Duffel ids (docs/suppliers.md).',
  },
  no_products: {
    meaning: 'Nothing of the products allowed (`allowProducts`/`excludeProducts`) is offered on this trip.',
    action: 'Show the rest of your checkout; nothing is wrong.',
  },
  internal: {
    meaning: 'Something failed in the SDK itself; the message and `cause` say what.',
    action: 'Report it with the message.',
  },
}
